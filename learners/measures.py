"""Performance measures for classification and ranking, and cross-validation aggregation.

What is here and where it comes from:

* pairwise measures -- :func:`disagreement_error` (Paper I, eq. 1: the fraction of
  misordered pairs among the pairs with different labels), :func:`cindex` (concordance
  index), :func:`kendall_tau_b` and :func:`auc` (thesis eq. 3.5; for bipartite data the
  disagreement error with ties counted as one half equals ``1 - AUC``);
* threshold measures -- :func:`precision_recall_f1`, :func:`best_f_threshold`,
  :func:`roc_curve`, :func:`roc50` (Gribskov & Robinson 1996; Liao & Noble 2003);
* query-wise ranking measures -- :func:`average_precision`,
  :func:`mean_average_precision`, :func:`precision_at_k`, :func:`ndcg_at_k`, and
  :func:`letor_evaluation`, which reproduces the conventions of the official LETOR 3.0 tool
  ``Eval-Score-3.0.pl``;
* cross-validation aggregation -- :func:`pooled` and :func:`averaged` (thesis Sect. 5.3-5.4;
  Bradley 1997): pooling computes the measure once over all hold-out predictions, averaging
  computes it per hold-out set and averages.

Every pairwise count is done by sorting (O(m log m) time, O(m) memory); no function builds
the m x m pair matrix or loops over pairs in Python. Query-wise measures are computed for
all queries at once with grouped sorting, never with a Python loop over queries.

Conventions shared by all functions: labels and scores are 1-d finite arrays of equal
length (otherwise :class:`~kernelrank.errors.InvalidInputError`); a measure that is undefined
for the given labels (one class for AUC, no pair with different labels, ...) raises
:class:`~kernelrank.errors.UndefinedMeasureError`; query identifiers ``qids`` are passed
explicitly and never inferred from row order. Per-query results are returned in the order
of ``numpy.unique(qids)``.
"""

from numbers import Integral, Real
from typing import NamedTuple

import numpy as np
from scipy.stats import rankdata

from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError

__all__ = [
    "Averaged",
    "BestF",
    "PRF",
    "QueryAverage",
    "auc",
    "average_precision",
    "averaged",
    "best_f_threshold",
    "cindex",
    "disagreement_error",
    "kendall_tau_b",
    "letor_evaluation",
    "mean_average_precision",
    "ndcg_at_k",
    "pooled",
    "precision_at_k",
    "precision_recall_f1",
    "roc50",
    "roc_curve",
]


# --------------------------------------------------------------------------- results


class QueryAverage(NamedTuple):
    """A measure averaged over queries, with the per-query values.

    Attributes
    ----------
    value : float
        Mean over the queries where the measure is defined (or pooled over pairs when
        ``average="pairs"``).
    per_query : ndarray of float
        One value per query in the order of ``numpy.unique(qids)``; NaN where skipped.
    n_skipped : int
        Number of queries on which the measure is undefined and which were skipped.
    """

    value: float
    per_query: np.ndarray
    n_skipped: int


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


class Averaged(NamedTuple):
    """An averaged cross-validation estimate: mean, standard deviation and per-fold values.

    ``std`` is the population standard deviation (``ddof=0``) over the folds used;
    ``per_fold`` holds NaN for folds skipped because the measure was undefined there.
    """

    mean: float
    std: float
    per_fold: np.ndarray
    n_skipped: int


# --------------------------------------------------------------------------- validation


def _vector(name, values, dtype=float):
    """Return ``values`` as a 1-d finite array, or raise InvalidInputError."""
    try:
        arr = np.asarray(values, dtype=dtype)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{name} must be numeric: {exc}") from exc
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    if np.issubdtype(arr.dtype, np.floating) and not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InvalidInputError(
            f"{name} contains NaN or infinite values (first at index {bad}); "
            "remove or impute them before evaluating")
    return arr


def _pair(y_name, y, s_name, s):
    y = _vector(y_name, y)
    s = _vector(s_name, s)
    if y.shape != s.shape:
        raise InvalidInputError(
            f"{y_name} and {s_name} have different lengths ({y.size} and {s.size})")
    return y, s


def _binary(y_true):
    """Map binary labels in {0,1}, {-1,1} or bool to a boolean 'is positive' array."""
    y = np.asarray(y_true)
    if y.dtype == bool:
        return _vector("y_true", y, dtype=bool)
    y = _vector("y_true", y)
    values = np.unique(y)
    if not (set(values.tolist()) <= {0.0, 1.0} or set(values.tolist()) <= {-1.0, 1.0}):
        raise InvalidInputError(
            f"y_true must be binary with labels in {{0, 1}}, {{-1, 1}} or bool; got the "
            f"values {values[:10].tolist()}")
    return y == 1.0


def _binary_pair(y_true, scores):
    pos = _binary(y_true)
    s = _vector("scores", scores)
    if pos.shape != s.shape:
        raise InvalidInputError(
            f"y_true and scores have different lengths ({pos.size} and {s.size})")
    return pos, s


def _groups(qids, m):
    """Dense query codes 0..G-1 (in the order of numpy.unique) and the number of queries."""
    if qids is None:
        return np.zeros(m, dtype=np.int64), 1
    q = np.asarray(qids)
    if q.ndim != 1:
        raise InvalidInputError(f"qids must be one-dimensional, got shape {q.shape}")
    if q.size != m:
        raise InvalidInputError(f"qids has length {q.size} but the labels have length {m}")
    if np.issubdtype(q.dtype, np.floating) and not np.all(np.isfinite(q)):
        raise InvalidInputError("qids contains NaN or infinite values")
    _, codes = np.unique(q, return_inverse=True)
    codes = codes.reshape(-1).astype(np.int64)
    return codes, int(codes.max()) + 1


def _choice(name, value, allowed):
    if value not in allowed:
        raise InvalidParameterError(f"{name}={value!r} is not one of {list(allowed)}")
    return value


def _positive_int(name, value):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise InvalidParameterError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


# --------------------------------------------------------------------------- pair counting


def _inversions_per_element(a):
    """For each position i, the number of positions j < i with ``a[j] > a[i]``.

    Bottom-up merge counting, vectorized per level: at each of the ceil(log2 m) levels the
    sorted left halves of all blocks are searched at once with :func:`numpy.searchsorted`
    and the blocks are merged with a stable sort (Timsort merges the two sorted runs).
    Time O(m log^2 m) in the worst case (O(m log m) in practice), memory O(m).
    ``a`` must hold non-negative integers smaller than m (dense ranks).
    """
    m = a.size
    counts = np.zeros(m, dtype=np.int64)
    if m < 2:
        return counts
    big = int(a.max()) + 1  # block keys blk * big + value stay below m * big <= m**2
    vals = a.astype(np.int64, copy=True)
    orig = np.arange(m)
    pos = np.arange(m)
    width = 1
    while width < m:
        blk = pos // (2 * width)
        left = (pos - blk * 2 * width) < width
        right = ~left
        key = blk * big + vals
        left_keys = key[left]  # globally sorted: sorted within blocks, blocks in order
        block_end = np.searchsorted(left_keys, (blk[right] + 1) * big, side="left")
        not_greater = np.searchsorted(left_keys, key[right], side="right")
        counts[orig[right]] += block_end - not_greater
        perm = np.argsort(key, kind="stable")
        vals, orig = vals[perm], orig[perm]
        width *= 2
    return counts


def _runs(*sorted_keys):
    """Start indices and lengths of the runs of equal key tuples in lexicographic order."""
    m = sorted_keys[0].size
    change = np.zeros(m, dtype=bool)
    change[0] = True
    for key in sorted_keys:
        change[1:] |= key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    lengths = np.diff(np.append(starts, m))
    return starts, lengths, change


def _tied_pairs(codes_sorted, n_groups, *other_sorted):
    """Pairs inside each group that are tied on all of ``other_sorted`` (lexsorted input)."""
    starts, lengths, _ = _runs(codes_sorted, *other_sorted)
    pairs = lengths * (lengths - 1) // 2
    return np.bincount(codes_sorted[starts], weights=pairs, minlength=n_groups)


def _pair_counts(y, s, codes, n_groups):
    """Per-query counts of the pairs (i, j) within a query, as float arrays of length G.

    Returns ``(n_pairs, concordant, discordant, tied_scores, total, tied_in_scores)``:
    ``n_pairs`` pairs with different labels, among them ``concordant`` (the higher label
    has the higher score), ``discordant`` (the lower score) and ``tied_scores`` (equal
    scores); ``total`` all pairs and ``tied_in_scores`` all pairs with equal scores.
    Knight's algorithm: sort by (query, label, score), count score inversions; O(m log m).
    """
    order = np.lexsort((s, y, codes))
    g_o, y_o, s_o = codes[order], y[order], s[order]
    sizes = np.bincount(codes, minlength=n_groups).astype(float)
    total = sizes * (sizes - 1) / 2
    tied_y = _tied_pairs(g_o, n_groups, y_o)
    tied_ys = _tied_pairs(g_o, n_groups, y_o, s_o)
    order_s = np.lexsort((s, codes))
    g_s, s_s = codes[order_s], s[order_s]
    tied_s = _tied_pairs(g_s, n_groups, s_s)
    # dense rank of (query, score): an inversion in the (query, label, score) order is a
    # pair in the same query with a lower label and a strictly higher score
    _, _, change = _runs(g_s, s_s)
    rank = np.empty(s.size, dtype=np.int64)
    rank[order_s] = np.cumsum(change) - 1
    inversions = _inversions_per_element(rank[order])
    discordant = np.bincount(g_o, weights=inversions, minlength=n_groups)
    n_pairs = total - tied_y
    tied_scores = tied_s - tied_ys
    concordant = n_pairs - tied_scores - discordant
    return n_pairs, concordant, discordant, tied_scores, total, tied_s


def _query_mean(name, per_query, defined, return_details):
    n_skipped = int(np.count_nonzero(~defined))
    if not np.any(defined):
        raise UndefinedMeasureError(
            f"{name} is undefined on every query ({n_skipped} queries): no query has a "
            "pair of items with different labels (or no relevant item, as applicable)")
    per_query = np.where(defined, per_query, np.nan)
    value = float(np.mean(per_query[defined]))
    if return_details:
        return QueryAverage(value, per_query, n_skipped)
    return value


# --------------------------------------------------------------------------- pairwise


def disagreement_error(y, scores, qids=None, *, average="query", ties=1.0,
                       return_details=False):
    """Fraction of misordered pairs among the pairs with different labels (Paper I, eq. 1).

    For the pairs ``(i, j)`` with ``y_i > y_j`` (inside the same query when ``qids`` is
    given) the error is

        D = (1 / |P|) sum_{(i, j) in P} ( [f_i < f_j] + ties * [f_i = f_j] ).

    Paper I defines ``sign(r) = -1`` for ``r <= 0``, so a tie in the predictions counts as a
    full error: ``ties=1.0`` (the default) is the paper's convention. ``ties=0.5`` counts a
    tie as half an error, which makes ``D = 1 - cindex`` and, for binary labels,
    ``D = 1 - AUC``. Pairs with equal labels (tied edges) are ignored, as in Paper I.

    Parameters
    ----------
    y : array-like of shape (m,)
        True labels or utility scores.
    scores : array-like of shape (m,)
        Predicted scores.
    qids : array-like of shape (m,), optional
        Query identifiers; only pairs inside a query are compared.
    average : {"query", "pairs"}
        With ``qids``: ``"query"`` averages the per-query errors over the queries that have
        at least one pair (as on LETOR in Paper I, Sect. 5); queries without pairs are
        skipped and counted (see ``return_details``). ``"pairs"`` pools all pairs of all
        queries. Ignored without ``qids``.
    ties : {1.0, 0.5}
        Cost of a tie in the predictions (1.0: Paper I; 0.5: one half).
    return_details : bool
        If True return a :class:`QueryAverage` (value, per-query errors, skipped queries).

    Returns
    -------
    float or QueryAverage

    Raises
    ------
    UndefinedMeasureError
        If no (query has a) pair with different labels.

    Notes
    -----
    Time O(m log m), memory O(m): sorting plus merge-based inversion counting, never the
    explicit pairs.
    """
    _choice("average", average, ("query", "pairs"))
    _choice("ties", ties, (1.0, 0.5))
    y, s = _pair("y", y, "scores", scores)
    codes, n_groups = _groups(qids, y.size)
    n_pairs, _, disc, tied, _, _ = _pair_counts(y, s, codes, n_groups)
    errors = disc + ties * tied
    defined = n_pairs > 0
    if qids is not None and average == "pairs":
        if not np.any(defined):
            raise UndefinedMeasureError("disagreement_error: no pair with different labels")
        value = float(errors.sum() / n_pairs.sum())
        if return_details:
            per_query = np.where(defined, errors / np.where(defined, n_pairs, 1), np.nan)
            return QueryAverage(value, per_query, int(np.count_nonzero(~defined)))
        return value
    per_query = errors / np.where(defined, n_pairs, 1)
    return _query_mean("disagreement_error", per_query, defined, return_details)


def cindex(y, scores, qids=None, *, average="query", return_details=False):
    """Concordance index: fraction of correctly ordered pairs, ties in scores counting 1/2.

    Over the pairs ``(i, j)`` with ``y_i > y_j`` (inside a query if ``qids`` is given),

        C = (1 / |P|) sum_{(i, j) in P} ( [f_i > f_j] + 0.5 [f_i = f_j] )

    so ``C = 1 - disagreement_error(..., ties=0.5)``; for binary labels ``C`` is the AUC.

    Parameters
    ----------
    y, scores : array-like of shape (m,)
    qids : array-like of shape (m,), optional
    average : {"query", "pairs"}
        As in :func:`disagreement_error`.
    return_details : bool

    Returns
    -------
    float or QueryAverage

    Notes
    -----
    Time O(m log m) (sorting and merge counting of discordant pairs), memory O(m).
    """
    result = disagreement_error(y, scores, qids, average=average, ties=0.5,
                                return_details=True)
    if return_details:
        return QueryAverage(1.0 - result.value, 1.0 - result.per_query, result.n_skipped)
    return 1.0 - result.value


def kendall_tau_b(y, scores, qids=None, *, return_details=False):
    """Kendall's tau-b between labels and scores, per query and averaged over queries.

        tau_b = (C - D) / sqrt((n0 - n1)(n0 - n2))

    with C / D the concordant / discordant pairs, n0 = m(m-1)/2, n1 the pairs tied in ``y``
    and n2 the pairs tied in ``scores`` (the definition of :func:`scipy.stats.kendalltau`).
    Queries where tau-b is undefined (all labels or all scores equal) are skipped and
    counted. Used for parse ranking (thesis Sect. 5.5).

    Parameters
    ----------
    y, scores : array-like of shape (m,)
    qids : array-like of shape (m,), optional
    return_details : bool

    Returns
    -------
    float or QueryAverage

    Notes
    -----
    Time O(m log m), memory O(m), for all queries at once.
    """
    y, s = _pair("y", y, "scores", scores)
    codes, n_groups = _groups(qids, y.size)
    n_pairs, conc, disc, _, total, tied_s = _pair_counts(y, s, codes, n_groups)
    denom = n_pairs * (total - tied_s)
    defined = denom > 0
    per_query = (conc - disc) / np.sqrt(np.where(defined, denom, 1.0))
    return _query_mean("kendall_tau_b", per_query, defined, return_details)


def auc(y_true, scores):
    """Area under the ROC curve (thesis eq. 3.5), ties in scores counting 1/2.

        AUC = (1 / (P N)) sum_{i positive} sum_{j negative} ( [f_i > f_j] + 0.5 [f_i = f_j] )

    computed as the Mann-Whitney statistic from average ranks.

    Parameters
    ----------
    y_true : array-like of shape (m,)
        Binary labels in {0, 1}, {-1, 1} or bool (1 / True is the positive class).
    scores : array-like of shape (m,)

    Returns
    -------
    float

    Raises
    ------
    UndefinedMeasureError
        If only one class is present.

    Notes
    -----
    Time O(m log m) (one ranking), memory O(m).
    """
    pos, s = _binary_pair(y_true, scores)
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise UndefinedMeasureError(
            f"AUC is undefined with one class only ({n_pos} positive, {n_neg} negative)")
    ranks = rankdata(s)  # average ranks: a tie contributes 1/2
    u = ranks[pos].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))


# --------------------------------------------------------------------------- thresholds


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
    pos, s = _binary_pair(y_true, scores)
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
    n_fp = _positive_int("n_fp", n_fp)
    pos, s = _binary_pair(y_true, scores)
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
    pos, s = _binary_pair(y_true, scores)
    if not isinstance(threshold, Real) or not np.isfinite(threshold):
        raise InvalidParameterError(f"threshold must be a finite number, got {threshold!r}")
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
    pos, s = _binary_pair(y_true, scores)
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


# --------------------------------------------------------------------------- query ranking


_TIES = ("group", "input_order")


def _ranked(y, s, codes, n_groups):
    """Rank the items of every query by decreasing score, ties kept in input order.

    Returns the sort order, the sorted codes, the 1-based rank inside the query, the query
    sizes and the 1-based first / last rank of each item's block of tied scores.
    """
    m = y.size
    order = np.lexsort((np.arange(m), -s, codes))
    g_o = codes[order]
    sizes = np.bincount(codes, minlength=n_groups)
    first = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    rank = np.arange(m) - first[g_o] + 1
    starts, lengths, _ = _runs(g_o, s[order])
    block = np.repeat(np.arange(starts.size), lengths)
    block_first = rank[starts][block]
    block_last = block_first + lengths[block] - 1
    return order, g_o, rank, sizes, block_first, block_last


def _position_weights(rank, block_first, block_last, weight_of_rank, ties):
    """Per-item positional weight: its own weight, or the mean over its tied block."""
    if ties == "input_order":
        return weight_of_rank(rank)
    # mean of weight_of_rank over ranks block_first..block_last via a cumulative table
    top = int(block_last.max())
    table = np.concatenate(([0.0], np.cumsum(weight_of_rank(np.arange(1, top + 1)))))
    return (table[block_last] - table[block_first - 1]) / (block_last - block_first + 1)


def _relevant(y, relevant_threshold):
    if not isinstance(relevant_threshold, Real):
        raise InvalidParameterError(
            f"relevant_threshold must be a number, got {relevant_threshold!r}")
    return y >= relevant_threshold


def _ap_per_query(rel, s, codes, n_groups, ties):
    """Average precision of every query; NaN where the query has no relevant item."""
    order, g_o, rank, _, block_first, block_last = _ranked(rel, s, codes, n_groups)
    r_o = rel[order].astype(float)
    n_rel = np.bincount(g_o, weights=r_o, minlength=n_groups)
    cum = np.cumsum(r_o)
    before_query = np.concatenate(([0.0], cum))[np.searchsorted(g_o, np.arange(n_groups))]
    if ties == "input_order":
        # sum over relevant items of (relevant items ranked at or above it) / rank
        prec = (cum - before_query[g_o]) / rank
    else:
        # scikit-learn: a block of tied scores is one threshold; every relevant item of the
        # block gets the precision measured at the end of the block
        end = np.arange(rel.size) + (block_last - rank)
        prec = (cum[end] - before_query[g_o]) / block_last
    ap_sum = np.bincount(g_o, weights=r_o * prec, minlength=n_groups)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n_rel > 0, ap_sum / np.where(n_rel > 0, n_rel, 1), np.nan)


def average_precision(y_true, scores, *, ties="group"):
    """Average precision of one ranked list.

    ``ties="group"`` (default): the step-wise definition of scikit-learn's
    ``average_precision_score``, AP = sum_n (R_n - R_{n-1}) P_n over the distinct
    thresholds, so a block of tied scores is one threshold. ``ties="input_order"``: the
    LETOR tool's definition, AP = (1 / R) sum_{relevant at rank k} (#relevant in top k) / k,
    ranking by decreasing score with ties kept in input order (stable sort).

    Parameters
    ----------
    y_true : array-like of shape (m,)
        Binary labels ({0, 1}, {-1, 1} or bool).
    scores : array-like of shape (m,)
    ties : {"group", "input_order"}

    Returns
    -------
    float

    Raises
    ------
    UndefinedMeasureError
        If there is no positive example.

    Notes
    -----
    Time O(m log m), memory O(m).
    """
    _choice("ties", ties, _TIES)
    pos, s = _binary_pair(y_true, scores)
    if not pos.any():
        raise UndefinedMeasureError("average precision is undefined without positive examples")
    return float(_ap_per_query(pos, s, np.zeros(s.size, dtype=np.int64), 1, ties)[0])


def _finish_query_measure(name, per_query, has_relevant, no_relevant, return_details):
    """Apply the no-relevant-item convention and average over queries."""
    per_query = np.where(has_relevant, per_query, 0.0)
    defined = has_relevant if no_relevant == "skip" else np.ones_like(has_relevant)
    return _query_mean(name, per_query, defined, return_details)


def mean_average_precision(y, scores, qids, *, relevant_threshold=1, ties="input_order",
                           no_relevant="zero", return_details=False):
    """Mean over queries of the average precision (MAP).

    An item is relevant when ``y >= relevant_threshold`` (LETOR OHSUMED: labels 1 and 2).
    Defaults follow the LETOR 3.0 tool (``Eval-Score-3.0.pl``): stable ranking by
    decreasing score (ties in input order) and AP = 0 for a query without relevant item
    (``no_relevant="zero"``; ``"skip"`` leaves such queries out and counts them).

    Parameters
    ----------
    y, scores, qids : array-like of shape (m,)
    relevant_threshold : float, default 1
    ties : {"input_order", "group"}
        See :func:`average_precision`.
    no_relevant : {"zero", "skip"}
    return_details : bool

    Returns
    -------
    float or QueryAverage

    Notes
    -----
    Time O(m log m) for all queries at once, memory O(m).
    """
    _choice("ties", ties, _TIES)
    _choice("no_relevant", no_relevant, ("zero", "skip"))
    y, s = _pair("y", y, "scores", scores)
    codes, n_groups = _groups(qids, y.size)
    rel = _relevant(y, relevant_threshold)
    ap = _ap_per_query(rel, s, codes, n_groups, ties)
    return _finish_query_measure("mean_average_precision", np.nan_to_num(ap), ~np.isnan(ap),
                                 no_relevant, return_details)


def _discount(kind):
    if kind == "log2(1+rank)":
        return lambda r: 1.0 / np.log2(1.0 + r)
    # Jarvelin & Kekalainen with base 2, as in the LETOR tool: ranks 1 and 2 undiscounted
    return lambda r: 1.0 / np.log2(np.maximum(r, 2.0))


def precision_at_k(y, scores, qids, k, *, relevant_threshold=1, ties="input_order",
                   short_queries="pad", return_details=False):
    """Precision at rank k, averaged over queries.

    P@k = (#relevant items among the k top-ranked) / k, an item being relevant when
    ``y >= relevant_threshold``. ``ties="input_order"`` ranks by decreasing score with ties
    in input order (the LETOR tool); ``ties="group"`` takes the expectation over random
    orderings of tied items (a tied block straddling rank k contributes proportionally).
    A query with fewer than k items: ``short_queries="pad"`` counts the missing positions
    as non-relevant (trec_eval); ``"zero"`` gives the query P@k = 0, which is what
    ``Eval-Score-3.0.pl`` effectively does (it sums only the positions a query has and
    divides by the number of queries).

    Parameters
    ----------
    y, scores, qids : array-like of shape (m,)
    k : int
    relevant_threshold : float, default 1
    ties : {"input_order", "group"}
    short_queries : {"pad", "zero"}
    return_details : bool

    Returns
    -------
    float or QueryAverage

    Notes
    -----
    Time O(m log m), memory O(m).
    """
    k = _positive_int("k", k)
    _choice("ties", ties, _TIES)
    _choice("short_queries", short_queries, ("pad", "zero"))
    y, s = _pair("y", y, "scores", scores)
    codes, n_groups = _groups(qids, y.size)
    rel = _relevant(y, relevant_threshold)
    order, g_o, rank, sizes, bf, bl = _ranked(y, s, codes, n_groups)
    w = _position_weights(rank, bf, bl, lambda r: (r <= k).astype(float), ties)
    per_query = np.bincount(g_o, weights=rel[order] * w, minlength=n_groups) / k
    if short_queries == "zero":
        per_query = np.where(sizes >= k, per_query, 0.0)
    return _query_mean("precision_at_k", per_query, np.ones(n_groups, bool), return_details)


def ndcg_at_k(y, scores, qids, k, *, discount="log2(1+rank)", ties="group",
              no_relevant="zero", short_queries="pad", return_details=False):
    """Normalized discounted cumulative gain at rank k, averaged over queries.

        DCG@k = sum_{r=1}^{k} (2^{y_(r)} - 1) d(r),   NDCG@k = DCG@k / ideal DCG@k

    with ``y_(r)`` the label at rank r and the ideal DCG computed on the labels sorted in
    decreasing order.

    Parameters
    ----------
    y : array-like of shape (m,)
        Graded relevance labels (gain ``2^y - 1``).
    scores, qids : array-like of shape (m,)
    k : int
    discount : {"log2(1+rank)", "letor"}
        ``d(r) = 1 / log2(1 + r)`` (Burges et al.; scikit-learn's ``ndcg_score``), or the
        LETOR tool's Jarvelin-Kekalainen form ``d(r) = 1`` for r <= 2 and ``1 / log2(r)``
        beyond.
    ties : {"group", "input_order"}
        ``"group"``: tied scores share the mean discount of their block (the expectation
        over orderings of the tie; scikit-learn's default). ``"input_order"``: ties kept in
        input order (the LETOR tool's stable sort).
    no_relevant : {"zero", "skip"}
        A query whose ideal DCG is 0: NDCG = 0 (LETOR tool and scikit-learn) or skipped and
        counted.
    short_queries : {"pad", "zero"}
        A query with fewer than k items: truncated at its length (``"pad"``) or NDCG@k = 0
        as in ``Eval-Score-3.0.pl`` (see :func:`precision_at_k`).
    return_details : bool

    Returns
    -------
    float or QueryAverage

    Notes
    -----
    Time O(m log m) for all queries at once, memory O(m).
    """
    k = _positive_int("k", k)
    _choice("discount", discount, ("log2(1+rank)", "letor"))
    _choice("ties", ties, _TIES)
    _choice("no_relevant", no_relevant, ("zero", "skip"))
    _choice("short_queries", short_queries, ("pad", "zero"))
    y, s = _pair("y", y, "scores", scores)
    codes, n_groups = _groups(qids, y.size)
    disc = _discount(discount)

    def truncated(r):
        return np.where(r <= k, disc(r.astype(float)), 0.0)

    gain = np.exp2(y) - 1.0
    order, g_o, rank, sizes, bf, bl = _ranked(y, s, codes, n_groups)
    w = _position_weights(rank, bf, bl, truncated, ties)
    dcg = np.bincount(g_o, weights=gain[order] * w, minlength=n_groups)
    # ideal ranking: by decreasing gain (ties among equal gains are irrelevant)
    ideal_order, ig_o, irank, _, _, _ = _ranked(y, gain, codes, n_groups)
    idcg = np.bincount(ig_o, weights=gain[ideal_order] * truncated(irank), minlength=n_groups)
    has_relevant = idcg > 0
    per_query = dcg / np.where(has_relevant, idcg, 1.0)
    if short_queries == "zero":
        per_query = np.where(sizes >= k, per_query, 0.0)
    return _finish_query_measure("ndcg_at_k", per_query, has_relevant, no_relevant,
                                 return_details)


def letor_evaluation(y, scores, qids, *, max_k=10):
    """P@1..max_k, MAP and NDCG@1..max_k with the conventions of ``Eval-Score-3.0.pl``.

    The official LETOR 3.0 evaluation tool ranks each query's documents by decreasing
    prediction with a stable sort of the documents in file order (so ties keep the input
    order), counts labels >= 1 as relevant for P@k and MAP, uses gain ``2^y - 1`` and the
    discount ``1`` at ranks 1-2 and ``1 / log2(r)`` beyond for NDCG, gives 0 to a query
    without relevant document, and gives 0 at positions k beyond a query's length (it sums
    only the positions a query has and divides by the number of queries). Rows must be
    passed in the order of the LETOR file for the tie-break to match.

    Parameters
    ----------
    y, scores, qids : array-like of shape (m,)
    max_k : int, default 10

    Returns
    -------
    dict
        ``{"P@1": ..., ..., "MAP": ..., "NDCG@1": ..., ...}`` (floats).

    Notes
    -----
    Time O(max_k m log m).
    """
    max_k = _positive_int("max_k", max_k)
    out = {}
    for k in range(1, max_k + 1):
        out[f"P@{k}"] = precision_at_k(y, scores, qids, k, ties="input_order",
                                       short_queries="zero")
    out["MAP"] = mean_average_precision(y, scores, qids, ties="input_order",
                                        no_relevant="zero")
    for k in range(1, max_k + 1):
        out[f"NDCG@{k}"] = ndcg_at_k(y, scores, qids, k, discount="letor",
                                     ties="input_order", no_relevant="zero",
                                     short_queries="zero")
    return out


# --------------------------------------------------------------------------- CV aggregation


def _fold_data(y, preds, folds, qids):
    """Validate folds and return per fold (y, predictions, qids or None)."""
    y = np.asarray(y)
    m = y.shape[0] if y.ndim else 0
    folds = [np.asarray(f) for f in folds]
    if not folds:
        raise InvalidInputError("folds is empty")
    for i, f in enumerate(folds):
        if f.ndim != 1 or f.size == 0 or not np.issubdtype(f.dtype, np.integer):
            raise InvalidInputError(f"fold {i} must be a non-empty 1-d array of indices")
        if f.min() < 0 or f.max() >= m:
            raise InvalidInputError(f"fold {i} has indices outside [0, {m})")
        if np.unique(f).size != f.size:
            raise InvalidInputError(f"fold {i} contains a repeated index")
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
    Time: one call of ``measure`` on sum |U_i| items.
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
    _choice("on_undefined", on_undefined, ("raise", "skip"))
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


# --------------------------------------------------------------------------- scorers
def _mse(y, p, qids=None):
    return float(np.mean((np.asarray(y, dtype=float) - np.asarray(p, dtype=float)) ** 2))


def _r2(y, p, qids=None):
    y = np.asarray(y, dtype=float)
    ss = float(np.sum((y - y.mean()) ** 2))
    if ss == 0:
        raise UndefinedMeasureError("R^2 is undefined for constant targets")
    return 1.0 - float(np.sum((y - np.asarray(p, dtype=float)) ** 2)) / ss


def _with_qids(fn):
    return lambda y, p, qids=None: fn(y, p) if qids is None else fn(y, p, qids)


_SCORERS = {
    "auc": (lambda y, p, qids=None: auc(y, p), True),
    "roc50": (lambda y, p, qids=None: roc50(y, p), True),
    "cindex": (_with_qids(cindex), True),
    "disagreement": (_with_qids(disagreement_error), False),
    "kendall_tau_b": (_with_qids(kendall_tau_b), True),
    "mse": (_mse, False),
    "r2": (_r2, True),
    "f1_best": (lambda y, p, qids=None: best_f_threshold(y, p).f1, True),
    "map": (lambda y, p, qids=None: mean_average_precision(y, p, qids), True),
}


def get_scorer(name):
    """``(measure(y_true, y_pred, qids=None), greater_is_better)`` for a measure name:
    ``auc``, ``roc50``, ``cindex``, ``disagreement``, ``kendall_tau_b`` (per query with
    qids), ``mse``, ``r2``, ``f1_best`` (F at the F-maximizing threshold), ``map``."""
    if name not in _SCORERS:
        raise InvalidParameterError(f"unknown scoring {name!r}; use one of {sorted(_SCORERS)} "
                                    "or a callable")
    return _SCORERS[name]
