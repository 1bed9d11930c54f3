"""Batches of graphs for the all-paths kernel: the kernel-independent work of a chunk of
instances — the walk sums ``W`` of each distinct adjacency (:func:`learners.kernels.
all_paths.graphs.all_paths_matrices`), flat, with the pointers that locate each graph's
``W`` and vertices — in sub-batches of bounded memory (:data:`CHUNK`, :data:`INVERSE_BUDGET`),
under a one-thread BLAS limit (:func:`one_blas_thread`).  O(Σ n³) per chunk for the inverses.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from threadpoolctl import ThreadpoolController

from kernelrank.errors import InvalidInputError
from learners.kernels.all_paths.graphs import all_paths_matrices

__all__ = ["CHUNK", "INVERSE_BUDGET", "SubBatch", "prepare_chunk", "one_blas_thread"]

#: Graphs featurized per batch by :class:`AllPathsKernel` (bounds its memory).
CHUNK = 1000
#: Matrix entries (Σ n², 8 bytes each) of the adjacency matrices inverted together by
#: :func:`all_paths_matrices` within a batch (16 MB; bounds the memory of the batched
#: inverse, which holds A, I − A and the inverse of each).
INVERSE_BUDGET = 1 << 21


_CONTROLLER = []


def one_blas_thread():
    """``threadpool_limits(1)`` from one :class:`threadpoolctl.ThreadpoolController`, made on
    first use: a new limiter scans the process' loaded libraries (reads ``/proc/self/maps``),
    which costs more than the featurization of a small batch."""
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1)


@dataclass
class SubBatch:
    """Kernel-independent arrays of consecutive instances (see :func:`prepare_chunk`)."""

    start: int              # index of the first instance in the chunk
    graphs: list            # the graphs of the instances, in order
    inst_ptr: np.ndarray    # instance r holds graphs inst_ptr[r]:inst_ptr[r + 1]
    g_n: np.ndarray         # vertices per graph
    v_ptr: np.ndarray       # first vertex of each graph (graphs' vertices consecutive)
    w_ptr: np.ndarray       # offset of each graph's W (row-major) in w_flat
    w_flat: np.ndarray      # the distinct W matrices, raveled, concatenated
    n_scaled: int           # graphs whose A had to be scaled


def prepare_chunk(instances, on_divergence):
    """The work of a chunk that does not depend on a kernel's vocabulary: the ``W`` of each
    graph (:func:`all_paths_matrices`, in sub-batches of at most :data:`INVERSE_BUDGET`
    entries cut at instance boundaries), computed once per distinct adjacency (equal ``n``,
    edges and weights — e.g. the linear-order chains of all pairs of a sentence, equally
    long sentences), so each W is the very array :func:`all_paths_matrices` gives for it.
    Raises :class:`kernelrank.errors.InvalidInputError` when a graph's labels do not
    match its vertices (one label tuple per vertex).
    """
    insts = [inst if isinstance(inst, (list, tuple)) else [inst] for inst in instances]
    for inst in insts:
        for g in inst:
            if len(g.labels) != g.n_vertices:
                raise InvalidInputError(f"a graph of {g.n_vertices} vertices has "
                                        f"{len(g.labels)} label tuples; give one per vertex")
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
        with one_blas_thread():   # many tiny matrices: threads only add overhead
            Ws = all_paths_matrices([g.adjacency() for g in distinct],
                                    on_divergence=on_divergence)
        scaled = np.array([sc for _, sc in Ws], dtype=np.int64)
        w_size = np.array([W.size for W, _ in Ws], dtype=np.int64)
        g_n = np.array([g.n_vertices for g in graphs], dtype=np.int64)
        out.append(SubBatch(
            start=start, graphs=graphs,
            inst_ptr=np.concatenate([[0], np.cumsum([len(i) for i in part])]).astype(
                np.int64),
            g_n=g_n, v_ptr=np.cumsum(g_n) - g_n,
            w_ptr=(np.cumsum(w_size) - w_size)[slot] if len(slot) else slot,
            w_flat=np.concatenate([W.ravel() for W, _ in Ws]) if Ws else np.zeros(0),
            n_scaled=int(scaled[slot].sum()) if len(slot) else 0))
        start = stop
    return out

