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
dense matrix over its u distinct labels (compiled, :func:`~learners.kernels.all_paths.
label_pairs.max_label_pairs`, O(u^2) more) — the one route of ``max``, for ``fit`` and
``transform`` alike;
``"sum"`` expands the terms and aggregates a whole batch by one sort, O(N log N) in the
number N of (instance, label pair) terms.  Several kernels with equal parameters can share
one pass over the same graphs (:meth:`AllPathsKernel.features_shared`).

The package, one concept per module:

* :mod:`~learners.kernels.all_paths.graphs` — :class:`LabelledGraph` and the walk sums ``W``
  (Neumann series by inverse, or dynamic programming on a DAG);
* :mod:`~learners.kernels.all_paths.label_pairs` — ``G`` from ``W`` and the labels (compiled
  maxima; the sum's expansion);
* :mod:`~learners.kernels.all_paths.batches` — chunks of graphs, one ``W`` per distinct
  adjacency, in bounded memory;
* :mod:`~learners.kernels.all_paths.hashing` — label-pair feature hashing;
* :mod:`~learners.kernels.all_paths.kernel` — the estimator :class:`AllPathsKernel`.

Every public name stays importable from ``learners.kernels.all_paths``.
"""

from learners.kernels.all_paths.batches import (CHUNK, INVERSE_BUDGET, SubBatch,
                                                one_blas_thread, prepare_chunk)
from learners.kernels.all_paths.graphs import (LabelledGraph, all_paths_matrices,
                                               all_paths_matrix, dag_walk_sums,
                                               spectral_radius, topological_order)
from learners.kernels.all_paths.hashing import mix64, stable_hash64
from learners.kernels.all_paths.kernel import AllPathsKernel
from learners.kernels.all_paths.label_pairs import (VARIANTS, aggregate_label_pairs,
                                                    append_entries, dense_weight_rows,
                                                    dot_entries, label_pair_entries,
                                                    max_label_pairs, update_max)

__all__ = ["LabelledGraph", "all_paths_matrix", "all_paths_matrices", "spectral_radius",
           "topological_order", "label_pair_entries", "aggregate_label_pairs",
           "dag_walk_sums", "AllPathsKernel", "VARIANTS", "CHUNK", "INVERSE_BUDGET",
           "SubBatch", "prepare_chunk", "one_blas_thread", "update_max", "append_entries",
           "dot_entries", "dense_weight_rows", "max_label_pairs", "stable_hash64", "mix64"]
