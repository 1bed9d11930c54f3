"""kernelrank.learners — the shared learning engine.

Regularized least-squares (RLS) and RankRLS in primal and dual form, regularization paths,
exact fast cross-validation, kernels and ranking/classification measures.
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
