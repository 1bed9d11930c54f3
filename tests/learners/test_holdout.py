"""Exact fast cross-validation equals explicit retraining without the held-out rows.

Each shortcut (leave-one-out, hold-out of arbitrary overlapping sets, leave-pair-out for RLS;
leave-query-out and hold-out for RankRLS) is compared with brute force on random data over
λ = 2^-15..2^15, to relative error <= 1e-8 (max abs difference / max abs value).
Conditioning: see tests/learners/test_rls.py (full-rank Gaussian kernels, full-rank primal data).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from learners import RLS
from kernelrank.errors import InvalidInputError

LAMS = 2.0 ** np.arange(-15, 16, 2)
RTOL = 1e-8


def _rel(a, b):
    return np.max(np.abs(np.asarray(a) - np.asarray(b))) / np.max(np.abs(b))


def _rls_brute(X, Y, train, test, lam, solver, kernel_kw):
    """Explicit retraining on ``train`` (primal normal equations or dual kernel solve)."""
    if sp.issparse(X):
        X = X.toarray()
    if solver == "primal":
        Xt = X[train]
        W = np.linalg.solve(Xt.T @ Xt + lam * np.eye(X.shape[1]), Xt.T @ Y[train])
        return X[test] @ W
    K = _kernel(X, kernel_kw)
    a = np.linalg.solve(K[np.ix_(train, train)] + lam * np.eye(len(train)), Y[train])
    return K[np.ix_(test, train)] @ a


def _kernel(X, kw):
    if kw.get("kernel") == "gaussian":
        return np.exp(-kw["gamma"] * ((X[:, None] - X[None]) ** 2).sum(-1))
    return X @ X.T


CASES = [  # (solver, m, n, kernel kwargs)
    ("dual", 30, 5, {"kernel": "gaussian", "gamma": 0.4}),
    ("primal", 40, 4, {}),
    ("dual", 20, 30, {}),            # linear kernel, n > m: full-rank K
]


@pytest.fixture(params=CASES, ids=["gaussian-dual", "linear-primal", "linear-dual"])
def fitted(request, rng):
    solver, m, n, kw = request.param

    def make(sparse=False, multi=False):
        X = rng.normal(size=(m, n))
        if sparse:
            X[rng.random(X.shape) < 0.3] = 0.0
            X = sp.csr_matrix(X)
        Y = rng.normal(size=(m, 3) if multi else (m,))
        model = RLS(alpha=1.0, solver=solver, **kw).fit(X, Y)
        assert model.solver_ == solver
        return model, X, Y, solver, kw
    return make


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("multi", [False, True])
def test_rls_leave_one_out(fitted, sparse, multi):
    model, X, Y, solver, kw = fitted(sparse, multi)
    m = X.shape[0]
    loo = model.leave_one_out(alphas=LAMS)
    assert loo.shape == (LAMS.size,) + Y.shape
    for k, lam in enumerate(LAMS):
        brute = np.array([_rls_brute(X, Y, np.delete(np.arange(m), i), [i], lam, solver, kw)[0]
                          for i in range(m)])
        assert _rel(loo[k], brute) < RTOL, lam
    one = model.leave_one_out()
    np.testing.assert_allclose(one, model.leave_one_out(alphas=[model.alpha])[0])


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("multi", [False, True])
def test_rls_holdout_sets_overlapping(fitted, rng, sparse, multi):
    model, X, Y, solver, kw = fitted(sparse, multi)
    m = X.shape[0]
    sets = [np.array([0, 3, 4]), np.array([4, 5]), rng.permutation(m)[: m // 2], np.array([7])]
    out = model.holdout_sets(sets, alphas=LAMS)
    for h, H in enumerate(sets):
        train = np.setdiff1d(np.arange(m), H)
        for k, lam in enumerate(LAMS):
            assert _rel(out[h][k], _rls_brute(X, Y, train, H, lam, solver, kw)) < RTOL
    single = model.holdout(sets[0])
    np.testing.assert_allclose(single, model.holdout_sets([sets[0]])[0])


@pytest.mark.parametrize("batch", [1, 40, 200])
def test_rls_holdout_sets_in_small_batches_of_lambdas(fitted, rng, monkeypatch, batch):
    """λ split into batches (one λ per batch, a few, all): the same predictions, with the
    residual and the hat forms mixed inside a batch."""
    import learners.holdout as holdout

    model, X, Y, solver, kw = fitted(False, True)
    m = X.shape[0]
    sets = [np.array([0, 3, 4]), rng.permutation(m)[: m // 3], np.array([7])]
    want = model.holdout_sets(sets, alphas=LAMS)
    monkeypatch.setattr(holdout, "_HOLDOUT_BATCH", batch)
    model._cache.clear()
    got = model.holdout_sets(sets, alphas=LAMS)
    for h, H in enumerate(sets):
        np.testing.assert_allclose(got[h], want[h], rtol=1e-12, atol=1e-14)
        train = np.setdiff1d(np.arange(m), H)
        assert _rel(got[h][-1], _rls_brute(X, Y, train, H, LAMS[-1], solver, kw)) < RTOL


@pytest.mark.parametrize("multi", [False, True])
def test_rls_leave_pair_out(fitted, rng, multi):
    model, X, Y, solver, kw = fitted(False, multi)
    m = X.shape[0]
    pairs = np.array([[i, j] for i in range(m) for j in range(i + 1, m) if (i + j) % 3 == 0])
    many = model.leave_pair_out(pairs, alphas=LAMS)           # n_pairs >= m: full-matrix path
    few = model.leave_pair_out(pairs[:5], alphas=LAMS)         # row-wise path
    np.testing.assert_allclose(few, many[:, :5], rtol=1e-10, atol=1e-13)
    for k, lam in enumerate(LAMS[::3]):
        k3 = 3 * k
        brute = np.stack([_rls_brute(X, Y, np.setdiff1d(np.arange(m), p), p, lam, solver, kw)
                          for p in pairs])
        assert _rel(many[k3], brute) < RTOL, lam


def test_rls_holdout_bad_sets(fitted):
    model, X, Y, *_ = fitted()
    m = X.shape[0]
    with pytest.raises(InvalidInputError, match="outside"):
        model.holdout([0, m])
    with pytest.raises(InvalidInputError, match="nothing would be left"):
        model.holdout(np.arange(m))
    with pytest.raises(InvalidInputError, match="empty"):
        model.holdout([])
    with pytest.raises(InvalidInputError, match="repeated"):
        model.holdout([1, 1])
    with pytest.raises(InvalidInputError):
        model.leave_pair_out(np.array([[0, 0]]))
    with pytest.raises(InvalidInputError):
        model.leave_pair_out(np.array([0, 1]))


# ---------------------------------------------------------------------- RankRLS
from learners import GlobalRankRLS, PairwiseRankRLS, QueryRankRLS  # noqa: E402


def _features(X, solver):
    """Features F with K = F F^T: X (primal, linear) or the Gaussian kernel's Cholesky factor."""
    if solver == "primal":
        return X.toarray() if sp.issparse(X) else X
    return np.linalg.cholesky(_kernel(X, {"kernel": "gaussian", "gamma": 0.5}))


def _rank_brute(F, pairs, z, w, lam, train, test):
    """Retrain on ``train`` with the explicit pairs inside it (QR least squares); predict ``test``."""
    keep = np.isin(pairs[:, 0], train) & np.isin(pairs[:, 1], train)
    p, zz, ww = pairs[keep], z[keep], w[keep]
    # the held-out rows must not influence the fit: restrict the feature map to train rows
    Ft = F[train]
    # empirical map of the training kernel: K_tt = Ft Ft^T; test predictions K_st a
    pos = np.full(F.shape[0], -1)
    pos[train] = np.arange(len(train))
    D = (Ft[pos[p[:, 0]]] - Ft[pos[p[:, 1]]]) * ww[:, None]
    Z2 = zz if zz.ndim == 2 else zz[:, None]
    r = F.shape[1]
    A = np.vstack([D, np.sqrt(lam) * np.eye(r)])
    rhs = np.vstack([ww[:, None] * Z2, np.zeros((r, Z2.shape[1]))])
    v = np.linalg.lstsq(A, rhs, rcond=None)[0]
    out = F[test] @ v
    return out[:, 0] if zz.ndim == 1 else out


def _all_pairs(y, qids=None):
    i, j = np.triu_indices(len(y), 1)
    if qids is not None:
        keep = qids[i] == qids[j]
        i, j = i[keep], j[keep]
    pairs = np.column_stack([i, j])
    return pairs, y[i] - y[j], np.ones(len(i))


GLOBAL_CASES = [("dual", False), ("primal", False), ("primal", True)]


@pytest.mark.parametrize("solver,sparse", GLOBAL_CASES)
@pytest.mark.parametrize("multi", [False, True])
def test_global_rankrls_loo_holdout_lpo(rng, solver, sparse, multi):
    """Global RankRLS: LOO, overlapping hold-out sets, leave-pair-out (eqs. 34-39)."""
    m = 22
    X = rng.normal(size=(m, 4))
    if sparse:
        X[rng.random(X.shape) < 0.3] = 0
    Xin = sp.csr_matrix(X) if sparse else X
    y = rng.normal(size=(m, 2) if multi else m)
    kw = {"kernel": "gaussian", "gamma": 0.5} if solver == "dual" else {}
    model = GlobalRankRLS(alpha=1.0, solver=solver, **kw).fit(Xin, y)
    F = _features(X, solver)
    pairs, z, w = _all_pairs(y)
    loo = model.leave_one_out(alphas=LAMS)
    sets = [np.array([0, 4, 9]), np.array([9, 10, 11, 12, 13, 14, 15]), np.array([3])]
    hs = model.holdout_sets(sets, alphas=LAMS)
    lp = np.array([[0, 1], [5, 2], [20, 21], [7, 13]])
    lpo = model.leave_pair_out(lp, alphas=LAMS)
    for k, lam in enumerate(LAMS):
        brute = np.array([_rank_brute(F, pairs, z, w, lam, np.delete(np.arange(m), i), [i])[0]
                          for i in range(m)])
        assert _rel(loo[k], brute) < RTOL, lam
        for H, got in zip(sets, hs):
            train = np.setdiff1d(np.arange(m), H)
            assert _rel(got[k], _rank_brute(F, pairs, z, w, lam, train, H)) < RTOL, lam
        for p, got in zip(lp, lpo[k]):
            train = np.setdiff1d(np.arange(m), p)
            assert _rel(got, _rank_brute(F, pairs, z, w, lam, train, p)) < RTOL, lam


def test_global_leave_pair_out_all_pos_neg_pairs(rng):
    """Vectorized LPO over every positive-negative pair equals per-pair retraining (sampled)."""
    m = 30
    X = rng.normal(size=(m, 3))
    y = (rng.random(m) < 0.4).astype(float)
    model = GlobalRankRLS(alpha=0.5, kernel="gaussian", gamma=0.5).fit(X, y)
    pos, neg = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    lp = np.array(np.meshgrid(pos, neg)).T.reshape(-1, 2)
    out = model.leave_pair_out(lp)
    F = _features(X, "dual")
    pairs, z, w = _all_pairs(y)
    for k in rng.choice(len(lp), size=8, replace=False):
        train = np.setdiff1d(np.arange(m), lp[k])
        assert _rel(out[k], _rank_brute(F, pairs, z, w, 0.5, train, lp[k])) < RTOL


@pytest.mark.parametrize("solver", ["dual", "primal"])
@pytest.mark.parametrize("multi", [False, True])
def test_query_rankrls_leave_query_out_and_whole_query_sets(rng, solver, multi):
    """Leave-query-out (eq. 33) and unions of whole queries, full λ range."""
    m = 28
    X = rng.normal(size=(m, 4))
    y = rng.normal(size=(m, 2) if multi else m)
    qids = rng.integers(0, 5, size=m)
    kw = {"kernel": "gaussian", "gamma": 0.5} if solver == "dual" else {}
    model = QueryRankRLS(alpha=1.0, solver=solver, **kw).fit(X, y, qids)
    F = _features(X, solver)
    pairs, z, w = _all_pairs(y, qids)
    lqo = model.leave_query_out(alphas=LAMS)
    union = np.flatnonzero(np.isin(qids, [1, 3]))[::-1]          # unsorted on purpose
    hu = model.holdout(union, alphas=LAMS)
    for k, lam in enumerate(LAMS):
        for q in np.unique(qids):
            U = np.flatnonzero(qids == q)
            train = np.setdiff1d(np.arange(m), U)
            assert _rel(lqo[k][U], _rank_brute(F, pairs, z, w, lam, train, U)) < RTOL, lam
        train = np.setdiff1d(np.arange(m), union)
        assert _rel(hu[k], _rank_brute(F, pairs, z, w, lam, train, union)) < RTOL, lam


# Sets that split queries and hold-out on a general preference graph remove edges crossing the
# set: QuerySplitSpectral (dual, query data) and TouchedSetSpectral (primal; dual graphs with
# the null space of L projected out) are checked to 1e-8 over λ = 2^-15..2^15.
SPLIT_LAMS = 2.0 ** np.arange(-15, 16, 2)


@pytest.mark.parametrize("solver", ["dual", "primal"])
@pytest.mark.parametrize("multi", [False, True])
def test_query_rankrls_sets_splitting_queries_and_pairs(rng, solver, multi):
    m = 24
    X = rng.normal(size=(m, 4))
    y = rng.normal(size=(m, 2) if multi else m)
    qids = rng.integers(0, 4, size=m)
    kw = {"kernel": "gaussian", "gamma": 0.5} if solver == "dual" else {}
    model = QueryRankRLS(alpha=1.0, solver=solver, **kw).fit(X, y, qids)
    F = _features(X, solver)
    pairs, z, w = _all_pairs(y, qids)
    mixed = np.r_[np.flatnonzero(qids == 1), np.flatnonzero(qids == 2)[:1]]  # whole + part
    loo = model.leave_one_out(alphas=SPLIT_LAMS[::4])
    for k, lam in enumerate(SPLIT_LAMS[::4]):
        brute = np.array([_rank_brute(F, pairs, z, w, lam, np.delete(np.arange(m), i), [i])[0]
                          for i in range(m)])
        assert _rel(loo[k], brute) < RTOL, lam
    sets = [np.array([9, 0, 5]), np.array([7]), mixed]
    hs = model.holdout_sets(sets, alphas=SPLIT_LAMS)
    lp = pairs[:5]
    lpo = model.leave_pair_out(lp, alphas=SPLIT_LAMS)
    for k, lam in enumerate(SPLIT_LAMS):
        for H, got in zip(sets, hs):
            train = np.setdiff1d(np.arange(m), H)
            assert _rel(got[k], _rank_brute(F, pairs, z, w, lam, train, H)) < RTOL, lam
        for p, got in zip(lp, lpo[k]):
            train = np.setdiff1d(np.arange(m), p)
            assert _rel(got, _rank_brute(F, pairs, z, w, lam, train, p)) < RTOL, lam


@pytest.mark.parametrize("solver", ["dual", "primal"])
def test_pairwise_rankrls_holdout(rng, solver):
    m = 24
    X = rng.normal(size=(m, 4))
    pairs = rng.integers(0, m, size=(60, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    mag = rng.random(len(pairs)) + 0.2
    kw = {"kernel": "gaussian", "gamma": 0.5} if solver == "dual" else {}
    model = PairwiseRankRLS(alpha=1.0, solver=solver, **kw).fit(X, pairs=pairs, magnitudes=mag)
    F = _features(X, solver)
    sets = [np.array([0, 5, 9]), np.array([3])]
    hs = model.holdout_sets(sets, alphas=SPLIT_LAMS)
    lpo = model.leave_pair_out(pairs[:3], alphas=SPLIT_LAMS)
    w = np.ones(len(pairs))
    loo = model.leave_one_out(alphas=SPLIT_LAMS[::4])
    for k, lam in enumerate(SPLIT_LAMS[::4]):
        brute = np.array([_rank_brute(F, pairs, mag, w, lam, np.delete(np.arange(m), i), [i])[0]
                          for i in range(m)])
        assert _rel(loo[k], brute) < RTOL, lam
    for k, lam in enumerate(SPLIT_LAMS):
        for H, got in zip(sets, hs):
            train = np.setdiff1d(np.arange(m), H)
            assert _rel(got[k], _rank_brute(F, pairs, mag, w, lam, train, H)) < RTOL, lam
        for p, got in zip(pairs[:3], lpo[k]):
            train = np.setdiff1d(np.arange(m), p)
            assert _rel(got, _rank_brute(F, pairs, mag, w, lam, train, p)) < RTOL, lam
