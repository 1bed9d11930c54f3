"""Regularized least-squares (RLS, kernel ridge regression), thesis §2.7.

Dual   ``(K + λI) a = y``,            f(x) = k(x, X) a        O(m^3/3) Cholesky
Primal ``(X^T X + λI) w = X^T y``,    f(x) = x^T w            O(n^2 m + n^3/3) Cholesky

chosen by shape (linear kernel and n_features < n_samples → primal; forceable with
``solver``). A single fit factorizes by Cholesky only. A λ path or a cross-validation
shortcut needs one symmetric eigendecomposition (of K, or of X^T X in the primal), computed
lazily and cached on the fitted model; after it each λ costs O(m^2 t) (dual) or
O(m n t) (primal), and each hold-out set / pair is cheap (see :mod:`learners.holdout`).
Multiple outputs (y with t columns) cost one factorization.
"""

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from learners._numerics import numerical_guard
from learners._solvers import dense, gram, resolve_solver, solve_shifted, sym_eig
from learners._validation import (
    as_2d_targets,
    check_alphas,
    check_index_sets,
    check_leave_pair_out,
)
from learners.base import KERNEL_CONSTRAINTS, POSITIVE, HoldoutMixin
from learners.holdout import RLSSpectral
from learners.kernel_learner import KernelLearnerMixin, shape_output  # re-exported here


#: hyper-parameters of the RLS and RankRLS learners
RLS_CONSTRAINTS = {
    "alpha": POSITIVE,
    **KERNEL_CONSTRAINTS,
    "solver": [StrOptions({"auto", "dual", "primal"})],
}


class RLS(HoldoutMixin, KernelLearnerMixin, RegressorMixin, BaseEstimator):
    """Regularized least-squares regression (kernel ridge regression without intercept).

    Minimizes ``||y - f(X)||^2 + alpha ||f||_k^2`` (thesis §2.7, eq. 2.25 ff.).

    Parameters
    ----------
    alpha : float, default=1.0
        Regularization parameter λ > 0.
    kernel : {"linear", "gaussian", "rbf", "polynomial", "precomputed"} or callable
    gamma, degree, coef0, kernel_params : kernel parameters as in scikit-learn
        (validated by :func:`learners.kernels.resolve_kernel`; unused ones raise).
    solver : {"auto", "dual", "primal"}
        ``auto``: primal when the kernel is linear and n_features < n_samples.

    Attributes
    ----------
    dual_coef_ : ndarray (m,) or (m, t)      (dual solver)
    coef_ : ndarray (n,) or (t, n)           (primal solver, as ``Ridge.coef_``)
    X_fit_ : training inputs (the training kernel matrix for ``kernel="precomputed"``)
    solver_ : "dual" or "primal"
    kernel_spec_ : (kernel name or callable, parameter dict)

    Notes
    -----
    Complexity: one fit O(m^3/3 + m^2 n) dual, O(n^2 m + n^3/3) primal. λ path and CV: one
    eigendecomposition O(m^3) (dual) or O(n^3 + m n^2) (primal), then per λ O(m^2 t) or
    O(m n t). Leave-one-out O(m r) per λ; a hold-out set H ``O(|H|^2 r)`` per λ; leave-pair-out
    one O(m^2 r) product per λ then O(1) per pair (r = m dual, n primal).
    ``score`` is R² (:class:`sklearn.base.RegressorMixin`).
    """

    _parameter_constraints = RLS_CONSTRAINTS

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, solver="auto"):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.solver = solver

    # ------------------------------------------------------------------ fit / predict
    @numerical_guard("fit")
    def fit(self, X, y):
        """Fit by one Cholesky solve (thesis §2.7).

        Parameters
        ----------
        X : array-like or scipy.sparse, shape (m, n), or the (m, m) kernel matrix when
            ``kernel="precomputed"``. Sparse input stays sparse.
        y : array-like, shape (m,) or (m, t); t outputs cost one factorization.

        Returns
        -------
        self

        Raises
        ------
        InvalidInputError : NaN/inf, mismatched lengths, non-square precomputed kernel.
        InvalidParameterError : bad alpha, solver or kernel specification.
        """
        spec, X, y = self._validate_fit(X, y)
        Y, self._was_1d = as_2d_targets(y)
        self.kernel_spec_ = spec
        self.X_fit_ = X
        self._Y = Y
        self._cache = {}
        self.solver_ = resolve_solver(self.solver, spec[0], X.shape[0], X.shape[1])
        alpha = float(self.alpha)
        if self.solver_ == "primal":
            W = solve_shifted(gram(X), dense(X.T @ Y), alpha)           # (n, t)
            self._set_primal(W)
        else:
            K = self._train_kernel()
            try:
                a = solve_shifted(K, Y, alpha, overwrite=self._kernel_is_fresh())
            except np.linalg.LinAlgError:       # indefinite kernel: LU on a fresh matrix
                a = solve_shifted(self._train_kernel(), Y, alpha, assume_pos=False)
            self._set_dual(a)
        return self

    @numerical_guard("predict")
    def predict(self, X):
        """Predictions ``k(X, X_fit) a`` (dual) or ``X w`` (primal).

        Parameters
        ----------
        X : array-like or sparse, shape (m', n), or the (m', m) test-train kernel matrix.

        Returns
        -------
        ndarray, shape (m',) or (m', t)
        """
        return self._scores(X)

    # ------------------------------------------------------------------ spectral cache
    def _spectral(self):
        """One eigendecomposition, computed on first use and cached. O(m^3) or O(n^3+mn^2)."""
        check_is_fitted(self)
        spec = self._cache.get("rls")
        if spec is None:
            X = self.X_fit_
            if self.solver_ == "primal":
                s, Z = sym_eig(gram(X), overwrite=True)
                A = dense(X @ Z)
                self._cache["Z"] = Z
            else:
                K = self._train_kernel()
                s, A = sym_eig(K, overwrite=self._kernel_is_fresh())
            spec = RLSSpectral(A, s, self._Y, self.solver_)
            self._cache["rls"] = spec
        return spec

    @numerical_guard("regularization_path", data="fitted")
    def regularization_path(self, alphas):
        """Coefficients for every λ from one decomposition.

        Returns ``dual_coef`` stacked (n_alphas, m[, t]) for the dual solver and ``coef``
        stacked (n_alphas, [t,] n) for the primal. O(m^2 t) / O(n^2 t) per λ.
        """
        lams, _ = check_alphas(alphas, self.alpha)
        spec = self._spectral()
        if self.solver_ == "primal":
            Z = self._cache["Z"]
            W = np.stack([Z @ (spec.AtY / (spec.s + lam)[:, None]) for lam in lams])
            return W[..., 0] if self._was_1d else np.swapaxes(W, 1, 2)
        a = np.stack([spec.dual_coef(lam) for lam in lams])
        return a[..., 0] if self._was_1d else a

    @numerical_guard("predict_path")
    def predict_path(self, X, alphas):
        """Predictions for every λ, shape (n_alphas, m'[, t]), one decomposition."""
        X = self._validate_predict(X)
        lams, _ = check_alphas(alphas, self.alpha)
        coefs = self.regularization_path(lams)
        if self._was_1d:
            coefs = coefs[..., None]
        if self.solver_ == "primal":
            if not self._was_1d:
                coefs = np.swapaxes(coefs, 1, 2)
            return shape_output(np.stack([dense(X @ c) for c in coefs]), False, self._was_1d)
        Kt = self._kernel(X, self.X_fit_)
        return shape_output(np.stack([Kt @ c for c in coefs]), False, self._was_1d)

    # ------------------------------------------------------------------ fast CV
    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Exact leave-one-out predictions ``f_i = y_i - a_i / G_ii`` (residual form) or the
        equivalent hat form, whichever is accurate for each λ.

        Parameters
        ----------
        alphas : sequence of float, optional
            λ values; adds a leading axis. Default: the fitted ``alpha``, no extra axis.

        Returns
        -------
        ndarray, shape (m[, t]) or (n_alphas, m[, t])

        Notes
        -----
        One cached eigendecomposition, then O(m r t) per λ.
        """
        lams, single = check_alphas(alphas, self.alpha)
        return shape_output(self._spectral().loo(lams), single, self._was_1d)

    @numerical_guard("holdout_sets", data="fitted")
    def holdout_sets(self, sets, alphas=None):
        """Exact hold-out predictions for each of a list of (possibly overlapping) index sets.

        k-fold, leave-one-group-out (documents, sentences, queries) and repeated hold-out are
        all lists of sets.

        Parameters
        ----------
        sets : list of int arrays
        alphas : sequence of float, optional

        Returns
        -------
        list of ndarray, each ``(|H|[, t])`` or ``(n_alphas, |H|[, t])``

        Notes
        -----
        ``f_H = y_H - (G_HH)^{-1} a_H``, ``G = (K + λI)^{-1}``; per set and λ one
        ``O(|H|^2 r)`` syrk and one ``O(|H|^3)`` solve.
        """
        check_is_fitted(self)
        sets = check_index_sets(sets, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        res = self._spectral().holdout_sets(sets, lams)
        return [shape_output(r, single, self._was_1d) for r in res]

    @numerical_guard("leave-pair-out", data="fitted")
    def leave_pair_out(self, pairs, alphas=None):
        """Exact leave-pair-out: for each pair (i, j) the predictions for i and j of the model
        trained without both.

        Parameters
        ----------
        pairs : int array, shape (n, 2)
        alphas : sequence of float, optional

        Returns
        -------
        ndarray, shape (n, 2[, t]) or (n_alphas, n, 2[, t])

        Notes
        -----
        Vectorized over pairs: one O(m^2 r) product per λ (when n >= m), then O(t) per
        pair with closed-form 2 x 2 solves.
        """
        check_is_fitted(self)
        pairs = check_leave_pair_out(pairs, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        return shape_output(self._spectral().pairs(pairs, lams), single, self._was_1d)
