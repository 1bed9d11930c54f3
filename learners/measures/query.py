"""Query-wise ranking measures: average precision, MAP, precision at k, NDCG at k, and the
LETOR evaluation.

:func:`letor_evaluation` reproduces the conventions of the official LETOR tools
(``Eval-Score-3.0.pl`` by default, ``Eval-Score-4.0.pl`` and ``Eval-Score-MSLR.pl`` on
request; :data:`LETOR_CONVENTIONS`): stable ranking with ties in input order, AP = 0
without a relevant document, the Jarvelin-Kekalainen discount, zeros beyond a query's
length; every other
function documents its tie and short-query conventions. All queries are computed at once
with grouped sorting (O(m log m)), never with a Python loop over queries; per-query results
come in the order of ``numpy.unique(qids)``.
"""

from numbers import Real

import numpy as np

from kernelrank.errors import InvalidParameterError, UndefinedMeasureError
from learners._validation import check_positive_int
from learners.measures._common import (binary_pair, checked_choice, checked_pair, equal_runs,
                                       query_groups, query_mean)

__all__ = ["LETOR_CONVENTIONS", "average_precision", "letor_evaluation",
           "mean_average_precision", "ndcg_at_k", "precision_at_k"]


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
    starts, lengths, _ = equal_runs(g_o, s[order])
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
    checked_choice("ties", ties, _TIES)
    pos, s = binary_pair(y_true, scores)
    if not pos.any():
        raise UndefinedMeasureError("average precision is undefined without positive examples")
    return float(_ap_per_query(pos, s, np.zeros(s.size, dtype=np.int64), 1, ties)[0])


def _finish_query_measure(name, per_query, has_relevant, no_relevant, return_details):
    """Apply the no-relevant-item convention and average over queries."""
    per_query = np.where(has_relevant, per_query, 0.0)
    defined = has_relevant if no_relevant == "skip" else np.ones_like(has_relevant)
    return query_mean(name, per_query, defined, return_details)


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
    checked_choice("ties", ties, _TIES)
    checked_choice("no_relevant", no_relevant, ("zero", "skip"))
    y, s = checked_pair("y", y, "scores", scores)
    codes, n_groups = query_groups(qids, y.size)
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
    k = check_positive_int(k, "k")
    checked_choice("ties", ties, _TIES)
    checked_choice("short_queries", short_queries, ("pad", "zero"))
    y, s = checked_pair("y", y, "scores", scores)
    codes, n_groups = query_groups(qids, y.size)
    rel = _relevant(y, relevant_threshold)
    order, g_o, rank, sizes, bf, bl = _ranked(y, s, codes, n_groups)
    w = _position_weights(rank, bf, bl, lambda r: (r <= k).astype(float), ties)
    per_query = np.bincount(g_o, weights=rel[order] * w, minlength=n_groups) / k
    if short_queries == "zero":
        per_query = np.where(sizes >= k, per_query, 0.0)
    return query_mean("precision_at_k", per_query, np.ones(n_groups, bool), return_details)


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
    k = check_positive_int(k, "k")
    checked_choice("discount", discount, ("log2(1+rank)", "letor"))
    checked_choice("ties", ties, _TIES)
    checked_choice("no_relevant", no_relevant, ("zero", "skip"))
    checked_choice("short_queries", short_queries, ("pad", "zero"))
    y, s = checked_pair("y", y, "scores", scores)
    codes, n_groups = query_groups(qids, y.size)
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


#: The conventions of the official LETOR evaluation scripts (Microsoft Research Asia, by
#: Jun Xu and Tie-Yan Liu): ``Eval-Score-3.0.pl`` (LETOR 3.0), ``Eval-Score-4.0.pl`` (LETOR
#: 4.0, "modified by Jun Xu, March 3, 2009") and ``Eval-Score-MSLR.pl`` (MSLR-WEB10K/30K,
#: "modified by Jun Xu, June 12, 2010"), read line by line. What all three share: documents
#: ranked by decreasing prediction with a stable sort of the file order (ties keep the input
#: order); NDCG gain from a table equal to ``2^y - 1`` and discount 1 at ranks 1-2, ``1 /
#: log2(r)`` beyond; a query without relevant document has AP = 0 and NDCG = 0 and is
#: *counted* in the mean (every sum is divided by the number of queries); NDCG@k of a query
#: with fewer than k documents is 0 (the scripts compute NDCG only at the positions a query
#: has and add nothing for the others). Where they differ:
#:
#: * ``relevant_threshold`` (P@k and MAP): labels >= 1 in 3.0 and 4.0 (their table maps 1
#:   and 2 to relevant), labels >= 2 in MSLR (its table maps 0 and 1 to irrelevant, 2-4 to
#:   relevant);
#: * ``precision_short_queries``: P@k of a query with fewer than k documents is 0 in 3.0
#:   (it sums only the positions a query has), while 4.0 and MSLR count the missing
#:   positions as irrelevant ("if # retrieved doc < $topN, the P@N will consider the hole
#:   as irrelevant", Jun Xu, 2009-4-24), i.e. #relevant / k.
#:
#: The 3.0 and 4.0 gain tables stop at label 2 (a label 3 or 4 would get gain 0 and count
#: as irrelevant there); we use ``2^y - 1`` and ``y >= threshold`` for any label, which is
#: what the MSLR table spells out up to 4. For labels in {0, 1, 2} every value below is the
#: script's.
LETOR_CONVENTIONS = {
    "letor3": {"relevant_threshold": 1, "precision_short_queries": "zero"},
    "letor4": {"relevant_threshold": 1, "precision_short_queries": "pad"},
    "mslr": {"relevant_threshold": 2, "precision_short_queries": "pad"},
}


def letor_evaluation(y, scores, qids, *, max_k=10, convention="letor3"):
    """P@1..max_k, MAP and NDCG@1..max_k with the conventions of an official LETOR script.

    ``convention="letor3"`` (default) is ``Eval-Score-3.0.pl``: it ranks each query's
    documents by decreasing prediction with a stable sort of the documents in file order (so
    ties keep the input order), counts labels >= 1 as relevant for P@k and MAP, uses gain
    ``2^y - 1`` and the discount ``1`` at ranks 1-2 and ``1 / log2(r)`` beyond for NDCG,
    gives 0 to a query without relevant document, and gives 0 at positions k beyond a
    query's length (it sums only the positions a query has and divides by the number of
    queries). ``"letor4"`` (``Eval-Score-4.0.pl``) differs only in P@k on a query shorter
    than k: the missing positions count as irrelevant (#relevant / k). ``"mslr"``
    (``Eval-Score-MSLR.pl``) is ``"letor4"`` with labels >= 2 relevant for P@k and MAP.
    See :data:`LETOR_CONVENTIONS` for the script lines behind each rule. Rows must be
    passed in the order of the LETOR file for the tie-break to match.

    Parameters
    ----------
    y, scores, qids : array-like of shape (m,)
    max_k : int, default 10
    convention : {"letor3", "letor4", "mslr"}

    Returns
    -------
    dict
        ``{"P@1": ..., ..., "MAP": ..., "NDCG@1": ..., ...}`` (floats).

    Notes
    -----
    Time O(max_k m log m).
    """
    max_k = check_positive_int(max_k, "max_k")
    rules = LETOR_CONVENTIONS[checked_choice("convention", convention, tuple(LETOR_CONVENTIONS))]
    threshold = rules["relevant_threshold"]
    out = {}
    for k in range(1, max_k + 1):
        out[f"P@{k}"] = precision_at_k(y, scores, qids, k, relevant_threshold=threshold,
                                       ties="input_order",
                                       short_queries=rules["precision_short_queries"])
    out["MAP"] = mean_average_precision(y, scores, qids, relevant_threshold=threshold,
                                        ties="input_order", no_relevant="zero")
    for k in range(1, max_k + 1):
        out[f"NDCG@{k}"] = ndcg_at_k(y, scores, qids, k, discount="letor",
                                     ties="input_order", no_relevant="zero",
                                     short_queries="zero")
    return out
