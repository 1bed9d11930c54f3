"""The selection engine (learners/selection.py) against brute force: every hold-out
prediction equals explicit retraining, every score equals the measure of those retrained
predictions, the tie rule picks the most regularized candidate, nested CV equals the
explicit nested loop."""

import numpy as np
import pytest

from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError
from learners import RLS, GlobalRankRLS, QueryRankRLS
from learners.measures import best_f_threshold, cindex, disagreement_error, \
    mean_average_precision
from learners.selection import (
    Channels,
    Scoring,
    Search,
    ValidationSet,
    best_candidate,
    holdout_predictions,
    nested_cross_validate,
    select,
)
from learners.splits import RowStructure, folds_to_sets, group_folds, group_sets

# wide λ range, including ill-conditioned systems at the small end
WIDE = 2.0 ** np.arange(-15, 16, 3)


def gaussian_problem(rng, m=45, n=4, n_groups=9):
    X = rng.normal(size=(m, n))
    y = np.sin(X[:, 0]) + 0.3 * X[:, 1] + 0.1 * rng.normal(size=m)
    groups = rng.integers(0, n_groups, size=m)
    return X, y, groups


def retrained(make, X, y, sets, alpha, fit_kw=None):
    """Explicit retraining without each set (the brute force the shortcuts replace)."""
    out = np.empty(len(y))
    for H in sets:
        T = np.setdiff1d(np.arange(len(y)), H)
        kw = {k: np.asarray(v)[T] for k, v in (fit_kw or {}).items()}
        out[H] = make(alpha).fit(X[T], y[T], **kw).predict(X[H])
    return out


def test_closed_form_refit_and_retraining_agree_over_a_wide_path(rng):
    X, y, groups = gaussian_problem(rng)
    est = RLS(kernel="gaussian", gamma=0.5)
    sets = group_sets(groups)
    closed, fitted = holdout_predictions(est, X, y, cv=sets, path={"alpha": WIDE})
    refit, none = holdout_predictions(est, X, y, cv=sets, path={"alpha": WIDE},
                                      method="refit")
    assert fitted is not None and none is None
    A, B = closed.in_row_order(len(y)), refit.in_row_order(len(y))
    np.testing.assert_allclose(A, B, rtol=1e-8, atol=1e-10 * np.abs(B).max())
    for k in (0, len(WIDE) // 2, len(WIDE) - 1):
        explicit = retrained(lambda a: RLS(alpha=a, kernel="gaussian", gamma=0.5), X, y,
                             sets, WIDE[k])
        np.testing.assert_allclose(A[k], explicit, rtol=1e-8, atol=1e-10)


def test_leave_one_out_closed_form_equals_refit_for_rankrls(rng):
    X, y, _ = gaussian_problem(rng, m=25)
    est = GlobalRankRLS(kernel="gaussian", gamma=0.3)
    a, _ = holdout_predictions(est, X, y, cv="loo", path={"alpha": WIDE})
    b, _ = holdout_predictions(est, X, y, cv="loo", path={"alpha": WIDE}, method="refit")
    A, B = a.in_row_order(len(y)), b.in_row_order(len(y))
    # a ranker's predictions are defined up to a shift: compare centred rows per model
    np.testing.assert_allclose(A, B, rtol=1e-7, atol=1e-9 * np.abs(B).max())


@pytest.mark.parametrize("average", ["pooled", "folds"])
def test_scores_equal_the_measure_of_retrained_predictions(rng, average):
    X, y, groups = gaussian_problem(rng, m=60, n_groups=6)
    qids = rng.integers(0, 4, size=60)
    alphas = 2.0 ** np.arange(-6, 7, 3)
    sets = folds_to_sets(group_folds(groups, 3, seed=1))
    sel = select(QueryRankRLS(kernel="gaussian", gamma=0.5), X, y, cv=sets,
                 search={"alpha": alphas}, scoring=Scoring("cindex", average=average),
                 structure=RowStructure(qids=qids), channels=Channels(fit={"qids": qids}))
    for k, a in enumerate(alphas):
        p = retrained(lambda al: QueryRankRLS(alpha=al, kernel="gaussian", gamma=0.5), X, y,
                      sets, a, {"qids": qids})
        if average == "pooled":
            expected = cindex(y, p, qids)
        else:
            expected = np.mean([cindex(y[H], p[H], qids[H]) for H in sets])
        assert sel.scores[k] == pytest.approx(expected, rel=1e-9)
    assert sel.best_params["alpha"] == alphas[best_candidate(sel.scores,
                                                             sel.candidates, True)]


def test_tie_rule_most_regularized():
    s = np.array([0.5, 0.7, 0.7, 0.2])
    alpha = [{"alpha": a} for a in (0.1, 1.0, 10.0, 100.0)]
    assert best_candidate(s, alpha, True) == 2                 # the larger λ of the tie
    assert best_candidate(-s, alpha, False) == 2
    C = [{"C": c} for c in (0.1, 1.0, 10.0, 100.0)]
    assert best_candidate(s, C, True) == 1                     # the smaller C
    mu = [{"alpha": 1.0, "mu": u} for u in (0.0, 1.0, 2.0, 3.0)]
    assert best_candidate(s, mu, True) == 2                    # the larger μ
    gamma = [{"gamma": g} for g in (0.1, 1.0, 10.0, 100.0)]
    assert best_candidate(s, gamma, True) == 1                 # no direction: grid order
    # λ first, then μ
    both = [{"alpha": 1.0, "mu": 5.0}, {"alpha": 2.0, "mu": 0.0}]
    assert best_candidate(np.array([1.0, 1.0]), both, True) == 1
    # floating-point noise counts as a tie, a real difference does not
    assert best_candidate(np.array([0.7, 0.7 * (1 - 1e-14)]), alpha[:2], True) == 1
    assert best_candidate(np.array([0.7, 0.7 * (1 - 1e-9)]), alpha[:2], True) == 0
    # NaN never wins; all undefined is an error
    assert best_candidate(np.array([np.nan, 0.1]), alpha[:2], True) == 1
    with pytest.raises(UndefinedMeasureError):
        best_candidate(np.array([np.nan, np.nan]), alpha[:2], True)


def test_tie_rule_end_to_end(rng):
    X, y, _ = gaussian_problem(rng, m=20)
    sel = select(RLS(), X, y, cv="loo", search={"alpha": [0.1, 1.0, 10.0]},
                 scoring=Scoring(lambda t, p: 1.0, greater_is_better=True))
    assert sel.best_params == {"alpha": 10.0}


def test_best_f_threshold_of_every_candidate(rng):
    X = rng.normal(size=(50, 6))
    y = np.where(X @ rng.normal(size=6) + 0.5 * rng.normal(size=50) > 0.2, 1.0, -1.0)
    docs = np.array([f"d{i % 10}" for i in range(50)], dtype=object)
    alphas = 2.0 ** np.arange(-4, 5, 2)
    sel = select(RLS(kernel="precomputed"), X @ X.T, y, cv="group",
                 structure=RowStructure(groups=docs), search={"alpha": alphas},
                 scoring=Scoring("f1_best", threshold="f1"))
    for k, a in enumerate(alphas):
        p = retrained(lambda al: _PrecomputedRLS(al, X), np.arange(50)[:, None], y,
                      group_sets(docs), a)
        b = best_f_threshold(y, p)
        assert sel.scores[k] == pytest.approx(b.f1, rel=1e-9)
        assert sel.thresholds[k] == pytest.approx(b.threshold, rel=1e-6, abs=1e-9)
    assert sel.threshold == sel.thresholds[sel.best_index]
    # the selected model predicts with the chosen λ from its one decomposition
    np.testing.assert_allclose(
        sel.predict(X[:5] @ X.T),
        RLS(alpha=sel.best_params["alpha"], kernel="precomputed").fit(X @ X.T, y).predict(
            X[:5] @ X.T), rtol=1e-8, atol=1e-10)


class _PrecomputedRLS:
    """RLS on the linear kernel of rows of X indexed by an index column (test helper)."""

    def __init__(self, alpha, X):
        self.alpha, self.X = alpha, X

    def fit(self, idx, y):
        self.tr = idx[:, 0]
        K = self.X[self.tr] @ self.X[self.tr].T
        self.model = RLS(alpha=self.alpha, kernel="precomputed").fit(K, y)
        return self

    def predict(self, idx):
        return self.model.predict(self.X[idx[:, 0]] @ self.X[self.tr].T)


def _letor_like(rng, n_q=12, per_q=8, n=5):
    X = rng.normal(size=(n_q * per_q, n))
    q = np.repeat(np.arange(n_q), per_q)
    y = np.clip(np.round(X @ rng.normal(size=n) + rng.normal(size=len(q))), 0, 2)
    return X, y, q


def test_validation_part_path_and_per_value_fits(rng):
    from learners.ranksvm import RankSVM

    X, y, q = _letor_like(rng)
    Xv, yv, qv = _letor_like(rng)
    alphas = 2.0 ** np.arange(-3, 8, 2)

    def vmap(t, p, qq):
        return mean_average_precision(t, p, qq, ties="input_order", no_relevant="zero")
    sel = select(QueryRankRLS(solver="primal"), X, y, cv=ValidationSet(Xv, yv, qv),
                 search={"alpha": alphas}, scoring=Scoring(vmap, greater_is_better=True),
                 channels=Channels(fit={"qids": q}))
    for k, a in enumerate(alphas):
        model = QueryRankRLS(alpha=a, solver="primal").fit(X, y, q)
        assert sel.scores[k] == pytest.approx(vmap(yv, model.predict(Xv), qv), rel=1e-9)
    best = QueryRankRLS(alpha=sel.best_params["alpha"], solver="primal").fit(X, y, q)
    np.testing.assert_allclose(sel.predict(Xv), best.predict(Xv), rtol=1e-7, atol=1e-9)
    Cs = [1e-3, 1e-1, 10.0]
    svm = select(RankSVM(tol=1e-6), X, y, cv=ValidationSet(Xv, yv, qv),
                 search=Search(grid={"C": Cs}), scoring=Scoring(vmap, greater_is_better=True),
                 channels=Channels(fit={"qids": q}))
    for k, C in enumerate(Cs):
        ref = RankSVM(C=C, tol=1e-6).fit(X, y, q)
        assert svm.scores[k] == pytest.approx(vmap(yv, ref.predict(Xv), qv), rel=1e-9)
    assert svm.candidates == [{"C": C} for C in Cs]


def test_nested_cv_equals_explicit_nested_loop(rng):
    X, y, groups = gaussian_problem(rng, m=48, n_groups=8)
    K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
    alphas = 2.0 ** np.arange(-6, 7, 3)
    outer = folds_to_sets(group_folds(groups, 4, seed=0))
    res = nested_cross_validate(RLS(kernel="precomputed"), K, y, outer,
                                structure=RowStructure(groups=groups), inner_cv="group",
                                search={"alpha": alphas}, scoring="mse", progress=False)
    for test, fold in zip(outer, res["folds"]):
        train = np.setdiff1d(np.arange(len(y)), test)
        Kt = K[np.ix_(train, train)]
        inner_sets = group_sets(groups[train])
        errs = []
        for a in alphas:
            p = np.empty(train.size)
            for H in inner_sets:
                T = np.setdiff1d(np.arange(train.size), H)
                p[H] = RLS(alpha=a, kernel="precomputed").fit(Kt[np.ix_(T, T)], y[train][T]) \
                    .predict(Kt[np.ix_(H, T)])
            errs.append(np.mean((p - y[train]) ** 2))
        errs = np.array(errs)
        best = alphas[np.flatnonzero(errs <= errs.min() * (1 + 1e-12)).max()]
        assert fold["best_params"]["alpha"] == best
        explicit = RLS(alpha=best, kernel="precomputed").fit(Kt, y[train]).predict(
            K[np.ix_(test, train)])
        np.testing.assert_allclose(res["scores"][test], explicit, rtol=1e-7, atol=1e-9)


def test_two_parameter_path_refits_per_fold(rng):
    from learners.coreg import CoRLS

    m, n = 30, 4
    views = [rng.normal(size=(m, n)), rng.normal(size=(m, n))]
    y = views[0][:, 0] + views[1][:, 1] + 0.1 * rng.normal(size=m)
    U = [rng.normal(size=(10, n)), rng.normal(size=(10, n))]
    alphas, mus = [0.1, 1.0, 10.0], [0.0, 0.5]
    sets = folds_to_sets(group_folds(np.arange(m), 3, seed=2))
    h, fitted = holdout_predictions(CoRLS(), views, y, cv=sets,
                                    path={"alpha": alphas, "mu": mus},
                                    channels=Channels(fixed_fit={"X_unlabelled": U}))
    assert fitted is None and len(h.candidates) == 6
    P = h.in_row_order(m)
    for c, cand in enumerate(h.candidates):
        p = np.empty(m)
        for H in sets:
            T = np.setdiff1d(np.arange(m), H)
            model = CoRLS(alpha=cand["alpha"], mu=cand["mu"]).fit(
                [v[T] for v in views], y[T], U)
            p[H] = model.predict([v[H] for v in views])
        np.testing.assert_allclose(P[c], p, rtol=1e-7, atol=1e-9)


def test_disagreement_selection_with_queries_is_scored_per_query(rng):
    X, y, groups = gaussian_problem(rng, m=40, n_groups=5)
    alphas = [0.1, 1.0, 10.0]
    sel = select(QueryRankRLS(kernel="gaussian", gamma=0.5), X, y, cv="group",
                 search={"alpha": alphas}, scoring="disagreement",
                 structure=RowStructure(qids=groups, groups=groups),
                 channels=Channels(fit={"qids": groups}))
    P = sel.holdout.in_row_order(len(y))
    for k in range(3):
        assert sel.scores[k] == pytest.approx(disagreement_error(y, P[k], groups))
    assert sel.greater_is_better is False


def test_bad_specifications(rng):
    X, y, groups = gaussian_problem(rng, m=20)
    with pytest.raises(InvalidParameterError):
        select(RLS(), X, y, cv="bootstrap", search={"alpha": [1.0]}, scoring="mse")
    with pytest.raises(InvalidInputError):
        select(RLS(), X, y, cv="group", search={"alpha": [1.0]}, scoring="mse")
    with pytest.raises(InvalidParameterError, match="grid"):
        select(RLS(kernel="gaussian"), X, y, search={"gamma": [1.0]}, scoring="mse")
    with pytest.raises(InvalidParameterError, match="greater_is_better"):
        select(RLS(), X, y, search={"alpha": [1.0]}, scoring=lambda t, p: 0.0)
    with pytest.raises(InvalidParameterError, match="scorer"):
        select(RLS(), X, y, search={"alpha": [1.0]}, scoring="accuracy-ish")
    with pytest.raises(InvalidParameterError, match="threshold"):
        select(RLS(), X, y, search={"alpha": [1.0]}, scoring=Scoring("mse", threshold="youden"))
    with pytest.raises(InvalidParameterError):
        select(RLS(), X, y, search={"alpha": [1.0, np.nan]}, scoring="mse")


def test_scores_do_not_depend_on_the_noise_of_tied_predictions():
    """Duplicated rows tie exactly in exact arithmetic; the closed form and refitting break
    those ties by different floating-point noise, which moves a tie-sensitive measure (the
    disagreement error counts ties as errors). The engine rounds the predictions first, so
    both computations give the same scores."""
    rng = np.random.default_rng(0)
    base = rng.normal(size=(30, 4))
    X = np.vstack([base, base[::2]])                       # 15 duplicated rows
    qids = np.r_[np.repeat(np.arange(6), 5), np.repeat(np.arange(6), 5)[::2]]
    y = np.round(np.r_[base @ rng.normal(size=4), np.zeros(15)], 1)
    y[30:] = y[:30][::2] + rng.choice([0, 0.5], 15)
    est = QueryRankRLS(kernel="gaussian", gamma=0.5)
    path = {"alpha": 2.0 ** np.arange(-12, 9, 4)}
    kw = dict(cv="group", structure=RowStructure(qids=qids, groups=qids),
              channels=Channels(fit={"qids": qids}))
    closed, _ = holdout_predictions(est, X, y, path=path, **kw)
    refit, _ = holdout_predictions(est, X, y, path=path, method="refit", **kw)
    A, B = closed.in_row_order(len(y)), refit.in_row_order(len(y))
    np.testing.assert_allclose(A, B, rtol=1e-8, atol=1e-9 * np.abs(B).max())
    raw = [disagreement_error(y, a, qids) - disagreement_error(y, b, qids) for a, b in zip(A, B)]
    assert np.max(np.abs(raw)) > 1e-3                      # the noise does move the raw measure
    s1 = select(est, X, y, scoring="disagreement", search=path, **kw)
    s2 = select(est, X, y, scoring="disagreement", search=Search(path, method="refit"), **kw)
    np.testing.assert_array_equal(s1.scores, s2.scores)
    assert s1.best_params == s2.best_params


def test_refitted_classifier_predicts_decision_values(rng):
    """A classifier chosen on the retraining path (the L2-SVM held out by groups has no
    closed form) predicts the decision values its hold-out scores and threshold were
    measured on, not ±1 labels."""
    from learners import L2SVM

    X, _, groups = gaussian_problem(rng, m=60)
    y = np.where(X[:, 0] + 0.5 * rng.normal(size=len(X)) > 0, 1.0, -1.0)
    sel = select(L2SVM(kernel="gaussian", gamma=0.5), X, y, cv=group_sets(groups),
                 search={"alpha": [0.01, 0.1, 1.0]}, scoring="auc")
    scores = sel.predict(X[:20])
    best = L2SVM(kernel="gaussian", gamma=0.5, alpha=sel.best_params["alpha"]).fit(X, y)
    np.testing.assert_allclose(scores, best.decision_function(X[:20]), rtol=1e-8,
                               atol=1e-12)
    assert len(np.unique(np.round(scores, 12))) > 2
