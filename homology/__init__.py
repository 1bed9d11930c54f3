"""kernelrank.homology — remote homology detection with string kernels and protein features.

Representations (:mod:`homology.features`): residue sequences over the 20 standard amino
acids (ambiguous residues match nothing) and :class:`ProteinFeatures`, standardized
Biopython ``ProteinAnalysis`` features. The kernels are those of :mod:`learners.kernels`
with the amino-acid alphabet, built by :func:`homology.benchmark.make_kernel` (all
normalized, ``k(x, y) / sqrt(k(x, x) k(y, y))``; explicit sparse feature maps where the
feature space allows, so linear learners and the fast CV of ``learners`` apply):

* ``spectrum`` — :class:`learners.kernels.SpectrumKernel`, k-mer spectrum (thesis eq. 1.13);
* ``mismatch`` — :class:`learners.kernels.MismatchKernel`, (k, m)-mismatch, Leslie et al.
  (2004) neighbourhood definition (computed exactly through a wildcard decomposition; the
  thesis' simplified eq. 1.14 is ``definition="thesis"``);
* ``locality`` — :class:`learners.kernels.LocalityKernel`, locality kernels for proteins
  (thesis §2.2.2): windows around matching residues with position-insensitive,
  position-sensitive or strict matching;
* ``features`` — :class:`ProteinFeatures`;
* ``<string>+features`` — :class:`learners.kernels.SumKernel`, weighted sums of the above.

Evaluation on the SCOP 1.53 benchmark (:mod:`homology.benchmark`; learners: the
class-balanced L2-SVM of :mod:`learners.l2svm` by default, RLS, bipartite RankRLS), reports
(:mod:`homology.report`), user models (:mod:`homology.model`), benchmark runs with reports
(:mod:`homology.runs`), training from / scoring FASTA files (:mod:`homology.training`), and
the command line ``python -m homology {scop, benchmark, train, predict}``.
"""

from kernelrank.lazy import lazy_exports

# imported on first use (PEP 562): `python -m homology --help` loads no NumPy / Biopython
_LAZY = {"ALPHABET": "homology.features", "ProteinFeatures": "homology.features",
         "residue_sequences": "homology.features"}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
