"""Kernel L2-SVM (squared hinge loss) trained as RLS on its active set, with a λ path and
leave-one-out at a fixed active set.

The problem (Keerthi & DeCoste 2005, "A modified finite Newton method for fast solution of
large scale linear SVMs", JMLR 6; Chapelle 2007, "Training a support vector machine in the
primal", Neural Computation 19, §3-5) in the dual parametrization ``f = K β + b``:

    J(β, b) = λ βᵀKβ + Σ_i c_i max(0, 1 - y_i f_i)^2,       y_i in {-1, +1}

with example costs ``c_i`` (``class_weight``) and an unregularized intercept ``b``
(``fit_intercept``). Its link to RLS: on the *active set* S = {i : y_i f_i < 1} the squared
hinge is the squared error (y_i^2 = 1), so the Newton step is the weighted RLS solution on S,

    [ K_SS + λ C_S^-1   1 ] [β_S]   [y_S]
    [ 1ᵀ                0 ] [ b ] = [ 0 ],     β_i = 0 for i not in S,

and the method alternates "solve RLS on S" and "recompute S". Each step is followed by an
exact line search on the convex piecewise-quadratic J (bisection on its derivative), which
makes J decrease monotonically; the iteration stops when a full step leaves S unchanged —
then the gradient is exactly zero, i.e. the returned (β, b) is the optimum, not an
approximation. A few steps in practice (3-7 per λ on the SCOP families; finite convergence:
Keerthi & DeCoste 2005, Thm 1).

Why it is here: on ranking tasks with few positives among many negatives (remote homology,
:mod:`homology.benchmark`), the squared loss of RLS / RankRLS also pulls the far-away,
easy negatives towards the target and spends capacity on them; the squared hinge ignores
them, which helps the top of the ranking (ROC50) while keeping RLS's closed-form machinery.

Leave-one-out (:meth:`L2SVM.leave_one_out`): removing an inactive example (y_i f_i >= 1)
leaves the optimum unchanged, so its leave-one-out value is f_i *exactly*. For an active
example the value is the exact RLS leave-one-out on S with S held fixed,
``f_-i(x_i) = y_i - β_i / [M^-1]_ii`` (M the bordered matrix above), which equals the true
leave-one-out value whenever removing i does not change the active set of the others —
otherwise it is the fixed-active-set estimate (Vapnik & Chapelle 2000, span bound, for the
L2-SVM). The tests compare it with explicit retraining.

Complexity: per Newton step one Cholesky factorization ``O(|S|^3/3)`` and one O(m^2) product;
leave-one-out adds one triangular inverse ``O(|S|^3/3)``. A λ path runs from the largest λ down,
each λ warm-started from the previous solution.
"""

import warnings

import numpy as np
from scipy.linalg import cho_factor, cho_solve, lapack
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.class_weight import compute_sample_weight
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, column_or_1d

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import check_alphas, validate_data
from learners.base import KERNEL_CONSTRAINTS, POSITIVE, POSITIVE_INT, validate_hyperparameters
from learners.kernel_learner import KernelLearnerMixin


def _objective(K_beta, beta, b, y, c, alpha):
    f = K_beta + b
    r = np.maximum(0.0, 1.0 - y * f)
    return alpha * beta @ K_beta + c @ (r * r)


def _shifted_block(K, idx, shift):
    """``K[idx, idx] + diag(shift)`` as a new array."""
    G = K[np.ix_(idx, idx)]
    G[np.diag_indices_from(G)] += shift
    return G


def _newton_target(K, y, c, alpha, active, fit_intercept):
    """The RLS solution on the active set: returns (β over all m, b)."""
    idx = np.flatnonzero(active)
    beta = np.zeros(len(y))
    if idx.size == 0:
        return beta, 0.0
    G = _shifted_block(K, idx, alpha / c[idx])
    rhs = np.column_stack([y[idx], np.ones(idx.size)])
    try:
        sol = cho_solve(cho_factor(G, lower=True, check_finite=False), rhs, check_finite=False)
    except np.linalg.LinAlgError:  # an indefinite precomputed kernel: LU instead
        sol = np.linalg.solve(G, rhs)
    b = 0.0
    if fit_intercept:
        b = sol[:, 0].sum() / sol[:, 1].sum()       # 1ᵀ β_S = 0
    beta[idx] = sol[:, 0] - b * sol[:, 1]
    return beta, b


def _line_search(K_beta, K_d, beta, d, b, db, y, c, alpha, iters=60):
    """Exact minimizer over t in [0, 1] of the convex piecewise quadratic J(β + t d, b + t db)
    by bisection on its derivative (O(m) per evaluation)."""
    r0 = 1.0 - y * (K_beta + b)
    s = y * (K_d + db)
    bKd, dKd = beta @ K_d, d @ K_d

    def slope(t):
        return 2.0 * alpha * (bKd + t * dKd) - 2.0 * c @ (s * np.maximum(0.0, r0 - t * s))

    if slope(1.0) <= 0.0:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(iters):
        mid = 0.5 * (lo + hi)
        if slope(mid) > 0.0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


def solve_l2svm(K, y, c, alpha, *, fit_intercept=True, active=None, max_iter=100):
    """Minimize J(β, b) (module docstring) by Newton steps on the active set.

    Parameters
    ----------
    K : ndarray (m, m), symmetric positive semi-definite
    y : ndarray (m,) in {-1, +1}
    c : ndarray (m,) positive example costs
    alpha : float, λ > 0
    fit_intercept : bool
    active : bool ndarray (m,) or None
        Initial active set (warm start); None starts from all examples (the RLS solution).
    max_iter : int

    Returns
    -------
    beta : ndarray (m,), b : float, active : bool ndarray (m,), n_iter : int, converged : bool
    """
    m = len(y)
    active = np.ones(m, dtype=bool) if active is None else active.copy()
    if not active.any():
        active[:] = True
    beta, b = np.zeros(m), 0.0
    K_beta = np.zeros(m)
    J = _objective(K_beta, beta, b, y, c, alpha)
    for n_iter in range(1, max_iter + 1):
        target, b_target = _newton_target(K, y, c, alpha, active, fit_intercept)
        d, db = target - beta, b_target - b
        K_d = K @ d
        t = _line_search(K_beta, K_d, beta, d, b, db, y, c, alpha)
        beta, b, K_beta = beta + t * d, b + t * db, K_beta + t * K_d
        new_active = y * (K_beta + b) < 1.0
        J_new = _objective(K_beta, beta, b, y, c, alpha)
        if t == 1.0 and np.array_equal(new_active, active):
            return beta, b, active, n_iter, True
        if J - J_new <= 1e-13 * J:
            # no decrease left: optimal up to rounding, the set only flips examples sitting
            # on the margin (y_i f_i = 1, zero loss either way). Return the RLS solution on
            # the final set (β exactly zero outside it) unless it is worse.
            polished, b_pol = _newton_target(K, y, c, alpha, new_active, fit_intercept)
            K_pol = K @ polished
            if _objective(K_pol, polished, b_pol, y, c, alpha) <= J_new * (1 + 1e-12):
                return polished, b_pol, y * (K_pol + b_pol) < 1.0, n_iter, True
            return beta, b, new_active, n_iter, True
        J = J_new
        if new_active.any():
            active = new_active
    return beta, b, active, max_iter, False


def fixed_active_set_loo(K, y, c, alpha, beta, b, active, fit_intercept=True):
    """Leave-one-out decision values at the optimum (module docstring): exact f_i for
    inactive examples, the RLS leave-one-out on the fixed active set for active ones.
    ``O(|S|^3/3 + m^2)``."""
    f = K @ beta + b
    idx = np.flatnonzero(active)
    if idx.size == 0:
        return f
    G = _shifted_block(K, idx, alpha / c[idx])
    try:
        L, _ = cho_factor(G, lower=True, check_finite=False)
        L_inv, info = lapack.dtrtri(np.tril(L), lower=1)
        if info != 0:  # pragma: no cover - G is positive definite
            raise np.linalg.LinAlgError(f"triangular inverse failed (info={info})")
        diag = np.einsum("ij,ij->j", L_inv, L_inv)        # diag(G^-1)
        g1 = L_inv.T @ (L_inv @ np.ones(idx.size))        # G^-1 1
    except np.linalg.LinAlgError:  # an indefinite precomputed kernel
        G_inv = np.linalg.inv(G)
        diag, g1 = np.diag(G_inv).copy(), G_inv @ np.ones(idx.size)
    if fit_intercept:
        diag = diag - g1 * g1 / g1.sum()                  # bordered inverse, top-left block
    loo = f.copy()
    loo[idx] = y[idx] - beta[idx] / diag
    return loo


class L2SVM(KernelLearnerMixin, ClassifierMixin, BaseEstimator):
    """Binary kernel SVM with the squared hinge loss (L2-SVM), solved as RLS on its active set.

    Minimizes ``λ ||f||_k^2 + Σ_i c_i max(0, 1 - y_i (f(x_i) + b))^2`` (module docstring;
    Keerthi & DeCoste 2005; Chapelle 2007). With a linear kernel, ``fit_intercept=False`` and
    ``class_weight=None`` it is scikit-learn's ``LinearSVC(loss="squared_hinge", C=1/(2λ),
    fit_intercept=False)``.

    Parameters
    ----------
    alpha : float, default=1.0
        Regularization parameter λ > 0.
    kernel : {"linear", "gaussian", "rbf", "polynomial", "precomputed"} or callable
    gamma, degree, coef0, kernel_params : kernel parameters as in :class:`learners.RLS`.
    fit_intercept : bool, default=True
        Unregularized intercept b.
    class_weight : None, "balanced" or dict {label: weight}
        Example costs c_i; "balanced" = m / (2 m_class), as in scikit-learn.
    max_iter : int, default=100
        Newton steps per λ (a ConvergenceWarning is issued if they run out).

    Attributes
    ----------
    classes_ : ndarray (2,)       the labels; ``classes_[1]`` is the positive class
    dual_coef_ : ndarray (m,)     β (zero outside the active set)
    intercept_ : float            b
    support_ : ndarray            indices of the active examples (y_i f_i < 1)
    n_iter_ : int                 Newton steps of the last solve
    X_fit_, kernel_spec_, solver_ ("dual")

    Notes
    -----
    Complexity ``O(s m^2 + Σ |S_t|^3 / 3)`` for s Newton steps. :meth:`leave_one_out`,
    :meth:`predict_path` (decision values) and :meth:`regularization_path` over a λ grid
    solve each λ once (cached), from the largest down, each warm-started from the nearest
    solved λ. ``score`` is the accuracy (:class:`sklearn.base.ClassifierMixin`).
    """

    _parameter_constraints = {
        "alpha": POSITIVE,
        **KERNEL_CONSTRAINTS,
        "fit_intercept": ["boolean"],
        "class_weight": [StrOptions({"balanced"}), dict, None],
        "max_iter": POSITIVE_INT,
    }

    def __init__(self, alpha=1.0, *, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, fit_intercept=True, class_weight=None, max_iter=100):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.fit_intercept = fit_intercept
        self.class_weight = class_weight
        self.max_iter = max_iter

    # ------------------------------------------------------------------ fit / predict
    @numerical_guard("fit")
    def fit(self, X, y):
        """Fit at ``alpha`` (Newton steps on the active set, exact optimum).

        Parameters
        ----------
        X : array-like or sparse (m, n), or the (m, m) kernel matrix (``kernel="precomputed"``)
        y : array-like (m,) with exactly two distinct labels

        Returns
        -------
        self
        """
        validate_hyperparameters(self)
        alpha = float(self.alpha)
        spec = self._resolve_kernel()
        y = self._encode_labels(y)
        X = validate_data(self, X, precomputed=spec[0] == "precomputed")
        if len(y) != X.shape[0]:
            raise InvalidInputError(
                f"X has {X.shape[0]} rows but y has {len(y)} labels; they must match")
        self.kernel_spec_ = spec
        self.X_fit_ = X
        self.solver_ = "dual"
        self._was_1d = True
        self._y = y
        self._c = self._costs(y)
        self._K = self._train_kernel()
        self._solutions = {}
        beta, b, active, n_iter = self._solve(alpha)
        self._set_dual(beta[:, None])
        self.intercept_ = float(b)
        self.support_ = np.flatnonzero(active)
        self.n_iter_ = n_iter
        return self

    @numerical_guard("decision_function")
    def decision_function(self, X):
        """``f(x) = k(x, X_fit) β + b``; positive means ``classes_[1]``. Shape (m',)."""
        return self._scores(X) + self.intercept_

    @numerical_guard("predict")
    def predict(self, X):
        """Labels: ``classes_[1]`` where the decision value is positive, else ``classes_[0]``."""
        check_is_fitted(self)
        return self.classes_[(self.decision_function(X) > 0).astype(int)]

    # ------------------------------------------------------------------ λ path, LOO
    @numerical_guard("regularization_path", data="fitted")
    def regularization_path(self, alphas):
        """``(dual_coefs, intercepts)`` of the optimum at every λ in ``alphas``: arrays
        (n_alphas, m) and (n_alphas,), from the cached / warm-started path."""
        check_is_fitted(self)
        alphas, _ = check_alphas(alphas, self.alpha)
        coefs, intercepts = np.empty((len(alphas), len(self._y))), np.empty(len(alphas))
        for j, a in self._path_order(alphas):
            coefs[j], intercepts[j] = self._solve(a)[:2]
        return coefs, intercepts

    @numerical_guard("predict_path")
    def predict_path(self, X, alphas):
        """Decision values (:meth:`decision_function`, not labels) for every λ in
        ``alphas``: array (n_alphas, m'). The kernel between X and the training data is
        computed once."""
        alphas, _ = check_alphas(alphas, self.alpha)
        Kx = self._kernel(self._validate_predict(X), self.X_fit_)
        out = np.empty((len(alphas), Kx.shape[0]))
        for j, a in self._path_order(alphas):
            beta, b, _, _ = self._solve(a)
            out[j] = Kx @ beta + b
        return out

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Leave-one-out decision values of the training examples, shape (m,) or
        (n_alphas, m) with ``alphas``: exact for inactive examples, fixed-active-set RLS
        leave-one-out for active ones (module docstring). ``O(|S|^3 / 3 + m^2)`` per λ after
        the fit."""
        check_is_fitted(self)
        alphas, single = check_alphas(alphas, self.alpha)
        out = np.empty((len(alphas), len(self._y)))
        for j, a in self._path_order(alphas):
            beta, b, active, _ = self._solve(a)
            out[j] = fixed_active_set_loo(self._K, self._y, self._c, a, beta, b, active,
                                          self.fit_intercept)
        return out[0] if single else out

    # ------------------------------------------------------------------ internals
    def _encode_labels(self, y):
        """Labels → ±1 (``classes_[1]`` → +1); binary only."""
        if y is None:
            raise InvalidInputError("L2SVM requires y to be passed, but the target y is None")
        try:
            y = column_or_1d(y, warn=True)
            check_classification_targets(y)
        except ValueError as exc:
            raise InvalidInputError(f"y: {exc}") from exc
        classes = np.unique(y)
        if len(classes) != 2:
            n = len(classes)
            raise InvalidInputError(
                f"Only binary classification is supported: L2SVM needs exactly 2 classes in "
                f"y, got {n} class{'' if n == 1 else 'es'} ({classes[:5]!r}); train one "
                "model per class (one-vs-rest) for more")
        self.classes_ = classes
        return np.where(y == classes[1], 1.0, -1.0)

    def _costs(self, y_pm):
        labels = np.where(y_pm > 0, self.classes_[1], self.classes_[0])
        try:
            c = compute_sample_weight(self.class_weight, labels)
        except (ValueError, TypeError) as exc:
            raise InvalidParameterError(
                f"class_weight must be None, 'balanced' or a dict {{label: weight}} with "
                f"positive weights; got {self.class_weight!r} ({exc})") from exc
        if not np.all(np.isfinite(c)) or np.any(c <= 0):
            raise InvalidParameterError(
                f"class_weight must give every class a positive finite weight, got "
                f"{self.class_weight!r}")
        return np.asarray(c, dtype=float)

    def _path_order(self, alphas):
        """(position, λ) from the largest λ down, so warm starts follow the path."""
        order = np.argsort(-alphas, kind="stable")
        return [(int(j), float(alphas[j])) for j in order]

    def _solve(self, alpha):
        """The optimum at λ, cached; warm-started from the nearest solved λ."""
        hit = self._solutions.get(alpha)
        if hit is not None:
            return hit
        start = None
        if self._solutions:
            nearest = min(self._solutions, key=lambda a: abs(np.log(a / alpha)))
            start = self._solutions[nearest][2]
        beta, b, active, n_iter, converged = solve_l2svm(
            self._K, self._y, self._c, alpha, fit_intercept=self.fit_intercept,
            active=start, max_iter=self.max_iter)
        if not converged:
            warnings.warn(f"L2SVM: the active set still changed after max_iter="
                          f"{self.max_iter} Newton steps at alpha={alpha:g}; the solution is "
                          "not optimal — raise max_iter", ConvergenceWarning, stacklevel=3)
        self._solutions[alpha] = (beta, b, active, n_iter)
        return self._solutions[alpha]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = False
        tags.classifier_tags.multi_class = False
        return tags
