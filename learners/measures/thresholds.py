"""Threshold measures of a binary scoring: ROC curve, ROC50, precision / recall / F1, and the
F-maximizing threshold.

* :func:`roc_curve` -- every distinct score as a threshold (scikit-learn's points with
  ``drop_intermediate=False``);
* :func:`roc50` -- area up to the 50th false positive (Gribskov & Robinson 1996; Liao &
  Noble 2003), the remote-homology measure;
* :func:`precision_recall_f1` at one threshold and :func:`best_f_threshold` over all cut
  points (Paper V: PPI extraction is evaluated by F at the F-maximizing threshold).

Labels are binary ({0, 1}, {-1, 1} or bool); one sort per call, O(m log m).
"""

from numbers import Real
from typing import NamedTuple

import numpy as np

from kernelrank.errors import InvalidParameterError, UndefinedMeasureError
from learners._validation import check_positive_int
from learners.measures._common import binary_pair

__all__ = ["BestF", "PRF", "best_f_threshold", "precision_recall_f1", "roc50", "roc_curve"]


class PRF(NamedTuple):
    """Precision, recall and F1 at one threshold, with the confusion counts."""

    precision: float
    recall: float
    f1: float
    tp: int
    fp: int
    fn: int


class BestF(NamedTuple):
    """The threshold maximizing F1, with its F1, precision and recall."""

    threshold: float
    f1: float
    precision: float
    recall: float


def roc_curve(y_true, scores):
    """ROC curve at every distinct score (no point dropped).

    A sample is predicted positive when ``score >= threshold``. The first point is
    ``(0, 0)`` with threshold ``+inf``; then one point per distinct score in decreasing
    order, the last one being ``(1, 1)``. Same points as
    ``sklearn.metrics.roc_curve(..., drop_intermediate=False)``.

    Parameters
    ----------
    y_true : array-like of shape (m,)
        Binary labels ({0, 1}, {-1, 1} or bool).
    scores : array-like of shape (m,)

    Returns
    -------
    fpr, tpr, thresholds : ndarray

    Raises
    ------
    UndefinedMeasureError
        If only one class is present.

    Notes
    -----
    Time O(m log m), memory O(m).
    """
    pos, s = binary_pair(y_true, scores)
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise UndefinedMeasureError(
            f"the ROC curve is undefined with one class only ({n_pos} positive, "
            f"{n_neg} negative)")
    tp, fp, thresholds = _cumulative_counts(pos, s)
    fpr = np.concatenate(([0.0], fp / n_neg))
    tpr = np.concatenate(([0.0], tp / n_pos))
    return fpr, tpr, np.concatenate(([np.inf], thresholds))


def _cumulative_counts(pos, s):
    """True / false positives when predicting ``score >= u`` for each distinct score u.

    Returns ``(tp, fp, u)`` with ``u`` the distinct scores in decreasing order.
    """
    order = np.argsort(-s, kind="stable")
    s_o = s[order]
    tp = np.cumsum(pos[order])
    fp = np.arange(1, s.size + 1) - tp
    last = np.append(np.flatnonzero(s_o[1:] != s_o[:-1]), s.size - 1)  # end of each block
    return tp[last].astype(float), fp[last].astype(float), s_o[last]


def roc50(y_true, scores, n_fp=50):
    """Normalized area under the ROC curve up to the ``n_fp``-th false positive (ROC_n).

        ROC_n = (1 / (n P)) sum_{i=1}^{n} t_i

    where the negatives are taken in decreasing order of score and ``t_i`` is the number of
    positives scored above the i-th negative, a positive tied with it counting 1/2
    (Gribskov & Robinson 1996; Liao & Noble 2003). With fewer than ``n_fp`` negatives,
    ``n`` is the number of negatives, so ROC_n is then the AUC. The value lies in [0, 1].

    Parameters
    ----------
    y_true : array-like of shape (m,)
        Binary labels ({0, 1}, {-1, 1} or bool).
    scores : array-like of shape (m,)
    n_fp : int, default 50

    Returns
    -------
    float

    Raises
    ------
    UndefinedMeasureError
        If only one class is present.

    Notes
    -----
    Time O(m log m), memory O(m).
    """
    n_fp = check_positive_int(n_fp, "n_fp")
    pos, s = binary_pair(y_true, scores)
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise UndefinedMeasureError(
            f"ROC{n_fp} is undefined with one class only ({n_pos} positive, {n_neg} "
            "negative)")
    n = min(n_fp, n_neg)
    top_neg = -np.sort(-s[~pos])[:n]  # the n highest-scored negatives (ties are equal)
    pos_sorted = np.sort(s[pos])
    above = n_pos - np.searchsorted(pos_sorted, top_neg, side="right")
    tied = (np.searchsorted(pos_sorted, top_neg, side="right")
            - np.searchsorted(pos_sorted, top_neg, side="left"))
    return float((above + 0.5 * tied).sum() / (n * n_pos))


def precision_recall_f1(y_true, scores, threshold=0.0):
    """Precision, recall and F1 when predicting positive iff ``score > threshold``.

    precision = TP / (TP + FP), recall = TP / (TP + FN), F1 = 2 P R / (P + R). With no
    predicted positive the precision is 0 (and so is F1), as in information-extraction
    evaluations (Paper V) and scikit-learn's ``zero_division=0``.

    Parameters
    ----------
    y_true : array-like of shape (m,)
        Binary labels ({0, 1}, {-1, 1} or bool).
    scores : array-like of shape (m,)
    threshold : float, default 0.0
        ``-inf`` predicts every sample positive (the threshold :func:`best_f_threshold`
        returns when that is best), ``+inf`` none; NaN is refused.

    Returns
    -------
    PRF
        ``(precision, recall, f1, tp, fp, fn)``.

    Raises
    ------
    UndefinedMeasureError
        If there is no positive example (recall undefined).

    Notes
    -----
    Time O(m).
    """
    pos, s = binary_pair(y_true, scores)
    if not isinstance(threshold, Real) or np.isnan(threshold):
        raise InvalidParameterError(f"threshold must be a number (±inf allowed), got "
                                    f"{threshold!r}")
    n_pos = int(pos.sum())
    if n_pos == 0:
        raise UndefinedMeasureError("recall and F1 are undefined without positive examples")
    pred = s > threshold
    tp = int(np.count_nonzero(pred & pos))
    fp = int(np.count_nonzero(pred & ~pos))
    fn = n_pos - tp
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / n_pos
    f1 = 2.0 * tp / (2 * tp + fp + fn)
    return PRF(precision, recall, f1, tp, fp, fn)


def best_f_threshold(y_true, scores):
    """The threshold maximizing F1 over all distinct cut points, evaluated in one pass.

    Candidate rules predict positive the samples scoring above a threshold placed at the
    midpoint between two consecutive distinct scores, plus ``-inf`` (everything positive).
    F1 = 2 TP / (2 TP + FP + FN) is computed for all candidates at once from cumulative
    counts; ties in F1 are resolved in favour of the highest threshold. Applying
    :func:`precision_recall_f1` with the returned threshold reproduces the returned F1.

    Parameters
    ----------
    y_true : array-like of shape (m,)
        Binary labels ({0, 1}, {-1, 1} or bool).
    scores : array-like of shape (m,)

    Returns
    -------
    BestF
        ``(threshold, f1, precision, recall)``.

    Raises
    ------
    UndefinedMeasureError
        If there is no positive example.

    Notes
    -----
    Time O(m log m) (one sort), memory O(m).
    """
    pos, s = binary_pair(y_true, scores)
    n_pos = int(pos.sum())
    if n_pos == 0:
        raise UndefinedMeasureError("F1 is undefined without positive examples")
    tp, fp, u = _cumulative_counts(pos, s)
    f1 = 2.0 * tp / (2.0 * tp + fp + (n_pos - tp))
    best = int(np.argmax(f1))  # first maximum = highest threshold
    if best + 1 < u.size:
        hi, lo = u[best], u[best + 1]
        mid = lo / 2.0 + hi / 2.0
        threshold = float(mid if lo <= mid < hi else lo)
    else:
        threshold = -np.inf
    precision = tp[best] / (tp[best] + fp[best])
    return BestF(threshold, float(f1[best]), float(precision), float(tp[best] / n_pos))
