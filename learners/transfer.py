"""Regularized least squares towards a prior hypothesis (hypothesis transfer learning).

A *source* hypothesis ``g`` — a model trained elsewhere, e.g. on other corpora — is known
through its predictions ``g(x)``.  :class:`TransferRLS` minimizes

    Σ_i (y_i − f(x_i))² + λ ‖f − β g‖²_k      over ``f − β g`` in the RKHS of ``k``,

the least-squares form of adapting a prior model (Yang, Yan & Hauptmann 2007, "Cross-domain
video concept detection using adaptive SVMs", ACM MM, §3; with the square loss and the
weight β chosen by closed-form leave-one-out: Tommasi, Orabona & Caputo 2010, "Safety in
numbers: learning categories from few examples with multi model knowledge transfer", CVPR,
§3; its stability: Kuzborskij & Orabona 2013, "Stability and hypothesis transfer learning",
ICML).  Its solution is ``f = β g + h_β`` with ``h_β`` the RLS fit to the residual targets
``y − β g``.  RLS is linear in its targets, so one fit to the two target columns
``[y, g]`` gives ``h_y`` and ``h_g`` and with them every β:

    f_β(x) = h_y(x) − β h_g(x) + β g(x).

The same identity holds for every closed-form hold-out of the base learner: the prediction
for a held-out set H of the model trained without H is ``h_y^{(−H)} − β h_g^{(−H)} + β g_H``
— exact **provided g was not trained on the rows** (it is a fixed function of x; a source
model that saw the training rows leaks their labels into every hold-out estimate).  So the
regularization path, leave-one-out and any hold-out sets come for all (λ, β) at once.

``prior=None`` is the zero hypothesis: the learner is then exactly its base learner.

Complexity: the base learner's with two target columns instead of one (one decomposition,
O(m r) more per λ and hold-out set), plus O(m) per β.
"""

from __future__ import annotations

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval

from kernelrank.errors import InvalidInputError
from learners.reduced_set import ReducedSetRLS
from learners._validation import as_2d_targets, check_numeric_dtype
from learners.rls import RLS, RLS_CONSTRAINTS

__all__ = ["TransferRLS", "TransferReducedSetRLS"]

#: β: any finite real (0: the prior is ignored; 1: it is the starting point; < 0 allowed).
BETA = [Interval(Real, None, None, closed="neither")]


def _check_prior(prior, m, t, what):
    """The prior predictions as a float array (m, t) (zeros for None; a vector is one
    output's)."""
    if prior is None:
        return np.zeros((m, t))
    g = np.asarray(prior, dtype=np.float64)
    if g.ndim == 1:
        g = g[:, None]
    if g.ndim != 2 or g.shape[0] != m or g.shape[1] != t:
        raise InvalidInputError(f"prior must be one prediction of the source hypothesis per "
                                f"row of {what} ({m}) and output ({t}), got shape "
                                f"{np.shape(prior)}")
    if not np.all(np.isfinite(g)):
        bad = int(np.flatnonzero(~np.all(np.isfinite(g), axis=1))[0])
        raise InvalidInputError(f"prior holds a non-finite value (row {bad}); the source "
                                "hypothesis must score every row")
    return g


def _betas(betas, beta):
    """``(values, single)``: the β grid, and whether the caller gave none (no β axis)."""
    if betas is None:
        return np.array([float(beta)]), True
    b = np.asarray(betas, dtype=np.float64).ravel()
    if b.size == 0 or not np.all(np.isfinite(b)):
        raise InvalidInputError(f"betas must be a non-empty list of finite numbers, got "
                                f"{betas!r}")
    return b, False


class _TransferMixin:
    """f_β = h_y − β h_g + β g over a base learner fitted to the targets [y, g]."""

    #: Order of the leading axes of path outputs (the selection engine reads it).
    path_parameters = ("alpha", "beta")

    def fit(self, X, y, prior=None):
        """Fit to ``y`` towards the source hypothesis.

        Parameters
        ----------
        X : the base learner's input (features, or the kernel for ``kernel="precomputed"``)
        y : array-like (m,) or (m, t)
        prior : array-like (m,) or (m, t), optional — the source hypothesis' predictions
            ``g(x_i)`` on the training rows (zeros if omitted: the base learner itself)

        Returns
        -------
        self
        """
        if y is None:
            raise InvalidInputError(f"{type(self).__name__} requires y to be passed, but the "
                                    "target y is None")
        check_numeric_dtype(y, type(self).__name__, "y")
        Y, self._prior_1d = as_2d_targets(y)
        G = _check_prior(prior, Y.shape[0], Y.shape[1], "y")
        super().fit(X, np.hstack([Y, G]))
        self.prior_fit_ = G[:, 0] if self._prior_1d else G
        return self

    def _combine(self, H, G, betas, beta_axis, row_dims=1):
        """``H_y − β H_g + β G`` for each β (a new axis before the ``row_dims`` row axes when
        ``beta_axis``): ``H`` (..., rows, 2t) the base learner's outputs for the columns
        [y, g], ``G`` (rows, t) the prior at those rows."""
        t = H.shape[-1] // 2
        hy, hg = H[..., :t], H[..., t:]
        out = [hy - b * hg + b * G for b in betas]
        if self._prior_1d:
            out = [o[..., 0] for o in out]
        if not beta_axis:
            return out[0]
        return np.stack(out, axis=hy.ndim - 1 - row_dims)

    def _prior_at(self, prior, m, what):
        G = self.prior_fit_
        return _check_prior(prior, m, 1 if G.ndim == 1 else G.shape[1], what)

    def _fit_prior(self, rows):
        G = self.prior_fit_
        return G[rows][..., None] if G.ndim == 1 else G[rows]

    def predict(self, X, prior=None):
        """``f_β(x) = h_y(x) − β h_g(x) + β g(x)``; ``prior``: ``g`` at the rows of ``X``."""
        H = np.asarray(super().predict(X))
        return self._combine(H, self._prior_at(prior, H.shape[0], "X"), [self.beta], False)

    def predict_path(self, X, alphas, betas=None, prior=None):
        """Predictions for every λ (and β): shape (n_alphas[, n_betas], m'[, t])."""
        H = np.asarray(super().predict_path(X, alphas))
        b, single = _betas(betas, self.beta)
        return self._combine(H, self._prior_at(prior, H.shape[-2], "X"), b, not single)

    def holdout_sets(self, sets, alphas=None, betas=None):
        """Exact hold-out predictions of each set (the base learner's closed form for
        ``[y, g]``, combined): each ([n_alphas,] [n_betas,] |H|[, t])."""
        b, single = _betas(betas, self.beta)
        out = super().holdout_sets(sets, alphas=alphas)
        return [self._combine(np.asarray(P), self._fit_prior(np.asarray(H)), b, not single)
                for H, P in zip(sets, out)]

    def leave_one_out(self, alphas=None, betas=None):
        """Exact leave-one-out predictions for every λ (and β)."""
        b, single = _betas(betas, self.beta)
        P = np.asarray(super().leave_one_out(alphas=alphas))
        return self._combine(P, self._fit_prior(slice(None)), b, not single)

    def leave_pair_out(self, pairs, alphas=None, betas=None):
        """Exact leave-pair-out predictions: ([n_alphas,] [n_betas,] n, 2[, t]) for the
        pairs (i, j) of the (n, 2) array ``pairs``."""
        b, single = _betas(betas, self.beta)
        pairs = np.asarray(pairs)
        P = np.asarray(super().leave_pair_out(pairs, alphas=alphas))   # (..., n, 2, 2t)
        return self._combine(P, self._fit_prior(pairs), b, not single, row_dims=2)


class TransferRLS(_TransferMixin, RLS):
    """RLS towards a prior hypothesis (module docstring): ``f = β g + h``, ``h`` the RLS fit to
    ``y − β g``.

    Parameters
    ----------
    alpha : float, default=1.0 — λ > 0
    beta : float, default=1.0 — the weight of the source hypothesis (0: plain RLS)
    kernel, gamma, degree, coef0, kernel_params, solver : as :class:`learners.rls.RLS`

    Attributes
    ----------
    dual_coef_ / coef_ : the base RLS's, with two columns (the fits to ``y`` and to ``g``)
    prior_fit_ : ndarray (m,) or (m, t) — ``g`` at the training rows

    Notes
    -----
    ``fit(X, y, prior=g)``; ``predict(X, prior=g_new)``. Complexity: RLS's with t = 2.
    """

    _parameter_constraints = {**RLS_CONSTRAINTS, "beta": BETA}

    def __init__(self, alpha=1.0, beta=1.0, *, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, solver="auto"):
        super().__init__(alpha=alpha, kernel=kernel, gamma=gamma, degree=degree,
                         coef0=coef0, kernel_params=kernel_params, solver=solver)
        self.beta = beta


class TransferReducedSetRLS(_TransferMixin, ReducedSetRLS):
    """Reduced-set RLS towards a prior hypothesis (module docstring; the base learner is
    :class:`learners.reduced_set.ReducedSetRLS`, its hold-outs remove held-out basis
    vectors as there).

    Parameters
    ----------
    alpha, beta : as :class:`TransferRLS`
    kernel, gamma, degree, coef0, kernel_params, n_basis, basis_indices, random_state,
    jitter, remove_basis : as :class:`learners.reduced_set.ReducedSetRLS`
    """

    _parameter_constraints = {**ReducedSetRLS._parameter_constraints, "beta": BETA}

    def __init__(self, alpha=1.0, beta=1.0, *, kernel="gaussian", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, n_basis=100, basis_indices=None,
                 random_state=None, jitter="auto", remove_basis=True):
        super().__init__(alpha=alpha, kernel=kernel, gamma=gamma, degree=degree,
                         coef0=coef0, kernel_params=kernel_params, n_basis=n_basis,
                         basis_indices=basis_indices, random_state=random_state,
                         jitter=jitter, remove_basis=remove_basis)
        self.beta = beta
