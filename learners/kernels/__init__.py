"""Kernels of the engine: vector kernels by name for every learner, and structured kernels
(graphs, symbol sequences) on one scikit-learn base class, each computed once here.

* :mod:`learners.kernels.vector` — :func:`resolve_kernel` and :func:`kernel_matrix` (linear,
  polynomial, Gaussian, precomputed, callable), the API of the learners; the same kernels as
  an object, :class:`VectorKernel`;
* :mod:`learners.kernels.base` — :class:`Kernel` (GraKeL manner: ``fit`` keeps the training
  objects, ``transform`` returns the kernel matrix against them, one ``normalize`` flag) and
  :class:`FeatureMapKernel` (explicit sparse feature maps, ``Φ Φᵀ`` by :func:`gram_matrix`);
* :mod:`learners.kernels.sparse_gram` — :func:`gram_matrix`, the dense Gram matrix of sparse
  feature rows, frequent columns by one dense product and the tail by a sparse one (a cost
  model chooses the split);
* :mod:`learners.kernels.all_paths` — the all-paths graph kernel (:class:`AllPathsKernel`
  over :class:`LabelledGraph`), used by ``ppi`` and ``parse_ranking``;
* :mod:`learners.kernels.sequences` — symbol sequences → ids (fixed or learned alphabet);
* :mod:`learners.kernels.locality` — the locality-convolution kernel
  (:class:`LocalityKernel`) of ``parse_ranking`` (link-type sequences) and ``homology``
  (residue sequences);
* :mod:`learners.kernels.kmers`, :mod:`learners.kernels.spectrum`,
  :mod:`learners.kernels.mismatch` — string kernels over an alphabet
  (:class:`SpectrumKernel`, :class:`MismatchKernel`);
* :mod:`learners.kernels.alignment` — the local-alignment kernel of protein sequences
  (:class:`LocalAlignmentKernel`, Saigo et al. 2004) and the Smith–Waterman score, on the
  dynamic programmes of :mod:`learners.kernels.alignment_dp`;
* :mod:`learners.kernels.gram_blocks` — Gram matrices of expensive pairwise kernels in
  blocks: parallel (threads, Dask), cached under a checksum, resumable;
* :mod:`learners.kernels.sums` — weighted sums of kernels (:class:`SumKernel`);
* :mod:`learners.kernels.vocabulary_union` — feature rows of several fitted kernels that
  differ only in their vocabularies (views of one input), computed once;
* :mod:`learners.kernels.sparse_product` — sparse × sparse products whose result is dense
  (new rows' inner products with a kernel model's basis rows).

A structured kernel and a learner on precomputed kernels make a pipeline on objects::

    make_pipeline(LocalityKernel(alphabet="ACDEFGHIKLMNPQRSTVWY"), RLS(kernel="precomputed"))
"""

from learners.kernels.alignment import LocalAlignmentKernel, smith_waterman_scores
from learners.kernels.all_paths import AllPathsKernel, LabelledGraph
from learners.kernels.base import FeatureMapKernel, Kernel, KernelNotFittedError, squared_row_norms
from learners.kernels.locality import LocalityKernel
from learners.kernels.mismatch import MismatchKernel
from learners.kernels.spectrum import SpectrumKernel
from learners.kernels.sparse_gram import gram_matrix
from learners.kernels.sums import SumKernel
from learners.kernels.vector import (KERNEL_NAMES, VectorKernel, gaussian_of, kernel_matrix,
                                     resolve_kernel)

__all__ = ["AllPathsKernel", "FeatureMapKernel", "KERNEL_NAMES", "Kernel",
           "KernelNotFittedError", "LabelledGraph", "LocalAlignmentKernel", "LocalityKernel",
           "MismatchKernel", "SpectrumKernel", "SumKernel", "VectorKernel", "gaussian_of",
           "gram_matrix", "kernel_matrix", "resolve_kernel", "smith_waterman_scores",
           "squared_row_norms"]
