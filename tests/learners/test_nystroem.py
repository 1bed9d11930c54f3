"""NystroemMap: the map reproduces the Nyström matrix; b = (C^T)^-1 w gives the reduced-set
model; fold maps with held-out basis vectors removed equal from-scratch maps (Paper III)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import Ridge

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix
from learners.nystroem import NystroemMap


def _data(rng, m=60, n=4):
    X = rng.standard_normal((m, n))
    y = np.sin(X[:, 0]) + 0.1 * rng.standard_normal(m)
    return X, y


def test_map_reproduces_nystroem_matrix(rng):
    X, _ = _data(rng)
    nm = NystroemMap(kernel="gaussian", gamma=0.3, n_basis=15, random_state=0, jitter=0.0).fit(X)
    R = nm.basis_indices_
    K = kernel_matrix(X, X, "gaussian", gamma=0.3)
    Phi = nm.transform(X)
    expected = K[:, R] @ np.linalg.solve(K[np.ix_(R, R)], K[R])
    np.testing.assert_allclose(Phi @ Phi.T, expected, rtol=1e-8, atol=1e-8)
    # the map of the basis vectors themselves is C (K_RR C^-T = C)
    np.testing.assert_allclose(Phi[R], nm.cholesky_, atol=1e-10)


def test_coef_to_dual_is_reduced_set_solution(rng):
    """Ridge on the map + b=(C^T)^-1 w solves min ||y-K_MR b||^2 + lam b'K_RR b (eq. 41)."""
    X, y = _data(rng)
    lam = 0.7
    nm = NystroemMap(kernel="gaussian", gamma=0.5, n_basis=12, random_state=3, jitter=0.0).fit(X)
    w = Ridge(alpha=lam, fit_intercept=False).fit(nm.transform(X), y).coef_
    b = nm.coef_to_dual(w)
    R = nm.basis_indices_
    K = kernel_matrix(X, X, "gaussian", gamma=0.5)
    K_MR, K_RR = K[:, R], K[np.ix_(R, R)]
    b_direct = np.linalg.solve(K_MR.T @ K_MR + lam * K_RR, K_MR.T @ y)
    np.testing.assert_allclose(b, b_direct, rtol=1e-7, atol=1e-9)
    Xt = rng.standard_normal((7, X.shape[1]))
    np.testing.assert_allclose(nm.transform(Xt) @ w,
                               kernel_matrix(Xt, X[R], "gaussian", gamma=0.5) @ b, atol=1e-9)


@pytest.mark.parametrize("kernel,kw", [("gaussian", {"gamma": 0.2}), ("polynomial", {"degree": 3, "gamma": 0.5})])
def test_fold_maps_equal_maps_recomputed_from_scratch(rng, kernel, kw):
    X, y = _data(rng, m=50)
    nm = NystroemMap(kernel=kernel, n_basis=20, random_state=1, **kw).fit(X)
    folds = np.array_split(rng.permutation(50), 5)
    folds.append(np.array([int(nm.basis_indices_[3])]))   # one basis vector alone
    folds.append(np.setdiff1d(np.arange(50), nm.basis_indices_)[:4])  # no basis vector
    lam = 0.05
    for fold, U in zip(nm.fold_maps(folds, X), folds):
        L = np.setdiff1d(nm.basis_indices_, U)
        np.testing.assert_array_equal(np.sort(fold.basis_indices), L)
        np.testing.assert_array_equal(fold.test_index, np.sort(U))
        scratch = NystroemMap(kernel=kernel, basis_indices=L, jitter=nm.jitter_, **kw).fit(X)
        P = scratch.transform(X)
        assert fold.map.shape == (50, L.size)
        np.testing.assert_allclose(fold.map @ fold.map.T, P @ P.T, rtol=1e-8, atol=1e-8)
        # a learner trained on the fold map = the same learner trained on the scratch map
        tr = fold.train_index
        w = Ridge(alpha=lam, fit_intercept=False).fit(fold.map[tr], y[tr]).coef_
        w0 = Ridge(alpha=lam, fit_intercept=False).fit(P[tr], y[tr]).coef_
        np.testing.assert_allclose(fold.map[U] @ w, P[U] @ w0, rtol=1e-8, atol=1e-9)
        np.testing.assert_allclose(fold.coef_to_dual(w), scratch.coef_to_dual(w0),
                                   rtol=1e-6, atol=1e-8)


def test_jitter_policy_and_errors(rng):
    X = np.repeat(rng.standard_normal((5, 3)), 2, axis=0)  # duplicates: K_RR singular
    nm = NystroemMap(kernel="linear", basis_indices=np.arange(10)).fit(X)
    assert nm.jitter_ > 0
    with pytest.raises(InvalidInputError):
        NystroemMap(kernel="linear", basis_indices=np.arange(10), jitter=0.0).fit(X)
    with pytest.raises(InvalidParameterError):
        NystroemMap(n_basis=11).fit(X)
    with pytest.raises(InvalidParameterError):
        NystroemMap(kernel="gausian").fit(X)
    with pytest.raises(InvalidInputError):
        NystroemMap(n_basis=3).fit(np.full((4, 2), np.nan))
    nm = NystroemMap(n_basis=3, random_state=0).fit(X)
    with pytest.raises(InvalidInputError):
        list(nm.fold_maps([nm.basis_indices_], X))
    assert clone(nm).get_params()["n_basis"] == 3


def test_precomputed_kernel_matches_explicit(rng):
    X, _ = _data(rng, m=30)
    K = kernel_matrix(X, X, "gaussian", gamma=0.4)
    a = NystroemMap(kernel="gaussian", gamma=0.4, n_basis=8, random_state=2).fit(X)
    b = NystroemMap(kernel="precomputed", n_basis=8, random_state=2).fit(K)
    np.testing.assert_allclose(a.transform(X), b.transform(K), atol=1e-10)
