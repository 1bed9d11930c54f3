"""Walk sums of weighted directed graphs, the graph maths of the all-paths kernel (Paper V,
"The all-paths graph kernel", l.2750–2772): a :class:`LabelledGraph` and its matrix

    W = (I − A)^-1 − I = A + A^2 + A^3 + ...        (converges iff ρ(A) < 1)

by a dense inverse (:func:`all_paths_matrix`, batched by :func:`all_paths_matrices`) or, for a
directed acyclic graph, by dynamic programming over a topological order
(:func:`dag_walk_sums`).  Complexity per graph with n vertices and e edges: O(n³) for the
inverse, O(e · n) for the dynamic programme.
"""

from __future__ import annotations

from dataclasses import dataclass

import numba
import numpy as np
from scipy.linalg.lapack import dtrtri

from kernelrank.errors import InvalidInputError

__all__ = ["LabelledGraph", "spectral_radius", "topological_order", "all_paths_matrix",
           "all_paths_matrices", "dag_walk_sums"]


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

