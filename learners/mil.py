"""Multiple-instance RLS: instance labels of the positive bags re-assigned by the model.

Multiple-instance learning (Dietterich, Lathrop & Lozano-Pérez 1997): the labels are given
per *bag* of instances; a bag is positive when at least one of its instances is, negative
when none is.  mi-SVM (Andrews, Tsochantaridis & Hofmann 2003, "Support vector machines for
multiple-instance learning", NIPS 15, §2, eq. 3 and Figure 1) treats the labels of the
positive bags' instances as unknowns and alternates: fit the model to the current labels,
then give every instance of a positive bag the sign of its prediction — except that the
instance with the largest prediction of each positive bag stays positive (the bag
constraint) — until no label changes.  Instances of negative bags stay negative.  Here the
learner is RLS (squared loss, thesis §2.7) instead of the SVM: each alternation is one
product with the cached eigendecomposition of the kernel, for every λ of a path at once.

Start: every instance of a positive bag positive (single-instance learning, SIL — the
baseline the alternation improves on or not; Ray & Craven 2005).  The alternation stops at
a fixed point or after ``max_iter`` rounds (it usually ends in a few; as for mi-SVM no
global optimum is claimed).

Hold-out predictions (``holdout_sets``, ``leave_one_out``) are exact for the labels the
alternation assigned on *all* rows: the prediction of a held-out set equals explicit RLS
retraining on the other rows with those labels (tested).  The labels themselves were
assigned by a model that saw the held-out rows, so this is what a selection of λ needs
(whole documents held out), not an unbiased test estimate — test on separate data.

Complexity: one eigendecomposition O(m³) (dual) or O(n³ + m n²) (primal); each alternation
round O(m r L) for L values of λ; hold-out sets O(m r L²) once, then as RLS per set.
"""

from __future__ import annotations

import numpy as np
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError
from learners._validation import check_alphas, check_index_sets
from learners.holdout import RLSSpectral
from numbers import Integral

from sklearn.utils._param_validation import Interval

from learners.kernel_learner import shape_output
from learners.rls import RLS, RLS_CONSTRAINTS

__all__ = ["MultipleInstanceRLS", "positive_bag_labels"]


def _bags_csr(bags, m):
    """``(ptr, rows)`` of a list of index arrays (each non-empty, within 0..m−1)."""
    sizes, rows = [], []
    for k, b in enumerate(bags):
        b = np.asarray(b, dtype=np.int64).ravel()
        if b.size == 0 or b.min() < 0 or b.max() >= m:
            raise InvalidInputError(f"bag {k}: a positive bag needs one or more instance "
                                    f"indices in 0..{m - 1}")
        sizes.append(b.size)
        rows.append(b)
    ptr = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    return ptr, (np.concatenate(rows) if rows else np.zeros(0, np.int64))


def positive_bag_labels(F, y0, ptr, rows):
    """One alternation step (module docstring): the labels for predictions ``F`` (m, L).

    Instances of a positive bag get ``sign(F)`` (+1 at 0 ties are −1), every positive bag's
    best-scored instance(s) +1; instances in no positive bag keep ``y0`` (−1)."""
    in_pos = np.zeros(F.shape[0], dtype=bool)
    in_pos[rows] = True
    Y = np.where(in_pos[:, None], np.where(F > 0, 1.0, -1.0), y0[:, None])
    if rows.size:
        G = F[rows]                                            # (Σ|bag|, L)
        best = np.maximum.reduceat(G, ptr[:-1], axis=0)        # (bags, L)
        owner = np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))
        top = G >= best[owner]
        r, c = np.nonzero(top)
        Y[rows[r], c] = 1.0
    return Y


class MultipleInstanceRLS(RLS):
    """mi-RLS: RLS whose positive bags' instance labels are re-assigned by the model
    (module docstring).

    Parameters
    ----------
    alpha, kernel, gamma, degree, coef0, kernel_params, solver : as :class:`learners.RLS`
    max_iter : int, default=20 — most alternation rounds per λ

    Attributes
    ----------
    labels_ : ndarray (m,) — the instance labels at ``alpha`` after the alternation
    n_iter_ : int — rounds used at ``alpha``
    dual_coef_ / coef_ : the RLS fit to ``labels_``

    Notes
    -----
    ``fit(X, y, bags=...)``: ``y`` the instances' labels of single-instance learning (+1 in
    a positive bag, −1 elsewhere), ``bags`` the positive bags (a list of index arrays).
    ``regularization_path``, ``predict_path``, ``holdout_sets``, ``leave_one_out`` take a
    λ path; each λ has its own alternation.
    """

    _parameter_constraints = {**RLS_CONSTRAINTS,
                              "max_iter": [Interval(Integral, 0, None, closed="left")]}

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, solver="auto", max_iter=20):
        super().__init__(alpha=alpha, kernel=kernel, gamma=gamma, degree=degree,
                         coef0=coef0, kernel_params=kernel_params, solver=solver)
        self.max_iter = max_iter

    def fit(self, X, y, bags=None):
        """Fit with the alternation at ``alpha`` (module docstring)."""
        y = np.asarray(y, dtype=float)
        if y.ndim != 1 or not np.isin(y, (-1.0, 1.0)).all():
            raise InvalidInputError("MultipleInstanceRLS needs instance labels +1 / -1 "
                                    "(one target)")
        super().fit(X, y)
        self._bags = _bags_csr(bags if bags is not None else [], y.shape[0])
        if self._bags[1].size and (y[self._bags[1]] < 0).any():
            raise InvalidInputError("every instance of a positive bag must start at +1 "
                                    "(single-instance labels)")
        self._y0 = y
        self._label_cache = {}
        Y, n = self._labels(np.array([float(self.alpha)]))
        self.labels_, self.n_iter_ = Y[:, 0], int(n[0])
        coef = self.regularization_path([float(self.alpha)])[0][:, None]
        if self.solver_ == "dual":
            self._set_dual(coef)
        else:
            self._set_primal(coef)
        return self

    def _labels(self, lams):
        """Labels (m, L) and rounds (L,) of the alternation for each λ (cached per λ)."""
        missing = [lam for lam in lams if float(lam) not in self._label_cache]
        if missing:
            spec = self._spectral()
            lm = np.asarray(missing, dtype=float)
            W = np.stack([spec.hat_weights(lam) for lam in lm], axis=1)     # (r, L)
            y0 = self._y0
            Y = np.repeat(y0[:, None], lm.size, axis=1)
            Y[self._bags[1]] = 1.0
            rounds = np.zeros(lm.size, dtype=int)
            active = np.ones(lm.size, dtype=bool)
            for _ in range(int(self.max_iter)):
                if not active.any():
                    break
                cols = np.flatnonzero(active)
                F = spec.A @ (W[:, cols] * (spec.A.T @ Y[:, cols]))
                new = positive_bag_labels(F, y0, *self._bags)
                changed = (new != Y[:, cols]).any(axis=0)
                Y[:, cols] = new
                rounds[cols] += 1
                active[cols[~changed]] = False
            for k, lam in enumerate(lm):
                self._label_cache[float(lam)] = (Y[:, k].copy(), rounds[k])
        Y = np.stack([self._label_cache[float(lam)][0] for lam in lams], axis=1)
        n = np.array([self._label_cache[float(lam)][1] for lam in lams])
        return Y, n

    def _spectral_for(self, Y):
        spec = self._spectral()
        return RLSSpectral(spec.A, spec.s, Y, spec.kind)

    def labels_path(self, alphas):
        """The instance labels (n_alphas, m) the alternation assigns at each λ."""
        check_is_fitted(self)
        lams, _ = check_alphas(alphas, self.alpha)
        return self._labels(lams)[0].T

    def regularization_path(self, alphas):
        """Coefficients for every λ, each fitted to its own labels: (n_alphas, m) dual,
        (n_alphas, n) primal."""
        check_is_fitted(self)
        lams, _ = check_alphas(alphas, self.alpha)
        Y, _ = self._labels(lams)
        spec = self._spectral_for(Y)
        if self.solver_ == "primal":
            Z = self._cache["Z"]
            return np.stack([Z @ (spec.AtY[:, k] / (spec.s + lam))
                             for k, lam in enumerate(lams)])
        return np.stack([spec.A @ (spec.AtY[:, k] / (spec.s + lam))
                         for k, lam in enumerate(lams)])

    def predict_path(self, X, alphas):
        """Predictions for every λ, shape (n_alphas, m')."""
        X = self._validate_predict(X)
        coefs = self.regularization_path(alphas)
        if self.solver_ == "primal":
            return np.stack([np.asarray(X @ c).ravel() for c in coefs])
        Kt = self._kernel(X, self.X_fit_)
        return np.stack([Kt @ c for c in coefs])

    def holdout_sets(self, sets, alphas=None):
        """Exact hold-out predictions of each set for the labels each λ's alternation
        assigned (module docstring): list of ``([n_alphas,] |H|)``."""
        check_is_fitted(self)
        sets = check_index_sets(sets, self._y0.shape[0])
        lams, single = check_alphas(alphas, self.alpha)
        Y, _ = self._labels(lams)
        res = self._spectral_for(Y).holdout_sets(sets, lams)        # (L, |H|, L) each
        k = np.arange(lams.size)
        return [shape_output(r[k, :, k][..., None], single, True) for r in res]

    def leave_one_out(self, alphas=None):
        """Exact leave-one-out predictions for the alternation's labels at each λ."""
        check_is_fitted(self)
        lams, single = check_alphas(alphas, self.alpha)
        Y, _ = self._labels(lams)
        P = self._spectral_for(Y).loo(lams)                          # (L, m, L)
        k = np.arange(lams.size)
        return shape_output(P[k, :, k][..., None], single, True)
