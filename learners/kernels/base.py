"""Base class of the structured kernels, in the manner of GraKeL's ``Kernel`` (Siglidis et al.
2020, "GraKeL: A Graph Kernel Library in Python", JMLR 21(54)).

A kernel object is a scikit-learn transformer over *objects* (graphs, symbol sequences,
vectors):

* ``fit(objects)`` keeps the parsed training objects ``x_1..x_m``;
* ``transform(objects)`` returns the kernel matrix ``K[i, j] = k(z_i, x_j)`` of the new
  objects against the training objects (n_new × m, dense float64), so that
  ``make_pipeline(SomeKernel(), RLS(kernel="precomputed"))`` trains and predicts on objects;
* ``fit_transform(objects)`` returns the training Gram matrix (m × m);
* ``gram(A, B=None)`` is a convenience: ``k(A_i, B_j)`` from a copy fitted on ``B``.

``normalize=True`` is one flag, implemented here once for every kernel: the cosine
normalization

    k̂(x, z) = k(x, z) / sqrt(k(x, x) k(z, z)),

where an object with ``k(x, x) = 0`` (e.g. a sequence without any valid k-mer) gets a zero
row. Every kernel reports the exact self-similarities ``k(x, x)`` of the objects it parses
(also the parts of ``x`` outside a vocabulary learned at fit), so normalized values do not
depend on the training set.

Subclasses override a small hook only:

* :class:`FeatureMapKernel` — kernels with an explicit (sparse) feature map ``Φ``, i.e.
  ``k(x, z) = ⟨Φ(x), Φ(z)⟩``: the subclass implements ``_feature_map(objects, fit)``
  (CSR rows, and optionally the exact ``k(x, x)``); the base normalizes the rows and computes
  ``Φ Φᵀ`` (:func:`learners.kernels.sparse_gram.gram_matrix`). The rows themselves are
  public (:meth:`Kernel.features`),
  since a linear model on them is the kernel model (``w = Φᵀ a``);
* :class:`Kernel` — any other kernel: ``_parse_input(objects, fit)`` returns the parsed
  objects and their ``k(x, x)``, ``_pairwise(P, Q)`` the unnormalized kernel matrix between
  two parsed sets (GraKeL's ``parse_input`` / ``pairwise_operation``, batched).

Hyper-parameters are only stored in ``__init__``; ``_parameter_constraints`` (scikit-learn's
declarative :mod:`sklearn.utils._param_validation`) validates them at ``fit``, and a bad
value raises :class:`kernelrank.errors.InvalidParameterError` naming the parameter; fitted
attributes end with ``_``.

Cost of the Gram matrix of feature rows: one sparse–dense split product, see
:func:`learners.kernels.sparse_gram.gram_matrix`; the normalization is O(n m) on top.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError as _SklearnParameterError

from kernelrank.errors import InvalidParameterError
from learners.kernels.sparse_gram import gram_matrix  # re-exported here

__all__ = ["Kernel", "FeatureMapKernel", "KernelNotFittedError", "inverse_sqrt"]


class KernelNotFittedError(InvalidParameterError, NotFittedError):
    """``transform``/``features`` before ``fit`` (both our typed error and scikit-learn's)."""


def inverse_sqrt(values):
    """``1 / sqrt(v)`` elementwise, 0 where ``v <= 0`` (the cosine scale of each object)."""
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros_like(values)
    pos = values > 0
    out[pos] = 1.0 / np.sqrt(values[pos])
    return out


#: stored entries per block of the row-wise passes over sparse rows (their temporaries)
ENTRY_BLOCK = 1 << 20


def row_blocks(indptr, entries=ENTRY_BLOCK):
    """``(start, stop)`` row ranges of a CSR matrix's ``indptr`` holding about ``entries``
    stored entries each (at least one row): the passes over the rows keep O(entries)
    temporaries whatever the width of the rows."""
    n = len(indptr) - 1
    i = 0
    while i < n:
        j = int(np.searchsorted(indptr, indptr[i] + entries, side="right")) - 1
        j = min(max(j, i + 1), n)
        yield i, j
        i = j


def squared_row_norms(X):
    """``‖x_i‖²`` of every row of a sparse or dense matrix (the linear kernel's diagonal)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        ptr = X.indptr
        out = np.zeros(X.shape[0])
        for i, j in row_blocks(ptr):
            d = X.data[ptr[i]:ptr[j]]
            out[i:j] = np.bincount(np.repeat(np.arange(j - i), np.diff(ptr[i:j + 1])),
                                   weights=d * d, minlength=j - i)
        return out
    return np.einsum("ij,ij->i", X, X)


class Kernel(TransformerMixin, BaseEstimator):
    """Kernel between objects as a scikit-learn transformer (see the module docstring).

    Subclasses implement ``_parse_input(objects, fit) -> (parsed, self_kernel)`` and
    ``_pairwise(parsed_a, parsed_b) -> ndarray``; cross-parameter rules go in
    ``_check_consistency``. Kernels with an explicit feature map set ``has_feature_map`` and
    implement ``_feature_rows(parsed, self_kernel)``.

    Parameters
    ----------
    normalize : bool
        Cosine normalization ``k(x, z) / sqrt(k(x, x) k(z, z))``.

    Attributes
    ----------
    X_fit_ : the parsed training objects
    self_kernel_fit_ : ndarray (m,), the unnormalized ``k(x, x)`` of the training objects
    """

    _parameter_constraints = {"normalize": ["boolean"]}

    def __init__(self, normalize=False):
        self.normalize = normalize

    # ------------------------------------------------------------------ hooks
    def _parse_input(self, X, fit):
        """``(parsed objects, k(x, x) of each)``; ``fit=True`` may learn a vocabulary."""
        raise NotImplementedError

    def _pairwise(self, P, Q):
        """Unnormalized kernel matrix (dense, len(P) × len(Q)) between parsed objects."""
        raise NotImplementedError

    def _check_consistency(self):
        """Rules between parameters that the constraints table cannot express."""

    has_feature_map = False

    def _feature_rows(self, P, self_kernel):
        raise NotImplementedError

    # ------------------------------------------------------------------ scikit-learn API
    def fit(self, X, y=None):
        """Validate the parameters and keep the parsed training objects ``X``."""
        self._check_params()
        self.X_fit_, self.self_kernel_fit_ = self._parse_input(X, fit=True)
        return self

    def transform(self, X):
        """Kernel matrix ``K[i, j] = k(X[i], x_j)`` against the training objects (dense)."""
        self._check_fitted("X_fit_")
        return self._gram(self._parse_input(X, fit=False), self._fitted())

    def fit_transform(self, X, y=None):
        """Fit on ``X`` and return its Gram matrix (m × m, symmetric)."""
        fitted = self.fit(X)._fitted()
        return self._gram(fitted, fitted)

    def gram(self, A, B=None):
        """``K[i, j] = k(A[i], B[j])`` (``B = A`` if None) from a copy of this kernel fitted
        on ``B``; this kernel's own fitted state is neither used nor changed."""
        kernel = clone(self)
        return kernel.fit_transform(A) if B is None else kernel.fit(B).transform(A)

    def self_kernel(self, X):
        """The unnormalized ``k(x, x)`` of every object of ``X`` (with the fitted state; an
        unfitted kernel uses a copy fitted on ``X``)."""
        if hasattr(self, "X_fit_"):
            return self._parse_input(X, fit=False)[1]
        kernel = clone(self)
        kernel._check_params()
        return kernel._parse_input(X, fit=True)[1]

    def features(self, X):
        """Explicit feature rows ``Φ(X)`` (normalized if ``normalize``) in the fitted space:
        ``features(X) @ features(X_fit).T == transform(X)``. Only for kernels with an
        explicit feature map (``has_feature_map``)."""
        self._check_fitted()
        self._check_feature_map()
        return self._feature_rows(*self._parse_input(X, fit=False))

    def fit_features(self, X):
        """Fit on ``X`` and return its feature rows (as :meth:`features`)."""
        self.fit(X)
        self._check_feature_map()
        return self._feature_rows(*self._fitted())

    def set_params(self, **params):
        valid = self.get_params(deep=False)
        for name in params:
            if name.split("__", 1)[0] not in valid:
                raise InvalidParameterError(f"{type(self).__name__} has no parameter {name!r}; "
                                            f"it has {sorted(valid)}")
        return super().set_params(**params)

    # ------------------------------------------------------------------ shared machinery
    def _check_params(self):
        try:
            self._validate_params()
        except _SklearnParameterError as exc:
            raise InvalidParameterError(str(exc)) from None
        self._check_consistency()

    def _check_fitted(self, attribute=None):
        fitted = hasattr(self, attribute) if attribute else \
            any(k.endswith("_") and not k.startswith("__") for k in vars(self))
        if not fitted:
            raise KernelNotFittedError(f"{type(self).__name__} is not fitted; call fit first")

    def _check_feature_map(self):
        if not self.has_feature_map:
            raise InvalidParameterError(f"{self!r} has no explicit feature map; use transform "
                                        "(the kernel matrix) instead")

    def _fitted(self):
        return self.X_fit_, self.self_kernel_fit_

    def _scale(self, self_kernel):
        """The cosine scale ``1 / sqrt(k(x, x))`` of each object, or None without
        normalization: the one place where ``normalize`` acts."""
        return inverse_sqrt(self_kernel) if self.normalize else None

    def _scale_rows(self, P, self_kernel):
        """Rows of ``P`` times their cosine scale (feature rows of a normalized kernel)."""
        s = self._scale(self_kernel)
        if s is None:
            return P
        if not sp.issparse(P):
            return P * s[:, None]
        P = sp.csr_matrix(P)                 # each stored entry times its row's scale
        return sp.csr_matrix((P.data * np.repeat(s, np.diff(P.indptr)), P.indices.copy(),
                              P.indptr.copy()), shape=P.shape)

    def _normalized_self_kernel(self, self_kernel):
        """``k̂(x, x)``: 1 (0 for a zero object) when normalized, else ``k(x, x)``."""
        s = self._scale(self_kernel)
        return self_kernel if s is None else (s > 0).astype(np.float64)

    def _gram(self, A, B):
        """Normalized kernel matrix between two parsed sets ``(parsed, self_kernel)``."""
        K = self._pairwise(A[0], B[0])
        s = self._scale(A[1])
        if s is not None:
            K *= s[:, None]
            K *= self._scale(B[1])[None, :]
        return K


class FeatureMapKernel(Kernel):
    """Kernel with an explicit feature map ``k(x, z) = ⟨Φ(x), Φ(z)⟩``.

    Subclasses implement ``_feature_map(objects, fit) -> (Phi, self_kernel)``: ``Phi`` the
    unnormalized CSR rows in the fitted feature space, ``self_kernel`` the exact
    ``k(x, x)`` (``None``: the squared row norms of ``Phi``, i.e. no feature of ``x`` lies
    outside the fitted space). The parsed objects of this class are the rows, normalized
    once here, so ``X_fit_`` holds the training feature rows and ``transform`` is one
    product ``Φ(X) Φ(X_fit)ᵀ``.
    """

    has_feature_map = True

    def _feature_map(self, X, fit):
        raise NotImplementedError

    def _parse_input(self, X, fit):
        return self._scaled(*self._feature_map(X, fit), own=True)

    def _pairwise(self, P, Q):
        return gram_matrix(P) if Q is P else gram_matrix(P, Q)

    def _gram(self, A, B):
        return self._pairwise(A[0], B[0])   # rows already normalized by _parse_input

    def _feature_rows(self, P, self_kernel):
        return P

    def rows_of_map(self, Phi, self_kernel):
        """The rows :meth:`features` would return, from a feature map's output ``(Phi,
        self_kernel)``: scaled as the kernel's input is (unit norm when ``normalize``, by
        ``self_kernel``), then mapped to the kernel's feature rows.  The entry point of
        callers that compute the map themselves (:mod:`learners.kernels.vocabulary_union`,
        :mod:`ppi.representation.views`)."""
        return self._feature_rows(*self._scaled(Phi, self_kernel))

    def linear_scores(self, X, weights):
        """``features(X) @ weights`` for one weight vector over the fitted columns, without
        the scaled rows: the unnormalized map's products, each scaled afterwards
        (:meth:`scores_of_products`; the same scores up to the order of the floating-point
        operations).  O(nnz of the map)."""
        self._check_fitted()
        self._check_feature_map()
        return self.scores_of_map(*self._feature_map(X, False), weights)

    def scores_of_map(self, Phi, self_kernel, weights):
        """``rows_of_map(Phi, self_kernel) @ weights`` (one weight vector) without the
        rows, as :meth:`linear_scores` from a map computed elsewhere
        (:mod:`learners.kernels.vocabulary_union`, :mod:`ppi.representation.views`)."""
        return self.scores_of_products(np.asarray(Phi @ weights).ravel(),
                                       squared_row_norms(Phi) if self_kernel is None
                                       else self_kernel)

    def scores_of_products(self, products, self_kernel):
        """``rows_of_map(Phi, self_kernel) @ w`` from ``products = Phi @ w``: a linear
        model's scores without the rows (each product times its row's cosine scale when
        ``normalize``; the feature rows of this class are the scaled map).  O(n)."""
        s = self._scale(self_kernel)
        products = np.asarray(products, dtype=np.float64)
        return products if s is None else products * s

    def _scaled(self, Phi, self_kernel, own=False):
        """``(rows of Phi times their cosine scale, k(x, x))``.  ``own``: ``Phi`` is a fresh
        CSR matrix of the caller's, scaled in place (in row blocks: no second copy of the
        rows at any time)."""
        Phi = sp.csr_matrix(Phi)
        if self_kernel is None:
            self_kernel = squared_row_norms(Phi)
        self_kernel = np.asarray(self_kernel, dtype=np.float64)
        s = self._scale(self_kernel) if own and sp.issparse(Phi) else None
        if s is None:
            return self._scale_rows(Phi, self_kernel), self_kernel
        ptr = Phi.indptr
        for i, j in row_blocks(ptr):
            Phi.data[ptr[i]:ptr[j]] *= np.repeat(s[i:j], np.diff(ptr[i:j + 1]))
        return Phi, self_kernel
