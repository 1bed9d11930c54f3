"""Data and argument checks shared by the learners, their fast CV shortcuts and the measures.

Every check raises a typed error from :mod:`kernelrank.errors` (``InvalidInputError`` for data:
arrays, vectors, groups, index sets, pairs; ``InvalidParameterError`` for a bad method or
function argument such as a λ grid or a cut-off k) whose message names the offending argument
and says what to do. Nothing is silently dropped or repaired. Constructor hyper-parameters are
not checked here: each estimator declares them in ``_parameter_constraints``, validated at
``fit`` by :func:`learners.base.validate_hyperparameters`.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from kernelrank.errors import (
    InvalidInputError,
    InvalidParameterError,
    KernelrankError,
    NoPreferenceWarning,
)

try:  # scikit-learn >= 1.6
    from sklearn.utils.validation import validate_data as _sk_validate_data
except ImportError:  # pragma: no cover - older scikit-learn
    _sk_validate_data = None


_NO_Y = "no_validation"


class InvalidInputTypeError(InvalidInputError, TypeError):
    """Input of a non-numeric type (strings, dicts, objects that are not numbers).

    Also a ``TypeError``, as scikit-learn's contract expects for such input
    (``check_dtype_object``)."""


#: dtype kinds the learners refuse, with what to do instead (bool, int, float are accepted;
#: an object array is accepted when its items are numbers, as in scikit-learn, and refused
#: when it holds strings: :func:`_first_string`)
_REFUSED_KINDS = {
    "c": "complex values (Complex data not supported); the learners work on real numbers: use "
         "the modulus, or the real and imaginary parts as separate columns "
         "(np.hstack([{name}.real, {name}.imag]))",
    "U": "strings; encode them as numbers first (e.g. sklearn.preprocessing.OrdinalEncoder)",
    "S": "byte strings; encode them as numbers first",
    "M": "dates; convert them to numbers first (e.g. days since a fixed date)",
    "m": "time differences; convert them to numbers first",
    "V": "a structured or void dtype; pass a plain numeric 2-D array",
}


def _dtypes(a):
    """The dtype(s) of array-like ``a`` (one per column of a data frame), or () if unknown."""
    if sp.issparse(a) or isinstance(a, np.ndarray):
        return (a.dtype,)
    dtypes = getattr(a, "dtypes", None)              # pandas / polars data frames
    if dtypes is not None and not isinstance(dtypes, np.dtype):
        try:
            return tuple(np.dtype(d) for d in dtypes)
        except TypeError:                            # extension dtypes: leave to check_array
            return ()
    try:
        return (np.asarray(a).dtype,)
    except (TypeError, ValueError):                  # ragged: check_array will say so
        return ()


def _object_items(a):
    """The items of an object-dtype array-like ``a`` (a sparse matrix: its stored values), or
    None when ``a`` holds no object dtype."""
    if not any(d.kind == "O" for d in _dtypes(a)):
        return None
    if sp.issparse(a):
        return np.asarray(a.data, dtype=object).ravel()
    try:
        return np.asarray(a, dtype=object).ravel()
    except (TypeError, ValueError):                  # ragged: check_array will say so
        return None


def _first_string(items):
    """``(index, item)`` of the first string (or bytes) among ``items``, or None — the one
    kind of non-number that a conversion to float takes silently (``float("1.5")``); any
    other (a dict, None, a date) fails the conversion with a ``TypeError``. Cost: one
    ``isinstance`` per item (an object array is converted item by item anyway)."""
    for k, item in enumerate(items):
        if isinstance(item, (str, bytes)):
            return k, item
    return None


def check_numeric_dtype(a, owner, name="X"):
    """Refuse complex, string, date and structured input, and object arrays holding anything
    but numbers, with a message naming ``owner`` (an estimator name, or None) and ``name``.

    NumPy would silently drop the imaginary part of complex input (``ComplexWarning``) and
    parse strings of digits as numbers — in a ``str`` array or in an object array alike
    (``np.array(["1.5", 2], dtype=object)`` would become 1.5 and 2); all are errors here.

    Raises
    ------
    InvalidInputTypeError
    """
    prefix = f"{owner}: " if owner else ""
    for dtype in _dtypes(a):
        advice = _REFUSED_KINDS.get(dtype.kind)
        if advice is not None:
            raise InvalidInputTypeError(
                f"{prefix}{name} has {advice.format(name=name)} (got dtype {dtype})")
    items = _object_items(a)
    bad = None if items is None else _first_string(items)
    if bad is not None:
        k, item = bad
        raise InvalidInputTypeError(
            f"{prefix}{name} is an object array holding strings (item {k} in C order: "
            f"{item!r}); an object array is data only when its items are numbers, as a "
            f"string array is refused — convert the values to numbers first (e.g. "
            f"{name}.astype(float) for numeric strings, sklearn.preprocessing.OrdinalEncoder "
            "for categories)")


def warn_without_preference(owner, y, codes=None):
    """Warn (:class:`~kernelrank.errors.NoPreferenceWarning`) when the scores ``y`` hold no
    preference pair: no two rows of one query (``codes``: integer query codes; None: one
    query of all rows) with different scores, in any output column of ``y`` (m,) or (m, t).

    A ranker fitted on such data learns nothing (its pairwise loss is zero whatever it
    predicts) and gives every input the same score; scikit-learn's estimator contract fits
    it anyway, so this is a warning, not an error. Returns whether there is a pair.

    Cost: O(m log m) (one sort by query).
    """
    Y = np.asarray(y, dtype=np.float64)
    Y = Y.reshape(Y.shape[0], -1)
    m = Y.shape[0]
    codes = np.zeros(m, dtype=np.intp) if codes is None else np.asarray(codes)
    if m:
        order = np.argsort(codes, kind="stable")
        sorted_codes = codes[order]
        starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
        spread = (np.maximum.reduceat(Y[order], starts, axis=0)
                  - np.minimum.reduceat(Y[order], starts, axis=0))
        if (spread > 0).any():
            return True
        sizes = np.diff(np.r_[starts, m])
    why = ("one sample" if m == 1 else "no sample" if m == 0
           else "every query holds a single row" if (sizes == 1).all()
           else "the scores are all equal" if starts.size == 1
           else "the scores are equal inside every query")
    warnings.warn(f"{owner}: no preference pair to learn from ({why}): nothing can be "
                  "learnt, the model gives every input the same score; give rows of "
                  "different scores in one query", NoPreferenceWarning,
                  stacklevel=_outside_learners())
    return False


def _outside_learners():
    """The ``stacklevel`` of the first caller outside this package (for a warning raised by
    the caller of this function: the user's ``fit``, not our wrappers)."""
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(2), 2
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(here):
        frame, level = frame.f_back, level + 1
    return level


def with_owner(owner, message):
    """Prefix ``message`` with the estimator name unless it already names it; drop the
    array dump scikit-learn appends to some messages."""
    if message.startswith("Complex data not supported"):
        message = "Complex data not supported"
    return message if owner in message else f"{owner}: {message}"


def validate_data(estimator, X, y=_NO_Y, *, reset=True, precomputed=False, y_numeric=True):
    """Check ``X`` (and ``y``) like scikit-learn does, re-raising as :class:`InvalidInputError`.

    ``X`` may be dense or scipy.sparse (kept sparse, CSR); ``y`` 1-D or 2-D (multiple outputs).
    NaN/inf, complex, string or date values, empty arrays (no rows or no features) and
    mismatched lengths are errors whose message starts with the estimator's name; an object
    array is accepted when its items are numbers (scikit-learn's contract). Magnitude is not
    checked here: values whose products overflow are reported where they overflow
    (:mod:`learners._numerics`).

    Raises
    ------
    InvalidInputError
        Unusable values or shapes.
    InvalidInputTypeError
        (Also a ``TypeError``.) Non-numeric input: complex, strings, dates, objects.
    """
    owner = type(estimator).__name__
    kwargs = dict(accept_sparse=("csr", "csc", "coo"), dtype=np.float64)
    if y is None:
        raise InvalidInputError(
            f"{owner} requires y to be passed, but the target y is None")
    check_numeric_dtype(X, owner, "X")
    has_y = not (isinstance(y, str) and y == _NO_Y)
    if has_y and y_numeric:
        check_numeric_dtype(y, owner, "y")
    try:
        if not has_y:
            if _sk_validate_data is not None:
                X = _sk_validate_data(estimator, X, reset=reset, **kwargs)
            else:  # pragma: no cover
                X = estimator._validate_data(X, reset=reset, **kwargs)
            out = X
        else:
            ykw = dict(multi_output=True, y_numeric=y_numeric)
            if _sk_validate_data is not None:
                X, y = _sk_validate_data(estimator, X, y, reset=reset, **kwargs, **ykw)
            else:  # pragma: no cover
                X, y = estimator._validate_data(X, y, reset=reset, **kwargs, **ykw)
            y = np.asarray(y, dtype=np.float64)
            out = (X, y)
    except KernelrankError:
        raise
    except ValueError as exc:
        raise InvalidInputError(with_owner(owner, str(exc))) from exc
    except TypeError as exc:                 # e.g. a dict inside an object array
        raise InvalidInputTypeError(with_owner(owner, f"X must be numeric: {exc}")) from exc
    X = out[0] if isinstance(out, tuple) else out
    if sp.issparse(X) and X.format == "coo":
        X = X.tocsr()
        out = (X, out[1]) if isinstance(out, tuple) else X
    if precomputed and reset and X.shape[0] != X.shape[1]:
        raise InvalidInputError(
            f"{owner}: kernel='precomputed' needs a square training kernel matrix, got shape "
            f"{X.shape}")
    return out


def as_2d_targets(y):
    """Return ``(Y, was_1d)`` with ``Y`` of shape (m, t)."""
    y = np.asarray(y, dtype=np.float64)
    if y.ndim == 1:
        return y[:, None], True
    if y.ndim != 2:
        raise InvalidInputError(f"y must be 1-D or 2-D, got {y.ndim} dimensions")
    return y, False


def check_alpha(alpha, name="alpha"):
    """A single regularization parameter: a positive finite real."""
    if isinstance(alpha, bool) or not isinstance(alpha, Real) or not np.isfinite(alpha) \
            or not alpha > 0:
        raise InvalidParameterError(
            f"{name} must be a positive finite number (the regularization parameter lambda), "
            f"got {alpha!r}")
    return float(alpha)


def check_alphas(alphas, default):
    """``alphas=None`` → ``([default], True)``; else a 1-D float array of positive values."""
    if alphas is None:
        return np.array([check_alpha(default)]), True
    if isinstance(alphas, Real):
        raise InvalidParameterError(
            f"alphas must be a sequence of positive numbers, got the scalar {alphas!r}; "
            "wrap it in a list")
    arr = np.asarray(alphas, dtype=np.float64).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or not np.all(arr > 0):
        raise InvalidParameterError(
            f"alphas must be a non-empty sequence of positive finite numbers, got {alphas!r}")
    return arr, False


def check_index_set(indices, m, name="indices", *, allow_all=False):
    """One hold-out set: unique integer indices in [0, m), non-empty, leaving training data
    (``allow_all``: an evaluation fold may cover every row)."""
    arr = np.asarray(indices)
    if arr.dtype == bool:
        if arr.shape != (m,):
            raise InvalidInputError(
                f"boolean {name} must have length {m} (the training set size), got {arr.shape}")
        arr = np.flatnonzero(arr)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be a 1-D array of row indices, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty; a hold-out set needs at least one index")
    if not np.issubdtype(arr.dtype, np.integer):
        if np.issubdtype(arr.dtype, np.floating) and np.all(np.isfinite(arr)) \
                and np.all(arr == np.round(arr)):
            arr = arr.astype(np.intp)
        else:
            raise InvalidInputError(f"{name} must contain integer row indices, got {arr.dtype}")
    arr = arr.astype(np.intp, copy=False)
    if arr.min() < 0 or arr.max() >= m:
        bad = arr[(arr < 0) | (arr >= m)][0]
        raise InvalidInputError(
            f"{name} contains index {bad} outside [0, {m}) (the model has {m} training rows)")
    if np.unique(arr).size != arr.size:
        raise InvalidInputError(f"{name} contains repeated indices")
    if arr.size >= m and not allow_all:
        raise InvalidInputError(
            f"{name} holds out all {m} training rows; nothing would be left to train on")
    return arr


def check_index_sets(sets, m, name="sets"):
    if isinstance(sets, np.ndarray) and sets.ndim == 1 and sets.dtype != object:
        raise InvalidInputError(
            f"{name} must be a list of index arrays (one per hold-out set); for a single set "
            "use holdout(indices)")
    out = [check_index_set(s, m, name=f"{name}[{i}]") for i, s in enumerate(sets)]
    if not out:
        raise InvalidInputError(f"{name} is empty; give at least one hold-out set")
    return out


def check_pairs(pairs, m, name="pairs"):
    """An (n, 2) integer array of distinct row pairs inside [0, m) (a preference graph)."""
    arr = np.asarray(pairs)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise InvalidInputError(f"{name} must be an integer array of shape (n, 2), got {arr.shape}")
    if arr.shape[0] == 0:
        raise InvalidInputError(f"{name} is empty")
    if not np.issubdtype(arr.dtype, np.integer):
        raise InvalidInputError(f"{name} must contain integer row indices, got {arr.dtype}")
    arr = arr.astype(np.intp, copy=False)
    if arr.min() < 0 or arr.max() >= m:
        raise InvalidInputError(f"{name} contains indices outside [0, {m})")
    if np.any(arr[:, 0] == arr[:, 1]):
        k = int(np.flatnonzero(arr[:, 0] == arr[:, 1])[0])
        raise InvalidInputError(f"{name}[{k}] is a self-pair: row {arr[k, 0]} with itself")
    return arr


def check_leave_pair_out(pairs, m):
    """Pairs to leave out of a fitted model of m rows (:func:`check_pairs`, and m >= 3)."""
    if m < 3:
        raise InvalidInputError("leave-pair-out needs at least 3 training rows")
    return check_pairs(pairs, m)


def check_groups(groups, m, name="qids"):
    """Group labels (queries, documents, sentences) for m rows → integer codes 0..q-1.

    Returns ``(codes, labels)`` where ``labels[codes[i]]`` is the group of row i.
    """
    if groups is None:
        raise InvalidInputError(f"{name} is required (one group label per row); "
                                "groups are never inferred from row order")
    arr = np.asarray(groups)
    if arr.ndim != 1:
        raise InvalidInputError(f"{name} must be 1-D, got shape {arr.shape}")
    if arr.shape[0] != m:
        raise InvalidInputError(f"{name} has {arr.shape[0]} entries for {m} rows (one per row)")
    if arr.dtype.kind == "f" and not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{name} contains NaN or inf")
    labels, codes = np.unique(arr, return_inverse=True)
    return codes.astype(np.intp), labels


def check_finite_array(a, name):
    check_numeric_dtype(a, None, name)
    a = check_array(a, ensure_2d=False, dtype=np.float64, ensure_all_finite=False) \
        if not isinstance(a, np.ndarray) else np.asarray(a, dtype=np.float64)
    if not np.all(np.isfinite(a)):
        raise InvalidInputError(f"{name} contains NaN or inf")
    return a


def check_matrix(X, name, *, empty_ok=False, owner=None):
    """A finite 2-D float array with at least one row (``empty_ok``: or none) and one column,
    dense or scipy.sparse (kept sparse, CSR), for inputs that do not go through
    :func:`validate_data` (node sets, views). Complex, string, date values and objects that
    are not numbers are refused (:func:`check_numeric_dtype`); ``owner`` (an estimator
    name) prefixes the messages."""
    where = f"{owner}: {name}" if owner else name
    check_numeric_dtype(X, owner, name)
    try:
        if sp.issparse(X):
            X = sp.csr_matrix(X, dtype=np.float64)
            values = X.data
        else:
            X = np.asarray(X, dtype=np.float64)
            values = X
    except (TypeError, ValueError) as exc:
        raise InvalidInputTypeError(f"{where} must be a numeric array: {exc}") from exc
    if X.ndim != 2:
        raise InvalidInputError(f"{where} must be 2-D (rows x features), got shape {X.shape}")
    if X.shape[0] == 0 and not empty_ok:
        raise InvalidInputError(f"{where} has no rows")
    if X.shape[1] == 0 and X.shape[0] > 0:
        raise InvalidInputError(f"{where} has no features (shape {X.shape}); give at least "
                                "one column")
    if not np.all(np.isfinite(values)):
        raise InvalidInputError(f"{where} contains NaN or infinite values")
    return X


def check_vector(values, name, length=None, *, numeric=True):
    """A non-empty 1-D array (one column (m, 1) is flattened) of ``length`` entries if given.

    ``numeric``: converted to float64 and required finite (labels, scores, weights);
    otherwise kept as given (identifiers such as qids).
    """
    if numeric:
        check_numeric_dtype(values, None, name)
    try:
        arr = np.asarray(values, dtype=np.float64 if numeric else None)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"{name} must be numeric: {exc}") from exc
    if arr.ndim == 2 and arr.shape[1] == 1:
        arr = arr[:, 0]
    if arr.ndim != 1 or (length is not None and arr.shape[0] != length):
        what = "a vector" if length is None else f"a vector of length {length}"
        raise InvalidInputError(f"{name} must be {what}, got shape {arr.shape}")
    if arr.size == 0:
        raise InvalidInputError(f"{name} is empty")
    if numeric and not np.all(np.isfinite(arr)):
        bad = int(np.flatnonzero(~np.isfinite(arr))[0])
        raise InvalidInputError(
            f"{name} contains NaN or infinite values (first at index {bad}); remove or "
            "impute them first")
    return arr


def check_positive_int(value, name):
    if isinstance(value, bool) or not isinstance(value, Integral) or value < 1:
        raise InvalidParameterError(f"{name} must be a positive integer, got {value!r}")
    return int(value)
