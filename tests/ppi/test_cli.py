"""`python -m ppi` commands on the smallest real corpus (LLL) and error handling."""

import json
import subprocess
import sys

import pytest

from ppi.__main__ import main
from ppi.names import BETAS


@pytest.mark.slow
def test_help():
    out = subprocess.run([sys.executable, "-m", "ppi", "cv", "--help"], capture_output=True,
                         text=True, check=True)
    assert "--corpus" in out.stdout and "--variant" in out.stdout


def _pairs(data_dir):
    """The number of candidate pairs of the LLL corpus file."""
    from corpora.ppi_xml import corpus_statistics, read_corpus
    return corpus_statistics(read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz"))["pairs"]


@pytest.mark.slow
def test_cv_writes_results_json(data_dir, tmp_path, capsys):
    """The default system (multicorpus: transfer from the other corpora; here two of them,
    for time) writes the acceptance keys and says what it transferred from."""
    assert main(["cv", "--corpus", "LLL", "--data-dir", str(data_dir), "--output-dir",
                 str(tmp_path), "--quiet", "--sources", "HPRD50", "IEPA"]) == 0
    out = capsys.readouterr().out.splitlines()
    out = [line for line in out if not line.startswith(("featurized", "source models"))]
    assert out[0].startswith("cv LLL: F ") and out[0].endswith(")")       # the stage line
    assert f"wrote {tmp_path / 'results.json'}" in out and out[-2].startswith("LLL: F ")
    assert out[-1].startswith("ppi cv: done in ") and "peak memory" in out[-1]
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["corpus"] == "LLL"
    for k in ("precision", "recall", "f1", "f1_std", "auc", "auc_std"):
        assert 0 <= res[k] <= 1
    assert len(res["folds"]) == 10 and all(f["documents"] for f in res["folds"])
    assert (tmp_path / "results.md").read_text().count("LLL") >= 1
    assert "![roc](roc.png)" in (tmp_path / "results.md").read_text()
    assert (tmp_path / "roc.png").stat().st_size > 0
    # a header and one line per pair of the corpus
    assert (tmp_path / "predictions.tsv").read_text().count("\n") == 1 + _pairs(data_dir)
    assert res["config"]["system"] == "multicorpus" and res["config"]["transfer"] is True
    assert res["transfer"]["sources"] == ["HPRD50", "IEPA"]
    assert {f["beta"] for f in res["folds"]} <= set(BETAS)
    assert "Transfer (f = β g + h" in (tmp_path / "results.md").read_text()


@pytest.mark.slow
def test_train_then_predict(data_dir, tmp_path):
    model = tmp_path / "model"
    assert main(["train", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--model", str(model), "--output-dir", str(tmp_path / "t"),
                 "--quiet"]) == 0
    meta = json.loads((model / "model.json").read_text())
    # the linear multi-view system: a version 4 model
    assert meta["format"] == "kernelrank-ppi-model" and meta["version"] == 4
    assert meta["parses"] == ["split_parse", "Charniak-Lease"]
    trained = json.loads((tmp_path / "t" / "results.json").read_text())
    assert trained["config"]["system"] == "multiview"
    # λ is chosen by the inner AUC (select_by auc): the report gives it beside the inner F
    assert 0.5 < trained["inner_loo_document_auc"] <= 1
    assert f"AUC = {100 * trained['inner_loo_document_auc']:.1f}, the criterion" in \
        (tmp_path / "t" / "results.md").read_text()
    src = data_dir / "ppi" / "LLL-learning-format.xml.gz"
    assert main(["predict", "--input", str(src), "--model", str(model), "--output-dir",
                 str(tmp_path / "p")]) == 0
    res = json.loads((tmp_path / "p" / "results.json").read_text())
    assert res["n_pairs"] == _pairs(data_dir) and res["auc"] > 0.9   # training data: optimistic


@pytest.mark.slow
def test_train_paper_v_writes_a_version_3_model(data_dir, tmp_path):
    model = tmp_path / "model"
    assert main(["train", "--system", "paper-v", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--model", str(model), "--output-dir", str(tmp_path / "t"),
                 "--quiet"]) == 0
    meta = json.loads((model / "model.json").read_text())
    assert meta["version"] == 3 and meta["featurizer"]["parse"] == "split_parse"
    # λ by the inner F (select_by f1): no inner AUC to report
    assert "inner_loo_document_auc" not in json.loads((tmp_path / "t" / "results.json")
                                                      .read_text())


def test_errors_exit_2(tmp_path, capsys):
    assert main(["cv", "--corpus", "LLL", "--data-dir", str(tmp_path / "nowhere"),
                 "--output-dir", str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err
    bad = tmp_path / "bad.xml"
    bad.write_text("<corpus><document id='x'><sentence id='x.s0'/></document></corpus>")
    assert main(["predict", "--input", str(bad), "--model", str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["cv", "--corpus", "NoSuchCorpus"])


@pytest.mark.parametrize("command", ["train", "cv"])
def test_an_option_the_chosen_road_does_not_read_is_refused(tmp_path, capsys, command):
    """A mention-level system's option with --relations-from, or a documents-system option
    without it, is refused before any work (exit 2, every such option named), not silently
    left unread; nothing is written."""
    from ppi.systems import SYSTEMS
    from ppi.systems.options import OPTIONS

    def only(a, b):          # the flags system a reads and system b does not
        return {OPTIONS[d].flag for d in SYSTEMS[a].options if d in OPTIONS} - \
            {OPTIONS[d].flag for d in SYSTEMS[b].options if d in OPTIONS}

    mention_level, document_level = only("text", "documents"), only("documents", "text")
    assert {"--gamma", "--system", "--views", "--select-on"} <= mention_level
    assert {"--relation-types", "--no-document-stage", "--stage-search"} <= document_level

    relations, corpus = tmp_path / "train.pubtator", tmp_path / "corpus.xml"
    relations.write_text("1|t|IL2 binds CD25.\n")
    corpus.write_text("<corpus source='x'></corpus>")
    out = ["--output-dir", str(tmp_path / "out")] + (
        ["--model", str(tmp_path / "model")] if command == "train" else [])
    source = ["--input", str(corpus)] if command == "train" else ["--corpus", "LLL"]
    cases = [(["--relations-from", str(relations), "--gamma", "1", "--system", "text"],
              ["--gamma", "--system"]),
             (["--relations-from", str(relations), "--views", "bow"]
              + (["--jobs", "2"] if command == "cv" else []),
              ["--views"] + (["--jobs"] if command == "cv" else [])),
             (source + ["--relation-types", "Bind", "--no-document-stage"],
              ["--relation-types", "--no-document-stage"]),
             (source + ["--instances", "mi", "--stage-search"],
              ["--instances", "--stage-search"])]
    if command == "train":
        cases.append((["--relations-from", str(relations), "--select-on", "biored"],
                      ["--select-on"]))
    for argv, named in cases:
        assert main([command, *argv, *out]) == 2
        err = capsys.readouterr().err
        assert all(option in err for option in named), err
        refused = mention_level if "--relations-from" in argv else document_level
        assert not any(f"{option}," in err or f"{option}:" in err
                       for option in refused if option not in named), err
    assert not (tmp_path / "out").exists() and not (tmp_path / "model").exists()


@pytest.mark.slow
def test_cv_reports_what_it_leaves_out_of_the_systems_training(data_dir, tmp_path, monkeypatch,
                                                              caplog):
    """A system whose ``ppi train`` also uses development abstracts (``text``) is
    cross-validated on the corpus alone; ``results.json``, ``results.md`` and the log say
    so (here ``multiview`` given a development set, to keep the test fast)."""
    import logging

    from ppi.systems.multiview import MultiViewSystem

    monkeypatch.setattr(MultiViewSystem, "development_set", "biored")
    out = tmp_path / "o"
    with caplog.at_level(logging.WARNING):
        assert main(["cv", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                     str(data_dir), "--alphas", "1", "--output-dir", str(out), "--quiet"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert "corpus alone" in res["note"] and "biored" in res["note"]
    assert "**Note.** Cross-validated on the corpus alone" in (out / "results.md").read_text()
    assert "corpus alone" in caplog.text
    monkeypatch.undo()
    assert main(["cv", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--alphas", "1", "--output-dir", str(out), "--quiet"]) == 0
    assert "note" not in json.loads((out / "results.json").read_text())


@pytest.mark.slow
def test_alphas_is_the_grid_the_selection_chooses_from(data_dir, tmp_path, capsys):
    """``--alphas`` replaces the λ grid: every fold's chosen λ is one of them, the report
    records the grid, and the result is the engine's CV with that grid."""
    import numpy as np

    from corpora.ppi_xml import read_corpus
    from ppi.learning.evaluation import cross_validate, learner_input
    from ppi.names import corpus_path
    from ppi.systems import Settings

    out = tmp_path / "o"
    assert main(["cv", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--alphas", "2", "0.25", "--output-dir", str(out),
                 "--quiet"]) == 0
    res = json.loads((out / "results.json").read_text())
    assert res["config"]["alphas"] == [0.25, 2.0]
    assert {f["alpha"] for f in res["folds"]} <= {0.25, 2.0}
    s = Settings.for_system("multiview", alphas=(0.25, 2.0))
    (data,) = s.featurizer().fit_transform([read_corpus(corpus_path(data_dir, "LLL"))])
    want = cross_validate(data, learner_input(data, s.learner, s.n_basis),
                          alphas=np.array([0.25, 2.0]), learner=s.learner, n_basis=s.n_basis,
                          seed=0, select_by=s.select_by)
    assert res["f1"] == pytest.approx(want["f1"], abs=1e-12)
    assert res["auc"] == pytest.approx(want["auc"], abs=1e-12)
    for bad in (["0"], ["-1", "2"], ["nan"], ["inf"]):
        assert main(["cv", "--corpus", "LLL", "--data-dir", str(data_dir), "--alphas", *bad,
                     "--output-dir", str(tmp_path / "bad"), "--quiet"]) == 2
        err = capsys.readouterr().err          # refused before the work, naming the option
        assert "error: --alphas" in err and "> 0" in err, err



def test_stage_search_reaches_the_documents_system():
    """``--stage-search`` is the system's ``stage_search`` (recorded in its config); without
    it the stage keeps the transferred (λ, γ)."""
    from ppi.__main__ import build_parser
    from ppi.systems.options import system_class

    for argv, expected in (([], False), (["--stage-search"], True)):
        args = build_parser().parse_args(["train", "--relations-from", "x.pubtator",
                                          "--model", "m", *argv])
        system = system_class(args).from_options(args)
        assert system.stage_search is expected and system.config()["stage_search"] is expected
