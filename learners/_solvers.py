"""Linear-algebra kernels shared by RLS and RankRLS (thesis §2.7; Paper I eqs. 17, 28, 31).

* :func:`solve_shifted` — one regularized system ``(A + alpha I) X = B`` by Cholesky
  (``scipy.linalg.solve(assume_a='pos')``), the only decomposition a single fit pays for:
  O(d^3/3 + d^2 t) for a d x d matrix and t outputs.
* :func:`sym_eig` — symmetric eigendecomposition (LAPACK divide-and-conquer ``syevd``),
  computed once and reused for every λ of a path and every hold-out set: O(d^3).
* :func:`spectral_apply` — ``V diag(w) V^T B`` for the weights ``w`` of one λ: O(d^2 t).
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
