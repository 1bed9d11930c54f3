"""Squared-hinge RankSVM (TRON): objective, gradient and Hessian-vector product against
explicit pairs; the solution against L-BFGS on explicit pairs; optimality over a wide C
range; warm-started C paths; sparse input; estimator conventions."""

import itertools
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

import learners.ranksvm as ranksvm
from kernelrank.errors import InvalidParameterError
from learners.measures import mean_average_precision
from learners.ranksvm import ActivePairs, QueryStructure, RankSVM, pairwise_squared_hinge
from learners.selection import Channels, Scoring, Search, ValidationSet, select


def _pairs(y, qids):
    """(upper, lower) index arrays of every pair with y_upper > y_lower in one query."""
    P = [(i, j) for i, j in itertools.permutations(range(len(y)), 2)
         if qids[i] == qids[j] and y[i] > y[j]]
    return np.array(P, dtype=int).reshape(-1, 2).T


def _explicit(f, y, qids, u=None):
    """Loss, gradient in f and (with u) the generalized Hessian product, pair by pair."""
    i, j = _pairs(y, qids)
    r = 1.0 - f[i] + f[j]
    act = r > 0
    i, j, r = i[act], j[act], r[act]
    grad = np.zeros(len(f))
    np.add.at(grad, i, -2 * r)
    np.add.at(grad, j, 2 * r)
    if u is None:
        return float(r @ r), grad
    hu = np.zeros(len(f))
    np.add.at(hu, i, 2 * (u[i] - u[j]))
    np.add.at(hu, j, -2 * (u[i] - u[j]))
    return float(r @ r), grad, hu


def _problem(rng, m=90, n=6, levels=3, n_queries=4, scales=None):
    X = rng.normal(size=(m, n))
    if scales is not None:
        X = X * scales
    y = rng.integers(0, levels, size=m).astype(float)
    qids = rng.integers(0, n_queries, size=m) * 7 + 3
    return X, y, qids


def _objective_and_grad(w, X, y, qids, C):
    loss, gf = _explicit(X @ w, y, qids)
    return 0.5 * w @ w + C * loss, w + C * X.T @ gf


@pytest.mark.parametrize("levels,n_queries,round_to", [
    (2, 1, None), (3, 4, None), (5, 3, 1), (5, 6, 0), (16, 2, None), (17, 2, None),
    (40, 2, None), (300, 1, 2)])
@pytest.mark.parametrize("method", ["levels", "bits"])
def test_loss_gradient_hessian_equal_explicit_pairs(rng, monkeypatch, levels, n_queries,
                                                    round_to, method):
    # both ways of splitting the label condition: a loop over the label levels (few
    # labels, the default up to LEVEL_LOOP_MAX_RANKS) and over the bits of the label rank
    monkeypatch.setattr(ranksvm, "LEVEL_LOOP_MAX_RANKS", 10 ** 6 if method == "levels" else 0)
    m = 160
    y = rng.integers(0, levels, size=m).astype(float)      # many tied labels
    qids = rng.integers(0, n_queries, size=m) * 5 - 2
    f = rng.normal(scale=1.5, size=m)
    if round_to is not None:    # many tied scores
        f = np.round(f, round_to)
    pairs = ActivePairs(f, QueryStructure(y, qids))
    loss, grad = pairs.loss_grad()
    u = rng.normal(size=m)
    ref_loss, ref_grad, ref_hu = _explicit(f, y, qids, u)
    assert loss == pytest.approx(ref_loss, rel=1e-10)
    np.testing.assert_allclose(grad, ref_grad, rtol=1e-9, atol=1e-9 * np.abs(ref_grad).max())
    if round_to is None:
        # (a pair exactly at the margin contributes 0 to loss and gradient but may count in
        # the generalized Hessian on either side; random scores have none)
        hu = pairs.hessian_product(u)
        np.testing.assert_allclose(hu, ref_hu, rtol=1e-9, atol=1e-9 * np.abs(ref_hu).max())
        i, j = _pairs(y, qids)
        assert pairs.n_active == int(np.sum(f[j] + 1.0 > f[i]))
    assert pairwise_squared_hinge(f, QueryStructure(y, qids))[0] == pytest.approx(loss)


def test_counts_and_sums_equal_explicit_pairs(rng):
    m = 120
    y = rng.integers(0, 6, size=m).astype(float)
    qids = rng.integers(0, 3, size=m)
    f, v = rng.normal(size=m), rng.normal(size=m)
    pairs = ActivePairs(f, QueryStructure(y, qids))
    l_up, l_low = pairs.counts()
    a_up, a_low = pairs.sums(v)
    i, j = _pairs(y, qids)
    act = f[j] + 1.0 > f[i]
    i, j = i[act], j[act]
    np.testing.assert_array_equal(l_up, np.bincount(i, minlength=m))
    np.testing.assert_array_equal(l_low, np.bincount(j, minlength=m))
    np.testing.assert_allclose(a_up, np.bincount(i, weights=v[j], minlength=m), atol=1e-12)
    np.testing.assert_allclose(a_low, np.bincount(j, weights=v[i], minlength=m), atol=1e-12)


def test_objective_gradient_and_hessian_of_J_against_finite_differences(rng):
    X, y, qids = _problem(rng)
    C = 0.3
    w = rng.normal(scale=0.3, size=X.shape[1])
    structure = QueryStructure(y, qids)
    pairs = ActivePairs(X @ w, structure)
    loss, gf = pairs.loss_grad()
    J, g = _objective_and_grad(w, X, y, qids, C)
    assert 0.5 * w @ w + C * loss == pytest.approx(J, rel=1e-12)
    np.testing.assert_allclose(w + C * X.T @ gf, g, rtol=1e-10)
    # the gradient is the derivative of J (central differences; J is C^1)
    eps = 1e-6
    num = [(_objective_and_grad(w + eps * e, X, y, qids, C)[0]
            - _objective_and_grad(w - eps * e, X, y, qids, C)[0]) / (2 * eps)
           for e in np.eye(len(w))]
    np.testing.assert_allclose(g, num, rtol=1e-6)
    # and the Hessian product the derivative of the gradient (no pair crosses the margin)
    d = rng.normal(size=len(w))
    Hd = d + C * X.T @ pairs.hessian_product(X @ d)
    num_Hd = (_objective_and_grad(w + 1e-7 * d, X, y, qids, C)[1]
              - _objective_and_grad(w - 1e-7 * d, X, y, qids, C)[1]) / 2e-7
    np.testing.assert_allclose(Hd, num_Hd, rtol=1e-5)


def _lbfgs_reference(X, y, qids, C):
    """The optimum by L-BFGS on explicit pair differences D (rows x_i - x_j)."""
    i, j = _pairs(y, qids)
    D = X[i] - X[j]

    def fun(w):
        r = np.maximum(1.0 - D @ w, 0.0)
        return 0.5 * w @ w + C * r @ r, w - 2 * C * D.T @ r

    res = minimize(fun, np.zeros(X.shape[1]), jac=True, method="L-BFGS-B",
                   options={"ftol": 1e-16, "gtol": 1e-13, "maxiter": 100000, "maxcor": 50})
    return res.x


@pytest.mark.parametrize("C,sparse", [(1e-3, False), (0.05, True), (1.0, False),
                                      (30.0, False)])
def test_fit_equals_lbfgs_on_explicit_pairs(rng, C, sparse):
    X, y, qids = _problem(rng, m=60, n=5)
    model = RankSVM(C=C, tol=1e-11, max_iter=200).fit(sp.csr_matrix(X) if sparse else X, y,
                                                      qids)
    assert model.converged_ and model.grad_norm_ <= 1e-11
    ref = _lbfgs_reference(X, y, qids, C)
    J, J_ref = (_objective_and_grad(w, X, y, qids, C)[0] for w in (model.coef_, ref))
    assert model.objective_ == pytest.approx(J, rel=1e-10)
    assert J <= J_ref * (1 + 1e-12)
    np.testing.assert_allclose(model.coef_, ref, rtol=1e-6, atol=1e-7 * np.abs(ref).max())


@pytest.mark.parametrize("C", [1e-6, 1e-4, 1e-2, 1.0, 1e2, 1e3])
@pytest.mark.parametrize("ill", [False, True])
def test_optimality_over_a_wide_C_range(rng, C, ill):
    # ill-conditioned: column scales over 6 orders of magnitude and two nearly equal columns
    scales = np.logspace(-3, 3, 6) if ill else None
    X, y, qids = _problem(rng, m=100, n=6, levels=4, scales=scales)
    if ill:
        X[:, 1] = X[:, 2] * (1 + 1e-6) + 1e-4 * rng.normal(size=len(y))
    model = RankSVM(C=C, tol=1e-8, max_iter=500).fit(X, y, qids)
    assert model.converged_
    _, g = _objective_and_grad(model.coef_, X, y, qids, C)
    _, g0 = _objective_and_grad(np.zeros(X.shape[1]), X, y, qids, C)
    # KKT: the (brute-force) gradient vanishes to the requested tolerance, as reported
    assert np.linalg.norm(g) <= 1e-8 * np.linalg.norm(g0) * (1 + 1e-3)
    assert model.grad_norm_ == pytest.approx(np.linalg.norm(g) / np.linalg.norm(g0), rel=1e-3,
                                             abs=1e-12)


def test_diagonal_preconditioner_and_sparse_input(rng, monkeypatch):
    X, y, qids = _problem(rng, m=80, n=7)
    X[rng.random(X.shape) < 0.6] = 0.0
    Xs = sp.csr_matrix(X)
    dense = RankSVM(C=0.2, tol=1e-10).fit(X, y, qids)
    model = RankSVM(C=0.2, tol=1e-10).fit(Xs, y, qids)
    assert sp.issparse(model._X) and model._precond.full   # no densified copy of X
    np.testing.assert_allclose(model.coef_, dense.coef_, rtol=1e-8)
    np.testing.assert_allclose(model.predict(Xs), X @ model.coef_, rtol=1e-12)
    monkeypatch.setattr(ranksvm, "FULL_PRECONDITIONER_MAX_FEATURES", 0)
    for data in (X, Xs):
        diag = RankSVM(C=0.2, tol=1e-10).fit(data, y, qids)
        assert not diag._precond.full
        np.testing.assert_allclose(diag.coef_, dense.coef_, rtol=1e-8)


def test_preconditioner_matrix_is_the_relevant_pair_laplacian(rng):
    X, y, qids = _problem(rng, m=50, n=4)
    i, j = _pairs(y, qids)
    D = X[i] - X[j]
    P = ranksvm.PairPreconditioner(X, QueryStructure(y, qids))
    A = (P.V * P.lam) @ P.V.T
    np.testing.assert_allclose(A, D.T @ D, rtol=1e-10, atol=1e-10 * np.abs(D.T @ D).max())


def test_C_path_is_warm_started_and_equals_independent_fits(rng):
    X, y, qids = _problem(rng, m=120, n=6, levels=4)
    Cs = np.array([10.0, 1e-3, 0.1, 1e-2])
    model = RankSVM(C=1e-3, tol=1e-10).fit(X, y, qids)
    path = model.coef_path(Cs)
    for C, w in zip(Cs, path):
        np.testing.assert_allclose(w, RankSVM(C=C, tol=1e-10).fit(X, y, qids).coef_, rtol=1e-7)
    assert set(model.path_) == set(Cs) and all(v["converged"] for v in model.path_.values())
    np.testing.assert_allclose(model.predict_path(X[:7], Cs), path @ X[:7].T)
    with pytest.raises(InvalidParameterError, match="Cs must be positive"):
        model.predict_path(X, [0.1, -1.0])


def test_selection_over_a_C_path_equals_one_fit_per_C(rng):
    X, y, qids = _problem(rng, m=150, n=6, levels=3, n_queries=10)
    Xv, yv, qv = _problem(rng, m=80, n=6, levels=3, n_queries=5)
    Cs = [1e-4, 1e-2, 1.0]

    def score(y_, p, q):
        return mean_average_precision(y_, p, q)
    kw = dict(cv=ValidationSet(Xv, yv, qv), scoring=Scoring(score, greater_is_better=True),
              channels=Channels(fit={"qids": qids}))
    est = RankSVM(tol=1e-10)
    by_path = select(est, X, y, search={"C": np.array(Cs)}, **kw)
    by_grid = select(est, X, y, search=Search(grid={"C": Cs}), **kw)
    assert by_path.best_params == by_grid.best_params
    np.testing.assert_allclose(by_path.scores, by_grid.scores, rtol=1e-9)
    np.testing.assert_allclose(by_path.predict(Xv), by_grid.predict(Xv), rtol=1e-7)


def test_conventions_and_errors(rng):
    X, y, qids = _problem(rng)
    model = RankSVM(C=0.5).fit(X, y, qids)
    assert clone(model).get_params() == {"C": 0.5, "loss": "squared_hinge", "tol": 1e-3,
                                         "max_iter": 1000}
    assert model.set_params(loss="hinge").loss == "hinge"
    for name in ("coef_", "n_iter_", "n_cg_", "objective_", "grad_norm_", "converged_",
                 "n_pairs_", "path_"):
        assert hasattr(clone(model).set_params(loss="squared_hinge").fit(X, y, qids), name)
    assert not hasattr(clone(model), "coef_")
    with pytest.raises(InvalidParameterError, match="'loss' parameter of RankSVM"):
        RankSVM(loss="logistic").fit(X, y, qids)


def test_max_iter_exhausted_warns(rng):
    X, y, qids = _problem(rng, scales=np.logspace(-2, 2, 6))
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        with pytest.raises(ConvergenceWarning, match="raise max_iter"):
            RankSVM(C=100.0, tol=1e-14, max_iter=1).fit(X, y, qids)


def test_pickled_model_predicts_and_extends_its_path(rng):
    import pickle
    X, y, qids = _problem(rng)
    model = RankSVM(C=0.01, tol=1e-10).fit(X, y, qids)
    copy = pickle.loads(pickle.dumps(model))
    assert not hasattr(copy, "_loss_at")        # the evaluation cache is not pickled
    np.testing.assert_array_equal(copy.predict(X), model.predict(X))
    np.testing.assert_allclose(copy.coef_path([1.0]), model.coef_path([1.0]), rtol=1e-8)
