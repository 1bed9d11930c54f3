"""RankRLS closed forms equal a direct minimization with explicitly built pairs (Paper I).

The reference minimizes ``sum_i w_i^2 (z_i - (f_h - f_j))^2 + λ ||f||^2`` over an explicit list of
pairs, solved as a least-squares problem in the empirical feature space of K (Cholesky
factor, QR-based ``lstsq``: accurate even for tiny λ). Gaussian kernels on spread points keep
K full rank, so comparisons over λ = 2^-15..2^15 are meaningful.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners import GlobalRankRLS, PairwiseRankRLS, QueryRankRLS
from learners.measures import cindex

LAMS = 2.0 ** np.arange(-15, 16, 3)
GK = {"kernel": "gaussian", "gamma": 0.5}


def explicit_pairs(y, qids=None):
    """All pairs i < j (inside a query), z = y_i - y_j (ties included, eq. 21)."""
    m = len(y)
    i, j = np.triu_indices(m, 1)
    if qids is not None:
        keep = qids[i] == qids[j]
        i, j = i[keep], j[keep]
    return np.column_stack([i, j]), y[i] - y[j]


def direct_minimizer(F, pairs, z, w, lam, Ftest):
    """argmin_w ||w*(z - (F_h - F_j) v)||^2 + λ||v||^2, predictions Ftest v (F: features)."""
    D = (F[pairs[:, 0]] - F[pairs[:, 1]]) * w[:, None]
    r = F.shape[1]
    A = np.vstack([D, np.sqrt(lam) * np.eye(r)])
    rhs = np.concatenate([w[:, None] * np.atleast_2d(z.T).T, np.zeros((r, np.atleast_2d(z.T).T.shape[1]))])
    v = np.linalg.lstsq(A, rhs, rcond=None)[0]
    out = Ftest @ v
    return out[:, 0] if z.ndim == 1 else out


def kernel_features(X, gamma=0.5):
    """Empirical feature map of the Gaussian kernel: K = F F^T (Cholesky)."""
    K = np.exp(-gamma * ((X[:, None] - X[None]) ** 2).sum(-1))
    return np.linalg.cholesky(K)


@pytest.mark.parametrize("multi", [False, True])
def test_global_dual_equals_explicit_pairs(rng, multi):
    X = rng.normal(size=(25, 4))
    y = np.round(rng.normal(size=(25, 2) if multi else 25), 1)       # ties included
    F = kernel_features(X)
    pairs, z = explicit_pairs(y)
    model = GlobalRankRLS(alpha=1.0, **GK).fit(X, y)
    path = model.predict_path(X, LAMS)
    for k, lam in enumerate(LAMS):
        ref = direct_minimizer(F, pairs, z, np.ones(len(pairs)), lam, F)
        fit = GlobalRankRLS(alpha=lam, **GK).fit(X, y).predict(X)
        scale = np.abs(ref).max()
        assert np.abs(fit - ref).max() / scale < 1e-8, lam
        assert np.abs(path[k] - ref).max() / scale < 1e-8, lam


@pytest.mark.parametrize("sparse", [False, True])
def test_global_primal_equals_explicit_pairs_and_dual(rng, sparse):
    X = rng.normal(size=(40, 5))
    X[rng.random(X.shape) < 0.4] = 0
    y = rng.normal(size=40)
    Xin = sp.csr_matrix(X) if sparse else X
    pairs, z = explicit_pairs(y)
    primal = GlobalRankRLS(alpha=1.0).fit(Xin, y)
    assert primal.solver_ == "primal"
    path = primal.predict_path(Xin, LAMS)
    for k, lam in enumerate(LAMS):
        ref = direct_minimizer(X, pairs, z, np.ones(len(pairs)), lam, X)
        assert np.abs(path[k] - ref).max() / np.abs(ref).max() < 1e-8
    dual = GlobalRankRLS(alpha=1.0, solver="dual").fit(Xin, y)
    np.testing.assert_allclose(dual.predict(Xin), primal.predict(Xin), rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("solver", ["dual", "primal"])
def test_query_equals_explicit_within_query_pairs(rng, solver):
    X = rng.normal(size=(30, 4))
    y = rng.normal(size=30)
    qids = rng.choice(np.array(["q1", "q2", "q3", "q4"]), size=30)
    kw = GK if solver == "dual" else {}
    F = kernel_features(X) if solver == "dual" else X
    pairs, z = explicit_pairs(y, qids)
    model = QueryRankRLS(alpha=1.0, solver=solver, **kw).fit(X, y, qids)
    path = model.predict_path(X, LAMS)
    for k, lam in enumerate(LAMS):
        ref = direct_minimizer(F, pairs, z, np.ones(len(pairs)), lam, F)
        fit = QueryRankRLS(alpha=lam, solver=solver, **kw).fit(X, y, qids).predict(X)
        assert np.abs(fit - ref).max() / np.abs(ref).max() < 1e-8, lam
        assert np.abs(path[k] - ref).max() / np.abs(ref).max() < 1e-8, lam


@pytest.mark.parametrize("cost", ["magnitude", "discrete", "weighted"])
@pytest.mark.parametrize("solver", ["dual", "primal"])
def test_pairwise_costs_equal_explicit(rng, cost, solver):
    m = 24
    X = rng.normal(size=(m, 4))
    pairs = rng.integers(0, m, size=(70, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    mag = rng.random(len(pairs)) + 0.2
    wts = rng.random(len(pairs)) + 0.5
    z = {"magnitude": mag, "discrete": np.ones(len(pairs)), "weighted": mag}[cost]
    w = (1.0 / mag if cost == "weighted" else np.ones(len(pairs))) * wts
    kw = GK if solver == "dual" else {}
    F = kernel_features(X) if solver == "dual" else X
    model = PairwiseRankRLS(alpha=1.0, cost=cost, solver=solver, **kw).fit(X, pairs=pairs, magnitudes=mag, weights=wts)
    path = model.predict_path(X, LAMS)
    for k, lam in enumerate(LAMS):
        ref = direct_minimizer(F, pairs, z, w, lam, F)
        one = PairwiseRankRLS(alpha=lam, cost=cost, solver=solver, **kw).fit(X, pairs=pairs, magnitudes=mag, weights=wts)
        tol = 1e-8 if lam >= 2.0 ** -10 else 1e-7     # LU of the non-symmetric L K + λI
        assert np.abs(one.predict(X) - ref).max() / np.abs(ref).max() < tol, lam
        few = PairwiseRankRLS(alpha=lam, cost=cost, solver=solver, **kw).fit(
            X, pairs=pairs[:15], magnitudes=mag[:15], weights=wts[:15])              # l < m: symmetric edge-space form
        ref15 = direct_minimizer(F, pairs[:15], z[:15], w[:15], lam, F)
        assert np.abs(few.predict(X) - ref15).max() / np.abs(ref15).max() < 1e-8, lam
        assert np.abs(path[k] - ref).max() / np.abs(ref).max() < 1e-8, lam


def test_global_is_pairwise_over_all_pairs(rng):
    X = rng.normal(size=(15, 3))
    y = rng.normal(size=15)
    pairs, z = explicit_pairs(y)
    g = GlobalRankRLS(alpha=0.3, **GK).fit(X, y)
    p = PairwiseRankRLS(alpha=0.3, **GK).fit(X, pairs=pairs, magnitudes=z)
    np.testing.assert_allclose(g.predict(X), p.predict(X), rtol=1e-8, atol=1e-10)


def test_rankrls_bad_input(rng):
    X = rng.normal(size=(10, 3))
    y = rng.normal(size=10)
    with pytest.raises(InvalidInputError):
        QueryRankRLS().fit(X, y, np.zeros(9))
    with pytest.raises(InvalidInputError):
        QueryRankRLS().fit(X, y)
    with pytest.raises(InvalidInputError):
        QueryRankRLS().fit(X, y, np.array([0.0] * 9 + [np.nan]))
    with pytest.raises(InvalidInputError):
        GlobalRankRLS().fit(X, np.r_[y[:-1], np.nan])
    with pytest.raises(InvalidInputError):
        PairwiseRankRLS().fit(X, pairs=np.array([[0, 10]]))
    with pytest.raises(InvalidInputError):
        PairwiseRankRLS(cost="weighted").fit(X, pairs=np.array([[0, 1]]),
                                              magnitudes=np.array([0.0]))
    with pytest.raises(InvalidInputError):
        PairwiseRankRLS().fit(X, pairs=np.array([[0, 1]]), magnitudes=np.array([1.0, 2.0]))
    with pytest.raises(InvalidParameterError):
        PairwiseRankRLS(cost="hinge").fit(X, pairs=np.array([[0, 1]]))
    single = QueryRankRLS().fit(X, y, np.zeros(10))
    with pytest.raises(InvalidInputError, match="2 queries"):
        single.leave_query_out()


def test_precomputed_kernel_rankers(rng):
    X = rng.normal(size=(20, 3))
    y = rng.normal(size=20)
    q = rng.integers(0, 3, size=20)
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    Kc = K.copy()
    for cls, args in ((GlobalRankRLS, ()), (QueryRankRLS, (q,))):
        a = cls(alpha=0.7, **GK).fit(X, y, *args)
        b = cls(alpha=0.7, kernel="precomputed").fit(K, y, *args)
        np.testing.assert_allclose(b.predict(K[:5]), a.predict(X[:5]), rtol=1e-10)
        assert b.__sklearn_tags__().input_tags.pairwise
    g = GlobalRankRLS(alpha=0.7, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(g.leave_one_out(), GlobalRankRLS(alpha=0.7, **GK).fit(X, y)
                               .leave_one_out(), rtol=1e-9)
    np.testing.assert_array_equal(K, Kc)                # the caller's matrix is untouched


def test_pairwise_cost_is_a_constructor_parameter_only(rng):
    """Every hyper-parameter lives in __init__ (visible to clone); fit takes none."""
    X = rng.normal(size=(12, 3))
    pairs = np.array([[0, 1], [2, 3], [4, 5], [1, 6]])
    mag = np.array([0.5, 2.0, 1.0, 3.0])
    a = PairwiseRankRLS(cost="weighted").fit(X, pairs=pairs, magnitudes=mag)
    b = clone(a).fit(X, pairs=pairs, magnitudes=mag)
    np.testing.assert_allclose(a.predict(X), b.predict(X))
    assert b.cost == "weighted"
    with pytest.raises(TypeError):
        PairwiseRankRLS().fit(X, pairs=pairs, magnitudes=mag, cost="weighted")


@pytest.mark.parametrize("use_queries", [False, True])
@pytest.mark.parametrize("cost", ["magnitude", "discrete", "weighted"])
def test_pairwise_from_scores_equals_explicit_graph(rng, use_queries, cost):
    """fit(X, y, qids) builds every pair with different scores (inside queries)."""
    m = 30
    X = rng.normal(size=(m, 3))
    y = rng.integers(0, 4, size=m).astype(float)          # many ties: they give no pair
    q = rng.integers(0, 4, size=m) if use_queries else None
    same = np.ones((m, m), bool) if q is None else np.equal.outer(q, q)
    i, j = np.nonzero((np.subtract.outer(y, y) > 0) & same)
    explicit = PairwiseRankRLS(alpha=0.5, cost=cost, **GK).fit(
        X, pairs=np.column_stack([i, j]), magnitudes=y[i] - y[j])
    built = PairwiseRankRLS(alpha=0.5, cost=cost, **GK).fit(X, y, q)
    assert built.n_pairs_ == i.size
    np.testing.assert_allclose(built.predict(X), explicit.predict(X), rtol=1e-9, atol=1e-12)
    assert built.score(X, y, q) == pytest.approx(cindex(y, built.predict(X), q))


def test_pairwise_fit_contract_errors(rng):
    X = rng.normal(size=(10, 3))
    y = np.arange(10.0)
    with pytest.raises(InvalidInputError, match="max_pairs"):
        PairwiseRankRLS(max_pairs=44).fit(X, y)            # 45 pairs
    assert PairwiseRankRLS(max_pairs=45).fit(X, y).n_pairs_ == 45
    with pytest.raises(InvalidInputError, match="pairs="):
        PairwiseRankRLS().fit(X, np.array([[0, 1], [2, 3]] * 5))   # old positional form
    with pytest.raises(InvalidInputError, match="not both"):
        PairwiseRankRLS().fit(X, y, pairs=np.array([[0, 1]]))
    with pytest.raises(InvalidInputError, match="requires y"):
        PairwiseRankRLS().fit(X)
    with pytest.raises(InvalidInputError, match="different scores"):
        PairwiseRankRLS().fit(X, np.ones(10))
    with pytest.raises(InvalidInputError, match="qids"):
        PairwiseRankRLS().fit(X, qids=np.zeros(10), pairs=np.array([[0, 1]]))
    with pytest.raises(InvalidParameterError, match="max_pairs"):
        PairwiseRankRLS(max_pairs=0).fit(X, y)


@pytest.mark.parametrize("solver", ["dual", "primal"])
def test_pairwise_multiple_outputs_equal_separate_fits(rng, solver):
    X = rng.normal(size=(16, 3))
    pairs = rng.integers(0, 16, size=(40, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    mags = rng.random((len(pairs), 2)) + 0.1
    kw = GK if solver == "dual" else {}
    both = PairwiseRankRLS(alpha=0.4, solver=solver, **kw).fit(X, pairs=pairs, magnitudes=mags)
    hb = both.holdout([2, 5], alphas=[0.1, 3.0])
    for t in range(2):
        one = PairwiseRankRLS(alpha=0.4, solver=solver, **kw).fit(X, pairs=pairs, magnitudes=mags[:, t])
        np.testing.assert_allclose(both.predict(X)[:, t], one.predict(X), rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(hb[..., t], one.holdout([2, 5], alphas=[0.1, 3.0]),
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("use_queries", [False, True])
@pytest.mark.slow
def test_single_fit_stable_on_ill_conditioned_kernel(use_queries):
    """cond(K) ~ 1e20 and alpha = 2^-15: the Cholesky fit must agree with the eigen path.

    Regression test: rounding left a per-query constant in the dual coefficients that the
    kernel turned into score errors of the size of the scores themselves.
    """
    from learners import QueryRankRLS

    rng = np.random.default_rng(3)
    x = np.sort(rng.uniform(-4, 4, size=(300, 1)), axis=0)
    y = np.sinc(x[:, 0]) + 0.5 * rng.normal(size=300)
    xt = rng.uniform(-4, 4, size=(200, 1))
    alpha = 2.0 ** -15
    if use_queries:
        qids = rng.integers(0, 5, size=300)
        model = QueryRankRLS(alpha=alpha, kernel="gaussian", gamma=0.1).fit(x, y, qids)
    else:
        model = GlobalRankRLS(alpha=alpha, kernel="gaussian", gamma=0.1).fit(x, y)
    direct, path = model.predict(xt), model.predict_path(xt, [alpha])[0]
    assert np.abs(direct - path).max() <= 1e-5 * np.abs(path).max()
