"""Trust-region Newton method with conjugate gradients (TRON) for smooth convex problems.

Lin, Weng & Keerthi (2008), "Trust region Newton method for large-scale logistic
regression", JMLR 9, Algorithm 2 with Steihaug's truncated conjugate gradient (their
Algorithm 3); the solver of LIBLINEAR's primal L2-loss SVM and of Lee & Lin (2014),
"Large-scale linear RankSVM", Neural Computation 26(4). Only products of the Hessian with a
vector are needed, so a problem whose Hessian is ``I + X^T D X`` never forms it.

At the iterate w with gradient g and trust-region radius Δ, conjugate gradients
approximately minimize the quadratic model ``q(s) = g·s + ½ s^T H s`` inside ``||s|| <= Δ``
(stopping when the residual is at most ``cg_rtol ||g||`` or the step reaches the boundary).
The step is taken when the actual reduction is at least η₀ = 1e-4 times the predicted one;
Δ is updated from the ratio as in the paper (σ₁, σ₂, σ₃ = 0.25, 0.5, 4; η₁, η₂ = 0.25,
0.75). Where |actual| and |predicted reduction| are both below 1e-12 |J| (rounding noise of
J), a step is taken iff it decreases ||g||, and the method stops at the first that does
not. With a preconditioner M the trust region and the CG residual are measured in the
M-norm (Hsia, Chiang & Lin 2018, "Preconditioned conjugate gradient methods in truncated
Newton frameworks for large-scale linear classification", ACML). Stopping: ``||g(w)|| <= tol * gnorm_ref`` (LIBLINEAR's rule; ``gnorm_ref`` is the
gradient norm at w = 0, so that a warm start stops where a cold start would).
"""

import numpy as np

__all__ = ["TronResult", "tron"]

_ETA0, _ETA1, _ETA2 = 1e-4, 0.25, 0.75
_SIGMA1, _SIGMA2, _SIGMA3 = 0.25, 0.5, 4.0


class TronResult:
    """Outcome of :func:`tron`: ``w``, ``fun`` J(w), ``grad_norm`` ||∇J(w)||,
    ``n_iter`` (Newton steps tried), ``n_cg`` (Hessian-vector products), ``converged``."""

    def __init__(self, w, fun, grad_norm, n_iter, n_cg, converged):
        self.w, self.fun, self.grad_norm = w, fun, grad_norm
        self.n_iter, self.n_cg, self.converged = n_iter, n_cg, converged


class Identity:
    """The trivial preconditioner M = I (:func:`tron`'s default)."""

    @staticmethod
    def solve(r):
        return r

    @staticmethod
    def inner(a, b):
        return float(a @ b)


def _steihaug_cg(g, hess_vec, delta, rtol, max_cg, M):
    """Approximate minimizer s of ``g·s + ½ s^T H s`` with ``||s||_M <= delta`` by
    preconditioned conjugate gradients (Steihaug 1983; Hsia, Chiang & Lin 2018 for the
    preconditioned trust region).

    Stops when ``||r||_{M⁻¹} <= rtol ||g||_{M⁻¹}`` or the step reaches the boundary.
    Returns ``(s, r, n_products)`` with r = -g - H s, the residual (used for the predicted
    reduction ``-(g·s + ½ s^T H s) = -½ (g·s - s·r)``).
    """
    s = np.zeros_like(g)
    r = -g
    z = M.solve(r)
    d = z.copy()
    rz = r @ z
    stop = rtol * np.sqrt(rz)
    n = 0
    while np.sqrt(max(rz, 0.0)) > stop and n < max_cg:
        Hd = hess_vec(d)
        n += 1
        alpha = rz / (d @ Hd)
        s_next = s + alpha * d
        if M.inner(s_next, s_next) > delta * delta:
            # follow d to the boundary: the root tau >= 0 of ||s + tau d||_M = delta
            ss, dd, sd = M.inner(s, s), M.inner(d, d), M.inner(s, d)
            rad = np.sqrt(max(sd * sd + dd * (delta * delta - ss), 0.0))
            tau = (delta * delta - ss) / (sd + rad) if sd >= 0 else (rad - sd) / dd
            s = s + tau * d
            r = r - tau * Hd
            break
        s = s_next
        r = r - alpha * Hd
        z = M.solve(r)
        rz_next = r @ z
        d = z + (rz_next / rz) * d
        rz = rz_next
    return s, r, n


def tron(fun_grad, hess_vec_at, w0, *, tol, gnorm_ref, max_iter, cg_rtol=0.1, max_cg=None,
         precond_at=None):
    """Minimize a smooth strongly convex J from ``w0`` by trust-region Newton-CG.

    Parameters
    ----------
    fun_grad : callable ``w -> (J(w), ∇J(w), state)``
        ``state`` is handed back to ``hess_vec_at`` when w becomes the iterate (for J a sum
        of losses it holds what the Hessian needs, computed with the gradient).
    hess_vec_at : callable ``(w, state) -> (v -> ∇²J(w) v)``
    w0 : ndarray (n,)
    tol : float
        Stop when ``||∇J(w)|| <= tol * gnorm_ref``.
    gnorm_ref : float
        Reference gradient norm (LIBLINEAR: ``||∇J(0)||``).
    max_iter : int
        Newton steps (accepted or not).
    cg_rtol : float
        Relative residual of each CG solve (LIBLINEAR: 0.1).
    max_cg : int, optional
        Hessian-vector products per CG solve (default: n).
    precond_at : callable ``(w, state) -> M``, optional
        A symmetric positive definite preconditioner M ≈ ∇²J(w) with ``M.solve(r)`` = M⁻¹r
        and ``M.inner(a, b)`` = a^T M b; the trust region is then ``||s||_M <= Δ``
        (default: :class:`Identity`, LIBLINEAR's unpreconditioned TRON).

    Returns
    -------
    TronResult

    Notes
    -----
    Cost per Newton step: one ``fun_grad`` and one Hessian-vector product per CG iteration.
    For a twice differentiable strongly convex J the iterates converge superlinearly (Lin,
    Weng & Keerthi 2008); where J is only once differentiable with a piecewise-linear
    gradient (the squared hinge), the generalized Hessian is used, as in LIBLINEAR's L2-loss
    SVM.
    """
    w = np.asarray(w0, dtype=np.float64).copy()
    max_cg = len(w) if max_cg is None else max_cg
    precond_at = precond_at or (lambda w, state: Identity)
    f, g, state = fun_grad(w)
    gnorm = float(np.linalg.norm(g))
    M = precond_at(w, state)
    delta = float(np.sqrt(g @ M.solve(g)))
    n_cg = 0
    it = 0
    target = tol * gnorm_ref
    converged = gnorm <= target
    hv = hess_vec_at(w, state)
    while not converged and it < max_iter:
        it += 1
        s, r, k = _steihaug_cg(g, hv, delta, cg_rtol, max_cg, M)
        n_cg += k
        w_new = w + s
        gs = g @ s
        prered = -0.5 * (gs - s @ r)
        f_new, g_new, state_new = fun_grad(w_new)
        actred = f - f_new
        snorm = float(np.sqrt(M.inner(s, s)))
        if it == 1:
            delta = min(delta, snorm)
        denom = f_new - f - gs
        alpha = _SIGMA3 if denom <= 0 else max(_SIGMA1, -0.5 * (gs / denom))
        # below ~1e-12 |J| the function values are rounding noise: the ratio test means
        # nothing there, so a step is judged by the gradient norm instead
        noise = 1e-12 * abs(f)
        in_noise = abs(actred) <= noise and abs(prered) <= noise
        g_new_norm = float(np.linalg.norm(g_new))
        if in_noise:
            accept = g_new_norm < gnorm
        else:
            accept = actred > _ETA0 * prered
            if actred < _ETA0 * prered:
                delta = min(max(alpha, _SIGMA1) * snorm, _SIGMA2 * delta)
            elif actred < _ETA1 * prered:
                delta = max(_SIGMA1 * delta, min(alpha * snorm, _SIGMA2 * delta))
            elif actred < _ETA2 * prered:
                delta = max(_SIGMA1 * delta, min(alpha * snorm, _SIGMA3 * delta))
            else:
                delta = max(delta, min(alpha * snorm, _SIGMA3 * delta))
        if accept:
            w, f, g, state, gnorm = w_new, f_new, g_new, state_new, g_new_norm
            converged = gnorm <= target
            if converged:
                break
            hv, M = hess_vec_at(w, state), precond_at(w, state)
        elif in_noise or (actred <= 0 and prered <= 0):
            break   # no further progress is representable in floating point
    return TronResult(w, float(f), gnorm, it, n_cg, bool(converged))
