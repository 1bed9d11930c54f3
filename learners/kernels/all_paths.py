"""The all-paths graph kernel as an explicit sparse feature map (Paper V, "The all-paths graph
kernel", l.2750–2772, and its errata, l.3040–3080).

A graph is a weighted directed adjacency matrix ``A`` (``A[k, l]`` = weight of edge k → l)
and a set of labels per vertex (the label allocation matrix ``L``, |labels| × |V|).  With the
Neumann series

    W = (I − A)^-1 − I = A + A^2 + A^3 + ...        (converges iff spectral radius ρ(A) < 1)

``W[k, l]`` sums the weights (products of edge weights) of all walks k → l of length ≥ 1.
The graph is represented by a label × label matrix ``G``:

* ``variant="sum"`` — ``G = L W Lᵀ``, i.e. ``G_ij = Σ_kl L_ik W_kl L_jl`` (the paper);
* ``variant="max"`` — ``G_ij = max_kl L_ik W_kl L_jl`` (the errata: what the published
  numbers used),

and the kernel is ``k(G', G'') = Σ_ij G'_ij G''_ij``: the dot product of the vectorized
``G``.  We never form ``G``: each graph becomes a sparse row whose columns are label pairs
(i, j) with ``G_ij > 0``.  Columns come from a vocabulary fitted on training graphs (exact) or
from feature hashing (fixed width).  :class:`AllPathsKernel` is this feature map on the kernel
base class (:class:`learners.kernels.base.FeatureMapKernel`): with ``normalize=True`` the rows
have unit norm, which makes their dot product the normalized kernel
``k(G',G'')/sqrt(k(G',G')k(G'',G''))``.

Nothing here is specific to any task: a graph is a :class:`LabelledGraph`; an instance may be
made of several (disconnected) graphs, whose entries are pooled before aggregation, which is
exactly the kernel of their disjoint union.

Complexity per graph with n vertices: O(n^3) for the dense inverse (graphs are small:
sentence graphs have ≲ 400 vertices) plus O(nnz(W) · c^2) for c labels per vertex; the
label-pair aggregation over a whole batch is one sort, O(N log N) in the number N of
(instance, label pair) entries.
"""

from __future__ import annotations

import hashlib
from itertools import islice
from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dtrtri
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import ThreadpoolController

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels.base import FeatureMapKernel, KernelNotFittedError

__all__ = ["LabelledGraph", "all_paths_matrix", "all_paths_matrices", "spectral_radius",
           "topological_order", "label_pair_entries", "aggregate_label_pairs",
           "graph_features", "AllPathsKernel"]

VARIANTS = ("max", "sum")
#: Graphs featurized per batch by :class:`AllPathsKernel` (bounds its memory).
CHUNK = 1000
#: Matrix entries (Σ n², 8 bytes each) of the adjacency matrices inverted together by
#: :func:`all_paths_matrices` within a batch (16 MB; bounds the memory of the batched
#: inverse, which holds A, I − A and the inverse of each).
INVERSE_BUDGET = 1 << 21


@dataclass
class LabelledGraph:
    """A weighted, labelled, directed graph.

    Attributes
    ----------
    n_vertices : int
    edges : array-like of shape (n_edges, 2), int
        ``(source, target)`` vertex indices; parallel edges add their weights.
    weights : array-like of shape (n_edges,), float, > 0
    labels : list of sequence of str
        ``labels[v]`` = the labels of vertex ``v`` (column ``v`` of ``L``).
    """

    n_vertices: int
    edges: np.ndarray
    weights: np.ndarray
    labels: list

    def adjacency(self):
        """Dense adjacency matrix ``A`` (n × n)."""
        A = np.zeros((self.n_vertices, self.n_vertices))
        e = np.asarray(self.edges, dtype=np.intp).reshape(-1, 2)
        np.add.at(A, (e[:, 0], e[:, 1]), np.asarray(self.weights, dtype=float))
        return A


def spectral_radius(A):
    """ρ(A) = max |eigenvalue| (dense, O(n^3))."""
    if A.shape[0] == 0:
        return 0.0
    return float(np.max(np.abs(np.linalg.eigvals(A))))


def topological_order(A):
    """A vertex order in which every edge of ``A`` goes forward, or None if ``A`` has a cycle.

    Kahn's algorithm by levels (all current sources at once): O(depth · n^2) with NumPy.
    """
    n = A.shape[0]
    if n == 0:
        return np.zeros(0, dtype=np.intp)
    E = A != 0
    if not np.tril(E).any():
        return np.arange(n)
    indeg = E.sum(axis=0)
    alive = np.ones(n, bool)
    out = []
    while alive.any():
        src = np.flatnonzero(alive & (indeg == 0))
        if len(src) == 0:
            return None
        out.append(src)
        alive[src] = False
        indeg = indeg - E[src].sum(axis=0)
    return np.concatenate(out)


def all_paths_matrix(A, *, on_divergence="raise", margin=0.99):
    """``W = (I − A)^-1 − I``: summed weights of all walks of length ≥ 1 (Neumann series).

    Parameters
    ----------
    A : ndarray of shape (n, n), non-negative
    on_divergence : {"raise", "scale"}
        The series converges iff ρ(A) < 1.  For non-negative ``A`` that holds iff ``I − A``
        is invertible with a non-negative inverse (M-matrix theory), which is what we test
        (no eigenvalues needed in the usual case).  If it fails, ``"raise"`` raises
        :class:`InvalidInputError`; ``"scale"`` replaces ``A`` by ``A · margin / ρ(A)``.

    Returns
    -------
    W : ndarray (n, n)
    scaled : bool
        Whether ``A`` had to be scaled.
    """
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    if A.ndim != 2 or A.shape[1] != n:
        raise InvalidInputError(f"adjacency matrix must be square, got shape {A.shape}")
    if np.any(A < 0) or not np.all(np.isfinite(A)):
        raise InvalidInputError("adjacency weights must be finite and non-negative")
    if n and not np.tril(A).any():
        # strictly upper triangular (e.g. a chain in its natural order): A is nilpotent
        # (ρ = 0) and (I − A)^-1 is a unit upper-triangular inverse (LAPACK dtrtri).
        # Other acyclic graphs could be permuted so (topological_order), but measured on
        # the PPI graphs the sort costs as much as the general inverse (bench_ppi).
        P = -A
        P[np.diag_indices(n)] = 1.0
        U, info = dtrtri(P, lower=0, unitdiag=1, overwrite_c=1)
        if info != 0:   # pragma: no cover - cannot happen for a unit triangular matrix
            raise InvalidInputError(f"triangular inverse failed (info={info})")
        return np.triu(U, 1), False
    M = np.eye(n) - A
    ok = True
    try:
        inv = np.linalg.inv(M)
        ok = bool(np.all(inv >= -1e-12 * max(1.0, np.abs(inv).max())))
    except np.linalg.LinAlgError:
        ok = False
    if ok:
        W = inv
        np.fill_diagonal(W, W.diagonal() - 1.0)
        W[W < 0] = 0.0          # round-off below zero; the exact W is non-negative
        return W, False
    rho = spectral_radius(A)
    if on_divergence != "scale":
        raise InvalidInputError(f"the all-paths series diverges: spectral radius {rho:.4g} ≥ 1;"
                                " lower the edge weights or pass on_divergence='scale'")
    W, _ = all_paths_matrix(A * (margin / rho), on_divergence="raise")
    return W, True


def all_paths_matrices(As, *, on_divergence="raise"):
    """:func:`all_paths_matrix` of many adjacency matrices: ``[(W, scaled), ...]``.

    Exactly the same matrices: the general (not strictly upper triangular) ones of equal
    size are inverted together by one batched ``numpy.linalg.inv`` call (the same LAPACK
    solve per matrix, without the Python overhead per matrix, which dominates for the
    small sentence graphs); each is then checked and finished as in
    :func:`all_paths_matrix`, which handles every other case (triangular, empty, singular,
    divergent) one matrix at a time.  O(Σ n³).
    """
    out = [None] * len(As)
    groups = {}
    for i, A in enumerate(As):
        n = A.shape[0]
        if A.ndim == 2 and A.shape[1] == n and n and np.tril(A).any() and \
                not np.any(A < 0) and np.all(np.isfinite(A)):
            groups.setdefault(n, []).append(i)
        else:
            out[i] = all_paths_matrix(A, on_divergence=on_divergence)
    for n, idx in groups.items():
        if len(idx) == 1:
            out[idx[0]] = all_paths_matrix(As[idx[0]], on_divergence=on_divergence)
            continue
        M = np.eye(n) - np.stack([As[i] for i in idx])
        try:
            inv = np.linalg.inv(M)
        except np.linalg.LinAlgError:
            inv = None
        for k, i in enumerate(idx):
            W = None if inv is None else inv[k]
            if W is None or not np.all(W >= -1e-12 * max(1.0, np.abs(W).max())):
                out[i] = all_paths_matrix(As[i], on_divergence=on_divergence)
                continue
            W = W.copy()
            np.fill_diagonal(W, W.diagonal() - 1.0)
            W[W < 0] = 0.0
            out[i] = (W, False)
    return out


# ----------------------------------------------------------------------------- label pairs
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


def _max_per_row_code(rows, codes, values):
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


def graph_features(graph, variant="max", *, min_weight=0.0, on_divergence="raise"):
    """The non-zero entries of ``G`` of one graph as a dict ``{(label_i, label_j): value}``.

    Reference implementation (used by the tests and for inspection); batches go through
    :class:`AllPathsKernel`.
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


# ----------------------------------------------------------------------------- kernel
def _stable_hash64(text):
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(),
                          "little", signed=True)


def _mix64(a, b):
    """Deterministic 64-bit mix of two int64 arrays (splitmix64 finalizer)."""
    with np.errstate(over="ignore"):
        x = (a.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ b.astype(np.uint64)
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return x


_CONTROLLER = []


def _one_blas_thread():
    """``threadpool_limits(1)`` from one :class:`threadpoolctl.ThreadpoolController`, made on
    first use: a new limiter scans the process' loaded libraries (reads ``/proc/self/maps``,
    5 ms), which cost more than the featurization of a small batch."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1)


class AllPathsKernel(FeatureMapKernel):
    """The all-paths graph kernel as an explicit sparse feature map (module docstring).

    ``k(G_r, G_s) = ⟨Φ(G_r), Φ(G_s)⟩`` (Paper V eq. for ``k``; with ``normalize=True`` the
    normalized kernel).  An instance is one :class:`LabelledGraph` or a list of them (their
    disjoint union).  :meth:`features` gives the rows, ``transform`` the kernel matrix
    against the training graphs.

    Parameters
    ----------
    variant : {"max", "sum"}
        ``G = max_kl L_ik W_kl L_jl`` (errata, published numbers) or ``G = L W Lᵀ`` (paper).
    normalize : bool
        Cosine normalization: each row scaled to unit Euclidean norm — the norm of the
        whole ``G``, label pairs outside the vocabulary included.
    min_weight : float
        Ignore ``W_kl ≤ min_weight`` (the published implementation used 1e-5; 0 is exact).
    n_features : int or None
        None: a vocabulary of label pairs is fitted on training graphs (``fit``), and pairs
        never seen in training are dropped from the rows of new graphs (they cannot change a
        linear model's predictions).  An int: feature hashing into that many columns (the
        normalization then uses the hashed rows).
    on_divergence : {"raise", "scale"}
        What to do when ρ(A) ≥ 1 (see :func:`all_paths_matrix`).

    Attributes
    ----------
    labels_ : list of str            label vocabulary (ids are positions)
    pair_codes_ : int64 array        sorted label-pair codes (``i * 2**32 + j``) = columns
    n_scaled_ : int                  graphs whose A had to be scaled in the last call
    """

    _parameter_constraints = {
        "variant": [StrOptions(set(VARIANTS))],
        "normalize": ["boolean"],
        "min_weight": [Interval(Real, 0, None, closed="left")],
        "n_features": [Interval(Integral, 1, None, closed="left"), None],
        "on_divergence": [StrOptions({"raise", "scale"})],
    }

    def __init__(self, variant="max", normalize=True, min_weight=0.0, n_features=None,
                 on_divergence="raise"):
        self.variant = variant
        self.normalize = normalize
        self.min_weight = min_weight
        self.n_features = n_features
        self.on_divergence = on_divergence

    def _label_ids(self, labels):
        index = self._index
        out = []
        for labs in labels:
            ids = []
            for x in labs:
                i = index.get(x)
                if i is None:
                    i = index[x] = len(self.labels_)
                    self.labels_.append(x)
                ids.append(i)
            out.append(ids)
        return out

    def _entries(self, instances):
        """(row, code_a, code_b, value) over all instances (before aggregation)."""
        rows, A, B, V = [], [], [], []
        with _one_blas_thread():   # many tiny matrices: threads only add overhead
            return self._entries_loop(instances, rows, A, B, V)

    def _entries_loop(self, instances, rows, A, B, V):
        graphs = [(r, g) for r, inst in enumerate(instances)
                  for g in (inst if isinstance(inst, (list, tuple)) else [inst])]
        start = 0
        while start < len(graphs):               # sub-batches of bounded memory
            stop, size = start, 0
            while stop < len(graphs) and (stop == start or size < INVERSE_BUDGET):
                size += graphs[stop][1].n_vertices ** 2
                stop += 1
            part = graphs[start:stop]
            Ws = all_paths_matrices([g.adjacency() for _, g in part],
                                    on_divergence=self.on_divergence)
            for (r, g), (W, scaled) in zip(part, Ws):
                self.n_scaled_ += scaled
                a, b, w = label_pair_entries(W, self._label_ids(g.labels),
                                             min_weight=self.min_weight)
                rows.append(np.full(len(a), r, dtype=np.int64)), A.append(a), B.append(b)
                V.append(w)
            start = stop
        if not rows:
            z = np.zeros(0, np.int64)
            return z, z, z, np.zeros(0)
        return np.concatenate(rows), np.concatenate(A), np.concatenate(B), np.concatenate(V)

    def _ensure_labels(self):
        if not hasattr(self, "labels_"):
            self.labels_ = []
        self._index = {x: i for i, x in enumerate(self.labels_)} \
            if not hasattr(self, "_index") or len(self._index) != len(self.labels_) else self._index

    def _feature_map(self, instances, fit):
        """Rows of ``G`` over the label-pair columns, and the exact ``k(G, G)``.

        ``instances`` may be any iterable (a generator of graphs is consumed once); they are
        processed :data:`CHUNK` at a time and each chunk is aggregated to its rows' ``G``
        entries before the next one, so memory holds the unaggregated terms of one chunk
        only (about 5000 per PPI pair graph, 2.7 times the aggregated ones).
        """
        if fit:
            self.labels_, self._index = [], {}
        else:
            self._ensure_labels()
        n_known = len(self.labels_)
        self.n_scaled_ = 0
        try:
            counts, codes, values = [], [], []
            iterator = iter(instances)
            while chunk := list(islice(iterator, CHUNK)):
                c, k, w = self._chunk_entries(chunk)
                counts.append(c), codes.append(k), values.append(w)
            counts = np.concatenate(counts) if counts else np.zeros(0, np.int64)
            if fit and self.n_features is None:
                return self._canonical(self._vocabulary_rows(counts, codes, values)), None
            rows = np.repeat(np.arange(counts.size), counts)
            codes = np.concatenate(codes) if codes else np.zeros(0, np.int64)
            w = np.concatenate(values) if values else np.zeros(0)
            return self._finish(rows, codes, w, counts.size)
        finally:  # labels first seen by transform are temporary: it never changes the model
            if not fit:
                for x in self.labels_[n_known:]:
                    del self._index[x]
                del self.labels_[n_known:]

    def _chunk_entries(self, chunk):
        """One chunk's aggregated ``G`` entries in row-major order: ``(counts, codes,
        values)`` with ``counts[i]`` entries for instance i, its label-pair codes
        (``a << 32 | b``) ascending within the row, each code once."""
        r, a, b, w = self._entries(chunk)
        if self.variant == "max":
            r, c, w = _max_per_row_code(r, (a << np.int64(32)) | b, w)
            order = np.argsort(r, kind="stable")         # (code, row) → (row, code) order
            return np.bincount(r, minlength=len(chunk)), c[order], w[order]
        uniq, inverse = np.unique((a << np.int64(32)) | b, return_inverse=True)
        G = aggregate_label_pairs(r, inverse.ravel(), w, self.variant, len(chunk),
                                  max(len(uniq), 1))
        G.sum_duplicates()
        G.sort_indices()
        return np.diff(G.indptr), uniq[G.indices], G.data

    def _vocabulary_rows(self, counts, codes, values):
        """Fit the label-pair vocabulary ``pair_codes_`` (sorted) on the chunks' codes and
        return their CSR rows; each chunk's arrays are released as soon as they are copied,
        so the peak is about the chunks plus the int32 column ids (not a COO copy, a sort
        of all codes and its inverse at once)."""
        self.pair_codes_ = np.unique(np.concatenate([np.unique(k) for k in codes])
                                     if codes else np.zeros(0, np.int64))
        nnz = int(counts.sum())
        indices = np.empty(nnz, dtype=np.int32 if len(self.pair_codes_) < 2 ** 31
                           else np.int64)
        data = np.empty(nnz)
        start = 0
        for k in range(len(codes)):
            stop = start + codes[k].size
            indices[start:stop] = np.searchsorted(self.pair_codes_, codes[k])
            data[start:stop] = values[k]
            codes[k] = values[k] = None
            start = stop
        indptr = np.concatenate([[0], np.cumsum(counts)])
        return sp.csr_matrix((data, indices, indptr),
                             shape=(counts.size, max(len(self.pair_codes_), 1)))

    def _finish(self, rows, codes, w, n_rows):
        # aggregate per exact label pair first (the max or sum runs over the terms
        # L_ik W_kl L_jl of ONE label pair, seen in training or not)
        uniq, inverse = np.unique(codes, return_inverse=True)
        X = aggregate_label_pairs(rows, inverse, w, self.variant, n_rows,
                                  max(len(uniq), 1)).tocoo()
        code = uniq[X.col]
        if self.n_features is None:
            # keep the columns of the vocabulary; k(G, G) is the one of the whole G, so
            # the normalized kernel does not depend on the vocabulary
            self_kernel = np.bincount(X.row, weights=X.data ** 2, minlength=n_rows)
            n_cols = len(self.pair_codes_)
            cols = np.searchsorted(self.pair_codes_, code)
            known = cols < n_cols
            known[known] = self.pair_codes_[cols[known]] == code[known]
            X = sp.csr_matrix((X.data[known], (X.row[known], cols[known])),
                              shape=(n_rows, n_cols))
            return self._canonical(X), self_kernel
        # hashing: colliding pairs add up in their column
        hashes = self._label_hashes()
        h = _mix64(hashes[code >> np.int64(32)], hashes[code & np.int64(0xFFFFFFFF)])
        n_cols = int(self.n_features)
        X = sp.csr_matrix((X.data, (X.row, (h % np.uint64(n_cols)).astype(np.int64))),
                          shape=(n_rows, n_cols))
        return self._canonical(X), None

    def _label_hashes(self):
        cache = self.__dict__.setdefault("_hash_by_label", {})
        out = np.empty(len(self.labels_), dtype=np.int64)
        for i, x in enumerate(self.labels_):
            h = cache.get(x)
            if h is None:
                h = cache[x] = _stable_hash64(x)
            out[i] = h
        return out

    @staticmethod
    def _canonical(X):
        X = X.tocsr()
        X.sum_duplicates()
        X.sort_indices()
        return X

    def feature_names(self):
        """``(label_i, label_j)`` of each column (vocabulary mode)."""
        if not hasattr(self, "pair_codes_"):
            raise KernelNotFittedError("no vocabulary: fit first (or hashing is used)")
        c = self.pair_codes_
        return [(self.labels_[i], self.labels_[j]) for i, j in zip(c >> 32, c & 0xFFFFFFFF)]
