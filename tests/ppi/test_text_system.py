"""`ppi train`'s default, the ``text`` system: trained on spaCy's parse of the corpus (the
parse raw text gets), linear, with transfer — its scores on spaCy-parsed text are the
training path's scores (parser-matched by construction)."""

import json

import numpy as np
import pytest

from kernelrank.errors import CorpusFormatError
from ppi.parsing.spacy_parse import CONVERSION_VERSION

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def text_model(data_dir, tmp_path_factory, nlp):
    from ppi.__main__ import main
    from ppi.names import corpus_path

    for name in ("LLL", "IEPA", "HPRD50"):
        corpus_path(data_dir, name)
    if not (data_dir / "biored" / "Train.PubTator.gz").is_file():
        pytest.skip("BioRED (biored/Train.PubTator.gz), the text system's development set, "
                    "is absent")
    d = tmp_path_factory.mktemp("text")
    assert main(["train", "--corpus", "LLL", "--sources", "IEPA", "--data-dir",
                 str(data_dir), "--model", str(d / "m"), "--output-dir", str(d / "r"),
                 "--quiet"]) == 0
    return d / "m"


def test_default_training_system_reads_spacys_parse_and_is_linear(text_model):
    from ppi.models.classes import PPIModel

    meta = json.loads((text_model / "model.json").read_text())
    assert meta["version"] == 4 and meta["parses"] == ["spacy"]
    assert meta["featurizer"]["bow_parse"] == "spacy"
    assert [v["name"] for v in meta["featurizer"]["views"]] == [
        "apg:spacy", "path:spacy", "bow", "pair", "local"]
    assert meta["training"]["transfer"]["sources"] == ["IEPA"]
    assert meta["training"]["spacy_model"] == "en_core_web_sm"
    assert meta["training"]["spacy_conversion"] == CONVERSION_VERSION
    m = PPIModel.load(text_model)
    assert m.gamma is None and m.weights.ndim == 1


def test_default_lambda_and_beta_are_chosen_on_half_of_biored_the_other_half_trains(
        text_model, data_dir):
    """BioRED's training abstracts in two halves by document id
    (ppi.systems.development.development_halves): one half's mention pairs join the corpus' as
    training pairs, the other chooses λ, β by the document-level AUC.  The saved model — rows
    and coefficients assembled at that candidate, written and read back — ranks the choosing
    half's gene pairs with exactly the AUC the selection computed from the fit's path, and
    that AUC is the grid's best; the threshold is the inner best-F one of the chosen
    candidate."""
    from ppi.systems.development import development_corpus, development_halves
    from ppi.documents.mention_stage import candidate_auc
    from ppi.models.classes import PPIModel
    from ppi.names import corpus_path
    from ppi.documents.relations import bag_max
    from corpora.ppi_xml import read_corpus

    res = json.loads((text_model.parent / "r" / "results.json").read_text())
    dev = res["development"]
    rc = development_corpus(data_dir / "biored" / "Train.PubTator.gz", "en_core_web_sm")
    taught, chosen_half = development_halves(rc)
    assert dev["file"] == "Train.PubTator.gz"
    assert dev["documents"] == len(chosen_half.corpus.documents) > 150
    assert dev["candidates"] == len(chosen_half.candidates)
    assert dev["trained_on"] == {"documents": len(taught.corpus.documents),
                                 "candidates": len(taught.candidates),
                                 "mention_pairs": taught.n_pairs}
    lll = sum(len(s.pairs) for s in read_corpus(corpus_path(data_dir, "LLL")).sentences())
    assert res["training"]["n_pairs"] == lll + taught.n_pairs
    grid = res["grid"]
    assert dev["auc"] == max(c["development_auc"] for c in grid)
    chosen = [c for c in grid if c["alpha"] == res["alpha"]
              and c["beta"] == res["training"]["transfer"]["beta"]]
    assert chosen and chosen[0]["threshold"] == res["threshold"]
    assert res["inner_loo_document_auc"] == chosen[0]["score"]
    m = PPIModel.load(text_model)
    assert m.training["development"] == dev          # the model records how λ was chosen
    _, s = m.decision_function(chosen_half.corpus)
    assert candidate_auc(chosen_half.candidates.y, bag_max(s, chosen_half.candidates)) == \
        pytest.approx(dev["auc"], rel=1e-9)


def test_select_on_inner_keeps_the_inner_choice_and_a_missing_file_is_refused_first(
        data_dir, tmp_path, capsys):
    from ppi.__main__ import main

    args = ["train", "--corpus", "LLL", "--no-transfer", "--data-dir", str(data_dir),
            "--output-dir", str(tmp_path / "r"), "--quiet"]
    assert main(args + ["--select-on", str(tmp_path / "none.pubtator"),
                        "--model", str(tmp_path / "x")]) == 2
    assert "none.pubtator" in capsys.readouterr().err and not (tmp_path / "x").exists()
    assert main(args + ["--select-on", "inner", "--model", str(tmp_path / "m")]) == 0
    res = json.loads((tmp_path / "r" / "results.json").read_text())
    assert "development" not in res
    best = max(res["grid"], key=lambda c: c["score"])
    assert res["alpha"] == best["alpha"] and res["inner_loo_document_auc"] == best["score"]


def test_the_model_records_its_spacy_pipeline_and_extraction_uses_it(data_dir, nlp,
                                                                    tmp_path):
    """`ppi train --spacy-model FOLDER`: the corpus is analysed by that pipeline (its own
    cache entry), the model records the folder, and `ppi extract` without --spacy-model
    parses with it — the scores are the training path's with that pipeline's analyses."""
    from corpora.ppi_xml import read_corpus
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    from ppi.names import corpus_path
    from ppi.parsing.spacy_analyses import add_spacy_analyses

    src = corpus_path(data_dir, "LLL")
    pipeline = tmp_path / "pipeline"
    nlp.to_disk(pipeline)
    assert main(["train", "--corpus", "LLL", "--no-transfer", "--spacy-model", str(pipeline),
                 "--select-on", "inner", "--data-dir", str(data_dir),
                 "--model", str(tmp_path / "m"), "--output-dir", str(tmp_path / "r"),
                 "--quiet"]) == 0
    m = PPIModel.load(tmp_path / "m")
    assert m.spacy_model == str(pipeline.resolve())
    out = tmp_path / "o.jsonl"
    assert main(["extract", "--quiet", "--model", str(tmp_path / "m"), "--input", str(src),
                 "--format", "learning-xml", "--reparse", "--output", str(out),
                 "--jobs", "0"]) == 0
    summary = json.loads(out.with_name(out.name + ".summary.json").read_text())
    assert summary["spacy_model"] == str(pipeline.resolve())
    corpus = add_spacy_analyses(read_corpus(src), str(pipeline), cache=False)
    _, s = m.decision_function(corpus)
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    np.testing.assert_allclose([r["score"] for r in recs], s, rtol=1e-9, atol=1e-12)


def test_raw_text_scores_are_the_training_paths(text_model, data_dir, tmp_path):
    """`ppi extract --reparse` (spaCy's parse of each sentence) scores exactly what the model
    computes on the corpus with its spaCy analyses added as in training."""
    from corpora.ppi_xml import read_corpus
    from learners.measures import auc
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    from ppi.names import corpus_path
    from ppi.parsing.spacy_analyses import add_spacy_analyses

    src = corpus_path(data_dir, "HPRD50")
    out = tmp_path / "o.jsonl"
    assert main(["extract", "--quiet", "--model", str(text_model), "--input", str(src),
                 "--format", "learning-xml", "--reparse", "--output", str(out),
                 "--jobs", "0"]) == 0
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    m = PPIModel.load(text_model)
    corpus = add_spacy_analyses(read_corpus(src), cache=False)
    data, s = m.decision_function(corpus)
    np.testing.assert_allclose([r["score"] for r in recs], s, rtol=1e-9, atol=1e-12)
    y = np.array([1.0 if r["label"] else -1.0 for r in recs])
    assert auc(y, s) > 0.6
    # without --reparse the file lacks the model's parse: a clear error naming it
    assert main(["extract", "--quiet", "--model", str(text_model), "--input", str(src),
                 "--format", "learning-xml", "--output", str(tmp_path / "x.jsonl"),
                 "--jobs", "0"]) == 2
    with pytest.raises(CorpusFormatError, match="--reparse"):
        from ppi.extraction.extract import ExtractionResources, process_chunk
        from corpora.text_input import read_learning_xml
        process_chunk(list(read_learning_xml(src))[:3], ExtractionResources(m))


def test_a_model_of_an_earlier_conversion_is_scored_with_it(text_model, data_dir, tmp_path):
    """A model trained on conversion 1 of spaCy's analysis (before the propagation of
    conjunct dependencies; ``training.spacy_conversion`` 1, or absent in a model saved
    before it was recorded) gets raw text converted the same way by `ppi extract`: its
    scores are those of the corpus analysed with ``collapse=1``, and they differ from the
    current conversion's on LLL's coordinations."""
    from corpora.ppi_xml import read_corpus
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    from ppi.names import corpus_path
    from ppi.parsing.spacy_analyses import add_spacy_analyses

    m = PPIModel.load(text_model)
    m.training = {k: v for k, v in m.training.items() if k != "spacy_conversion"}
    m.save(tmp_path / "old")
    src = corpus_path(data_dir, "LLL")
    out = tmp_path / "o.jsonl"
    assert main(["extract", "--quiet", "--model", str(tmp_path / "old"), "--input", str(src),
                 "--format", "learning-xml", "--reparse", "--output", str(out),
                 "--jobs", "0"]) == 0
    got = [json.loads(x)["score"] for x in out.read_text().splitlines()]
    summary = json.loads(out.with_name(out.name + ".summary.json").read_text())
    assert summary["collapse"] == 1
    _, old = m.decision_function(add_spacy_analyses(read_corpus(src), collapse=1, cache=False))
    np.testing.assert_allclose(got, old, rtol=1e-9, atol=1e-12)
    _, new = m.decision_function(add_spacy_analyses(read_corpus(src), cache=False))
    assert np.abs(np.asarray(new) - np.asarray(old)).max() > 1e-3


def test_a_development_file_sharing_document_ids_with_the_corpus_is_refused(
        data_dir, tmp_path, capsys):
    """A development abstract the training corpus also holds (same document id) would be
    measured after being fitted: `ppi train --select-on` refuses it by id before the fit."""
    from ppi.__main__ import main

    dev = tmp_path / "dev.pubtator"
    dev.write_text("LLL.d3|t|GerE binds sigK.\nLLL.d3|a|SpoIIID represses cotD.\n"
                   "LLL.d3\t0\t4\tGerE\tGene\t11\nLLL.d3\t11\t15\tsigK\tGene\t12\n"
                   "LLL.d3\t26\t34\tSpoIIID\tGene\t13\nLLL.d3\t45\t49\tcotD\tGene\t14\n"
                   "LLL.d3\tBind\t11\t12\n\n"
                   "9999|t|YfiA and YfiB.\n9999|a|YfiC.\n"
                   "9999\t0\t4\tYfiA\tGene\t21\n9999\t9\t13\tYfiB\tGene\t22\n"
                   "9999\t15\t19\tYfiC\tGene\t23\n9999\tBind\t21\t22\n")
    assert main(["train", "--corpus", "LLL", "--no-transfer", "--data-dir", str(data_dir),
                 "--select-on", str(dev), "--model", str(tmp_path / "m"),
                 "--output-dir", str(tmp_path / "r"), "--quiet"]) == 2
    err = capsys.readouterr().err
    assert "LLL.d3" in err and "--select-on inner" in err and "9999" not in err
    assert not (tmp_path / "m").exists()
