"""LETOR driver: fold protocol, selection by validation MAP, reports; one real fold."""

import json

import numpy as np
import pytest

import learners
from corpora.svmlight import dump_svmlight
from learners.__main__ import main
from letor.protocol import (MEASURES, RANKSVM_HINGE_TOL, RANKSVM_TOL, load_parts, run_letor,
                            standard_folds)
from learners.measures import disagreement_error, letor_evaluation, mean_average_precision
from learners.ranksvm import RankSVM

needs_rankrls = pytest.mark.skipif(not hasattr(learners, "QueryRankRLS"),
                                   reason="learners.QueryRankRLS has not landed yet")


def test_standard_folds_protocol():
    folds = standard_folds(5)
    assert [f[0] for f in folds] == [1, 2, 3, 4, 5]
    assert folds[0] == (1, [2, 3, 4], 5, 1)          # fold 1 validates on part 5
    for k, train, val, test in folds:
        assert test == k and val == (k - 2) % 5 + 1
        assert sorted(train + [val, test]) == [1, 2, 3, 4, 5]


@pytest.fixture
def synthetic_letor(tmp_path, rng):
    """Five small LETOR-format parts (3 queries each, graded labels from a linear model)."""
    root = tmp_path / "data"
    w = rng.normal(size=45)
    qid = 1
    for k in range(1, 6):
        X = rng.random((60, 45))
        qids = np.repeat(np.arange(qid, qid + 3), 20)
        qid += 3
        score = X @ w + rng.normal(scale=2.0, size=60)
        y = np.digitize(score, np.quantile(score, [0.6, 0.85])).astype(float)
        dump_svmlight(root / "letor" / "OHSUMED" / f"Fold{k}.test.txt.gz", X, y, qids,
                      comments=[f"docid = {i}" for i in range(60)])
    return root


def test_selection_and_test_measures_match_independent_retraining(synthetic_letor):
    parts = load_parts(synthetic_letor)
    Cs = [1e-3, 1e-1]
    res = run_letor(synthetic_letor, learner="ranksvm", Cs=Cs, folds=[2], progress=False)
    (fold,) = res["folds"]
    assert (fold["train_parts"], fold["validation_part"], fold["test_part"]) == ([3, 4, 5], 1, 2)
    X = np.vstack([parts[i].X for i in (2, 3, 4)])
    y = np.concatenate([parts[i].y for i in (2, 3, 4)])
    q = np.concatenate([parts[i].qids for i in (2, 3, 4)])
    val, test = parts[0], parts[1]
    models = [RankSVM(C=C, tol=RANKSVM_TOL, max_iter=5000).fit(X, y, q) for C in Cs]
    val_maps = [mean_average_precision(val.y, m.predict(val.X), val.qids) for m in models]
    best = int(np.argmax(val_maps))
    assert fold["C"] == Cs[best]
    np.testing.assert_allclose(fold["validation_MAP_path"], val_maps, rtol=1e-12)
    scores = models[best].predict(test.X)
    expected = letor_evaluation(test.y, scores, test.qids)
    for name in ("MAP", "NDCG@1", "NDCG@10", "P@5"):
        assert fold[name] == pytest.approx(expected[name], rel=1e-12)
    assert fold["disagreement"] == pytest.approx(
        disagreement_error(test.y, scores, test.qids), rel=1e-12)


@pytest.mark.slow
def test_ranksvm_hinge_is_the_l1_loss_fitted_per_C(synthetic_letor):
    parts = load_parts(synthetic_letor)
    Cs = [1e-3, 1e-1]
    res = run_letor(synthetic_letor, learner="ranksvm_hinge", Cs=Cs, folds=[2], progress=False)
    (fold,) = res["folds"]
    X = np.vstack([parts[i].X for i in (2, 3, 4)])
    y = np.concatenate([parts[i].y for i in (2, 3, 4)])
    q = np.concatenate([parts[i].qids for i in (2, 3, 4)])
    models = [RankSVM(C=C, loss="hinge", tol=RANKSVM_HINGE_TOL, max_iter=5000).fit(X, y, q)
              for C in Cs]
    val_maps = [mean_average_precision(parts[0].y, m.predict(parts[0].X), parts[0].qids)
                for m in models]
    assert res["param_name"] == "C" and fold["C"] == Cs[int(np.argmax(val_maps))]
    np.testing.assert_allclose(fold["validation_MAP_path"], val_maps, rtol=1e-12)


def test_cli_writes_reports(synthetic_letor, tmp_path, capsys):
    out = tmp_path / "out"
    code = main(["letor", "--learner", "rls", "--data-dir", str(synthetic_letor),
                 "--output-dir", str(out), "--alphas", "0.1,10", "--quiet"])
    assert code == 0
    result = json.loads((out / "results.json").read_text())
    assert result["learner"] == "rls" and len(result["folds"]) == 5
    for name in MEASURES:
        assert 0.0 <= result["mean"][name] <= 1.0
        assert result["mean"][name] == pytest.approx(np.mean([f[name] for f in result["folds"]]))
    md = (out / "results.md").read_text()
    assert "LETOR 3.0 RankSVM" in md and "ours: rls" in md and "0.4334" in md
    out = capsys.readouterr().out
    assert "rls      MAP " in out and f"wrote {tmp_path / 'out' / 'results.md'}" in out
    assert "learners letor: done in" in out


def test_run_benchmark_several_learners_as_a_library_call(synthetic_letor, tmp_path):
    from letor.runs import run_benchmark

    out = tmp_path / "out"
    results, written = run_benchmark(out, ["rls", "ranksvm"], data_dir=synthetic_letor,
                                     folds=[1], alphas=[1.0], Cs=[0.1], progress=False,
                                     command="python -m learners letor ...")
    assert set(results) == {"rls", "ranksvm"} and results["ranksvm"]["grid"] == [0.1]
    assert [p.relative_to(out).as_posix() for p in written] == [
        "results.json", "results.md", "rls/results.json", "rls/results.md",
        "ranksvm/results.json", "ranksvm/results.md"]
    combined = json.loads((out / "results.json").read_text())
    assert combined["learner"] == "all" and set(combined["mean"]) == {"rls", "ranksvm"}
    assert "Command: `python -m learners letor ...`" in (out / "results.md").read_text()


def test_cli_errors_are_reported_not_raised(tmp_path, capsys):
    code = main(["letor", "--learner", "rls", "--data-dir", str(tmp_path / "nowhere"),
                 "--output-dir", str(tmp_path / "o"), "--quiet"])
    assert code == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "Fold1.test.txt.gz" in err
    with pytest.raises(learners.InvalidParameterError, match="learner"):
        run_letor(tmp_path, learner="svm", parts=[None] * 5)


@needs_rankrls
def test_rankrls_path_equals_separate_fits(synthetic_letor):
    parts = load_parts(synthetic_letor)
    alphas = [0.01, 1.0, 100.0]
    res = run_letor(synthetic_letor, learner="rankrls", alphas=alphas, folds=[1], progress=False)
    X = np.vstack([parts[i].X for i in (1, 2, 3)])
    y = np.concatenate([parts[i].y for i in (1, 2, 3)])
    q = np.concatenate([parts[i].qids for i in (1, 2, 3)])
    val = parts[4]
    maps = [mean_average_precision(val.y, learners.QueryRankRLS(alpha=a).fit(X, y, q)
                                   .predict(val.X), val.qids) for a in alphas]
    np.testing.assert_allclose(res["folds"][0]["validation_MAP_path"], maps, rtol=1e-9)


@pytest.fixture(scope="module")
def ohsumed_parts(data_dir):
    if not (data_dir / "letor" / "OHSUMED" / "Fold1.test.txt.gz").exists():
        pytest.skip("LETOR OHSUMED is absent from the data folder")
    return load_parts(data_dir)


@pytest.mark.slow
@pytest.mark.parametrize("learner", ["rls", "ranksvm", pytest.param("rankrls",
                                                                  marks=needs_rankrls)])
@pytest.mark.slow
def test_real_ohsumed_single_fold(ohsumed_parts, learner):
    res = run_letor(None, learner=learner, folds=[3], alphas=[1.0, 4096.0],
                    Cs=[1e-5, 1e-3], progress=False, parts=ohsumed_parts)
    fold = res["folds"][0]
    # far better than a random ranking on a real fold (MAP of random ~0.3, disagreement 0.5)
    assert fold["MAP"] > 0.4 and fold["NDCG@10"] > 0.35
    assert fold["disagreement"] < 0.45


def test_cg_relevant_pairs_learner_runs(synthetic_letor):
    from learners.cg import CGRankRLS

    parts = load_parts(synthetic_letor)
    res = run_letor(synthetic_letor, learner="cgrankrls", alphas=[0.1, 10.0], folds=[5],
                    progress=False)
    fold = res["folds"][0]
    X = np.vstack([parts[i].X for i in (0, 1, 2)])
    y = np.concatenate([parts[i].y for i in (0, 1, 2)])
    q = np.concatenate([parts[i].qids for i in (0, 1, 2)])
    test = parts[4]
    model = CGRankRLS(alpha=fold["alpha"], ties="exclude", tol=1e-8).fit(X, y, q)
    expected = letor_evaluation(test.y, model.predict(test.X), test.qids)
    assert fold["MAP"] == pytest.approx(expected["MAP"], rel=1e-12)
