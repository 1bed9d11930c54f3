"""The documents system end to end on real BioRED abstracts: ``ppi train --relations-from``
→ ``ppi extract`` → ``ppi aggregate`` → ``ppi evaluate-documents``; the extraction scores
equal the training path's; every candidate of the gold file is scored; the saved model's
checks; the document-level CV."""

import json
from pathlib import Path

import numpy as np
import pytest

from corpora.text_input import read_pubtator, write_pubtator
from kernelrank.errors import CorpusFormatError

pytestmark = pytest.mark.slow


def _slice(src, out, start, n):
    docs = list(read_pubtator(src))[start:start + n]
    with open(out, "w", encoding="utf-8") as fh:
        write_pubtator(docs, fh)
    return out


@pytest.fixture(scope="module")
def biored(data_dir, tmp_path_factory, nlp):
    train = data_dir / "biored" / "Train.PubTator.gz"
    dev = data_dir / "biored" / "Dev.PubTator.gz"
    if not train.is_file() or not dev.is_file():
        pytest.skip("BioRED (biored/Train.PubTator.gz, Dev.PubTator.gz) is absent")
    d = tmp_path_factory.mktemp("biored")
    return {"train": _slice(train, d / "train.pubtator", 0, 60),
            "dev": _slice(dev, d / "dev.pubtator", 0, 15), "dir": d}


@pytest.fixture(scope="module")
def documents_model(biored, data_dir):
    from ppi.__main__ import main

    d = biored["dir"]
    assert main(["train", "--relations-from", str(biored["train"]), "--no-transfer",
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
    assert main(["train", "--quiet", "--relations-from", str(biored["train"]),
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

    assert main(["cv", "--relations-from", str(biored["train"]), "--no-transfer",
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
    assert main(["train", "--relations-from", str(biored["train"]), "--no-transfer",
                 "--learner", "rls", "--data-dir", str(data_dir), "--model", str(tmp_path / "m"),
                 "--output-dir", str(tmp_path / "r"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "training pairs needs about" in err and "--learner reduced_set" in err
    assert not (tmp_path / "m").exists()
