"""Cross-validation aggregation (thesis Sects. 5.3-5.4; Bradley 1997): :func:`pooled`
computes a measure once over all hold-out predictions, :func:`averaged` computes it per
hold-out set and averages (with the spread and the folds where it was undefined).

Pooling compares predictions of different models and can be clearly biased for AUC
(Paper IV); averaging needs every fold to define the measure.
"""

from typing import NamedTuple

import numpy as np

from kernelrank.errors import InvalidInputError, UndefinedMeasureError
from learners._validation import check_index_set
from learners.measures._common import checked_choice

__all__ = ["Averaged", "averaged", "pooled"]


class Averaged(NamedTuple):
    """An averaged cross-validation estimate: mean, standard deviation and per-fold values.

    ``std`` is the population standard deviation (``ddof=0``) over the folds used;
    ``per_fold`` holds NaN for folds skipped because the measure was undefined there.
    """

    mean: float
    std: float
    per_fold: np.ndarray
    n_skipped: int


def _fold_data(y, preds, folds, qids):
    """Validate folds and return per fold (y, predictions, qids or None)."""
    y = np.asarray(y)
    m = y.shape[0] if y.ndim else 0
    folds = [check_index_set(f, m, f"folds[{i}]", allow_all=True) for i, f in enumerate(folds)]
    if not folds:
        raise InvalidInputError("folds is empty")
    q = None if qids is None else np.asarray(qids)
    if q is not None and q.shape[:1] != (m,):
        raise InvalidInputError(f"qids has length {q.shape[0]} but y has length {m}")
    if isinstance(preds, (list, tuple)):
        if len(preds) != len(folds):
            raise InvalidInputError(
                f"{len(preds)} prediction arrays for {len(folds)} folds")
        parts = [np.asarray(p) for p in preds]
        for i, (p, f) in enumerate(zip(parts, folds)):
            if p.shape[:1] != f.shape:
                raise InvalidInputError(
                    f"predictions of fold {i} have length {p.shape[0]}, fold has {f.size}")
    else:
        p = np.asarray(preds)
        if p.shape[:1] != (m,):
            raise InvalidInputError(
                f"preds has length {p.shape[0] if p.ndim else 0} but y has length {m}; pass "
                "one out-of-fold prediction per example or a list with one array per fold")
        all_idx = np.concatenate(folds)
        if np.unique(all_idx).size != all_idx.size:
            raise InvalidInputError(
                "folds overlap, so a single prediction vector cannot hold every hold-out "
                "prediction; pass a list with one prediction array per fold")
        parts = [p[f] for f in folds]
    return [(y[f], part, None if q is None else q[f]) for f, part in zip(folds, parts)]


def _call(measure, y, p, q, measure_kwargs):
    if q is None:
        return measure(y, p, **measure_kwargs)
    return measure(y, p, q, **measure_kwargs)


def pooled(measure, y, preds, folds, *, qids=None, **measure_kwargs):
    """Pooled cross-validation estimate (thesis Sect. 5.3): one measure over all folds.

        p([f_{~U_1}(X_{U_1}), ..., f_{~U_N}(X_{U_N})], [Y_{U_1}, ..., Y_{U_N}])

    All hold-out predictions are concatenated and the measure is computed once. For AUC
    this compares predictions made by different models and can be clearly biased
    (Paper IV; thesis Sect. 5.4).

    Parameters
    ----------
    measure : callable
        ``measure(y, preds, **measure_kwargs)``, or ``measure(y, preds, qids, ...)`` when
        ``qids`` is given (e.g. :func:`auc`, :func:`disagreement_error`).
    y : array-like of shape (m,)
    preds : array-like of shape (m,) or list of arrays
        Out-of-fold predictions, one per example (disjoint folds), or one array per fold
        aligned with ``folds[i]`` (needed when folds overlap, e.g. leave-pair-out).
    folds : sequence of integer index arrays
        The hold-out sets U_1..U_N.
    qids : array-like of shape (m,), optional
        Passed (restricted to the folds) as the third argument of ``measure``.
    **measure_kwargs
        Passed to ``measure``.

    Returns
    -------
    float

    Notes
    -----
    Time: one call of ``measure`` on sum ``|U_i|`` items.
    """
    data = _fold_data(y, preds, folds, qids)
    y_all = np.concatenate([d[0] for d in data])
    p_all = np.concatenate([d[1] for d in data])
    q_all = None if qids is None else np.concatenate([d[2] for d in data])
    return float(_call(measure, y_all, p_all, q_all, measure_kwargs))


def averaged(measure, y, preds, folds, *, qids=None, on_undefined="raise",
             **measure_kwargs):
    """Averaged cross-validation estimate (thesis Sect. 5.3): mean of per-fold measures.

        (1 / N) sum_i p(f_{~U_i}(X_{U_i}), Y_{U_i})

    Parameters
    ----------
    measure, y, preds, folds, qids, **measure_kwargs
        As in :func:`pooled`.
    on_undefined : {"raise", "skip"}
        What to do when the measure is undefined on a fold (e.g. AUC on a fold with one
        class): raise :class:`UndefinedMeasureError`, or skip the fold and count it.

    Returns
    -------
    Averaged
        ``(mean, std, per_fold, n_skipped)``; ``std`` with ``ddof=0``.

    Notes
    -----
    Time: N calls of ``measure``, one per fold.
    """
    checked_choice("on_undefined", on_undefined, ("raise", "skip"))
    data = _fold_data(y, preds, folds, qids)
    values = np.full(len(data), np.nan)
    for i, (yf, pf, qf) in enumerate(data):  # one call per fold, not per example
        try:
            values[i] = _call(measure, yf, pf, qf, measure_kwargs)
        except UndefinedMeasureError as exc:
            if on_undefined == "raise":
                raise UndefinedMeasureError(f"fold {i}: {exc}") from exc
    used = ~np.isnan(values)
    if not used.any():
        raise UndefinedMeasureError("the measure is undefined on every fold")
    return Averaged(float(values[used].mean()), float(values[used].std()), values,
                    int(np.count_nonzero(~used)))
