"""The all-paths graph kernel as an explicit sparse feature map (Paper V, "The all-paths graph
kernel", l.2750–2772, and its errata, l.3040–3080).

A graph is a weighted directed adjacency matrix ``A`` (``A[k, l]`` = weight of edge k → l)
and a set of labels per vertex (the label allocation matrix ``L``, ``|labels|`` × ``|V|``).  With the
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
sentence graphs have ≲ 400 vertices; one inverse per distinct adjacency of a batch) plus
O(n^2 · c^2) for c labels per vertex.  ``variant="max"`` takes each instance's maxima in a
dense matrix over its u distinct labels (compiled, :func:`_max_label_pairs`, O(u^2) more);
``"sum"`` expands the terms and aggregates a whole batch by one sort, O(N log N) in the
number N of (instance, label pair) terms.  Several kernels with equal parameters can share
one pass over the same graphs (:meth:`AllPathsKernel.features_shared`).
"""

from __future__ import annotations

import hashlib
from itertools import chain, islice
from dataclasses import dataclass
from numbers import Integral, Real

import numba
import numpy as np
import scipy.sparse as sp
from scipy.linalg.lapack import dtrtri
from sklearn.base import clone
from sklearn.utils._param_validation import Interval, StrOptions
from threadpoolctl import ThreadpoolController

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels.base import FeatureMapKernel, KernelNotFittedError
from learners.kernels.vocabulary_union import merged_columns

__all__ = ["LabelledGraph", "all_paths_matrix", "all_paths_matrices", "spectral_radius",
           "topological_order", "label_pair_entries", "aggregate_label_pairs",
           "graph_features", "dag_walk_sums", "AllPathsKernel"]

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
    """ρ(A) = max ``|eigenvalue|`` (dense, O(n^3))."""
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



@numba.njit(cache=True, nogil=True)
def _update_max(G, W, n, labels, lab_ptr, lab_loc, min_weight):  # pragma: no cover - compiled
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
def _append_max(G, label_ids, r, vocab_ptr, vocab_second, out,
                m):  # pragma: no cover - compiled
    """Move the non-zero entries of ``G`` (instance ``r``) to ``out = (rows, keys,
    values)`` from position ``m`` in row-major order, growing the arrays by doubling, and
    zero ``G`` again.  Returns ``(out, new m, ‖G‖²)``.

    ``vocab_ptr`` empty: every entry, keyed by its label-pair code
    ``label_ids[i] << 32 | label_ids[j]`` (ascending when ``label_ids`` is).  Otherwise only
    the label pairs of a vocabulary, keyed by their column: the pairs ``(a, ·)`` of first
    label ``a < len(vocab_ptr) - 1`` are the columns ``vocab_ptr[a]:vocab_ptr[a + 1]``, their
    second labels ``vocab_second[...]`` ascending.  ``‖G‖²`` sums the squares in row-major
    order (as a ``bincount`` of the entries would).  O(u² + t log d) for u labels and t
    non-zero entries."""
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
                b = label_ids[j]
                lo = _lower_bound(vocab_second, lo, hi, b)
                if lo < hi and vocab_second[lo] == b:
                    rows[m] = r
                    keys[m] = lo
                    vals[m] = g
                    m += 1
                    lo += 1
    return (rows, keys, vals), m, norm


@numba.njit(cache=True, nogil=True)
def _max_label_pairs(inst_ptr, g_n, w_ptr, w_flat, v_ptr, lab_ptr, lab_loc, u_ptr, u_ids,
                     min_weight):  # pragma: no cover - compiled
    """``G_ij = max_kl L_ik W_kl L_jl`` of every instance, pooled over its graphs, as
    ``(rows, codes, values)`` sorted by row, then code (``code = i << 32 | j``).

    Graph ``g`` of the instances ``inst_ptr[r]:inst_ptr[r + 1]`` has ``g_n[g]`` vertices,
    its ``W`` row-major at ``w_flat[w_ptr[g]:]`` and its vertex ``v`` the label entries
    ``lab_ptr[v_ptr[g] + v]:lab_ptr[v_ptr[g] + v + 1]``; entry ``p`` is label
    ``u_ids[u_ptr[r] + lab_loc[p]]`` of instance ``r``, whose distinct labels
    ``u_ids[u_ptr[r]:u_ptr[r + 1]]`` are sorted (so the codes come out sorted).  Every
    ``W_kl > min_weight`` updates a dense max matrix over the instance's labels for each
    label pair of ``(k, l)`` (:func:`_update_max`): the terms of :func:`label_pair_entries`
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
            _update_max(G, w_flat[w_ptr[g]:w_ptr[g] + n * n], n, v_ptr[g], lab_ptr, lab_loc,
                        min_weight)
        out, m, _ = _append_max(G, u_ids[u0:u0 + u], r, none, none, out, m)
    return out[0][:m].copy(), out[1][:m].copy(), out[2][:m].copy()


@numba.njit(cache=True, nogil=True)
def dag_walk_sums(order, out_ptr, out_idx, out_w, W):  # pragma: no cover - compiled
    """``W = A + A² + A³ + …`` of a directed acyclic graph, without an inverse.

    ``order``: the vertices in a topological order (every edge goes forward); vertex ``k``'s
    out-edges are ``out_idx[out_ptr[k]:out_ptr[k + 1]]`` with weights ``out_w[...]``
    (parallel edges add up).  ``W`` (n × n) is overwritten.  Walks from ``k`` start with an
    edge ``k → y``, so processing the vertices in reverse topological order,

        W[k, :] = Σ_{k→y} a_ky (e_y + W[y, :]),

    every ``W[y, :]`` on the right is complete when it is read.  Exact in exact arithmetic
    (the same matrix as ``(I − A)⁻¹ − I``, :func:`all_paths_matrix`; ``A`` is nilpotent, so
    the series is finite and never diverges); ``O(|E| · n)`` instead of O(n³).
    """
    n = len(order)
    for t in range(n - 1, -1, -1):
        k = order[t]
        for v in range(n):
            W[k, v] = 0.0
        for p in range(out_ptr[k], out_ptr[k + 1]):
            y = out_idx[p]
            a = out_w[p]
            for v in range(n):
                W[k, v] += a * W[y, v]
            W[k, y] += a


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


@dataclass
class _SubBatch:
    """Kernel-independent arrays of consecutive instances (see :func:`_prepare_chunk`)."""

    start: int              # index of the first instance in the chunk
    graphs: list            # the graphs of the instances, in order
    inst_ptr: np.ndarray    # instance r holds graphs inst_ptr[r]:inst_ptr[r + 1]
    g_n: np.ndarray         # vertices per graph
    v_ptr: np.ndarray       # first vertex of each graph (graphs' vertices consecutive)
    w_ptr: np.ndarray       # offset of each graph's W (row-major) in w_flat
    w_flat: np.ndarray      # the distinct W matrices, raveled, concatenated
    n_scaled: int           # graphs whose A had to be scaled


def _prepare_chunk(instances, on_divergence):
    """The work of a chunk that does not depend on a kernel's vocabulary: the ``W`` of each
    graph (:func:`all_paths_matrices`, in sub-batches of at most :data:`INVERSE_BUDGET`
    entries cut at instance boundaries), computed once per distinct adjacency (equal ``n``,
    edges and weights — e.g. the linear-order chains of all pairs of a sentence, equally
    long sentences), so each W is the very array :func:`all_paths_matrices` gives for it.
    None when a graph's labels do not match its vertices (the general path handles it).
    """
    insts = [inst if isinstance(inst, (list, tuple)) else [inst] for inst in instances]
    if any(len(g.labels) != g.n_vertices for inst in insts for g in inst):
        return None
    out, start = [], 0
    while start < len(insts):
        stop, size = start, 0
        while stop < len(insts) and (stop == start or size < INVERSE_BUDGET):
            size += sum(g.n_vertices ** 2 for g in insts[stop])
            stop += 1
        part = insts[start:stop]
        graphs = [g for inst in part for g in inst]
        slots, distinct = {}, []
        slot = np.empty(len(graphs), dtype=np.int64)
        for k, g in enumerate(graphs):
            e = np.asarray(g.edges)
            key = (g.n_vertices, e.dtype.str, e.shape, e.tobytes(),
                   np.asarray(g.weights, dtype=float).tobytes())
            j = slots.get(key)
            if j is None:
                j = slots[key] = len(distinct)
                distinct.append(g)
            slot[k] = j
        with _one_blas_thread():   # many tiny matrices: threads only add overhead
            Ws = all_paths_matrices([g.adjacency() for g in distinct],
                                    on_divergence=on_divergence)
        scaled = np.array([sc for _, sc in Ws], dtype=np.int64)
        w_size = np.array([W.size for W, _ in Ws], dtype=np.int64)
        g_n = np.array([g.n_vertices for g in graphs], dtype=np.int64)
        out.append(_SubBatch(
            start=start, graphs=graphs,
            inst_ptr=np.concatenate([[0], np.cumsum([len(i) for i in part])]).astype(
                np.int64),
            g_n=g_n, v_ptr=np.cumsum(g_n) - g_n,
            w_ptr=(np.cumsum(w_size) - w_size)[slot] if len(slot) else slot,
            w_flat=np.concatenate([W.ravel() for W, _ in Ws]) if Ws else np.zeros(0),
            n_scaled=int(scaled[slot].sum()) if len(slot) else 0))
        start = stop
    return out


def _feature_maps(kernels, instances, fit):
    """``[kernel._feature_map(instances, fit) for kernel in kernels]`` reading
    ``instances`` once (:meth:`AllPathsKernel._feature_map`, :meth:`AllPathsKernel.
    features_shared`): per chunk of :data:`CHUNK` instances the kernel-independent work
    once (:func:`_prepare_chunk`, when some kernel takes the fast ``max`` path), then each
    kernel's aggregation into its own vocabulary."""
    n_known = [k._begin(fit) for k in kernels]
    try:
        parts = [([], [], []) for _ in kernels]
        iterator = iter(instances)
        fast = any(k.variant == "max" and k._fast_max for k in kernels)
        while chunk := list(islice(iterator, CHUNK)):
            prepared = _prepare_chunk(chunk, kernels[0].on_divergence) if fast else None
            for j, k in enumerate(kernels):
                c, code, w = k._chunk_rows(chunk, prepared)
                counts, codes, values = parts[j]
                counts.append(c), codes.append(code), values.append(w)
        return [k._complete(p, fit) for k, p in zip(kernels, parts)]
    finally:
        for k, nk in zip(kernels, n_known):
            k._end(fit, nk)


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

    #: ``variant="max"`` through :meth:`_max_rows` (False: the general expand-and-sort path,
    #: the reference the tests compare it with)
    _fast_max = True

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

    def _label_id_array(self, graphs):
        """Label ids of every vertex of ``graphs`` as ``(counts per vertex, flat ids)``;
        labels not yet known get new ids in order of first appearance, exactly as
        :meth:`_label_ids` graph after graph."""
        labels = [labs for g in graphs for labs in g.labels]
        counts = np.fromiter(map(len, labels), dtype=np.int64, count=len(labels))
        return counts, self._ids_of_labels(list(chain.from_iterable(labels)))

    def _ids_of_labels(self, labels):
        """Ids (int64 array) of the label strings ``labels``; labels not yet known get new
        ids in order of first appearance (temporary ones outside ``fit``: :meth:`_end`)."""
        get = self._index.get
        ids = np.array([get(x, -1) for x in labels], dtype=np.int64)
        for p in np.flatnonzero(ids < 0).tolist():
            x = labels[p]
            i = self._index.get(x)
            if i is None:
                i = self._index[x] = len(self.labels_)
                self.labels_.append(x)
            ids[p] = i
        return ids

    def _max_rows(self, prepared):
        """``(rows, codes, values)`` of ``G`` (``variant="max"``) of one chunk prepared by
        :func:`_prepare_chunk`: each ``(row, code)`` once, sorted by row then code.

        The label-pair maxima come from :func:`_max_label_pairs` instead of expanding every
        term (:func:`label_pair_entries`) and sorting; the maximum is exact in any order,
        so the values are bit for bit those of the general path (tested).
        """
        out_r, out_c, out_v = [], [], []
        for sub in prepared:
            self.n_scaled_ += sub.n_scaled
            counts, ids = self._label_id_array(sub.graphs)
            lab_ptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
            # each instance's distinct labels, sorted, and every entry's place among them
            n_inst = len(sub.inst_ptr) - 1
            v_bounds = np.concatenate([[0], np.cumsum(sub.g_n)])[sub.inst_ptr]
            inst = np.repeat(np.arange(n_inst, dtype=np.int64), np.diff(lab_ptr[v_bounds]))
            n_labels = np.int64(max(len(self.labels_), 1))
            keys, inverse = np.unique(inst * n_labels + ids, return_inverse=True)
            u_ptr = np.searchsorted(keys // n_labels, np.arange(n_inst + 1)).astype(np.int64)
            lab_loc = inverse.ravel().astype(np.int64) - u_ptr[inst]
            r, c, v = _max_label_pairs(sub.inst_ptr, sub.g_n, sub.w_ptr, sub.w_flat,
                                       sub.v_ptr, lab_ptr, lab_loc, u_ptr, keys % n_labels,
                                       float(self.min_weight))
            out_r.append(r + sub.start), out_c.append(c), out_v.append(v)
        if not out_r:
            z = np.zeros(0, np.int64)
            return z, z, np.zeros(0)
        return np.concatenate(out_r), np.concatenate(out_c), np.concatenate(out_v)

    def _chunk_rows(self, chunk, prepared):
        """``(counts, codes, values)`` of one chunk, in the row-major order of
        :meth:`_chunk_entries` (from :meth:`_max_rows` when the chunk was prepared)."""
        if prepared is not None and self.variant == "max" and self._fast_max:
            r, c, w = self._max_rows(prepared)
            return np.bincount(r, minlength=len(chunk)), c, w
        return self._chunk_entries(chunk)

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
        return _feature_maps([self], instances, fit)[0]

    def _begin(self, fit):
        if fit:
            self.labels_, self._index = [], {}
        else:
            self._ensure_labels()
        self.n_scaled_ = 0
        return len(self.labels_)

    def _end(self, fit, n_known):
        """Labels first seen by transform are temporary: it never changes the model."""
        if not fit:
            for x in self.labels_[n_known:]:
                del self._index[x]
            del self.labels_[n_known:]

    def _complete(self, parts, fit):
        """The rows (and ``k(G, G)``) from the chunks' ``(counts, codes, values)`` lists."""
        counts, codes, values = parts
        counts = np.concatenate(counts) if counts else np.zeros(0, np.int64)
        if fit and self.n_features is None:
            return self._canonical(self._vocabulary_rows(counts, codes, values)), None
        rows = np.repeat(np.arange(counts.size), counts)
        codes = np.concatenate(codes) if codes else np.zeros(0, np.int64)
        w = np.concatenate(values) if values else np.zeros(0)
        return self._finish(rows, codes, w, counts.size)

    @staticmethod
    def features_shared(kernels, instances):
        """:meth:`features` of several fitted kernels on the same ``instances``, the
        kernel-independent work done once: the graphs are read once and each distinct
        adjacency is inverted once for all kernels (their vocabularies may differ).

        The kernels must have equal ``variant``, ``normalize``, ``min_weight``,
        ``n_features`` and ``on_divergence``; the rows are bit for bit those of
        ``[k.features(instances) for k in kernels]`` (tested).
        """
        kernels = list(kernels)
        params = {tuple(sorted(k.get_params().items())) for k in kernels}
        if len(params) > 1:
            raise InvalidParameterError("features_shared: the kernels' parameters differ")
        for k in kernels:
            k._check_fitted()
            k._check_feature_map()
        return [k._rows_of_map(Phi, self_kernel)
                for k, (Phi, self_kernel) in zip(kernels, _feature_maps(kernels, instances,
                                                                         False))]

    def features_from_entries(self, produce):
        """:meth:`features` of instances whose ``G`` entries (``variant="max"``) are
        computed outside this class: the rows of :meth:`map_from_entries`."""
        return self._rows_of_map(*self.map_from_entries(produce))

    def map_from_entries(self, produce):
        """The unnormalized map ``(Phi, k(G, G))`` of instances whose ``G`` entries
        (``variant="max"``) are computed outside this class — e.g. compiled straight from sentence arrays, without
        :class:`LabelledGraph` objects (:mod:`ppi.pair_rows`).

        Parameters
        ----------
        produce : callable
            ``produce(label_ids, vocabulary)`` returns an iterable of chunks ``(counts,
            keys, values, norms)``, ``counts[r]`` entries for the chunk's instance ``r`` in
            row-major order, keys ascending within a row:

            * ``vocabulary`` None (feature hashing): an entry per non-zero ``G_ij``, keyed
              by its label-pair code ``i << 32 | j``; ``norms`` None;
            * else ``vocabulary = (ptr, second)``, the fitted label pairs by first label:
              the pairs ``(i, ·)`` (``i < len(ptr) - 1``) are the columns
              ``ptr[i]:ptr[i + 1]``, their second labels ``second[ptr[i]:ptr[i + 1]]``
              ascending.  An entry per non-zero ``G_ij`` of a fitted pair, keyed by its
              column; ``norms[r] = ‖G‖²`` of the whole ``G`` of instance ``r``.

            ``label_ids(strings)`` gives the ids ``i``, ``j`` of label strings in this
            kernel's label table; labels it does not know get temporary ids valid for this
            call only.

        Returns
        -------
        ``(Phi, self_kernel)`` as :meth:`_feature_map` gives them for the same ``G``
        (``self_kernel`` None with hashing: the squared row norms); the kernel is not
        changed.
        """
        self._check_fitted()
        self._check_feature_map()
        n_known = self._begin(False)
        try:
            vocabulary = None
            if self.n_features is None:
                codes = self.pair_codes_
                vocabulary = (np.searchsorted(codes >> np.int64(32),
                                              np.arange(n_known + 1)).astype(np.int64),
                              codes & np.int64(0xFFFFFFFF))
            parts = ([], [], [], [])
            for chunk in produce(self._ids_of_labels, vocabulary):
                for part, array in zip(parts, chunk):
                    part.append(array)
            if vocabulary is None:
                Phi, self_kernel = self._complete(parts[:3], False)
            else:
                counts, cols, values, norms = (np.concatenate(p) if p else np.zeros(0)
                                               for p in parts)
                indptr = np.zeros(len(counts) + 1, np.int64)
                np.cumsum(counts, out=indptr[1:])
                Phi = sp.csr_matrix((values, cols.astype(np.int64), indptr),
                                    shape=(len(counts), len(self.pair_codes_)))
                self_kernel = norms
        finally:
            self._end(False, n_known)
        return Phi, self_kernel

    # ------------------------------------------------------------------ vocabulary union
    def _vocabulary_state(self):
        return (self.labels_, getattr(self, "pair_codes_", None))

    def _n_columns(self):
        return int(self.n_features) if self.n_features is not None else len(self.pair_codes_)

    @classmethod
    def _vocabulary_union(cls, kernels):
        """(:mod:`learners.kernels.vocabulary_union`) A kernel whose labels are the first
        kernel's followed by the others' new ones and whose label pairs are all of theirs,
        and per kernel its column of each union label pair (−1: not in its vocabulary).
        With feature hashing every kernel has the same columns: the first one serves."""
        first = kernels[0]
        if first.n_features is not None:
            return first, [None] * len(kernels)
        index = {x: i for i, x in enumerate(first.labels_)}
        codes = []
        for k in kernels:
            ids = np.array([index.setdefault(x, len(index)) for x in k.labels_], np.int64)
            c = k.pair_codes_
            codes.append((ids[c >> np.int64(32)] << np.int64(32))
                         | ids[c & np.int64(0xFFFFFFFF)] if len(ids) else c)
        union = clone(first)
        union.pair_codes_, maps = merged_columns(codes)
        union.labels_, union._index = list(index), index
        return union, maps

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
        """Rows in the fitted columns from entries that are one per ``(row, code)``, sorted
        by row then code (as every chunk gives them: :meth:`_chunk_entries`,
        :meth:`_max_rows`), so no aggregation is left to do.  Vocabulary: the known label
        pairs' columns, and ``k(G, G)`` of the whole ``G`` (the normalized kernel does not
        depend on the vocabulary); hashing: colliding pairs add up in their column."""
        if self.n_features is None:
            self_kernel = np.bincount(rows, weights=w ** 2, minlength=n_rows)
            n_cols = len(self.pair_codes_)
            cols = np.searchsorted(self.pair_codes_, codes)
            known = cols < n_cols
            known[known] = self.pair_codes_[cols[known]] == codes[known]
            X = sp.csr_matrix((w[known], (rows[known], cols[known])), shape=(n_rows, n_cols))
            return self._canonical(X), self_kernel
        hashes = self._label_hashes()
        h = _mix64(hashes[codes >> np.int64(32)], hashes[codes & np.int64(0xFFFFFFFF)])
        n_cols = int(self.n_features)
        X = sp.csr_matrix((w, (rows, (h % np.uint64(n_cols)).astype(np.int64))),
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
