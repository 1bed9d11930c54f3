"""The label-pair matrix ``G`` of the all-paths kernel from walk sums ``W`` and vertex labels
(Paper V l.2750–2772 and its errata l.3040–3080): ``G_ij = Σ_kl L_ik W_kl L_jl``
(``variant="sum"``, the paper) or ``max_kl L_ik W_kl L_jl`` (``"max"``, the errata: what the
published numbers used).

* ``max`` — compiled (numba): each ``W_kl`` above the threshold updates a dense max matrix
  over the instance's distinct labels for each label pair of ``(k, l)``
  (:func:`update_max`), whose non-zero entries are then emitted in row-major order
  (:func:`append_entries`, by label-pair code or by a fitted vocabulary's column);
  :func:`max_label_pairs` does it for a batch of instances.  O(n² c² + u²) per instance (n
  vertices, c labels per vertex, u distinct labels).  A linear model needs no entries:
  :func:`dot_entries` gives the inner product of ``G`` with a weight vector over the
  vocabulary's columns and ``‖G‖²`` straight from the dense matrix.
* ``sum`` — the terms ``L_ik W_kl L_jl`` expanded (:func:`label_pair_entries`) and summed
  per label pair (:func:`aggregate_label_pairs`), O(N log N) in the number N of terms.

These are the building blocks of :class:`learners.kernels.AllPathsKernel` and of routes
that compute ``W`` elsewhere (:mod:`ppi.representation.pair_rows`).
"""

from __future__ import annotations

import numba
import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError

__all__ = ["VARIANTS", "label_pair_entries", "aggregate_label_pairs", "update_max",
           "append_entries", "dot_entries", "dense_weight_rows", "max_label_pairs"]

VARIANTS = ("max", "sum")


def label_pair_entries(W, vertex_label_ids, *, min_weight=0.0):
    """All ``(label_i, label_j, W_kl)`` with ``W_kl > min_weight`` and label_i ∈ L(k),
    label_j ∈ L(l): the non-zero terms ``L_ik W_kl L_jl`` of ``G``, before aggregation.

    Parameters
    ----------
    W : ndarray (n, n)
    vertex_label_ids : list of int arrays, one per vertex

    Returns
    -------
    a, b : int64 arrays (label ids), w : float array — all of the same length.
    """
    counts = np.fromiter((len(x) for x in vertex_label_ids), dtype=np.int64,
                         count=len(vertex_label_ids))
    flat = (np.concatenate([np.asarray(x, dtype=np.int64) for x in vertex_label_ids])
            if len(vertex_label_ids) else np.zeros(0, np.int64))
    ptr = np.concatenate([[0], np.cumsum(counts)])
    k, l = np.nonzero(W > min_weight)
    w = W[k, l]
    ck, cl = counts[k], counts[l]
    reps = ck * cl
    total = int(reps.sum())
    entry = np.repeat(np.arange(len(k)), reps)
    # position of each expanded item inside its entry's ck × cl block
    start = np.cumsum(reps) - reps
    pos = np.arange(total) - np.repeat(start, reps)
    cle = cl[entry]
    a = flat[ptr[k][entry] + pos // cle]
    b = flat[ptr[l][entry] + pos % cle]
    return a, b, w[entry]


def aggregate_label_pairs(rows, cols, values, variant, n_rows, n_cols):
    """Sum or max of ``values`` over equal ``(row, col)``, as a CSR matrix."""
    if variant not in VARIANTS:
        raise InvalidParameterError(f"variant={variant!r}; choose 'max' or 'sum'")
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    values = np.asarray(values, dtype=float)
    if variant == "sum":
        return sp.csr_matrix((values, (rows, cols)), shape=(n_rows, n_cols))  # sums duplicates
    key = rows * np.int64(n_cols) + cols
    order = np.argsort(key, kind="stable")
    key, values = key[order], values[order]
    if len(key) == 0:
        return sp.csr_matrix((n_rows, n_cols))
    starts = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    vals = np.maximum.reduceat(values, starts)
    uk = key[starts]
    return sp.csr_matrix((vals, (uk // n_cols, uk % n_cols)), shape=(n_rows, n_cols))



@numba.njit(cache=True, nogil=True)
def update_max(G, W, n, labels, lab_ptr, lab_loc, min_weight):  # pragma: no cover - compiled
    """``G[i, j] = max(G[i, j], W[k, l])`` for every ``W[k, l] > min_weight`` of one graph
    and every label ``i`` of vertex ``k``, ``j`` of vertex ``l``: vertex ``v``'s labels are
    the entries ``lab_ptr[labels + v]:lab_ptr[labels + v + 1]``, entry ``p`` being label
    ``lab_loc[p]`` (a row of ``G``).  ``W``: the graph's walk sums, flat row-major (n × n).
    O(n² c²) for c labels per vertex."""
    for k in range(n):
        ks, ke = lab_ptr[labels + k], lab_ptr[labels + k + 1]
        if ks == ke:
            continue
        for l in range(n):
            w = W[k * n + l]
            if w > min_weight:
                ls, le = lab_ptr[labels + l], lab_ptr[labels + l + 1]
                for p in range(ks, ke):
                    i = lab_loc[p]
                    for q in range(ls, le):
                        j = lab_loc[q]
                        if w > G[i, j]:
                            G[i, j] = w


@numba.njit(cache=True, nogil=True)
def _lower_bound(a, lo, hi, x):  # pragma: no cover - compiled
    """First position in ``a[lo:hi]`` (ascending) whose value is ≥ ``x`` (``hi`` if none),
    galloping from ``lo``: O(log d) for the distance d to it."""
    step = 1
    while lo + step < hi and a[lo + step] < x:
        lo += step
        step *= 2
    if lo < hi and a[lo] >= x:
        return lo
    hi = min(lo + step + 1, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@numba.njit(cache=True, nogil=True)
def _find_column(codes, lo, hi, code):  # pragma: no cover - compiled
    """``(where the next search of ``codes[·:hi]`` starts, the column of ``code`` or −1)``:
    the codes of a row are searched in ascending order, each from past the last one."""
    lo = _lower_bound(codes, lo, hi, code)
    if lo < hi and codes[lo] == code:
        return lo + 1, lo
    return lo, -1


@numba.njit(cache=True, nogil=True)
def append_entries(G, label_ids, r, vocab_ptr, vocab_codes, out,
                m):  # pragma: no cover - compiled
    """Move the non-zero entries of ``G`` (instance ``r``) to ``out = (rows, keys,
    values)`` from position ``m`` in row-major order, growing the arrays by doubling, and
    zero ``G`` again.  Returns ``(out, new m, ‖G‖²)``.

    ``vocab_ptr`` empty: every entry, keyed by its label-pair code
    ``label_ids[i] << 32 | label_ids[j]`` (ascending when ``label_ids`` is).  Otherwise only
    the label pairs of a vocabulary, keyed by their column: the pairs ``(a, ·)`` of first
    label ``a < len(vocab_ptr) - 1`` are the columns ``vocab_ptr[a]:vocab_ptr[a + 1]``, their
    codes ``vocab_codes[...]`` (the vocabulary's sorted codes) ascending.  ``‖G‖²`` sums
    the squares in row-major order (as a ``bincount`` of the entries would).
    O(u² + t log d) for u labels and t non-zero entries."""
    u = G.shape[0]
    rows, keys, vals = out
    if m + u * u > len(rows):
        cap = len(rows)
        while m + u * u > cap:
            cap *= 2
        rows2 = np.empty(cap, np.int64)
        keys2 = np.empty(cap, np.int64)
        vals2 = np.empty(cap, np.float64)
        rows2[:m] = rows[:m]
        keys2[:m] = keys[:m]
        vals2[:m] = vals[:m]
        rows, keys, vals = rows2, keys2, vals2
    norm = 0.0
    by_code = len(vocab_ptr) == 0
    for i in range(u):
        a = label_ids[i]
        lo = hi = 0
        if not by_code and a < len(vocab_ptr) - 1:
            lo, hi = vocab_ptr[a], vocab_ptr[a + 1]
        for j in range(u):
            g = G[i, j]
            if g == 0.0:
                continue
            G[i, j] = 0.0
            norm += g * g
            if by_code:
                rows[m] = r
                keys[m] = (a << 32) | label_ids[j]
                vals[m] = g
                m += 1
            elif lo < hi:
                lo, column = _find_column(vocab_codes, lo, hi, (a << 32) | label_ids[j])
                if column >= 0:
                    rows[m] = r
                    keys[m] = column
                    vals[m] = g
                    m += 1
    return (rows, keys, vals), m, norm


@numba.njit(cache=True, nogil=True)
def dot_entries(G, label_ids, vocab_ptr, vocab_codes, weights, dense_row,
                dense):  # pragma: no cover - compiled
    """``(Σ G_ij weights[column(i, j)], ‖G‖²)`` over the non-zero entries of ``G``, and zero
    ``G`` again: what :func:`append_entries` followed by the product of the entries with
    ``weights`` gives, without writing the entries.  The vocabulary ``(vocab_ptr,
    vocab_codes)`` and the order of the sums are those of :func:`append_entries` (row-major),
    so ``‖G‖²`` is the same number.

    ``dense_row[a] ≥ 0`` (for first labels with many columns, :func:`dense_weight_rows`):
    the weights of first label ``a`` by second label are ``dense[dense_row[a] * L:][:L]``
    (0 for a pair outside the vocabulary; ``L = len(vocab_ptr) - 1``), read directly
    instead of searched — the same terms, the same sum.  O(u² + t log d) for u labels and
    t non-zero entries (O(u² + t) for the dense rows)."""
    u = G.shape[0]
    n_first = len(vocab_ptr) - 1     # labels past the fitted ones are this call's own
    norm = 0.0
    dot = 0.0
    for i in range(u):
        a = label_ids[i]
        lo = hi = 0
        base = -1
        if a < n_first:
            lo, hi = vocab_ptr[a], vocab_ptr[a + 1]
            if dense_row[a] >= 0:
                base = dense_row[a] * n_first
        for j in range(u):
            g = G[i, j]
            if g == 0.0:
                continue
            G[i, j] = 0.0
            norm += g * g
            if lo < hi:
                b = label_ids[j]
                if b >= n_first:             # a label the vocabulary never saw
                    continue
                if base >= 0:
                    dot += g * dense[base + b]
                    continue
                lo, column = _find_column(vocab_codes, lo, hi, (a << 32) | b)
                if column >= 0:
                    dot += g * weights[column]
    return dot, norm


def dense_weight_rows(vocab_ptr, vocab_codes, weights, budget):
    """``(dense_row, dense)`` of :func:`dot_entries`: the first labels with the most
    columns, as many as ``budget`` bytes hold, get a dense row of weights over every second
    label (the rows where a search costs most: a few hundred labels hold most of the
    look-ups of a model of millions of label pairs).  ``dense_row[a]`` −1: searched."""
    n_first = len(vocab_ptr) - 1
    lengths = np.diff(vocab_ptr)
    n_rows = int(min(budget // max(8 * n_first, 1), np.count_nonzero(lengths)))
    dense_row = np.full(n_first, -1, np.int64)
    dense = np.zeros(n_rows * n_first)
    if n_rows:
        chosen = np.argsort(-lengths, kind="stable")[:n_rows]
        dense_row[chosen] = np.arange(n_rows)
        first = np.repeat(np.arange(n_first), lengths)
        take = np.flatnonzero(dense_row[first] >= 0)
        dense[dense_row[first[take]] * n_first + (vocab_codes[take] & 0xFFFFFFFF)] = \
            weights[take]
    return dense_row, dense


@numba.njit(cache=True, nogil=True)
def max_label_pairs(inst_ptr, g_n, w_ptr, w_flat, v_ptr, lab_ptr, lab_loc, u_ptr, u_ids,
                     min_weight):  # pragma: no cover - compiled
    """``G_ij = max_kl L_ik W_kl L_jl`` of every instance, pooled over its graphs, as
    ``(rows, codes, values)`` sorted by row, then code (``code = i << 32 | j``).

    Graph ``g`` of the instances ``inst_ptr[r]:inst_ptr[r + 1]`` has ``g_n[g]`` vertices,
    its ``W`` row-major at ``w_flat[w_ptr[g]:]`` and its vertex ``v`` the label entries
    ``lab_ptr[v_ptr[g] + v]:lab_ptr[v_ptr[g] + v + 1]``; entry ``p`` is label
    ``u_ids[u_ptr[r] + lab_loc[p]]`` of instance ``r``, whose distinct labels
    ``u_ids[u_ptr[r]:u_ptr[r + 1]]`` are sorted (so the codes come out sorted).  Every
    ``W_kl > min_weight`` updates a dense max matrix over the instance's labels for each
    label pair of ``(k, l)`` (:func:`update_max`): the terms of :func:`label_pair_entries`
    without expanding them.  O(Σ n² c² + u²) per instance (n vertices, c labels per vertex,
    u labels).
    """
    n_inst = len(inst_ptr) - 1
    out = (np.empty(1 << 16, np.int64), np.empty(1 << 16, np.int64),
           np.empty(1 << 16, np.float64))
    none = np.zeros(0, np.int64)
    m = 0
    for r in range(n_inst):
        u0 = u_ptr[r]
        u = u_ptr[r + 1] - u0
        G = np.zeros((u, u))
        for g in range(inst_ptr[r], inst_ptr[r + 1]):
            n = g_n[g]
            update_max(G, w_flat[w_ptr[g]:w_ptr[g] + n * n], n, v_ptr[g], lab_ptr, lab_loc,
                        min_weight)
        out, m, _ = append_entries(G, u_ids[u0:u0 + u], r, none, none, out, m)
    return out[0][:m].copy(), out[1][:m].copy(), out[2][:m].copy()

