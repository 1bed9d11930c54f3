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

RankRLS (Paper I Sects. 3.3-3.4):

* leave-query-out / hold-out of whole queries (eq. 33, here in the symmetric form with
  ``S = L^{1/2} K L^{1/2}``): :class:`SymmetricRankSpectral`;
* hold-out of arbitrary row sets for the all-pairs (global) ranker, including leave-pair-out
  (eqs. 34-39 generalised from |U| = 2 to any |U|): :class:`GlobalRankSpectral`.

Costs are stated on each method; none loops in Python over examples or pairs.
"""

import numpy as np

from learners.errors import InvalidInputError

_PAIR_CHUNK = 1 << 16


def _solve_small(M, b):
    """Solve the small dense system of one hold-out set (LU; sizes are |H|)."""
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

        Returns a list over sets of arrays (n_lams, |H|, t). O(|H|^2 r + |H|^3) per set and λ
        after the O(m r t) per-λ preparation.
        """
        out = [np.empty((lams.size, len(H), self.Y.shape[1])) for H in sets]
        for k, lam in enumerate(lams):
            PY, RY, residual = self._forms(lam)
            if residual:
                sw = np.sqrt(self.comp_weights(lam))
            else:
                sw = np.sqrt(self.hat_weights(lam))
            for h, H in enumerate(sets):
                B = self.A[H] * sw
                M = B @ B.T
                YH = self.Y[H]
                if residual:                        # M = (I - P)_HH
                    out[h][k] = YH - _solve_small(M, RY[H])
                else:                               # M = P_HH
                    num = PY[H] - M @ YH
                    out[h][k] = _solve_small(np.eye(len(H)) - M, num)
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
