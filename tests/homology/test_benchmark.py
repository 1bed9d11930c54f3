"""SCOP protocol end to end: per-family evaluation, λ chosen without the test part, CLI
(scop on a reduced real family, train/predict round trip), reports."""

import json

import numpy as np
import pytest

from corpora.fasta import write_fasta
from corpora.scop import FamilySplit, ScopBenchmark, load_scop
from homology.__main__ import main
from homology.benchmark import (evaluate_family, make_kernel, run_families, select_alpha,
                                training_targets)
from homology.model import load_model, predict_scores
from kernelrank.errors import InvalidParameterError
from learners.measures import auc, roc50
from learners.l2svm import L2SVM
from learners.rls import RLS


def _reduced(bench, family, n_neg=60, seed=0):
    """The family's positives and a few negatives of each part, as a small benchmark."""
    rng = np.random.default_rng(seed)
    s = bench.split(family)
    keep = np.concatenate([s.train[s.y_train > 0], s.test[s.y_test > 0],
                           rng.choice(s.train[s.y_train < 0], n_neg, replace=False),
                           rng.choice(s.test[s.y_test < 0], n_neg // 2, replace=False)])
    keep = np.sort(keep)
    j = bench.families.index(family)
    return ScopBenchmark(tuple(bench.ids[i] for i in keep),
                         tuple(bench.sequences[i] for i in keep),
                         tuple(bench.descriptions[i] for i in keep),
                         (family,), bench.codes[keep][:, [j]])


@pytest.fixture(scope="module")
def small(data_dir):
    return _reduced(load_scop(data_dir), "7.3.5.2")


def test_balanced_targets():
    y = np.array([1, -1, -1, -1, 1, -1.0])
    t = training_targets(y)
    assert np.isclose(t[y > 0].sum(), -t[y < 0].sum())  # both classes weigh m/2
    assert np.allclose(t[y > 0], 6 / 4) and np.allclose(t[y < 0], -6 / 8)
    assert np.array_equal(training_targets(y, "pm1"), y)
    with pytest.raises(InvalidParameterError):
        training_targets(y, "weird")


def largest_best(y, loo, alphas, measure=auc):
    """λ with the best leave-one-out measure, ties to the larger λ (alphas ascending)."""
    scores = np.array([measure(y, p) for p in loo])
    return alphas[np.flatnonzero(scores == scores.max()).max()]


@pytest.mark.slow
def test_family_evaluation_matches_direct_computation(small):
    K = make_kernel("spectrum").fit(list(small.sequences)).gram(list(small.sequences))
    split = small.split("7.3.5.2")
    alphas = 2.0 ** np.arange(-4, 5)
    res = evaluate_family(K, split, "rls", alphas)
    tr, te = split.train, split.test
    # λ by leave-one-out ROC recomputed with explicit retraining (no shortcut)
    y = training_targets(split.y_train)
    loo = np.empty((len(alphas), len(tr)))
    for a, lam in enumerate(alphas):
        for i in range(len(tr)):
            rest = np.delete(tr, i)
            model = RLS(alpha=lam, kernel="precomputed").fit(K[np.ix_(rest, rest)], np.delete(y, i))
            loo[a, i] = model.predict(K[np.ix_([tr[i]], rest)])[0]
    alpha = largest_best(split.y_train, loo, alphas)
    assert res["alpha"] == alpha
    model = RLS(alpha=alpha, kernel="precomputed").fit(K[np.ix_(tr, tr)], y)
    scores = model.predict(K[np.ix_(te, tr)])
    assert res["roc"] == pytest.approx(auc(split.y_test, scores))
    assert res["roc50"] == pytest.approx(roc50(split.y_test, scores))
    assert res["roc"] > 0.8  # a remote homology signal, far above chance


def test_test_labels_never_used_for_selection(small):
    K = make_kernel("spectrum").fit(list(small.sequences)).gram(list(small.sequences))
    split = small.split("7.3.5.2")
    flipped = FamilySplit(split.family, split.train, split.y_train, split.test,
                          -split.y_test)
    for learner in ("rls", "rankrls", "l2svm"):
        a = evaluate_family(K, split, learner)
        b = evaluate_family(K, flipped, learner)
        assert a["alpha"] == b["alpha"] and a["roc"] == pytest.approx(1 - b["roc"])


@pytest.mark.slow
def test_parallel_equals_serial(small):
    K = make_kernel("spectrum").fit(list(small.sequences)).gram(list(small.sequences))
    serial = run_families(small, K, progress=False)
    parallel = run_families(small, K, jobs=2, progress=False)
    assert serial == parallel


@pytest.mark.slow
def test_scop_cli_on_reduced_family(small, tmp_path, monkeypatch):
    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: small)
    out = tmp_path / "out"
    code = main(["scop", "--kernel", "mismatch", "--k", "4", "--m", "1", "--learner", "rankrls",
                 "--output-dir", str(out), "--quiet"])
    assert code == 0
    res = json.loads((out / "results.json").read_text())
    assert {"kernel", "params", "mean_roc", "mean_roc50", "families"} <= set(res)
    assert res["params"]["k"] == 4 and res["learner"] == "rankrls"
    assert [f["family"] for f in res["families"]] == ["7.3.5.2"]
    assert res["mean_roc"] == res["families"][0]["roc"]
    assert (out / "results.md").read_text().count("published") == 3
    assert (out / "roc50_families.png").stat().st_size > 1000


def test_run_scop_as_a_library_call(small, tmp_path, monkeypatch):
    from homology.runs import kernel_options, run_scop

    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: small)
    opts = kernel_options("spectrum", k=3, m=1, groups=("aa",))
    assert opts == {"k": 3}
    res, written = run_scop("spectrum", opts, tmp_path, learner="rls", alphas=(0.5, 2.0),
                            progress=False)
    assert res["n_families"] == 1 and res["alphas"] == [0.5, 2.0]
    assert [p.name for p in written] == ["results.json", "results.md", "roc50_families.png",
                                         "roc_families.png"]
    md = (tmp_path / "results.md").read_text()
    assert "![roc50_families](roc50_families.png)" in md
    with pytest.raises(InvalidParameterError, match="unknown SCOP families"):
        run_scop("spectrum", opts, tmp_path, families=["1.2.3.4"], progress=False)


@pytest.mark.parametrize("learner", ["l2svm", "rls"])
@pytest.mark.slow
def test_train_predict_round_trip(small, tmp_path, learner):
    split = small.split("7.3.5.2")
    pos = [(small.ids[i], small.sequences[i]) for i in split.train[split.y_train > 0]]
    neg = [(small.ids[i], small.sequences[i]) for i in split.train[split.y_train < 0]]
    test = [(small.ids[i], small.sequences[i]) for i in split.test]
    write_fasta(tmp_path / "pos.fa", pos)
    write_fasta(tmp_path / "neg.fa", neg)
    write_fasta(tmp_path / "test.fa", test)
    model_path = tmp_path / "model.npz"
    assert main(["train", "--positives", str(tmp_path / "pos.fa"), "--negatives",
                 str(tmp_path / "neg.fa"), "--model", str(model_path), "--kernel",
                 "spectrum+features", "--groups", "aa,physchem", "--weight", "0.3",
                 "--learner", learner]) == 0
    with np.load(model_path, allow_pickle=False) as data:  # no pickle needed
        assert set(data.files) >= {"meta", "dual_coef", "train_sequences"}
    assert main(["predict", "--model", str(model_path), "--input", str(tmp_path / "test.fa"),
                 "--output", str(tmp_path / "scores.tsv")]) == 0
    lines = (tmp_path / "scores.tsv").read_text().splitlines()
    assert lines[0] == "id\tscore" and len(lines) == len(test) + 1
    got = np.array([float(line.split("\t")[1]) for line in lines[1:]])
    # the same scores computed directly: kernel sum fitted on the training sequences + the
    # learner fitted at the stored λ
    model = load_model(model_path)
    assert model["meta"]["learner"] == learner
    seqs = [s for _, s in pos + neg]
    kern = make_kernel("spectrum+features", groups=("aa", "physchem"), weight=0.3)
    K = kern.fit(seqs).gram(seqs)
    y = np.r_[np.ones(len(pos)), -np.ones(len(neg))]
    Kt = kern.gram([s for _, s in test], seqs)
    lam = model["meta"]["alpha"]
    if learner == "rls":
        direct = RLS(alpha=lam, kernel="precomputed").fit(K, training_targets(y)).predict(Kt)
    else:
        direct = L2SVM(alpha=lam, kernel="precomputed", class_weight="balanced").fit(
            K, y).decision_function(Kt)
    np.testing.assert_allclose(got, direct, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(predict_scores(model, [s for _, s in test]), direct, rtol=1e-8)
    assert auc(split.y_test, got) > 0.8


def test_cli_errors(tmp_path, capsys):
    bad = tmp_path / "bad.fa"
    bad.write_text(">a\nAC1\n")
    assert main(["train", "--positives", str(bad), "--negatives", str(bad),
                 "--model", str(tmp_path / "m.npz")]) == 2
    assert "record 'a'" in capsys.readouterr().err
    (tmp_path / "junk.npz").write_bytes(b"not a model")
    assert main(["predict", "--model", str(tmp_path / "junk.npz"), "--input", str(bad),
                 "--output", str(tmp_path / "o.tsv")]) == 2
    assert main(["scop", "--alphas", "1,-2", "--output-dir", str(tmp_path),
                 "--data-dir", str(tmp_path)]) == 2


@pytest.mark.slow
def test_benchmark_cli_and_reuse(small, tmp_path, monkeypatch):
    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: small)
    out = tmp_path / "bench"
    args = ["benchmark", "--configs", "spectrum-k3,locality-strict", "--output-dir", str(out),
            "--quiet", "--alphas", "0.5,2,8"]
    assert main(args) == 0
    summary = json.loads((out / "results.json").read_text())
    assert [c["config"] for c in summary["configs"]] == ["spectrum-k3", "locality-strict"]
    table = (out / "results.md").read_text()
    assert "spectrum k=3 / l2svm (ours)" in table and "(published)" in table  # default

    def boom(*a, **k):
        raise AssertionError("recomputed although --reuse was given")

    monkeypatch.setattr("homology.benchmark.scop_experiment", boom)
    assert main(args + ["--reuse"]) == 0
    assert json.loads((out / "results.json").read_text()) == summary
    with pytest.raises(AssertionError, match="recomputed"):  # different grid: no reuse
        main(args[:-1] + ["0.5,2", "--reuse"])


def test_roc50_selection(small):
    K = make_kernel("spectrum").fit(list(small.sequences)).gram(list(small.sequences))
    split = small.split("7.3.5.2")
    alphas = 2.0 ** np.arange(-4, 5)
    res = evaluate_family(K, split, "rls", alphas, select="roc50")
    tr = split.train
    model = RLS(kernel="precomputed").fit(K[np.ix_(tr, tr)], training_targets(split.y_train))
    loo = model.leave_one_out(alphas)
    best = [roc50(split.y_train, p) for p in loo]
    assert res["loo_roc50"] == max(best)
    assert res["alpha"] == alphas[np.flatnonzero(np.array(best) == max(best)).max()]
    with pytest.raises(InvalidParameterError, match="select"):
        select_alpha(K[np.ix_(tr, tr)], split.y_train, alphas, "rls", "map")


def test_paired_rows():
    from homology.report import paired_rows

    def res(name, rocs):
        return {"kernel": name, "learner": "rls", "params": {},
                "families": [{"family": f"f{i}", "roc": r, "roc50": r / 2}
                             for i, r in enumerate(rocs)]}

    base = res("a", [0.5, 0.6, 0.7, 0.8, 0.9, 0.95])
    other = res("b", [0.6, 0.5, 0.8, 0.9, 0.95, 0.99])
    row = paired_rows([base, other])[0]
    assert row["n"] == 6 and row["roc_wins"] == "5/1"
    d = np.array([f["roc"] for f in other["families"]]) - [f["roc"] for f in base["families"]]
    assert row["roc_mean_diff"] == pytest.approx(d.mean())
    from scipy.stats import wilcoxon
    assert row["roc_p"] == f"{wilcoxon(d).pvalue:.2g}"


def test_reuse_restricts_to_requested_families(tmp_path, monkeypatch):
    from homology.runs import reusable
    from homology.benchmark import DEFAULT_ALPHAS, kernel_params

    class B:
        families = ("a", "b", "c")

    stored = {"kernel": "spectrum", "learner": "rls", "targets": "balanced",
              "selection": "leave-one-out ROC area on the training part",
              "params": json.loads(json.dumps(kernel_params(make_kernel("spectrum", k=3)))),
              "alphas": [float(a) for a in np.sort(DEFAULT_ALPHAS)],
              "families": [{"family": f, "roc": r, "roc50": r / 2}
                           for f, r in zip("abc", (0.6, 0.8, 1.0))]}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(stored))
    got = reusable(path, "spectrum", {"k": 3}, ["c", "a"], B, learner="rls")
    assert [f["family"] for f in got["families"]] == ["c", "a"]
    assert got["mean_roc"] == pytest.approx(0.8) and got["n_families"] == 2
    assert reusable(path, "spectrum", {"k": 3}, ["a", "z"], B, learner="rls") is None
    assert reusable(path, "spectrum", {"k": 4}, ["a"], B, learner="rls") is None
    assert reusable(path, "spectrum", {"k": 3}, ["a"], B, learner="rls", select="roc50") is None


def test_l2svm_family_evaluation_matches_direct_fit(small):
    """λ by the L2-SVM's leave-one-out ROC on the training part, then the test scores of a
    fresh fit at that λ (class-balanced costs, intercept)."""
    K = make_kernel("spectrum").fit(list(small.sequences)).gram(list(small.sequences))
    split = small.split("7.3.5.2")
    alphas = 2.0 ** np.arange(-6, 3, 2)
    res = evaluate_family(K, split, "l2svm", alphas)
    tr, te = split.train, split.test
    loo = [L2SVM(alpha=a, kernel="precomputed", class_weight="balanced")
           .fit(K[np.ix_(tr, tr)], split.y_train).leave_one_out() for a in alphas]
    alpha = largest_best(split.y_train, loo, alphas)
    assert res["alpha"] == alpha
    model = L2SVM(alpha=alpha, kernel="precomputed", class_weight="balanced")
    scores = model.fit(K[np.ix_(tr, tr)], split.y_train).decision_function(K[np.ix_(te, tr)])
    assert res["roc"] == pytest.approx(auc(split.y_test, scores), abs=1e-12)
    assert res["roc50"] == pytest.approx(roc50(split.y_test, scores), abs=1e-12)


def test_version_1_model_still_loads(tmp_path):
    meta = {"format": "kernelrank-homology-model", "version": 1, "kernel": "spectrum",
            "kernel_options": {"k": 2}, "alpha": 1.0, "loo_roc": 0.9, "n_positive": 1,
            "n_negative": 1}
    path = tmp_path / "v1.npz"
    np.savez(path, meta=np.array(json.dumps(meta)), train_ids=np.array(["a", "b"]),
             train_sequences=np.array(["ACDE", "KLMN"]), dual_coef=np.array([1.0, -1.0]))
    model = load_model(path)
    assert model["meta"]["learner"] == "rls" and model["meta"]["intercept"] == 0.0
    kern = make_kernel("spectrum", k=2)
    K = kern.fit(["ACDE", "KLMN"]).gram(["ACDF"], ["ACDE", "KLMN"])
    np.testing.assert_allclose(predict_scores(model, ["ACDF"]), K @ [1.0, -1.0])
