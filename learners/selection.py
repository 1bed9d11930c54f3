"""The model-selection engine: hold-out predictions over a whole hyper-parameter path, scored,
one tie rule, an optional decision threshold, and nested cross-validation.

One concept, choosing hyper-parameters from hold-out predictions, in one module of about 800
lines (a hundred of them this docstring): its inputs (:class:`Search`, :class:`Scoring`,
:class:`Channels`), the hold-out predictions, their scoring and tie rule, the outcome
(:class:`Selection`) and the nested loop around it; the splitters live in
:mod:`learners.splits`, what it asks of a learner in :mod:`learners.base`.

**Two doors, one engine.** Users of the library meet the scikit-learn-style door: the
``*CV`` estimators (:class:`learners.model_selection.RLSCV`, ``GlobalRankRLSCV``,
``QueryRankRLSCV``: ``fit`` / ``predict`` / ``alpha_``), as ``RidgeCV`` is scikit-learn's
door to its private ``_RidgeGCV``. :func:`select` is the engine beneath them, and beneath
every package's protocol (PPI: λ and threshold by leave-one-document-out; homology: λ by
leave-one-out ROC; parse ranking: λ by leave-sentence-out disagreement; LETOR: λ / C by
validation MAP). The engine never re-implements a learner's shortcut: it asks the learner
for its hold-out predictions (the :class:`learners.base.PathLearner` protocol) and only
assembles and scores them.

``select(estimator, X, y, *, cv, search, scoring, structure, channels)``, each argument one
concept:

* ``cv`` — a splitter of :mod:`learners.splits` (:class:`~learners.splits.LeaveOneOut`,
  :class:`~learners.splits.LeavePairOut`, :class:`~learners.splits.KFold`,
  :class:`~learners.splits.GroupKFold`, :class:`~learners.splits.LeaveOneGroupOut`,
  :class:`~learners.splits.HoldoutSets`, :class:`ValidationSet`) or a legacy form
  (``"loo"``, ``"lpo"``, ``"group"``, an int, a list of index arrays) that
  :func:`learners.splits.check_cv` turns into one;
* ``search`` — the candidates (:class:`Search`: the ``path`` served from one fit, the
  ``grid`` of parameters fitted separately, the ``method``, whether to ``refit``); a dict
  is the path;
* ``scoring`` — a measure name, a callable, or :class:`Scoring` (with its direction, the
  averaging over parts and the decision threshold);
* ``structure`` — the rows' structure (:class:`learners.splits.RowStructure`: queries,
  groups, pairs, evaluation labels);
* ``channels`` — what the learner's ``fit`` and prediction also take (:class:`Channels`).

How hold-out predictions are obtained (``method="auto"`` picks the first that applies; one
route for every splitter):

1. **closed form** — the learner is fitted ONCE on all rows and its cached decomposition gives
   the predictions for every λ of the path and every hold-out set: the splitter names the
   learner's method (``leave_one_out`` for leave-one-out, ``holdout_sets`` for any sets,
   ``leave_pair_out`` for leave-pair-out; thesis Ch. 5; RLS, RankRLS variants, reduced set,
   L2-SVM leave-one-out). Cost: one decomposition, then the learner's per-set and per-λ cost
   (stated on each learner).
2. **refit** — for learners or schemes without a closed form (co-regularized learners,
   explicit all-pairs preference graphs, RankSVM): per hold-out set the learner is refitted
   on the other rows and ``predict_path`` serves the path from that one fit; a learner
   without ``predict_path`` is refitted per path point. A :class:`ValidationSet` is one such
   fold whose training part is all rows: one fit, its ``predict_path`` scores the validation
   part for the whole path (LETOR protocol).

The path is ``{"alpha": [...]}`` (λ; every closed form), optionally with further path
parameters of a learner whose ``predict_path`` takes them (``{"alpha": [...], "mu": [...]}``
for the co-regularized learners: keywords ``alphas=``, ``mus=``; leading output axes in that
order; :data:`learners.base.PATH_KEYWORDS`), or ``{"C": [...]}`` for RankSVM (keyword
``Cs=``: the C grid solved from the smallest C up, each fit warm-started from the previous
one). Parameters that need a new fit (kernel parameters) go in ``Search(grid=...)``; each of
its points is fitted separately.

Scoring (:class:`Scoring`): any measure ``measure(y, p)`` or ``measure(y, p, qids)`` of
:mod:`learners.measures` (a callable, or a name of :func:`learners.measures.get_scorer`),
on the predictions of all hold-out sets pooled (``average="pooled"``; thesis §5.3) or
averaged over the sets (``average="folds"``, sets where the measure is undefined are
skipped). Multi-output targets are scored per output and averaged.

**The tie rule** (one, for every package): among the candidates whose score equals the best
score (to a relative 1e-12, which absorbs only floating-point noise), the *most regularized*
wins — the largest λ (``alpha``), then the largest co-regularization ``mu``, the smallest
``C``, the fewest ``n_components``, the fewest basis vectors ``n_basis``; parameters
without a direction keep their grid order (the first wins). Equal cross-validated quality,
simplest model.

**Rounding before scoring.** The closed forms equal explicit retraining only to about 1e-9
relative, and rows with identical features — duplicated parses of a sentence, repeated
pairs of a document — get retrained predictions that tie exactly but closed-form
predictions that differ in their last digits. A measure that treats tied predictions
specially (the disagreement error counts them as errors, AUC as 1/2) would then score
floating-point noise, and two equivalent computations could choose different λ. So the
hold-out predictions of each candidate are rounded to 1e-9 of their largest magnitude
(:data:`PREDICTION_RTOL`) before scoring and before the threshold search: the score, and the
choice, do not depend on which exact computation produced the predictions.

Decision threshold (``threshold="f1"``): for every candidate the F-maximizing threshold of its
pooled hold-out predictions (:func:`learners.measures.best_f_threshold`) is recorded; the
selected candidate's is the model's threshold (Paper V: λ and threshold by
leave-one-document-out). Leave-pair-out is scored by its own error
(:class:`learners.splits.LeavePairOut`).

:func:`nested_cross_validate` runs the whole selection inside each outer training part (never
on a test part) and collects the outer test predictions, in parallel through
:func:`kernelrank.parallel.map_tasks`.
"""


from __future__ import annotations

import itertools
import time
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
from sklearn.base import clone

from kernelrank.errors import InvalidParameterError, UndefinedMeasureError
from kernelrank.parallel import map_tasks
from learners._validation import check_index_sets
from learners.base import (
    PATH_KEYWORDS,
    is_pairwise,
    path_parameters,
    require,
    supports,
)
from learners.measures import best_f_threshold, get_scorer
from learners.splits import RowStructure, ValidationSet, check_cv, n_samples, rows_of

__all__ = ["Search", "Scoring", "Channels", "RowStructure", "ValidationSet", "HoldoutPart",
           "HoldoutPredictions", "Selection", "holdout_predictions", "select",
           "nested_cross_validate", "rows_of", "score_candidates", "best_candidate",
           "TIE_RTOL", "PREDICTION_RTOL", "REGULARIZATION_DIRECTION"]

#: Relative tolerance under which two scores count as tied.
TIE_RTOL = 1e-12
#: Hold-out predictions are rounded to this fraction of their largest magnitude before they
#: are scored (module docstring).
PREDICTION_RTOL = 1e-9
#: +1: a larger value regularizes more; -1: a smaller value does (used by the tie rule, in
#: this order of precedence).
REGULARIZATION_DIRECTION = {"alpha": 1, "mu": 1, "C": -1, "n_components": -1, "n_basis": -1,
                            "beta": -1}
_METHODS = ("auto", "closed_form", "refit")


# ---------------------------------------------------------------------------- inputs
@dataclass(frozen=True)
class Search:
    """The candidates of a selection and how their hold-out predictions are obtained.

    Parameters
    ----------
    path : dict name → values, optional
        Served from one fit (``{"alpha": 2.0 ** np.arange(-10, 11)}``; module docstring).
    grid : dict name → list, or list of such dicts, optional
        Parameters fitted separately, one fit per point (kernel parameters, ``n_basis``).
    method : {"auto", "closed_form", "refit"}
        ``"auto"``: the learner's closed form when it has one for the splitter and path,
        else refit per hold-out set; ``"closed_form"``: raise when there is none.
    refit : bool
        Fit the learner at the winner on all rows (``Selection.model``) even when the
        once-fitted path model could predict (needed to save coefficients).
    """

    path: dict = None
    grid: object = None
    method: str = "auto"
    refit: bool = False

    def __post_init__(self):
        if self.method not in _METHODS:
            raise InvalidParameterError(f"method must be 'auto', 'closed_form' or 'refit', "
                                        f"got {self.method!r}")

    @classmethod
    def of(cls, search):
        """``search`` as a :class:`Search`: None → no path; a dict → the path."""
        if search is None:
            return cls()
        if isinstance(search, dict):
            return cls(path=search)
        if not isinstance(search, cls):
            raise InvalidParameterError(f"search must be a Search or a dict name -> path "
                                        f"values, got {search!r}")
        return search

    def grid_points(self):
        """The points of ``grid`` (sorted keys, C order), ``[{}]`` without a grid."""
        if self.grid is None:
            return [{}]
        grids = self.grid if isinstance(self.grid, list) else [self.grid]
        points = []
        for g in grids:
            if not isinstance(g, dict):
                raise InvalidParameterError("the grid must be a dict name -> list of values, "
                                            "or a list of such dicts")
            keys = sorted(g)
            points += [dict(zip(keys, vals))
                       for vals in itertools.product(*(g[k] for k in keys))]
        return points


@dataclass(frozen=True)
class Scoring:
    """How candidates are scored.

    Parameters
    ----------
    measure : str or callable
        A measure name (:func:`learners.measures.get_scorer`) or a callable
        ``measure(y, p[, qids])``.
    greater_is_better : bool, optional
        Required for a callable; a name knows its direction.
    average : {"pooled", "folds"}
        All hold-out predictions at once, or the mean over the hold-out parts (module
        docstring).
    threshold : None or "f1"
        Record the best-F decision threshold of every candidate.
    """

    measure: object
    greater_is_better: object = None
    average: str = "pooled"
    threshold: object = None

    def __post_init__(self):
        if self.threshold not in (None, "f1"):
            raise InvalidParameterError(f"threshold must be None or 'f1', got "
                                        f"{self.threshold!r}")
        if self.average not in ("pooled", "folds"):
            raise InvalidParameterError(f"average must be 'pooled' or 'folds', got "
                                        f"{self.average!r}")
        _resolve_scorer(self.measure, self.greater_is_better)

    @classmethod
    def of(cls, scoring):
        """``scoring`` as a scorer: a name or callable → :class:`Scoring`; a
        :class:`Scoring` (or a splitter's own scorer) unchanged."""
        if callable(getattr(scoring, "scores", None)):
            return scoring
        return cls(scoring)

    def scores(self, holdout):
        """``(scores (n_candidates,), greater_is_better)`` (:func:`score_candidates`)."""
        return score_candidates(holdout, self.measure, greater_is_better=self.greater_is_better,
                                average=self.average)


def _take_params(params, rows):
    return {k: (None if v is None else np.asarray(v)[rows]) for k, v in (params or {}).items()}


@dataclass(frozen=True)
class Channels:
    """What the learner's ``fit`` and prediction take besides ``X`` and ``y``.

    Parameters
    ----------
    fit : dict of row-aligned arrays, optional
        Passed to ``fit``, sliced with the rows of each training part, e.g.
        ``{"qids": qids}`` or a transfer learner's ``{"prior": g}``.
    fixed_fit : dict, optional
        Passed to ``fit`` unchanged (e.g. unlabelled data, a preference graph).
    predict : dict of row-aligned arrays, optional
        What the learner's prediction of held-out rows also needs, sliced to them when
        refitting (e.g. the source hypothesis' ``prior`` of
        :class:`learners.transfer.TransferRLS`; its closed forms keep the training rows'
        own; a :class:`ValidationSet` takes none).
    """

    fit: dict = None
    fixed_fit: dict = None
    predict: dict = None

    def fit_kwargs(self, rows=None):
        """Keywords of ``fit`` on the training rows ``rows`` (None: all rows, unsliced)."""
        kw = dict(self.fit or {}) if rows is None else _take_params(self.fit, rows)
        kw.update(self.fixed_fit or {})
        return kw

    def predict_kwargs(self, rows):
        """Keywords of the prediction of the rows ``rows`` (None: none)."""
        return {} if rows is None else _take_params(self.predict, rows)

    def take(self, rows):
        """The channels of the training rows ``rows`` (nested CV's inner selection)."""
        return Channels(_take_params(self.fit, rows), self.fixed_fit,
                        _take_params(self.predict, rows) if self.predict else None)


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


def _candidate_axis(P, names, est):
    """Path outputs with one leading axis per parameter as one candidate axis in the path's
    order (C order of ``names``, as :func:`_path_points` enumerates them). The axes come in
    the learner's declared ``path_parameters`` order when it declares the path's parameters,
    else in the path's order."""
    k = max(len(names), 1)
    declared = path_parameters(est)
    if len(names) > 1 and set(names) <= set(declared):
        order = [n for n in declared if n in names]
        if order != list(names):
            P = P.transpose([order.index(n) for n in names] + list(range(k, P.ndim)))
    return P.reshape((-1,) + P.shape[k:])


def _path_kwargs(names, values):
    out = {}
    for name, v in zip(names, values):
        if name not in PATH_KEYWORDS:
            raise InvalidParameterError(
                f"{name!r} is not a path parameter (known: {sorted(PATH_KEYWORDS)}); put it "
                "in Search(grid=...) so that each value is fitted")
        out[PATH_KEYWORDS[name]] = v
    return out


# ---------------------------------------------------------------------------- predictions
class HoldoutPart(NamedTuple):
    """The hold-out predictions of one part.

    Attributes
    ----------
    rows : int ndarray or None — rows into the training data (None: a validation part, or
        leave-pair-out's pairs)
    y : ndarray or None — their targets / labels
    qids : ndarray or None — their query ids
    predictions : ndarray (n_candidates, n_rows[, t]) — (n_candidates, n_pairs, 2[, t]) for
        leave-pair-out
    """

    rows: object
    y: object
    qids: object
    predictions: np.ndarray


@dataclass
class HoldoutPredictions:
    """Hold-out predictions of every candidate.

    Attributes
    ----------
    candidates : list of dict — one per candidate (path point, possibly with grid values)
    parts : list of :class:`HoldoutPart`
    """

    candidates: list
    parts: list = field(default_factory=list)

    def pooled(self):
        """``(y, qids, P)`` with all parts concatenated (P: (n_candidates, Σ n_rows[, t]))."""
        y = np.concatenate([p.y for p in self.parts])
        q = None if self.parts[0].qids is None else np.concatenate([p.qids for p in self.parts])
        P = np.concatenate([p.predictions for p in self.parts], axis=1)
        return y, q, P

    def snapped(self):
        """The same predictions rounded to :data:`PREDICTION_RTOL` of each candidate's
        largest magnitude (over all parts) — what the engine scores (module docstring)."""
        scale = np.zeros(len(self.candidates))
        for p in self.parts:
            P = p.predictions
            if P.size:
                scale = np.maximum(scale, np.abs(P).reshape(P.shape[0], -1).max(axis=1))
        step = PREDICTION_RTOL * np.where(scale > 0, scale, 1.0)
        parts = []
        for p in self.parts:
            st = step.reshape((-1,) + (1,) * (p.predictions.ndim - 1))
            parts.append(p._replace(predictions=np.round(p.predictions / st) * st))
        return HoldoutPredictions(self.candidates, parts)

    def in_row_order(self, m):
        """Predictions (n_candidates, m[, t]) in training-row order when the parts partition
        the rows 0..m-1; otherwise None (overlapping sets, a validation part)."""
        if any(p.rows is None for p in self.parts):
            return None
        rows = np.concatenate([p.rows for p in self.parts])
        if rows.size != m or np.unique(rows).size != m:
            return None
        first = self.parts[0].predictions
        out = np.empty((first.shape[0], m) + first.shape[2:])
        for p in self.parts:
            out[:, p.rows] = p.predictions
        return out


def _fit(estimator, X, y, fit_kwargs):
    if y is None:
        return estimator.fit(X, **fit_kwargs)
    return estimator.fit(X, y, **fit_kwargs)


def _closed_form_applies(base, splitter, names, method):
    """Whether the learner's closed form serves ``splitter`` and the path (module
    docstring); a clear error when it is required (``method="closed_form"``, or a splitter
    without a refit route, leave-pair-out) and does not apply."""
    name = splitter.closed_form
    applies = (name is not None and method != "refit" and supports(base, name)
               and set(names) <= set(path_parameters(base)))
    if not applies and (method == "closed_form" or not splitter.refits):
        if name is not None:
            require(base, name, f"cv={splitter!r}")
        raise InvalidParameterError(
            f"{type(base).__name__} has no closed-form hold-out for {splitter!r} and the "
            f"path {names} (method={method!r})"
            + ("" if splitter.refits else f"; {type(splitter).__name__} has no refit route"))
    return applies


def holdout_predictions(estimator, X, y=None, *, cv="loo", path=None, method="auto",
                        structure=None, channels=None):
    """Hold-out predictions of ``estimator`` for every point of ``path`` (module docstring).

    Parameters
    ----------
    estimator : unfitted learner (it is cloned)
    X, y : training data (y None for learners fitted without targets, e.g. from pairs)
    cv : a splitter or a legacy form (:func:`learners.splits.check_cv`)
    path : dict name → values, e.g. ``{"alpha": alphas}``
    method : {"auto", "closed_form", "refit"} (:class:`Search`)
    structure : :class:`learners.splits.RowStructure`, optional
    channels : :class:`Channels`, optional

    Returns
    -------
    (HoldoutPredictions, fitted) — ``fitted`` is the learner fitted once on all rows (closed
    form and validation), else None.

    Notes
    -----
    Cost: one fit and the learner's closed form, or one fit per hold-out set (and per path
    point for a learner without ``predict_path``).
    """
    if method not in _METHODS:
        raise InvalidParameterError(f"method must be 'auto', 'closed_form' or 'refit', got "
                                    f"{method!r}")
    structure, channels = structure or RowStructure(), channels or Channels()
    m = n_samples(X)
    names, values, points = _path_points(path)
    base = clone(estimator)
    if structure.y_eval is None and y is not None:
        structure = RowStructure(structure.qids, structure.groups, structure.pairs, y)
    if structure.y_eval is not None:
        structure = RowStructure(structure.qids, structure.groups, structure.pairs,
                                 np.asarray(structure.y_eval))
    splitter = check_cv(cv, structure)
    sets = splitter.split(m, structure)
    if _closed_form_applies(base, splitter, names, method):
        fitted = _fit(_start_of_path(base, names, values), X, y, channels.fit_kwargs())
        kw = _path_kwargs(names, values) if names else {"alphas": [fitted.alpha]}
        found = [(r, _candidate_axis(np.asarray(P), names, base))
                 for r, P in splitter.closed_form_predictions(fitted, sets, kw)]
    else:
        fitted, found = None, []
        for train, H, Xtr, Xte in splitter.folds(X, sets, is_pairwise(base)):
            ytr = None if y is None else (y if train is None else np.asarray(y)[train])
            P, one_fit = _fit_predict_path(base, Xtr, ytr, channels.fit_kwargs(train), Xte,
                                           names, values, points, channels.predict_kwargs(H))
            found.append((H, P))
            if train is None:                       # trained on all rows: the path model
                fitted = one_fit
    parts = [HoldoutPart(r, *splitter.labels(r, structure), P) for r, P in found]
    return HoldoutPredictions(points, parts), fitted


def _start_of_path(est, names, values):
    """Fit at the most regularized λ (largest) or C (smallest) of the path: the
    best-conditioned system, and where a warm-started path (L2-SVM, RankSVM) begins. The
    closed forms do not depend on the fitted λ."""
    if "alpha" in names:
        est = clone(est).set_params(alpha=float(np.max(values[names.index("alpha")])))
    if "C" in names:
        est = clone(est).set_params(C=float(np.min(values[names.index("C")])))
    return est


def _fit_predict_path(base, X, y, fit_kwargs, X_new, names, values, points, predict_kwargs):
    """Fit on (X, y) and predict ``X_new`` (with ``predict_kwargs``) at every path point:
    ``(P (n_points, n_new[, t]), fitted)``. One fit and one ``predict_path`` call when the
    learner has it (``fitted`` is then the path model); else one fit per point (``fitted``
    None: the winner is refitted)."""
    pp = predict_kwargs
    if not names:
        fitted = _fit(clone(base), X, y, fit_kwargs)
        return np.asarray(fitted.predict(X_new, **pp))[None], fitted
    if supports(base, "predict_path"):
        fitted = _fit(_start_of_path(base, names, values), X, y, fit_kwargs)
        P = np.asarray(fitted.predict_path(X_new, **_path_kwargs(names, values), **pp))
        return _candidate_axis(P, names, base), fitted
    rows = [np.asarray(_fit(clone(base).set_params(**point), X, y, fit_kwargs)
                       .predict(X_new, **pp)) for point in points]
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
@dataclass
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
    model_is_path : bool — ``model`` is the once-fitted path model (predict at the winner
        through ``predict_path``)
    path_names : list of str — the path's parameters
    n_rows : int — training rows
    seconds : float — wall time of the selection
    """

    candidates: list
    scores: np.ndarray
    greater_is_better: bool
    best_index: int
    best_params: dict
    best_score: float
    thresholds: object
    threshold: object
    threshold_details: object
    holdout: HoldoutPredictions
    model: object
    model_is_path: bool
    path_names: list
    n_rows: int
    seconds: float

    def predict(self, X, **predict_params):
        """Predictions of the selected model: from the once-fitted path (``predict_path`` at
        the winner; no refit) or from the refitted best estimator — its decision values when
        it is a classifier with ``decision_function`` (:class:`learners.l2svm.L2SVM`): the
        hold-out predictions that chose it and its threshold were decision values, not
        labels. ``predict_params`` go to the learner's prediction method (e.g. the source
        hypothesis' ``prior`` of :class:`learners.transfer.TransferRLS`)."""
        path = {k: v for k, v in self.best_params.items() if k in self.path_names}
        if path and supports(self.model, "predict_path") and self.model_is_path:
            kw = {PATH_KEYWORDS[k]: [v] for k, v in path.items()}
            P = np.asarray(self.model.predict_path(X, **kw, **predict_params))
            return P.reshape(P.shape[len(kw):])
        if callable(getattr(self.model, "decision_function", None)):
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


def select(estimator, X, y=None, *, cv="loo", search=None, scoring=None, structure=None,
           channels=None):
    """Choose hyper-parameters of ``estimator`` by hold-out predictions over a path.

    The engine beneath the ``*CV`` estimators (:mod:`learners.model_selection`) and every
    package's protocol; module docstring.

    Parameters
    ----------
    estimator : unfitted learner (:class:`learners.base.PathLearner` for the closed forms)
    X, y : training data
    cv : a splitter of :mod:`learners.splits`, a :class:`ValidationSet`, or ``"loo"`` |
        ``"lpo"`` | ``"group"`` | int | list of index arrays
        (:func:`learners.splits.check_cv`; groups from ``structure``)
    search : :class:`Search` or dict — the path (a dict), grid, method and final refit
    scoring : measure name, callable ``(y, p[, qids])`` or :class:`Scoring`; None only for
        leave-pair-out (its own error)
    structure : :class:`learners.splits.RowStructure`, optional — qids, groups, pairs,
        evaluation labels
    channels : :class:`Channels`, optional — fit / fixed fit / predict keywords

    Returns
    -------
    Selection

    Notes
    -----
    Cost: per grid point, :func:`holdout_predictions` (one fit and the closed form, or one
    fit per hold-out set), then O(n_candidates × m) to score, and one more fit with
    ``Search(refit=True)`` or without a path model.
    """
    t0 = time.perf_counter()
    search = Search.of(search)
    structure, channels = structure or RowStructure(), channels or Channels()
    splitter = check_cv(cv, structure)
    scorer = Scoring.of(splitter.scoring(scoring))
    holdout, models = None, []
    for point in search.grid_points():
        h, fitted = holdout_predictions(clone(estimator).set_params(**point), X, y,
                                        cv=splitter, path=search.path, method=search.method,
                                        structure=structure, channels=channels)
        h = HoldoutPredictions([dict(point, **c) for c in h.candidates], h.parts)
        models.extend([fitted] * len(h.candidates))
        holdout = h if holdout is None else _stack(holdout, h)
    candidates = holdout.candidates
    scores, greater = scorer.scores(holdout)
    details = thresholds = None
    if scorer.threshold == "f1":
        yp, _, P = holdout.snapped().pooled()
        details = [_best_f_or_none(yp, P[c]) for c in range(len(candidates))]
        thresholds = np.array([np.nan if d is None else d.threshold for d in details])
    best = best_candidate(scores, candidates, greater)
    best_params = dict(candidates[best])
    model, model_is_path = models[best], True
    if model is None or search.refit:
        model = _fit(clone(estimator).set_params(**best_params), X, y, channels.fit_kwargs())
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
                     path_names=list(search.path or {}), n_rows=n_samples(X),
                     seconds=time.perf_counter() - t0)


def _best_f_or_none(y, p):
    try:
        return best_f_threshold(y, p)
    except UndefinedMeasureError:
        return None


def _stack(a, b):
    """Concatenate the candidates of two hold-out results over the same parts."""
    parts = [pa._replace(predictions=np.concatenate([pa.predictions, pb.predictions], axis=0))
             for pa, pb in zip(a.parts, b.parts)]
    return HoldoutPredictions(a.candidates + b.candidates, parts)


# ---------------------------------------------------------------------------- nested CV
def nested_cross_validate(estimator, X, y, outer_sets, *, inner_cv="group", jobs=1,
                          progress=True, desc="nested cv", **select_kw):
    """Outer hold-out sets; inside each training part the whole :func:`select`.

    Parameters
    ----------
    estimator : unfitted learner, or a callable ``n_train -> learner`` (the learner may
        depend on the training size, e.g. a reduced-set learner only above its basis size)
    X, y : as for :func:`select` (X sliced per fold; a precomputed kernel on both axes)
    outer_sets : list of index arrays — the outer test parts (e.g. from
        :func:`learners.splits.group_folds` + :func:`learners.splits.folds_to_sets`)
    inner_cv : the ``cv`` of the inner selection, resolved on the training rows
        ("group": leave-one-group-out by ``structure.groups`` restricted to them)
    jobs : int — outer folds run in parallel (:func:`kernelrank.parallel.map_tasks`)
    **select_kw : ``search``, ``scoring``, ``structure``, ``channels`` of :func:`select`;
        the row-aligned ``structure`` and the ``fit`` / ``predict`` channels are sliced per
        fold, and the ``predict`` channels, sliced to the test rows, also go to the selected
        model's prediction (e.g. ``Channels(fit={"prior": g}, predict={"prior": g})`` for
        :class:`learners.transfer.TransferRLS`)

    Returns
    -------
    dict with ``scores`` (m,) outer test predictions (rows outside every test part: NaN),
    ``folds`` (per outer fold: ``test`` rows, ``selection`` summary ``best_params``,
    ``best_score``, ``threshold``, ``grid``, and ``seconds``).

    Notes
    -----
    Cost: one :func:`select` per outer fold on its training rows, then one prediction.
    """
    m = n_samples(X)
    outer_sets = check_index_sets(list(outer_sets), m, "outer_sets")
    structure = select_kw.pop("structure", None) or RowStructure()
    channels = select_kw.pop("channels", None) or Channels()
    factory = estimator if callable(estimator) and not hasattr(estimator, "fit") else \
        (lambda n_train: estimator)

    def one(test):
        t0 = time.perf_counter()
        train = np.setdiff1d(np.arange(m), test)
        est = factory(train.size)
        pairwise = is_pairwise(est)
        sel = select(est, rows_of(X, train, pairwise=pairwise),
                     None if y is None else np.asarray(y)[train], cv=inner_cv,
                     structure=structure.take(train), channels=channels.take(train),
                     **select_kw)
        if hasattr(sel.model, "release_training_rows"):
            sel.model.release_training_rows()   # inner CV done: its O(m r) rows are not needed
        s = np.asarray(sel.predict(rows_of(X, test, train, pairwise=pairwise),
                                   **channels.predict_kwargs(test)))
        return {"test": test, "scores": s, "best_params": sel.best_params,
                "best_score": sel.best_score, "threshold": sel.threshold,
                "grid": sel.grid(), "seconds": time.perf_counter() - t0}

    results = map_tasks(one, outer_sets, jobs=jobs, desc=desc, progress=progress)
    first = results[0]["scores"]
    scores = np.full((m,) + first.shape[1:], np.nan)
    for r in results:
        scores[r["test"]] = r["scores"]
    return {"scores": scores, "folds": results}
