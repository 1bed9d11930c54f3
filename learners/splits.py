"""Hold-out sets for cross-validation: the one place where folds are built.

Cross-validation in this project always keeps dependent rows together — the pairs of one
document (PPI, Paper V; thesis §5.5), the parses of one sentence or article (Paper I §5.2,
Paper III §4), the documents of one query (LETOR) — so every builder here works on *groups*
(a row is its own group for plain k-fold). Group labels are always passed explicitly, never
inferred from row order.

* :func:`group_sets` — leave-one-group-out: one hold-out set per distinct group;
* :func:`group_folds` — k folds of whole groups, either shuffled (groups dealt round-robin in
  a seeded random order) or, given labels, *stratified*: groups dealt largest first to the
  fold whose larger share of all positives and of all rows stays smallest, ties broken by a
  hash of (seed, group) — the assignment depends only on the groups, the labels and the
  seed, never on the row order;
* :func:`folds_to_sets` — fold numbers → list of index arrays (what the learners' exact
  hold-out methods and :func:`learners.selection.select` take).

Cost: O(m log m) for m rows (a sort of the labels), plus O(g k) for g groups and k folds
when stratified.
"""

import hashlib

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._validation import check_groups

__all__ = ["group_sets", "group_folds", "folds_to_sets"]


def group_sets(groups):
    """Leave-one-group-out hold-out sets: the rows of each distinct group.

    Parameters
    ----------
    groups : array-like (m,)
        Group label of every row (document, sentence, query, article).

    Returns
    -------
    list of int ndarray
        One ascending index array per group, groups in sorted label order.
    """
    arr = np.asarray(groups)
    codes, _ = check_groups(arr, arr.shape[0] if arr.ndim else 0, "groups")
    return folds_to_sets(codes)


def folds_to_sets(fold):
    """``[rows of fold 0, rows of fold 1, ...]`` from one fold number per row (0..k−1)."""
    fold = np.asarray(fold)
    if fold.ndim != 1 or fold.size == 0 or not np.issubdtype(fold.dtype, np.integer) \
            or fold.min() < 0:
        raise InvalidInputError("fold must be a non-empty 1-d array of fold numbers >= 0")
    order = np.argsort(fold, kind="stable")
    bounds = np.cumsum(np.bincount(fold))[:-1]
    return [np.sort(s) for s in np.split(order, bounds)]


def _hash_key(seed, label):
    return hashlib.blake2b(f"{seed}\x00{label}".encode(), digest_size=8).hexdigest()


def group_folds(groups, n_folds, seed=0, *, y=None):
    """Fold number (0..n_folds−1) of every row; the rows of a group share a fold.

    Parameters
    ----------
    groups : array-like (m,)
        Group label of every row; pass ``np.arange(m)`` for plain row-level k-fold.
    n_folds : int >= 2
        At most the number of distinct groups.
    seed : int
        Shuffled: the seed of the random group order. Stratified: changes only the
        tie-breaking between equally large groups.
    y : array-like (m,), optional
        Labels (> 0 = positive). When given the folds are stratified (module docstring):
        both the number of rows and the number of positives are balanced across folds.

    Returns
    -------
    fold : int ndarray (m,)
    """
    arr = np.asarray(groups)
    m = arr.shape[0] if arr.ndim else 0
    codes, labels = check_groups(arr, m, "groups")
    if isinstance(n_folds, bool) or not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise InvalidParameterError(f"n_folds must be an integer >= 2, got {n_folds!r}")
    n_groups = labels.size
    if n_groups < n_folds:
        raise InvalidInputError(f"{n_groups} groups (of n_samples={m} rows) cannot fill "
                                f"{n_folds} folds; use fewer folds or leave-one-group-out")
    if y is None:
        perm = np.random.default_rng(seed).permutation(n_groups)
        fold_of = np.empty(n_groups, dtype=np.intp)
        fold_of[perm] = np.arange(n_groups) % n_folds
        return fold_of[codes]
    y = np.asarray(y)
    if y.shape != (m,):
        raise InvalidInputError(f"y has shape {y.shape} but groups has {m} rows")
    return _stratified(codes, labels, y, int(n_folds), seed)[codes]


def _stratified(codes, labels, y, n_folds, seed):
    """Per group: the fold of the balanced dealing (largest share first)."""
    n_groups = labels.size
    pos = np.bincount(codes, weights=(y > 0).astype(float), minlength=n_groups)
    size = np.bincount(codes, minlength=n_groups).astype(float)
    tot_pos, tot_size = max(pos.sum(), 1.0), size.sum()
    names = [str(g) for g in labels]
    order = sorted(range(n_groups), key=lambda d: (
        -max(pos[d] / tot_pos, size[d] / tot_size), _hash_key(seed, names[d])))
    fold_pos = np.zeros(n_folds)
    fold_size = np.zeros(n_folds)
    fold_of = np.empty(n_groups, dtype=np.intp)
    for d in order:                      # O(g k): a loop over groups, not over rows
        share = np.maximum((fold_pos + pos[d]) / tot_pos, (fold_size + size[d]) / tot_size)
        # smallest larger share; then smallest current total share; then lowest fold number
        f = np.lexsort((np.arange(n_folds), fold_pos / tot_pos + fold_size / tot_size,
                        share))[0]
        fold_of[d] = f
        fold_pos[f] += pos[d]
        fold_size[f] += size[d]
    return fold_of
