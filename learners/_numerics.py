"""Numerical guard of the learners: overflow and non-finite values become one typed error.

Finite input can still produce NaN or inf: ``X^T X`` or a kernel overflows when the features
are unscaled (|x| around 1e154 for a linear kernel over a few hundred rows, 1e51 for a cubic
polynomial kernel), an eigendecomposition fails to converge on such a matrix, or ``K + λI``
is singular for an indefinite kernel. Worse, an overflowed intermediate can *vanish*: a
primal RLS fit on ``X * 1e160`` forms ``X^T X = inf``, and the Cholesky solve then returns
``w = 0`` exactly, so every prediction is 0 with no warning. Every such case raises
:class:`kernelrank.errors.NumericalError`, naming the estimator, the step and the likely
cause, instead of returning zeros or NaN.

Where the checks are (all O(size of the result), never an extra decomposition):

* :func:`check_finite` at the places where an overflow can disappear again: the kernel
  matrix (:func:`learners.kernels.kernel_matrix`, before the non-linearity of the Gaussian
  and polynomial kernels) and ``X^T X`` (:func:`learners._solvers.gram`);
* :func:`numerical_guard`, a decorator on every public method of an estimator that computes
  (``fit``, ``predict``, ``transform``, the paths and every CV shortcut): inside it NumPy
  raises on overflow; an overflow, a ``LinAlgError`` escaping a decomposition, or NaN/inf in
  the result (the returned array, or the learned arrays after ``fit``) becomes a
  ``NumericalError``.

Magnitude policy: features are *not* rejected by a fixed threshold at validation, because
whether a product overflows depends on the kernel, its degree and the number of rows
(``RLS`` on 10 rows with |x| = 1e150 is finite and correct). They are rejected at the first
computation that overflows, with a message that states their magnitude and says to scale
them. Ill-conditioned but finite problems (tiny λ, near-collinear features) are not errors.
Not detected, because nothing is non-finite: unscaled features that stay below overflow make
λ negligible against the kernel (|x| = 1e150 and λ = 1 act like λ = 1e-300 on scaled data),
so a dual fit of a rank-deficient kernel loses its digits; scaling the features avoids both.
"""

import functools
from numbers import Real

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import NumericalError

__all__ = ["all_finite", "check_finite", "likely_cause", "magnitude", "numerical_guard"]

#: features larger than this are called "unscaled" in the messages
_LARGE = 1e30
_SCALE_HINT = "scale them, e.g. with sklearn.preprocessing.StandardScaler"


def all_finite(a):
    """True if every value of ``a`` (array, sparse matrix) is finite. One pass, O(size).

    A finite sum implies finite entries (NaN and inf propagate); only when the sum is not
    finite, which a sum of huge finite values can also be, are the entries tested one by one.
    """
    if sp.issparse(a):
        a = a.data
    a = np.asarray(a)
    if a.dtype.kind not in "fc" or a.size == 0:
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        if np.isfinite(np.sum(a)):
            return True
    return bool(np.isfinite(a).all())


def magnitude(X):
    """Largest absolute finite value of ``X`` (an array, sparse matrix or a list of them, as
    the views of co-regularization), or None when ``X`` holds no numbers."""
    if isinstance(X, (list, tuple)):
        sizes = [magnitude(x) for x in X]
        sizes = [s for s in sizes if s is not None]
        return max(sizes) if sizes else None
    if sp.issparse(X):
        X = X.data
    try:
        X = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError):
        return None
    X = np.abs(X[np.isfinite(X)]) if X.size else X
    return float(X.max()) if X.size else None


def likely_cause(owner=None, X=None):
    """One sentence on the likely cause of a numerical failure of ``owner`` on data ``X``.

    Large values in ``X`` (features, or a precomputed kernel) come first; otherwise λ and the
    kernel are named.
    """
    precomputed = getattr(owner, "kernel", None) == "precomputed"
    size = magnitude(X) if X is not None else None
    if size is not None and size > _LARGE:
        if precomputed:
            return (f"the precomputed kernel has entries up to {size:.1e}: rescale it (e.g. "
                    "divide by its largest diagonal entry) or check how it was computed")
        return f"features up to {size:.1e} in absolute value: {_SCALE_HINT}"
    causes = []
    if size is not None and size > 1e10:
        causes.append(f"the {'kernel entries' if precomputed else 'features'} reach "
                      f"{size:.1e}")
    alpha = getattr(owner, "alpha", None)
    if isinstance(alpha, Real) and not isinstance(alpha, bool):
        causes.append(f"alpha={alpha:g} may be too small or too large for the scale of the "
                      "kernel")
    kernel = getattr(owner, "kernel", None)
    if kernel in ("polynomial", "poly"):
        causes.append(f"the polynomial kernel raises inner products to the power "
                      f"{getattr(owner, 'degree', '?')}")
    elif kernel == "precomputed" or callable(kernel):
        causes.append("the kernel may not be positive semi-definite (then K + alpha I is "
                      "singular when -alpha is one of its eigenvalues)")
    text = "; ".join(causes) if causes else "values too large or too small for float64"
    return f"likely cause: {text}. Scale the features (e.g. StandardScaler) and try alpha " \
           "nearer the scale of the kernel"


def check_finite(values, step, *, X=None, owner=None):
    """Return ``values``; raise :class:`NumericalError` if any is NaN or inf.

    Parameters
    ----------
    values : ndarray or sparse matrix
    step : str
        What produced ``values`` ("X^T X", "the gaussian kernel matrix"), for the message.
    X : array-like, optional
        The data it was computed from; its magnitude goes into the message.
    owner : estimator, optional
        For λ and the kernel in the message.
    """
    if not all_finite(values):
        raise NumericalError(f"{step}: NaN or inf values (overflow); {likely_cause(owner, X)}")
    return values


def _arrays(out):
    """The float arrays of a method's result: an array, or a list / tuple of arrays."""
    if isinstance(out, (list, tuple)):
        for item in out:
            yield from _arrays(item)
    elif isinstance(out, np.ndarray) or sp.issparse(out):
        yield out


#: fitted attributes that are learned solutions (diagnostics such as ``cv_scores_`` may
#: legitimately hold NaN: a measure undefined for a candidate)
_SOLUTIONS = ("cholesky_", "eigenvalues_")


def _learned(est):
    """The learned solutions of an estimator after ``fit``: every public ``*coef*_``
    attribute (``coef_``, ``dual_coef_``, ``coef_map_``, ``coef_path_``...; arrays or lists
    of arrays) and the factors in :data:`_SOLUTIONS`."""
    for name, value in vars(est).items():
        if name.endswith("_") and not name.startswith("_") and (
                "coef" in name or name in _SOLUTIONS):
            for array in _arrays(value):
                yield name, array


def _named(est, step, exc, problem, data):
    """A NumericalError naming the estimator and step (``exc`` chained by the caller)."""
    err = NumericalError(f"{type(est).__name__}.{step}: {problem}; "
                         f"{likely_cause(est, data)}")
    err.estimator = type(est).__name__
    return err


def numerical_guard(step, *, data="X"):
    """Decorate a public computing method of an estimator with the numerical guard.

    Inside the method NumPy raises on overflow. An overflow (``FloatingPointError``), a
    ``LinAlgError`` from a decomposition, a :class:`NumericalError` from a chokepoint, or
    NaN/inf in the result (the returned arrays; for a method returning ``self``, i.e.
    ``fit``, the learned coefficients and factors) are raised as :class:`NumericalError`
    prefixed with ``Estimator.step``. The check is O(size of the result).

    Parameters
    ----------
    step : str
        Name of the step in messages ("fit", "leave-one-out").
    data : {"X", "fitted"}
        Where the magnitude in the message comes from: the first positional argument
        (``fit``, ``predict``, ``transform``) or the training inputs ``X_fit_`` (CV
        shortcuts, whose arguments are index sets).
    """
    def decorate(method):
        @functools.wraps(method)
        def guarded(self, *args, **kwargs):
            def inputs():
                if data == "X" and args:
                    return args[0]
                return getattr(self, "X_fit_", None)
            try:
                with np.errstate(over="raise"):
                    out = method(self, *args, **kwargs)
            except NumericalError as exc:
                if getattr(exc, "estimator", None) == type(self).__name__:
                    raise                      # already named by an inner call of the same
                err = NumericalError(f"{type(self).__name__}.{step}: {exc}")   # outer first
                err.estimator = type(self).__name__
                raise err from exc
            except FloatingPointError as exc:
                raise _named(self, step, exc, f"a computation overflowed ({exc})",
                             inputs()) from exc
            except np.linalg.LinAlgError as exc:
                raise _named(self, step, exc, f"a matrix decomposition failed ({exc})",
                             inputs()) from exc
            if out is self:
                for name, value in _learned(self):
                    if not all_finite(value):
                        raise _named(self, step, None,
                                     f"the learned {name} has NaN or infinite values",
                                     inputs())
            else:
                for value in _arrays(out):
                    if not all_finite(value):
                        raise _named(self, step, None,
                                     "the result has NaN or infinite values", inputs())
            return out
        guarded.__numerical_guard__ = step
        return guarded
    return decorate
