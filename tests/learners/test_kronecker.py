"""Kronecker RLS / conditional RankRLS: every fast path against explicit edge-kernel solves."""

import numpy as np
import pytest
from sklearn.base import clone

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix
from learners.kronecker import KronRankRLS, KronRLS

ALPHAS = [2.0 ** -15, 2.0 ** -3, 1.0, 2.0 ** 6, 2.0 ** 15]


def explicit_edge_kernel(Ka, Kb, Ea, Eb, pairwise):
    """Edge kernel between edge lists Ea (rows) and Eb, from node kernels Ka=k(Va,Vb)."""
    s, t = Ea[:, 0], Ea[:, 1]
    u, w = Eb[:, 0], Eb[:, 1]
    G = Ka[np.ix_(s, u)] * Kb[np.ix_(t, w)]
    if pairwise == "kronecker":
        return G
    swap = Ka[np.ix_(s, w)] * Kb[np.ix_(t, u)]
    return (G + swap) / 2 if pairwise == "symmetric" else (G - swap) / 2


def explicit_laplacian(starts):
    n = len(starts)
    L = np.zeros((n, n))
    for g in np.unique(starts):
        idx = np.flatnonzero(starts == g)
        L[np.ix_(idx, idx)] = np.eye(len(idx)) - 1.0 / len(idx)
    return L


def brute_force(K, Kt, edges, y, test_edges, alpha, pairwise, ranking, K_end=None, Kt_end=None):
    K_end = K if K_end is None else K_end
    Kt_end = Kt if Kt_end is None else Kt_end
    G = explicit_edge_kernel(K, K_end, edges, edges, pairwise)
    L = explicit_laplacian(edges[:, 0]) if ranking else np.eye(len(y))
    a = np.linalg.solve(L @ G + alpha * np.eye(len(y)), L @ y)
    # test edges: start from Kt (test x train), end from Kt_end
    s, t = test_edges[:, 0], test_edges[:, 1]
    u, w = edges[:, 0], edges[:, 1]
    Gt = Kt[np.ix_(s, u)] * Kt_end[np.ix_(t, w)]
    if pairwise != "kronecker":
        swap = Kt[np.ix_(s, w)] * Kt_end[np.ix_(t, u)]
        Gt = (Gt + swap) / 2 if pairwise == "symmetric" else (Gt - swap) / 2
    return Gt @ a


def all_pairs(m, m_end=None):
    m_end = m if m_end is None else m_end
    r, c = np.meshgrid(np.arange(m), np.arange(m_end), indexing="ij")
    return np.column_stack([r.ravel(), c.ravel()])


def assert_close(fast, brute, rtol=1e-8):
    scale = max(np.abs(brute).max(), 1e-300)
    np.testing.assert_allclose(fast, brute, rtol=rtol, atol=rtol * scale)


@pytest.fixture
def nodes(rng):
    X = rng.normal(size=(7, 3))
    Xt = rng.normal(size=(4, 3))
    return X, Xt


@pytest.mark.parametrize("kernel,params", [("gaussian", {"gamma": 0.4}), ("linear", {})])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_kronrls_closed_form_equals_explicit(nodes, rng, kernel, params, alpha):
    X, Xt = nodes
    m = len(X)
    Y = rng.normal(size=(m, m))
    model = KronRLS(alpha=alpha, kernel=kernel, **params).fit(X, Y)
    assert model.solver_ == "closed_form"
    K = kernel_matrix(X, X, kernel, **params)
    Kt = kernel_matrix(Xt, X, kernel, **params)
    E = all_pairs(m)
    brute = brute_force(K, Kt, E, Y.ravel(), all_pairs(len(Xt)), alpha, "kronecker", False)
    assert_close(model.predict(Xt).ravel(), brute)
    # edge-list prediction interface gives the same numbers
    te = all_pairs(len(Xt))[::3]
    assert_close(model.predict(Xt, edges=te), brute[::3])


@pytest.mark.parametrize("alpha", ALPHAS)
def test_kronrankrls_closed_form_equals_explicit(nodes, rng, alpha):
    X, Xt = nodes
    m = len(X)
    Y = rng.normal(size=(m, m))
    for kernel, params in [("gaussian", {"gamma": 0.4}), ("linear", {})]:
        model = KronRankRLS(alpha=alpha, kernel=kernel, **params).fit(X, Y)
        assert model.solver_ == "closed_form"
        K = kernel_matrix(X, X, kernel, **params)
        Kt = kernel_matrix(Xt, X, kernel, **params)
        brute = brute_force(K, Kt, all_pairs(m), Y.ravel(), all_pairs(len(Xt)), alpha,
                            "kronecker", True)
        assert_close(model.predict(Xt).ravel(), brute)


@pytest.mark.parametrize("estimator", [KronRLS, KronRankRLS])
def test_two_domain_closed_form(rng, estimator):
    X1, X2 = rng.normal(size=(5, 3)), rng.normal(size=(6, 2))
    T1, T2 = rng.normal(size=(3, 3)), rng.normal(size=(4, 2))
    Y = rng.normal(size=(5, 6))
    model = estimator(alpha=0.7, kernel="gaussian", gamma=0.5).fit(X1, Y, X_end=X2)
    K1, K2 = kernel_matrix(X1, X1, "gaussian", gamma=0.5), kernel_matrix(X2, X2, "gaussian", gamma=0.5)
    Kt1, Kt2 = kernel_matrix(T1, X1, "gaussian", gamma=0.5), kernel_matrix(T2, X2, "gaussian", gamma=0.5)
    brute = brute_force(K1, Kt1, all_pairs(5, 6), Y.ravel(), all_pairs(3, 4), 0.7, "kronecker",
                        estimator is KronRankRLS, K_end=K2, Kt_end=Kt2)
    assert_close(model.predict(T1, X_end=T2).ravel(), brute)


@pytest.mark.parametrize("pairwise", ["symmetric", "reciprocal"])
@pytest.mark.parametrize("alpha", [2.0 ** -10, 1.0, 2.0 ** 10])
def test_symmetric_reciprocal_closed_form_prop_4_7(nodes, rng, pairwise, alpha):
    X, Xt = nodes
    m = len(X)
    Y = rng.normal(size=(m, m))
    model = KronRLS(alpha=alpha, kernel="gaussian", gamma=0.3, pairwise=pairwise).fit(X, Y)
    assert model.solver_ == "closed_form"
    K = kernel_matrix(X, X, "gaussian", gamma=0.3)
    Kt = kernel_matrix(Xt, X, "gaussian", gamma=0.3)
    brute = brute_force(K, Kt, all_pairs(m), Y.ravel(), all_pairs(len(Xt)), alpha, pairwise,
                        False)
    F = model.predict(Xt)
    assert_close(F.ravel(), brute)
    sign = 1 if pairwise == "symmetric" else -1
    assert_close(F, sign * F.T)


@pytest.mark.parametrize("pairwise", ["kronecker", "symmetric", "reciprocal"])
@pytest.mark.parametrize("estimator", [KronRLS, KronRankRLS])
@pytest.mark.parametrize("alpha", [2.0 ** -6, 1.0, 2.0 ** 6])
def test_cg_incomplete_graph_equals_explicit(nodes, rng, pairwise, estimator, alpha):
    X, Xt = nodes
    m = len(X)
    edges = rng.integers(0, m, size=(30, 2))
    edges[:3] = edges[3:6]                       # repeated edges are allowed
    y = rng.normal(size=30)
    model = estimator(alpha=alpha, kernel="gaussian", gamma=0.4, pairwise=pairwise,
                      solver="cg", tol=1e-14, max_iter=2000).fit(X, y, edges=edges)
    K = kernel_matrix(X, X, "gaussian", gamma=0.4)
    Kt = kernel_matrix(Xt, X, "gaussian", gamma=0.4)
    te = all_pairs(len(Xt))
    brute = brute_force(K, Kt, edges, y, te, alpha, pairwise, estimator is KronRankRLS)
    assert_close(model.predict(Xt, edges=te), brute, rtol=1e-7)
    # also predictions for training nodes (settings 1-3)
    brute_train = brute_force(K, K, edges, y, edges, alpha, pairwise, estimator is KronRankRLS)
    assert_close(model.predict(X, edges=edges), brute_train, rtol=1e-7)


def test_cg_complete_graph_matches_closed_form(nodes, rng):
    X, Xt = nodes
    Y = rng.normal(size=(7, 7))
    for est in (KronRLS, KronRankRLS):
        a = est(alpha=0.5, kernel="gaussian", gamma=0.2).fit(X, Y)
        b = est(alpha=0.5, kernel="gaussian", gamma=0.2, solver="cg", tol=1e-14,
                max_iter=1000).fit(X, Y)
        assert b.solver_ == "cg" and a.solver_ == "closed_form"
        assert_close(b.predict(Xt), a.predict(Xt), rtol=1e-7)


def test_symmetric_ranking_complete_graph_uses_cg(nodes, rng):
    X, _ = nodes
    Y = rng.normal(size=(7, 7))
    model = KronRankRLS(alpha=1.0, pairwise="symmetric", kernel="gaussian").fit(X, Y)
    assert model.solver_ == "cg"
    with pytest.raises(InvalidParameterError, match="no closed form"):
        KronRankRLS(alpha=1.0, pairwise="symmetric", solver="closed_form").fit(X, Y)


def test_early_stopping_limits_iterations(nodes, rng):
    X, _ = nodes
    edges = rng.integers(0, 7, size=(40, 2))
    y = rng.normal(size=40)
    model = KronRankRLS(alpha=0.0, solver="cg", max_iter=3, kernel="gaussian").fit(
        X, y, edges=edges)
    assert model.n_iter_ <= 3
    with pytest.raises(InvalidParameterError, match="max_iter"):
        KronRankRLS(alpha=0.0, solver="cg").fit(X, y, edges=edges)


@pytest.mark.parametrize("kernel,params", [("gaussian", {"gamma": 0.5}), ("linear", {})])
@pytest.mark.parametrize("alpha", ALPHAS)
def test_leave_one_edge_out_equals_retraining(rng, alpha, kernel, params):
    X = rng.normal(size=(4, 2))
    Y = rng.normal(size=(4, 4))
    model = KronRLS(alpha=alpha, kernel=kernel, **params).fit(X, Y)
    loo = model.leave_one_out()
    K = kernel_matrix(X, X, kernel, **params)
    E, y = all_pairs(4), Y.ravel()
    G = explicit_edge_kernel(K, K, E, E, "kronecker")
    expected = np.empty(len(y))
    for e in range(len(y)):
        keep = np.arange(len(y)) != e
        a = np.linalg.solve(G[np.ix_(keep, keep)] + alpha * np.eye(len(y) - 1), y[keep])
        expected[e] = G[e, keep] @ a
    assert_close(loo.ravel(), expected, rtol=1e-7)


def test_precomputed_kernel_equals_feature_kernel(nodes, rng):
    X, Xt = nodes
    Y = rng.normal(size=(7, 7))
    K = kernel_matrix(X, X, "gaussian", gamma=0.4)
    Kt = kernel_matrix(Xt, X, "gaussian", gamma=0.4)
    a = KronRankRLS(alpha=0.3, kernel="gaussian", gamma=0.4).fit(X, Y).predict(Xt)
    b = KronRankRLS(alpha=0.3, kernel="precomputed").fit(K, Y).predict(Kt)
    assert_close(b, a)


def test_validation_and_sklearn_conventions(nodes, rng):
    X, _ = nodes
    Y = rng.normal(size=(7, 7))
    with pytest.raises(InvalidParameterError, match="pairwise"):
        KronRLS(pairwise="kron").fit(X, Y)
    with pytest.raises(InvalidParameterError, match="alpha"):
        KronRLS(alpha=-1.0).fit(X, Y)
    with pytest.raises(InvalidParameterError):
        KronRLS(kernel="linear", gamma=0.5).fit(X, Y)
    Ybad = Y.copy()
    Ybad[0, 0] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        KronRLS().fit(X, Ybad)
    with pytest.raises(InvalidInputError, match="shape"):
        KronRLS().fit(X, Y[:3])
    with pytest.raises(InvalidInputError, match="outside"):
        KronRLS().fit(X, np.ones(2), edges=np.array([[0, 1], [0, 9]]))
    with pytest.raises(InvalidParameterError, match="X_end"):
        KronRLS(pairwise="symmetric").fit(X, Y, X_end=X)
    model = KronRLS(alpha=2.0, pairwise="reciprocal", max_iter=5)
    clone_ = clone(model)
    assert clone_.get_params() == model.get_params()
    assert not hasattr(clone_, "dual_coef_")


@pytest.mark.parametrize("estimator", [KronRLS, KronRankRLS])
def test_predict_path_equals_refits(nodes, rng, estimator):
    X, Xt = nodes
    Y = rng.normal(size=(7, 7))
    alphas = [2.0 ** -12, 2.0 ** -2, 1.0, 2.0 ** 9]
    model = estimator(alpha=1.0, kernel="gaussian", gamma=0.4).fit(X, Y)
    path = model.predict_path(Xt, alphas)
    te = np.array([[0, 1], [3, 2], [1, 1]])
    path_e = model.predict_path(Xt, alphas, edges=te)
    for k, a in enumerate(alphas):
        ref = estimator(alpha=a, kernel="gaussian", gamma=0.4).fit(X, Y)
        assert_close(path[k], ref.predict(Xt))
        assert_close(path_e[k], ref.predict(Xt, edges=te))
    with pytest.raises(InvalidParameterError, match="closed form"):
        estimator(alpha=1.0, solver="cg").fit(X, Y).predict_path(Xt, alphas)


def test_leave_one_out_path_equals_single_alpha_fits(rng):
    X = rng.normal(size=(6, 2))
    Y = rng.normal(size=(6, 6))
    alphas = [2.0 ** -15, 2.0 ** -3, 2.0 ** 4, 2.0 ** 15]
    path = KronRLS(alpha=1.0, kernel="linear").fit(X, Y).leave_one_out(alphas)
    for k, a in enumerate(alphas):
        assert_close(path[k], KronRLS(alpha=a, kernel="linear").fit(X, Y).leave_one_out())
