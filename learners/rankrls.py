"""RankRLS: regularized least-squares ranking from preference graphs (Paper I, eqs. 11-33).

The cost is the weighted pairwise least-squares cost (eq. 11)
``sum_i w_i^2 (z_i - (f(x_h) - f(x_j)))^2 = (N - M^T f(X))^T (N - M^T f(X))`` with the
oriented incidence matrix M (eq. 12) and ``N_i = w_i z_i`` (eq. 13); with ``L = M M^T`` the
dual minimizer is ``a = (L K + λI)^{-1} M N`` (eq. 17) and the primal one
``w = (X^T L X + λI)^{-1} X^T M N`` (eq. 28).

* :class:`GlobalRankRLS` — scored data, every pair (ties included, eq. 21): ``L = m I - 1 1^T``
  (eq. 25 with P = 1), never materialized as pairs.
* :class:`QueryRankRLS` — pairs only inside a query: ``L = D - P P^T``, P the query indicator.
* :class:`PairwiseRankRLS` — a preference (multi)graph with costs (20)/(21)/(22), given
  explicitly or built from scores (all pairs with different scores, inside queries);
  M is built sparse and ``L = M M^T`` in O(l).

Symmetric formulations (numerically stable, Cholesky for one fit, ``eigh`` for a path):
for query-structured L, ``L = D^{1/2} C D^{1/2}`` with C the within-query centering
projector, and ``a = C a`` gives ``(C K C + λ D^{-1}) a = C y`` (positive definite). The λ path
(eq. 31) uses the eigendecomposition of ``S = R K R`` with ``R = L^{1/2}``
(``R = D^{1/2} C``, or ``R = F`` from ``L = F F^T`` for a general graph):
``a(λ) = R V (Λ + λI)^{-1} V^T β`` with ``R β = M N``, O(m^2 t) per λ after O(m^3).
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from learners._numerics import check_finite, numerical_guard
from learners._solvers import dense, gram, resolve_solver, solve_shifted, sym_eig
from learners._validation import (
    as_2d_targets,
    check_alphas,
    check_finite_array,
    check_groups,
    check_index_sets,
    check_leave_pair_out,
    check_pairs,
    check_vector,
    warn_without_preference,
    validate_data,
)
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.base import HoldoutMixin, RankerMixin, validate_hyperparameters
from learners.holdout import (
    GlobalRankSpectral,
    QueryBlockSpectral,
    QuerySplitSpectral,
    TouchedSetSpectral,
)
from learners.kernel_learner import KernelLearnerMixin, shape_output
from learners.pairs import incidence_matrix, preference_pairs
from learners.rls import RLS_CONSTRAINTS


# ---------------------------------------------------------------------- structures
class QueryLaplacian:
    """``L = D - P P^T`` for rows grouped in queries (Paper I eq. 25); all ops O(m) per column."""

    def __init__(self, codes):
        self.codes = np.asarray(codes, dtype=np.intp)
        self.m = self.codes.size
        self.nq = np.bincount(self.codes).astype(np.float64)
        self.d = self.nq[self.codes]
        self.P = sp.csr_matrix((np.ones(self.m), (np.arange(self.m), self.codes)),
                               shape=(self.m, self.nq.size))

    def center(self, M):
        """Subtract the query means from the rows of M (``C M``)."""
        return M - self.P @ ((self.P.T @ M) / self.nq[:, None])

    def apply_R(self, M):
        """``L^{1/2} M = D^{1/2} C M``."""
        return np.sqrt(self.d)[:, None] * self.center(M)

    def apply_L(self, M):
        return self.d[:, None] * self.center(M)

    def gram(self, X):
        """``X^T L X = X^T D X - (P^T X)^T (P^T X)``; sparse X stays sparse. O(nnz n).

        Raises NumericalError if it overflows (unscaled features)."""
        PX = self.P.T @ X
        DX = sp.diags(self.d) @ X if sp.issparse(X) else self.d[:, None] * X
        with np.errstate(over="ignore", invalid="ignore"):
            G = dense(X.T @ DX) - dense(PX.T @ PX)
        return check_finite(G, "X^T L X", X=X)

    def xtl(self, X, Y):
        """``X^T L Y``."""
        return dense(X.T @ self.apply_L(Y))

    def householder(self):
        """Per-query reflectors ``P_q = I - c_q v_q v_q^T`` mapping the first row of q to
        ``1/sqrt(n_q)``; the other columns form an orthonormal basis H of range(C).

        Returns ``(v, c, keep)``; ``keep`` marks the rows whose columns belong to H."""
        first = np.zeros(self.m, dtype=bool)
        _, idx = np.unique(self.codes, return_index=True)
        first[idx] = True
        v = first - 1.0 / np.sqrt(self.d)
        vv = np.asarray(self.P.T @ (v * v)).ravel()
        with np.errstate(divide="ignore"):
            c = np.where(vv > 0, 2.0 / vv, 0.0)
        return v, c, ~first

    def apply_P(self, M, hh):
        """``P M`` for the block-diagonal reflector P (rows of M). O(m k)."""
        v, c, _ = hh
        s = self.P.T @ (v[:, None] * M)                    # (q, k) per-query v^T M
        return M - v[:, None] * (c[:, None] * s)[self.codes]

    def rows_of(self, q):
        return np.flatnonzero(self.codes == q)

    def removal(self, U):
        """Touched rows T, positions of U in T, Laplacian Delta_TT of the removed edges."""
        qs = np.unique(self.codes[U])
        T = np.flatnonzero(np.isin(self.codes, qs))
        inU = np.isin(T, U)
        upos = np.searchsorted(T, U)
        cT = self.codes[T]
        same = cT[:, None] == cT[None, :]
        full = np.where(same, -1.0, 0.0)
        np.fill_diagonal(full, self.d[T] - 1.0)                    # L_TT
        keep = ~inU
        kept_n = np.bincount(cT[keep], minlength=self.nq.size)[cT]  # remaining query sizes
        red = np.where(same & keep[:, None] & keep[None, :], -1.0, 0.0)
        np.fill_diagonal(red, np.where(keep, kept_n - 1.0, 0.0))   # L~_TT
        return T, upos, full - red


class PreferenceGraph:
    """Sparse oriented incidence M (eq. 12), ``N = w * z`` (eq. 13), ``L = M M^T`` (eq. 18)."""

    def __init__(self, m, pairs, z, w):
        self.m, self.pairs, self.w = m, pairs, w
        self.M = incidence_matrix(pairs, m, w).T.tocsr()
        self.N = w[:, None] * z                                     # (l, t)
        self.L = (self.M @ self.M.T).tocsr()
        self.b = np.asarray(self.M @ self.N)                        # M N, (m, t)

    def removal(self, U):
        """Touched rows, positions of U, Delta_TT and delta_T of the edges incident to U."""
        edges = np.unique(self.M[U].indices)
        T = np.union1d(U, self.pairs[edges].ravel())
        Mr = self.M[T][:, edges]
        Dl = dense(Mr @ Mr.T)
        dl = np.asarray(Mr @ self.N[edges]) if edges.size else np.zeros((T.size, self.N.shape[1]))
        return T, np.searchsorted(T, U), Dl, dl


# ---------------------------------------------------------------------- base
class _RankRLSBase(HoldoutMixin, RankerMixin, KernelLearnerMixin, BaseEstimator):
    """Shared parameters, prediction and path machinery of the RankRLS learners; ``score``
    is the concordance index (:class:`learners.base.RankerMixin`)."""

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

    def _start(self, X, Y1d, spec):
        Y, self._was_1d = as_2d_targets(Y1d)
        self.kernel_spec_ = spec
        self.X_fit_ = X
        self._Y = Y
        self._cache = {}
        self.solver_ = resolve_solver(self.solver, spec[0], X.shape[0], X.shape[1])
        return Y

    @numerical_guard("predict")
    def predict(self, X):
        """Scores ``k(X, X_fit) a`` (dual) or ``X w`` (primal); rank by decreasing score."""
        return self._scores(X)

    # -------------------------------------------------------------- path
    def _path_spectral(self):
        """Cached eigendecomposition of ``S = R K R`` (dual) or ``X^T L X`` (primal)."""
        check_is_fitted(self)
        got = self._cache.get("path")
        if got is None:
            if self.solver_ == "primal":
                e, Z = sym_eig(self._gram_of(self.X_fit_), overwrite=True)
                got = {"e": np.maximum(e, 0.0), "Z": Z, "ZtB": Z.T @ self._rhs_of(self.X_fit_)}
            else:
                K = self._train_kernel()
                RK = self._apply_R(K)                        # R K
                S = self._apply_R(RK.T)                      # R K R (K symmetric)
                S = 0.5 * (S + S.T)
                e, V = sym_eig(S, overwrite=True)
                got = {"e": np.maximum(e, 0.0), "V": V, "VtB": V.T @ self._beta(), "K": K,
                       "KR": RK.T}
            self._cache["path"] = got
        return got

    def _coef_at(self, lam):
        p = self._path_spectral()
        if self.solver_ == "primal":
            return p["Z"] @ (p["ZtB"] / (p["e"] + lam)[:, None])
        return self._apply_R_from_path(p["V"] @ (p["VtB"] / (p["e"] + lam)[:, None]))

    @numerical_guard("regularization_path", data="fitted")
    def regularization_path(self, alphas):
        """Coefficients for every λ (eq. 31): (n_alphas, m[, t]) dual, (n_alphas, [t,] n) primal."""
        lams, _ = check_alphas(alphas, self.alpha)
        C = np.stack([self._coef_at(lam) for lam in lams])
        if self._was_1d:
            return C[..., 0]
        return np.swapaxes(C, 1, 2) if self.solver_ == "primal" else C

    @numerical_guard("predict_path")
    def predict_path(self, X, alphas):
        """Predictions for every λ, shape (n_alphas, m'[, t])."""
        X = self._validate_predict(X)
        lams, _ = check_alphas(alphas, self.alpha)
        Kt = None if self.solver_ == "primal" else self._kernel(X, self.X_fit_)
        out = np.stack([dense(X @ self._coef_at(lam)) if Kt is None else Kt @ self._coef_at(lam)
                        for lam in lams])
        return shape_output(out, False, self._was_1d)

    # -------------------------------------------------------------- touched-set hold-out
    def _touched(self):
        """Cached :class:`TouchedSetSpectral` (Woodbury on the rows touched by removed edges).

        Uses a feature factor F of the kernel (primal: X; dual: Cholesky factor of K, or
        ``V sqrt(s)`` when K is singular) and the eigendecomposition of ``F^T L F``, so that
        ``Q = K (LK + λI)^{-1} = F (F^T L F + λI)^{-1} F^T`` is formed without a 1/λ
        cancellation at small λ.
        """
        got = self._cache.get("touched")
        if got is None:
            if self.solver_ == "primal":
                F = self.X_fit_
            else:
                K = self._train_kernel()
                try:
                    F = np.linalg.cholesky(K)
                except np.linalg.LinAlgError:
                    s, V = sym_eig(K, overwrite=self._kernel_is_fresh())
                    F = V * np.sqrt(np.maximum(s, 0.0))
            e, Z = sym_eig(self._gram_of(F), overwrite=True)
            if self.solver_ == "dual":
                # Directions z with F z in null(L) (one per connected component / query)
                # cancel exactly in the update (Delta 1_c = 0, delta^T 1_c = 0); dropping them
                # removes the 1/λ terms that would otherwise amplify rounding errors.
                k0 = self._null_dim()
                e, Z = e[k0:], Z[:, k0:]
            e = np.maximum(e, 0.0)
            FZ = dense(F @ Z)
            ZtB = Z.T @ self._rhs_of(F)

            def qblock(T, lam):
                B = FZ[T]
                return (B / (e + lam)) @ B.T

            def full(lam):
                return FZ @ (ZtB / (e + lam)[:, None])
            got = TouchedSetSpectral(qblock, full, self._Y.shape[1])
            self._cache["touched"] = got
        return got

    def _null_dim(self):
        """Dimension of null(L): number of queries, or of connected components of the graph."""
        if hasattr(self, "_ql"):
            return int(self._ql.nq.size)
        from scipy.sparse.csgraph import connected_components
        return int(connected_components(self._graph.L, directed=False)[0])

    def _touched_holdout(self, sets, lams, structure):
        specs = []
        for U in sets:
            U = np.sort(U)
            T, upos, Dl, *rest = structure.removal(U)
            dl = rest[0] if rest else Dl @ self._Y[T]
            specs.append((T, upos, Dl, dl))
        res = self._touched().holdout(specs, lams)
        # restore the caller's order of U
        out = []
        for U, r in zip(sets, res):
            order = np.argsort(np.argsort(U))
            out.append(r[:, order])
        return out


class _QueryStructuredRankRLS(_RankRLSBase):
    """Global and query RankRLS: ``L = D - P P^T`` handled in O(m) per column."""

    def _fit_structure(self, X, y, codes):
        spec, X, y = self._validate_fit(X, y)
        warn_without_preference(type(self).__name__, y, codes)
        Y = self._start(X, y, spec)
        if codes is None:
            codes = np.zeros(X.shape[0], dtype=np.intp)
        self._ql = QueryLaplacian(codes)
        alpha = float(self.alpha)
        if self.solver_ == "primal":
            X = self.X_fit_
            self._set_primal(solve_shifted(self._gram_of(X), self._rhs_of(X), alpha))
        else:
            K = self._train_kernel()
            ql = self._ql
            CKC = ql.center(ql.center(K).T)
            CKC = 0.5 * (CKC + CKC.T)
            # In exact arithmetic the solution lies in range(C); rounding leaves a
            # per-query constant of size eps*||K||*||a||/(alpha/d) that k(x, X) would turn
            # into large score errors when alpha is small, so project it out (O(m)).
            self._set_dual(ql.center(solve_shifted(CKC, ql.center(Y), alpha / ql.d)))
        return self

    def _gram_of(self, F):
        return self._ql.gram(F)

    def _rhs_of(self, F):
        return self._ql.xtl(F, self._Y)

    def _apply_R(self, M):
        return self._ql.apply_R(M)

    def _apply_R_from_path(self, C):
        return self._ql.apply_R(C)

    def _beta(self):
        return self._ql.apply_R(self._Y)


class GlobalRankRLS(_QueryStructuredRankRLS):
    """RankRLS over all pairs of scored data, magnitude-preserving cost (Paper I eq. 21).

    Minimizes ``sum_{i,j} ((y_i - y_j) - (f(x_i) - f(x_j)))^2 / 2 + alpha ||f||^2``, i.e. eq. (24)
    with ``L = m I - 1 1^T``; no pair is ever materialized.

    Parameters are those of :class:`learners.RLS`. ``fit(X, y)`` with y of shape (m,) or (m, t);
    ``score(X, y, qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`).

    Notes
    -----
    One fit: O(m^3/3) Cholesky of ``C K C + (alpha/m) I`` (dual) or O(n^2 m + n^3/3) (primal).
    Path (eq. 31): one eigendecomposition of ``m C K C``, O(m^2 t) per λ. Hold-out of any
    sets, leave-one-out and leave-pair-out (eqs. 34-39): one eigendecomposition of K
    (or X^T X), then O(m r t) per λ and set size plus ``O(|U|^2 r + |U|^3)`` per set; all pairs
    of an m = 2000 problem in one batched pass.
    """

    @numerical_guard("fit")
    def fit(self, X, y):
        """Fit on scored data (all pairs, eq. 21).

        Parameters
        ----------
        X : array-like or sparse (m, n), or the (m, m) kernel matrix if precomputed
        y : array-like (m,) or (m, t) — scores; t outputs share one factorization

        Returns
        -------
        self
        """
        return self._fit_structure(X, y, None)

    def _global_spectral(self):
        check_is_fitted(self)
        got = self._cache.get("global")
        if got is None:
            X = self.X_fit_
            if self.solver_ == "primal":
                s, Z = sym_eig(gram(X), overwrite=True)
                A = dense(X @ Z)
            else:
                K = self._train_kernel()
                s, A = sym_eig(K, overwrite=self._kernel_is_fresh())
            got = GlobalRankSpectral(A, s, self._Y, self.solver_)
            self._cache["global"] = got
        return got

    @numerical_guard("holdout_sets", data="fitted")
    def holdout_sets(self, sets, alphas=None):
        """Exact predictions for each (possibly overlapping) set from the model trained
        without it (all pairs touching the set removed).

        Returns a list of arrays ``(|H|[, t])``, or ``(n_alphas, |H|[, t])`` with ``alphas``."""
        check_is_fitted(self)
        sets = check_index_sets(sets, self._Y.shape[0])
        if any(self._Y.shape[0] - len(H) < 2 for H in sets):
            raise InvalidInputError("a hold-out set leaves fewer than 2 training rows (no pair)")
        lams, single = check_alphas(alphas, self.alpha)
        res = self._global_spectral().holdout_sets(sets, lams)
        return [shape_output(r, single, self._was_1d) for r in res]

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Exact leave-one-out predictions, (m[, t]) or (n_alphas, m[, t])."""
        check_is_fitted(self)
        lams, single = check_alphas(alphas, self.alpha)
        m = self._Y.shape[0]
        if m < 3:
            raise InvalidInputError("leave-one-out for RankRLS needs at least 3 rows")
        out = self._global_spectral().equal_size_sets(np.arange(m)[:, None], lams)[:, :, 0]
        return shape_output(out, single, self._was_1d)

    @numerical_guard("leave-pair-out", data="fitted")
    def leave_pair_out(self, pairs, alphas=None):
        """Exact leave-pair-out (Paper I eqs. 34-39), vectorized over pairs.

        Parameters
        ----------
        pairs : int array (n, 2), e.g. all positive-negative pairs
        alphas : sequence of float, optional

        Returns
        -------
        ndarray, shape (n, 2[, t]) or (n_alphas, n, 2[, t])

        Notes
        -----
        One eigendecomposition of K (cached), one O(m^2 r) product per λ, then O(t) per pair
        (closed-form 3 x 3 Cholesky per pair, no Python loop).
        """
        check_is_fitted(self)
        pairs = check_leave_pair_out(pairs, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        out = self._global_spectral().equal_size_sets(pairs, lams)
        return shape_output(out, single, self._was_1d)


class QueryRankRLS(_QueryStructuredRankRLS):
    """RankRLS with pairs only inside a query (label ranking; Paper I eq. 25 with P = query
    indicator), magnitude-preserving cost (21). ``fit(X, y, qids)``; ``score(X, y, qids=None)``
    is the concordance index (:class:`learners.base.RankerMixin`).

    Notes
    -----
    One fit: Cholesky of ``C K C + alpha D^{-1}`` (C: within-query centering, D: query sizes).
    Path: eigendecomposition of ``S = D^{1/2} C K C D^{1/2}``. Leave-query-out and hold-out
    of whole queries (eq. 33): RLS down-date in the coordinates of S
    (:class:`learners.holdout.QueryBlockSpectral`), ``O(|U|^2 m + |U|^3)`` per set and λ after
    one O(m^3) product. Sets that split queries, leave-one-out and leave-pair-out inside
    queries: :class:`learners.holdout.QuerySplitSpectral` (dual; a second eigendecomposition,
    of ``S_H``) or :class:`learners.holdout.TouchedSetSpectral` (primal),
    ``O(|T|^2 m + |T|^3)`` per set and λ, ``|T|`` = rows of the queries the set intersects.
    """

    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        """Fit with pairs only inside queries.

        Parameters
        ----------
        X : array-like or sparse (m, n), or the (m, m) kernel matrix if precomputed
        y : array-like (m,) or (m, t) — relevance scores
        qids : array-like (m,) — query (object) of each row; required, never inferred

        Returns
        -------
        self
        """
        validate_hyperparameters(self)
        m = X.shape[0] if hasattr(X, "shape") else len(X)
        codes, labels = check_groups(qids, m, "qids")
        self.qids_ = labels[codes]
        return self._fit_structure(X, y, codes)

    def _block(self):
        got = self._cache.get("block")
        if got is None:
            p = self._path_spectral()
            if self.solver_ == "primal":
                Z = p["Z"]
                Phi = self._ql.apply_R(dense(self.X_fit_))
                got = QueryBlockSpectral(dense(self.X_fit_ @ Z), Phi @ Z, p["e"], p["ZtB"],
                                         self._beta(), "primal")
            else:
                got = QueryBlockSpectral(p["KR"] @ p["V"], p["V"], p["e"], p["VtB"],
                                         self._beta(), "dual")
            self._cache["block"] = got
        return got

    def _whole_queries(self, U):
        codes = self._ql.codes
        touched = np.unique(codes[U])
        return np.isin(codes, touched).sum() == len(U)

    def _holdout(self, sets, lams):
        """Whole-query sets: eq. (33) via :class:`QueryBlockSpectral`. Sets that split a
        query: :class:`QuerySplitSpectral` (dual) or :class:`TouchedSetSpectral` (primal,
        where ``X^T L X + λI`` keeps it well conditioned)."""
        out = [None] * len(sets)
        whole = [i for i, U in enumerate(sets) if self._whole_queries(U)]
        split = sorted(set(range(len(sets))) - set(whole))
        if whole:
            for i, r in zip(whole, self._block().holdout([sets[i] for i in whole], lams)):
                out[i] = r
        if split and self.solver_ == "primal":
            res = self._touched_holdout([sets[i] for i in split], lams, self._ql)
            for i, r in zip(split, res):
                out[i] = r
        elif split:
            res = self._split().holdout([np.sort(sets[i]) for i in split], lams)
            for i, r in zip(split, res):
                out[i] = r[:, np.argsort(np.argsort(sets[i]))]
        return out

    def _split(self):
        """Cached :class:`QuerySplitSpectral` (dual): eigendecomposition of S_H."""
        got = self._cache.get("split")
        if got is None:
            ql = self._ql
            hh = ql.householder()
            keep = hh[2]
            K = self._train_kernel()
            sd = np.sqrt(ql.d)
            M1 = ql.apply_P(sd[:, None] * K * sd[None, :], hh)[keep]
            SH = ql.apply_P(np.ascontiguousarray(M1.T), hh)[keep]
            e, V = sym_eig(0.5 * (SH + SH.T), overwrite=True)
            Vfull = np.zeros((ql.m, V.shape[1]))
            Vfull[keep] = V
            HV = ql.apply_P(Vfull, hh)                               # H V, (m, m - q)
            Wf = K @ (sd[:, None] * HV)                              # K D^{1/2} H V
            beta = ql.apply_P(sd[:, None] * self._Y, hh)[keep]
            got = QuerySplitSpectral(HV, Wf, np.maximum(e, 0.0), V.T @ beta, ql.codes, ql.nq)
            self._cache["split"] = got
        return got

    @numerical_guard("holdout_sets", data="fitted")
    def holdout_sets(self, sets, alphas=None):
        """Exact hold-out predictions (edges touching each set removed), list of arrays."""
        check_is_fitted(self)
        sets = check_index_sets(sets, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        res = self._holdout(sets, lams)
        return [shape_output(r, single, self._was_1d) for r in res]

    @numerical_guard("leave-query-out", data="fitted")
    def leave_query_out(self, alphas=None):
        """Predictions for every row from the model trained without its query (eq. 33).

        Parameters
        ----------
        alphas : sequence of float, optional (adds a leading λ axis)

        Returns
        -------
        ndarray, shape (m[, t]) or (n_alphas, m[, t])

        Notes
        -----
        One eigendecomposition of ``S`` and one O(m^3) product (cached), then
        O(m n̄_q r) per λ (n̄_q: mean query size).
        """
        check_is_fitted(self)
        lams, single = check_alphas(alphas, self.alpha)
        ql = self._ql
        if ql.nq.size < 2:
            raise InvalidInputError("leave-query-out needs at least 2 queries")
        sets = [ql.rows_of(q) for q in range(ql.nq.size)]
        res = self._block().holdout(sets, lams)
        out = np.empty((lams.size,) + self._Y.shape)
        for U, r in zip(sets, res):
            out[:, U] = r
        return shape_output(out, single, self._was_1d)

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Exact leave-one-out predictions (each row removed from its query), (m[, t]) or
        (n_alphas, m[, t]). O(n_q^2 m) per query and λ, then O(n_q^3) per row."""
        check_is_fitted(self)
        lams, single = check_alphas(alphas, self.alpha)
        m = self._Y.shape[0]
        res = self._holdout([np.array([i]) for i in range(m)], lams)
        return shape_output(np.concatenate(res, axis=1), single, self._was_1d)

    @numerical_guard("leave-pair-out", data="fitted")
    def leave_pair_out(self, pairs, alphas=None):
        """Exact leave-pair-out (typically pairs inside a query): (n, 2[, t]).

        Each pair is a hold-out set: the blocks of its query are shared by all pairs of the
        query (O(n_q^2 m) per query and λ), then O(n_q^3) per pair (a loop over pairs); the
        vectorized O(1)-per-pair form exists for the global ranker
        (:meth:`GlobalRankRLS.leave_pair_out`)."""
        check_is_fitted(self)
        pairs = check_leave_pair_out(pairs, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        res = self._holdout(list(pairs), lams)
        return shape_output(np.stack(res, axis=1), single, self._was_1d)


class PairwiseRankRLS(_RankRLSBase):
    """RankRLS from a preference graph (Paper I eqs. 11-22): given explicitly, or built from
    scored data.

    ``fit(X, y, qids=None)``: the graph of all pairs ``(i, j)`` with ``y_i > y_j`` (inside each
    query when ``qids`` are given; pairs with equal scores are no preference), magnitudes
    ``y_i - y_j`` (:func:`learners.pairs.preference_pairs`). ``fit(X, pairs=..., magnitudes=...,
    weights=...)``: row ``pairs[i, 0]`` is preferred over ``pairs[i, 1]`` with magnitude
    ``magnitudes[i]`` (default 1); ``magnitudes`` of shape (l, t) give t outputs (cost
    "magnitude" only). ``weights`` multiply w. ``score(X, y, qids=None)`` is the concordance
    index, as for every ranker.

    Parameters
    ----------
    alpha, kernel, gamma, degree, coef0, kernel_params, solver :
        As in :class:`learners.RLS`.
    cost : {"magnitude", "discrete", "weighted"}, default "magnitude"
        ``"discrete"`` z = 1, w = 1 (eq. 20); ``"magnitude"`` z = magnitude, w = 1 (eq. 21);
        ``"weighted"`` z = magnitude, w = 1/magnitude (eq. 22).
    max_pairs : int, optional
        Most edges the preference graph may have (built from y or given); more raise
        :class:`~kernelrank.errors.InvalidInputError` before anything large is allocated.
        None: no cap.
    tie_tolerance : float >= 0, default 0.0
        With scores y: rows whose scores differ by at most this much form no pair (e.g.
        rounding noise of computed scores, on which the weighted cost's w = 1/magnitude
        would explode).

    Attributes
    ----------
    n_pairs_ : int
        Edges of the fitted graph.

    Notes
    -----
    M (m x l) is sparse and ``L = M M^T`` costs O(l) (eq. 18). One dual fit: O(m^3) LU of
    ``L K + λI`` (eq. 19), or, with fewer edges than rows, the symmetric edge-space form
    ``a = M (M^T K M + λI)^{-1} N`` by Cholesky (O(l^3 + l m^2)); primal: Cholesky of
    ``X^T L X + λI`` (eqs. 28-29). Building the graph from y: O(m log m + l). Path: one
    eigendecomposition of L (for ``L = F F^T``) and one of ``F^T K F``. Hold-out of rows: the
    edges touching them are removed; Woodbury on the touched rows (see
    :class:`learners.holdout.TouchedSetSpectral`).
    """

    _parameter_constraints = {
        **_RankRLSBase._parameter_constraints,
        "cost": [StrOptions({"magnitude", "discrete", "weighted"})],
        "max_pairs": [Interval(Integral, 1, None, closed="left"), None],
        "tie_tolerance": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, solver="auto", cost="magnitude", max_pairs=None,
                 tie_tolerance=0.0):
        super().__init__(alpha, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         kernel_params=kernel_params, solver=solver)
        self.cost = cost
        self.max_pairs = max_pairs
        self.tie_tolerance = tie_tolerance

    @numerical_guard("fit")
    def fit(self, X, y=None, qids=None, *, pairs=None, magnitudes=None, weights=None):
        """Fit on the preference graph of scores ``y`` (and ``qids``) or on explicit ``pairs``.

        Parameters
        ----------
        X : array-like or sparse (m, n), or the (m, m) kernel matrix if precomputed
        y : array-like (m,), optional
            Scores; the graph is every pair with different scores (inside each query).
        qids : array-like (m,), optional
            Query of each row (only with ``y``); None: all pairs of the data.
        pairs : int array (l, 2), optional
            Explicit graph: row ``pairs[i, 0]`` is preferred over row ``pairs[i, 1]``.
        magnitudes : array-like (l,) or (l, t), optional
            Preference magnitudes of ``pairs`` (default 1).
        weights : array-like (l,), optional
            Non-negative edge weights of ``pairs``.

        Give exactly one of ``y`` and ``pairs``. Cost O(l) for the graph plus one O(m^3) LU
        (dual) or O(n^2 m + n^3) Cholesky (primal).

        Returns
        -------
        self
        """
        validate_hyperparameters(self)
        spec = self._resolve_kernel()
        if y is None and pairs is None:
            raise InvalidInputError(f"{type(self).__name__} requires y to be passed, but the "
                                    "target y is None (give scores y, or pairs=)")
        if y is not None and pairs is not None:
            raise InvalidInputError("give either scores y (with qids) or pairs=, not both")
        X = validate_data(self, X, precomputed=spec[0] == "precomputed")
        m = X.shape[0]
        if y is not None:
            pairs, magnitudes = self._pairs_from_scores(y, qids, magnitudes, weights, m)
        elif qids is not None:
            raise InvalidInputError("qids group the scores y; with pairs= they are not used")
        pairs = check_pairs(pairs, m, "pairs")
        l = pairs.shape[0]
        if self.max_pairs is not None and l > self.max_pairs:
            raise InvalidInputError(f"{l} pairs exceed max_pairs={self.max_pairs}")
        z, was_1d, w = self._edge_targets(magnitudes, weights, l)
        self._graph = PreferenceGraph(m, pairs, z, w)
        self.n_pairs_ = l
        self._start(X, self._graph.b, spec)                        # _Y: right-hand side M N
        self._was_1d = was_1d
        alpha = float(self.alpha)
        if self.solver_ == "primal":
            X = self.X_fit_
            self._set_primal(solve_shifted(self._gram_of(X), self._rhs_of(X), alpha))
        else:
            K = self._train_kernel()
            G = self._graph
            if G.M.shape[1] <= G.M.shape[0]:
                # few edges: symmetric edge-space form a = M (M^T K M + λI)^{-1} N, Cholesky
                MtK = np.asarray(G.M.T @ K)                  # (l, m)
                S = np.asarray(G.M.T @ MtK.T)                # M^T K M, (l, l)
                c = solve_shifted(0.5 * (S + S.T), G.N, alpha)
                self._set_dual(np.asarray(G.M @ c))
            else:
                A = np.asarray(G.L @ K)                      # L K + λI, LU (eq. 17)
                self._set_dual(solve_shifted(A, G.b, alpha, assume_pos=False))
        return self

    def _pairs_from_scores(self, y, qids, magnitudes, weights, m):
        """The preference graph of scored data (:func:`learners.pairs.preference_pairs`)."""
        if magnitudes is not None or weights is not None:
            raise InvalidInputError("magnitudes and weights belong to explicit pairs=; with "
                                    "scores y the magnitudes are y_i - y_j")
        if np.ndim(y) != 1:
            raise InvalidInputError(
                f"y must be a vector of scores (one per row of X), got shape {np.shape(y)}; "
                "an explicit preference graph goes in pairs=")
        y = check_vector(y, "y", m)
        pairs, magnitudes = preference_pairs(y, qids, max_pairs=self.max_pairs,
                                             tie_tolerance=self.tie_tolerance)
        if pairs.shape[0] == 0:
            raise InvalidInputError("y has no pair of rows with different scores"
                                    + (" inside a query" if qids is not None else "")
                                    + f"; there is nothing to rank (n_samples = {m})")
        return pairs, magnitudes

    def _edge_targets(self, magnitudes, weights, l):
        """Targets z (l, t), whether they were 1-D, and the edge weights w for ``cost``."""
        if magnitudes is None:
            z, was_1d = np.ones((l, 1)), True
        else:
            z, was_1d = as_2d_targets(check_finite_array(magnitudes, "magnitudes"))
            if z.shape[0] != l:
                raise InvalidInputError(f"magnitudes has {z.shape[0]} entries for {l} pairs")
        if self.cost == "discrete":
            z = np.ones((l, z.shape[1]))
        w = np.ones(l)
        if self.cost == "weighted":
            if z.shape[1] != 1:
                raise InvalidParameterError("cost='weighted' supports a single output")
            if np.any(z[:, 0] <= 0):
                raise InvalidInputError("cost='weighted' needs positive magnitudes (w = 1/y)")
            w = 1.0 / z[:, 0]
        if weights is not None:
            wt = check_finite_array(weights, "weights").ravel()
            if wt.shape[0] != l or np.any(wt < 0):
                raise InvalidInputError(f"weights must be {l} non-negative numbers")
            w = w * wt
        return z, was_1d, w

    def _gram_of(self, F):
        return gram(self._graph.M.T @ F)                   # (M^T F)^T (M^T F), checked

    def _rhs_of(self, F):
        return dense(F.T @ self._graph.b)

    def _factor(self):
        f = self._cache.get("F")
        if f is None:
            ell, Qv = sym_eig(dense(self._graph.L), overwrite=True)
            tol = max(ell.max(), 1.0) * ell.size * np.finfo(float).eps * 10
            keep = ell > tol
            f = (Qv[:, keep] * np.sqrt(ell[keep]), Qv[:, keep] / np.sqrt(ell[keep]))
            self._cache["F"] = f
        return f

    def _apply_R(self, M):
        F, _ = self._factor()
        return F.T @ M

    def _apply_R_from_path(self, C):
        F, _ = self._factor()
        return F @ C

    def _beta(self):
        _, Fpinv = self._factor()
        return Fpinv.T @ self._graph.b

    def _path_spectral(self):
        check_is_fitted(self)
        got = self._cache.get("path")
        if got is None and self.solver_ == "dual":
            K = self._train_kernel()
            F, _ = self._factor()
            KF = K @ F
            S = F.T @ KF
            e, V = sym_eig(0.5 * (S + S.T), overwrite=True)
            got = {"e": np.maximum(e, 0.0), "V": V, "VtB": V.T @ self._beta(), "K": K, "KR": KF}
            self._cache["path"] = got
            return got
        return super()._path_spectral()

    @numerical_guard("holdout_sets", data="fitted")
    def holdout_sets(self, sets, alphas=None):
        """Exact predictions for each set from the model trained without the edges touching it."""
        check_is_fitted(self)
        sets = check_index_sets(sets, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        res = self._touched_holdout(sets, lams, self._graph)
        return [shape_output(r, single, self._was_1d) for r in res]

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Exact leave-one-out predictions (edges of each row removed), (m[, t])."""
        check_is_fitted(self)
        lams, single = check_alphas(alphas, self.alpha)
        sets = [np.array([i]) for i in range(self._Y.shape[0])]
        res = self._touched_holdout(sets, lams, self._graph)
        return shape_output(np.concatenate(res, axis=1), single, self._was_1d)

    @numerical_guard("leave-pair-out", data="fitted")
    def leave_pair_out(self, pairs, alphas=None):
        """Exact leave-pair-out: (n, 2[, t]); one touched-row update per pair."""
        check_is_fitted(self)
        pairs = check_leave_pair_out(pairs, self._Y.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        res = self._touched_holdout(list(pairs), lams, self._graph)
        return shape_output(np.stack(res, axis=1), single, self._was_1d)
