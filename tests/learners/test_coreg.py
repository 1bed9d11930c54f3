"""CoRLS / CoRankRLS: the dual closed form against the joint objective solved in the primal
with explicit feature maps and explicit pairs (independent of the Laplacian algebra)."""

import itertools

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.kernel_ridge import KernelRidge

from learners.coreg import CoRankRLS, CoRLS
from kernelrank.errors import InvalidInputError, InvalidParameterError

ALPHAS = [2.0 ** -15, 2.0 ** -4, 1.0, 2.0 ** 5, 2.0 ** 15]
POLY = {"kernel": "polynomial", "degree": 2, "gamma": 0.5, "coef0": 1.0}


def poly2_features(X, gamma=0.5, coef0=1.0):
    """Explicit map of (gamma <x,z> + coef0)^2."""
    quad = gamma * np.einsum("ni,nj->nij", X, X).reshape(len(X), -1)
    return np.hstack([np.full((len(X), 1), coef0), np.sqrt(2 * gamma * coef0) * X, quad])


def pair_matrix(qids):
    """One row (+1, -1) per unordered pair inside a query; identity if qids is None."""
    if qids is None:
        return None
    rows = []
    for i, j in itertools.combinations(range(len(qids)), 2):
        if qids[i] == qids[j]:
            r = np.zeros(len(qids))
            r[i], r[j] = 1.0, -1.0
            rows.append(r)
    return np.array(rows)


def primal_solve(PhiL, PhiU, y, alphas, mu, qids=None, qids_u=None, basis=None):
    """Minimise the joint objective by least squares on stacked residual blocks.

    Variables: per view w_v (or a_v with w_v = Phi_Bᵀ a_v when ``basis`` Phi_B is given).
    """
    M = len(PhiL)
    maps = [np.eye(P.shape[1]) if basis is None else basis[v].T for v, P in enumerate(PhiL)]
    sizes = [T.shape[1] for T in maps]
    off = np.concatenate([[0], np.cumsum(sizes)])
    PL = pair_matrix(qids)
    PU = pair_matrix(qids_u)
    L_op = (lambda A: A) if PL is None else (lambda A: PL @ A)
    U_op = (lambda A: A) if PU is None else (lambda A: PU @ A)
    blocks, rhs = [], []
    for v in range(M):
        B = np.zeros((L_op(PhiL[v]).shape[0], off[-1]))
        B[:, off[v]:off[v + 1]] = L_op(PhiL[v] @ maps[v])
        blocks.append(B)
        rhs.append(L_op(y))
        R = np.zeros((maps[v].shape[0], off[-1]))
        R[:, off[v]:off[v + 1]] = np.sqrt(alphas[v]) * maps[v]
        blocks.append(R)
        rhs.append(np.zeros(maps[v].shape[0]))
    for u, v in itertools.combinations(range(M), 2):
        D = np.zeros((U_op(PhiU[u]).shape[0], off[-1]))
        D[:, off[u]:off[u + 1]] = np.sqrt(mu) * U_op(PhiU[u] @ maps[u])
        D[:, off[v]:off[v + 1]] = -np.sqrt(mu) * U_op(PhiU[v] @ maps[v])
        blocks.append(D)
        rhs.append(np.zeros(D.shape[0]))
    sol = np.linalg.lstsq(np.vstack(blocks), np.concatenate(rhs), rcond=None)[0]
    return [maps[v] @ sol[off[v]:off[v + 1]] for v in range(M)]


@pytest.fixture
def views(rng):
    m, n, t = 12, 15, 6
    Z = rng.normal(size=(m + n + t, 4))
    V1 = Z[:, :2] + 0.1 * rng.normal(size=(m + n + t, 2))
    V2 = Z[:, 2:] + 0.1 * rng.normal(size=(m + n + t, 2))
    V3 = Z[:, [0, 3]]
    y = Z[:m].sum(1) + 0.2 * rng.normal(size=m)
    split = lambda V: (V[:m], V[m:m + n], V[m + n:])  # noqa: E731
    return [split(V) for V in (V1, V2, V3)], y


def _assert_close(a, b, rtol=1e-8):
    np.testing.assert_allclose(a, b, rtol=rtol, atol=rtol * np.abs(b).max())


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("mu", [0.0, 2.0 ** -5, 1.0, 2.0 ** 8])
def test_corls_equals_primal_joint_objective(views, alpha, mu):
    vs, y = views
    specs = [{}, POLY, {}]
    feats = [lambda X: X, poly2_features, lambda X: X]
    model = CoRLS(alpha=alpha, mu=mu, views=specs).fit(
        [v[0] for v in vs], y, [v[1] for v in vs])
    PhiL = [f(v[0]) for f, v in zip(feats, vs)]
    PhiU = [f(v[1]) for f, v in zip(feats, vs)]
    W = primal_solve(PhiL, PhiU, y, [alpha] * 3, mu)
    expected = np.column_stack([f(v[2]) @ w for f, v, w in zip(feats, vs, W)])
    _assert_close(model.predict_views([v[2] for v in vs]), expected)
    _assert_close(model.predict([v[2] for v in vs]), expected.mean(1))


@pytest.mark.parametrize("alpha", [2.0 ** -10, 1.0, 2.0 ** 10])
@pytest.mark.parametrize("pairwise_unlabelled", [False, True])
def test_corankrls_equals_primal_with_explicit_pairs(views, rng, alpha, pairwise_unlabelled):
    vs, y = views
    qids = np.repeat([0, 1, 2], 4)
    qids_u = np.repeat([5, 6, 7], 5) if pairwise_unlabelled else None
    alphas = [alpha, 2 * alpha]
    model = CoRankRLS(alpha=alphas, mu=0.7, views=[{}, POLY]).fit(
        [vs[0][0], vs[1][0]], y, qids, [vs[0][1], vs[1][1]], qids_unlabelled=qids_u)
    feats = [lambda X: X, poly2_features]
    W = primal_solve([f(v[0]) for f, v in zip(feats, vs)],
                     [f(v[1]) for f, v in zip(feats, vs)], y, alphas, 0.7, qids, qids_u)
    expected = np.column_stack([f(v[2]) @ w for f, v, w in zip(feats, vs, W)])
    got = model.predict_views([vs[0][2], vs[1][2]])
    # the ranking loss does not fix a per-view offset only if a view has a constant
    # feature (poly: coef0); the regulariser fixes it, so compare the values directly
    _assert_close(got, expected)


@pytest.mark.parametrize("estimator", ["CoRLS", "CoRankRLS"])
@pytest.mark.parametrize("alpha", [2.0 ** -8, 1.0, 2.0 ** 8])
def test_sparse_variant_equals_primal_restricted_to_basis(views, estimator, alpha):
    vs, y = views
    qids = np.repeat([0, 1, 2], 4)
    Xl, Xu = [vs[0][0], vs[1][0]], [vs[0][1], vs[1][1]]
    kwargs = dict(alpha=alpha, mu=1.5, views=[{}, POLY], n_basis=7, random_state=3)
    if estimator == "CoRLS":
        model = CoRLS(**kwargs).fit(Xl, y, Xu)
        q = None
    else:
        model = CoRankRLS(**kwargs).fit(Xl, y, qids, Xu)
        q = qids
    assert len(model.basis_indices_) == 7
    feats = [lambda X: X, poly2_features]
    basis = [f(np.vstack([l, u])[model.basis_indices_]) for f, l, u in zip(feats, Xl, Xu)]
    W = primal_solve([f(x) for f, x in zip(feats, Xl)], [f(x) for f, x in zip(feats, Xu)], y,
                     [alpha] * 2, 1.5, q, None, basis=basis)
    expected = np.column_stack([f(v[2]) @ w for f, v, w in zip(feats, vs, W)])
    _assert_close(model.predict_views([vs[0][2], vs[1][2]]), expected, rtol=1e-7)


def test_single_view_is_kernel_ridge(views):
    vs, y = views
    X, Xt = vs[0][0], vs[0][2]
    for alpha in (2.0 ** -6, 1.0, 2.0 ** 6):
        ours = CoRLS(alpha=alpha, mu=3.0, views=[{"kernel": "gaussian", "gamma": 0.7}]).fit(
            [X], y, [vs[0][1]]).predict([Xt])
        ref = KernelRidge(alpha=alpha, kernel="rbf", gamma=0.7).fit(X, y).predict(Xt)
        _assert_close(ours, ref)


def test_large_mu_makes_views_agree_on_unlabelled(views):
    vs, y = views
    Xl, Xu = [v[0] for v in vs], [v[1] for v in vs]
    spread = []
    for mu in (0.0, 1.0, 1e4):
        P = CoRLS(alpha=1.0, mu=mu).fit(Xl, y, Xu).predict_views(Xu)
        spread.append(np.abs(P - P.mean(1, keepdims=True)).max())
    assert spread[0] > spread[1] > spread[2]
    assert spread[2] < 1e-2 * spread[0]


def test_validation_and_conventions(views):
    vs, y = views
    Xl, Xu = [v[0] for v in vs], [v[1] for v in vs]
    with pytest.raises(InvalidParameterError, match="alpha"):
        CoRLS(alpha=[1.0, 2.0]).fit(Xl, y, Xu)
    with pytest.raises(InvalidParameterError, match="views"):
        CoRLS(views=[{}, {}]).fit(Xl, y, Xu)
    with pytest.raises(InvalidParameterError, match="keys"):
        CoRLS(views=[{"kernal": "linear"}, {}, {}]).fit(Xl, y, Xu)
    with pytest.raises(InvalidParameterError):
        CoRLS(views=[{"kernel": "linear", "gamma": 1.0}, {}, {}]).fit(Xl, y, Xu)
    with pytest.raises(InvalidParameterError, match="mu"):
        CoRLS(mu=-1).fit(Xl, y, Xu)
    with pytest.raises(InvalidInputError, match="rows"):
        CoRLS().fit([Xl[0], Xl[1][:5], Xl[2]], y, Xu)
    with pytest.raises(InvalidInputError, match="views"):
        CoRLS().fit(Xl, y, Xu[:2])
    bad = Xl[0].copy()
    bad[0, 0] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        CoRLS().fit([bad, Xl[1], Xl[2]], y, Xu)
    with pytest.raises(InvalidInputError, match="qids"):
        CoRankRLS().fit(Xl, y, np.zeros(3), Xu)
    model = CoRankRLS(alpha=[1.0, 2.0, 3.0], mu=0.5, n_basis=5, random_state=1)
    c = clone(model)
    assert c.get_params() == model.get_params()
    # no unlabelled data: views are independent
    CoRLS().fit(Xl, y)


@pytest.mark.parametrize("estimator", ["corls", "corankrls"])
def test_predict_path_equals_refitting_every_grid_point(views, rng, estimator):
    """The (α, μ) grid from one fit's cached system = a fresh fit at every grid point,
    over α = 1e-6 … 1e6 (ill-conditioned at the small end) and μ = 0 … 100."""
    from learners.coreg import CoRankRLS, CoRLS

    parts, y = views
    X, U, Xt = ([p[k] for p in parts[:2]] for k in range(3))
    alphas, mus = (1e-6, 1e-2, 1.0, 1e3, 1e6), (0.0, 0.1, 100.0)
    kw = dict(n_basis=20, random_state=1, views=[{"kernel": "gaussian", "gamma": 0.5}] * 2)
    if estimator == "corls":
        make = lambda a, mu: CoRLS(alpha=a, mu=mu, **kw)  # noqa: E731
        fit = lambda est: est.fit(X, y, U)  # noqa: E731
    else:
        qids = rng.integers(0, 3, len(y))
        uq = rng.integers(0, 3, U[0].shape[0])
        make = lambda a, mu: CoRankRLS(alpha=a, mu=mu, **kw)  # noqa: E731
        fit = lambda est: est.fit(X, y, qids, U, qids_unlabelled=uq)  # noqa: E731
    path = fit(make(1.0, 1.0)).predict_path(Xt, alphas, mus)
    for i, a in enumerate(alphas):
        for j, mu in enumerate(mus):
            ref = fit(make(a, mu)).predict(Xt)
            np.testing.assert_allclose(path[i, j], ref, rtol=1e-8,
                                       atol=1e-10 * max(np.abs(ref).max(), 1e-300))
