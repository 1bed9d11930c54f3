"""Deterministic document-level cross-validation folds for PPI (Paper V, "Corpora and
evaluation criteria"; thesis §5.5 "Data dependencies").

Pairs from one sentence share almost all of their context, so the pairs of a document are
never split between folds (:func:`document_folds`).  Folds are stratified: documents are
dealt, largest first, to the fold whose larger share (of all positive pairs, of all
pairs) stays smallest, so that both the number of pairs and the number of positives are
balanced; ties are broken by a hash of (seed, document id) — the assignment depends only on
the ids, the labels and the seed, not on the file order.

:func:`pair_folds` — random folds over pairs — exists only to reproduce the *leaky*
protocol criticized in Paper V and thesis §5.5; results made with it must say so.
"""

from __future__ import annotations

import hashlib

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError

__all__ = ["document_folds", "pair_folds", "folds_to_sets", "leave_one_group_out_sets"]


def _key(seed, doc_id):
    return hashlib.blake2b(f"{seed}\x00{doc_id}".encode(), digest_size=8).hexdigest()


def document_folds(document_ids, y, n_folds=10, seed=0):
    """Fold number (0..n_folds−1) of every pair; all pairs of a document share a fold.

    Parameters
    ----------
    document_ids : array-like (m,)
    y : array-like (m,)          labels; > 0 = positive
    n_folds : int
    seed : int                   changes the tie-breaking only

    Returns
    -------
    fold : int ndarray (m,)
    """
    doc = np.asarray(document_ids, dtype=object)
    y = np.asarray(y)
    if doc.shape != y.shape or doc.ndim != 1:
        raise InvalidInputError("document_ids and y must be 1-d of the same length")
    if not isinstance(n_folds, (int, np.integer)) or n_folds < 2:
        raise InvalidParameterError(f"n_folds={n_folds!r}; an int ≥ 2")
    names, inverse = np.unique(doc.astype(str), return_inverse=True)
    if len(names) < n_folds:
        raise InvalidInputError(f"{len(names)} documents cannot fill {n_folds} folds")
    pos = np.bincount(inverse, weights=(y > 0).astype(float), minlength=len(names))
    size = np.bincount(inverse, minlength=len(names))
    tot_pos, tot_size = max(pos.sum(), 1.0), float(size.sum())
    order = sorted(range(len(names)), key=lambda d: (
        -max(pos[d] / tot_pos, size[d] / tot_size), _key(seed, names[d])))
    fold_pos = np.zeros(n_folds)
    fold_size = np.zeros(n_folds)
    doc_fold = np.empty(len(names), dtype=np.int64)
    for d in order:
        # the fold whose share of positives and of pairs stays smallest (both balanced)
        f = min(range(n_folds), key=lambda k: (
            max((fold_pos[k] + pos[d]) / tot_pos, (fold_size[k] + size[d]) / tot_size),
            fold_pos[k] / tot_pos + fold_size[k] / tot_size, k))
        doc_fold[d] = f
        fold_pos[f] += pos[d]
        fold_size[f] += size[d]
    return doc_fold[inverse]


def pair_folds(m, n_folds=10, seed=0):
    """LEAKY: random pair-level folds (pairs of one sentence land in different folds)."""
    if m < n_folds:
        raise InvalidInputError(f"{m} pairs cannot fill {n_folds} folds")
    rng = np.random.default_rng(seed)
    fold = np.arange(m) % n_folds
    rng.shuffle(fold)
    return fold


def folds_to_sets(fold):
    """``[indices of fold 0, indices of fold 1, ...]``."""
    fold = np.asarray(fold)
    return [np.flatnonzero(fold == k) for k in range(int(fold.max()) + 1)]


def leave_one_group_out_sets(groups):
    """One index set per distinct group (e.g. leave-one-document-out)."""
    _, inverse = np.unique(np.asarray(groups, dtype=object).astype(str), return_inverse=True)
    order = np.argsort(inverse, kind="stable")
    bounds = np.flatnonzero(np.diff(inverse[order])) + 1
    return np.split(order, bounds)
