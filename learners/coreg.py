"""Co-regularized least squares: semi-supervised multi-view RLS (CoRLS) and RankRLS (CoRankRLS).

Thesis 003 §2.3.3 / Paper VI (Tsivtsivadze et al. 2008, "Learning preferences with
co-regularized least squares"), in the co-regularisation framework of Sindhwani et al.
(2005) and Brefeld et al. (2006, "Efficient co-regularised least squares regression").
The thesis gives no equations; the objective and closed form below are derived here and
tested against explicit primal normal equations built from explicit pairs.

One predictor per *view* (a view = a feature set with its own kernel), ``f_v ∈ H_v``.
With m labelled examples (labels ``y``, Laplacian ``L``) and n unlabelled ones
(Laplacian ``L_U``), minimise over ``f_1 … f_M``

    J = Σ_v [ (y − f_v(X_L))ᵀ L (y − f_v(X_L)) + α_v ‖f_v‖²_{H_v} ]
        + μ Σ_{u<v} (f_u(X_U) − f_v(X_U))ᵀ L_U (f_u(X_U) − f_v(X_U)).

* :class:`CoRLS` (regression, Brefeld et al. 2006): ``L = I``, ``L_U = I``.
* :class:`CoRankRLS` (ranking, Paper VI): ``L = ⊕_q (l_q I − 11ᵀ)`` = D − W of the complete
  graph inside every labelled query, i.e. the loss ``Σ_q Σ_{i<j∈q} (y_i − y_j − f_i + f_j)²``
  of RankRLS; disagreement on unlabelled data is pointwise (``L_U = I``) or, with
  ``qids_unlabelled``, on score *differences* inside unlabelled queries (``L_U`` their D − W),
  which ignores the per-query offsets that do not matter for ranking.

Representation: ``f_v(x) = Σ_j a_vj k_v(x, b_j)`` over basis examples ``b_1 … b_r`` taken
from the labelled and unlabelled examples. With every example as a basis vector
(``n_basis=None``) this is the exact minimiser over the RKHSs (representer theorem); with
``n_basis=r`` it is the *sparse* variant (Paper VI): r examples drawn at random, the same for
all views. With ``K_v^L = k_v(X_L, B)``, ``K_v^U = k_v(X_U, B)``, ``K_v^B = k_v(B, B)`` and
``𝒰 = [K_1^U … K_M^U]`` (n × Mr), setting the gradient to zero gives the Mr × Mr system

    H a = c,   H = ⊕_v (K_vᴸᵀ L K_vᴸ + α_v K_vᴮ) + μ (M · ⊕_v K_vᵁᵀ L_U K_vᵁ − 𝒰ᵀ L_U 𝒰),
               c_v = K_vᴸᵀ L y,

using ``Σ_{u<v} ‖x_u − x_v‖² = M Σ_v ‖x_v‖² − ‖Σ_v x_v‖²``. Forming ``𝒰ᵀ L_U 𝒰`` costs
O(M² r² n), the labelled blocks O(M r² m), the solve O(M³ r³): **O(M³r³ + M²r²(n + m))**,
linear in the number n of unlabelled examples, as stated in 003 (L526). The exact variant
is r = m + n. ``L`` and ``L_U`` are applied in O(rows) by query-mean subtraction; no pair is
formed. ``H`` is symmetric PSD; a null space can only come from ``K_vᴮ`` (directions giving
``f_v ≡ 0``), so the system is solved in empirical-kernel-map coordinates
``a_v = T_v β_v`` with ``T_v T_vᵀ = (K_vᴮ)⁺``, where it is positive definite (α_v > 0).

Prediction: the average of the view predictors, ``f(x) = (1/M) Σ_v f_v(x)`` (Brefeld et al.);
:meth:`CoRLS.predict_path` gives it for a whole (α, μ) grid (α the leading axis) from one fit (the (α, μ)-free
parts of the system are kept), one O(M³r³) solve per grid point;
:meth:`predict_views` returns each ``f_v``.

API: ``X_views`` is a list of M arrays (one per view, same rows = same examples);
``views`` a list of M kernel specifications, dicts with keys among ``kernel``, ``gamma``,
``degree``, ``coef0``, ``kernel_params`` (as :func:`learners.kernels.resolve_kernel`; the
precomputed kernel is not supported because basis vectors are sampled from the examples).
"""

from numbers import Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import check_alphas, check_matrix, warn_without_preference
from learners.base import (
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    SEED,
    RankerMixin,
    validate_hyperparameters,
)
from learners.kernels import kernel_matrix, resolve_kernel

_SPEC_KEYS = {"kernel", "gamma", "degree", "coef0", "kernel_params"}


def _check_views(X_views, n_views, name, rows=None, *, empty_ok=False, owner=None):
    if not isinstance(X_views, (list, tuple)):
        raise InvalidInputError(f"{name} must be a list with one array per view")
    if n_views is not None and len(X_views) != n_views:
        raise InvalidInputError(f"{name} has {len(X_views)} views, expected {n_views}")
    out = [check_matrix(X, f"{name}[{v}]", empty_ok=empty_ok, owner=owner)
           for v, X in enumerate(X_views)]
    counts = {X.shape[0] for X in out}
    if len(counts) != 1:
        raise InvalidInputError(f"the views in {name} have different numbers of rows "
                                f"{sorted(counts)}; row i of every view is example i")
    if rows is not None and counts != {rows}:
        raise InvalidInputError(f"{name} has {counts.pop()} rows, expected {rows}")
    return out


def _stack_rows(A, B):
    if B is None or B.shape[0] == 0:
        return A
    if sp.issparse(A) or sp.issparse(B):
        return sp.vstack([sp.csr_matrix(A), sp.csr_matrix(B)], format="csr")
    return np.vstack([A, B])


def _laplacian_apply(codes, V):
    """``L V`` for L = D − W of the complete graph inside each group (codes); None → I."""
    if codes is None:
        return V
    sizes = np.bincount(codes).astype(np.float64)
    sums = np.zeros((len(sizes),) + V.shape[1:])
    np.add.at(sums, codes, V)
    return sizes[codes].reshape((-1,) + (1,) * (V.ndim - 1)) * V - sums[codes]


def _codes(qids, n, name):
    qids = np.asarray(qids)
    if qids.ndim != 1 or len(qids) != n:
        raise InvalidInputError(f"{name} must be a vector of length {n}, got shape {qids.shape}")
    return np.unique(qids, return_inverse=True)[1].ravel()


def _empirical_map(KB):
    """``T`` with ``T Tᵀ = K_B⁺``: ``k(x, B) T`` are features whose inner product is k on
    span(B) (eigenvalues below 1e-12·max dropped), so ``‖f‖² = ‖β‖²`` for ``a = T β``."""
    evals, Q = np.linalg.eigh((KB + KB.T) / 2)
    keep = evals > 1e-12 * max(evals.max(), 0.0)
    return Q[:, keep] / np.sqrt(evals[keep])


def coreg_system(KL, KU, KB, y, codes_L, codes_U):
    """The parts of the co-regularised system that do not depend on (α, μ).

    In the empirical-kernel-map coordinates ``a_v = T_v β_v`` (``T_v T_vᵀ = K_vᴮ⁺``) the
    system of the module docstring is ``(A + ⊕_v α_v I + μ C) β = c`` with
    ``A = ⊕_v P_vᴸᵀ L P_vᴸ`` and ``C = M · ⊕_v P_vᵁᵀ L_U P_vᵁ − 𝒫ᵁᵀ L_U 𝒫ᵁ``
    (``P_v = K_v T_v``). Returns ``(T, offsets, A, C, c)``; ``C`` is None without
    unlabelled rows or with one view. O(M r³ + M r² m + M² r² n).
    """
    M = len(KL)
    T = [_empirical_map(K) for K in KB]
    PL = [K @ t for K, t in zip(KL, T)]
    PU = [K @ t for K, t in zip(KU, T)]
    sizes = [t.shape[1] for t in T]
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(int)
    A = np.zeros((offsets[-1], offsets[-1]))
    c = np.zeros(offsets[-1])
    Ly = _laplacian_apply(codes_L, y)
    for v in range(M):
        s = slice(offsets[v], offsets[v + 1])
        A[s, s] = PL[v].T @ _laplacian_apply(codes_L, PL[v])
        c[s] = PL[v].T @ Ly
    C = None
    if M > 1 and PU[0].shape[0] > 0:
        U = np.hstack(PU)
        G = U.T @ _laplacian_apply(codes_U, U)
        C = -G
        for v in range(M):
            s = slice(offsets[v], offsets[v + 1])
            C[s, s] += M * G[s, s]
    return T, offsets, A, C, c


def coreg_solve_system(system, alphas, mu):
    """Dual coefficients (list per view) for per-view ``alphas`` and ``mu`` from
    :func:`coreg_system`: one Cholesky solve of the positive definite system, O(M³ r³)."""
    T, offsets, A, C, c = system
    H = A.copy()
    for v in range(len(T)):
        idx = np.arange(offsets[v], offsets[v + 1])
        H[idx, idx] += alphas[v]
    if C is not None and mu > 0:
        H += mu * C
    beta = scipy.linalg.solve((H + H.T) / 2, c, assume_a="pos")
    return [T[v] @ beta[offsets[v]:offsets[v + 1]] for v in range(len(T))]


class _CoRegBase(BaseEstimator):
    """Parameters, fit, prediction and (α, μ) path shared by :class:`CoRLS` and
    :class:`CoRankRLS`."""

    _parameter_constraints = {
        "alpha": [*POSITIVE, "array-like"],       # one α, or one per view (checked in fit)
        "mu": NON_NEGATIVE,
        "views": [list, tuple, None],             # kernel specification dicts (fit)
        "n_basis": [*POSITIVE_INT, None],
        "random_state": SEED,
    }

    def __init__(self, alpha=1.0, mu=1.0, views=None, n_basis=None, random_state=None):
        self.alpha = alpha
        self.mu = mu
        self.views = views
        self.n_basis = n_basis
        self.random_state = random_state

    def _view_specs(self, n_views):
        """Per-view α (array of M) and resolved kernels: the checks that need M."""
        name = type(self).__name__
        alphas = np.atleast_1d(np.asarray(self.alpha, dtype=object))
        if alphas.ndim != 1 or len(alphas) not in (1, n_views):
            raise InvalidParameterError(f"{name}: alpha must be a number or one number per "
                                        f"view ({n_views}), got {self.alpha!r}")
        for a in alphas:
            if not (isinstance(a, Real) and not isinstance(a, bool) and np.isfinite(a)
                    and a > 0):
                raise InvalidParameterError(f"{name}: alpha values must be positive numbers, "
                                            f"got {self.alpha!r}")
        alphas = np.broadcast_to(alphas.astype(float), (n_views,))
        specs = [{} for _ in range(n_views)] if self.views is None else self.views
        if len(specs) != n_views:
            raise InvalidParameterError(f"{name}: views must be a list of {n_views} kernel "
                                        f"specifications (one per view), got {self.views!r}")
        resolved = []
        for v, spec in enumerate(specs):
            if not isinstance(spec, dict) or set(spec) - _SPEC_KEYS:
                raise InvalidParameterError(
                    f"{name}: views[{v}] must be a dict with keys among {sorted(_SPEC_KEYS)}, "
                    f"got {spec!r}")
            spec = dict(spec)
            kernel = spec.pop("kernel", "linear")
            if kernel == "precomputed":
                raise InvalidParameterError(f"{name}: views[{v}]: the precomputed kernel is "
                                            "not supported (basis vectors are sampled from "
                                            "the examples); pass features")
            resolved.append(resolve_kernel(kernel, **spec))
        return alphas, resolved

    def _fit(self, X_views, y, codes_L, X_unlabelled, codes_U):
        validate_hyperparameters(self)
        X_views = _check_views(X_views, None, "X_views", owner=type(self).__name__)
        M, m = len(X_views), X_views[0].shape[0]
        if M == 0 or m == 0:
            raise InvalidInputError("X_views must hold at least one view with rows")
        alphas, specs = self._view_specs(M)
        y = np.asarray(y, dtype=np.float64)
        if y.shape != (m,):
            raise InvalidInputError(f"y must be a vector of length {m}, got shape {y.shape}")
        if not np.all(np.isfinite(y)):
            raise InvalidInputError("y contains NaN or infinite values")
        if X_unlabelled is None:
            X_unlabelled = [None] * M
            n = 0
        else:
            X_unlabelled = _check_views(X_unlabelled, M, "X_unlabelled", empty_ok=True,
                                        owner=type(self).__name__)
            n = X_unlabelled[0].shape[0]
        if codes_U is not None and len(codes_U) != n:
            raise InvalidInputError(f"qids_unlabelled must have {n} entries (unlabelled rows)")
        total = m + n
        if self.n_basis is None or self.n_basis >= total:
            basis = np.arange(total)
        else:
            rng = np.random.default_rng(self.random_state)
            basis = np.sort(rng.choice(total, size=self.n_basis, replace=False))
        KL, KU, KB, basis_views = [], [], [], []
        for v in range(M):
            name, params = specs[v]
            XB = _stack_rows(X_views[v], X_unlabelled[v])[basis]
            KL.append(kernel_matrix(X_views[v], XB, name, **params))
            KU.append(kernel_matrix(X_unlabelled[v], XB, name, **params) if n
                      else np.zeros((0, len(basis))))
            KB.append(kernel_matrix(XB, XB, name, **params))
            basis_views.append(XB)
        # the (α, μ)-free parts are kept for predict_path (a grid without refitting)
        self._system = coreg_system(KL, KU, KB, y, codes_L, codes_U)
        self.dual_coef_ = coreg_solve_system(self._system, alphas, float(self.mu))
        self.basis_views_ = basis_views
        self.basis_indices_ = basis
        self._specs_ = specs
        self.n_views_ = M
        return self

    @numerical_guard("predict_views")
    def predict_views(self, X_views):
        """Predictions of every view's predictor, shape (t, M)."""
        check_is_fitted(self, "dual_coef_")
        X_views = _check_views(X_views, self.n_views_, "X_views", owner=type(self).__name__)
        cols = []
        for v in range(self.n_views_):
            name, params = self._specs_[v]
            cols.append(kernel_matrix(X_views[v], self.basis_views_[v], name, **params)
                        @ self.dual_coef_[v])
        return np.column_stack(cols)

    @numerical_guard("predict")
    def predict(self, X_views):
        """Average of the view predictors, shape (t,)."""
        return self.predict_views(X_views).mean(axis=1)

    @numerical_guard("predict_path")
    def predict_path(self, X_views, alphas, mus=None):
        """Predictions (average of the views) for every (α, μ) of a grid, as if refitted on
        the same data and basis. α is shared by the views.

        The leading axis is α, as for every learner's ``predict_path(X, alphas)``; μ is the
        extra axis of co-regularisation: array (len(alphas), len(mus), t), or
        (len(alphas), t) when ``mus`` is None (the fitted ``mu``).

        The kernels, empirical maps and co-regularisation products of :meth:`fit` are
        reused (:func:`coreg_system`); each grid point costs one O(M³ r³) solve instead of a
        whole fit, O(M³r³ + M²r²(n + m)).
        """
        check_is_fitted(self, "dual_coef_")
        alphas, _ = check_alphas(alphas, self.alpha)
        mus_given = mus is not None
        mus = np.asarray([self.mu] if mus is None else mus, dtype=float).ravel()
        if mus.size == 0 or not np.all(np.isfinite(mus)) or np.any(mus < 0):
            raise InvalidParameterError(f"mus must be non-negative numbers, got {mus!r}")
        X_views = _check_views(X_views, self.n_views_, "X_views", owner=type(self).__name__)
        KX = [kernel_matrix(X_views[v], self.basis_views_[v], name, **params)
              for v, (name, params) in enumerate(self._specs_)]
        out = np.empty((alphas.size, mus.size, KX[0].shape[0]))
        for i, a in enumerate(alphas):
            for j, mu in enumerate(mus):
                coefs = coreg_solve_system(self._system, [a] * self.n_views_, mu)
                out[i, j] = sum(K @ d for K, d in zip(KX, coefs)) / self.n_views_
        return out if mus_given else out[:, 0]


class CoRLS(RegressorMixin, _CoRegBase):
    """Co-regularised least-squares regression (semi-supervised, multi-view).

    Parameters
    ----------
    alpha : float or sequence of float, default 1.0
        Regularisation α_v of each view's RKHS norm (one value for all views, or one per
        view).
    mu : float, default 1.0
        Co-regularisation weight μ ≥ 0 of the disagreement on unlabelled data (0: the views
        are independent RLS predictors).
    views : list of dict, optional
        One kernel specification per view (keys ``kernel``, ``gamma``, ``degree``,
        ``coef0``, ``kernel_params``); default: linear kernel for every view.
    n_basis : int, optional
        Sparse variant: number r of random basis examples (from labelled + unlabelled);
        default: all examples (the exact co-regularised solution).
    random_state : int, optional
        Seed of the basis sample.

    Attributes
    ----------
    dual_coef_ : list of ndarray (r,)
        Per-view coefficients over the basis examples.
    basis_views_ : list of arrays
        The basis examples in every view.
    basis_indices_ : ndarray
        Indices of the basis examples in ``[labelled; unlabelled]`` order.

    Notes
    -----
    Closed form and complexity O(M³r³ + M²r²(n + m)): see the module docstring.
    """

    _ranking = False

    @numerical_guard("fit")
    def fit(self, X_views, y, X_unlabelled=None):
        """Fit on labelled examples (every view) and unlabelled examples (every view).

        Parameters
        ----------
        X_views : list of M arrays, each (m, d_v)
        y : array-like (m,)
        X_unlabelled : list of M arrays, each (n, d_v), optional
        """
        return self._fit(X_views, y, None, X_unlabelled, None)


class CoRankRLS(RankerMixin, _CoRegBase):
    """Co-regularised RankRLS (Paper VI): pairwise least squares inside queries, views
    agreeing on unlabelled data. Parameters and attributes as :class:`CoRLS`; ``score(X_views,
    y, qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`)."""

    _ranking = True

    @numerical_guard("fit")
    def fit(self, X_views, y, qids, X_unlabelled=None, qids_unlabelled=None):
        """Fit the co-regularised ranker.

        Parameters
        ----------
        X_views : list of M arrays, each (m, d_v)
        y : array-like (m,)
            Scores; pairs are formed inside each query.
        qids : array-like (m,)
            Query ids of the labelled examples.
        X_unlabelled : list of M arrays, each (n, d_v), optional
        qids_unlabelled : array-like (n,), optional
            If given, views must agree on score differences inside these queries; otherwise
            on the scores themselves.
        """
        validate_hyperparameters(self)
        if qids is None:
            raise InvalidInputError("CoRankRLS.fit needs qids (use one constant id for a "
                                    "global ranking)")
        m = len(y) if hasattr(y, "__len__") else -1
        codes_L = _codes(qids, m, "qids")
        codes_U = None
        if qids_unlabelled is not None:
            if X_unlabelled is None:
                raise InvalidInputError("qids_unlabelled given without X_unlabelled")
            codes_U = _codes(qids_unlabelled, np.asarray(qids_unlabelled).shape[0],
                             "qids_unlabelled")
        self._fit(X_views, y, codes_L, X_unlabelled, codes_U)
        warn_without_preference("CoRankRLS", y, codes_L)        # y checked by the fit
        return self
