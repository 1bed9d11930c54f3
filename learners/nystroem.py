"""Decomposed Nyström feature map and exact removal of held-out basis vectors.

Paper III (Airola, Pahikkala, Salakoski 2011, Neural Processing Letters 33:17-30), Sect. 2-3;
thesis Sect. 2.5 and 5.6.

With basis vectors ``R`` (a subset of the training rows) and the Cholesky factor
``C C^T = K_RR``, the map

    Phi(X) = K_XR (C^T)^-1                                       (Paper III, Sect. 2.1)

is an explicit r-dimensional feature space whose linear kernel is the Nyström approximation
``K~ = K_MR K_RR^-1 K_RM``. Any linear learner trained on ``Phi`` with a quadratic
regularizer solves the reduced-set (subset-of-regressors) problem; its weight vector ``w``
maps back to the reduced-set dual coefficients by ``b = (C^T)^-1 w`` (Paper III, Sect. 2.2),
so that ``f(x) = k(x, X_R) b``.

Cross-validation must drop the basis vectors that fall in the hold-out part (Paper III,
Sect. 3 and Fig. 1). :meth:`NystroemMap.fold_maps` builds the map of basis ``L = R \\ H``
(``H`` = held-out basis vectors) from ``Phi`` in ``O(m |H| r)`` per fold (Theorem 1), hence
O(m r^2) for all folds of an n-fold CV (Corollary 2), instead of O(m r^2) per fold::

    Z  = K_ML (C_LL^T)^-1 = Phi_:L + Phi_:H A^T,    A = C_LL^-1 C_LH     (|L| x |H|)
    K_LL = C_LL (I + A A^T) C_LL^T
    Phi_L = Z (I + A A^T)^(-1/2),   (I + A A^T)^(-1/2) = I + U diag((1+s^2)^(-1/2) - 1) U^T

with ``A = U diag(s) W^T`` a thin SVD (``O(|L| |H|^2)``). ``Phi_L Phi_L^T`` equals the Nyström
matrix of basis ``L`` exactly; ``Phi_L`` itself equals a from-scratch map up to an
orthogonal rotation of its columns, which no quadratically regularized learner can see.

Jitter policy: ``K_RR`` is often numerically singular (Gaussian kernel with a small
``gamma``, a linear kernel with more basis vectors than features, duplicate rows). The map
uses ``K_RR + eps I``. ``jitter="auto"`` starts from ``eps = 1e-10 * mean(diag K_RR)`` and
multiplies it by 10 until the Cholesky factorization succeeds (at most up to
``1e-2 * mean(diag K_RR)``, after which an error is raised); a number is used as the absolute
``eps`` as given (0 allowed). The value used is stored in ``jitter_``. Every fold map uses
the same ``eps`` (the ``L x L`` block of ``K_RR + eps I`` is ``K_LL + eps I``), so removal is
exactly equal to refitting with ``basis_indices=L, jitter=jitter_``.
"""

import numpy as np
import scipy.linalg as sla
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError, InvalidParameterError
from kernelrank.memory import release_freed_memory
from learners._numerics import numerical_guard
from learners._solvers import dense
from learners._validation import check_index_sets, validate_data
from learners.base import (
    KERNEL_CONSTRAINTS,
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    validate_hyperparameters,
)
from learners.kernels import kernel_matrix, resolve_kernel

__all__ = ["NystroemMap", "NystroemFold", "NystroemLearnerParams", "choose_basis",
           "rp_cholesky_pivots", "jittered_cholesky"]


def choose_basis(n_samples, n_basis, basis_indices, random_state):
    """Basis vector indices: the given ones (validated, order kept) or a uniform sample.

    Uniform sampling without replacement follows Paper III Sect. 2.1 (Rifkin et al. 2003,
    Kumar et al. 2009). The sample is sorted so that the Cholesky factor is reproducible.
    """
    if basis_indices is not None:
        idx = np.asarray(basis_indices)
        if idx.ndim != 1 or idx.size == 0 or not np.issubdtype(idx.dtype, np.integer):
            raise InvalidParameterError(
                "basis_indices must be a non-empty 1-D array of integer row indices")
        if idx.min() < 0 or idx.max() >= n_samples:
            raise InvalidParameterError(
                f"basis_indices must lie in [0, {n_samples}); got min {idx.min()}, max {idx.max()}")
        if np.unique(idx).size != idx.size:
            raise InvalidParameterError("basis_indices contains duplicates")
        return idx.astype(np.intp)
    if n_basis > n_samples:
        raise InvalidParameterError(
            f"n_basis={n_basis} exceeds the number of training examples "
            f"(n_samples = {n_samples})")
    rs = check_random_state(random_state)
    return np.sort(rs.choice(n_samples, size=n_basis, replace=False)).astype(np.intp)


def rp_cholesky_pivots(columns, diag, n_basis, random_state=None, block=100):
    """Basis rows by block randomly pivoted Cholesky on a PSD matrix ``K`` (m x m).

    Chen, Epperly, Tropp & Webber ("Randomly pivoted Cholesky: practical approximation of a
    kernel matrix with few entry evaluations", arXiv:2207.06503, 2022), in blocks as in
    Epperly, Tropp & Webber (arXiv:2410.03969, 2024): draw ``block`` pivots with probability
    proportional to the diagonal of the current residual ``K - F F^T``, add their residual
    columns to the partial Cholesky factor ``F`` and repeat until ``n_basis`` pivots are
    chosen. Like the greedy (largest residual) pivoting of Smola & Schölkopf (2000, sparse
    greedy matrix approximation) and Fine & Scheinberg (2001), it adapts to what the basis
    so far misses;
    the random choice comes with near-optimal trace-error guarantees and does not get stuck
    on outliers (Chen et al.). Uniform sampling (Williams & Seeger 2001;
    compared with adaptive schemes by Kumar, Mohri & Talwalkar 2012, JMLR 13:981-1006)
    ignores the residual.

    Parameters
    ----------
    columns : callable ``S -> K[:, S]`` (dense (m, ``|S|``)); each call evaluates m ``|S|`` entries
    diag : ndarray (m,) — ``diag(K)``
    n_basis : int (capped at the number of rows with a positive diagonal)
    random_state : seed of the draws
    block : pivots per draw (one call of ``columns`` per block)

    Returns
    -------
    ndarray of int, sorted — the pivots. Cost: ``n_basis`` columns (m n_basis entries) plus
    O(m n_basis^2) for the factor; memory O(m n_basis).
    """
    rs = check_random_state(random_state)
    diag = np.maximum(np.asarray(diag, dtype=float), 0.0)
    m = diag.size
    r = int(min(n_basis, np.count_nonzero(diag > 0)))
    if r < 1:
        raise InvalidInputError("randomly pivoted Cholesky: the matrix has no positive diagonal")
    F = np.zeros((m, r))
    res = diag.copy()
    chosen = np.zeros(m, dtype=bool)
    pivots, k = [], 0
    tol = 1e-12 * diag.max()
    while k < r:
        p = np.where(chosen | (res <= tol), 0.0, res)
        if not p.sum() > 0:
            break                                       # residual exhausted: rank < n_basis
        n_left = np.count_nonzero(p)
        S = np.unique(rs.choice(m, size=min(int(block), r - k, n_left), replace=True,
                                p=p / p.sum()))
        G = np.asarray(columns(S), dtype=float) - F[:, :k] @ F[S, :k].T     # residual columns
        # Cholesky of the block with its own pivoting: skip pivots the block makes dependent
        keep, Lb = [], np.zeros((S.size, S.size))
        Gs = G[S].copy()
        for j in range(S.size):
            d = Gs[j, j] - Lb[j, :len(keep)] @ Lb[j, :len(keep)]
            if d <= tol:
                continue
            col = (Gs[:, j] - Lb[:, :len(keep)] @ Lb[j, :len(keep)]) / np.sqrt(d)
            Lb[:, len(keep)] = col
            keep.append(j)
        if not keep:
            chosen[S] = True
            continue
        Lk = Lb[np.ix_(keep, range(len(keep)))]
        Fb = sla.solve_triangular(Lk, G[:, keep].T, lower=True, check_finite=False).T
        F[:, k:k + len(keep)] = Fb
        k += len(keep)
        chosen[S] = True
        pivots.extend(S[keep].tolist())
        res = np.maximum(res - (Fb * Fb).sum(axis=1), 0.0)
    del F, G
    release_freed_memory()
    return np.sort(np.asarray(pivots, dtype=np.intp))


def jittered_cholesky(K_RR, jitter):
    """Lower Cholesky factor of ``K_RR + eps I`` and ``eps`` under the module's jitter policy."""
    r = K_RR.shape[0]
    scale = float(np.mean(np.diag(K_RR)))
    if jitter == "auto":
        if not scale > 0:
            raise InvalidInputError("the basis kernel matrix has a non-positive mean diagonal; "
                                    "the kernel is not positive definite on the basis")
        candidates = [scale * 10.0 ** e for e in range(-10, -1)]
    else:
        candidates = [float(jitter)]
    for eps in candidates:
        try:
            C = np.linalg.cholesky(K_RR + eps * np.eye(r))
        except np.linalg.LinAlgError:
            continue
        if np.all(np.isfinite(C)) and np.all(np.diag(C) > 0):
            return C, eps
    raise InvalidInputError(
        f"the {r} x {r} basis kernel matrix is not positive definite even with jitter "
        f"{candidates[-1]:.3g}; use fewer basis vectors, another kernel, or a larger jitter")


class NystroemFold:
    """The Nyström map of one cross-validation fold, basis vectors in the hold-out removed.

    Attributes
    ----------
    test_index, train_index : ndarray of int
        Rows (of the training set the map was built on) held out / kept.
    basis_indices : ndarray of int
        Remaining basis vectors ``L`` (training-row indices), in the original order.
    removed : ndarray of int
        Removed basis vectors ``H`` (training-row indices).
    map : ndarray, shape (m, ``|L|``)
        ``Phi_L`` for every training row; ``map[train_index]`` trains, ``map[test_index]``
        predicts.
    """

    def __init__(self, test_index, train_index, basis_indices, removed, map_, C_LL, U, g):
        self.test_index = test_index
        self.train_index = train_index
        self.basis_indices = basis_indices
        self.removed = removed
        self.map = map_
        self._C_LL = C_LL
        self._U = U
        self._g = g

    def coef_to_dual(self, w):
        """Reduced-set coefficients on ``basis_indices`` from a weight vector on ``map``.

        ``map = K_ML C_LL^-T T`` with ``T = I + U diag(g) U^T``, so ``b = C_LL^-T (T w)``.
        Cost ``O(|L|^2)`` per output.
        """
        w = np.asarray(w, dtype=float)
        w2 = w.reshape(w.shape[0], -1)
        Tw = w2 + self._U @ (self._g[:, None] * (self._U.T @ w2))
        return sla.solve_triangular(self._C_LL.T, Tw, lower=False).reshape(w.shape)


class NystroemMap(TransformerMixin, BaseEstimator):
    """Decomposed Nyström feature map ``Phi(X) = K_XR (C^T)^-1`` (Paper III, Sect. 2.1).

    Parameters
    ----------
    kernel : str or callable, default="gaussian"
        Any kernel accepted by :func:`learners.kernels.resolve_kernel`
        (``"precomputed"``: ``X`` in ``fit`` is the m x m training kernel matrix, in
        ``transform`` the rows against all m training examples).
    gamma, degree, coef0, kernel_params :
        Kernel parameters, validated by :func:`~learners.kernels.resolve_kernel`.
    n_basis : int, default=100
        Number of basis vectors drawn uniformly without replacement.
    basis_indices : array of int, optional
        Explicit basis vectors (rows of the training set); overrides ``n_basis``.
    random_state : int, RandomState or None
        Seed of the basis sample.
    jitter : "auto" or float >= 0, default="auto"
        Diagonal added to ``K_RR`` (see the module docstring for the policy).

    Attributes
    ----------
    basis_indices_ : ndarray (r,)
    basis_X_ : rows of the training data used as basis (None for a precomputed kernel)
    cholesky_ : ndarray (r, r), lower triangular ``C`` with ``C C^T = K_RR + jitter_ I``
    jitter_ : float
    n_samples_fit_ : int

    Notes
    -----
    ``fit`` costs O(r^3) plus r^2 kernel evaluations; ``transform`` of m rows costs
    O(m r^2) plus m r kernel evaluations; ``coef_to_dual`` O(r^2); ``fold_maps`` ``O(m r |H|)``
    per fold.
    """

    _parameter_constraints = {
        **KERNEL_CONSTRAINTS,
        "n_basis": POSITIVE_INT,
        "basis_indices": ["array-like", None],
        "random_state": ["random_state"],
        "jitter": [StrOptions({"auto"}), *NON_NEGATIVE],
    }

    def __init__(self, kernel="gaussian", *, gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, n_basis=100, basis_indices=None, random_state=None,
                 jitter="auto"):
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.n_basis = n_basis
        self.basis_indices = basis_indices
        self.random_state = random_state
        self.jitter = jitter

    def _kernel_spec(self):
        return resolve_kernel(self.kernel, gamma=self.gamma, degree=self.degree,
                              coef0=self.coef0, kernel_params=self.kernel_params)

    @numerical_guard("fit")
    def fit(self, X, y=None):
        """Choose the basis vectors and factor ``K_RR + eps I = C C^T``. O(r^3)."""
        validate_hyperparameters(self)
        name, params = self._kernel_spec()
        X = validate_data(self, X, precomputed=name == "precomputed")
        m = X.shape[0]
        R = choose_basis(m, self.n_basis, self.basis_indices, self.random_state)
        if name == "precomputed":
            K_RR = dense(X[R][:, R])
            self.basis_X_ = None
        else:
            self.basis_X_ = X[R]
            K_RR = kernel_matrix(self.basis_X_, self.basis_X_, name, **params)
        K_RR = 0.5 * (K_RR + K_RR.T)
        self.cholesky_, self.jitter_ = jittered_cholesky(K_RR, self.jitter)
        self.basis_indices_ = R
        self.n_samples_fit_ = m
        self._spec = (name, params)
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = True
        return tags

    def basis_kernel(self, X):
        """``K_XR``: kernel rows of ``X`` against the basis vectors. ``O(|X| r)`` kernel evaluations."""
        check_is_fitted(self, "cholesky_")
        name, params = self._spec
        X = validate_data(self, X, reset=False)        # precomputed: one column per training row
        if name == "precomputed":
            return dense(X[:, self.basis_indices_])
        return kernel_matrix(X, self.basis_X_, name, **params)

    @numerical_guard("transform")
    def transform(self, X, *, block_rows=None):
        """``Phi(X) = K_XR (C^T)^-1``, shape (n, r). O(n r^2).

        The kernel rows against the basis are computed ``block_rows`` rows at a time and
        mapped at once into the output (default: blocks of about 32 MB of ``K_XR``), so the
        peak memory is one (n, r) result plus one block — never two n x r matrices, and
        never a kernel against all training rows. Equal to the unblocked computation (each
        row's value depends on that row only).
        """
        check_is_fitted(self, "cholesky_")
        X = validate_data(self, X, reset=False)         # an array or CSR: row blocks slice
        n = X.shape[0]
        r = self.cholesky_.shape[0]
        step = int(block_rows) if block_rows else max(1, (32 * 2 ** 20) // (8 * r))
        if n <= step:
            return self.map_from_kernel(self.basis_kernel(X))
        out = np.empty((n, r))
        for i in range(0, n, step):
            out[i:i + step] = self.map_from_kernel(self.basis_kernel(X[i:i + step]))
        release_freed_memory()                  # the blocks' arrays (see that function)
        return out

    def map_from_kernel(self, K_XR):
        """``K_XR (C^T)^-1`` for given basis kernel rows (one triangular solve, O(n r^2))."""
        return sla.solve_triangular(self.cholesky_, np.asarray(K_XR, dtype=float).T,
                                    lower=True, check_finite=False).T

    def coef_to_dual(self, w):
        """Reduced-set dual coefficients ``b = (C^T)^-1 w`` (Paper III, Sect. 2.2). O(r^2)."""
        check_is_fitted(self, "cholesky_")
        w = np.asarray(w, dtype=float)
        if w.shape[0] != self.cholesky_.shape[0]:
            raise InvalidInputError(f"w has {w.shape[0]} rows, the map has "
                                    f"{self.cholesky_.shape[0]} features")
        return sla.solve_triangular(self.cholesky_.T, w, lower=False)

    def fold_maps(self, holdout_sets, X=None, *, Phi=None):
        """Per-fold maps with the held-out basis vectors removed (Paper III, Theorem 1).

        Parameters
        ----------
        holdout_sets : sequence of arrays of int
            Rows of the training set held out in each fold.
        X : training data the map was fitted on (not needed when ``Phi`` is given).
        Phi : ndarray (m, r), optional
            ``self.transform(X)`` if already computed (saves O(m r^2)).

        Yields
        ------
        NystroemFold
            One per hold-out set, lazily (each map is ``m x |L|``). Cost ``O(m r |H|)`` per fold,
            O(m r^2) for a whole n-fold CV (Corollary 2).
        """
        check_is_fitted(self, "cholesky_")
        if Phi is None:
            if X is None:
                raise InvalidInputError("fold_maps needs the training data X or its map Phi")
            Phi = self.transform(X)
        Phi = np.asarray(Phi, dtype=float)
        m, r = self.n_samples_fit_, self.cholesky_.shape[0]
        if Phi.shape != (m, r):
            raise InvalidInputError(f"Phi must have shape {(m, r)} (the training map), got {Phi.shape}")
        sets = [np.sort(U) for U in check_index_sets(holdout_sets, m, name="holdout_sets")]
        for U in sets:
            yield self._fold(Phi, U)

    def _fold(self, Phi, U):
        m = Phi.shape[0]
        R = self.basis_indices_
        held = np.isin(R, U)
        if held.all():
            raise InvalidInputError(
                f"hold-out set of size {U.size} contains every basis vector; no model is left")
        posL, posH = np.flatnonzero(~held), np.flatnonzero(held)
        train = np.setdiff1d(np.arange(m), U, assume_unique=True)
        C_LL, U_svd, g, Z = removal_factors(self.cholesky_, posL, posH, Phi)
        map_ = Z + (Z @ U_svd) * g @ U_svd.T if posH.size else Z
        return NystroemFold(U, train, R[posL], R[posH], map_, C_LL, U_svd, g)


def removal_factors(C, posL, posH, Phi=None):
    """Factors of Theorem 1 for removing basis positions ``posH`` from the Cholesky factor ``C``.

    Returns ``C_LL``, ``U``, ``g`` with ``(I + A A^T)^(-1/2) = I + U diag(g) U^T``
    (``A = C_LL^-1 C_LH``, ``A = U diag(s) W^T``, ``g = (1+s^2)^(-1/2) - 1``) and, when
    ``Phi`` is given, ``Z = Phi_:L + Phi_:H A^T``. ``O(|L|^2 |H| + m |L| |H|)``.
    """
    C_LL = C[np.ix_(posL, posL)]
    if posH.size == 0:
        U = np.zeros((posL.size, 0))
        g = np.zeros(0)
        return C_LL, U, g, (None if Phi is None else Phi[:, posL])
    A = sla.solve_triangular(C_LL, C[np.ix_(posL, posH)], lower=True, check_finite=False)
    U, s, _ = np.linalg.svd(A, full_matrices=False)
    root = np.sqrt(1.0 + s * s)
    g = -(s * s) / (root * (1.0 + root))  # (1+s^2)^(-1/2) - 1 without cancellation
    Z = None
    if Phi is not None:
        Z = Phi[:, posL] + Phi[:, posH] @ A.T
    return C_LL, U, g, Z


class NystroemLearnerParams:
    """The hyper-parameters of a learner fitted on a Nyström map: λ (``alpha``) and the
    map's own (:class:`NystroemMap`), stored unchanged by ``__init__`` and declared once in
    ``_parameter_constraints`` (validated at ``fit``).

    A base of the reduced-set learners (:mod:`learners.reduced_set`) and of
    :class:`learners.nystroem_rankrls.NystroemQueryRankRLS`; each calls this ``__init__``
    from its own, which keeps its full signature (scikit-learn reads the parameters from
    it) and stores its further parameters itself.
    """

    _parameter_constraints = {"alpha": POSITIVE, **NystroemMap._parameter_constraints}

    def __init__(self, alpha=1.0, *, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, n_basis=100, basis_indices=None, random_state=None,
                 jitter="auto"):
        self.alpha = alpha
        # the map's parameters, stored exactly as the map itself stores them
        NystroemMap.__init__(self, kernel, gamma=gamma, degree=degree, coef0=coef0,
                             kernel_params=kernel_params, n_basis=n_basis,
                             basis_indices=basis_indices, random_state=random_state,
                             jitter=jitter)
