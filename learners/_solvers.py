"""Linear-algebra kernels shared by RLS and RankRLS (thesis §2.7; Paper I eqs. 17, 28, 31).

* :func:`solve_shifted` — one regularized system ``(A + alpha I) X = B`` by Cholesky
  (``scipy.linalg.solve(assume_a='pos')``), the only decomposition a single fit pays for:
  O(d^3/3 + d^2 t) for a d x d matrix and t outputs.
* :func:`sym_eig` — symmetric eigendecomposition (LAPACK divide-and-conquer ``syevd``),
  computed once and reused for every λ of a path and every hold-out set: O(d^3).
* :func:`spectral_apply` — ``V diag(w) V^T B`` for the weights ``w`` of one λ: O(d^2 t).
* :func:`ridge_path_tridiagonal` — ``(A + a I)^-1 C`` for a whole λ grid from one Householder
  tridiagonalization (about half an eigendecomposition; the direct hold-out route of the
  reduced-set learners, :mod:`learners.reduced_set`).
* :func:`resolve_solver` — primal or dual, chosen in one place by shape and kernel.
"""

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from kernelrank.errors import InvalidInputError, InvalidParameterError, NumericalError
from learners._numerics import check_finite, magnitude

#: entries beyond sqrt(max float64) overflow in any product of two of them
_HUGE = 1e150


def resolve_solver(solver, kernel_name, n_samples, n_features):
    """Return ``"primal"`` or ``"dual"``.

    ``"auto"`` picks the primal form exactly when the kernel is linear and there are fewer
    features than samples (the n x n system is then the smaller one, O(n^3 + n^2 m)).
    """
    if solver == "primal":
        if kernel_name != "linear":
            raise InvalidParameterError(
                f"solver='primal' needs kernel='linear' (got kernel={kernel_name!r}); "
                "use solver='dual' or 'auto'")
        return "primal"
    if solver == "dual":
        return "dual"
    if solver == "auto":
        return "primal" if (kernel_name == "linear" and n_features < n_samples) else "dual"
    raise InvalidParameterError(f"solver must be 'auto', 'dual' or 'primal', got {solver!r}")


def solve_shifted(A, B, alpha, *, assume_pos=True, overwrite=False):
    """Solve ``(A + diag(alpha)) X = B`` (``alpha`` scalar or vector).

    Cholesky when ``A + alpha I`` is positive definite (``assume_pos``); if the
    factorization fails (indefinite kernel, numerically singular) fall back to LU.
    ``A`` is left untouched unless ``overwrite`` (then it is destroyed, saving a copy, and a
    failed Cholesky raises ``numpy.linalg.LinAlgError`` instead of falling back to LU).
    Cost O(d^3/3 + d^2 t).
    """
    def shifted(src, copy):
        M = np.array(src, dtype=np.float64, copy=copy)
        M.flat[:: M.shape[0] + 1] += alpha
        return M
    keep = None if overwrite else A
    M = shifted(A, not overwrite)
    try:
        if assume_pos:
            # cho_factor/cho_solve: SciPy's solve(assume_a="pos") also estimates the
            # condition number, which doubles the cost of a single fit.
            factor = sla.cho_factor(M, lower=True, overwrite_a=True, check_finite=False)
            return sla.cho_solve(factor, B, check_finite=False)
    except (np.linalg.LinAlgError, sla.LinAlgError, ValueError):
        if keep is None:                    # A destroyed: the caller retries with LU
            raise np.linalg.LinAlgError("not positive definite") from None
        M = shifted(keep, True)
    try:
        return sla.solve(M, B, overwrite_a=True, check_finite=False)
    except (np.linalg.LinAlgError, sla.LinAlgError) as exc:
        size = magnitude(keep) if keep is not None else None
        if size is not None and size > _HUGE:       # overflow inside LAPACK, not singularity
            raise NumericalError(
                f"the regularized system (A + alpha I) could not be solved: its entries reach "
                f"{size:.1e} and overflow; scale the features (e.g. StandardScaler) or rescale "
                "the precomputed kernel") from exc
        raise InvalidInputError(
            f"the regularized system is singular for alpha={alpha!r}; increase alpha") from exc


def sym_eig(A, *, overwrite=False):
    """Eigendecomposition ``A = V diag(s) V^T`` of a symmetric matrix (``syevd``).

    Returns ``(s, V)`` with ascending eigenvalues. O(d^3) time, O(d^2) memory.
    """
    A = np.asarray(A, dtype=np.float64)
    if not overwrite:
        A = A.copy()
    # SciPy < 1.14 rejects syevd's workspace query for a 1 x 1 matrix: use syev there
    driver = "evd" if A.shape[0] > 1 else "ev"
    s, V = sla.eigh(A, overwrite_a=True, check_finite=False, driver=driver)
    return s, V


def spectral_apply(V, w, VtB):
    """``V diag(w) (V^T B)`` given ``V^T B`` (shape (r, t)). O(d r t)."""
    return V @ (w[:, None] * VtB)


def gram(X):
    """``X^T X`` as a dense (n, n) array; sparse ``X`` is multiplied sparse. O(nnz n).

    Raises :class:`~kernelrank.errors.NumericalError` if it overflows (unscaled features):
    an infinite ``X^T X`` would otherwise make the Cholesky solve return ``w = 0``.
    """
    with np.errstate(over="ignore", invalid="ignore"):
        G = X.T @ X
    G = G.toarray() if sp.issparse(G) else np.asarray(G)
    return check_finite(G, "X^T X", X=X)


def dense(M):
    return M.toarray() if sp.issparse(M) else np.asarray(M)


def ridge_path_tridiagonal(A, C, alphas):
    """``(A + a I)^-1 C`` for every ``a`` in ``alphas`` (A symmetric PSD, r x r).

    One Householder tridiagonalization ``A = Q T Q^T`` (LAPACK ``sytrd``, 4/3 r^3 flops, no
    eigenvectors), then per lambda a tridiagonal SPD solve (``ptsv``, O(r t)) and the
    reflectors applied to ``Q^T C`` and back (O(r^2 t)). About half the cost of a full
    eigendecomposition; falls back to one if ``T + a I`` is not numerically positive definite.
    Returns an array (n_alphas, r, t).
    """
    r, t = C.shape
    lw = sla.lapack.dsytrd_lwork(r, lower=1)
    Vh, d, e, tau, info = sla.lapack.dsytrd(A, lower=1, lwork=int(lw[0]), overwrite_a=0)
    if info != 0:
        raise InvalidInputError(f"tridiagonalization failed (LAPACK info={info})")
    Vh = np.asfortranarray(Vh)

    def reflect(X, order):
        for i in order:                       # H_i = I - tau_i v v^T, v = [0..0, 1, Vh[i+2:, i]]
            if tau[i] == 0.0:
                continue
            v = Vh[i + 1:, i].copy()
            v[0] = 1.0
            X[i + 1:] -= np.outer(tau[i] * v, v @ X[i + 1:])
        return X

    Z = reflect(np.array(C, dtype=float), range(r - 1))          # Q^T C
    out = np.empty((len(alphas), r, t))
    for k, a in enumerate(alphas):
        _, _, x, info = sla.lapack.dptsv(d + a, e, Z)
        if info != 0:
            s, V = sla.eigh(A, check_finite=False)
            return np.stack([V @ ((V.T @ C) / (np.maximum(s, 0.0) + b)[:, None]) for b in alphas])
        out[k] = x
    Y = out.transpose(1, 0, 2).reshape(r, -1).copy()
    Y = reflect(Y, range(r - 2, -1, -1))                        # Q Y
    return Y.reshape(r, len(alphas), t).transpose(1, 0, 2)
