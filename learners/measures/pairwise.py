"""Pairwise ranking measures: disagreement error, concordance index, Kendall tau-b and AUC.

* :func:`disagreement_error` -- Paper I, eq. 1: the fraction of misordered pairs among the
  pairs with different labels (a tie in the predictions costs 1, or 1/2 with ``ties=0.5``);
* :func:`cindex` -- the concordance index, ``1 - disagreement_error(..., ties=0.5)``, the
  ``score`` of every ranker in :mod:`learners`;
* :func:`kendall_tau_b` -- tau-b as :func:`scipy.stats.kendalltau` (parse ranking, thesis
  Sect. 5.5);
* :func:`auc` -- thesis eq. 3.5; for bipartite data the disagreement error with ties counted
  as one half equals ``1 - AUC``. Leave-pair-out estimates (``leave_pair_out`` of the
  learners) are scored with the same pair counts.

Every pairwise count is done by sorting (O(m log m) time, O(m) memory; Knight's algorithm
with merge-based inversion counting); no function builds the m x m pair matrix or loops over
pairs in Python. With ``qids`` only pairs inside a query count, all queries at once.
"""

import numpy as np
from scipy.stats import rankdata

from kernelrank.errors import UndefinedMeasureError
from learners.measures._common import (
    QueryAverage,
    binary_pair,
    checked_choice,
    query_groups,
    checked_pair,
    query_mean,
    equal_runs,
)

__all__ = ["auc", "cindex", "disagreement_error", "kendall_tau_b"]


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


def _tied_pairs(codes_sorted, n_groups, *other_sorted):
    """Pairs inside each group that are tied on all of ``other_sorted`` (lexsorted input)."""
    starts, lengths, _ = equal_runs(codes_sorted, *other_sorted)
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
    _, _, change = equal_runs(g_s, s_s)
    rank = np.empty(s.size, dtype=np.int64)
    rank[order_s] = np.cumsum(change) - 1
    inversions = _inversions_per_element(rank[order])
    discordant = np.bincount(g_o, weights=inversions, minlength=n_groups)
    n_pairs = total - tied_y
    tied_scores = tied_s - tied_ys
    concordant = n_pairs - tied_scores - discordant
    return n_pairs, concordant, discordant, tied_scores, total, tied_s


# --------------------------------------------------------------------------- measures


def disagreement_error(y, scores, qids=None, *, average="query", ties=1.0,
                       return_details=False):
    """Fraction of misordered pairs among the pairs with different labels (Paper I, eq. 1).

    For the pairs ``(i, j)`` with ``y_i > y_j`` (inside the same query when ``qids`` is
    given) the error is ::

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
    checked_choice("average", average, ("query", "pairs"))
    checked_choice("ties", ties, (1.0, 0.5))
    y, s = checked_pair("y", y, "scores", scores)
    codes, n_groups = query_groups(qids, y.size)
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
    return query_mean("disagreement_error", per_query, defined, return_details)


def cindex(y, scores, qids=None, *, average="query", return_details=False):
    """Concordance index: fraction of correctly ordered pairs, ties in scores counting 1/2.

    Over the pairs ``(i, j)`` with ``y_i > y_j`` (inside a query if ``qids`` is given), ::

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
    y, s = checked_pair("y", y, "scores", scores)
    codes, n_groups = query_groups(qids, y.size)
    n_pairs, conc, disc, _, total, tied_s = _pair_counts(y, s, codes, n_groups)
    denom = n_pairs * (total - tied_s)
    defined = denom > 0
    per_query = (conc - disc) / np.sqrt(np.where(defined, denom, 1.0))
    return query_mean("kendall_tau_b", per_query, defined, return_details)


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
    pos, s = binary_pair(y_true, scores)
    n_pos = int(pos.sum())
    n_neg = pos.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise UndefinedMeasureError(
            f"AUC is undefined with one class only ({n_pos} positive, {n_neg} negative)")
    ranks = rankdata(s)  # average ranks: a tie contributes 1/2
    u = ranks[pos].sum() - n_pos * (n_pos + 1) / 2.0
    return float(u / (n_pos * n_neg))
