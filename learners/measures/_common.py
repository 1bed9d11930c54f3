"""What every measure shares: argument checks (on :mod:`learners._validation`), query codes,
runs of equal keys in sorted data and the per-query average with its :class:`QueryAverage`."""

from typing import NamedTuple

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError
from learners._validation import check_groups, check_vector


class QueryAverage(NamedTuple):
    """A measure averaged over queries, with the per-query values.

    Attributes
    ----------
    value : float
        Mean over the queries where the measure is defined (or pooled over pairs when
        ``average="pairs"``).
    per_query : ndarray of float
        One value per query in the order of ``numpy.unique(qids)``; NaN where skipped.
    n_skipped : int
        Number of queries on which the measure is undefined and which were skipped.
    """

    value: float
    per_query: np.ndarray
    n_skipped: int


def checked_pair(y_name, y, s_name, s):
    """Labels and scores: finite 1-d float arrays of equal length."""
    y = check_vector(y, y_name)
    return y, check_vector(s, s_name, y.size)


def binary_labels(y_true):
    """Map binary labels in {0,1}, {-1,1} or bool to a boolean 'is positive' array."""
    y = np.asarray(y_true)
    y = check_vector(y.astype(float) if y.dtype == bool else y, "y_true")
    values = np.unique(y)
    if not (set(values.tolist()) <= {0.0, 1.0} or set(values.tolist()) <= {-1.0, 1.0}):
        raise InvalidInputError(
            f"y_true must be binary with labels in {{0, 1}}, {{-1, 1}} or bool; got the "
            f"values {values[:10].tolist()}")
    return y == 1.0


def binary_pair(y_true, scores):
    pos = binary_labels(y_true)
    return pos, check_vector(scores, "scores", pos.size)


def query_groups(qids, m):
    """Dense query codes 0..G-1 (in the order of numpy.unique) and the number of queries;
    ``qids=None`` is one query."""
    if qids is None:
        return np.zeros(m, dtype=np.int64), 1
    codes, labels = check_groups(qids, m, "qids")
    return codes.astype(np.int64), labels.size


def checked_choice(name, value, allowed):
    if value not in allowed:
        raise InvalidParameterError(f"{name}={value!r} is not one of {list(allowed)}")
    return value


def equal_runs(*sorted_keys):
    """Start indices and lengths of the runs of equal key tuples in lexicographic order."""
    m = sorted_keys[0].size
    change = np.zeros(m, dtype=bool)
    change[0] = True
    for key in sorted_keys:
        change[1:] |= key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    lengths = np.diff(np.append(starts, m))
    return starts, lengths, change


def query_mean(name, per_query, defined, return_details):
    n_skipped = int(np.count_nonzero(~defined))
    if not np.any(defined):
        raise UndefinedMeasureError(
            f"{name} is undefined on every query ({n_skipped} queries): no query has a "
            "pair of items with different labels (or no relevant item, as applicable)")
    per_query = np.where(defined, per_query, np.nan)
    value = float(np.mean(per_query[defined]))
    if return_details:
        return QueryAverage(value, per_query, n_skipped)
    return value
