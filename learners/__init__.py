"""kernelrank.learners — the shared learning engine.

Regularized least-squares (RLS) and RankRLS in primal and dual form, regularization paths,
exact fast cross-validation, kernels and ranking/classification measures.

Core learners (fit, predict; on a fitted model every CV shortcut takes ``alphas=`` and then
returns a leading λ axis computed from one cached decomposition):

* :class:`RLS` — ``leave_one_out``, ``holdout``, ``holdout_sets``, ``leave_pair_out``,
  ``regularization_path``, ``predict_path``;
* :class:`GlobalRankRLS` (all pairs), :class:`QueryRankRLS` (``fit(X, y, qids)``, plus
  ``leave_query_out``), :class:`PairwiseRankRLS` (``fit(X, y, qids)`` or
  ``fit(X, pairs=, magnitudes=, weights=)``);
* :class:`RLSCV`, :class:`GlobalRankRLSCV`, :class:`QueryRankRLSCV` — λ and kernel
  parameters chosen by any fast CV scheme and any measure.

One contract (:mod:`learners.base`): hyper-parameters only in ``__init__``, declared in
``_parameter_constraints`` and validated at ``fit``; ``score`` is R² for regressors, accuracy
for :class:`L2SVM`, and the concordance index ``score(X, y, qids=None)`` for every ranker
(:class:`learners.base.RankerMixin`); a grid of predictions from one fit is
``predict_path(X, alphas, ...)``, the grid on the leading axis; ``kernel="precomputed"``
sets the ``pairwise`` tag.

Learners at scale and further families (imported on first use, so ``import learners`` stays
light): reduced-set / Nyström (:class:`ReducedSetRLS`, :class:`ReducedSetGlobalRankRLS`,
:class:`ReducedSetQueryRankRLS`, :class:`NystroemMap`), conjugate gradient
(:class:`CGRLS`, :class:`CGRankRLS`), linear :class:`RankSVM`, the kernel squared-hinge
:class:`L2SVM` (RLS on its active set), greedy feature selection
(:class:`GreedyRLS`, :class:`GreedyRankRLS`), :class:`KPCRank`, Kronecker conditional
ranking (:class:`KronRLS`, :class:`KronRankRLS`) and co-regularization (:class:`CoRLS`,
:class:`CoRankRLS`).
"""

import importlib

from kernelrank.errors import (  # re-exported: learners.KernelrankError etc.
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


# name -> module of the learners imported lazily (PEP 562), e.g. RankSVM pulls in numba.
_LAZY = {
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
__all__ += sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'learners' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(_LAZY))
