"""The local-alignment kernel in the homology package: kernel names and options, the weight
of a sum chosen with λ on the training part only, the SCOP command with ``--kernel la``
(Gram matrix cached in the data directory), and ``train`` / ``predict`` round trips whose
scores equal the kernel and learner computed directly."""

import json

import numpy as np
import pytest

from corpora.fasta import write_fasta
from corpora.scop import FamilySplit, load_scop
from homology.__main__ import main
from homology.benchmark import (EmpiricalMapGram, WeightedGrams, WeightGrid, evaluate_family,
                                full_gram, kernel_params, make_kernel, select_alpha,
                                training_targets)
from homology.model import load_model
from homology.runs import kernel_options
from kernelrank.errors import InvalidParameterError
from learners.kernels import LocalAlignmentKernel, LocalityKernel, SumKernel
from learners.l2svm import L2SVM
from learners.measures import auc
from learners.rls import RLS
from tests.homology.test_benchmark import _reduced


@pytest.fixture(scope="module")
def small(data_dir):
    return _reduced(load_scop(data_dir), "7.3.5.2", n_neg=40)


@pytest.fixture(scope="module")
def la_gram(small):
    return full_gram(make_kernel("la"), list(small.sequences))


def test_names_and_options():
    la = make_kernel("la")
    assert isinstance(la, LocalAlignmentKernel)
    assert (la.beta, la.gap_open, la.gap_extend, la.psd, la.substitution) == \
        (0.5, 11.0, 1.0, "shift", "BLOSUM62")
    assert kernel_options("la", k=5, beta=0.3, psd="ekm") == \
        {"beta": 0.3, "gap_open": 11.0, "gap_extend": 1.0, "psd": "ekm"}
    opts = kernel_options("la+locality", mode="strict", weight=[0.25, 0.5])
    assert set(opts) == {"beta", "gap_open", "gap_extend", "psd", "mode", "half_width",
                         "theta", "weight"} and opts["weight"] == [0.25, 0.5]
    assert kernel_options("la+mismatch", weight=[0.4])["weight"] == 0.4
    one = make_kernel("la+locality", mode="strict", weight=0.4)
    assert isinstance(one, SumKernel) and [w for w, _ in one.parts] == [0.6, 0.4]
    assert isinstance(one.parts[1][1], LocalityKernel) and one.parts[1][1].matching == "strict"
    grid = make_kernel("la+mismatch", weight=[0.2, 0.8])
    assert isinstance(grid, WeightGrid) and grid.weights == (0.2, 0.8)
    assert kernel_params(grid)["weights"] == [0.2, 0.8]
    assert "memory" not in kernel_params(la) and "n_jobs" not in kernel_params(la)
    with pytest.raises(InvalidParameterError, match="weight"):
        make_kernel("la+locality", weight=[0.5, 1.5])


def test_weight_chosen_on_the_training_part(small, la_gram, rng):
    split = small.split("7.3.5.2")
    # a second "kernel" that knows nothing: a random PSD matrix with unit diagonal
    Z = rng.normal(size=(len(small), 40))
    Z /= np.linalg.norm(Z, axis=1, keepdims=True)
    noise = Z @ Z.T
    grams = WeightedGrams(la_gram, noise, (0.0, 0.5, 1.0))
    alphas = (0.25, 1.0, 4.0)
    res = evaluate_family(grams, split, "l2svm", alphas)
    assert res["weight"] in (0.0, 0.5) and res["roc"] > 0.8       # never the noise alone
    # the same as choosing by hand: each weight's leave-one-out path, best score, larger λ,
    # then the first weight
    tr = split.train
    best = max(((select_alpha(grams.block(w, tr, tr), split.y_train, alphas, "l2svm")
                 .scores[j], a, -k) for k, w in enumerate(grams.weights)
                for j, a in enumerate(sorted(alphas))))
    assert (res["weight"], res["alpha"]) == (grams.weights[-best[2]], best[1])
    # test labels are never used: flipping them mirrors ROC, keeps every choice
    flipped = FamilySplit(split.family, split.train, split.y_train, split.test, -split.y_test)
    other = evaluate_family(grams, flipped, "l2svm", alphas)
    assert (other["weight"], other["alpha"]) == (res["weight"], res["alpha"])
    assert other["roc"] == pytest.approx(1 - res["roc"])
    # one weight: the plain evaluation of the mixed matrix
    single = evaluate_family(WeightedGrams(la_gram, noise, (0.5,)), split, "rls", alphas)
    plain = evaluate_family(0.5 * la_gram + 0.5 * noise, split, "rls", alphas)
    assert single["roc"] == pytest.approx(plain["roc"]) and single["alpha"] == plain["alpha"]


@pytest.mark.slow
def test_scop_cli_la_caches_in_the_data_dir(small, tmp_path, monkeypatch):
    monkeypatch.setattr("corpora.scop.load_scop", lambda data_dir=None: small)
    out, data = tmp_path / "out", tmp_path / "data"
    args = ["scop", "--kernel", "la", "--data-dir", str(data), "--output-dir", str(out),
            "--quiet", "--alphas", "0.5,2"]
    assert main(args) == 0
    res = json.loads((out / "results.json").read_text())
    assert {"mean_roc", "mean_roc50", "families"} <= set(res) and res["kernel"] == "la"
    assert res["params"]["beta"] == 0.5 and res["params"]["psd"] == "shift"
    assert res["mean_roc"] > 0.8
    cached = list((data / "cache").glob("local-alignment-*.npy"))
    assert len(cached) == 1 and not list((data / "cache").glob("*.parts"))

    def boom(*a, **k):
        raise AssertionError("the Gram matrix was computed again")

    monkeypatch.setattr("learners.kernels.alignment.la_tile", boom)
    assert main(args) == 0                                 # from the cache
    assert json.loads((out / "results.json").read_text())["families"] == res["families"]


@pytest.mark.parametrize("kernel, extra", [("la", ["--learner", "rls"]),
                                           ("la+locality", ["--mode", "strict", "--weight",
                                                            "0.3,0.7"])])
def test_train_predict_round_trip(small, tmp_path, kernel, extra):
    split = small.split("7.3.5.2")
    pos = [(small.ids[i], small.sequences[i]) for i in split.train[split.y_train > 0]]
    neg = [(small.ids[i], small.sequences[i]) for i in split.train[split.y_train < 0]]
    test = [(small.ids[i], small.sequences[i]) for i in split.test]
    for name, records in (("pos", pos), ("neg", neg), ("test", test)):
        write_fasta(tmp_path / f"{name}.fa", records)
    model_path = tmp_path / "model.npz"
    assert main(["train", "--positives", str(tmp_path / "pos.fa"), "--negatives",
                 str(tmp_path / "neg.fa"), "--model", str(model_path), "--kernel", kernel,
                 "--alphas", "0.25,1,4", *extra]) == 0
    assert main(["predict", "--model", str(model_path), "--input", str(tmp_path / "test.fa"),
                 "--output", str(tmp_path / "scores.tsv")]) == 0
    got = np.loadtxt(tmp_path / "scores.tsv", skiprows=1, usecols=1)
    meta = load_model(model_path)["meta"]
    options = meta["kernel_options"]
    if kernel == "la+locality":
        assert options["weight"] in (0.3, 0.7)
    seqs = [s.upper() for _, s in pos + neg]
    kern = make_kernel(kernel, **options)
    K = kern.fit_transform(seqs)
    Kt = kern.fit(seqs).transform([s.upper() for _, s in test])
    y = np.r_[np.ones(len(pos)), -np.ones(len(neg))]
    lam = meta["alpha"]
    if meta["learner"] == "rls":
        direct = RLS(alpha=lam, kernel="precomputed").fit(K, training_targets(y)).predict(Kt)
    else:
        direct = L2SVM(alpha=lam, kernel="precomputed", class_weight="balanced").fit(
            K, y).decision_function(Kt)
    np.testing.assert_allclose(got, direct, rtol=1e-6, atol=1e-9)
    assert auc(split.y_test, got) > 0.8


def test_empirical_map_over_each_training_part(small):
    """``--psd ekm`` in the SCOP protocol: the map's basis is the family's training part —
    the same kernel as LocalAlignmentKernel(psd="ekm") fitted on the training sequences."""
    split = small.split("7.3.5.2")
    gram = full_gram(make_kernel("la", psd="ekm"), list(small.sequences))
    assert isinstance(gram, EmpiricalMapGram)
    alphas = (0.25, 1.0, 4.0)
    res = evaluate_family(gram, split, "l2svm", alphas)
    train = [small.sequences[i] for i in split.train]
    kern = LocalAlignmentKernel(psd="ekm")
    K = kern.fit_transform(train)
    sel = select_alpha(K, split.y_train, alphas, "l2svm")
    scores = sel.predict(kern.transform([small.sequences[i] for i in split.test]))
    assert res["alpha"] == sel.best_params["alpha"]
    assert res["roc"] == pytest.approx(auc(split.y_test, scores), abs=1e-12)
