"""learners — the shared learning engine (imports only the ground floor :mod:`kernelrank`).

Regularized least-squares (RLS) and RankRLS in primal and dual form, regularization paths,
exact fast cross-validation, model selection, kernels and ranking/classification measures.

Core learners (fit, predict; on a fitted model every CV shortcut takes ``alphas=`` and then
returns a leading λ axis computed from one cached decomposition):

* :class:`RLS` — ``leave_one_out``, ``holdout``, ``holdout_sets``, ``leave_pair_out``,
  ``regularization_path``, ``predict_path``;
* :class:`GlobalRankRLS` (all pairs), :class:`QueryRankRLS` (``fit(X, y, qids)``, plus
  ``leave_query_out``), :class:`PairwiseRankRLS` (``fit(X, y, qids)`` or
  ``fit(X, pairs=, magnitudes=, weights=)``);
* :class:`RLSCV`, :class:`GlobalRankRLSCV`, :class:`QueryRankRLSCV` — λ and kernel
  parameters chosen by any fast CV scheme and any measure.

Model selection has one home and one door: the ``*CV`` estimators above are the
scikit-learn-style door; beneath them, :mod:`learners.splits` holds the splitters (every way
of holding whole groups out: documents, sentences, queries), :mod:`learners.selection` (the
engine, ``select``) turns a path-capable learner (:class:`learners.base.PathLearner`) and a
splitter into scored predictions over the whole λ path with one tie rule, an optional
decision threshold and nested CV; :mod:`learners.registry` names the learners for the
command lines.

One contract (:mod:`learners.base`): hyper-parameters only in ``__init__``, declared in
``_parameter_constraints`` and validated at ``fit``; ``score`` is R² for regressors, accuracy
for :class:`L2SVM`, and the concordance index ``score(X, y, qids=None)`` for every ranker
(:class:`learners.base.RankerMixin`); a grid of predictions from one fit is
``predict_path(X, alphas, ...)``, the grid on the leading axis; ``kernel="precomputed"``
sets the ``pairwise`` tag.

Learners at scale and further families: reduced-set / Nyström (:class:`ReducedSetRLS`,
:class:`ReducedSetGlobalRankRLS`, :class:`ReducedSetQueryRankRLS`, :class:`NystroemMap`,
:class:`NystroemQueryRankRLS`),
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
    NoPreferenceWarning,
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
    "NystroemQueryRankRLS": "learners.nystroem_rankrls",
}

__all__ = ["ChecksumMismatchError", "CorpusFormatError", "DataNotFoundError",
           "InvalidInputError", "InvalidParameterError", "KernelrankError",
           "NoPreferenceWarning", "UndefinedMeasureError", *sorted(_LAZY)]

__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
