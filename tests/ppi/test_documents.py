"""The documents system end to end on real BioRED abstracts: ``ppi train --relations-from``
→ ``ppi extract`` → ``ppi aggregate`` → ``ppi evaluate-documents``; the extraction scores
equal the training path's; every candidate of the gold file is scored; the saved model's
checks; the document-level CV.  On generated abstracts: every relation counted or refused,
a degenerate file refused in the user's terms, an unwritable parse cache gone without."""

import json
import re
from pathlib import Path

import numpy as np
import pytest

from corpora.text_input import read_pubtator
from kernelrank.errors import CorpusFormatError

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def biored(data_dir, tmp_path_factory, nlp):
    from tests.conftest import biored_slices

    d = tmp_path_factory.mktemp("biored")
    train, dev = biored_slices(data_dir, d, 60, 15)
    return {"train": train, "dev": dev, "dir": d}


@pytest.fixture(scope="module")
def documents_model(biored, data_dir):
    from ppi.__main__ import main

    d = biored["dir"]
    assert main(["train", "--entity-types", "Gene", "GeneOrGeneProduct", "--relations-from", str(biored["train"]), "--no-transfer",
                 "--data-dir", str(data_dir), "--model", str(d / "model"),
                 "--output-dir", str(d / "train-report"), "--quiet"]) == 0
    return d / "model"


def test_train_extract_aggregate_evaluate_on_biored(biored, documents_model, data_dir):
    from ppi.__main__ import main
    from ppi.aggregation.evaluation import gold_candidates
    from ppi.models.classes import DocumentModel, PPIModel

    model = PPIModel.load(documents_model)
    assert isinstance(model, DocumentModel) and model.stage is not None
    assert set(model.entity_types) == {"Gene", "GeneOrGeneProduct"}
    assert model.parses == ("spacy",)
    d = biored["dir"]
    out, agg = d / "pairs.jsonl", d / "docs.jsonl"
    assert main(["extract", "--quiet", "--model", str(documents_model), "--input",
                 str(biored["dev"]), "--format", "pubtator", "--output", str(out),
                 "--jobs", "0"]) == 0
    records = [json.loads(x) for x in out.read_text().splitlines()]
    doc_records = [r for r in records if r.get("level") == "document"]
    pair_records = [r for r in records if r.get("level") != "document"]
    # only gene mentions were paired (the model's entity types; BioRED also annotates
    # chemicals, diseases, variants, species, cell lines)
    gold = gold_candidates(list(read_pubtator(biored["dev"])))
    assert pair_records and all(r["e1"]["type"] and r["e2"]["type"] for r in pair_records)
    assert {r["e1"]["type"] for r in pair_records} <= {"GeneOrGeneProduct"}
    # every candidate of the gold file has exactly one document record, also the pairs
    # that never share a sentence
    got = {(r["doc_id"], tuple(sorted((r["e1"]["concept_id"], r["e2"]["concept_id"]))))
           for r in doc_records}
    want = {(doc, tuple(sorted(k))) for doc, (c, _) in gold.items() for k in c}
    assert got == want and len(doc_records) == len(want)
    assert any(r["mention_pairs"] == 0 for r in doc_records)
    assert all(r["interaction"] == (r["score"] > model.threshold) for r in doc_records)
    assert all(r["interaction"] == (r["score"] > model.pair_threshold) for r in pair_records)

    assert main(["aggregate", "--quiet", "--input", str(out), "--output", str(agg)]) == 0
    assert main(["evaluate-documents", "--quiet", "--input", str(agg), "--gold",
                 str(biored["dev"]), "--output-dir", str(d / "eval")]) == 0
    res = json.loads((d / "eval" / "results.json").read_text())
    c = res["candidates"]
    assert c["n"] == len(want) and c["never_scored"] == 0
    assert c["related"] == sum(len(r) for _, r in gold.values())
    # 60 training abstracts: the ranking is far from random (random: 0.5)
    assert c["model"]["auc"] > 0.7


def test_extraction_scores_equal_the_training_paths(biored, documents_model):
    """The scores ``ppi extract`` writes are the model's on the featurization of training:
    one parse (spaCy, the same mentions), one featurizer, one document stage."""
    from ppi.extraction.extract import ExtractionResources, process_chunk
    from ppi.models.classes import PPIModel
    from ppi.documents.relations import relation_corpus

    model = PPIModel.load(documents_model)
    docs = list(read_pubtator(biored["dev"]))
    text, _ = process_chunk(docs, ExtractionResources(model))
    records = [json.loads(x) for x in text.splitlines()]
    rc = relation_corpus(docs, model.entity_types, cache=False)
    (data,) = model.featurizer.transform([rc.corpus])
    pair_scores = np.asarray(data.X @ model.weights).ravel()
    mine = [r["score"] for r in records if r.get("level") != "document"]
    np.testing.assert_allclose(mine, pair_scores, rtol=1e-9, atol=1e-12)
    cand = model.candidate_scores(pair_scores, rc.candidates)
    by_key = {(r["doc_id"], tuple(sorted((r["e1"]["concept_id"], r["e2"]["concept_id"])))):
              r["score"] for r in records if r.get("level") == "document"}
    c = rc.candidates
    want = [by_key[(c.doc_ids[c.doc[k]], tuple(sorted((c.id1[k], c.id2[k]))))]
            for k in range(len(c))]
    np.testing.assert_allclose(want, cand, rtol=1e-9, atol=1e-12)


def test_raw_text_tagged_with_a_lexicon_of_ids_scores_as_the_annotated_text(
        biored, documents_model, tmp_path):
    """Text without annotations, tagged with a lexicon built from annotated files (names
    with their NCBI Gene ids, ``ppi mentions --input``), gets gene pairs from a documents
    model; where the tagger finds exactly the curators' gene mentions, every gene pair's
    score is the one the annotated document gets."""
    import dataclasses

    from ppi.__main__ import main
    from ppi.extraction.extract import ExtractionResources, process_chunk
    from ppi.extraction.mentions import DictionaryTagger, read_lexicon_entries
    from ppi.models.classes import PPIModel
    from ppi.documents.relations import candidate_mentions

    lexicon = tmp_path / "genes.txt"
    assert main(["mentions", "--quiet", "--input", str(biored["dev"]), "--output",
                 str(lexicon)]) == 0
    entries = read_lexicon_entries(lexicon)
    assert entries and all(i is not None for _, i in entries)
    model = PPIModel.load(documents_model)
    docs = list(read_pubtator(biored["dev"]))
    raw = [dataclasses.replace(d, mentions=None, relations=None) for d in docs]
    tagger = DictionaryTagger(lexicon=lexicon)

    def gene_pairs(documents, resources):
        text, _ = process_chunk(documents, resources)
        return {(r["doc_id"], tuple(sorted((r["e1"]["concept_id"], r["e2"]["concept_id"])))):
                r["score"] for r in map(json.loads, text.splitlines())
                if r.get("level") == "document"}

    tagged = gene_pairs(raw, ExtractionResources(model, tagger))
    annotated = gene_pairs(docs, ExtractionResources(model))
    ids = {i for _, x in entries for i in x.split(",")}
    assert tagged and all(set(k) <= ids for _, k in tagged)
    same = [d.id for d in docs if {(m.start, m.end, m.id) for m in candidate_mentions(d)}
            == {(m.start, m.end, m.id) for m in tagger.tag(d.text)}]
    assert len(same) >= len(docs) // 2, "the lexicon should find most documents' genes"
    for doc_id in same:
        want = {k: v for k, v in annotated.items() if k[0] == doc_id}
        got = {k: v for k, v in tagged.items() if k[0] == doc_id}
        assert got.keys() == want.keys()
        np.testing.assert_allclose([got[k] for k in want], list(want.values()), rtol=1e-9,
                                   atol=1e-12)


def test_a_model_of_one_relation_type_learns_and_is_evaluated_on_that_type(biored, data_dir,
                                                                          tmp_path):
    """``--relation-types``: the related candidates are those of the asked types, in
    training and in the evaluation, and the model records them."""
    from ppi.__main__ import main
    from ppi.aggregation.aggregate import gene_pair
    from ppi.aggregation.evaluation import gold_candidates
    from ppi.documents.system import DocumentSystem
    from ppi.models.classes import PPIModel
    from ppi.documents.relations import keep_relation_types

    types = ["Positive_Correlation", "Negative_Correlation"]
    system = DocumentSystem(relation_types=tuple(types), transfer=False, progress=False)
    rc = system.read_relations(biored["train"])
    gold = gold_candidates(keep_relation_types(list(read_pubtator(biored["train"])), types))
    c = rc.candidates
    got = {(c.doc_ids[c.doc[k]], gene_pair(c.id1[k], c.id2[k])) for k in range(len(c))
           if c.y[k] > 0}
    assert got == {(d, p) for d, (_, rel) in gold.items() for p in rel} and got
    assert len(c) == sum(len(cands) for cands, _ in gold.values())

    model_dir = tmp_path / "model"
    assert main(["train", "--quiet", "--entity-types", "Gene", "GeneOrGeneProduct", "--relations-from", str(biored["train"]),
                 "--relation-types", *types, "--no-transfer", "--data-dir", str(data_dir),
                 "--model", str(model_dir), "--output-dir", str(tmp_path / "report")]) == 0
    assert PPIModel.load(model_dir).training["system"]["relation_types"] == types
    out, agg = tmp_path / "pairs.jsonl", tmp_path / "docs.jsonl"
    assert main(["extract", "--quiet", "--model", str(model_dir), "--input",
                 str(biored["dev"]), "--output", str(out), "--jobs", "0"]) == 0
    assert main(["aggregate", "--quiet", "--input", str(out), "--output", str(agg)]) == 0

    def evaluate(name, *options):
        assert main(["evaluate-documents", "--quiet", "--input", str(agg), "--gold",
                     str(biored["dev"]), *options, "--output-dir", str(tmp_path / name)]) == 0
        return json.loads((tmp_path / name / "results.json").read_text())

    def related(types):
        dev = gold_candidates(keep_relation_types(list(read_pubtator(biored["dev"])), types))
        return sum(len(r) for _, r in dev.values())

    res = evaluate("eval", "--relation-types", *types)
    assert res["relation_types"] == types and res["pair_definition"]["note"] is None
    assert res["candidates"]["related"] == related(types)
    # without the option: the model's types, recorded by extract and carried by aggregate
    recorded = evaluate("recorded")
    assert recorded["relation_types"] == types
    assert recorded["pair_definition"]["from"]["relation_types"] == "model"
    assert recorded["candidates"] == res["candidates"]
    # another type than the model's: measured as asked, and said
    bind = evaluate("bind", "--relation-types", "Bind")
    assert bind["candidates"]["related"] == related(["Bind"]) < related(types)
    assert "Bind" in bind["pair_definition"]["note"] and types[0] in \
        bind["pair_definition"]["note"]
    assert "measured as asked" in (tmp_path / "bind" / "results.md").read_text()
    # the summary gone (or another run's): nothing recorded, every relation type
    Path(f"{agg}.summary.json").unlink()
    unknown = evaluate("unknown")
    assert unknown["relation_types"] is None and unknown["pair_definition"]["recorded"] == {}
    assert unknown["candidates"]["related"] == related(None) > related(types)
    assert "--model names it" in (tmp_path / "unknown" / "results.md").read_text()
    # --model: the saved model's types without any summary
    named = evaluate("named", "--model", str(model_dir))
    assert named["relation_types"] == types and named["pair_definition"]["note"] is None
    assert named["pair_definition"]["from"]["relation_types"] == "model"
    assert named["candidates"] == res["candidates"]


def test_document_records_are_byte_identical_in_process_and_on_dask_workers(
        biored, documents_model, tmp_path):
    pytest.importorskip("distributed")
    from ppi.__main__ import main

    outs = []
    for jobs in ("0", "1"):
        out = tmp_path / f"jobs{jobs}.jsonl"
        assert main(["extract", "--quiet", "--model", str(documents_model), "--input",
                     str(biored["dev"]), "--output", str(out), "--jobs", jobs,
                     "--chunk-size", "4"]) == 0
        outs.append(out.read_bytes())
    assert b'"level": "document"' in outs[0] and outs[0] == outs[1]


def test_saved_document_model_round_trip_and_damage(documents_model, tmp_path):
    import shutil

    from ppi.models.classes import PPIModel

    model = PPIModel.load(documents_model)
    copy = model.save(tmp_path / "again")
    back = PPIModel.load(copy)
    F = np.random.default_rng(0).normal(size=(7, model.stage.basis_.shape[1]))
    np.testing.assert_array_equal(back.stage.decision_function(F),
                                  model.stage.decision_function(F))
    assert back.entity_types == model.entity_types and back.threshold == model.threshold
    # an edited stage threshold breaks the seal
    bad = tmp_path / "bad"
    shutil.copytree(documents_model, bad)
    meta = json.loads((bad / "model.json").read_text())
    meta["document"]["stage"]["threshold"] += 1.0
    (bad / "model.json").write_text(json.dumps(meta))
    with pytest.raises(CorpusFormatError, match="meta_sha256"):
        PPIModel.load(bad)


def test_document_cv_on_biored(biored, data_dir, tmp_path):
    from ppi.__main__ import main

    assert main(["cv", "--entity-types", "Gene", "GeneOrGeneProduct", "--relations-from", str(biored["train"]), "--no-transfer",
                 "--folds", "3", "--data-dir", str(data_dir), "--output-dir",
                 str(tmp_path / "cv"), "--quiet"]) == 0
    res = json.loads((tmp_path / "cv" / "results.json").read_text())
    assert len(res["folds"]) == 3
    assert sum(f["n"] for f in res["folds"]) == res["data"]["candidates"]
    assert 0.5 < res["pooled_auc"] <= 1.0
    assert (tmp_path / "cv" / "roc.png").is_file()


def test_exact_learner_that_cannot_fit_is_refused_before_featurizing(biored, data_dir,
                                                                     tmp_path, monkeypatch,
                                                                     capsys):
    """`ppi train --relations-from` on a machine too small for full RLS on the file's mention
    pairs stops after reading them — naming them and --learner reduced_set — before any
    featurization; nothing is written."""
    import kernelrank.memory
    import ppi.documents.system
    from ppi.__main__ import main

    monkeypatch.setattr(kernelrank.memory, "physical_memory_bytes", lambda: 10_000)

    def featurized(*args, **kwargs):
        raise AssertionError("featurized before the memory check")

    monkeypatch.setattr(ppi.documents.system.DocumentSystem, "featurize", featurized)
    assert main(["train", "--entity-types", "Gene", "GeneOrGeneProduct", "--relations-from", str(biored["train"]), "--no-transfer",
                 "--learner", "rls", "--data-dir", str(data_dir), "--model", str(tmp_path / "m"),
                 "--output-dir", str(tmp_path / "r"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "training pairs needs about" in err and "--learner reduced_set" in err
    assert not (tmp_path / "m").exists()


# ------------------------------------- generated documents: relations, errors, caches
def _train(src, tmp_path, *extra, name="m"):
    from ppi.__main__ import main

    return main(["train", "--relations-from", str(src), "--no-transfer", "--model",
                 str(tmp_path / name), "--output-dir", str(tmp_path / f"{name}-report"),
                 "--quiet", *extra])


def _report(tmp_path, name="m"):
    return json.loads((tmp_path / f"{name}-report" / "results.json").read_text())


def _related_pairs(docs):
    """The related candidates of ``docs`` by the definition (two distinct gene ids of the
    document, both mentioned, named by one relation), counted here."""
    related = set()
    for d in docs:
        ids = {m.id for m in d.mentions}
        related |= {(d.id, frozenset((r.id1, r.id2))) for r in d.relations
                    if r.id1 in ids and r.id2 in ids and r.id1 != r.id2}
    return len(related)


def test_training_counts_every_relation_and_refuses_an_id_with_a_bar(nlp, tmp_path, caplog):
    """``ppi train --relations-from``: relation ids written ``7124|77777777`` are an error
    naming the file and line (with --skip-bad left out and counted, not silently unrelated);
    a relation per document naming an id no mention carries leaves the related pairs as
    they are, is counted and listed in results.json and results.md, with a warning."""
    import dataclasses
    import logging

    from corpora.documents import Relation
    from tests.conftest import relation_documents, write_pubtator_file

    docs = relation_documents(8)
    clean = write_pubtator_file(docs, tmp_path / "clean.pubtator")
    lines = clean.read_text().split("\n")
    barred = [re.sub(r"^(\d+\tBind\t)(\d+)\t", r"\1\2|77777777\t", x) for x in lines]
    n_barred = sum(a != b for a, b in zip(lines, barred))
    first = next(k for k, (a, b) in enumerate(zip(lines, barred), 1) if a != b)
    bar = tmp_path / "bar.pubtator"
    bar.write_text("\n".join(barred))
    assert _train(bar, tmp_path) == 2 and not (tmp_path / "m").exists()
    assert _train(bar, tmp_path, "--skip-bad") == 2                 # no relation left at all
    # one barred relation only: left out and counted, the others learned from
    one_bar = tmp_path / "one-bar.pubtator"
    one_bar.write_text("\n".join(barred[:first] + lines[first:]))
    assert _train(one_bar, tmp_path, "--skip-bad") == 0
    data = _report(tmp_path)["data"]
    assert data["relations"]["dropped"] == 1 and data["records_skipped"] == 0
    assert data["related"] == _related_pairs(docs) - 1
    # an extra relation per document naming 77777777, which no mention carries
    extra = write_pubtator_file(
        [dataclasses.replace(d, relations=d.relations + [Relation("Bind", "77777777",
                                                                  d.mentions[0].id)])
         for d in docs], tmp_path / "extra.pubtator")
    with caplog.at_level(logging.WARNING):
        assert _train(extra, tmp_path, name="x") == 0
    data = _report(tmp_path, "x")["data"]
    assert data["related"] == _related_pairs(docs)
    r = data["relations"]
    assert (r["read"], r["used"], r["unknown_ids"]) == (n_barred + 8, n_barred, 8)
    assert r["unknown_id_examples"][:2] == ["doc 100: 77777777", "doc 101: 77777777"]
    assert "doc 100: 77777777" in (tmp_path / "x-report" / "results.md").read_text()
    assert any("name an id no mention" in rec.getMessage() for rec in caplog.records
               if rec.levelno == logging.WARNING)


def test_training_refuses_a_barred_id_naming_the_file_and_line(nlp, tmp_path, capsys):
    from tests.conftest import relation_documents, write_pubtator_file

    clean = write_pubtator_file(relation_documents(8), tmp_path / "clean.pubtator")
    lines = clean.read_text().split("\n")
    first = next(k for k, x in enumerate(lines, 1) if "\tBind\t" in x)
    lines[first - 1] = re.sub(r"\tBind\t(\d+)\t", r"\tBind\t\1|77777777\t", lines[first - 1])
    bar = tmp_path / "bar.pubtator"
    bar.write_text("\n".join(lines))
    capsys.readouterr()
    assert _train(bar, tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {bar}, line {first}") and "|77777777" in err, err
    assert "--skip-bad" in err and not (tmp_path / "m").exists()


def test_training_on_bioc_refuses_an_empty_role_as_evaluate_documents_does(nlp, tmp_path,
                                                                          capsys):
    """A BioC relation with an empty Gene2: refused naming the file and the relation, as
    the gold reader of evaluate-documents refuses it; with --skip-bad left out and counted."""
    from tests.conftest import relation_documents, write_bioc_file

    pytest.importorskip("bioc")
    docs = relation_documents(8)
    src = write_bioc_file(docs, tmp_path / "train.bioc.xml", lambda d, k, r: (
        {"Gene1": r.id1, "Gene2": ""} if (d.id, k) == ("100", 0) else None))
    capsys.readouterr()
    assert _train(src, tmp_path) == 2
    err = capsys.readouterr().err
    assert f"error: {src}, record '100/relation R0'" in err and "second" in err, err
    assert _train(src, tmp_path, "--skip-bad") == 0
    data = _report(tmp_path)["data"]
    assert data["relations"]["dropped"] == 1 and data["relations"]["read"] == \
        sum(len(d.relations) for d in docs) - 1


def test_a_degenerate_file_is_refused_in_the_users_terms_before_featurizing(nlp, tmp_path,
                                                                           capsys,
                                                                           monkeypatch):
    """One document, relations that name no mention's id, fewer documents than folds: exit
    2 naming the file, what is wrong with it and the minimum — before any featurization."""
    import ppi.documents.system
    from ppi.__main__ import main
    from tests.conftest import relation_documents, write_pubtator_file

    def featurized(*args, **kwargs):
        raise AssertionError("featurized a file that cannot be learned from")

    monkeypatch.setattr(ppi.documents.system.DocumentSystem, "featurize", featurized)
    docs = relation_documents(8)
    one = write_pubtator_file(docs[:1], tmp_path / "one.pubtator")
    capsys.readouterr()
    assert _train(one, tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: one.pubtator: 1 document; training needs at least 2 "
                          "documents with a mention pair"), err
    unknown = tmp_path / "unknown.pubtator"
    unknown.write_text(re.sub(r"\tBind\t\d+\t", "\tBind\t99999999\t",
                              write_pubtator_file(docs, tmp_path / "all.pubtator").read_text()))
    assert _train(unknown, tmp_path) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown.pubtator: 0 related candidate pairs"), err
    assert "name an id no mention of their document carries (doc 100: 99999999" in err
    assert "more documents would not help" in err
    assert main(["cv", "--relations-from", str(tmp_path / "all.pubtator"), "--no-transfer",
                 "--folds", "10", "--output-dir", str(tmp_path / "cv"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "all.pubtator: 8 documents for 10 folds; cv needs at least as many documents as " \
        "folds (--folds)" in err, err
    assert not (tmp_path / "m").exists() and not (tmp_path / "cv").exists()


def test_an_unwritable_spacy_cache_is_one_warning_and_training_goes_on(nlp, tmp_path, capsys,
                                                                       caplog, monkeypatch):
    """$KERNELRANK_SPACY_CACHE below a regular file (the tests run as root, whom no
    permission stops; a read-only home fails the same way): a model all the same, one
    warning naming the folder and the variable, no temporary file named anywhere."""
    import logging

    from ppi.parsing.spacy_analyses import CACHE_ENV_VAR
    from tests.conftest import relation_documents, write_pubtator_file

    (tmp_path / "home").write_text("")
    monkeypatch.setenv(CACHE_ENV_VAR, str(tmp_path / "home" / "cache"))
    src = write_pubtator_file(relation_documents(8), tmp_path / "train.pubtator")
    with caplog.at_level(logging.WARNING):
        assert _train(src, tmp_path) == 0
    out = capsys.readouterr()
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert warnings == [(f"spaCy parses cache folder {tmp_path / 'home' / 'cache'} not "
                         "writable (Not a directory): going on without it; set "
                         "$KERNELRANK_SPACY_CACHE to move it")]
    assert ".tmp" not in out.out + out.err + caplog.text
    assert (tmp_path / "m").is_dir()
