"""Preference pairs from scored data, and the oriented incidence matrix of a preference graph.

Paper I §2: scored data ``(y, qids)`` imply the preference graph with an edge ``i -> j``
("i is preferred to j") for every pair in the same query with ``y_i > y_j``; pairs with equal
scores carry no preference. :func:`preference_pairs` enumerates that graph (the explicit
graph of :class:`learners.PairwiseRankRLS` and of the parse-ranking cost variants);
:func:`count_preference_pairs` counts it without enumerating; :func:`incidence_matrix` builds
the sparse oriented incidence matrix ``M^T`` (Paper I eq. 12; thesis eq. 4.5) used by
:class:`learners.PairwiseRankRLS` and :class:`learners.cg.CGRankRLS`.

Everything is vectorized: one sort of the rows by (query, score), after which the partners of
every row are one contiguous block of the sorted order (the rows of its query with a lower
score); no Python loop over pairs or queries.
"""

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidInputError
from learners._validation import check_groups, check_vector

__all__ = ["count_preference_pairs", "incidence_matrix", "preference_pairs"]


def _lower_blocks(y, qids):
    """Rows sorted by (query, score decreasing) and, for every sorted position, the
    half-open range ``[lo, hi)`` of sorted positions with the same query and a lower score."""
    y = check_vector(y, "y")
    m = y.size
    codes = np.zeros(m, dtype=np.intp) if qids is None else check_groups(qids, m, "qids")[0]
    order = np.lexsort((-y, codes))
    c_o, y_o = codes[order], y[order]
    new_query = np.r_[True, c_o[1:] != c_o[:-1]]
    new_level = new_query | np.r_[True, y_o[1:] != y_o[:-1]]
    pos = np.arange(m)
    query_end = np.r_[np.flatnonzero(new_query)[1:], m]
    hi = query_end[np.cumsum(new_query) - 1]                  # end of the row's query
    level_end = np.r_[np.flatnonzero(new_level)[1:], m]
    lo = level_end[np.cumsum(new_level) - 1]                  # end of the row's tie block
    return y, order, lo, hi, pos


def count_preference_pairs(y, qids=None):
    """Number of pairs with ``y_i > y_j`` (inside each query when ``qids`` is given);
    O(m log m), nothing enumerated."""
    _, _, lo, hi, _ = _lower_blocks(y, qids)
    return int(np.sum(hi - lo))


def preference_pairs(y, qids=None, max_pairs=None, tie_tolerance=0.0):
    """All preference pairs of scored data: ``(i, j)`` with ``y_i > y_j``.

    Parameters
    ----------
    y : array-like (m,)
        Scores; pairs with equal scores are not preferences and are left out.
    qids : array-like (m,), optional
        Query of each row: only pairs inside a query (None: all pairs of the data).
    max_pairs : int, optional
        Refuse to build more pairs than this (the count is known before anything is
        allocated).
    tie_tolerance : float >= 0, default 0
        Pairs whose scores differ by at most this much are ties and left out (applied after
        the count of strictly different pairs is checked against ``max_pairs``).

    Returns
    -------
    pairs : ndarray (l, 2) of intp
        Row ``pairs[e, 0]`` is preferred to row ``pairs[e, 1]``; grouped by query, the
        preferred rows by decreasing score.
    magnitudes : ndarray (l,)
        ``y_i - y_j > 0``.

    Raises
    ------
    InvalidInputError
        When there would be more than ``max_pairs`` pairs.

    Notes
    -----
    O(m log m + l) time and O(m + l) memory for l pairs: after one sort the partners of each
    row are a contiguous block, expanded with ``np.repeat``.
    """
    y, order, lo, hi, pos = _lower_blocks(y, qids)
    counts = hi - lo
    n_pairs = int(counts.sum())
    if max_pairs is not None and n_pairs > max_pairs:
        raise InvalidInputError(
            f"the scores imply {n_pairs} preference pairs, more than max_pairs={max_pairs}; "
            "raise max_pairs, give qids (pairs inside queries only) or pass pairs explicitly")
    first = np.repeat(pos, counts)
    offset = np.arange(n_pairs) - np.repeat(np.cumsum(counts) - counts, counts)
    pairs = np.column_stack([order[first], order[np.repeat(lo, counts) + offset]])
    magnitudes = y[pairs[:, 0]] - y[pairs[:, 1]]
    if tie_tolerance > 0:
        keep = magnitudes > tie_tolerance
        pairs, magnitudes = pairs[keep], magnitudes[keep]
    return pairs, magnitudes


def incidence_matrix(pairs, m, weights=None):
    """Sparse ``M^T`` (l x m, CSR): row e has ``+w_e`` at the preferred and ``-w_e`` at the
    other row of ``pairs[e]`` (Paper I eq. 12, weights 1 by default). ``M M^T v =
    Mt.T @ (Mt @ v)`` costs O(l); built directly in CSR (two entries per row, no COO)."""
    pairs = np.asarray(pairs)
    l = len(pairs)
    w = np.ones(l) if weights is None else np.asarray(weights, dtype=np.float64)
    if w.shape != (l,):
        raise InvalidInputError(f"weights must have one entry per pair ({l}), got {w.shape}")
    indptr = np.arange(0, 2 * l + 1, 2, dtype=np.int64)
    data = np.column_stack([w, -w]).ravel()
    return sp.csr_matrix((data, pairs.reshape(-1), indptr), shape=(l, m))
