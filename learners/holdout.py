"""Exact fast cross-validation shortcuts, all behind one door (cf. scikit-learn ``_RidgeGCV``).

Every function here reuses ONE decomposition for every λ of a grid and every hold-out set.

RLS (thesis §2.7, §5; hold-out lemma): with ``G = (K + λI)^{-1}`` and ``a = G y`` the
predictions for a held-out set H of a model trained without H are

    f_H = y_H - (G_HH)^{-1} a_H                                            (residual form)
        = (I - P_HH)^{-1} ((P y)_H - P_HH y_H),   P = K (K + λI)^{-1}       (hat form)

The two are equal in exact arithmetic; the residual form is accurate when the model fits
the data (small λ), the hat form when it is heavily regularized (large λ), and the code
chooses per λ by comparing ``||P y||`` with ``||(I - P) y||``. Both use a thin spectral factor
``K = A diag(t) A^T``: dual ``A = V`` (eigenvectors of K, t = eigenvalues), primal
``A = X Z`` with ``X^T X = Z diag(s) Z^T`` (then t = 1 and P = A diag(1/(s+λ)) A^T).

RankRLS (Paper I Sects. 3.3-3.4), all checked against explicit-pair retraining:

* :class:`GlobalRankSpectral` — all-pairs ranker: hold-out of any row sets, leave-one-out
  and leave-pair-out (eqs. 34-39 generalised from ``|U|`` = 2 to any ``|U|``; pairs vectorized);
* :class:`QueryBlockSpectral` — leave-query-out / hold-out of whole queries (eq. 33, in the
  symmetric form ``S = L^{1/2} K L^{1/2}``);
* :class:`QuerySplitSpectral` — query-structured data, sets that split queries (orthonormal
  within-query basis; no 1/λ terms);
* :class:`TouchedSetSpectral` — any Laplacian (preference graphs; primal query rankers):
  Woodbury update on the rows touched by the removed edges.

Costs are stated on each class; none loops in Python over examples or pairs, except over
hold-out sets (and over the pairs of :class:`QuerySplitSpectral` / :class:`TouchedSetSpectral`).
"""

import numpy as np
import scipy.linalg as sla

from kernelrank.errors import InvalidInputError

_PAIR_CHUNK = 1 << 16

#: Entries of ``A_H`` times the λ of one batch in :meth:`RLSSpectral.holdout_sets` (the
#: batch's copies take 8 bytes each: 128 MiB).
_HOLDOUT_BATCH = 1 << 24


def _solve_small(M, b):
    """Solve the small dense system of one hold-out set (LU; sizes are ``|H|``)."""
    try:
        return np.linalg.solve(M, b)
    except np.linalg.LinAlgError as exc:
        raise InvalidInputError(
            "a hold-out system is singular: the held-out rows cannot be predicted from the "
            "rest (e.g. duplicated rows with tiny alpha); increase alpha") from exc


def _pair_entries(A, w, i, j):
    """Entries ``(A diag(w) A^T)[i_k, j_k]`` for index vectors i, j.

    Forms the full matrix with one GEMM when there are many pairs (O(m^2 r)), otherwise
    row-wise dot products in chunks (O(n_pairs r)).
    """
    m, r = A.shape
    if i.size >= m:
        if np.all(w >= 0):                  # upper triangle of A diag(w) A^T by syrk
            C = sla.blas.dsyrk(1.0, A * np.sqrt(w))
            return C[np.minimum(i, j), np.maximum(i, j)]
        W = (A * w) @ A.T
        return W[i, j]
    out = np.empty(i.size)
    Aw = A * w
    for start in range(0, i.size, _PAIR_CHUNK):
        sl = slice(start, start + _PAIR_CHUNK)
        out[sl] = np.einsum("kr,kr->k", Aw[i[sl]], A[j[sl]])
    return out


def _solve_2x2(a, b, c, v1, v2):
    """Solve [[a, b], [b, c]] x = [v1, v2] for stacks (a, b, c: (n,), v: (n, t))."""
    det = a * c - b * b
    if np.any(det == 0):
        raise InvalidInputError("a leave-pair-out system is singular; increase alpha")
    x1 = (c[:, None] * v1 - b[:, None] * v2) / det[:, None]
    x2 = (a[:, None] * v2 - b[:, None] * v1) / det[:, None]
    return x1, x2


class RLSSpectral:
    """Hold-out machinery for RLS from one spectral factorization of the kernel.

    Parameters
    ----------
    A : ndarray (m, r)
        Dual: orthogonal eigenvectors of K (r = m). Primal: ``X Z`` (r = n).
    s : ndarray (r,)
        Eigenvalues of K (dual) or of ``X^T X`` (primal), clipped at 0.
    Y : ndarray (m, t)
        Training targets.
    kind : {"dual", "primal"}

    All methods take ``lams`` (1-D array) and return a leading axis over it.
    """

    def __init__(self, A, s, Y, kind):
        self.A, self.s, self.Y, self.kind = A, np.maximum(s, 0.0), Y, kind
        self.AtY = A.T @ Y
        self._A2 = None

    # ------------------------------------------------------------------ weights
    def hat_weights(self, lam):
        """Weights w with P = A diag(w) A^T."""
        return self.s / (self.s + lam) if self.kind == "dual" else 1.0 / (self.s + lam)

    def comp_weights(self, lam):
        """Dual only: weights w with I - P = A diag(w) A^T (A orthogonal)."""
        return lam / (self.s + lam)

    def _forms(self, lam):
        """(P y, (I-P) y, use_residual_form) for one λ. O(m r t)."""
        PY = self.A @ (self.hat_weights(lam)[:, None] * self.AtY)
        if self.kind == "dual":
            RY = self.A @ (self.comp_weights(lam)[:, None] * self.AtY)
            residual = np.linalg.norm(PY) >= np.linalg.norm(RY)
        else:
            RY = self.Y - PY
            residual = False
        return PY, RY, residual

    @property
    def A2(self):
        if self._A2 is None:
            self._A2 = self.A * self.A
        return self._A2

    # ------------------------------------------------------------------ coefficients
    def dual_coef(self, lam):
        """``(K + λI)^{-1} Y`` (dual only). O(m^2 t)."""
        return self.A @ (self.AtY / (self.s + lam)[:, None])

    # ------------------------------------------------------------------ LOO
    def loo(self, lams):
        """Leave-one-out predictions, shape (n_lams, m, t). O(m r t) per λ after O(m r)."""
        out = np.empty((lams.size,) + self.Y.shape)
        for k, lam in enumerate(lams):
            PY, RY, residual = self._forms(lam)
            if residual:
                d = self.A2 @ self.comp_weights(lam)                    # diag(I - P)
                out[k] = self.Y - RY / d[:, None]
            else:
                p = self.A2 @ self.hat_weights(lam)                     # diag(P)
                out[k] = (PY - p[:, None] * self.Y) / (1.0 - p)[:, None]
        return out

    # ------------------------------------------------------------------ hold-out sets
    def holdout_sets(self, sets, lams):
        """Predictions for each (possibly overlapping) hold-out set H.

        Returns a list over sets of arrays (n_lams, ``|H|``, t). Per set, the blocks
        ``A_H diag(w_λ) A_H^T`` of every λ come from one batched product (2 ``|H|²`` r flops
        each; λ in chunks of at most :data:`_HOLDOUT_BATCH` entries of ``A_H``) and their
        ``|H|`` × ``|H|`` systems from one batched LU solve; the per-λ preparation is O(m r t).
        One call per set instead of one per (set, λ): most hold-out sets (a document's
        pairs) are small, where the per-call overhead, not the flops, is the cost.
        """
        out = [np.empty((lams.size, len(H), self.Y.shape[1])) for H in sets]
        forms = [self._forms(lam) for lam in lams]
        PY = np.stack([f[0] for f in forms])
        RY = np.stack([f[1] for f in forms])
        residual = np.array([f[2] for f in forms], dtype=bool)
        W = np.sqrt(np.stack([self.comp_weights(lam) if res else self.hat_weights(lam)
                              for lam, res in zip(lams, residual)]))
        for h, H in enumerate(sets):
            AH = self.A[H]
            YH = self.Y[H]
            step = max(1, _HOLDOUT_BATCH // max(AH.size, 1))
            for start in range(0, lams.size, step):
                ks = np.arange(start, min(start + step, lams.size))
                B = AH[None] * W[ks][:, None, :]
                M = B @ np.swapaxes(B, 1, 2)        # (k, |H|, |H|)
                res, hat = ks[residual[ks]], ks[~residual[ks]]
                if res.size:                        # M = (I - P)_HH
                    out[h][res] = YH - _solve_small(M[residual[ks]], RY[res][:, H])
                if hat.size:                        # M = P_HH
                    Mh = M[~residual[ks]]
                    num = PY[hat][:, H] - Mh @ YH
                    out[h][hat] = _solve_small(np.eye(len(H)) - Mh, num)
        return out

    # ------------------------------------------------------------------ leave-pair-out
    def pairs(self, pairs, lams):
        """Leave-pair-out predictions, shape (n_lams, n_pairs, 2, t).

        One GEMM per λ (O(m^2 r)) when n_pairs >= m, else O(n_pairs r); then O(t) per pair.
        """
        i, j = pairs[:, 0], pairs[:, 1]
        out = np.empty((lams.size, pairs.shape[0], 2, self.Y.shape[1]))
        for k, lam in enumerate(lams):
            PY, RY, residual = self._forms(lam)
            w = self.comp_weights(lam) if residual else self.hat_weights(lam)
            d = self.A2 @ w
            a, c, b = d[i], d[j], _pair_entries(self.A, w, i, j)
            Yi, Yj = self.Y[i], self.Y[j]
            if residual:                            # (I-P)_HH entries
                x1, x2 = _solve_2x2(a, b, c, RY[i], RY[j])
                out[k, :, 0], out[k, :, 1] = Yi - x1, Yj - x2
            else:                                   # P_HH entries
                n1 = PY[i] - a[:, None] * Yi - b[:, None] * Yj
                n2 = PY[j] - b[:, None] * Yi - c[:, None] * Yj
                x1, x2 = _solve_2x2(1.0 - a, -b, 1.0 - c, n1, n2)
                out[k, :, 0], out[k, :, 1] = x1, x2
        return out


def _blocks(A, w, Hs):
    """Stack of the ``|H|`` x ``|H|`` blocks of ``A diag(w) A^T`` for equal-size sets ``Hs`` (n, u)."""
    n, u = Hs.shape
    if u == 1:
        return ((A * A) @ w)[Hs][:, :, None]
    if u == 2:
        d = (A * A) @ w
        b = _pair_entries(A, w, Hs[:, 0], Hs[:, 1])
        out = np.empty((n, 2, 2))
        out[:, 0, 0], out[:, 1, 1] = d[Hs[:, 0]], d[Hs[:, 1]]
        out[:, 0, 1] = out[:, 1, 0] = b
        return out
    out = np.empty((n, u, u))
    Aw = A * w
    for k, H in enumerate(Hs):
        out[k] = Aw[H] @ A[H].T
    return out


def _chol3_solve(a, b, c, d, e, f, r0, r1, r2):
    """Solve [[a,b,c],[b,d,e],[c,e,f]] x = r for stacks of SPD 3 x 3 systems (a..f: (n,),
    r: (n, t)) by an explicit Cholesky factorization; rows where it breaks down (not
    numerically positive definite) are re-solved with LU."""
    with np.errstate(invalid="ignore", divide="ignore"):
        l00 = np.sqrt(a)
        l10, l20 = b / l00, c / l00
        l11 = np.sqrt(d - l10 * l10)
        l21 = (e - l20 * l10) / l11
        l22 = np.sqrt(f - l20 * l20 - l21 * l21)
        y0 = r0 / l00[:, None]
        y1 = (r1 - l10[:, None] * y0) / l11[:, None]
        y2 = (r2 - l20[:, None] * y0 - l21[:, None] * y1) / l22[:, None]
        x2 = y2 / l22[:, None]
        x1 = (y1 - l21[:, None] * x2) / l11[:, None]
        x0 = (y0 - l10[:, None] * x1 - l20[:, None] * x2) / l00[:, None]
    bad = ~(np.isfinite(x0).all(axis=1) & np.isfinite(x1).all(axis=1)
            & np.isfinite(x2).all(axis=1))
    if np.any(bad):
        M = np.empty((int(bad.sum()), 3, 3))
        M[:, 0, 0], M[:, 1, 1], M[:, 2, 2] = a[bad], d[bad], f[bad]
        M[:, 0, 1] = M[:, 1, 0] = b[bad]
        M[:, 0, 2] = M[:, 2, 0] = c[bad]
        M[:, 1, 2] = M[:, 2, 1] = e[bad]
        R = np.stack([r0[bad], r1[bad], r2[bad]], axis=1)
        try:
            X = np.linalg.solve(M, R)
        except np.linalg.LinAlgError as exc:
            raise InvalidInputError("a leave-pair-out system is singular; increase alpha") \
                from exc
        x0[bad], x1[bad], x2[bad] = X[:, 0], X[:, 1], X[:, 2]
    return x0, x1, x2


class GlobalRankSpectral:
    """Hold-out for the all-pairs (global) RankRLS, magnitude-preserving cost (Paper I eq. 21).

    Paper I eqs. (34)-(39) hold out a pair; the same algebra holds out any set U of size u:
    with ``c = m - u``, ``Q = (c I + λ K^{-1})^{-1} = K (c K + λI)^{-1}`` (from the one
    eigendecomposition of K, or of X^T X in the primal; valid for rank-deficient K) and the
    hold-out Laplacian ``L~ = c I - B B^T``, ``B = [1_Ubar | sqrt(c) E_U]`` (m x (1+u)):

        f_U = (Q L~ y)_U - (Q B)_U (B^T Q B - I)^{-1} B^T Q L~ y            (eq. 38)

    where every factor is assembled from ``Q 1``, ``Q y``, ``1^T Q 1``, ``1^T Q y`` (O(m r t)
    per λ and set size) and the block ``Q_UU``. Sets of equal size are processed as one
    batch (leave-one-out: u = 1; leave-pair-out: u = 2, one O(m^2 r) product per λ, then
    O(t) per pair with batched 3 x 3 solves). A general set costs O(u^2 r + u^3).
    """

    def __init__(self, A, s, Y, kind):
        self.A, self.s, self.Y, self.kind = A, np.maximum(s, 0.0), Y, kind
        self.m = A.shape[0]
        self.At1 = A.sum(axis=0)
        self.AtY = A.T @ Y
        self.sumY = Y.sum(axis=0)

    def q_weights(self, lam, c):
        if self.kind == "dual":
            return self.s / (lam + c * self.s)
        return 1.0 / (lam + c * self.s)

    def equal_size_sets(self, Hs, lams):
        """Hold-out predictions for a stack of equal-size sets ``Hs`` (n, u): (n_lams, n, u, t).

        Two algebraically equal forms: the Q-form (eq. 38) is accurate for large λ; for
        small λ (dual only) ``B^T Q B - I`` nearly vanishes, and the E-form with
        ``E = I - cQ = λ (cK + λI)^{-1}`` (weights λ/(λ+cs), computed without cancellation)
        is used instead: since ``B^T B = cI`` and ``B^T L~ y = 0``,

            f_U = -(1/c) [ (E L~ y)_U + (B_U - (E B)_U) (B^T E B)^{-1} B^T E L~ y ].
        """
        n, u = Hs.shape
        if u == 2:
            return self._pairs(Hs, lams)
        c = float(self.m - u)
        rc = np.sqrt(c)
        Y = self.Y
        YU = Y[Hs]                                                   # (n, u, t)
        sig = self.sumY[None, :] - YU.sum(axis=1)                    # 1_Ubar^T y, (n, t)
        out = np.empty((lams.size, n, u, Y.shape[1]))
        eye = np.eye(1 + u)
        for k, lam in enumerate(lams):
            w, eform = self._weights(lam, c)
            W1 = self.A @ (w * self.At1)
            WY = self.A @ (w[:, None] * self.AtY)
            s11, s1Y = W1.sum(), WY.sum(axis=0)
            Wuu = _blocks(self.A, w, Hs)                             # (n, u, u)
            W1U, WYU = W1[Hs], WY[Hs]
            g = W1U - Wuu.sum(axis=2)                                # (W 1_Ubar)_U
            h = s11 - 2.0 * W1U.sum(axis=1) + Wuu.sum(axis=(1, 2))   # 1_Ubar^T W 1_Ubar
            z = c * WYU - g[:, :, None] * sig[:, None, :] \
                - c * np.einsum("nuv,nvt->nut", Wuu, YU)             # (W L~ y)_U
            top = c * (s1Y[None, :] - WYU.sum(axis=1)) - h[:, None] * sig \
                - c * np.einsum("nu,nut->nt", g, YU)                 # 1_Ubar^T W L~ y
            WB = np.concatenate([g[:, :, None], rc * Wuu], axis=2)   # (W B)_U, (n, u, 1+u)
            BWB = np.empty((n, 1 + u, 1 + u))
            BWB[:, 0, 0] = h
            BWB[:, 0, 1:] = rc * g
            BWB[:, 1:, 0] = rc * g
            BWB[:, 1:, 1:] = c * Wuu
            if not eform:
                BWB -= eye
            rhs = np.concatenate([top[:, None, :], rc * z], axis=1)  # (n, 1+u, t)
            try:
                sol = np.linalg.solve(BWB, rhs)
            except np.linalg.LinAlgError as exc:
                raise InvalidInputError(
                    "a hold-out system is singular; increase alpha") from exc
            if eform:
                WB = -WB
                WB[:, :, 1:] += rc * np.eye(u)                       # B_U - (E B)_U
                out[k] = -(z + np.einsum("nuk,nkt->nut", WB, sol)) / c
            else:
                out[k] = z - np.einsum("nuk,nkt->nut", WB, sol)
        return out

    def _weights(self, lam, c):
        """(weights, eform) for one λ: Q-form q = s/(λ+cs) or E-form λ/(λ+cs) (see above)."""
        q = self.q_weights(lam, c)
        if self.kind == "dual":
            ew = lam / (lam + c * self.s)
            if np.linalg.norm(c * q[:, None] * self._Ly) >= np.linalg.norm(ew[:, None] * self._Ly):
                return ew, True
        return q, False

    @property
    def _Ly(self):
        if not hasattr(self, "_Ly_cache"):
            self._Ly_cache = self.A.T @ (self.Y - self.Y.mean(axis=0))
        return self._Ly_cache

    def _pairs(self, Hs, lams):
        """Leave-pair-out: the u = 2 case of eq. (38) written out on 1-D arrays (no 3-D
        temporaries), with the 3 x 3 system solved by a vectorized Cholesky factorization
        (``B^T E B`` is positive definite, ``B^T Q B - I = -(1/c) B^T E B`` negative definite).
        O(m^2 r) per λ for the pair entries, then O(t) per pair."""
        n = Hs.shape[0]
        c = float(self.m - 2)
        rc = np.sqrt(c)
        i, j = Hs[:, 0], Hs[:, 1]
        Yi, Yj = self.Y[i], self.Y[j]
        sig = self.sumY[None, :] - Yi - Yj
        out = np.empty((lams.size, n, 2, self.Y.shape[1]))
        A2 = self.A * self.A
        for k, lam in enumerate(lams):
            w, eform = self._weights(lam, c)
            W1 = self.A @ (w * self.At1)
            WY = self.A @ (w[:, None] * self.AtY)
            s11, s1Y = W1.sum(), WY.sum(axis=0)
            dg = A2 @ w
            Wii, Wjj = dg[i], dg[j]
            Wij = _pair_entries(self.A, w, i, j)
            W1i, W1j, WYi, WYj = W1[i], W1[j], WY[i], WY[j]
            g1 = W1i - Wii - Wij
            g2 = W1j - Wij - Wjj
            h = s11 - 2.0 * (W1i + W1j) + Wii + 2.0 * Wij + Wjj
            z1 = c * (WYi - Wii[:, None] * Yi - Wij[:, None] * Yj) - g1[:, None] * sig
            z2 = c * (WYj - Wij[:, None] * Yi - Wjj[:, None] * Yj) - g2[:, None] * sig
            top = c * (s1Y[None, :] - WYi - WYj) - h[:, None] * sig \
                - c * (g1[:, None] * Yi + g2[:, None] * Yj)
            # S = +-(B^T W B [- I]) positive definite; solve S x = sgn * rhs
            sgn = 1.0 if eform else -1.0
            S00, S01, S02 = sgn * h, sgn * rc * g1, sgn * rc * g2
            S11, S12, S22 = sgn * c * Wii, sgn * c * Wij, sgn * c * Wjj
            if not eform:
                S00, S11, S22 = S00 + 1.0, S11 + 1.0, S22 + 1.0
            x0, x1, x2 = _chol3_solve(S00, S01, S02, S11, S12, S22,
                                      sgn * top, sgn * rc * z1, sgn * rc * z2)
            if eform:
                f1 = -(z1 - g1[:, None] * x0 + (rc - rc * Wii)[:, None] * x1
                       - (rc * Wij)[:, None] * x2) / c
                f2 = -(z2 - g2[:, None] * x0 - (rc * Wij)[:, None] * x1
                       + (rc - rc * Wjj)[:, None] * x2) / c
            else:
                f1 = z1 - (g1[:, None] * x0 + (rc * Wii)[:, None] * x1 + (rc * Wij)[:, None] * x2)
                f2 = z2 - (g2[:, None] * x0 + (rc * Wij)[:, None] * x1 + (rc * Wjj)[:, None] * x2)
            out[k, :, 0], out[k, :, 1] = f1, f2
        return out

    def holdout_sets(self, sets, lams):
        """Any list of sets: grouped by size, each group one batch. List of (n_lams, ``|H|``, t)."""
        out = [None] * len(sets)
        sizes = np.array([len(H) for H in sets])
        for u in np.unique(sizes):
            idx = np.flatnonzero(sizes == u)
            res = self.equal_size_sets(np.stack([sets[i] for i in idx]), lams)
            for j, i in enumerate(idx):
                out[i] = res[:, j]
        return out


class TouchedSetSpectral:
    """Hold-out for RankRLS with any Laplacian, by a Woodbury update on the touched rows.

    Training without the rows U removes every edge incident to U. With ``Delta`` the Laplacian
    and ``delta`` the right-hand side of the removed edges (both supported on the touched rows
    T: U and the other ends of removed edges — for query-structured data, the rows of the
    queries that U intersects), Lemma 2 of Paper I (eq. 34) gives

        f = (L - Delta + λ K^{-1})^{-1} (b - delta),   Q = (L + λ K^{-1})^{-1} = K (LK + λI)^{-1}
        v_T = f_T^full - Q_TT delta_T
        f_U = v_U + Q_UT (I - Delta_TT Q_TT)^{-1} Delta_TT v_T

    (push-through form of Sherman-Morrison-Woodbury; needs only the block Q_TT). For whole
    queries held out this is Paper I eq. (33) (leave-query-out). Removed edges never cross
    connected components, so ``Delta N = 0`` and ``N^T delta = 0`` for the component
    indicators N spanning null(L): the 1/λ part of Q along null(L) cancels exactly and the
    caller drops it from the factorization (otherwise it amplifies rounding like eps/λ^2).
    Cost per set and λ: ``O(|T|^2 r + |T|^3)`` after O(m r t) per λ; ``qblock`` supplies
    ``Q_TT = (F Z)_T diag(1/(e+λ)) (F Z)_T^T`` from the cached eigendecomposition
    ``F^T L F = Z diag(e) Z^T`` (F = X in the primal, a Cholesky factor of K in the dual).
    """

    def __init__(self, qblock, full_pred, n_outputs):
        self.qblock, self.full_pred, self.t = qblock, full_pred, n_outputs

    def holdout(self, specs, lams):
        """``specs``: list of ``(T, upos, Delta_TT, delta_T)``; returns list of (n_lams, ``|U|``, t)."""
        out = [np.empty((lams.size, len(upos), self.t)) for (_, upos, _, _) in specs]
        for k, lam in enumerate(lams):
            F = self.full_pred(lam)
            cache = {}
            for h, (T, upos, Dl, dl) in enumerate(specs):
                key = T.tobytes()
                QTT = cache.get(key)
                if QTT is None:
                    QTT = cache[key] = self.qblock(T, lam)
                vT = F[T] - QTT @ dl
                M = np.eye(len(T)) - Dl @ QTT
                corr = QTT[upos] @ _solve_small(M, Dl @ vT)
                out[h][k] = vT[upos] + corr
        return out


class QueryBlockSpectral:
    """Hold-out of whole queries for query-structured RankRLS (Paper I eq. 33, symmetric form).

    With ``R = L^{1/2}`` block diagonal over queries, the model is RLS in the coordinates of
    ``S = R K R`` (dual; ``c = (S + λI)^{-1} β``, ``β = R y``, ``a = R c``) or of the rows of
    ``Φ = R X`` (primal). Removing whole queries U deletes coordinates U only (no edge
    crosses a query), so the trained-without-U coefficients are the RLS down-date
    ``c~ = c - G_{:,U} (G_UU)^{-1} c_U`` (``G = (S + λI)^{-1}``) and

        f_U = (K R c)_U - (K R G)_{UU} (λ G_UU)^{-1} (λ c)_U .

    ``A_f`` factors the prediction map (dual ``K R V``, primal ``X Z``), ``A_s`` the
    coordinates (dual ``V``, eigenvectors of S; primal ``Φ Z``). λG_UU is formed with the
    weights λ/(e+λ) in the dual (no cancellation at small λ) and as ``I - Φ_U (Φ^TΦ+λ)^{-1}
    Φ_U^T`` in the primal. ``O(|U|^2 r + |U|^3)`` per set and λ after O(m r t) per λ; a full
    leave-query-out costs O(m r q̄ + ...) per λ with q̄ the mean query size.
    """

    def __init__(self, A_f, A_s, e, AtB, beta, kind):
        self.A_f, self.A_s, self.e, self.AtB, self.beta, self.kind = A_f, A_s, e, AtB, beta, kind

    def holdout(self, sets, lams):
        out = [np.empty((lams.size, len(U), self.beta.shape[1])) for U in sets]
        for k, lam in enumerate(lams):
            d = 1.0 / (self.e + lam)
            F = self.A_f @ (d[:, None] * self.AtB)
            if self.kind == "dual":
                g = lam * d
                lc = self.A_s @ (g[:, None] * self.AtB)
            else:
                lc = self.beta - self.A_s @ (d[:, None] * self.AtB)
            for h, U in enumerate(sets):
                AsU = self.A_s[U]
                if self.kind == "dual":
                    lG = (AsU * g) @ AsU.T
                else:
                    lG = np.eye(len(U)) - (AsU * d) @ AsU.T
                corr = (self.A_f[U] * d) @ AsU.T @ _solve_small(lG, lc[U])
                out[h][k] = F[U] - corr
        return out


class QuerySplitSpectral:
    """Hold-out of arbitrary row sets (splitting queries) for dual query-structured RankRLS.

    Well-conditioned alternative to :class:`TouchedSetSpectral` for ``L = D - P P^T``: the
    coefficients live in ``W = range(C)`` (centred within queries), parametrized as
    ``a = D^{1/2} H a~`` with H an orthonormal basis of W (one Householder reflector per
    query). The full model is RLS in these coordinates, ``(S_H + λI) a~ = β_H`` with
    ``S_H = H^T D^{1/2} K D^{1/2} H`` (positive definite when K is), so no 1/λ components
    appear. Without the rows U the coefficient space is ``{H_U a~ = 0}`` and the
    regularizer of the remaining rows R of touched queries is rescaled by
    ``1 + E_R``, ``E_r = u_q / (n_q - u_q)``; with ``G = (S_H + λI)^{-1}`` (from the one
    eigendecomposition), ``A = G^{-1} + λ H_R^T E_R H_R`` and Lagrange multipliers mu:

        mu  = -(H_U A^{-1} H_U^T)^+ H_U A^{-1} β_H
        nu  = (E_R^{-1}/λ + H_R G H_R^T)^{-1} H_R G (β_H + H_U^T mu)
        f_U = K_{U,:} D^{1/2} H G (β_H + H_U^T mu - H_R^T nu).

    Cost per λ: ``O(|T|^2 r)`` per distinct touched-row set T (rows of the touched queries),
    then ``O(|T|^3)`` per hold-out set; leave-one-out and leave-pair-out inside queries thus
    cost O(sum_q n_q^2 r) per λ plus O(n_q^3) per row or pair.
    """

    def __init__(self, HV, Wf, e, VtB, codes, nq):
        self.HV, self.Wf, self.e, self.VtB = HV, Wf, e, VtB
        self.codes, self.nq = codes, nq

    def holdout(self, sets, lams):
        """Sets sharing the same touched rows T (e.g. all pairs or rows of one query) share
        the ``O(|T|^2 r)`` blocks per λ; each set then costs ``O(|T|^3)``."""
        out = [np.empty((lams.size, len(U), self.VtB.shape[1])) for U in sets]
        groups = {}
        for h, U in enumerate(sets):
            qs = np.unique(self.codes[U])
            T = np.flatnonzero(np.isin(self.codes, qs))
            inU = np.isin(T, U)
            uq = np.bincount(self.codes[U], minlength=self.nq.size)
            cR = self.codes[T[~inU]]
            E = uq[cR] / (self.nq[cR] - uq[cR])
            upos = np.searchsorted(T, U)
            groups.setdefault(T.tobytes(), (T, []))[1].append((h, upos, np.flatnonzero(~inU), E))
        for k, lam in enumerate(lams):
            d = 1.0 / (self.e + lam)
            dVb = d[:, None] * self.VtB
            for T, members in groups.values():
                YT = self.HV[T]
                WT = self.Wf[T]
                GTT = (YT * d) @ YT.T                 # H_T G H_T^T
                WGT = (WT * d) @ YT.T                 # (K D^{1/2} H G H^T)_TT
                gT, fT = YT @ dVb, WT @ dVb
                for h, u, r, E in members:
                    GUU, GRU, GRR = GTT[np.ix_(u, u)], GTT[np.ix_(r, u)], GTT[np.ix_(r, r)]
                    gU, gR = gT[u], gT[r]
                    if r.size:
                        Minner = GRR + np.diag(1.0 / (lam * E))
                        MiGRU = _solve_small(Minner, GRU)
                        MigR = _solve_small(Minner, gR)
                        CAC = GUU - GRU.T @ MiGRU
                        CAb = gU - GRU.T @ MigR
                    else:
                        CAC, CAb = GUU, gU
                    mu = -np.linalg.lstsq(CAC, CAb, rcond=None)[0]
                    res = fT[u] + WGT[np.ix_(u, u)] @ mu
                    if r.size:
                        res -= WGT[np.ix_(u, r)] @ (MigR + MiGRU @ mu)
                    out[h][k] = res
        return out
