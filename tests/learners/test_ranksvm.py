"""RankSVM with the hinge (``loss="hinge"``, BMRM): tree-counted hinge loss/subgradient vs
explicit pairs, and the optimum vs the dual QP. The squared hinge: test_ranksvm_squared.py."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks
from scipy.optimize import minimize

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.ranksvm import QueryStructure, RankSVM, pairwise_hinge, pairwise_hinge_explicit


def _loop_reference(f, y, qids):
    """Loss and c - d by a plain double loop over pairs, straight from eqs. 4.10-4.12."""
    loss, coef = 0.0, np.zeros(len(f))
    for i, j in itertools.product(range(len(f)), repeat=2):
        # active iff f_i - f_j < 1, evaluated as f_j + 1 > f_i (the documented predicate)
        if qids[i] == qids[j] and y[i] > y[j] and f[j] + 1.0 > f[i]:
            loss += 1.0 - f[i] + f[j]
            coef[i] -= 1  # d_i
            coef[j] += 1  # c_j
    return loss, coef


@pytest.mark.parametrize("levels,n_queries,round_to", [
    (2, 1, None), (3, 4, 1), (5, 3, 0), (40, 2, 2), (1000, 1, None)])
def test_tree_counts_equal_explicit_pairs(rng, levels, n_queries, round_to):
    m = 150
    y = rng.integers(0, levels, size=m).astype(float)
    qids = rng.integers(0, n_queries, size=m) * 11 - 4
    f = rng.normal(scale=1.5, size=m)
    if round_to is not None:  # many score ties and pairs exactly at the margin
        f = np.round(f, round_to)
    loss, coef = pairwise_hinge(f, QueryStructure(y, qids))
    ref_loss, ref_coef = _loop_reference(f, y, qids)
    np.testing.assert_array_equal(coef, ref_coef)
    assert loss == pytest.approx(ref_loss, rel=1e-10, abs=1e-10)
    chunk_loss, chunk_coef = pairwise_hinge_explicit(f, y, qids, chunk=17)
    np.testing.assert_array_equal(chunk_coef, ref_coef)
    assert chunk_loss == pytest.approx(ref_loss, rel=1e-10, abs=1e-10)


def test_subgradient_is_a_subgradient(rng):
    m, n = 80, 6
    X = rng.normal(size=(m, n))
    y = rng.integers(0, 3, size=m).astype(float)
    qids = rng.integers(0, 3, size=m)
    s = QueryStructure(y, qids)
    w = rng.normal(size=n)
    loss, coef = pairwise_hinge(X @ w, s)
    g = X.T @ coef
    for _ in range(20):  # convexity: R(v) >= R(w) + g.(v - w)
        v = w + rng.normal(size=n)
        assert pairwise_hinge(X @ v, s)[0] >= loss + g @ (v - w) - 1e-9
    # where the loss is differentiable it equals the gradient (central differences)
    eps = 1e-6
    numeric = [(pairwise_hinge(X @ (w + eps * e), s)[0] - pairwise_hinge(X @ (w - eps * e), s)[0])
               / (2 * eps) for e in np.eye(n)]
    np.testing.assert_allclose(g, numeric, rtol=1e-5, atol=1e-5)


def test_pair_count(rng):
    y = rng.integers(0, 3, size=60).astype(float)
    qids = rng.integers(0, 4, size=60)
    expected = sum(1 for i, j in itertools.combinations(range(60), 2)
                   if qids[i] == qids[j] and y[i] != y[j])
    assert QueryStructure(y, qids).n_pairs == expected


def _dual_reference(X, y, qids, C):
    """RankSVM via its dual on explicit pair differences D (rows x_i - x_j, y_i > y_j).

    max_a 1·a - ½ aᵀ D Dᵀ a, 0 <= a <= C, solved by L-BFGS-B; w = Dᵀ a.
    """
    D = np.array([X[i] - X[j] for i, j in itertools.permutations(range(len(y)), 2)
                  if qids[i] == qids[j] and y[i] > y[j]])
    K = D @ D.T

    def negdual(a):
        Ka = K @ a
        return 0.5 * a @ Ka - a.sum(), Ka - 1.0

    res = minimize(negdual, np.zeros(len(D)), jac=True, method="L-BFGS-B",
                   bounds=[(0, C)] * len(D), options={"ftol": 1e-15, "gtol": 1e-12,
                                                      "maxiter": 100000})
    return D.T @ res.x


def _objective(w, X, y, qids, C):
    return 0.5 * w @ w + C * pairwise_hinge_explicit(X @ w, y, qids)[0]


@pytest.mark.parametrize("C,sparse", [(0.01, False), (1.0, True), (8.0, False)])
@pytest.mark.slow
def test_fit_reaches_the_optimum(rng, C, sparse):
    m, n = 40, 5
    X = rng.normal(size=(m, n))
    y = rng.integers(0, 3, size=m).astype(float)
    qids = rng.integers(0, 3, size=m)
    model = RankSVM(C=C, loss="hinge", tol=1e-9, max_iter=5000).fit(
        sp.csr_matrix(X) if sparse else X, y, qids)
    assert model.converged_
    ref = _dual_reference(X, y, qids, C)
    J, J_ref = _objective(model.coef_, X, y, qids, C), _objective(ref, X, y, qids, C)
    assert model.objective_ == pytest.approx(J, rel=1e-10)
    assert J <= J_ref * (1 + 1e-7)   # not worse than the dual solution
    assert J >= J_ref * (1 - 1e-6)   # and it is not better: both at the optimum
    # strong convexity: ||w - w*||^2 <= 2 (J(w) - J*)
    assert np.linalg.norm(model.coef_ - ref) <= np.sqrt(2 * 1e-6 * J_ref) + 1e-6


def test_certified_gap_and_conventions(rng):
    X = rng.normal(size=(100, 4))
    y = (X @ [1.0, -2.0, 0.5, 0.0] + rng.normal(size=100) > 0).astype(float)
    qids = np.repeat(np.arange(5), 20)
    model = RankSVM(C=0.5, loss="hinge", tol=1e-3).fit(X, y, qids)
    assert model.gap_ <= 1e-3 and model.n_iter_ >= 2 and model.n_cg_ == 0
    np.testing.assert_allclose(model.predict(X), X @ model.coef_)
    assert clone(model).get_params() == {"C": 0.5, "loss": "hinge", "tol": 1e-3,
                                         "max_iter": 1000}
    # a C path of the hinge: each C solved by its own bundle run, cached
    path = model.coef_path([0.5, 2.0])
    np.testing.assert_array_equal(path[0], model.coef_)
    ref = RankSVM(C=2.0, loss="hinge", tol=1e-3).fit(X, y, qids)
    np.testing.assert_array_equal(path[1], ref.coef_)
    with pytest.raises(InvalidParameterError, match="'C' parameter of RankSVM must"):
        RankSVM(C=0).fit(X, y, qids)
    with pytest.raises(InvalidInputError, match="no query"):
        RankSVM().fit(X, np.zeros(100), qids)
    with pytest.raises(InvalidInputError, match="inconsistent numbers of samples"):
        RankSVM().fit(X, y[:-1], qids)
    with pytest.raises(InvalidInputError, match="qids must be a vector of length 100"):
        RankSVM().fit(X, y, qids[:-1])
    with pytest.raises(InvalidInputError, match="NaN"):
        RankSVM().fit(np.where(X > 2, np.nan, X), y, qids)


@parametrize_with_checks([RankSVM(), RankSVM(loss="hinge")])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
