"""The all-paths features by expanding every label-pair term and sorting: the oracle the
compiled route of :mod:`learners.kernels.all_paths` (and of :mod:`ppi.representation.pair_rows`) is tested
against (the reference lives in the tests only).

* :func:`graph_features` — ``G`` of one instance as a dict ``{(label_i, label_j): value}``;
* :class:`ReferenceAllPathsKernel` — :class:`learners.kernels.AllPathsKernel` whose
  ``variant="max"`` chunks are aggregated by expanding the terms and one sort per chunk
  (:func:`max_per_row_code`) instead of the compiled maxima; every other step (inverses,
  label table, vocabulary, hashing, normalization) is the kernel's own, so the rows must be
  equal bit for bit (the maximum is exact in any order).
"""

import numpy as np

from learners.kernels import AllPathsKernel
from learners.kernels.all_paths import (aggregate_label_pairs, all_paths_matrix,
                                        label_pair_entries)


def max_per_row_code(rows, codes, values):
    """``(rows, codes, max values)`` of each distinct ``(row, code)``, for ``rows`` in
    non-decreasing order (entries are produced instance by instance): one stable sort by
    code keeps each code's rows in order, so equal ``(row, code)`` are adjacent.
    The same triples as :func:`aggregate_label_pairs` with ``variant="max"`` over the
    codes' ranks, in (code, row) order instead of (row, code) — the maximum is exact in
    any order, and callers aggregate them again.  O(N log N), one sort instead of two."""
    if len(codes) == 0:
        return rows, codes, values
    order = np.argsort(codes, kind="stable")
    c, r, v = codes[order], rows[order], values[order]
    starts = np.flatnonzero(np.concatenate([[True], (c[1:] != c[:-1]) | (r[1:] != r[:-1])]))
    return r[starts], c[starts], np.maximum.reduceat(v, starts)



class ReferenceAllPathsKernel(AllPathsKernel):
    """:class:`AllPathsKernel` with the ``max`` aggregation by expansion and sort."""

    def _chunk_rows(self, chunk, prepared):
        if self.variant != "max":
            return super()._chunk_rows(chunk, prepared)
        r, a, b, w = self._entries(chunk)
        r, c, w = max_per_row_code(r, (a << np.int64(32)) | b, w)
        order = np.argsort(r, kind="stable")         # (code, row) → (row, code) order
        return np.bincount(r, minlength=len(chunk)), c[order], w[order]


def graph_features(graph, variant="max", *, min_weight=0.0, on_divergence="raise"):
    """The non-zero entries of ``G`` of one graph as a dict ``{(label_i, label_j): value}``.

    The oracle of the tests: every term expanded (:func:`label_pair_entries`), then summed or
    maximized per label pair by one sort (:func:`aggregate_label_pairs`); the library's
    rows go through :class:`AllPathsKernel`.
    """
    graphs = graph if isinstance(graph, (list, tuple)) else [graph]
    index, names = {}, []
    A_rows, B_rows, w_rows = [], [], []
    for g in graphs:
        W, _ = all_paths_matrix(g.adjacency(), on_divergence=on_divergence)
        ids = [[index.setdefault(x, len(index)) for x in labs] for labs in g.labels]
        a, b, w = label_pair_entries(W, ids, min_weight=min_weight)
        A_rows.append(a), B_rows.append(b), w_rows.append(w)
    names = [None] * len(index)
    for k, v in index.items():
        names[v] = k
    a, b, w = np.concatenate(A_rows), np.concatenate(B_rows), np.concatenate(w_rows)
    n = max(len(index), 1)
    G = aggregate_label_pairs(np.zeros_like(a), a * n + b, w, variant, 1, n * n).tocoo()
    return {(names[c // n], names[c % n]): float(v) for c, v in zip(G.col, G.data)}

