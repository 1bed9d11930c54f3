"""Performance measures for classification and ranking, cross-validation aggregation, and the
named scorers of model selection.

Modules by concern (every public name is re-exported here, so ``from learners.measures import
auc, best_f_threshold, averaged`` works):

* :mod:`~learners.measures.pairwise` -- :func:`disagreement_error` (Paper I, eq. 1),
  :func:`cindex`, :func:`kendall_tau_b`, :func:`auc` (thesis eq. 3.5): pair counts by
  sorting, O(m log m);
* :mod:`~learners.measures.thresholds` -- :func:`precision_recall_f1`,
  :func:`best_f_threshold`, :func:`roc_curve`, :func:`roc50`;
* :mod:`~learners.measures.query` -- :func:`average_precision`,
  :func:`mean_average_precision`, :func:`precision_at_k`, :func:`ndcg_at_k` and
  :func:`letor_evaluation` (the LETOR tools' conventions, 3.0 / 4.0 / MSLR);
* :mod:`~learners.measures.aggregation` -- :func:`pooled` and :func:`averaged` (thesis
  Sects. 5.3-5.4);
* :mod:`~learners.measures.scorers` -- :func:`get_scorer` ``(name) -> (scorer(y_true,
  y_pred, qids=None), greater_is_better)`` for "auc", "roc50", "cindex", "disagreement",
  "kendall_tau_b", "mse", "r2", "f1_best", "map".

Conventions shared by all functions: labels and scores are 1-d finite arrays of equal
length (otherwise :class:`~kernelrank.errors.InvalidInputError`, checked by
:mod:`learners._validation`); a measure that is undefined for the given labels (one class for
AUC, no pair with different labels, ...) raises :class:`~kernelrank.errors.UndefinedMeasureError`;
query identifiers ``qids`` are passed explicitly and never inferred from row order. Per-query
results are returned in the order of ``numpy.unique(qids)``.
"""

from learners.measures._common import QueryAverage
from learners.measures.aggregation import Averaged, averaged, pooled
from learners.measures.pairwise import auc, cindex, disagreement_error, kendall_tau_b
from learners.measures.query import (
    LETOR_CONVENTIONS,
    average_precision,
    letor_evaluation,
    mean_average_precision,
    ndcg_at_k,
    precision_at_k,
)
from learners.measures.scorers import SCORERS, get_scorer
from learners.measures.thresholds import (
    PRF,
    BestF,
    best_f_threshold,
    precision_recall_f1,
    roc50,
    roc_curve,
)

__all__ = [
    "Averaged",
    "LETOR_CONVENTIONS",
    "BestF",
    "PRF",
    "QueryAverage",
    "SCORERS",
    "auc",
    "average_precision",
    "averaged",
    "best_f_threshold",
    "cindex",
    "disagreement_error",
    "get_scorer",
    "kendall_tau_b",
    "letor_evaluation",
    "mean_average_precision",
    "ndcg_at_k",
    "pooled",
    "precision_at_k",
    "precision_recall_f1",
    "roc50",
    "roc_curve",
]
