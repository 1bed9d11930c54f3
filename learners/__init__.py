"""kernelrank.learners — the shared learning engine.

Regularized least-squares (RLS) and RankRLS in primal and dual form, regularization paths,
exact fast cross-validation, kernels and ranking/classification measures.

Core learners (fit, predict; on a fitted model every CV shortcut takes ``alphas=`` and then
returns a leading λ axis computed from one cached decomposition):

* :class:`RLS` — ``leave_one_out``, ``holdout``, ``holdout_sets``, ``leave_pair_out``,
  ``regularization_path``, ``predict_path``;
* :class:`GlobalRankRLS` (all pairs), :class:`QueryRankRLS` (``fit(X, y, qids)``, plus
  ``leave_query_out``), :class:`PairwiseRankRLS` (``fit(X, pairs, magnitudes, weights)``);
* :class:`RLSCV`, :class:`GlobalRankRLSCV`, :class:`QueryRankRLSCV` — λ and kernel
  parameters chosen by any fast CV scheme and any measure.

Learners at scale and further families: reduced-set / Nyström (:class:`ReducedSetRLS`,
:class:`ReducedSetGlobalRankRLS`, :class:`ReducedSetQueryRankRLS`, :class:`NystroemMap`),
conjugate gradient (:class:`CGRLS`, :class:`CGRankRLS`), linear :class:`RankSVM`, the kernel
squared-hinge :class:`L2SVM` (RLS on its active set), greedy feature selection
(:class:`GreedyRLS`, :class:`GreedyRankRLS`), :class:`KPCRank`, Kronecker conditional
ranking (:class:`KronRLS`, :class:`KronRankRLS`) and co-regularization (:class:`CoRLS`,
:class:`CoRankRLS`).
"""

from kernelrank.errors import (  # re-exported: learners.KernelrankError etc.
    ChecksumMismatchError,
    CorpusFormatError,
    DataNotFoundError,
    InvalidInputError,
    InvalidParameterError,
    KernelrankError,
    UndefinedMeasureError,
)
from kernelrank.lazy import lazy_exports

# name -> module; every learner, kernel and measure is imported on first use (PEP 562), so
# ``import learners`` (and ``python -m learners --help``) loads no NumPy / scikit-learn.
_LAZY = {
    "kernel_matrix": "learners.kernels", "resolve_kernel": "learners.kernels",
    "auc": "learners.measures", "cindex": "learners.measures",
    "disagreement_error": "learners.measures", "kendall_tau_b": "learners.measures",
    "GlobalRankRLSCV": "learners.model_selection", "QueryRankRLSCV": "learners.model_selection",
    "RLSCV": "learners.model_selection",
    "GlobalRankRLS": "learners.rankrls", "PairwiseRankRLS": "learners.rankrls",
    "QueryRankRLS": "learners.rankrls",
    "RLS": "learners.rls",
    "CGRLS": "learners.cg", "CGRankRLS": "learners.cg",
    "CoRLS": "learners.coreg", "CoRankRLS": "learners.coreg",
    "GreedyRLS": "learners.greedy", "GreedyRankRLS": "learners.greedy",
    "KPCRank": "learners.kpcrank",
    "L2SVM": "learners.l2svm",
    "KronRLS": "learners.kronecker", "KronRankRLS": "learners.kronecker",
    "NystroemMap": "learners.nystroem",
    "RankSVM": "learners.ranksvm",
    "ReducedSetRLS": "learners.reduced_set",
    "ReducedSetGlobalRankRLS": "learners.reduced_set",
    "ReducedSetRankRLS": "learners.reduced_set",
    "ReducedSetQueryRankRLS": "learners.reduced_set",
}

__all__ = ["ChecksumMismatchError", "CorpusFormatError", "DataNotFoundError",
           "InvalidInputError", "InvalidParameterError", "KernelrankError",
           "UndefinedMeasureError", *sorted(_LAZY)]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
