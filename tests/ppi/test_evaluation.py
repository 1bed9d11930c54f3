"""PPI evaluation protocol (ppi/learning/evaluation.py): nested selection against explicit
retraining, CV end-to-end on LLL, the Table 5 threshold, saved models."""

import numpy as np
import pytest

from kernelrank.errors import InvalidParameterError
from learners.measures import auc, best_f_threshold, precision_recall_f1
from learners.rls import RLS
from ppi.learning.evaluation import cooccurrence, cross_validate, learning_curve, select_parameters
from ppi.learning.evaluation import test_distribution_f1 as distribution_f1
from learners.splits import group_sets as leave_one_group_out_sets


def small_problem(rng, m=60, n_docs=12):
    X = rng.normal(size=(m, 8))
    w = rng.normal(size=8)
    y = np.where(X @ w + 0.5 * rng.normal(size=m) > 0.3, 1.0, -1.0)
    docs = np.array([f"d{i % n_docs}" for i in range(m)], dtype=object)
    return X @ X.T, y, docs


def test_selection_equals_explicit_retraining(rng):
    K, y, docs = small_problem(rng)
    alphas = 2.0 ** np.arange(-6, 7, 2)
    model, choice = select_parameters(K, y, docs, alphas)
    # brute force: retrain without each document, for each λ, pool, best F threshold
    best = None
    for a in alphas:
        p = np.empty(len(y))
        for S in leave_one_group_out_sets(docs):
            T = np.setdiff1d(np.arange(len(y)), S)
            r = RLS(alpha=a, kernel="precomputed").fit(K[np.ix_(T, T)], y[T])
            p[S] = r.predict(K[np.ix_(S, T)])
        b = best_f_threshold(y, p)
        grid = next(g for g in choice["grid"] if g["alpha"] == a)
        assert grid["f1"] == pytest.approx(b.f1, rel=1e-9)
        assert grid["threshold"] == pytest.approx(b.threshold, rel=1e-6, abs=1e-9)
        if best is None or b.f1 >= best[0]:       # ties: the larger λ (alphas ascend)
            best = (b.f1, a, b.threshold)
    assert choice["alpha"] == best[1]
    assert choice["threshold"] == pytest.approx(best[2], rel=1e-6, abs=1e-9)


def test_test_distribution_threshold(rng):
    y = np.where(rng.random(50) < 0.3, 1, -1)
    s = rng.normal(size=50)
    r = distribution_f1(y, s)
    k = int(round(np.mean(y > 0) * 50))
    assert np.sum(s > r["threshold"]) == k
    top = np.argsort(-s)[:k]
    tp = np.sum(y[top] > 0)
    assert r["f1"] == pytest.approx(2 * tp / (k + np.sum(y > 0)))


def test_cooccurrence_baseline():
    b = cooccurrence(np.array([1, -1, -1, 1]))
    assert b["precision"] == 0.5 and b["recall"] == 1 and b["f1"] == pytest.approx(2 / 3)
    assert precision_recall_f1([1, -1, -1, 1], np.ones(4), 0.0).f1 == pytest.approx(b["f1"])


@pytest.fixture(scope="module")
def lll(data_dir):
    from corpora.ppi_xml import read_corpus
    from ppi.representation.features import PairFeaturizer, kernel
    c = read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")
    (d,) = PairFeaturizer().fit_transform([c])
    return c, d, kernel(d)


@pytest.mark.slow
def test_cv_end_to_end_on_lll(lll):
    c, d, K = lll
    alphas = 2.0 ** np.arange(-4, 5, 2)
    r = cross_validate(d, K, alphas=alphas, seed=0)
    for k in ("precision", "recall", "f1", "auc", "f1_std", "auc_std"):
        assert 0 <= r[k] <= 1
    assert r["auc"] > 0.65 and r["f1"] > r["cooccurrence"]["f1"] - 0.05
    # documents never split; outer-fold scores = explicit retraining with the chosen λ
    docs = d.document_ids.astype(str)
    for f in r["folds"]:
        assert len(set(f["documents"])) == len(f["documents"])
    test = np.flatnonzero(r["fold_of_pair"] == 0)
    assert not set(docs[test]) & set(docs[r["fold_of_pair"] != 0])
    train = np.setdiff1d(np.arange(len(d)), test)
    a = r["folds"][0]["alpha"]
    explicit = RLS(alpha=a, kernel="precomputed").fit(K[np.ix_(train, train)], d.y[train])
    np.testing.assert_allclose(r["scores"][test], explicit.predict(K[np.ix_(test, train)]),
                               rtol=1e-7, atol=1e-9)
    # fold-mean AUC uses learners.measures.auc on each fold
    assert r["auc_per_fold"][0] == pytest.approx(auc(d.y[test], r["scores"][test]))
    # deterministic
    r2 = cross_validate(d, K, alphas=alphas, seed=0)
    assert r2["f1"] == r["f1"] and np.array_equal(r2["fold_of_pair"], r["fold_of_pair"])


def test_learning_curve_on_lll(lll):
    c, d, K = lll
    res = learning_curve(d, K, n_points=3, alphas=2.0 ** np.arange(-2, 3, 2))
    ns = [p["n_train"] for p in res["points"]]
    assert ns == sorted(ns) and len(ns) >= 2
    assert all(0 <= p["auc"] <= 1 for p in res["points"])


@pytest.mark.slow
def test_model_round_trip(lll, tmp_path):
    from ppi.representation.features import PairFeaturizer, kernel
    from ppi.models.classes import PPIModel, SingleViewModel
    c, _, _ = lll
    f = PairFeaturizer()
    (d,) = f.fit_transform([c])
    K = kernel(d)
    sel, choice = select_parameters(K, d.y, d.document_ids, 2.0 ** np.arange(-2, 3, 2))
    model = sel.model
    coef = model.regularization_path([choice["alpha"]])[0]
    m = SingleViewModel.from_fit(f, d.X, coef, choice["alpha"], choice["threshold"], "rls", {})
    m.save(tmp_path / "model")
    loaded = PPIModel.load(tmp_path / "model")
    _, s, pred = loaded.predict(c)
    np.testing.assert_allclose(s, model.predict_path(K, [choice["alpha"]])[0], rtol=1e-8,
                               atol=1e-10)
    assert np.array_equal(pred, s > choice["threshold"])


@pytest.mark.slow
def test_cross_corpus_small(data_dir):
    from corpora.ppi_xml import read_corpus
    from ppi.learning.evaluation import cross_corpus
    from ppi.representation.features import PairFeaturizer, kernel
    names = ["LLL", "HPRD50"]
    corpora = [read_corpus(data_dir / "ppi" / f"{n}-learning-format.xml.gz") for n in names]
    sets = dict(zip(names, PairFeaturizer().fit_transform(corpora)))
    alphas = 2.0 ** np.arange(-2, 3, 2)
    res = cross_corpus(sets, lambda a, b: kernel(sets[a], sets[b]), alphas=alphas)
    for key in ("auc", "f1_train_threshold", "f1_oracle", "f1_test_distribution"):
        assert set(res[key]) == set(names)
        assert all(0 <= v <= 1 for row in res[key].values() for v in row.values())
    assert res["f1_oracle"]["LLL"]["HPRD50"] >= res["f1_train_threshold"]["LLL"]["HPRD50"]
    # the AUC cell = explicit training on LLL with the selected λ, scored on HPRD50
    a = res["selection"]["LLL"]["alpha"]
    tr, te = sets["LLL"], sets["HPRD50"]
    r = RLS(alpha=a, kernel="precomputed").fit(kernel(tr), tr.y)
    assert res["auc"]["LLL"]["HPRD50"] == pytest.approx(auc(te.y, r.predict(kernel(te, tr))))


@pytest.mark.slow
def test_feature_rows_input_equals_kernel_input(lll):
    """Reduced-set RLS fitted on the sparse feature rows (linear kernel, O(m r) memory) gives
    the CV, the learning curve and the cross-corpus cells of the precomputed m × m kernel."""
    from ppi.learning.evaluation import cross_corpus, learner_input
    from ppi.representation.features import kernel
    _, d, K = lll
    alphas = 2.0 ** np.arange(-4, 5, 2)
    assert learner_input(d, "reduced_set", 100, max_gram_bytes=8 * len(d) ** 2 - 1) is d.X
    for small in (learner_input(d, "reduced_set", len(d), max_gram_bytes=0),
                  learner_input(d, "reduced_set", 100), learner_input(d, "rls", 100, 0)):
        np.testing.assert_array_equal(small, K)
    kw = dict(alphas=alphas, seed=1, learner="reduced_set", n_basis=100, select_by="auc")
    a, b = cross_validate(d, K, **kw), cross_validate(d, d.X, **kw)
    np.testing.assert_allclose(b["scores"], a["scores"], rtol=1e-8, atol=1e-10)
    assert [f["alpha"] for f in b["folds"]] == [f["alpha"] for f in a["folds"]]
    assert b["f1"] == pytest.approx(a["f1"]) and b["auc"] == pytest.approx(a["auc"])
    kw.pop("select_by")
    ca = learning_curve(d, K, n_points=3, min_pairs=120, **kw)
    cb = learning_curve(d, d.X, n_points=3, min_pairs=120, **kw)
    assert [p["n_train"] for p in cb["points"]] == [p["n_train"] for p in ca["points"]]
    np.testing.assert_allclose([p["auc"] for p in cb["points"]],
                               [p["auc"] for p in ca["points"]], rtol=1e-9)
    half = {"A": d.subset(np.arange(0, len(d), 2)), "B": d.subset(np.arange(1, len(d), 2))}
    ra = cross_corpus(half, lambda p, q: kernel(half[p], half[q]), **kw)
    rb = cross_corpus(half, lambda p, q: half[p].X, **kw)
    for key in ("auc", "f1_train_threshold", "f1_oracle"):
        for tr in half:
            for te, v in ra[key][tr].items():
                assert rb[key][tr][te] == pytest.approx(v, rel=1e-9)


def test_auto_learner_is_full_rls_up_to_its_limit(monkeypatch):
    """``auto`` (the multiview system's learner): exact RLS for at most FULL_RLS_MAX
    training pairs, the reduced-set approximation above (and for feature rows)."""
    import ppi.learning.evaluation as ev
    from learners.reduced_set import ReducedSetRLS
    from learners.rls import RLS

    monkeypatch.setattr(ev, "FULL_RLS_MAX", 20)
    assert ev.resolve_learner("auto", 20) == "rls"
    assert ev.resolve_learner("auto", 21) == ev.resolve_learner("auto") == "reduced_set"
    assert ev.resolve_learner("rls", 10 ** 6) == "rls"
    assert type(ev.ppi_learner("auto", n_basis=5, m=20)) is RLS
    assert type(ev.ppi_learner("auto", n_basis=5, m=21)) is ReducedSetRLS
    with pytest.raises(InvalidParameterError, match="learner"):
        ev.resolve_learner("svm", 5)
    from ppi.systems import SYSTEMS

    assert SYSTEMS["multiview"].defaults["learner"] == "auto"
    assert SYSTEMS["paper-v"].defaults["learner"] == "reduced_set"


def test_full_rls_that_cannot_fit_is_refused_before_any_work(monkeypatch):
    """Full RLS holds three m × m matrices: a machine that cannot hold them gets a clear
    error naming the pairs and the learner that fits — before the kernel is computed."""
    import scipy.sparse as sp

    import kernelrank.memory
    from ppi.learning.evaluation import check_full_rls_memory, learner_input
    from ppi.representation.features import PairSet

    check_full_rls_memory(6_221, total=24 * 2 ** 30)                  # BioRED's: 0.9 GiB
    with pytest.raises(InvalidParameterError, match=r"28,575 training pairs.*18\.\d GiB"
                                                    r".*--learner reduced_set"):
        check_full_rls_memory(28_575, total=24 * 2 ** 30)
    data = PairSet("", sp.random(300, 50, density=0.1, format="csr", random_state=0),
                   np.ones(300), None, None, None)
    monkeypatch.setattr(kernelrank.memory, "physical_memory_bytes", lambda: 1_000_000)
    with pytest.raises(InvalidParameterError, match="300 training pairs"):
        learner_input(data, "rls")
    assert learner_input(data, "reduced_set", n_basis=20, max_gram_bytes=0) is data.X
    monkeypatch.setattr(kernelrank.memory, "physical_memory_bytes", lambda: 2 ** 34)
    assert learner_input(data, "rls").shape == (300, 300)
