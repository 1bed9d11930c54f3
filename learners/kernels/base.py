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
  ``Φ Φᵀ`` (:func:`gram_matrix`). The rows themselves are public (:meth:`Kernel.features`),
  since a linear model on them is the kernel model (``w = Φᵀ a``);
* :class:`Kernel` — any other kernel: ``_parse_input(objects, fit)`` returns the parsed
  objects and their ``k(x, x)``, ``_pairwise(P, Q)`` the unnormalized kernel matrix between
  two parsed sets (GraKeL's ``parse_input`` / ``pairwise_operation``, batched).

Hyper-parameters are only stored in ``__init__``; ``_parameter_constraints`` (scikit-learn's
declarative :mod:`sklearn.utils._param_validation`) validates them at ``fit``, and a bad
value raises :class:`kernelrank.errors.InvalidParameterError` naming the parameter; fitted
attributes end with ``_``.

Cost of the Gram matrix of feature rows: one sparse–dense split product, see
:func:`gram_matrix`; the normalization is O(n m) on top.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, TransformerMixin, clone
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError as _SklearnParameterError

from kernelrank.errors import InvalidInputError, InvalidParameterError

__all__ = ["Kernel", "FeatureMapKernel", "KernelNotFittedError", "gram_matrix",
           "inverse_sqrt"]


class KernelNotFittedError(InvalidParameterError, NotFittedError):
    """``transform``/``features`` before ``fit`` (both our typed error and scikit-learn's)."""


def inverse_sqrt(values):
    """``1 / sqrt(v)`` elementwise, 0 where ``v <= 0`` (the cosine scale of each object)."""
    values = np.asarray(values, dtype=np.float64)
    out = np.zeros_like(values)
    pos = values > 0
    out[pos] = 1.0 / np.sqrt(values[pos])
    return out


def squared_row_norms(X):
    """``‖x_i‖²`` of every row of a sparse or dense matrix (the linear kernel's diagonal)."""
    if sp.issparse(X):
        X = sp.csr_matrix(X)
        return np.bincount(np.repeat(np.arange(X.shape[0]), np.diff(X.indptr)),
                           weights=X.data ** 2, minlength=X.shape[0])
    return np.einsum("ij,ij->i", X, X)


def gram_matrix(X, Z=None, *, dense_columns=None, max_dense_bytes=2**28, dtype=np.float64):
    """Dense linear kernel ``X Zᵀ`` of two sparse feature matrices (``Z = X`` if None).

    Cost model, in dense multiply-adds (measured on the all-paths, locality and string-kernel
    features of ``ppi``, ``parse_ranking`` and ``homology``): a column f costs n_X·n_Z in
    a dense BLAS product and about 100·df_X(f)·df_Z(f) in a sparse product (scattered
    memory access); splitting the columns between the two costs a gather of every stored
    value, about 3000 each.  So the columns with ``100 df_X df_Z ≥ n_X n_Z`` (the few label
    pairs present in most graphs) go through one dense product, within ``max_dense_bytes``
    of dense copies, and the long tail through the sparse one — or every used column goes
    dense when that is cheaper than the split (nearly all columns of a locality kernel over
    amino acids).  The sum is exact.  ``dense_columns``: force that many columns of highest
    document frequency into the dense part instead.
    """
    X = sp.csr_matrix(X)
    same = Z is None
    Z = X if same else sp.csr_matrix(Z)
    if X.shape[1] != Z.shape[1]:
        raise InvalidInputError(f"feature matrices have {X.shape[1]} and {Z.shape[1]} columns")
    df_x = np.bincount(X.indices, minlength=X.shape[1])
    df_z = df_x if same else np.bincount(Z.indices, minlength=Z.shape[1])
    df = df_x if same else df_x + df_z
    used = np.count_nonzero(df)
    if dense_columns is None:
        n2 = float(X.shape[0]) * Z.shape[0]
        budget = max_dense_bytes // (8 * max(X.shape[0] + (0 if same else Z.shape[0]), 1))
        pair_df = df_x.astype(np.float64) * df_z
        cheap = 100 * pair_df >= n2
        dense_columns = min(np.count_nonzero(cheap), budget)
        split = dense_columns * n2 + 100 * pair_df[~cheap].sum() \
            + (3000 * (X.nnz + Z.nnz) if 0 < dense_columns < used else 0)
        if used <= budget and used * n2 <= split:
            dense_columns = used
    dense = np.zeros(X.shape[1], bool)
    dense[np.argsort(-df, kind="stable")[:dense_columns]] = True
    dense &= df > 0
    n_dense = np.count_nonzero(dense)
    if n_dense == 0:
        return _add_sparse_product(np.zeros((X.shape[0], Z.shape[0]), dtype), X, Z.T.tocsr())
    if n_dense == used:                              # every used column: one dense product
        Xd = X.toarray().astype(dtype, copy=False)
        return Xd @ (Xd if same else Z.toarray().astype(dtype, copy=False)).T
    dense_cols, sparse_cols = np.flatnonzero(dense), np.flatnonzero(~dense)
    # the sparse part's transposed Z first, while nothing else is large; X's sparse
    # columns are then cut one row block at a time (never a second copy of X)
    Zt = Z[:, sparse_cols].T.tocsr()
    Xd = X[:, dense_cols].toarray().astype(dtype, copy=False)
    Zd = Xd if same else Z[:, dense_cols].toarray().astype(dtype, copy=False)
    K = Xd @ Zd.T
    del Xd, Zd
    return _add_sparse_product(K, X, Zt, columns=sparse_cols)


#: Rows per block of the sparse product in :func:`gram_matrix`: X's sparse columns are cut
#: one block of rows at a time (never a second copy of X).
SPARSE_BLOCK = 1024


def _add_sparse_product(K, X, Zt, columns=None):
    """``K += X[:, columns] Zt`` for sparse ``X`` and ``Zt`` (a transposed Z in CSR), one
    block of rows of ``X`` at a time (``columns`` None: all of X's columns), accumulated
    straight into K's rows on all cores (:func:`learners.kernels.sparse_product.
    add_sparse_product`: no sparse intermediate, no symbolic pass — BioInfer's all-view
    Gram matrix on 2 cores in 22 s instead of 34 s)."""
    from learners.kernels.sparse_product import add_sparse_product

    for start in range(0, X.shape[0], SPARSE_BLOCK):
        stop = min(start + SPARSE_BLOCK, X.shape[0])
        block = X[start:stop] if columns is None else X[start:stop][:, columns]
        add_sparse_product(K[start:stop], block, Zt, parallel=True)
    return K


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
        return self._scaled(*self._feature_map(X, fit))

    def _pairwise(self, P, Q):
        return gram_matrix(P) if Q is P else gram_matrix(P, Q)

    def _gram(self, A, B):
        return self._pairwise(A[0], B[0])   # rows already normalized by _parse_input

    def _feature_rows(self, P, self_kernel):
        return P

    def _rows_of_map(self, Phi, self_kernel):
        """:meth:`features`' rows from a feature map's output ``(Phi, self_kernel)`` (as
        :meth:`_parse_input`, then :meth:`_feature_rows`)."""
        return self._feature_rows(*self._scaled(Phi, self_kernel))

    def _scaled(self, Phi, self_kernel):
        Phi = sp.csr_matrix(Phi)
        if self_kernel is None:
            self_kernel = squared_row_norms(Phi)
        return self._scale_rows(Phi, self_kernel), np.asarray(self_kernel, dtype=np.float64)
