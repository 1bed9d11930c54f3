"""Vector kernels usable by every learner: linear, polynomial, Gaussian, precomputed, callable.

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
Cost: O(m m' n) for m x m' kernel rows over n features (one BLAS-3 product); two sparse
inputs go through :func:`learners.kernels.sparse_gram.gram_matrix` (frequent columns by one dense
product, the rest sparse; the result is dense, never a sparse matrix with m m' entries).

The learners take a kernel by name (:func:`resolve_kernel`, :func:`kernel_matrix`);
:class:`VectorKernel` is the same computation as an object on the kernel base class
(:mod:`learners.kernels.base`), for pipelines and sums with the structured kernels.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils import check_array
from sklearn.utils._param_validation import Interval, StrOptions

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import check_finite
from learners._validation import InvalidInputTypeError, check_numeric_dtype, with_owner
from learners.kernels.base import Kernel, squared_row_norms
from learners.kernels.sparse_gram import dense_gram, gemm_operand, gram_matrix

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

    Raises
    ------
    NumericalError
        The kernel values overflow (unscaled features) or a callable kernel returns NaN/inf.
    """
    if callable(kernel):
        K = kernel(X, Z, **params)
        K = K.toarray() if sp.issparse(K) else np.asarray(K, dtype=float)
        if K.shape != (X.shape[0], Z.shape[0]):
            raise InvalidParameterError(
                f"callable kernel returned shape {K.shape}, expected {(X.shape[0], Z.shape[0])}")
        return check_finite(K, "the callable kernel's matrix")
    if kernel == "precomputed":
        return X.toarray() if sp.issparse(X) else np.asarray(X, dtype=float)
    if X.shape[1] != Z.shape[1]:
        raise InvalidInputError(
            f"X has {X.shape[1]} features but the model was fitted with {Z.shape[1]}")
    gamma = params.get("gamma")
    if gamma is None:
        gamma = 1.0 / X.shape[1]
    # Overflow is checked before exp / the power: exp(-inf) = 0 would hide it (K = I).
    with np.errstate(over="ignore", invalid="ignore"):
        if kernel == "gaussian":
            if not sp.issparse(Z):
                Z = gemm_operand(X, Z)    # its X Zᵀ by GEMM, not SYRK (dense_gram)
            D = euclidean_distances(X, Z, squared=True)
            _check_kernel(D, "squared distances of the gaussian kernel", X, Z)
            np.multiply(D, -gamma, out=D)
            return np.exp(D, out=D)
        if sp.issparse(X) and sp.issparse(Z):
            G = gram_matrix(X, Z)        # dense result; dense/sparse column split, exact
        elif not sp.issparse(X) and not sp.issparse(Z):
            G = np.asarray(dense_gram(X, Z), dtype=float)
        else:
            G = X @ Z.T
            G = G.toarray() if sp.issparse(G) else np.asarray(G, dtype=float)
        _check_kernel(G, f"inner products of the {kernel} kernel", X, Z)
        if kernel == "linear":
            return G
        if kernel == "polynomial":
            G *= gamma
            G += params["coef0"]
            G **= params["degree"]
            return _check_kernel(G, f"the polynomial kernel of degree {params['degree']}", X, Z)
    raise InvalidParameterError(f"unknown kernel {kernel!r}")


def gaussian_of(K, gamma, sq_rows=None, sq_cols=None):
    """The Gaussian of a kernel's feature-space distance, in place of ``K``:
    ``exp(−γ ‖φ(x) − φ(z)‖²)`` with ``‖φ(x) − φ(z)‖² = k(x,x) + k(z,z) − 2 k(x,z)`` — any
    kernel induces a metric on which an RBF kernel can be built (Schölkopf & Smola 2002,
    §2.4 / §13.2); on unit-norm rows the distance lies in [0, 4].  On a sum of normalized
    kernels (the concatenation of ``√w_v · x̂_v``) it is the product over the parts of
    ``exp(−γ w_v ‖x̂_v − ẑ_v‖²)``: conjunctions of the parts' features, which the sum lacks.

    Parameters
    ----------
    K : ndarray (m, m')              the kernel ``k(x_i, z_j)`` (overwritten)
    gamma : float > 0
    sq_rows, sq_cols : (m,), (m',)   ``k(x_i, x_i)``, ``k(z_j, z_j)``; None: the diagonal
                                     of a square ``K`` (a Gram matrix)

    Returns
    -------
    ndarray (m, m') — ``K`` itself. O(m m') elementwise.
    """
    if isinstance(gamma, bool) or not (isinstance(gamma, (Real, np.floating))
                                       and np.isfinite(gamma) and gamma > 0):
        raise InvalidParameterError(f"gamma must be a positive finite number, got {gamma!r}")
    if sq_rows is None or sq_cols is None:
        if K.shape[0] != K.shape[1]:
            raise InvalidParameterError(f"the diagonal of a {K.shape} matrix: give sq_rows "
                                        "and sq_cols")
        diag = K.diagonal().copy()
        sq_rows = diag if sq_rows is None else sq_rows
        sq_cols = diag if sq_cols is None else sq_cols
    K *= 2.0
    K -= np.asarray(sq_rows, dtype=float)[:, None]
    K -= np.asarray(sq_cols, dtype=float)[None, :]
    np.minimum(K, 0.0, out=K)            # −‖φ(x) − φ(z)‖², rounding kept ≤ 0
    K *= gamma
    return np.exp(K, out=K)


def _check_kernel(K, step, X, Z):
    """``K`` if finite, else :class:`NumericalError` citing the inputs' magnitude."""
    return check_finite(K, step, X=[X, Z])


class VectorKernel(Kernel):
    """A named vector kernel (linear, polynomial, Gaussian) on the kernel base class.

    ``transform(X)`` is ``kernel_matrix(X, X_fit)`` (normalized if ``normalize``); for the
    linear kernel the (scaled) rows are its explicit feature map (:meth:`features`).

    Parameters
    ----------
    kernel : {"linear", "polynomial", "poly", "gaussian", "rbf"}, default "linear"
    gamma, degree, coef0 : as in :func:`resolve_kernel` (only the kernel's own parameters
        may differ from their defaults; ``gamma=None`` is ``1 / n_features``)
    normalize : bool, default False
        Cosine normalization; self-similarities ``k(x, x)``: ``||x||^2`` (linear),
        ``(gamma ||x||^2 + coef0)^degree`` (polynomial), 1 (Gaussian).

    Attributes
    ----------
    n_features_in_ : int
    kernel_spec_ : (name, parameters) from :func:`resolve_kernel`

    Cost: as :func:`kernel_matrix`, O(m m' n).
    """

    _parameter_constraints = {
        "kernel": [StrOptions({"linear", "polynomial", "poly", "gaussian", "rbf"})],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "degree": [Interval(Integral, 1, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "normalize": ["boolean"],
    }

    def __init__(self, kernel="linear", *, gamma=None, degree=3, coef0=1.0, normalize=False):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.normalize = normalize

    def _resolve(self):
        """``resolve_kernel`` of this object's kernel parameters (subclasses with fewer
        parameters override it)."""
        return resolve_kernel(self.kernel, gamma=self.gamma, degree=self.degree,
                              coef0=self.coef0)

    def _check_consistency(self):
        self.kernel_spec_ = self._resolve()

    @property
    def has_feature_map(self):
        return self._resolve()[0] == "linear"

    def _parse_input(self, X, fit):
        owner = type(self).__name__
        check_numeric_dtype(X, owner)
        try:
            X = check_array(X, accept_sparse="csr", dtype=np.float64)
        except ValueError as exc:
            raise InvalidInputError(with_owner(owner, str(exc))) from exc
        except TypeError as exc:
            raise InvalidInputTypeError(with_owner(owner, f"X must be numeric: {exc}")) from exc
        if fit:
            self.n_features_in_ = X.shape[1]
        elif X.shape[1] != self.n_features_in_:
            raise InvalidInputError(f"X has {X.shape[1]} features, but {type(self).__name__} "
                                    f"is expecting {self.n_features_in_} features as input")
        name, params = self.kernel_spec_
        if name == "gaussian":
            return X, np.ones(X.shape[0])
        with np.errstate(over="ignore"):
            sq = squared_row_norms(X)
            if name != "linear":
                gamma = params["gamma"] if params["gamma"] is not None else 1.0 / X.shape[1]
                sq = (gamma * sq + params["coef0"]) ** params["degree"]
        # an infinite self-similarity would normalize rows to 0 silently
        return X, check_finite(sq, f"{owner}: the self-similarities k(x, x)", X=X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _pairwise(self, P, Q):
        name, params = self.kernel_spec_
        return kernel_matrix(P, Q, name, **params)

    def _feature_rows(self, P, self_kernel):
        return self._scale_rows(P, self_kernel)
