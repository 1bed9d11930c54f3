"""Model selection: CV scores equal scores of explicitly retrained models; choice matches sklearn."""

import numpy as np
import pytest
from sklearn.linear_model import RidgeCV

from learners import RLS, GlobalRankRLS, GlobalRankRLSCV, QueryRankRLS, QueryRankRLSCV, RLSCV
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.measures import cindex
from learners.splits import folds_to_sets, group_folds

ALPHAS = 2.0 ** np.arange(-6, 7, 2)


def test_rlscv_loo_matches_sklearn_ridgecv(rng):
    X = rng.normal(size=(50, 4))
    y = X @ rng.normal(size=4) + 0.5 * rng.normal(size=50)
    ours = RLSCV(alphas=ALPHAS, cv="loo").fit(X, y)
    ref = RidgeCV(alphas=ALPHAS, fit_intercept=False).fit(X, y)   # efficient LOO, MSE
    assert ours.alpha_ == pytest.approx(ref.alpha_)
    np.testing.assert_allclose(ours.predict(X), RLS(alpha=ref.alpha_).fit(X, y).predict(X))


def test_rlscv_kfold_scores_equal_retraining(rng):
    X = rng.normal(size=(40, 3))
    y = np.sin(X[:, 0]) + 0.1 * rng.normal(size=40)
    grid = {"gamma": [0.2, 1.0]}
    cv = RLSCV(alphas=ALPHAS, kernel="gaussian", cv=4, param_grid=grid, random_state=3).fit(X, y)
    folds = folds_to_sets(group_folds(np.arange(40), 4, seed=3))
    for g, gamma in enumerate(grid["gamma"]):
        for k, lam in enumerate(ALPHAS):
            pred = np.empty(40)
            for H in folds:
                tr = np.setdiff1d(np.arange(40), H)
                pred[H] = RLS(alpha=lam, kernel="gaussian", gamma=gamma).fit(X[tr], y[tr]).predict(X[H])
            assert cv.cv_scores_[g, k] == pytest.approx(np.mean((pred - y) ** 2), rel=1e-8)
            if gamma == cv.best_params_["gamma"] and lam == cv.alpha_:
                np.testing.assert_allclose(cv.cv_predictions_[k], pred, rtol=1e-8)
    g, k = np.unravel_index(np.argmin(cv.cv_scores_), cv.cv_scores_.shape)
    assert cv.best_params_ == {"gamma": grid["gamma"][g], "alpha": ALPHAS[k]}
    assert cv.best_estimator_.alpha == cv.alpha_


def test_rlscv_group_and_explicit_sets(rng):
    X = rng.normal(size=(30, 3))
    y = rng.normal(size=30)
    groups = rng.integers(0, 5, size=30)
    a = RLSCV(alphas=ALPHAS, cv="group").fit(X, y, groups=groups)
    sets = [np.flatnonzero(groups == g) for g in range(5)]
    b = RLSCV(alphas=ALPHAS, cv=sets).fit(X, y)
    np.testing.assert_allclose(a.cv_scores_, b.cv_scores_)
    with pytest.raises(InvalidInputError):
        RLSCV(cv="group").fit(X, y)
    with pytest.raises(InvalidParameterError):
        RLSCV(cv="bootstrap").fit(X, y)
    custom = RLSCV(alphas=ALPHAS, scoring=lambda t, p: -np.mean(np.abs(t - p)),
                   greater_is_better=True).fit(X, y)
    assert custom.alpha_ == ALPHAS[np.argmax(custom.cv_scores_)]


def test_global_rankrls_cv_folds_and_lpo(rng):
    X = rng.normal(size=(36, 3))
    y = X[:, 0] + 0.3 * rng.normal(size=36)
    cv = GlobalRankRLSCV(alphas=ALPHAS, kernel="gaussian", gamma=0.5, cv=3).fit(X, y)
    folds = folds_to_sets(group_folds(np.arange(36), 3, seed=0))
    k = 2
    pred = np.empty(36)
    for H in folds:
        tr = np.setdiff1d(np.arange(36), H)
        pred[H] = GlobalRankRLS(alpha=ALPHAS[k], kernel="gaussian", gamma=0.5).fit(
            X[tr], y[tr]).predict(X[H])
    assert cv.cv_scores_[k] == pytest.approx(cindex(y, pred), rel=1e-9)
    yb = (y > 0).astype(float)
    lpo = GlobalRankRLSCV(alphas=ALPHAS, kernel="gaussian", gamma=0.5, cv="lpo").fit(X, yb)
    pos, neg = np.flatnonzero(yb == 1), np.flatnonzero(yb == 0)
    i, j = pos[0], neg[0]
    tr = np.setdiff1d(np.arange(36), [i, j])
    ref = GlobalRankRLS(alpha=ALPHAS[1], kernel="gaussian", gamma=0.5).fit(X[tr], yb[tr])
    pairs = np.column_stack(np.nonzero(np.subtract.outer(yb, yb) > 0))
    row = np.flatnonzero((pairs[:, 0] == i) & (pairs[:, 1] == j))[0]
    np.testing.assert_allclose(lpo.cv_predictions_[1, row], ref.predict(X[[i, j]]), rtol=1e-8)
    with pytest.raises(InvalidParameterError):
        GlobalRankRLSCV(cv="lpo", scoring="auc").fit(X, yb)


def test_query_rankrls_cv_leave_query_out(rng):
    X = rng.normal(size=(40, 3))
    y = X[:, 1] + 0.2 * rng.normal(size=40)
    qids = rng.integers(0, 6, size=40)
    cv = QueryRankRLSCV(alphas=ALPHAS).fit(X, y, qids)
    k = 3
    pred = np.empty(40)
    for q in np.unique(qids):
        U = qids == q
        pred[U] = QueryRankRLS(alpha=ALPHAS[k]).fit(X[~U], y[~U], qids[~U]).predict(X[U])
    assert cv.cv_scores_[k] == pytest.approx(cindex(y, pred, qids), rel=1e-9)
    np.testing.assert_allclose(cv.cv_predictions_[k], pred, rtol=1e-8)
    folds = QueryRankRLSCV(alphas=ALPHAS, cv=3, scoring="disagreement").fit(X, y, qids)
    assert np.isfinite(folds.cv_scores_).all()
    with pytest.raises(InvalidInputError):
        QueryRankRLSCV().fit(X, y)


def test_rlscv_scoring_with_qids(rng):
    """RLS regressor selected by a per-query ranking measure (qids passed to the scorer)."""
    X = rng.normal(size=(30, 3))
    y = X[:, 0] + 0.3 * rng.normal(size=30)
    qids = rng.integers(0, 3, size=30)
    seen = []

    def scorer(t, p, q):
        seen.append(q.shape)
        return cindex(t, p, q)
    cv = RLSCV(alphas=ALPHAS, cv=3, scoring=scorer, greater_is_better=True).fit(X, y, qids=qids)
    assert seen and all(s == (30,) for s in seen)
    assert cv.alpha_ == ALPHAS[np.argmax(cv.cv_scores_)]
