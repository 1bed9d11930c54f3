"""The model-selection engine: hold-out predictions over a whole hyper-parameter path, scored,
one tie rule, an optional decision threshold, and nested cross-validation.

Every package chooses its hyper-parameters here (PPI: λ and threshold by
leave-one-document-out; homology: λ by leave-one-out ROC; parse ranking: λ by
leave-sentence-out disagreement; LETOR: λ / C by validation MAP; the ``RLSCV`` family of
:mod:`learners.model_selection`). The engine never re-implements a learner's shortcut: it
asks the learner for its hold-out predictions and only assembles and scores them.

How hold-out predictions are obtained (``method="auto"`` picks the first that applies):

1. **closed form** — the learner is fitted ONCE on all rows and its cached decomposition gives
   the predictions for every λ of the path and every hold-out set: ``leave_one_out(alphas)``
   (``cv="loo"``) or ``holdout_sets(sets, alphas)`` (thesis Ch. 5; RLS, RankRLS variants,
   reduced set, L2-SVM leave-one-out). Cost: one decomposition, then the learner's per-set
   and per-λ cost (stated on each learner).
2. **validation part** — ``cv=ValidationSet(X_val, y_val)``: the learner is fitted once on the
   training rows, ``predict_path(X_val, alphas=...)`` scores the validation part for the
   whole path (LETOR protocol).
3. **refit** — for learners or schemes without a closed form (co-regularized learners, explicit
   all-pairs preference graphs, RankSVM): per hold-out set the learner is refitted on the
   other rows and ``predict_path`` serves the path from that one fit; a learner without
   ``predict_path`` is refitted per path point.

The path is ``path={"alpha": [...]}`` (λ; every closed form), optionally with further path
parameters of a learner whose ``predict_path`` takes them (``{"alpha": [...], "mu": [...]}``
for the co-regularized learners: keywords ``alphas=``, ``mus=``; leading output axes in that
order), or ``path={"C": [...]}`` for RankSVM (keyword ``Cs=``: the C grid solved from the
smallest C up, each fit warm-started from the previous one). Parameters that need a new
fit (kernel parameters) go in ``param_grid``; each of its points is fitted separately.

Scoring: any measure ``measure(y, p)`` or ``measure(y, p, qids)`` of :mod:`learners.measures`
(a callable, or a name of :func:`learners.measures.get_scorer`), on the predictions of all
hold-out sets pooled (``average="pooled"``; thesis §5.3) or averaged over the sets
(``average="folds"``, sets where the measure is undefined are skipped). Multi-output targets
are scored per output and averaged.

**The tie rule** (one, for every package): among the candidates whose score equals the best
score (to a relative 1e-12, which absorbs only floating-point noise), the *most regularized*
wins — the largest λ (``alpha``), then the largest co-regularization ``mu``, the smallest
``C``, the fewest ``n_components``, the fewest basis vectors ``n_basis``; parameters
without a direction keep their grid order
(the first wins). Equal cross-validated quality, simplest model.

**Rounding before scoring.** The closed forms equal explicit retraining only to about 1e-9
relative, and rows with identical features — duplicated parses of a sentence, repeated
pairs of a document — get retrained predictions that tie exactly but closed-form
predictions that differ in their last digits. A measure that treats tied predictions
specially (the disagreement error counts them as errors, AUC as 1/2) would then score
floating-point noise, and two equivalent computations could choose different λ. So the
hold-out predictions of each candidate are rounded to 1e-9 of their largest magnitude
(:data:`PREDICTION_RTOL`) before scoring and before the threshold search: the score, and the
choice, no longer depend on which exact computation produced the predictions.

Decision threshold (``threshold="f1"``): for every candidate the F-maximizing threshold of its
pooled hold-out predictions (:func:`learners.measures.best_f_threshold`) is recorded; the
selected candidate's is the model's threshold (Paper V: λ and threshold by
leave-one-document-out).

:func:`nested_cross_validate` runs the whole selection inside each outer training part (never
on a test part) and collects the outer test predictions, in parallel through
:func:`kernelrank.parallel.map_tasks`.
"""

from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field

import numpy as np
from sklearn.base import clone
from sklearn.utils import get_tags

from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError
from kernelrank.parallel import map_tasks
from learners._validation import check_index_sets
from learners.measures import best_f_threshold, get_scorer
from learners.splits import group_folds, group_sets, folds_to_sets

__all__ = ["ValidationSet", "HoldoutPredictions", "Selection", "holdout_predictions",
           "select", "nested_cross_validate", "make_sets", "rows_of", "score_candidates",
           "best_candidate", "TIE_RTOL", "PREDICTION_RTOL", "REGULARIZATION_DIRECTION"]

#: Relative tolerance under which two scores count as tied.
TIE_RTOL = 1e-12
#: Hold-out predictions are rounded to this fraction of their largest magnitude before they
#: are scored (module docstring).
PREDICTION_RTOL = 1e-9
#: +1: a larger value regularizes more; -1: a smaller value does (used by the tie rule, in
#: this order of precedence).
REGULARIZATION_DIRECTION = {"alpha": 1, "mu": 1, "C": -1, "n_components": -1, "n_basis": -1,
                            "beta": -1}
#: Keyword of each path parameter in the learners' path methods.
_PATH_KEYWORD = {"alpha": "alphas", "mu": "mus", "C": "Cs", "beta": "betas"}


# ---------------------------------------------------------------------------- schemes
@dataclass
class ValidationSet:
    """A separate validation part: the learner is fitted on the training rows and scored here.

    Parameters
    ----------
    X, y : validation inputs (for a precomputed kernel: validation × training) and targets
    qids : array-like, optional — query of every validation row (for per-query measures)
    """

    X: object
    y: object
    qids: object = None


def make_sets(cv, m, *, groups=None, seed=0):
    """Resolve a CV specification into ``"loo"``, ``"lpo"`` or a list of index arrays.

    ``cv``: ``"loo"``; ``"lpo"`` (leave-pair-out); ``"group"`` (leave-one-group-out by
    ``groups``); an int k (k folds of whole ``groups`` when given, else of rows; seeded,
    :func:`learners.splits.group_folds`); a list of index arrays (used as given); a
    :class:`ValidationSet` (returned unchanged).
    """
    if isinstance(cv, ValidationSet):
        return cv
    if isinstance(cv, str):
        if cv in ("loo", "lpo"):
            return cv
        if cv == "group":
            if groups is None:
                raise InvalidInputError("cv='group' needs groups= (one label per row)")
            sets = group_sets(groups)
            if len(sets) < 2:
                raise InvalidInputError("cv='group' needs at least 2 groups")
            return sets
        raise InvalidParameterError(f"unknown cv {cv!r}; use 'loo', 'lpo', 'group', an int, "
                                    "a list of index arrays or a ValidationSet")
    if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
        labels = np.arange(m) if groups is None else groups
        return folds_to_sets(group_folds(labels, int(cv), seed))
    try:
        return check_index_sets(list(cv), m, "cv")
    except TypeError as exc:
        raise InvalidParameterError(f"cv must be 'loo', 'lpo', 'group', an int, a list of "
                                    f"index arrays or a ValidationSet, got {cv!r}") from exc


def rows_of(X, rows, cols=None, pairwise=False):
    """Rows of an input: a matrix, a list of views (multi-view learners) or, for a precomputed
    kernel (``pairwise``), the block ``X[rows][:, cols]`` (``cols`` defaults to ``rows``)."""
    if isinstance(X, (list, tuple)):
        return [rows_of(v, rows, cols, pairwise) for v in X]
    if pairwise:
        return X[np.ix_(rows, rows if cols is None else cols)]
    return X[rows]


def _slice_params(params, rows):
    return {k: (None if v is None else np.asarray(v)[rows]) for k, v in (params or {}).items()}


# ---------------------------------------------------------------------------- path
def _path_points(path):
    """``(names, value arrays, candidate dicts)`` of a path in C order."""
    if not path:
        return [], [], [{}]
    names = list(path)
    values = []
    for name in names:
        v = np.asarray(path[name], dtype=float).ravel()
        if v.size == 0 or not np.all(np.isfinite(v)):
            raise InvalidParameterError(f"path {name!r} must be a non-empty list of finite "
                                        f"numbers, got {path[name]!r}")
        values.append(v)
    points = [dict(zip(names, map(float, combo))) for combo in itertools.product(*values)]
    return names, values, points


def _path_parameters(est):
    """The parameters whose whole path the learner's closed forms serve from one fit, in the
    order of its outputs' leading axes (``path_parameters``; λ alone by default)."""
    return tuple(getattr(est, "path_parameters", ("alpha",)))


def _candidate_axis(P, names, est):
    """Path outputs with one leading axis per parameter as one candidate axis in the path's
    order (C order of ``names``, as :func:`_path_points` enumerates them). The axes come in
    the learner's declared ``path_parameters`` order when it declares the path's parameters,
    else in the path's order."""
    k = max(len(names), 1)
    declared = getattr(est, "path_parameters", ())
    if len(names) > 1 and set(names) <= set(declared):
        order = [n for n in declared if n in names]
        if order != list(names):
            P = P.transpose([order.index(n) for n in names] + list(range(k, P.ndim)))
    return P.reshape((-1,) + P.shape[k:])


def _path_kwargs(names, values):
    out = {}
    for name, v in zip(names, values):
        if name not in _PATH_KEYWORD:
            raise InvalidParameterError(
                f"{name!r} is not a path parameter (known: {sorted(_PATH_KEYWORD)}); put it "
                "in param_grid so that each value is fitted")
        out[_PATH_KEYWORD[name]] = v
    return out


# ---------------------------------------------------------------------------- predictions
@dataclass
class HoldoutPredictions:
    """Hold-out predictions of every candidate.

    Attributes
    ----------
    candidates : list of dict — one per candidate (path point, possibly with grid values)
    parts : list of (rows, y, qids, P) — rows (int array into the training data, or None for
        a validation part), their targets / labels, query ids (or None), predictions
        ``P`` of shape (n_candidates, n_rows[, t])
    """

    candidates: list
    parts: list = field(default_factory=list)

    def pooled(self):
        """``(y, qids, P)`` with all parts concatenated (P: (n_candidates, Σ n_rows[, t]))."""
        y = np.concatenate([p[1] for p in self.parts])
        q = None if self.parts[0][2] is None else np.concatenate([p[2] for p in self.parts])
        P = np.concatenate([p[3] for p in self.parts], axis=1)
        return y, q, P

    def snapped(self):
        """The same predictions rounded to :data:`PREDICTION_RTOL` of each candidate's
        largest magnitude (over all parts) — what the engine scores (module docstring)."""
        scale = np.zeros(len(self.candidates))
        for *_, P in self.parts:
            if P.size:
                scale = np.maximum(scale, np.abs(P).reshape(P.shape[0], -1).max(axis=1))
        step = PREDICTION_RTOL * np.where(scale > 0, scale, 1.0)
        parts = []
        for r, y, q, P in self.parts:
            st = step.reshape((-1,) + (1,) * (P.ndim - 1))
            parts.append((r, y, q, np.round(P / st) * st))
        return HoldoutPredictions(self.candidates, parts)

    def in_row_order(self, m):
        """Predictions (n_candidates, m[, t]) in training-row order when the parts partition
        the rows 0..m-1; otherwise None (overlapping sets, a validation part)."""
        if any(p[0] is None for p in self.parts):
            return None
        rows = np.concatenate([p[0] for p in self.parts])
        if rows.size != m or np.unique(rows).size != m:
            return None
        first = self.parts[0][3]
        out = np.empty((first.shape[0], m) + first.shape[2:])
        for r, _, _, P in self.parts:
            out[:, r] = P
        return out


def _fit(estimator, X, y, fit_params, fixed_fit_params):
    kw = dict(fit_params or {})
    kw.update(fixed_fit_params or {})
    if y is None:
        return estimator.fit(X, **kw)
    return estimator.fit(X, y, **kw)


def _has(est, name):
    return callable(getattr(est, name, None))


def _pairwise(est):
    try:
        return bool(get_tags(est).input_tags.pairwise)
    except (AttributeError, TypeError, ValueError):
        return False


def holdout_predictions(estimator, X, y=None, *, cv="loo", path=None, params=None,
                        fit_params=None, fixed_fit_params=None, y_eval=None, qids=None,
                        method="auto", groups=None, seed=0, predict_params=None):
    """Hold-out predictions of ``estimator`` for every point of ``path`` (module docstring).

    Parameters
    ----------
    estimator : unfitted learner (it is cloned)
    X, y : training data (y None for learners fitted without targets, e.g. from pairs)
    cv : see :func:`make_sets`
    path : dict name → values, e.g. ``{"alpha": alphas}``
    params : dict, optional — fixed parameters set on the clone before fitting
    fit_params : dict of row-aligned arrays passed to ``fit`` (sliced with the rows when
        refitting), e.g. ``{"qids": qids}``
    fixed_fit_params : dict passed to ``fit`` unchanged (e.g. unlabelled data)
    y_eval : array-like (m,), optional — the labels the measure compares with (default ``y``;
        differs when the fit targets are transformed, e.g. class-balanced RLS targets)
    qids : array-like (m,), optional — query of every row, passed to per-query measures
    method : {"auto", "closed_form", "refit"}
    predict_params : dict of row-aligned arrays, optional — what the learner's prediction
        of held-out rows also needs (sliced to them when refitting), e.g. the source
        hypothesis' ``prior`` of :class:`learners.transfer.TransferRLS` (its closed forms
        keep the training rows' own; a :class:`ValidationSet` takes none)

    Returns
    -------
    (HoldoutPredictions, fitted) — ``fitted`` is the learner fitted once on all rows (closed
    form and validation), else None.
    """
    if method not in ("auto", "closed_form", "refit"):
        raise InvalidParameterError(f"method must be 'auto', 'closed_form' or 'refit', got "
                                    f"{method!r}")
    m = _n_rows(X)
    names, values, points = _path_points(path)
    base = clone(estimator).set_params(**(params or {}))
    y_eval = y if y_eval is None else y_eval
    y_eval = None if y_eval is None else np.asarray(y_eval)
    q_all = None if qids is None else np.asarray(qids)
    scheme = make_sets(cv, m, groups=groups, seed=seed)
    pairwise = _pairwise(base)
    out = HoldoutPredictions([dict(params or {}, **p) for p in points])
    closed_path = set(names) <= set(_path_parameters(base))

    if isinstance(scheme, ValidationSet):
        P, fitted = _fit_predict_path(base, X, y, fit_params, fixed_fit_params, scheme.X,
                                      names, values, points)
        qv = None if scheme.qids is None else np.asarray(scheme.qids)
        out.parts.append((None, np.asarray(scheme.y), qv, P))
        return out, fitted

    if scheme == "lpo":
        raise InvalidParameterError("cv='lpo' is scored by the leave-pair-out error; use "
                                    "select(..., cv='lpo')")
    closed = closed_path and method != "refit" and (
        _has(base, "leave_one_out") if scheme == "loo" else _has(base, "holdout_sets"))
    if method == "closed_form" and not closed:
        raise InvalidParameterError(
            f"{type(base).__name__} has no closed-form hold-out for this scheme and path")
    if closed:
        fitted = _fit(_start_of_path(base, names, values), X, y, fit_params, fixed_fit_params)
        kw = _path_kwargs(names, values) if names else {"alphas": [fitted.alpha]}
        if scheme == "loo":
            P = _candidate_axis(np.asarray(fitted.leave_one_out(**kw)), names, base)
            out.parts.append((np.arange(m), _part(y_eval, None), _part(q_all, None), P))
        else:
            for H, P in zip(scheme, fitted.holdout_sets(scheme, **kw)):
                out.parts.append((H, _part(y_eval, H), _part(q_all, H),
                                  _candidate_axis(np.asarray(P), names, base)))
        return out, fitted

    sets = [np.array([i]) for i in range(m)] if scheme == "loo" else scheme
    for H in sets:
        train = np.setdiff1d(np.arange(m), H)
        Xtr = rows_of(X, train, pairwise=pairwise)
        Xte = rows_of(X, H, train, pairwise=pairwise)
        ytr = None if y is None else np.asarray(y)[train]
        P, _ = _fit_predict_path(base, Xtr, ytr, _slice_params(fit_params, train),
                                 fixed_fit_params, Xte, names, values, points,
                                 _slice_params(predict_params, H))
        out.parts.append((H, _part(y_eval, H), _part(q_all, H), P))
    return out, None


def _n_rows(X):
    if isinstance(X, (list, tuple)):
        return _n_rows(X[0])
    return X.shape[0]


def _part(a, rows):
    if a is None:
        return None
    return a if rows is None else a[rows]


def _start_of_path(est, names, values):
    """Fit at the most regularized λ (largest) or C (smallest) of the path: the
    best-conditioned system, and where a warm-started path (L2-SVM, RankSVM) begins. The
    closed forms do not depend on the fitted λ."""
    if "alpha" in names:
        est = clone(est).set_params(alpha=float(np.max(values[names.index("alpha")])))
    if "C" in names:
        est = clone(est).set_params(C=float(np.min(values[names.index("C")])))
    return est


def _fit_predict_path(base, X, y, fit_params, fixed_fit_params, X_new, names, values,
                      points, predict_params=None):
    """Fit on (X, y) and predict ``X_new`` (with ``predict_params``) at every path point:
    ``(P (n_points, n_new[, t]), fitted)``. One fit and one ``predict_path`` call when the
    learner has it (``fitted`` is then the path model); else one fit per point (``fitted``
    None: the winner is refitted)."""
    pp = predict_params or {}
    if not names:
        fitted = _fit(clone(base), X, y, fit_params, fixed_fit_params)
        return np.asarray(fitted.predict(X_new, **pp))[None], fitted
    if _has(base, "predict_path"):
        fitted = _fit(_start_of_path(base, names, values), X, y, fit_params, fixed_fit_params)
        P = np.asarray(fitted.predict_path(X_new, **_path_kwargs(names, values), **pp))
        return _candidate_axis(P, names, base), fitted
    rows = [np.asarray(_fit(clone(base).set_params(**point), X, y, fit_params,
                            fixed_fit_params).predict(X_new, **pp)) for point in points]
    return np.stack(rows), None


# ---------------------------------------------------------------------------- scoring
def _resolve_scorer(scoring, greater_is_better):
    if isinstance(scoring, str):
        fn, greater = get_scorer(scoring)
        return fn, greater
    if callable(scoring):
        if greater_is_better is None:
            raise InvalidParameterError("a callable scoring needs greater_is_better=True/False")
        return scoring, bool(greater_is_better)
    raise InvalidParameterError(f"scoring must be a measure name or a callable, got "
                                f"{scoring!r}")


def _call(fn, y, p, q):
    if p.ndim == 2:                      # multiple outputs: mean over outputs
        yy = y if y.ndim == 2 else np.repeat(y[:, None], p.shape[1], axis=1)
        return float(np.mean([_call(fn, yy[:, j], p[:, j], q) for j in range(p.shape[1])]))
    return float(fn(y, p) if q is None else fn(y, p, q))


def score_candidates(holdout, scoring, *, greater_is_better=None, average="pooled"):
    """Score of every candidate: ``(scores (n_candidates,), greater_is_better)``.

    ``average="pooled"`` computes the measure once on all hold-out predictions;
    ``"folds"`` averages it over the parts, skipping parts where it is undefined (a
    candidate undefined on every part scores NaN, and NaN never wins).
    """
    fn, greater = _resolve_scorer(scoring, greater_is_better)
    if average not in ("pooled", "folds"):
        raise InvalidParameterError(f"average must be 'pooled' or 'folds', got {average!r}")
    holdout = holdout.snapped()
    n = len(holdout.candidates)
    scores = np.full(n, np.nan)
    if average == "pooled":
        y, q, P = holdout.pooled()
        for c in range(n):
            try:
                scores[c] = _call(fn, y, P[c], q)
            except UndefinedMeasureError:
                pass
        return scores, greater
    for c in range(n):
        vals = []
        for _, y, q, P in holdout.parts:
            try:
                vals.append(_call(fn, y, P[c], q))
            except UndefinedMeasureError:
                continue
        if vals:
            scores[c] = float(np.mean(vals))
    return scores, greater


def best_candidate(scores, candidates, greater_is_better):
    """Index of the winner under the tie rule (module docstring)."""
    s = np.asarray(scores, dtype=float)
    s = s if greater_is_better else -s
    ok = np.isfinite(s)
    if not ok.any():
        raise UndefinedMeasureError("the selection measure is undefined for every candidate")
    best = s[ok].max()
    tied = np.flatnonzero(ok & (s >= best - TIE_RTOL * abs(best)))

    def key(i):
        c = candidates[i]
        return tuple(-REGULARIZATION_DIRECTION[p] * c[p] for p in REGULARIZATION_DIRECTION
                     if p in c) + (i,)
    return int(min(tied, key=key))


# ---------------------------------------------------------------------------- select
class Selection:
    """The outcome of :func:`select`.

    Attributes
    ----------
    candidates : list of dict
    scores : ndarray (n_candidates,)
    greater_is_better : bool
    best_index : int
    best_params : dict — the winner (path and grid parameters)
    best_score : float
    thresholds : ndarray (n_candidates,) or None — best-F threshold of each candidate
    threshold : float or None — the winner's decision threshold
    threshold_details : list of BestF or None
    holdout : HoldoutPredictions
    model : the learner fitted once on all rows for the winner's grid point (closed form,
        validation), or the refitted best estimator
    seconds : float — wall time of the selection
    """

    def __init__(self, **kw):
        self.__dict__.update(kw)

    def predict(self, X, **predict_params):
        """Predictions of the selected model: from the once-fitted path (``predict_path`` at
        the winner; no refit) or from the refitted best estimator — its decision values when
        it is a classifier with ``decision_function`` (:class:`learners.l2svm.L2SVM`): the
        hold-out predictions that chose it and its threshold were decision values, not
        labels. ``predict_params`` go to the learner's prediction method (e.g. the source
        hypothesis' ``prior`` of :class:`learners.transfer.TransferRLS`)."""
        path = {k: v for k, v in self.best_params.items() if k in self.path_names}
        if path and _has(self.model, "predict_path") and self.model_is_path:
            kw = {_PATH_KEYWORD[k]: [v] for k, v in path.items()}
            P = np.asarray(self.model.predict_path(X, **kw, **predict_params))
            return P.reshape(P.shape[len(kw):])
        if _has(self.model, "decision_function"):
            return self.model.decision_function(X, **predict_params)
        return self.model.predict(X, **predict_params)

    def holdout_predictions_of_best(self):
        """Hold-out predictions of the winner in training-row order (or None, see
        :meth:`HoldoutPredictions.in_row_order`)."""
        P = self.holdout.in_row_order(self.n_rows)
        return None if P is None else P[self.best_index]

    def grid(self):
        """One dict per candidate: its parameters, score (and threshold / P / R with
        ``threshold="f1"``) — JSON friendly."""
        rows = []
        for i, c in enumerate(self.candidates):
            row = dict(c, score=float(self.scores[i]))
            if self.threshold_details is not None and self.threshold_details[i] is not None:
                b = self.threshold_details[i]
                row.update(threshold=b.threshold, f1=b.f1, precision=b.precision,
                           recall=b.recall)
            rows.append(row)
        return rows


def select(estimator, X, y=None, *, cv="loo", path=None, param_grid=None, scoring,
           greater_is_better=None, average="pooled", threshold=None, y_eval=None, qids=None,
           groups=None, fit_params=None, fixed_fit_params=None, method="auto", refit=False,
           seed=0, predict_params=None):
    """Choose hyper-parameters of ``estimator`` by hold-out predictions over a path.

    Parameters
    ----------
    estimator : unfitted learner
    X, y : training data
    cv : "loo" | "lpo" | "group" | int | list of index arrays | ValidationSet
        (:func:`make_sets`; ``groups`` for "group" and grouped k-fold, ``seed`` for k-fold)
    path : dict, e.g. ``{"alpha": 2.0 ** np.arange(-10, 11)}`` — served from one fit
    param_grid : dict name → list, or list of such dicts — each point fitted separately
    scoring : measure name (:func:`learners.measures.get_scorer`) or callable
        ``(y, p[, qids])``; ``greater_is_better`` is required for a callable
    average : "pooled" | "folds"
    threshold : None | "f1" — record the best-F decision threshold of every candidate
    y_eval, qids, fit_params, fixed_fit_params, method, predict_params : see
        :func:`holdout_predictions`
    refit : bool — fit ``estimator`` at the winner on all rows (``Selection.model``) even
        when the once-fitted path model could predict (needed to save coefficients)

    Returns
    -------
    Selection
    """
    t0 = time.perf_counter()
    if threshold not in (None, "f1"):
        raise InvalidParameterError(f"threshold must be None or 'f1', got {threshold!r}")
    grid = _grid_points(param_grid)
    m = _n_rows(X)
    if isinstance(cv, str) and cv == "lpo":
        return _select_lpo(estimator, X, y, path, grid, fit_params, fixed_fit_params, t0)
    holdout, models, candidates = None, [], []
    for point in grid:
        h, fitted = holdout_predictions(estimator, X, y, cv=cv, path=path, params=point,
                                        fit_params=fit_params,
                                        fixed_fit_params=fixed_fit_params, y_eval=y_eval,
                                        qids=qids, method=method, groups=groups, seed=seed,
                                        predict_params=predict_params)
        models.extend([fitted] * len(h.candidates))
        candidates.extend(h.candidates)
        holdout = h if holdout is None else _stack(holdout, h)
    scores, greater = score_candidates(holdout, scoring, greater_is_better=greater_is_better,
                                       average=average)
    details = thresholds = None
    if threshold == "f1":
        yp, _, P = holdout.snapped().pooled()
        details = [_best_f_or_none(yp, P[c]) for c in range(len(candidates))]
        thresholds = np.array([np.nan if d is None else d.threshold for d in details])
    best = best_candidate(scores, candidates, greater)
    best_params = dict(candidates[best])
    path_names = list(path or {})
    model, model_is_path = models[best], True
    if model is None or refit:
        model = _fit(clone(estimator).set_params(**best_params), X, y, fit_params,
                     fixed_fit_params)
        model_is_path = False
    thr = None
    if details is not None:
        if details[best] is None:
            raise UndefinedMeasureError("no decision threshold: the hold-out labels of the "
                                        "selected candidate have no positive example")
        thr = details[best].threshold
    return Selection(candidates=candidates, scores=scores, greater_is_better=greater,
                     best_index=best, best_params=best_params, best_score=float(scores[best]),
                     thresholds=thresholds, threshold=thr, threshold_details=details,
                     holdout=holdout, model=model, model_is_path=model_is_path,
                     path_names=path_names, n_rows=m, seconds=time.perf_counter() - t0)


def _best_f_or_none(y, p):
    try:
        return best_f_threshold(y, p)
    except UndefinedMeasureError:
        return None


def _grid_points(param_grid):
    if param_grid is None:
        return [{}]
    grids = param_grid if isinstance(param_grid, list) else [param_grid]
    points = []
    for g in grids:
        if not isinstance(g, dict):
            raise InvalidParameterError("param_grid must be a dict name -> list of values, or "
                                        "a list of such dicts")
        keys = sorted(g)
        points += [dict(zip(keys, vals)) for vals in itertools.product(*(g[k] for k in keys))]
    return points


def _stack(a, b):
    """Concatenate the candidates of two hold-out results over the same parts."""
    parts = [(ra, ya, qa, np.concatenate([Pa, Pb], axis=0))
             for (ra, ya, qa, Pa), (_, _, _, Pb) in zip(a.parts, b.parts)]
    return HoldoutPredictions(a.candidates + b.candidates, parts)


def _select_lpo(estimator, X, y, path, grid, fit_params, fixed_fit_params, t0):
    """Leave-pair-out over all pairs with different labels, scored by the leave-pair-out
    error: 1 − fraction of held-out pairs ordered correctly (ties count 1/2; with several
    outputs the pair's prediction difference is averaged over outputs)."""
    names, values, points = _path_points(path)
    if names not in ([], ["alpha"]):
        raise InvalidParameterError("cv='lpo' takes a path over alpha only")
    yy = np.asarray(y, dtype=float)
    y1 = yy if yy.ndim == 1 else yy[:, 0]
    i, j = np.nonzero(np.subtract.outer(y1, y1) > 0)
    if i.size == 0:
        raise UndefinedMeasureError("leave-pair-out needs two different labels")
    pairs = np.column_stack([i, j])
    candidates, errors, preds, models = [], [], [], []
    for point in grid:
        base = clone(estimator).set_params(**point)
        fitted = _fit(_start_of_path(base, names, values), X, y, fit_params, fixed_fit_params)
        alphas = values[0] if names else [fitted.alpha]
        P = np.asarray(fitted.leave_pair_out(pairs, alphas=alphas))   # (n_l, n, 2[, t])
        d = P[:, :, 0] - P[:, :, 1]
        if d.ndim == 3:
            d = d.mean(axis=2)
        errors.append(1.0 - np.mean((d > 0) + 0.5 * (d == 0), axis=1))
        preds.append(P)
        candidates += [dict(point, **p) for p in points] if names else [dict(point)]
        models += [fitted] * len(alphas)
    scores = np.concatenate(errors)
    best = best_candidate(scores, candidates, False)
    holdout = HoldoutPredictions(candidates, [(None, None, None, np.concatenate(preds))])
    return Selection(candidates=candidates, scores=scores, greater_is_better=False,
                     best_index=best, best_params=dict(candidates[best]),
                     best_score=float(scores[best]), thresholds=None, threshold=None,
                     threshold_details=None, holdout=holdout, model=models[best],
                     model_is_path=True, path_names=list(path or {}), n_rows=_n_rows(X),
                     pairs=pairs, seconds=time.perf_counter() - t0)


# ---------------------------------------------------------------------------- nested CV
def nested_cross_validate(estimator, X, y, outer_sets, *, inner_cv="group", groups=None,
                          jobs=1, progress=True, desc="nested cv", predict_params=None,
                          **select_kw):
    """Outer hold-out sets; inside each training part the whole :func:`select`.

    Parameters
    ----------
    estimator : unfitted learner, or a callable ``n_train -> learner`` (the learner may
        depend on the training size, e.g. a reduced-set learner only above its basis size)
    X, y : as for :func:`select` (X sliced per fold; a precomputed kernel on both axes)
    outer_sets : list of index arrays — the outer test parts (e.g. from
        :func:`learners.splits.group_folds` + :func:`learners.splits.folds_to_sets`)
    inner_cv : the ``cv`` of the inner selection, resolved on the training rows
        ("group": leave-one-group-out by ``groups`` restricted to them)
    groups : array-like (m,), optional — group of every row (documents, sentences)
    predict_params : dict of row-aligned arrays, optional — passed, sliced to the test rows,
        to the selected model's prediction (e.g. ``{"prior": g}`` beside
        ``fit_params={"prior": g}`` for :class:`learners.transfer.TransferRLS`)
    jobs : int — outer folds run in parallel (:func:`kernelrank.parallel.map_tasks`)
    **select_kw : passed to :func:`select` (path, scoring, threshold, fit_params, qids, ...;
        row-aligned ``fit_params``, ``qids`` and ``y_eval`` are sliced per fold)

    Returns
    -------
    dict with ``scores`` (m,) outer test predictions (rows outside every test part: NaN),
    ``folds`` (per outer fold: ``test`` rows, ``selection`` summary ``best_params``,
    ``best_score``, ``threshold``, ``grid``, and ``seconds``).
    """
    m = _n_rows(X)
    outer_sets = check_index_sets(list(outer_sets), m, "outer_sets")
    g_all = None if groups is None else np.asarray(groups)
    factory = estimator if callable(estimator) and not hasattr(estimator, "fit") else \
        (lambda n_train: estimator)

    def one(test):
        t0 = time.perf_counter()
        train = np.setdiff1d(np.arange(m), test)
        est = factory(train.size)
        pairwise = _pairwise(est)
        kw = dict(select_kw)
        for key in ("y_eval", "qids"):
            if kw.get(key) is not None:
                kw[key] = np.asarray(kw[key])[train]
        kw["fit_params"] = _slice_params(kw.get("fit_params"), train)
        if predict_params:
            kw["predict_params"] = _slice_params(predict_params, train)
        sel = select(est, rows_of(X, train, pairwise=pairwise),
                     None if y is None else np.asarray(y)[train], cv=inner_cv,
                     groups=None if g_all is None else g_all[train], **kw)
        if hasattr(sel.model, "release_training_rows"):
            sel.model.release_training_rows()   # inner CV done: its O(m r) rows are not needed
        s = np.asarray(sel.predict(rows_of(X, test, train, pairwise=pairwise),
                                   **_slice_params(predict_params, test)))
        return {"test": test, "scores": s, "best_params": sel.best_params,
                "best_score": sel.best_score, "threshold": sel.threshold,
                "grid": sel.grid(), "seconds": time.perf_counter() - t0}

    results = map_tasks(one, outer_sets, jobs=jobs, desc=desc, progress=progress)
    first = results[0]["scores"]
    scores = np.full((m,) + first.shape[1:], np.nan)
    for r in results:
        scores[r["test"]] = r["scores"]
    return {"scores": scores, "folds": results}
