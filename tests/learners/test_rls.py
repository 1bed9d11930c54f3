"""RLS: closed form against scikit-learn and direct solves; λ path against separate fits.

Conditioning note for the comparisons over λ = 2^-15..2^15: the dual tests use a Gaussian
kernel on well-spread points (a full-rank K whose smallest eigenvalue is ~1e-2), the
primal ones a full-column-rank X with m >> n, and the linear-dual ones n > m (full-rank K).
With a rank-deficient K and tiny λ the retraining itself is ill-conditioned and no
1e-8 comparison would be meaningful.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.kernel_ridge import KernelRidge
from sklearn.linear_model import Ridge

from learners import RLS
from kernelrank.errors import InvalidInputError, InvalidParameterError

LAMS = 2.0 ** np.arange(-15, 16, 2)


def _data(rng, m, n, t=None, sparse=False):
    X = rng.normal(size=(m, n))
    if sparse:
        X[rng.random(X.shape) < 0.5] = 0.0
    y = rng.normal(size=(m,) if t is None else (m, t))
    return (sp.csr_matrix(X) if sparse else X), y


def test_dual_fit_equals_kernel_ridge(rng):
    X, y = _data(rng, 40, 6, t=3)
    ours = RLS(alpha=0.3, kernel="gaussian", gamma=0.2).fit(X, y)
    ref = KernelRidge(alpha=0.3, kernel="rbf", gamma=0.2).fit(X, y)
    assert ours.solver_ == "dual"
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-9)
    Xt = rng.normal(size=(7, 6))
    np.testing.assert_allclose(ours.predict(Xt), ref.predict(Xt), rtol=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
def test_primal_fit_equals_ridge_without_intercept(rng, sparse):
    X, y = _data(rng, 50, 4, sparse=sparse)
    ours = RLS(alpha=2.0).fit(X, y)
    assert ours.solver_ == "primal" and sp.issparse(ours.X_fit_) == sparse
    ref = Ridge(alpha=2.0, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-10)
    dual = RLS(alpha=2.0, solver="dual").fit(X, y)
    np.testing.assert_allclose(dual.predict(X), ours.predict(X), rtol=1e-9)


def test_solver_choice_and_primal_needs_linear(rng):
    X, y = _data(rng, 10, 20)
    assert RLS().fit(X, y).solver_ == "dual"
    with pytest.raises(InvalidParameterError):
        RLS(kernel="gaussian", solver="primal").fit(X, y)


@pytest.mark.parametrize("solver,n", [("dual", 6), ("primal", 4)])
def test_regularization_path_equals_separate_fits(rng, solver, n):
    X, Y = _data(rng, 30, n, t=2)
    kw = {"kernel": "gaussian", "gamma": 0.3} if solver == "dual" else {}
    model = RLS(alpha=1.0, solver=solver, **kw).fit(X, Y)
    path = model.regularization_path(LAMS)
    preds = model.predict_path(X[:5], LAMS)
    for k, lam in enumerate(LAMS):
        one = RLS(alpha=lam, solver=solver, **kw).fit(X, Y)
        ref = one.dual_coef_ if solver == "dual" else one.coef_
        np.testing.assert_allclose(path[k], ref, rtol=1e-7, atol=1e-12 * np.abs(ref).max())
        np.testing.assert_allclose(preds[k], one.predict(X[:5]), rtol=1e-8,
                                   atol=1e-12 * np.abs(one.predict(X[:5])).max())


def test_precomputed_matches_gaussian(rng):
    X, y = _data(rng, 25, 3)
    g = RLS(alpha=0.5, kernel="gaussian", gamma=0.7).fit(X, y)
    K = np.exp(-0.7 * ((X[:, None] - X[None]) ** 2).sum(-1))
    p = RLS(alpha=0.5, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(p.dual_coef_, g.dual_coef_, rtol=1e-10)
    np.testing.assert_allclose(p.leave_one_out(), g.leave_one_out(), rtol=1e-10)
    assert p.__sklearn_tags__().input_tags.pairwise
    assert not g.__sklearn_tags__().input_tags.pairwise


def test_bad_input_raises_typed_errors(rng):
    X, y = _data(rng, 10, 3)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(InvalidInputError, match="NaN"):
        RLS().fit(Xn, y)
    yi = y.copy()
    yi[1] = np.inf
    with pytest.raises(InvalidInputError):
        RLS().fit(X, yi)
    with pytest.raises(InvalidInputError):
        RLS().fit(X, y[:-1])
    with pytest.raises(InvalidParameterError):
        RLS(alpha=-1).fit(X, y)
    with pytest.raises(InvalidParameterError):
        RLS(solver="cholesky").fit(X, y)
    with pytest.raises(InvalidParameterError):
        RLS(kernel="gausian").fit(X, y)
    with pytest.raises(InvalidInputError, match="square"):
        RLS(kernel="precomputed").fit(X, y)
    model = RLS().fit(X, y)
    with pytest.raises(InvalidInputError, match="features"):
        model.predict(X[:, :2])
    with pytest.raises(InvalidParameterError):
        model.leave_one_out(alphas=[1.0, 0.0])


def test_indefinite_callable_kernel_falls_back_to_lu(rng):
    X, y = _data(rng, 12, 3)

    def sigmoid(A, B):
        return np.tanh(A @ B.T - 2.0)             # not positive semi-definite
    model = RLS(alpha=1e-3, kernel=sigmoid).fit(X, y)
    K = sigmoid(X, X)
    np.testing.assert_allclose(model.dual_coef_, np.linalg.solve(K + 1e-3 * np.eye(12), y),
                               rtol=1e-8)


def test_precomputed_readonly_kernel_is_never_written(rng, tmp_path):
    """A precomputed kernel (here a read-only memmap) is never overwritten by fit or CV."""
    X, y = _data(rng, 15, 3)
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    path = tmp_path / "K.npy"
    np.save(path, K)
    Km = np.load(path, mmap_mode="r")
    model = RLS(alpha=0.1, kernel="precomputed").fit(Km, y)
    model.leave_one_out()
    model.holdout_sets([np.arange(3)])
    np.testing.assert_array_equal(np.load(path), K)
    ref = RLS(alpha=0.1, kernel="gaussian", gamma=0.5).fit(X, y)
    np.testing.assert_allclose(model.leave_one_out(), ref.leave_one_out(), rtol=1e-10)
