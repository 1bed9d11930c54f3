"""Named scorers: one door through which model selection looks measures up.

``get_scorer(name)`` returns ``(scorer, greater_is_better)`` where ``scorer(y_true, y_pred,
qids=None)`` is a plain module-level function (picklable, so it can travel to Dask workers).
With ``qids`` the ranking measures work inside queries and average over them; pointwise
measures do not depend on the grouping; threshold measures over one pooled list refuse qids
rather than ignore them.

===================  ======  =================================================================
name                 better  measure
===================  ======  =================================================================
``"auc"``            higher  :func:`~learners.measures.auc`; with qids the mean per-query AUC
                             (the c-index of binary labels inside each query)
``"roc50"``          higher  :func:`~learners.measures.roc50` (area up to the 50th false
                             positive); no qids
``"cindex"``         higher  :func:`~learners.measures.cindex` (ties in predictions 1/2;
                             pairs with tied labels ignored; mean over queries with qids) --
                             what every ranker's ``score`` returns
``"disagreement"``   lower   :func:`~learners.measures.disagreement_error` (Paper I eq. 1: a
                             tie in the predictions is a full error)
``"kendall_tau_b"``  higher  :func:`~learners.measures.kendall_tau_b` (mean over queries)
``"mse"``            lower   mean squared error (pointwise; qids do not change it)
``"r2"``             higher  coefficient of determination, :func:`sklearn.metrics.r2_score`
                             (pointwise; qids do not change it) -- every regressor's ``score``
``"f1_best"``        higher  F1 at the F-maximizing threshold
                             (:func:`~learners.measures.best_f_threshold`); no qids
``"map"``            higher  :func:`~learners.measures.mean_average_precision` (labels >= 1
                             relevant, LETOR 3.0 conventions; qids None = one list)
===================  ======  =================================================================
"""

import numpy as np
from sklearn.metrics import r2_score

from kernelrank.errors import InvalidParameterError
from learners._validation import check_vector
from learners.measures._common import binary_labels, checked_pair
from learners.measures.pairwise import auc, cindex, disagreement_error, kendall_tau_b
from learners.measures.query import mean_average_precision
from learners.measures.thresholds import best_f_threshold, roc50

__all__ = ["SCORERS", "get_scorer"]


def _pooled_only(name, qids):
    if qids is not None:
        raise InvalidParameterError(
            f"the {name!r} scorer is defined on one pooled list, not per query; call it "
            "without qids")


def auc_scorer(y_true, y_pred, qids=None):
    if qids is None:
        return auc(y_true, y_pred)
    return cindex(binary_labels(y_true).astype(float), y_pred, qids)


def roc50_scorer(y_true, y_pred, qids=None):
    _pooled_only("roc50", qids)
    return roc50(y_true, y_pred)


def cindex_scorer(y_true, y_pred, qids=None):
    return cindex(y_true, y_pred, qids)


def disagreement_scorer(y_true, y_pred, qids=None):
    return disagreement_error(y_true, y_pred, qids)


def kendall_tau_b_scorer(y_true, y_pred, qids=None):
    return kendall_tau_b(y_true, y_pred, qids)


def mse_scorer(y_true, y_pred, qids=None):
    y, p = checked_pair("y_true", y_true, "y_pred", y_pred)
    return float(np.mean((y - p) ** 2))


def r2_scorer(y_true, y_pred, qids=None):
    y = check_vector(y_true, "y_true")
    return float(r2_score(y, check_vector(y_pred, "y_pred", y.size)))


def f1_best_scorer(y_true, y_pred, qids=None):
    _pooled_only("f1_best", qids)
    return best_f_threshold(y_true, y_pred).f1


def map_scorer(y_true, y_pred, qids=None):
    return mean_average_precision(y_true, y_pred, qids)


SCORERS = {
    "auc": (auc_scorer, True),
    "roc50": (roc50_scorer, True),
    "cindex": (cindex_scorer, True),
    "disagreement": (disagreement_scorer, False),
    "kendall_tau_b": (kendall_tau_b_scorer, True),
    "mse": (mse_scorer, False),
    "r2": (r2_scorer, True),
    "f1_best": (f1_best_scorer, True),
    "map": (map_scorer, True),
}


def get_scorer(name):
    """``(scorer, greater_is_better)`` of a named measure (table in the module docstring).

    Raises
    ------
    InvalidParameterError
        For an unknown name (the message lists the known ones).
    """
    try:
        return SCORERS[name]
    except (KeyError, TypeError):
        raise InvalidParameterError(
            f"unknown scorer {name!r}; choose one of {sorted(SCORERS)}") from None
