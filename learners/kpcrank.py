"""KPCRank: kernel principal component ranking, with every number of components at once.

Paper 002 (Tsivtsivadze, Cseke, Heskes, "Kernel principal component ranking: robust ranking
on noisy data"), §3-§4, Theorem 1; digest ``papers/notes/seed-002-004-digest.md`` §A2.

Model (eq. 9): project the (feature-space centred) data on the top-p kernel principal
components and fit a linear model there with the pairwise least-squares loss (5)
``J = ½ Σ_ij W_ij ((s_i − s_j) − (f_i − f_j))² = (s − f)ᵀ L (s − f)``, ``L = D − W`` the
Laplacian of the preference graph (here: complete inside each query, ``L = ⊕_q l_q C^{l_q}``).
With the centred kernel ``K̂ = V Λ Vᵀ`` (eigenvalues decreasing) and the PC scores
``Z_p = V_p Λ_p^{½}`` (= ``K̂ V_p Λ_p^{-½}``, eq. 3), Theorem 1 gives
``w̄_p = Λ_p^{½}(V_pᵀ K̂ L K̂ V_p)^{-1} V_pᵀ K̂ L s = M_p^{-1} b_p`` with ``M = Zᵀ L Z``,
``b = Zᵀ L s`` and ``M_p`` the leading p × p block; ``f(x) = k̂(x)ᵀ V_p Λ_p^{-½} w̄_p``.

**All p from one eigendecomposition (our shortcut, exact).** The leading blocks of ``M``
are nested, so one Cholesky factorisation ``M = RᵀR`` (R upper triangular) serves every p:
``R_p`` is the leading block of ``R``, ``z = R^{-T} b`` is nested too, and
``V_p Λ_p^{-½} M_p^{-1} b_p = Σ_{k≤p} B[:, k] z_k`` with ``B = V Λ^{-½} R^{-1}``. The dual
coefficients of all p are therefore the cumulative sums of ``B ∘ z`` (``coef_path_``): an
L-weighted Gram-Schmidt over the principal components. Cost: O(n³) for the eigendecomposition
and ``Zᵀ L Z`` (L is applied in O(n p) per column block as query-mean subtraction), O(p³/3)
for the Cholesky factor, O(n p²) for the whole path; predicting all p for t points costs
O(t n p).

**The paper's §4.2 shortcut is a different estimator.** It eigendecomposes
``M = V̂ Â V̂ᵀ`` (all components) and truncates ``Â`` to its p largest eigenvalues. That is
spectral truncation of ``M`` — a principal-component regression in the L-weighted score space
— not Theorem 1 with the top-p *kernel* principal components; the two agree only when p
reaches the rank of ``M``. We implement Theorem 1 (the model the paper defines and motivates:
projection onto kernel PCs, eq. 9) and compute it exactly for all p as above;
``tests/learners/test_kpcrank.py::test_paper_shortcut_is_not_theorem_1`` documents the discrepancy.

``L`` has a null space of dimension u (vectors constant inside each query), so ``M`` has rank
at most n − u and the leading blocks stop being invertible at some p; the path ends at the
first p whose Cholesky pivot falls below ``1e-10·max diag(M)`` (``max_components_``).

The number of components is a hyper-parameter: ``n_components`` an integer, or ``"cv"`` to
choose it by query-wise K-fold cross-validation of the disagreement error, where each fold
needs one eigendecomposition for all p (O(folds · n³) instead of O(folds · p_max · n³)).
"""

from numbers import Integral

import numpy as np
from scipy.linalg import solve_triangular
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import check_groups, validate_data, warn_without_preference
from learners.base import (
    KERNEL_CONSTRAINTS,
    POSITIVE_INT,
    SEED,
    RankerMixin,
    validate_hyperparameters,
)
from learners.kernel_learner import KernelLearnerMixin
from learners.kernels import kernel_matrix
from learners.measures import disagreement_error
from learners.selection import best_candidate
from learners.splits import group_folds

_EIG_RTOL = 1e-12
_PIVOT_RTOL = 1e-10


def _laplacian_apply(codes, V):
    """``L V`` for ``L = ⊕ l_q C^{l_q}`` (= D − W of the complete within-query graph)."""
    sizes = np.bincount(codes).astype(np.float64)
    sums = np.zeros((len(sizes),) + V.shape[1:])
    np.add.at(sums, codes, V)
    return sizes[codes].reshape((-1,) + (1,) * (V.ndim - 1)) * V - sums[codes]


def _nested_cholesky(M):
    """Upper R with ``R_pᵀR_p = M_p`` for the leading blocks while the pivots stay positive."""
    n = M.shape[0]
    R = np.zeros_like(M)
    S = M.copy()                        # Schur complement, updated in place
    tol = _PIVOT_RTOL * max(np.max(np.diag(M)), 0.0)
    p = 0
    for k in range(n):
        d = S[k, k]
        if not d > tol:
            break
        r = S[k, k:] / np.sqrt(d)
        R[k, k:] = r
        S[k + 1:, k + 1:] -= np.outer(r[1:], r[1:])
        p = k + 1
    return R[:p, :p]


def kpc_path(K_centred, y, codes, max_components=None):
    """Dual coefficients of Theorem-1 KPCRank for p = 1..p_max (columns), see module doc."""
    evals, V = np.linalg.eigh(K_centred)
    order = np.argsort(evals)[::-1]
    evals, V = evals[order], V[:, order]
    keep = evals > _EIG_RTOL * max(evals[0], 0.0)
    if max_components is not None:
        keep[max_components:] = False
    evals, V = evals[keep], V[:, keep]
    if len(evals) == 0:
        raise InvalidInputError("the centred kernel matrix is zero; nothing to project on")
    Z = V * np.sqrt(evals)
    LZ = _laplacian_apply(codes, Z)
    M = Z.T @ LZ
    b = LZ.T @ y
    R = _nested_cholesky((M + M.T) / 2)
    p = R.shape[0]
    if p == 0:
        raise InvalidInputError(
            "no principal component carries pairwise information (all labels/queries "
            "constant?); KPCRank needs at least one pair with different scores in a query")
    z = solve_triangular(R, b[:p], trans="T", lower=False)
    Rinv = solve_triangular(R, np.eye(p), lower=False)
    B = (V[:, :p] / np.sqrt(evals[:p])) @ Rinv
    return np.cumsum(B * z, axis=1), evals


class KPCRank(RankerMixin, KernelLearnerMixin, BaseEstimator):
    """Kernel principal component ranking (paper 002, Theorem 1).

    Parameters
    ----------
    n_components : int or "cv", default 10
        Number p of kernel principal components; "cv" chooses p by query-wise K-fold
        cross-validation of the disagreement error (mean over queries) using the full path
        of each fold.
    kernel, gamma, degree, coef0, kernel_params :
        Kernel, as in :func:`learners.kernels.resolve_kernel`.
    center : bool, default True
        Centre the data in feature space (002 §6.1) before kernel PCA.
    max_components : int, optional
        Cap on the length of the path (default: as many as the data support).
    cv : int, default 5
        Folds for ``n_components="cv"``.
    random_state : int, optional
        Shuffling of the queries into folds.

    Attributes
    ----------
    coef_path_ : ndarray, shape (n, ``max_components_``)
        Column p-1: dual coefficients of the p-component model.
    dual_coef_ : ndarray (n,)
        Coefficients of the chosen model, ``f(x) = k̂(x, X_fit_) dual_coef_``.
    n_components_ : int
    max_components_ : int
    cv_errors_ : ndarray, only with ``n_components="cv"``
        Mean CV disagreement error for p = 1, …, ``len(cv_errors_)``.
    eigenvalues_ : ndarray
        Eigenvalues of the centred kernel matrix used in the path (decreasing).

    Notes
    -----
    Complexity: O(n³) training for all p at once (see module docstring); the paper's §4.2
    truncation of ``M``'s spectrum is *not* used because it is not Theorem 1.
    ``score(X, y, qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`);
    the path axis of :meth:`predict_path` is the number of components (there is no λ).
    """

    _parameter_constraints = {
        "n_components": [*POSITIVE_INT, StrOptions({"cv"})],
        **KERNEL_CONSTRAINTS,
        "center": ["boolean"],
        "max_components": [*POSITIVE_INT, None],
        "cv": [Interval(Integral, 2, None, closed="left")],
        "random_state": SEED,
    }

    def __init__(self, n_components=10, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, center=True, max_components=None, cv=5,
                 random_state=None):
        self.n_components = n_components
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.center = center
        self.max_components = max_components
        self.cv = cv
        self.random_state = random_state

    # -- kernels -------------------------------------------------------------------------
    def _centred_train(self, K):
        col_mean = K.mean(axis=0)
        Kc = K - col_mean[None, :] - col_mean[:, None] + col_mean.mean()
        return Kc, col_mean

    def _centred_test(self, Kt, col_mean):
        # K̂_test = (K_test − 1 1ᵀ K / n)(I − 1 1ᵀ / n)
        Kt = Kt - col_mean[None, :]
        return Kt - Kt.mean(axis=1, keepdims=True)

    def _path(self, X, y, codes):
        name, params = self.kernel_spec_
        K = kernel_matrix(X, X, name, **params)
        if self.center:
            K, col_mean = self._centred_train(K)
        else:
            col_mean = None
        path, evals = kpc_path(K, y, codes, self.max_components)
        return path, evals, col_mean

    def _kernel_to_fit(self, X, X_fit, col_mean):
        name, params = self.kernel_spec_
        Kt = kernel_matrix(X, X_fit, name, **params)
        return self._centred_test(Kt, col_mean) if col_mean is not None else Kt

    # -- fit / predict -------------------------------------------------------------------
    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        """Fit the whole component path and select ``n_components_``.

        Parameters
        ----------
        X : array-like or sparse, shape (n, d) (the n × n kernel if precomputed)
        y : array-like, shape (n,)
            Scores; pairs are formed inside each query.
        qids : array-like, shape (n,), optional
            Query (instance) ids; default: one query, i.e. all pairs (global ranking).
        """
        validate_hyperparameters(self)
        self.kernel_spec_ = self._resolve_kernel()
        X, y = validate_data(self, X, y, precomputed=self.kernel_spec_[0] == "precomputed")
        n = X.shape[0]
        if n < 2:
            raise InvalidInputError(f"KPCRank needs at least 2 rows to rank, got n_samples = {n}")
        if y.ndim != 1:
            raise InvalidInputError(f"y must be a vector of length {n}, got shape {y.shape}")
        codes = np.zeros(n, dtype=np.intp) if qids is None else check_groups(qids, n)[0]
        warn_without_preference("KPCRank", y, codes)
        if self.n_components == "cv":
            self.cv_errors_ = self._cross_validate(X, y, codes)
            # the selection engine's tie rule: the fewest components among equal errors
            chosen = best_candidate(self.cv_errors_, [{"n_components": p} for p in
                                                      range(1, self.cv_errors_.size + 1)],
                                    greater_is_better=False) + 1
        else:
            chosen = self.n_components
        self.coef_path_, self.eigenvalues_, self._col_mean_ = self._path(X, y, codes)
        self.max_components_ = self.coef_path_.shape[1]
        if chosen > self.max_components_:
            raise InvalidParameterError(
                f"n_components={chosen} exceeds the {self.max_components_} components the "
                "data support (positive kernel eigenvalues with an invertible ranking system)")
        self.n_components_ = chosen
        self.dual_coef_ = self.coef_path_[:, chosen - 1]
        self.X_fit_ = X
        return self

    def _cross_validate(self, X, y, codes):
        n, n_q = len(y), codes.max() + 1
        # whole queries per fold; few queries (e.g. global ranking): split examples
        folds = group_folds(codes if n_q >= self.cv else np.arange(n), self.cv,
                            self.random_state)
        precomputed = self.kernel_spec_[0] == "precomputed"
        errors = []
        for f in range(self.cv):
            test, train = np.flatnonzero(folds == f), np.flatnonzero(folds != f)
            Xtr = X[np.ix_(train, train)] if precomputed else X[train]
            Xte = X[np.ix_(test, train)] if precomputed else X[test]
            tr_codes = np.unique(codes[train], return_inverse=True)[1].ravel()
            path, _, col_mean = self._path(Xtr, y[train], tr_codes)
            P = self._kernel_to_fit(Xte, Xtr, col_mean) @ path
            errors.append([disagreement_error(y[test], P[:, k], codes[test])
                           for k in range(P.shape[1])])
        width = min(len(e) for e in errors)
        return np.mean([e[:width] for e in errors], axis=0)

    @numerical_guard("predict")
    def predict(self, X, n_components=None):
        """Scores ``k̂(X, X_fit_) coef`` of the p-component model (default ``n_components_``)."""
        check_is_fitted(self)
        p = self.n_components_ if n_components is None else n_components
        return self.predict_path(X, [p])[0]

    @numerical_guard("predict_path")
    def predict_path(self, X, n_components=None):
        """Scores of the models with each number of components in ``n_components`` (default
        every p = 1..``max_components_``), shape (len(n_components), t): the path axis first,
        as ``predict_path(X, alphas)`` of the λ learners. O(t n p_max), one kernel."""
        X = self._validate_predict(X)
        grid = np.arange(1, self.max_components_ + 1) if n_components is None \
            else np.atleast_1d(np.asarray(n_components))
        if grid.ndim != 1 or grid.size == 0 or not np.issubdtype(grid.dtype, np.integer) \
                or grid.min() < 1 or grid.max() > self.max_components_:
            raise InvalidParameterError(
                f"n_components must be in 1..{self.max_components_}, got {n_components!r}")
        scores = self._kernel_to_fit(X, self.X_fit_, self._col_mean_) @ self.coef_path_
        return scores[:, grid - 1].T
