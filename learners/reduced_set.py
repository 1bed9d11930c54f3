"""Reduced-set (subset-of-regressors) RLS and RankRLS with exact fast cross-validation.

One concept over 600 lines: the reduced-set family — one fit / predict / hold-out engine
(``_ReducedSetBase``) and its three loss matrices ``L`` (RLS, global RankRLS, query
RankRLS), each subclass adding only its ``L`` (the system and its hold-out downdate) and the
shortcuts that ``L`` allows (leave-one-out, leave-query-out). The pieces that are not the
family live elsewhere: the tridiagonal λ-path solver in :mod:`learners._solvers`,
centring within queries and the query learners' basis in :mod:`learners.query_centring`,
and the refitted Nyström learner in :mod:`learners.nystroem_rankrls`.

Thesis Sect. 2.5; Paper I eq. (41) (sparse RankRLS); Paper III Sect. 2-3 (Nyström map,
removal of held-out basis vectors). The model is ``f(x) = sum_{j in R} b_j k(x, x_j)`` over
basis vectors ``R`` (``|R| = r << m``), fitted by minimizing

    (Y - K_MR b)^T L (Y - K_MR b) + lambda b^T K_RR b,

with ``L = I`` (RLS), ``L = m I - 1 1^T`` (global RankRLS, all pairs, Paper I eq. 21/25) or
``L = blockdiag(n_q I - 1 1^T)`` (query-structured RankRLS, pairs inside each query). With
the Nyström map ``Phi = K_MR (C^T)^-1`` (:class:`learners.nystroem.NystroemMap`) this is
ridge regression in r dimensions on ``L^(1/2) Phi``: ``w = (Phi~^T Phi~ + lambda I)^-1
Phi~^T Y~`` and ``b = (C^T)^-1 w``. Training costs O(m r^2 + r^3) (m r kernel evaluations);
a regularization path reuses one r x r eigendecomposition (O(r^2) per lambda and output).

Cross-validation removes the basis vectors that lie in the hold-out part (``remove_basis=True``,
Paper III Theorem 1): the fold model is exactly the one retrained on the training part with
the remaining basis vectors ``L = R \\ U``. In the Nyström space that model is ridge
regression on the projected features ``Phi Pi``, where ``Pi = I - N N^T`` and ``N`` is an
orthonormal basis of the null space of ``C_L,:`` (spanned by the columns ``H`` of
``C^-1``), because ``Phi Pi Phi^T = K_ML K_LL^-1 K_LM``. Two exact routes, chosen per fold
by operation count:

* direct (large folds, e.g. 10-fold CV): downdate ``A = Phi~^T Phi~`` by the hold-out rows,
  project with ``N`` and tridiagonalize (:func:`~learners._solvers.ridge_path_tridiagonal`)
  — ``O(|U| r^2 + r^3)`` per fold, every lambda O(r^2 t);
* low-rank (small folds, leave-one-out, leave-query-out): Woodbury on the cached
  eigendecomposition of ``A`` with the constraint ``N^T w = 0`` — ``O(|U| r^2 + r^2 |H|)`` per
  fold plus ``O(r (|U|+|H|)^2 + |U|^3)`` per lambda.

``remove_basis=False`` keeps held-out basis vectors in the model (the "leaky" estimate of
earlier work; Paper III Fig. 1 shows its pessimism at small lambda).
"""

import numpy as np
import scipy.linalg as sla
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError
from kernelrank.memory import release_freed_memory
from learners._numerics import numerical_guard
from learners._solvers import ridge_path_tridiagonal, solve_shifted, sym_eig
from learners._validation import (
    as_2d_targets,
    check_alphas,
    check_groups,
    check_index_sets,
    check_leave_pair_out,
    validate_data,
    warn_without_preference,
)
from learners.base import HoldoutMixin, RankerMixin, validate_hyperparameters
from learners.kernel_learner import KernelLearnerMixin, shape_output
from learners.nystroem import NystroemLearnerParams, NystroemMap
from learners.nystroem_rankrls import NystroemQueryRankRLS  # noqa: F401 (re-exported)
from learners.query_centring import (
    BASIS_SELECTION,
    QUERY_BASIS,
    centre_scale,
    query_basis_map,
)

__all__ = ["ReducedSetRLS", "ReducedSetGlobalRankRLS", "ReducedSetRankRLS",
           "ReducedSetQueryRankRLS"]


def _row_blocks(n, width, block_bytes=32 * 2 ** 20):
    """Row ranges ``(start, stop)`` of about ``block_bytes`` of float64 ``width``-column
    rows each (at least one row)."""
    step = max(1, int(block_bytes) // (8 * max(1, int(width))))
    return [(i, min(i + step, n)) for i in range(0, n, step)]


def _rotate_rows(P, V):
    """``P @ V`` written over ``P`` (C-ordered, m x r; V r x r) one row block at a time:
    each block's product is that of the same rows of the full product (a row of ``P V``
    depends on that row only; a test compares with the unblocked product). Peak: one block
    instead of a second m x r array. Returns ``P``."""
    for i, j in _row_blocks(P.shape[0], P.shape[1]):
        P[i:j] = P[i:j] @ V
    return P


class _ReducedSetBase(HoldoutMixin, KernelLearnerMixin, NystroemLearnerParams, BaseEstimator):
    """Shared fit / predict / hold-out machinery; subclasses define the loss matrix ``L``."""

    _parameter_constraints = {
        **NystroemLearnerParams._parameter_constraints,
        "remove_basis": ["boolean"],
    }

    def __init__(self, alpha=1.0, *, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, n_basis=100, basis_indices=None, random_state=None,
                 jitter="auto", remove_basis=True):
        super().__init__(alpha, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         kernel_params=kernel_params, n_basis=n_basis,
                         basis_indices=basis_indices, random_state=random_state,
                         jitter=jitter)
        self.remove_basis = remove_basis

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        return tags

    # ------------------------------------------------------------------ fitting
    def _fit(self, X, y, groups):
        validate_hyperparameters(self)
        alpha = float(self.alpha)
        X, y = validate_data(self, X, y, precomputed=self.kernel == "precomputed")
        Y, self._y_1d = as_2d_targets(y)
        if isinstance(self, RankerMixin):
            warn_without_preference(type(self).__name__, Y, groups)
        nm = self._make_map(X, groups)
        Phi = nm.transform(X)
        self.nystroem_ = nm
        self.basis_indices_ = nm.basis_indices_
        self._cache = {"Phi": Phi, "Y": Y}
        self._setup(Phi, Y, groups)          # sets A, c (base of the CV engine)
        A_fit, c_fit = self._fit_system()
        w = solve_shifted(A_fit, c_fit, alpha)
        self.coef_map_ = w if not self._y_1d else w[:, 0]
        self.dual_coef_ = self._out(nm.coef_to_dual(w))
        release_freed_memory()              # the temporaries of the map and the system
        return self

    def _make_map(self, X, groups):
        """The fitted Nyström map (basis rows ``basis_indices`` or ``n_basis`` uniform)."""
        return NystroemMap(kernel=self.kernel, gamma=self.gamma, degree=self.degree,
                           coef0=self.coef0, kernel_params=self.kernel_params,
                           n_basis=self.n_basis, basis_indices=self.basis_indices,
                           random_state=self.random_state, jitter=self.jitter).fit(X)

    def _setup(self, Phi, Y, groups):
        """RLS and query RankRLS: ridge on the transformed rows, CV base = (A, c)."""
        Phit, Yt = self._transform_rows(Phi, Y, groups)
        self._cache.update(Phit=Phit, Yt=Yt, beta_scale=False,
                           A=Phit.T @ Phit, c=Phit.T @ Yt)

    def _fit_system(self):
        return self._cache["A"], self._cache["c"]

    def _transform_rows(self, Phi, Y, groups):
        return Phi, Y

    def _out(self, Z):
        """Drop the output axis when y was 1-D."""
        return Z[..., 0] if self._y_1d else Z

    @numerical_guard("predict")
    def predict(self, X):
        """``f(X) = K_XR b``. ``O(|X| r)`` kernel evaluations + ``O(|X| r t)``; ``K_XR`` is formed
        in row blocks of about 32 MB (:meth:`_basis_kernel_blocks`), never for all rows."""
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False)
        B = self.dual_coef_
        out = np.empty((X.shape[0],) + B.shape[1:])
        for (i, j), K in self._basis_kernel_blocks(X):
            out[i:j] = K @ B
        return out

    def _basis_kernel_blocks(self, X):
        """``((start, stop), K_XR[start:stop])`` over row blocks of ``X`` (about 32 MB of
        kernel rows each): a row of ``K_XR`` depends on that row of ``X`` only, so the
        blocks are the rows of the whole matrix (a test compares the two)."""
        r = self.nystroem_.cholesky_.shape[0]
        for i, j in _row_blocks(X.shape[0], r):
            yield (i, j), self.nystroem_.basis_kernel(X[i:j])

    @numerical_guard("regularization_path", data="fitted")
    def regularization_path(self, alphas):
        """Reduced-set coefficients ``b`` for every lambda, shape (n_alphas, r[, t]).

        One r x r eigendecomposition of the fitted system (cached), then O(r^2 t) per lambda.
        """
        check_is_fitted(self, "dual_coef_")
        alphas, _ = check_alphas(alphas, self.alpha)
        _, c = self._fit_system()
        s, V = self._fit_eig()
        Vc = V.T @ c
        W = np.stack([V @ (Vc / (s + a)[:, None]) for a in alphas])       # (n_alphas, r, t)
        r, t = W.shape[1], W.shape[2]
        B = self.nystroem_.coef_to_dual(W.transpose(1, 0, 2).reshape(r, -1))
        return shape_output(B.reshape(r, len(alphas), t).transpose(1, 0, 2), False, self._y_1d)

    @numerical_guard("predict_path")
    def predict_path(self, X, alphas):
        """Predictions for every lambda, shape (n_alphas, m'[, t]), one decomposition."""
        check_is_fitted(self, "dual_coef_")
        X = validate_data(self, X, reset=False)
        B = self.regularization_path(alphas)
        out = np.empty((B.shape[0], X.shape[0]) + B.shape[2:])
        for (i, j), K in self._basis_kernel_blocks(X):
            out[:, i:j] = (np.einsum("ir,ar->ai", K, B) if self._y_1d
                           else np.einsum("ir,art->ait", K, B))
        return out

    def _fit_eig(self):
        if "fit_eig" not in self._cache:
            A, _ = self._fit_system()
            if A is self._cache["A"]:              # RLS, query RankRLS: the CV base itself
                s, V, _ = self._base_eig()
            else:
                s, V = sym_eig(A)
                s = np.maximum(s, 0.0)
            self._cache["fit_eig"] = (s, V)
        return self._cache["fit_eig"]

    # ------------------------------------------------------------- hold-out engine
    def _null_basis(self, posH):
        """Orthonormal basis of the directions removed with basis positions ``posH``. ``O(r^2|H|)``."""
        C = self.nystroem_.cholesky_
        r = C.shape[0]
        if posH.size == 0:
            return np.zeros((r, 0))
        E = np.zeros((r, posH.size))
        E[posH, np.arange(posH.size)] = 1.0
        G = sla.solve_triangular(C, E, lower=True, check_finite=False)   # columns H of C^-1
        Q, _ = np.linalg.qr(G)
        return Q

    def _removed_positions(self, U):
        if not self.remove_basis:
            return np.zeros(0, dtype=np.intp)
        posH = np.flatnonzero(np.isin(self.basis_indices_, U))
        if posH.size == self.basis_indices_.size:
            raise InvalidInputError(
                f"a hold-out set of {U.size} rows contains every basis vector; no model would "
                "be left (use more basis vectors or smaller hold-out sets)")
        return posH

    def _downdate(self, U, rows):
        """Fold system ``beta A - B^T S B``, ``beta c - B^T S Y_B`` with signs ``S = diag(sg)``.

        ``rows`` holds the row sources (``Phi``, ``Phit``, ``sphi``) in the original
        coordinates or in the eigenbasis of ``A`` (:meth:`_rotated`); ``B`` is linear in
        them. RLS: the hold-out rows are removed (``beta = 1``, ``B = Phi_U``, all signs +1).
        Returns ``(beta, B, Y_B, sg, b_is_u)``; ``b_is_u`` says ``B`` equals the rows ``U``.
        """
        cc = self._cache
        return (1.0, rows["Phit"][U], cc["Yt"][U], np.ones(U.size),
                cc["Phit"] is cc["Phi"])

    def _holdout_predictions(self, U, alphas):
        """Predictions for rows ``U`` from the model trained without them, (n_alphas, ``|U|``, t)."""
        cache = self._rows_cache()
        rows = cache["rotated"] if cache.get("phi_rotated") else cache
        r = cache["Phi"].shape[1]
        posH = self._removed_positions(U)
        beta, B, YB, sg, _ = self._downdate(U, rows)
        k, h = B.shape[0], posH.size
        p = U.size + k + h
        lowrank_cost = len(alphas) * r * p ** 2 + k ** 3
        if lowrank_cost < 3 * r ** 3:
            return self._holdout_lowrank(U, posH, alphas)
        N = self._null_basis(posH)
        PU = rows["Phi"][U]
        if rows is not cache:               # rows in the eigenbasis: back to A's coordinates
            Vt = self._base_eig()[1].T
            B, PU = B @ Vt, PU @ Vt
        return self._holdout_direct(PU, beta, B, YB, sg, N, alphas)

    def _holdout_direct(self, PU, beta, B, YB, sg, N, alphas):
        SB = sg[:, None] * B
        A = beta * self._cache["A"] - B.T @ SB
        c = beta * self._cache["c"] - SB.T @ YB
        if N.shape[1]:
            AN = A @ N
            NAN = N.T @ AN
            A = A - AN @ N.T - N @ AN.T + N @ NAN @ N.T
            c = c - N @ (N.T @ c)
            PU = PU - (PU @ N) @ N.T
        W = ridge_path_tridiagonal(0.5 * (A + A.T), c, alphas)
        return np.stack([PU @ Wa for Wa in W])

    def _rows_cache(self):
        """The hold-out engine's cache; a typed error once :meth:`release_training_rows`
        dropped its rows."""
        check_is_fitted(self, "dual_coef_")
        if "Phi" not in self._cache:
            raise InvalidInputError(
                f"{type(self).__name__}: the training rows of the hold-out engine were "
                "released (release_training_rows); refit to compute hold-out predictions")
        return self._cache

    def release_training_rows(self):
        """Drop the cached m x r training rows (the Nyström map, its rotation and the
        transformed rows) that only the hold-out methods read; ``predict``,
        ``predict_path`` and ``regularization_path`` keep working (they need the r x r
        system and its eigendecomposition, which are kept). Frees O(m r) memory, e.g. before
        the test rows are scored in an outer cross-validation. Returns ``self``."""
        check_is_fitted(self, "dual_coef_")
        self._fit_system()                          # r x r: kept (global RankRLS derives it)
        for key in ("Phi", "Phit", "Y", "Yt", "rotated", "loo", "phi_rotated"):
            self._cache.pop(key, None)
        release_freed_memory()
        return self

    def _base_eig(self):
        if "base_eig" not in self._cache:
            s, V = sym_eig(self._cache["A"])
            self._cache["base_eig"] = (np.maximum(s, 0.0), V, V.T @ self._cache["c"])
        return self._cache["base_eig"]

    def _rotated(self):
        """Row sources in the eigenbasis of ``A = V diag(s) V^T`` and the removable
        directions: ``Phi V``, ``Phit V``, ``sphi V`` and ``Nt = V^T C^-1`` with unit
        columns (column j: the direction removed with basis vector j). O(m r^2 + r^3), once.

        ``Phi V`` overwrites the cached ``Phi`` in row blocks (:func:`_rotate_rows`): the
        m x r map is held once, not twice; from then on ``_cache["Phi"]`` holds the rotated
        rows (``_cache["phi_rotated"]``) and the direct hold-out route maps them back."""
        cc = self._rows_cache()
        if "rotated" not in cc:
            _, V, _ = self._base_eig()
            shared = cc.get("Phit") is cc["Phi"]
            rows = {"Phi": _rotate_rows(cc["Phi"], V)}
            cc["phi_rotated"] = True
            rows["Phit"] = rows["Phi"] if shared else (
                cc["Phit"] @ V if "Phit" in cc else None)
            if "sphi" in cc:
                rows["sphi"] = cc["sphi"] @ V
            if self.remove_basis:
                C = self.nystroem_.cholesky_
                # V^T C^-1 = (C^-T V)^T: one triangular solve with r right-hand sides
                Nt = sla.solve_triangular(C, V, lower=True, trans="T", check_finite=False).T
                Nt /= np.linalg.norm(Nt, axis=0)
                rows["Nt"] = Nt
            cc["rotated"] = rows
        return cc["rotated"]

    def _holdout_lowrank(self, U, posH, alphas, max_bytes=64 * 2 ** 20):
        """Woodbury in the eigenbasis of ``A``, batched over lambda.

        With ``D_a = (beta diag(s) + a I)^-1`` and the constraint ``N^T w = 0`` (removed basis
        vectors), every quantity is a block of ``G_a = X^T D_a X`` for
        ``X = [Psi_U^T, B^T, N, beta z]`` corrected by ``N``:
        ``G^ = G - G_{:,N} G_NN^-1 G_{N,:}``; the fold predictions are
        ``G^_{U,z} - G^_{U,B} (S - G^_{B,B})^-1 (Y_B - G^_{B,z})``.
        O(n_alphas r p^2 + n_alphas p^3), p = ``|U|`` + ``|B|`` + ``|H|`` + t; no r x r work per set.
        """
        s, _, z = self._base_eig()
        rows = self._rotated()
        beta, B, YB, sg, b_is_u = self._downdate(U, rows)
        PU = rows["Phi"][U]
        Nt = rows["Nt"][:, posH] if posH.size else np.zeros((s.size, 0))
        if posH.size:
            Nt, _ = np.linalg.qr(Nt)
        u, k, h, t = PU.shape[0], B.shape[0], Nt.shape[1], z.shape[1]
        blocks = [PU.T] + ([] if b_is_u else [B.T]) + [Nt, beta * z]
        X = np.hstack(blocks)                                        # (r, p)
        XT = np.ascontiguousarray(X.T)
        p = X.shape[1]
        iu = np.arange(u)
        ib = iu if b_is_u else np.arange(u, u + k)
        o = u if b_is_u else u + k
        ih, iz = np.arange(o, o + h), np.arange(o + h, o + h + t)
        alphas = np.asarray(alphas, dtype=float)
        D = 1.0 / (beta * s[None, :] + alphas[:, None])                 # (n, r)
        chunk = max(1, int(max_bytes // (8 * p * s.size)))
        G = np.empty((alphas.size, p, p))
        XD = np.empty((min(chunk, alphas.size), p, s.size))
        for i in range(0, alphas.size, chunk):
            Dc = D[i:i + chunk]
            XDc = np.multiply(XT[None, :, :], Dc[:, None, :], out=XD[:Dc.shape[0]])
            G[i:i + chunk] = (XDc.reshape(-1, s.size) @ X).reshape(Dc.shape[0], p, p)
        if h:
            GhA = G[:, ih, :]                                           # (n, h, p)
            G = G - np.swapaxes(GhA, 1, 2) @ np.linalg.solve(G[:, ih][:, :, ih], GhA)
        Hm = G[:, ib][:, :, ib]
        F = G[:, ib][:, :, iz]
        rhs = YB[None, :, :] - F
        corr = np.linalg.solve(np.diag(sg)[None] - Hm, rhs)
        return G[:, iu][:, :, iz] - G[:, iu][:, :, ib] @ corr

    def _predictions_over_sets(self, sets, alphas):
        check_is_fitted(self, "dual_coef_")
        return [self._holdout_predictions(U, alphas) for U in sets]

    def _n_holdout_rows(self):
        """Training rows (the range of :meth:`holdout`'s indices; held-out basis vectors are
        removed, ``remove_basis=True``, so a hold-out equals refitting on the other rows
        with basis ``R \\ indices``)."""
        return self._rows_cache()["Phi"].shape[0]

    @numerical_guard("holdout_sets", data="fitted")
    def holdout_sets(self, sets, alphas=None):
        """:meth:`holdout` for several sets; a list with one array per set."""
        check_is_fitted(self, "dual_coef_")
        m = self._rows_cache()["Phi"].shape[0]
        sets = check_index_sets(sets, m)
        alphas, single = check_alphas(alphas, self.alpha)
        return [shape_output(P, single, self._y_1d)
                for P in self._predictions_over_sets(sets, alphas)]

    @numerical_guard("leave-pair-out", data="fitted")
    def leave_pair_out(self, pairs, alphas=None):
        """For each pair (i, j): predictions for i and j of the model trained without both
        (held-out basis vectors removed). Shape (n, 2[, t]) or (n_alphas, n, 2[, t]).

        Low-rank route per pair, O(r^2) + O(r) per lambda; a Python loop over pairs.
        """
        check_is_fitted(self, "dual_coef_")
        pairs = check_leave_pair_out(pairs, self._rows_cache()["Phi"].shape[0])
        alphas, single = check_alphas(alphas, self.alpha)
        P = np.stack(self._predictions_over_sets([np.asarray(p) for p in pairs], alphas), axis=1)
        return shape_output(P, single, self._y_1d)


class ReducedSetRLS(RegressorMixin, _ReducedSetBase):
    """Reduced-set (subset-of-regressors) regularized least-squares regression.

    Minimizes ``||Y - K_MR b||^2 + alpha b^T K_RR b`` (thesis Sect. 2.5; Paper III eq. 8) via
    the Nyström map. Basis vectors: ``basis_indices``, or ``n_basis`` rows drawn uniformly
    with ``random_state``.

    Parameters
    ----------
    alpha : float, default=1.0
        Regularization parameter lambda.
    kernel, gamma, degree, coef0, kernel_params :
        Kernel (:func:`learners.kernels.resolve_kernel`). The default is ``"gaussian"``
        (``learners.RLS`` defaults to ``"linear"``): a linear kernel supports at most
        n_features linearly independent basis vectors, beyond which ``K_RR`` is singular.
    n_basis, basis_indices, random_state, jitter :
        Basis vectors and jitter policy (:class:`learners.nystroem.NystroemMap`).
    remove_basis : bool, default=True
        Cross-validation removes held-out basis vectors (exact retraining); ``False``
        reproduces the leaky estimate that keeps them.

    Attributes
    ----------
    dual_coef_ : ndarray (r,) or (r, t)
        Coefficients ``b`` of the basis vectors.
    basis_indices_ : ndarray (r,)
    nystroem_ : fitted :class:`~learners.nystroem.NystroemMap`
    coef_map_ : weights ``w`` in the Nyström space (``b = (C^T)^-1 w``).

    Notes
    -----
    ``fit``: O(m r^2 + r^3) + m r kernel evaluations. ``regularization_path``: O(r^3) once, then
    O(r^2 t) per lambda. ``leave_one_out``: O(m r^2 + r^3) once, then O(m r t) per lambda.
    ``holdout_sets`` with n folds: O(m r^2 + n r^3) (+ ``O(r^2 t + |U| r t)`` per lambda and fold).
    """

    @numerical_guard("fit")
    def fit(self, X, y):
        """Fit on ``X`` (or the m x m kernel matrix if ``kernel='precomputed'``) and ``y``."""
        return self._fit(X, y, None)

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Leave-one-out predictions, basis vectors removed when held out.

        Vectorized over examples: in the eigenbasis of ``A`` each left-out row is a rank-one
        downdate, and a left-out basis vector adds one linear constraint. O(m r^2 + r^3)
        once (cached), then O(m r t) per lambda. Shape ``(m[, t])`` or ``(n_alphas, m[, t])``.
        """
        check_is_fitted(self, "dual_coef_")
        alphas, single = check_alphas(alphas, self.alpha)
        cache = self._cache
        s, V, z = self._base_eig()
        R = self.basis_indices_
        if "loo" not in cache:
            rows = self._rotated()
            Psi = rows["Phi"]                            # (m, r) rows in the eigenbasis
            extra = None
            if self.remove_basis:
                Nt = rows["Nt"]                          # column j: direction removed with R[j]
                extra = (Nt, Psi[R] * Nt.T, (Nt * Nt).T)
            cache["loo"] = (Psi, Psi * Psi, extra)
        Psi, Psi2, extra = cache["loo"]
        Y = cache["Y"]
        out = []
        for a in alphas:
            d = 1.0 / (s + a)
            dz = d[:, None] * z
            H = Psi2 @ d                                  # psi_j^T D psi_j
            F = Psi @ dz                                  # fitted values
            if extra is not None:                         # one constraint n_j^T w = 0
                Nt, PN, N2 = extra
                q = N2 @ d                                # n^T D n
                pn = PN @ d                               # psi^T D n
                H[R] -= pn ** 2 / q
                F[R] -= (pn / q)[:, None] * (Nt.T @ dz)
            out.append(Y - (Y - F) / (1.0 - H)[:, None])
        return shape_output(np.stack(out), single, self._y_1d)


class ReducedSetGlobalRankRLS(RankerMixin, _ReducedSetBase):
    """Reduced-set RankRLS over all pairs (object ranking; Paper I eq. 41 with L = mI - 11^T).

    Minimizes ``(Y - K_MR b)^T (m I - 1 1^T) (Y - K_MR b) + alpha b^T K_RR b``, i.e. the
    magnitude-preserving pairwise squared loss over all pairs (Paper I eq. 21, ties
    included). Parameters and attributes as in :class:`ReducedSetRLS`; ``score(X, y,
    qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`). Hold-out
    (:meth:`holdout`, :meth:`holdout_sets`) retrains on the pairs inside the training part,
    removing held-out basis vectors: ``O(|U| r^2 + r^3)`` per set (or the low-rank route for
    small sets).
    """

    @numerical_guard("fit")
    def fit(self, X, y):
        return self._fit(X, y, None)

    def _setup(self, Phi, Y, groups):
        m = Phi.shape[0]
        sphi, sy = Phi.sum(axis=0), Y.sum(axis=0)
        A = Phi.T @ Phi
        c = Phi.T @ Y
        self._cache.update(A=A, c=c, sphi=sphi, sy=sy, m=m)

    def _fit_system(self):
        cc = self._cache
        if "A_fit" not in cc:
            m = cc["m"]
            cc["A_fit"] = m * cc["A"] - np.outer(cc["sphi"], cc["sphi"])
            cc["c_fit"] = m * cc["c"] - np.outer(cc["sphi"], cc["sy"])
        return cc["A_fit"], cc["c_fit"]

    def _downdate(self, U, rows):
        """Training part Ubar: ``|Ubar| A_Ubar - s s^T`` = ``beta A - B^T B`` with
        ``B = [sqrt(beta) Phi_U; s_Ubar^T]``, ``beta = |Ubar|``."""
        cc = self._cache
        Phi, Y = rows["Phi"], cc["Y"]
        beta = float(cc["m"] - U.size)
        s_tr = rows["sphi"] - Phi[U].sum(axis=0)
        y_tr = cc["sy"] - Y[U].sum(axis=0)
        rb = np.sqrt(beta)
        B = np.vstack([rb * Phi[U], s_tr[None, :]])
        YB = np.vstack([rb * Y[U], y_tr[None, :]])
        return beta, B, YB, np.ones(B.shape[0]), False

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Leave-one-out predictions (all pairs touching the row removed, basis vector too).

        Low-rank route per row (a loop over rows): O(m r^2) + O(m r) per lambda.
        Shape ``(m[, t])`` or ``(n_alphas, m[, t])``.
        """
        check_is_fitted(self, "dual_coef_")
        alphas, single = check_alphas(alphas, self.alpha)
        m = self._rows_cache()["Phi"].shape[0]
        if m < 3:
            raise InvalidInputError("leave-one-out for RankRLS needs at least 3 rows")
        P = np.concatenate(self._predictions_over_sets([np.array([j]) for j in range(m)],
                                                       alphas), axis=1)
        return shape_output(P, single, self._y_1d)


ReducedSetRankRLS = ReducedSetGlobalRankRLS


class ReducedSetQueryRankRLS(RankerMixin, _ReducedSetBase):
    """Reduced-set RankRLS for query-structured data (pairs only inside each query).

    ``L = blockdiag(n_q I - 1 1^T)`` (Paper I eq. 25, label ranking). Since
    ``L_q^(1/2) = sqrt(n_q) (I - 1 1^T / n_q)``, this is ridge regression on the rows
    centred within their query and scaled by ``sqrt(n_q)``. Leave-query-out
    (:meth:`leave_query_out`) and any hold-out set (pairs touching it removed; a query split
    by the set keeps its remaining pairs) remove the held-out basis vectors exactly;
    ``O(|T| r^2 + r^2 |H|)`` per set plus ``O(r (|T|+|H|)^2 + |T|^3)`` per lambda on the low-rank
    route (``|T|`` = rows of the touched queries). ``fit(X, y, qids)``. Parameters and
    attributes as in :class:`ReducedSetRLS`; ``score(X, y, qids=None)`` is the concordance
    index (:class:`learners.base.RankerMixin`), plus:

    basis : "rows" (default) | "query_centered"
        Basis vectors: the chosen training rows, or (linear kernel on explicit rows) the
        chosen rows centred within their query, ``z_j = x_j - mean_q(j) x``
        (:func:`learners.query_centring.query_centered_rows`). The RankRLS weight vector lies
        in the span of the centred rows, and a row's query-common part — most of its norm on
        parse data — is invisible to the loss; the centred basis spends no basis vector on it. Hold-out sets
        then remove the basis vectors of every query they touch (a centred vector depends on
        its whole query), which again equals retraining with the remaining basis.
        ``nystroem_.basis_X_`` holds the vectors, ``f(x) = k(x, Z) b``.
    basis_selection : "uniform" (default) | "rpcholesky"
        Uniform sample of ``n_basis`` rows (Williams & Seeger 2001; Paper III Sect. 2.1), or
        block randomly pivoted Cholesky (Chen et al. 2022, arXiv:2207.06503; adaptive sampling as
        compared by Kumar et al. 2012 and the greedy selection of Smola & Schölkopf 2000) on the
        kernel of the candidate basis vectors (for ``query_centered``: the centred kernel).
        The selection reads the rows, never ``y``; hold-out sets keep the selected basis
        minus their removed vectors (as for the uniform sample).
    """

    _parameter_constraints = {
        **_ReducedSetBase._parameter_constraints,
        "basis": [StrOptions(set(QUERY_BASIS))],
        "basis_selection": [StrOptions(set(BASIS_SELECTION))],
    }

    def __init__(self, alpha=1.0, *, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, n_basis=100, basis_indices=None, random_state=None,
                 jitter="auto", remove_basis=True, basis="rows", basis_selection="uniform"):
        super().__init__(alpha, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         kernel_params=kernel_params, n_basis=n_basis,
                         basis_indices=basis_indices, random_state=random_state,
                         jitter=jitter, remove_basis=remove_basis)
        self.basis = basis
        self.basis_selection = basis_selection

    def _make_map(self, X, groups):
        return query_basis_map(self, X, groups, self.n_basis)

    def _removed_positions(self, U):
        if self.basis == "rows" or not self.remove_basis:
            return super()._removed_positions(U)
        codes = self._qcodes
        posH = np.flatnonzero(np.isin(codes[self.basis_indices_], codes[U]))
        if posH.size == self.basis_indices_.size:
            raise InvalidInputError(
                f"a hold-out set of {U.size} rows touches the query of every basis vector; "
                "no model would be left (use more basis vectors or smaller hold-out sets)")
        return posH

    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        """Fit; ``qids`` gives the query of every row (required, never inferred)."""
        validate_hyperparameters(self)
        m = X.shape[0] if hasattr(X, "shape") else len(X)
        codes, labels = check_groups(qids, m, name="qids")
        self._qcodes, self.queries_ = codes, labels
        return self._fit(X, y, codes)

    def _setup(self, Phi, Y, groups):
        """Ridge on the ``L^(1/2)`` rows; unlike the base class the transformed rows are
        not kept (an m x r array, twice with the eigenbasis copy): :meth:`_downdate` recomputes
        them for the whole queries it touches, which gives the same rows."""
        Phit, Yt = self._transform_rows(Phi, Y, groups)
        self._cache.update(Yt=Yt, beta_scale=False, A=Phit.T @ Phit, c=Phit.T @ Yt)

    def _transform_rows(self, Phi, Y, codes):
        """``L^(1/2)`` rows: centred within their query, scaled by sqrt(query size)."""
        _, codes = np.unique(codes, return_inverse=True)
        n_q = np.bincount(codes)
        scale = np.sqrt(n_q)[codes][:, None]
        Phi_mean = np.zeros((n_q.size, Phi.shape[1]))
        np.add.at(Phi_mean, codes, Phi)
        Y_mean = np.zeros((n_q.size, Y.shape[1]))
        np.add.at(Y_mean, codes, Y)
        Phi_mean /= n_q[:, None]
        Y_mean /= n_q[:, None]
        return centre_scale(Phi, Phi_mean, codes, scale), centre_scale(Y, Y_mean, codes, scale)

    def _downdate(self, U, rows):
        """Remove the scaled, centred rows of every query that ``U`` touches (sign +1) and add
        back the rows of those queries that stay in training, centred and scaled with their
        remaining size (sign -1). Whole queries: only removals (Paper I eq. 33 analogue)."""
        cc = self._cache
        codes = self._qcodes
        touched = np.flatnonzero(np.isin(codes, np.unique(codes[U])))
        B_out, Y_out = self._transform_rows(rows["Phi"][touched], cc["Y"][touched],
                                            codes[touched])
        rest = np.setdiff1d(touched, U, assume_unique=True)
        if rest.size == 0:
            return 1.0, B_out, Y_out, np.ones(touched.size), False
        B_in, Y_in = self._transform_rows(rows["Phi"][rest], cc["Y"][rest], codes[rest])
        return (1.0, np.vstack([B_out, B_in]), np.vstack([Y_out, Y_in]),
                np.concatenate([np.ones(touched.size), -np.ones(rest.size)]), False)

    @numerical_guard("leave-query-out", data="fitted")
    def leave_query_out(self, alphas=None):
        """Predictions for every row from the model trained without its query.

        Shape ``(m[, t])`` or ``(n_alphas, m[, t])``, rows in the original order.
        """
        check_is_fitted(self, "dual_coef_")
        alphas, single = check_alphas(alphas, self.alpha)
        sets = [np.flatnonzero(self._qcodes == q) for q in range(self.queries_.size)]
        if len(sets) < 2:
            raise InvalidInputError("leave-query-out needs at least two queries")
        m = self._rows_cache()["Phi"].shape[0]
        t = self._cache["Y"].shape[1]
        P = np.empty((len(alphas), m, t))
        for U, PU in zip(sets, self._predictions_over_sets(sets, alphas)):
            P[:, U] = PU
        return shape_output(P, single, self._y_1d)
