"""Greedy RLS / RankRLS equal the naive search that retrains explicitly for every candidate
feature at every step (and for every held-out example or query)."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import Ridge

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.greedy import GreedyRankRLS, GreedyRLS


def _ridge(X, Y, lap, alpha):
    return np.linalg.solve(X.T @ lap @ X + alpha * np.eye(X.shape[1]), X.T @ lap @ Y)


def _lap(q):
    same = (q[:, None] == q[None, :]).astype(float)
    return np.diag(same.sum(1)) - same


def _naive(X, Y, alpha, k, qids=None):
    """Explicit retraining: every step, every candidate, every held-out example / query."""
    m, n = X.shape
    Y = Y.reshape(m, -1)
    groups = [np.array([j]) for j in range(m)] if qids is None else \
        [np.flatnonzero(qids == g) for g in np.unique(qids)]
    S, errs = [], []
    for _ in range(k):
        best = (np.inf, None)
        for i in range(n):
            if i in S:
                continue
            F = S + [i]
            total = 0.0
            for U in groups:
                tr = np.setdiff1d(np.arange(m), U)
                if qids is None:
                    w = _ridge(X[np.ix_(tr, F)], Y[tr], np.eye(tr.size), alpha)
                    total += np.sum((Y[U] - X[np.ix_(U, F)] @ w) ** 2)
                else:
                    w = _ridge(X[np.ix_(tr, F)], Y[tr], _lap(qids[tr]), alpha)
                    res = Y[U] - X[np.ix_(U, F)] @ w
                    total += np.sum(res * (_lap(qids[U]) @ res))
            if total < best[0]:
                best = (total, i)
        S.append(best[1])
        errs.append(best[0])
    return S, np.array(errs)


@pytest.mark.parametrize("alpha", [2.0 ** -15, 0.5, 2.0 ** 15])
@pytest.mark.parametrize("t", [1, 2])
def test_greedy_rls_equals_naive_search(rng, alpha, t):
    m, n, k = 18, 9, 5
    X = rng.standard_normal((m, n))
    X[:, 3] = X[:, 1] + 1e-3 * rng.standard_normal(m)   # nearly collinear pair
    Y = X[:, [1, 4]] @ rng.standard_normal((2, t)) + 0.3 * rng.standard_normal((m, t))
    y = Y[:, 0] if t == 1 else Y
    model = GreedyRLS(alpha=alpha, n_features_to_select=k).fit(X, y)
    S, errs = _naive(X, Y, alpha, k)
    assert list(model.selected_) == S
    np.testing.assert_allclose(model.loo_errors_ * m * t, errs, rtol=1e-8)
    ref = Ridge(alpha=alpha, fit_intercept=False).fit(X[:, S], y)
    coef = model.coef_ if t == 1 else model.coef_.T
    np.testing.assert_allclose(coef[S], ref.coef_.T, rtol=1e-7, atol=1e-9)
    assert np.all(np.delete(coef, S, axis=0) == 0)
    Xt = rng.standard_normal((4, n))
    np.testing.assert_allclose(model.predict(Xt), ref.predict(Xt[:, S]), rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("alpha", [2.0 ** -10, 1.0, 2.0 ** 10])
def test_greedy_rankrls_equals_naive_search(rng, alpha):
    m, n, k = 24, 8, 4
    qids = np.repeat([3, 7, 1, 9, 5], [6, 4, 5, 6, 3])[rng.permutation(m)]
    X = rng.standard_normal((m, n))
    y = X[:, 2] - 0.5 * X[:, 5] + 2.0 * qids + 0.3 * rng.standard_normal(m)
    model = GreedyRankRLS(alpha=alpha, n_features_to_select=k).fit(X, y, qids=qids)
    S, errs = _naive(X, y, alpha, k, qids=qids)
    assert list(model.selected_) == S
    n_pairs = sum(c * (c - 1) / 2 for c in np.bincount(qids))
    np.testing.assert_allclose(model.loo_errors_ * n_pairs, errs, rtol=1e-8)
    w = _ridge(X[:, S], y, _lap(qids), alpha)
    np.testing.assert_allclose(model.coef_[S], w, rtol=1e-7, atol=1e-9)


def test_greedy_errors_and_conventions(rng):
    X = rng.standard_normal((10, 4))
    y = rng.standard_normal(10)
    with pytest.raises(InvalidParameterError):
        GreedyRLS(n_features_to_select=5).fit(X, y)
    with pytest.raises(InvalidParameterError):
        GreedyRLS(alpha=0.0).fit(X, y)
    with pytest.raises(InvalidInputError):
        GreedyRankRLS(n_features_to_select=2).fit(X, y)          # qids required
    with pytest.raises(InvalidInputError):
        GreedyRLS(n_features_to_select=2).fit(X, y[:-1])
    m = GreedyRLS(n_features_to_select=2).fit(X, y)
    assert clone(m).get_params() == {"alpha": 1.0, "n_features_to_select": 2}
