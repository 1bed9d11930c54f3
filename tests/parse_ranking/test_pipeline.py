"""parse_ranking end to end on a tiny set built from real CRAFT sentences: build (resume,
determinism), cv (measures checked against scipy), train/rank round trip, CLI errors.
Needs Link Grammar (skipped with a reason when absent) and the shared data folder."""

import json

import numpy as np
import pytest
from tests.conftest import write_craft_slice
from scipy.stats import kendalltau

from parse_ranking.__main__ import main
from parse_ranking.dataset import build_dataset, load_dataset
from parse_ranking.evaluation import article_folds, cross_validate, flatten
from parse_ranking.linkgrammar import APT_PACKAGES, is_available

needs_lg = pytest.mark.skipif(
    not is_available(),
    reason="Link Grammar C library absent: apt-get install " + " ".join(APT_PACKAGES))

ARTICLES = ("11319941", "11532192", "11597317", "11604102")


@pytest.fixture(scope="module")
def treebank(tmp_path_factory, data_dir):
    """Four small CoNLL-U files: 7 sentences of 8–18 words from four CRAFT articles."""
    return write_craft_slice(data_dir, tmp_path_factory.mktemp("treebank"), ARTICLES,
                             max_length=18, per_article=7)


@pytest.fixture(scope="module")
def built(treebank, tmp_path_factory):
    path = tmp_path_factory.mktemp("built") / "d.jsonl"
    summary = build_dataset(treebank, path, max_parses=8, jobs=1, chunk_size=10,
                            progress=False)
    return path, summary


@needs_lg
def test_build_counts_and_records(built):
    path, summary = built
    assert summary["sentences_in_file"] == 28
    assert summary["sentences_kept"] + summary["dropped_fewer_than_2_scores"] \
        + summary["dropped_no_linkage"] == 28
    records = load_dataset(path)
    for rec in records:
        assert rec["article"] in ARTICLES and rec["id"].startswith(rec["article"] + ":")
        fs = [p["f"] for p in rec["parses"]]
        assert len(set(fs)) >= 2 and all(0 <= f <= 1 for f in fs)
        assert [p["lg_rank"] for p in rec["parses"]] == list(range(len(fs)))
        keys = {frozenset((min(a, b), max(a, b)) for a, b, _ in p["links"])
                for p in rec["parses"]}
        assert len(keys) == len(fs)          # distinct edge sets
    assert summary["mean_f_oracle"] >= summary["mean_f_lg_first"]


@needs_lg
def test_build_is_deterministic_and_resumes_after_a_torn_write(built, treebank, tmp_path):
    path, _ = built
    full = path.read_text()
    lines = full.splitlines(keepends=True)
    copy = tmp_path / "d.jsonl"
    copy.write_text("".join(lines[:9]) + lines[9][:40])      # torn last line
    (tmp_path / "d.jsonl.meta.json").write_text(
        (path.parent / "d.jsonl.meta.json").read_text())
    build_dataset(treebank, copy, max_parses=8, jobs=1, chunk_size=10, progress=False)
    assert copy.read_text() == full


@needs_lg
def test_cv_end_to_end_measures_match_scipy(built):
    path, _ = built
    records = load_dataset(path)
    res = cross_validate(records, kernels=("bag_of_links", "locality"),
                         rankers=("lg", "rankrls", "rls"), n_folds=2, max_parses=5,
                         alphas=(0.1, 1.0, 10.0), progress=False)
    rk = res["rankers"]
    assert set(rk) == {"lg", "rankrls[bag_of_links]", "rls[bag_of_links]",
                       "rankrls[locality]", "rls[locality]"}
    items, y, qids, arts, lg_rank = flatten(records, 5)
    # LG baseline: τ_b per sentence from scipy, averaged over the defined sentences
    taus = []
    for q in np.unique(qids):
        sel = qids == q
        t = kendalltau(y[sel], -lg_rank[sel]).statistic
        if np.isfinite(t):
            taus.append(t)
    assert rk["lg"]["kendall_tau_b"] == pytest.approx(np.mean(taus))
    assert rk["lg"]["top1_f"] == pytest.approx(rk["lg"]["lg_first_f"])
    best = np.mean([y[qids == q].max() for q in np.unique(qids)])
    for name, r in rk.items():
        assert r["oracle_f"] == pytest.approx(best)
        assert r["top1_f"] <= r["oracle_f"] + 1e-12
        assert -1 <= r["kendall_tau_b"] <= 1 and 0 <= r["disagreement"] <= 1
        if name != "lg":
            assert len(r["fold_info"]) == 2 and r["fold_info"][0]["alpha"] in (0.1, 1.0, 10.0)


@needs_lg
def test_cli_cv_train_rank(built, tmp_path, capsys):
    path, _ = built
    out = tmp_path / "cv"
    assert main(["cv", "--data", str(path), "--output-dir", str(out), "--kernel",
                 "bag_of_links", "--rankers", "lg,rankrls", "--folds", "2",
                 "--alphas", "0.5,5", "--quiet"]) == 0
    results = json.loads((out / "results.json").read_text())
    for name in ("lg", "rankrls[bag_of_links]"):
        assert {"kendall_tau_b", "disagreement", "top1_f", "oracle_f"} <= set(
            results["rankers"][name])
    assert (out / "results.md").exists() and (out / "results.png").stat().st_size > 0
    model = tmp_path / "model"
    assert main(["train", "--data", str(path), "--output-model", str(model),
                 "--kernel", "locality", "--alphas", "1"]) == 0
    capsys.readouterr()
    text = "The striatum plays a pivotal role in modulating motor activity."
    assert main(["rank", "--model", str(model), "--sentence", text, "--top", "3"]) == 0
    ranked = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert 1 <= len(ranked) <= 3
    assert [r["score"] for r in ranked] == sorted((r["score"] for r in ranked), reverse=True)


def test_cli_bad_input_exit_code_2(tmp_path, capsys):
    assert main(["cv", "--data", str(tmp_path / "missing.jsonl"), "--output-dir",
                 str(tmp_path)]) == 2
    assert "error:" in capsys.readouterr().err
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a:1"}\n')
    assert main(["cv", "--data", str(bad), "--output-dir", str(tmp_path)]) == 2
    assert "line 1" in capsys.readouterr().err


def test_article_folds_keep_articles_together():
    arts = np.array(["a", "b", "a", "c", "d", "b", "e"])
    folds = article_folds(arts, 2, seed=3)
    for a in np.unique(arts):
        assert len(set(folds[arts == a])) == 1
    assert set(folds) == {0, 1}


@needs_lg
def test_a_file_written_twice_is_refused_naming_the_repeated_sentence(built, tmp_path):
    """A file with every record twice (as two concurrent builds without the lock would write
    it, and `train` would fit on the doubled data) is refused on load, naming the line and
    the repeated sentence."""
    import shutil

    from kernelrank.errors import CorpusFormatError
    path, _ = built
    doubled = tmp_path / "d.jsonl"
    text = path.read_text(encoding="utf-8")
    doubled.write_text(text + text, encoding="utf-8")
    shutil.copy(path.with_name(path.name + ".meta.json"), tmp_path / "d.jsonl.meta.json")
    n = len(text.splitlines())
    first_id = json.loads(text.splitlines()[0])["id"]
    with pytest.raises(CorpusFormatError, match=rf"line {n + 1}.*again \(first at line 1\)") \
            as err:
        load_dataset(doubled)
    assert err.value.record == first_id


@needs_lg
def test_an_unfinished_build_is_refused_until_it_is_finished(built, tmp_path):
    import shutil

    from kernelrank.errors import CorpusFormatError
    path, _ = built
    copy = tmp_path / "d.jsonl"
    shutil.copy(path, copy)
    meta = json.loads(path.with_name(path.name + ".meta.json").read_text(encoding="utf-8"))
    (tmp_path / "d.jsonl.meta.json").write_text(json.dumps({**meta, "complete": False}),
                                                encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="has not finished.*rerun the same"):
        load_dataset(copy)
    (tmp_path / "d.jsonl.meta.json").write_text(json.dumps(meta), encoding="utf-8")
    assert len(load_dataset(copy)) == len(load_dataset(path)) > 0
