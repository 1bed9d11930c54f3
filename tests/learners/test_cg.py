"""Conjugate-gradient RLS / RankRLS against closed-form solutions with explicit pairs."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.linear_model import Ridge
from sklearn.utils.estimator_checks import parametrize_with_checks

from learners.cg import CGRankRLS, CGRLS
from kernelrank.errors import InvalidInputError, InvalidParameterError

ALPHAS = [2.0 ** -15, 2.0 ** -5, 1.0, 2.0 ** 5, 2.0 ** 15]


def _sparse_problem(rng, m=120, n=15, density=0.3, n_queries=6, levels=3):
    X = sp.random(m, n, density=density, random_state=rng, format="csr")
    y = rng.integers(0, levels, size=m).astype(float)  # many ties
    qids = rng.integers(0, n_queries, size=m) * 7 + 3  # arbitrary, unsorted ids
    return X, y, qids


def _explicit_pairs(y, qids, ties):
    """All within-query unordered pairs (i<j), brute force."""
    pairs = [(i, j) for i, j in itertools.combinations(range(len(y)), 2)
             if qids[i] == qids[j] and (ties == "include" or y[i] != y[j])]
    return np.array(pairs)


def _closed_form(X, pairs, targets, alpha):
    """Solve (D^T D + alpha I) w = D^T t with D the explicit pair-difference matrix."""
    X = X.toarray() if sp.issparse(X) else X
    D = X[pairs[:, 0]] - X[pairs[:, 1]]
    return np.linalg.solve(D.T @ D + alpha * np.eye(X.shape[1]), D.T @ targets)


def _rel(a, b):
    return np.linalg.norm(a - b) / max(np.linalg.norm(b), 1e-300)


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("ties", ["include", "exclude"])
def test_scored_rankrls_equals_closed_form_with_explicit_pairs(rng, alpha, ties):
    X, y, qids = _sparse_problem(rng)
    pairs = _explicit_pairs(y, qids, ties)
    expected = _closed_form(X, pairs, y[pairs[:, 0]] - y[pairs[:, 1]], alpha)
    model = CGRankRLS(alpha=alpha, ties=ties, tol=1e-14, max_iter=2000).fit(X, y, qids)
    assert model.n_pairs_ == len(pairs)
    assert _rel(model.coef_, expected) < 1e-8
    dense = CGRankRLS(alpha=alpha, ties=ties, tol=1e-14, max_iter=2000).fit(X.toarray(), y, qids)
    assert _rel(dense.coef_, expected) < 1e-8


@pytest.mark.parametrize("alpha", ALPHAS)
def test_pairwise_rankrls_equals_closed_form(rng, alpha):
    X, _, _ = _sparse_problem(rng, m=60)
    pairs = rng.integers(0, 60, size=(300, 2))
    pairs = pairs[pairs[:, 0] != pairs[:, 1]]
    targets = rng.random(len(pairs)) + 0.5
    expected = _closed_form(X, pairs, targets, alpha)
    model = CGRankRLS(alpha=alpha, tol=1e-14, max_iter=2000).fit(
        X, pairs=pairs, magnitudes=targets)
    assert _rel(model.coef_, expected) < 1e-8
    unit = CGRankRLS(alpha=alpha, tol=1e-14, max_iter=2000).fit(X, pairs=pairs)
    assert _rel(unit.coef_, _closed_form(X, pairs, np.ones(len(pairs)), alpha)) < 1e-8


def test_scored_equals_pairwise_on_the_same_pairs(rng):
    X, y, qids = _sparse_problem(rng)
    pairs = _explicit_pairs(y, qids, "exclude")
    # orient every pair so that the preferred example comes first, margin = label gap
    swap = y[pairs[:, 0]] < y[pairs[:, 1]]
    pairs[swap] = pairs[swap][:, ::-1]
    scored = CGRankRLS(alpha=0.5, ties="exclude", tol=1e-13).fit(X, y, qids)
    paired = CGRankRLS(alpha=0.5, tol=1e-13).fit(
        X, pairs=pairs, magnitudes=y[pairs[:, 0]] - y[pairs[:, 1]])
    assert _rel(scored.coef_, paired.coef_) < 1e-8


def test_global_ranking_when_no_qids(rng):
    X, y, _ = _sparse_problem(rng, m=50)
    pairs = np.array(list(itertools.combinations(range(50), 2)))
    expected = _closed_form(X, pairs, y[pairs[:, 0]] - y[pairs[:, 1]], 2.0)
    model = CGRankRLS(alpha=2.0, tol=1e-14).fit(X, y)
    assert _rel(model.coef_, expected) < 1e-8


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("fit_intercept", [False, True])
def test_rls_equals_ridge(rng, alpha, fit_intercept):
    X, _, _ = _sparse_problem(rng)
    y = rng.normal(size=X.shape[0]) + 3.0
    ridge = Ridge(alpha=alpha, fit_intercept=fit_intercept, solver="cholesky",
                  tol=1e-14).fit(X.toarray(), y)
    model = CGRLS(alpha=alpha, fit_intercept=fit_intercept, tol=1e-14, max_iter=2000).fit(X, y)
    assert _rel(model.coef_, ridge.coef_) < 1e-8
    assert abs(model.intercept_ - ridge.intercept_) < 1e-8 * max(1, abs(ridge.intercept_))
    np.testing.assert_allclose(model.predict(X), ridge.predict(X.toarray()), rtol=1e-8,
                               atol=1e-10)
    assert model.converged_ and model.n_iter_ >= 1


def test_sparse_input_stays_sparse_and_never_densified(rng, monkeypatch):
    X, y, qids = _sparse_problem(rng)

    def refuse(*args, **kwargs):
        raise AssertionError("X was densified")

    monkeypatch.setattr(sp.csr_matrix, "toarray", refuse)
    monkeypatch.setattr(sp.csr_matrix, "todense", refuse)
    CGRankRLS(alpha=1.0).fit(X, y, qids)
    CGRLS(alpha=1.0).fit(X, y)


def test_max_iter_and_early_stopping(rng):
    X, y, qids = _sparse_problem(rng, m=200, n=40)
    capped = CGRankRLS(alpha=1e-4, tol=1e-14, max_iter=3).fit(X, y, qids)
    assert capped.n_iter_ == 3 and not capped.converged_
    Xv, yv, qv = _sparse_problem(rng, m=100, n=40)
    es = CGRankRLS(alpha=1e-4, tol=1e-14, max_iter=500, early_stopping=True,
                   n_iter_no_change=3).fit(X, y, qids, X_val=Xv, y_val=yv, qids_val=qv)
    history = es.validation_loss_
    assert len(history) == es.n_iter_
    # the returned coefficients are the best iterate on the validation set
    r = yv - Xv @ es.coef_
    pairs = _explicit_pairs(yv, qv, "include")
    val_loss = np.sum((r[pairs[:, 0]] - r[pairs[:, 1]]) ** 2)
    assert val_loss == pytest.approx(min(history), rel=1e-10)
    if es.n_iter_ < 500:
        assert np.argmin(history) == len(history) - 1 - 3


def test_sklearn_conventions_and_errors(rng):
    X, y, qids = _sparse_problem(rng)
    model = CGRankRLS(alpha=3.0, ties="exclude")
    assert clone(model).get_params()["ties"] == "exclude"
    with pytest.raises(InvalidParameterError, match="alpha"):
        CGRankRLS(alpha=-1).fit(X, y, qids)
    with pytest.raises(InvalidParameterError, match="ties"):
        CGRankRLS(ties="incl").fit(X, y, qids)
    with pytest.raises(InvalidInputError, match="either"):
        CGRankRLS().fit(X, y, qids, pairs=[[0, 1]])
    with pytest.raises(InvalidInputError, match="NaN"):
        CGRLS().fit(np.full((3, 2), np.nan), [1, 2, 3])
    with pytest.raises(InvalidInputError, match="length"):
        CGRankRLS().fit(X, y[:-1], qids)
    with pytest.raises(InvalidInputError, match="self-pair"):
        CGRankRLS().fit(X, pairs=[[1, 1]])
    with pytest.raises(InvalidInputError, match="X_val"):
        CGRankRLS(early_stopping=True).fit(X, y, qids)
    fitted = CGRankRLS().fit(X, y, qids)
    with pytest.raises(InvalidInputError, match="features"):
        fitted.predict(X[:, :3])


@pytest.mark.parametrize("alpha", [2.0 ** -15, 2.0 ** -5, 1.0])
def test_ill_conditioned_near_duplicate_features(rng, alpha):
    """Near-collinear columns (condition number up to ~1e7): still the least-squares optimum,
    checked against a stable lstsq on the explicit pair rows stacked with sqrt(λ) I."""
    m, n = 120, 15
    X = rng.random((m, n)) * (rng.random((m, n)) < 0.4)
    X[:, 5] = X[:, 4] * (1 + 1e-7)
    X[:, 6] = X[:, 4] + X[:, 3] * 1e-6
    y = rng.integers(0, 3, size=m).astype(float)
    qids = rng.integers(0, 6, size=m)
    pairs = _explicit_pairs(y, qids, "include")
    D = X[pairs[:, 0]] - X[pairs[:, 1]]
    A = np.vstack([D, np.sqrt(alpha) * np.eye(n)])
    b = np.r_[y[pairs[:, 0]] - y[pairs[:, 1]], np.zeros(n)]
    expected = np.linalg.lstsq(A, b, rcond=None)[0]
    model = CGRankRLS(alpha=alpha, tol=1e-15, max_iter=5000).fit(sp.csr_matrix(X), y, qids)
    assert _rel(model.coef_, expected) < 1e-8


@parametrize_with_checks([CGRLS(tol=1e-10), CGRankRLS(tol=1e-10)])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)
