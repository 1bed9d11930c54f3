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
"""

from learners.errors import (
    ChecksumMismatchError,
    CorpusFormatError,
    DataNotFoundError,
    InvalidInputError,
    InvalidParameterError,
    KernelrankError,
    UndefinedMeasureError,
)
from learners.kernels import kernel_matrix, resolve_kernel
from learners.measures import auc, cindex, disagreement_error, kendall_tau_b
from learners.model_selection import GlobalRankRLSCV, QueryRankRLSCV, RLSCV
from learners.rankrls import GlobalRankRLS, PairwiseRankRLS, QueryRankRLS
from learners.rls import RLS

__all__ = [
    "ChecksumMismatchError",
    "CorpusFormatError",
    "DataNotFoundError",
    "GlobalRankRLS",
    "GlobalRankRLSCV",
    "InvalidInputError",
    "InvalidParameterError",
    "KernelrankError",
    "PairwiseRankRLS",
    "QueryRankRLS",
    "QueryRankRLSCV",
    "RLSCV",
    "RLS",
    "UndefinedMeasureError",
    "auc",
    "cindex",
    "disagreement_error",
    "kendall_tau_b",
    "kernel_matrix",
    "resolve_kernel",
]
