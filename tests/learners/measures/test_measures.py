"""Tests of learners.measures against brute-force pair loops, scikit-learn and SciPy."""

import itertools

import numpy as np
import pytest
from scipy.stats import kendalltau
from sklearn.metrics import auc as sk_auc
from sklearn.metrics import average_precision_score, ndcg_score, roc_auc_score
from sklearn.metrics import roc_curve as sk_roc_curve

from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError
from learners.measures import (
    auc,
    average_precision,
    averaged,
    best_f_threshold,
    cindex,
    disagreement_error,
    kendall_tau_b,
    letor_evaluation,
    mean_average_precision,
    ndcg_at_k,
    pooled,
    precision_at_k,
    precision_recall_f1,
    roc50,
    roc_curve,
)
from learners.measures.pairwise import _inversions_per_element

# --------------------------------------------------------------------------- brute force


def brute_pairs(y, s, ties):
    """Disagreement error by an explicit O(m^2) loop; None if no pair has y_i != y_j."""
    err = n = 0
    for i, j in itertools.permutations(range(len(y)), 2):
        if y[i] > y[j]:
            n += 1
            err += 1.0 if s[i] < s[j] else (ties if s[i] == s[j] else 0.0)
    return None if n == 0 else (err, n)


def brute_roc_n(y, s, n_fp):
    pos = s[y == 1]
    neg = np.sort(s[y == 0])[::-1][:n_fp]
    t = [np.sum(pos > v) + 0.5 * np.sum(pos == v) for v in neg]
    return np.sum(t) / (len(neg) * len(pos))


def brute_letor_query(labels_in_rank_order, k_max=10):
    """Direct transcription of the LETOR 3.0 per-query loops (P@k, AP, NDCG@k lists)."""
    rates = list(labels_in_rank_order)
    gain = {0: 0, 1: 1, 2: 3}
    prec, nrel = [], 0
    for i in range(min(k_max, len(rates))):
        nrel += rates[i] >= 1
        prec.append(nrel / (i + 1))
    nrel, ap = 0, 0.0
    for i, r in enumerate(rates):
        if r >= 1:
            nrel += 1
            ap += nrel / (i + 1)
    ap = ap / nrel if nrel else 0.0

    def dcg(rs):
        out = [gain[rs[0]]]
        for i in range(1, min(k_max, len(rs))):
            d = 1.0 if i < 2 else np.log(2.0) / np.log(i + 1.0)
            out.append(out[-1] + gain[rs[i]] * d)
        return out

    d, best = dcg(rates), dcg(sorted(rates, reverse=True))
    ndcg = [a / b if b else 0.0 for a, b in zip(d, best)]
    return prec, ap, ndcg


def random_ties(rng, m, levels):
    return rng.integers(0, levels, size=m).astype(float)


# --------------------------------------------------------------------------- pair counting


def test_inversions_match_brute_force(rng):
    for m in [1, 2, 3, 7, 64, 65, 200]:
        a = rng.integers(0, max(1, m // 3), size=m)
        expected = np.array([np.sum(a[:i] > a[i]) for i in range(m)])
        np.testing.assert_array_equal(_inversions_per_element(a), expected)


@pytest.mark.parametrize("ties", [1.0, 0.5])
def test_disagreement_error_matches_pair_loop(rng, ties):
    for m, ylev, slev in [(30, 5, 4), (50, 2, 3), (40, 40, 1000), (25, 3, 1)]:
        y, s = random_ties(rng, m, ylev), random_ties(rng, m, slev)
        err, n = brute_pairs(y, s, ties)
        assert disagreement_error(y, s, ties=ties) == pytest.approx(err / n, rel=1e-12)
        if ties == 0.5:
            assert cindex(y, s) == pytest.approx(1 - err / n, rel=1e-12)


def test_disagreement_error_with_queries(rng):
    m = 120
    y, s = random_ties(rng, m, 3), random_ties(rng, m, 5)
    q = rng.integers(0, 8, size=m)
    y[q == 3] = 1.0  # a query without any pair: skipped and counted
    per_q, errs, pairs = [], 0.0, 0
    for g in np.unique(q):
        res = brute_pairs(y[q == g], s[q == g], 1.0)
        per_q.append(np.nan if res is None else res[0] / res[1])
        if res is not None:
            errs, pairs = errs + res[0], pairs + res[1]
    d = disagreement_error(y, s, q, return_details=True)
    np.testing.assert_allclose(d.per_query, per_q, rtol=1e-12)
    assert d.n_skipped == 1
    assert d.value == pytest.approx(np.nanmean(per_q), rel=1e-12)
    assert disagreement_error(y, s, q, average="pairs") == pytest.approx(errs / pairs)
    # pairs across queries are never compared: shuffling rows changes nothing
    perm = rng.permutation(m)
    assert disagreement_error(y[perm], s[perm], q[perm]) == pytest.approx(d.value)


def test_bipartite_disagreement_is_one_minus_auc(rng):
    y = rng.integers(0, 2, 200)
    s = np.round(rng.normal(size=200), 1)
    assert disagreement_error(y, s, ties=0.5) == pytest.approx(1 - roc_auc_score(y, s))
    assert cindex(y, s) == pytest.approx(roc_auc_score(y, s))


def test_kendall_tau_b_matches_scipy(rng):
    for m, ylev, slev in [(60, 4, 6), (300, 300, 300), (80, 2, 10)]:
        y, s = random_ties(rng, m, ylev), random_ties(rng, m, slev)
        assert kendall_tau_b(y, s) == pytest.approx(kendalltau(y, s).statistic, rel=1e-10)
    y, s = random_ties(rng, 90, 4), random_ties(rng, 90, 4)
    q = rng.integers(0, 5, 90)
    s[q == 2] = 0.0  # constant scores: tau-b undefined there
    taus = [kendalltau(y[q == g], s[q == g]).statistic for g in np.unique(q)]
    res = kendall_tau_b(y, s, q, return_details=True)
    assert res.n_skipped == 1
    np.testing.assert_allclose(res.per_query, taus, rtol=1e-10)
    assert res.value == pytest.approx(np.nanmean(taus))


def test_large_input_matches_scipy_and_sklearn(rng):
    m = 20000
    y = random_ties(rng, m, 50)
    s = np.round(rng.normal(size=m), 2)
    assert kendall_tau_b(y, s) == pytest.approx(kendalltau(y, s).statistic, rel=1e-10)
    b = (y > 25).astype(int)
    assert auc(b, s) == pytest.approx(roc_auc_score(b, s), rel=1e-12)
    assert cindex(b, s) == pytest.approx(roc_auc_score(b, s), rel=1e-12)


# --------------------------------------------------------------------------- AUC and ROC


def test_auc_matches_sklearn_and_label_encodings(rng):
    y = rng.integers(0, 2, 300)
    s = np.round(rng.normal(size=300), 1)
    ref = roc_auc_score(y, s)
    assert auc(y, s) == pytest.approx(ref, rel=1e-12)
    assert auc(2 * y - 1, s) == pytest.approx(ref, rel=1e-12)
    assert auc(y.astype(bool), s) == pytest.approx(ref, rel=1e-12)


def test_roc_curve_matches_sklearn(rng):
    y = rng.integers(0, 2, 100)
    s = np.round(rng.normal(size=100), 1)
    fpr, tpr, thr = roc_curve(y, s)
    sf, st, sthr = sk_roc_curve(y, s, drop_intermediate=False)
    np.testing.assert_allclose(fpr, sf)
    np.testing.assert_allclose(tpr, st)
    np.testing.assert_allclose(thr[1:], sthr[1:])
    assert sk_auc(fpr, tpr) == pytest.approx(roc_auc_score(y, s))


def test_roc50_matches_brute_force(rng):
    y = rng.integers(0, 2, 400)
    s = np.round(rng.normal(size=400), 1)
    for n in [1, 10, 50]:
        assert roc50(y, s, n_fp=n) == pytest.approx(brute_roc_n(y, s, n), rel=1e-12)
    # fewer negatives than n: ROC_n is the AUC
    y2 = np.r_[np.ones(30), np.zeros(7)].astype(int)
    s2 = rng.normal(size=37)
    assert roc50(y2, s2) == pytest.approx(roc_auc_score(y2, s2))
    # perfect and worst rankings
    assert roc50([1, 1, 0, 0], [3, 2, 1, 0]) == 1.0
    assert roc50([1, 1, 0, 0], [0, 1, 2, 3]) == 0.0


# --------------------------------------------------------------------------- thresholds


def test_precision_recall_f1_definition():
    y = np.array([1, 1, 1, 0, 0, 0])
    s = np.array([0.9, 0.4, -0.2, 0.5, -0.1, -0.3])
    r = precision_recall_f1(y, s, threshold=0.0)
    assert (r.tp, r.fp, r.fn) == (2, 1, 1)
    assert r.precision == pytest.approx(2 / 3) and r.recall == pytest.approx(2 / 3)
    assert r.f1 == pytest.approx(2 / 3)
    none = precision_recall_f1(y, s, threshold=5.0)
    assert none.precision == 0.0 and none.f1 == 0.0


def test_best_f_threshold_exhaustive(rng):
    y = rng.integers(0, 2, 80)
    s = np.round(rng.normal(size=80), 1)
    best = best_f_threshold(y, s)
    cands = np.unique(s)
    brute = max(precision_recall_f1(y, s, t).f1 for t in np.r_[cands - 1e-9, cands])
    assert best.f1 == pytest.approx(brute, rel=1e-12)
    again = precision_recall_f1(y, s, best.threshold)
    assert again.f1 == pytest.approx(best.f1)
    assert again.precision == pytest.approx(best.precision)
    u = np.unique(s)
    i = np.searchsorted(u, best.threshold)
    assert best.threshold == pytest.approx((u[i - 1] + u[i]) / 2)


# --------------------------------------------------------------------------- query measures


def test_average_precision_matches_sklearn(rng):
    for levels in [4, 1000]:
        y = rng.integers(0, 2, 150)
        s = random_ties(rng, 150, levels)
        assert average_precision(y, s) == pytest.approx(
            average_precision_score(y, s), rel=1e-12)


def test_ndcg_matches_sklearn(rng):
    n_q, per = 12, 15
    y = rng.integers(0, 3, size=(n_q, per)).astype(float)
    y[:, 0] = 2.0  # every query has a relevant document
    s = np.round(rng.normal(size=(n_q, per)), 1)
    q = np.repeat(np.arange(n_q), per)
    for k in [1, 3, 10, 15]:
        ref = ndcg_score(2 ** y - 1, s, k=k)
        assert ndcg_at_k(y.ravel(), s.ravel(), q, k) == pytest.approx(ref, rel=1e-12)
        s_unique = s + 1e-9 * rng.normal(size=s.shape)  # no ties: both conventions agree
        assert ndcg_at_k(y.ravel(), s_unique.ravel(), q, k, ties="input_order") == \
            pytest.approx(ndcg_score(2 ** y - 1, s_unique, k=k), rel=1e-9)


def test_ndcg_no_relevant_conventions():
    y = np.array([0, 0, 0, 1, 0, 2.0])
    s = np.array([3, 2, 1, 3, 2, 1.0])
    q = np.array([1, 1, 1, 2, 2, 2])
    q2 = ndcg_at_k(y[3:], s[3:], q[3:], 3)
    assert ndcg_at_k(y, s, q, 3) == pytest.approx(q2 / 2)  # LETOR/sklearn: query 1 is 0
    res = ndcg_at_k(y, s, q, 3, no_relevant="skip", return_details=True)
    assert res.value == pytest.approx(q2) and res.n_skipped == 1
    with pytest.raises(UndefinedMeasureError):
        ndcg_at_k(y[:3], s[:3], q[:3], 3, no_relevant="skip")


def test_letor_evaluation_matches_transcribed_tool(rng):
    sizes = [3, 12, 9, 20, 5, 14]
    q = np.repeat(np.arange(len(sizes)), sizes)
    m = q.size
    y = rng.integers(0, 3, m)
    y[q == 4] = 0  # a query without relevant document
    s = np.round(rng.normal(size=m), 1)  # many ties: input order must break them
    out = letor_evaluation(y, s, q)
    sums = {k: 0.0 for k in out}
    for g in range(len(sizes)):
        idx = np.flatnonzero(q == g)
        ranked = idx[np.argsort(-s[idx], kind="stable")]
        prec, ap, ndcg = brute_letor_query(y[ranked])
        for i, v in enumerate(prec):
            sums[f"P@{i + 1}"] += v
        for i, v in enumerate(ndcg):
            sums[f"NDCG@{i + 1}"] += v
        sums["MAP"] += ap
    for key in out:
        assert out[key] == pytest.approx(sums[key] / len(sizes), rel=1e-12), key


def test_precision_at_k_and_map_brute_force(rng):
    q = np.repeat(np.arange(5), 8)
    y = rng.integers(0, 3, 40)
    s = random_ties(rng, 40, 4)
    p3, ap = [], []
    for g in range(5):
        idx = np.flatnonzero(q == g)
        ranked = idx[np.argsort(-s[idx], kind="stable")]
        rel = y[ranked] >= 1
        p3.append(rel[:3].mean())
        hits = np.cumsum(rel)
        ap.append((hits / np.arange(1, 9))[rel].mean() if rel.any() else 0.0)
    assert precision_at_k(y, s, q, 3) == pytest.approx(np.mean(p3))
    assert mean_average_precision(y, s, q) == pytest.approx(np.mean(ap))
    # grouped ties for P@k: expectation over all orderings of tied items (brute force)
    yy, ss = np.array([1, 0, 1, 0, 0]), np.array([2.0, 1, 1, 1, 0])
    qq = np.zeros(5, int)
    exp = np.mean([(yy[[0, *p, 4]][:2] >= 1).mean()
                   for p in itertools.permutations([1, 2, 3])])
    assert precision_at_k(yy, ss, qq, 2, ties="group") == pytest.approx(exp)


# --------------------------------------------------------------------------- CV aggregation


def test_pooled_and_averaged(rng):
    y = rng.integers(0, 2, 60)
    y[:4] = [0, 1, 0, 1]
    p = rng.normal(size=60)
    folds = [np.arange(i, 60, 3) for i in range(3)]
    assert pooled(auc, y, p, folds) == pytest.approx(roc_auc_score(y, p))
    per = [roc_auc_score(y[f], p[f]) for f in folds]
    res = averaged(auc, y, p, folds)
    assert res.mean == pytest.approx(np.mean(per)) and res.std == pytest.approx(np.std(per))
    # overlapping folds (leave-pair-out style) need one prediction array per fold
    pairs = [np.array([1, 0]), np.array([1, 2]), np.array([3, 0])]
    preds = [np.array([0.3, 0.1]), np.array([0.2, 0.5]), np.array([0.9, 0.4])]
    assert averaged(auc, y, preds, pairs).mean == pytest.approx(2 / 3)
    with pytest.raises(InvalidInputError):
        pooled(auc, y, p, pairs)
    # an undefined fold raises unless skipped
    one_class = [np.flatnonzero(y == 0)[:5], np.arange(60)]
    with pytest.raises(UndefinedMeasureError):
        averaged(auc, y, [p[f] for f in one_class], one_class)
    r = averaged(auc, y, [p[f] for f in one_class], one_class, on_undefined="skip")
    assert r.n_skipped == 1 and r.mean == pytest.approx(roc_auc_score(y, p))


def test_pooled_with_queries_equals_averaged_when_queries_not_split(rng):
    q = np.repeat(np.arange(6), 10)
    y = rng.integers(0, 3, 60).astype(float)
    p = rng.normal(size=60)
    folds = [np.flatnonzero(q % 3 == i) for i in range(3)]
    pool = pooled(disagreement_error, y, p, folds, qids=q)
    assert pool == pytest.approx(disagreement_error(y, p, q))


# --------------------------------------------------------------------------- errors


def test_undefined_and_invalid_inputs():
    with pytest.raises(UndefinedMeasureError):
        auc([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(UndefinedMeasureError):
        roc50([0, 0], [0.1, 0.2])
    with pytest.raises(UndefinedMeasureError):
        disagreement_error([1, 1, 1], [0.1, 0.2, 0.3])
    with pytest.raises(UndefinedMeasureError):
        kendall_tau_b([1, 2, 3], [0.0, 0.0, 0.0])
    with pytest.raises(UndefinedMeasureError):
        best_f_threshold([0, 0], [0.1, 0.2])
    with pytest.raises(UndefinedMeasureError):
        average_precision([0, 0], [0.1, 0.2])
    with pytest.raises(InvalidInputError):
        auc([0, 1], [0.1, np.nan])
    with pytest.raises(InvalidInputError):
        auc([0, 1, 1], [0.1, 0.2])
    with pytest.raises(InvalidInputError):
        auc([0, 2], [0.1, 0.2])
    with pytest.raises(InvalidInputError):
        cindex([0, 1], [np.inf, 0.0])
    with pytest.raises(InvalidInputError):
        ndcg_at_k([0, 1], [0.1, 0.2], [1], 2)
    with pytest.raises(InvalidParameterError):
        disagreement_error([0, 1], [0.1, 0.2], ties=0.3)
    with pytest.raises(InvalidParameterError):
        ndcg_at_k([0, 1], [0.1, 0.2], [1, 1], 0)


def test_an_everything_positive_best_threshold_reproduces_its_f1(rng):
    """When calling every sample positive is best (most samples positive, scores
    uninformative), best_f_threshold returns -inf and precision_recall_f1 takes it back;
    +inf predicts nothing, NaN is refused."""
    y = np.r_[np.ones(45), np.zeros(5)]
    s = np.where(y > 0, -1.0, 1.0) + 0.01 * rng.normal(size=50)   # the negatives ranked first
    best = best_f_threshold(y, s)
    assert best.threshold == -np.inf and best.recall == 1.0
    again = precision_recall_f1(y, s, best.threshold)
    assert (again.f1, again.tp, again.fp) == (pytest.approx(best.f1), 45, 5)
    assert precision_recall_f1(y, s, np.inf).tp == 0
    with pytest.raises(InvalidParameterError, match="±inf allowed"):
        precision_recall_f1(y, s, np.nan)
