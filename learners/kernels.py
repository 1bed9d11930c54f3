"""Kernel functions usable by every learner: linear, polynomial, Gaussian, precomputed, callable.

Definitions (as in scikit-learn, so that hyper-parameters transfer):

* linear      ``k(x, z) = <x, z>``
* polynomial  ``k(x, z) = (gamma <x, z> + coef0) ** degree``
* gaussian    ``k(x, z) = exp(-gamma ||x - z||^2)`` (alias ``"rbf"``)
* precomputed ``X`` *is* the kernel matrix (rows: the examples being predicted, columns:
  the training examples)
* callable    ``kernel(X, Z, **kernel_params)`` returning the ``len(X) x len(Z)`` matrix

``gamma=None`` means ``1 / n_features``. Inputs may be dense arrays or ``scipy.sparse``
matrices; sparse inputs are never densified (only the m x m' kernel matrix is dense).

Unlike the reference library (RLScore), an unknown kernel name or a parameter that the
chosen kernel does not use is an error, never a silent fall-back to the linear kernel.
Cost: O(m m' n) for m x m' kernel rows over n features (one BLAS-3 product).
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances

from kernelrank.errors import InvalidInputError, InvalidParameterError

KERNEL_NAMES = ("linear", "polynomial", "gaussian", "precomputed")
_ALIASES = {"rbf": "gaussian", "poly": "polynomial"}
_USES = {
    "linear": set(),
    "polynomial": {"gamma", "degree", "coef0"},
    "gaussian": {"gamma"},
    "precomputed": set(),
}
_DEFAULTS = {"gamma": None, "degree": 3, "coef0": 1.0}


def resolve_kernel(kernel, *, gamma=None, degree=3, coef0=1.0, kernel_params=None):
    """Validate a kernel specification and return it in canonical form.

    Parameters
    ----------
    kernel : {"linear", "polynomial", "gaussian", "rbf", "precomputed"} or callable
    gamma, degree, coef0 : as in scikit-learn; only the kernels that use them may set
        them to non-default values.
    kernel_params : dict, optional
        Extra keyword arguments, allowed only for a callable kernel.

    Returns
    -------
    spec : tuple ``(name_or_callable, params_dict)``

    Raises
    ------
    InvalidParameterError
        Unknown kernel name, a parameter the kernel does not use, or a bad value.
    """
    given = {"gamma": gamma, "degree": degree, "coef0": coef0}
    if callable(kernel):
        params = dict(kernel_params or {})
        return kernel, params
    if not isinstance(kernel, str):
        raise InvalidParameterError(
            f"kernel must be one of {KERNEL_NAMES} or a callable, got {kernel!r}")
    name = _ALIASES.get(kernel, kernel)
    if name not in _USES:
        raise InvalidParameterError(
            f"unknown kernel {kernel!r}; choose one of {KERNEL_NAMES}, 'rbf', or pass a callable")
    if kernel_params:
        raise InvalidParameterError(
            f"kernel_params {sorted(kernel_params)} given for kernel {name!r}; kernel_params "
            "are only for a callable kernel (use gamma/degree/coef0 for the built-in kernels)")
    unused = [p for p, v in given.items() if p not in _USES[name] and v != _DEFAULTS[p]]
    if unused:
        raise InvalidParameterError(
            f"parameter(s) {unused} have no effect on the {name!r} kernel; "
            f"it uses only {sorted(_USES[name]) or 'no parameters'}")
    params = {p: given[p] for p in _USES[name]}
    if "gamma" in params and params["gamma"] is not None:
        if not isinstance(params["gamma"], Real) or not params["gamma"] > 0:
            raise InvalidParameterError(f"gamma must be a positive number, got {gamma!r}")
    if "degree" in params:
        if not isinstance(degree, Integral) or degree < 1:
            raise InvalidParameterError(f"degree must be a positive integer, got {degree!r}")
    if "coef0" in params and not isinstance(coef0, Real):
        raise InvalidParameterError(f"coef0 must be a real number, got {coef0!r}")
    return name, params


def kernel_matrix(X, Z, kernel="linear", **params):
    """Kernel matrix between the rows of ``X`` and ``Z``.

    Parameters
    ----------
    X : array-like or sparse, shape (m, n)
    Z : array-like or sparse, shape (m', n)
    kernel : canonical name or callable from :func:`resolve_kernel`
    **params : that kernel's parameters

    Returns
    -------
    K : ndarray, shape (m, m'), dense float64.
    """
    if callable(kernel):
        K = kernel(X, Z, **params)
        K = K.toarray() if sp.issparse(K) else np.asarray(K, dtype=float)
        if K.shape != (X.shape[0], Z.shape[0]):
            raise InvalidParameterError(
                f"callable kernel returned shape {K.shape}, expected {(X.shape[0], Z.shape[0])}")
        return K
    if kernel == "precomputed":
        return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise InvalidInputError(
            f"X has {X.shape[1]} features but the model was fitted with {Z.shape[1]}")
    gamma = params.get("gamma")
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    if kernel == "gaussian":
        D = euclidean_distances(X, Z, squared=True)
        np.multiply(D, -gamma, out=D)
        return np.exp(D, out=D)
    G = X @ Z.T
    G = G.toarray() if sp.issparse(G) else np.asarray(G, dtype=float)
    if kernel == "linear":
        return G
    if kernel == "polynomial":
        G *= gamma
        G += params["coef0"]
        return G ** params["degree"]
    raise InvalidParameterError(f"unknown kernel {kernel!r}")
