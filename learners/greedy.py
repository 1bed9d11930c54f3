"""Greedy forward feature selection for RLS and RankRLS with a cross-validation criterion.

Greedy RLS (Pahikkala, Airola, Salakoski 2010, "Speeding up greedy forward selection for
regularized least-squares", ICMLA; thesis Sect. 5.6 / RLScore "feature selection"): starting
from no features, each step adds the feature whose inclusion gives the smallest
leave-one-out squared error of the linear RLS model (no intercept) on the selected features.
:class:`GreedyRankRLS` does the same for query-structured RankRLS with the leave-query-out
pairwise squared error as criterion.

Both use one engine: RankRLS with the query Laplacian ``L = blockdiag(n_q I - 1 1^T)`` is
RLS on the rows centred in their query and scaled by ``sqrt(n_q)`` (``L_q^(1/2)``), and
leave-query-out is leave-group-out on those rows; greedy RLS is the case of singleton groups.
For the selected set ``S`` the engine keeps, without forming any m x m matrix,

    G = (X_S X_S^T + lambda I)^-1 (implicit),  C = G X (m x n),  a = G Y,
    U = blockdiag(G_qq^-1) C,   r = blockdiag(G_qq^-1) a  (hold-out residuals per group).

Adding candidate ``i`` is the rank-one update ``G - c_i c_i^T / (1 + x_i^T c_i)``; with
Sherman-Morrison on each diagonal block the hold-out residuals of every candidate follow
from segment sums of ``C * U``, ``C * r`` and ``U * r`` — O(m n t) per step for all n
candidates together — and the caches are updated by the same rank-one formulas in O(m n t).
Selecting k features costs O(k m n t) time and O(m n) memory (t = number of outputs; for
several outputs the criterion is the error summed over outputs, so common features are
chosen).
"""

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import (
    as_2d_targets,
    check_groups,
    validate_data,
    warn_without_preference,
)
from learners.base import POSITIVE, POSITIVE_INT, RankerMixin, validate_hyperparameters

__all__ = ["GreedyRLS", "GreedyRankRLS", "greedy_forward_selection"]


def _segment_sum(P, M):
    """Sum the rows of ``M`` within each group (``P``: m x q sparse indicator; ``None`` for
    singleton groups in row order, i.e. leave-one-out, where the sum is the identity)."""
    return M if P is None else np.asarray(P.T @ M)


def greedy_forward_selection(X, Y, codes, alpha, k):
    """Greedy forward selection minimizing the leave-group-out squared error of RLS.

    Parameters
    ----------
    X : ndarray (m, n), Y : ndarray (m, t)
        Rows already transformed (identity for RLS, ``L^(1/2)`` for RankRLS).
    codes : ndarray (m,) of int in [0, q)
        Group of each row (``arange(m)`` = leave-one-out).
    alpha : float
    k : int
        Number of features to select.

    Returns
    -------
    selected : ndarray (k,) of int
    errors : ndarray (k,)
        Sum over rows and outputs of the squared hold-out residual after each step.
    a : ndarray (m, t)
        Dual coefficients ``(X_S X_S^T + alpha I)^-1 Y`` of the final model.

    Notes
    -----
    O(k m n t) time, O(m n) memory.
    """
    m, n = X.shape
    t = Y.shape[1]
    q = int(codes.max()) + 1
    singletons = q == m and np.array_equal(codes, np.arange(m))
    P = None if singletons else sp.csr_matrix((np.ones(m), (np.arange(m), codes)), shape=(m, q))
    expand = (lambda G: G) if singletons else (lambda G: G[codes])
    C = X / alpha
    a = Y / alpha
    U = X.copy()
    r = Y.copy()
    available = np.ones(n, dtype=bool)
    selected, errors = [], []
    for _ in range(k):
        s = 1.0 + np.einsum("ij,ij->j", X, C)               # 1 + x_i^T G x_i
        T = C.T @ Y                                          # (n, t): c_i^T y
        rho = _segment_sum(P, C * U)                         # (q, n): c_iq^T u_iq
        tau = s[None, :] - rho                               # (q, n)
        usq = _segment_sum(P, U * U)
        err = np.zeros(n)
        for o in range(t):
            ts = T[:, o] / s
            gam = _segment_sum(P, C * r[:, o:o + 1])
            kappa = (gam - rho * ts[None, :]) / tau
            delta = kappa - ts[None, :]
            ur = _segment_sum(P, U * r[:, o:o + 1])
            err += r[:, o] @ r[:, o] + 2.0 * np.sum(delta * ur, axis=0) \
                + np.sum(delta * delta * usq, axis=0)
        err[~available] = np.inf
        b = int(np.argmin(err))
        if not np.isfinite(err[b]):
            raise InvalidInputError(
                "the hold-out criterion is not finite for any remaining feature; a query or "
                "example is perfectly fitted (increase alpha)")
        selected.append(b)
        errors.append(err[b])
        available[b] = False
        # rank-one updates of the caches with feature b
        cb, ub, sb, tb = C[:, b].copy(), U[:, b].copy(), s[b], T[b].copy()
        tau_b, rho_b = expand(tau[:, b]), expand(rho[:, b])
        v = X.T @ cb                                         # v_i = x_i^T G x_b
        omega = expand(_segment_sum(P, ub[:, None] * C))     # u_bq^T C_q, per row
        ua = expand(_segment_sum(P, ub[:, None] * a))        # u_bq^T a_q, per row
        U += ub[:, None] * (omega / tau_b[:, None]
                            - np.outer(1.0 + rho_b / tau_b, v) / sb)
        r += ub[:, None] * (ua / tau_b[:, None]
                            - np.outer(1.0 + rho_b / tau_b, tb) / sb)
        C -= np.outer(cb, v / sb)
        a -= np.outer(cb, tb / sb)
    return np.array(selected, dtype=np.intp), np.array(errors), a


class _GreedyBase(BaseEstimator):
    _parameter_constraints = {"alpha": POSITIVE, "n_features_to_select": POSITIVE_INT}

    def __init__(self, alpha=1.0, *, n_features_to_select=10):
        self.alpha = alpha
        self.n_features_to_select = n_features_to_select

    def _select(self, X, y, codes, transform):
        validate_hyperparameters(self)
        alpha, k = float(self.alpha), int(self.n_features_to_select)
        X, y = validate_data(self, X, y)
        if sp.issparse(X):
            X = X.toarray()   # the caches C and U are dense m x n anyway
        Y, self._was_1d = as_2d_targets(y)
        m, n = X.shape
        if k > n:
            raise InvalidParameterError(
                f"n_features_to_select={k} exceeds the number of features ({n})")
        if codes is None:
            codes = np.arange(m)
        Xt, Yt = transform(X, Y, codes)
        sel, errors, a = greedy_forward_selection(Xt, Yt, codes, alpha, k)
        W = np.zeros((n, Y.shape[1]))
        W[sel] = Xt[:, sel].T @ a                             # w_S = X_S^T a
        self.selected_ = sel
        self.coef_ = W[:, 0] if self._was_1d else W.T.copy()
        self._W = W
        return errors, Y.shape

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        return tags

    @numerical_guard("predict")
    def predict(self, X):
        """Linear predictions ``X w`` with ``w`` zero outside ``selected_``."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False)
        P = np.asarray(X @ self._W)
        return P[:, 0] if self._was_1d else P


class GreedyRLS(RegressorMixin, _GreedyBase):
    """Greedy forward feature selection for linear RLS with the leave-one-out criterion.

    Parameters
    ----------
    alpha : float, default=1.0
        Regularization parameter lambda of ``||y - X_S w||^2 + lambda ||w||^2`` (no intercept;
        add a constant column to learn one).
    n_features_to_select : int, default=10

    Attributes
    ----------
    selected_ : ndarray (k,)
        Feature indices in the order they were added.
    coef_ : ndarray (n_features,) or (t, n_features)
        Weights of the final model on ``selected_`` (zero elsewhere).
    loo_errors_ : ndarray (k,)
        Mean squared leave-one-out error (over examples and outputs) after each step.

    Notes
    -----
    O(k m n t) time, O(m n) memory (Pahikkala, Airola, Salakoski 2010): every candidate's
    leave-one-out error is evaluated in O(m t) per step through rank-one updates.
    """

    @numerical_guard("fit")
    def fit(self, X, y):
        errors, (m, t) = self._select(X, y, None, lambda X, Y, codes: (X, Y))
        self.loo_errors_ = errors / (m * t)
        return self


class GreedyRankRLS(RankerMixin, _GreedyBase):
    """Greedy forward feature selection for linear query RankRLS (leave-query-out criterion).

    RankRLS minimizes ``sum_q (y_q - X_q w)^T (n_q I - 1 1^T) (y_q - X_q w) + lambda ||w||^2``
    — the squared error of score differences over all pairs within each query (Paper I
    eqs. 21 and 25). Each step adds the feature giving the smallest leave-query-out error:
    the pairwise squared error on the held-out query of the model trained on the others.

    ``score(X, y, qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`).

    Attributes
    ----------
    selected_, coef_ : as in :class:`GreedyRLS`
    loo_errors_ : ndarray (k,)
        Leave-query-out criterion after each step: mean over all within-query pairs (and
        outputs) of ``((y_i - y_j) - (f_i - f_j))^2``.

    Notes
    -----
    O(k m n t) time, O(m n) memory, independent of the query sizes.
    """

    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        validate_hyperparameters(self)
        m = X.shape[0] if hasattr(X, "shape") else len(X)
        codes, self.queries_ = check_groups(qids, m, name="qids")
        n_q = np.bincount(codes)
        if n_q.size < 2:
            raise InvalidInputError(f"{type(self).__name__}: the leave-query-out criterion needs "
                                    f"at least two queries, got {n_q.size} ({m} rows)")

        def transform(X, Y, codes):
            scale = np.sqrt(n_q)[codes][:, None]
            Xm = np.zeros((n_q.size, X.shape[1]))
            np.add.at(Xm, codes, X)
            Ym = np.zeros((n_q.size, Y.shape[1]))
            np.add.at(Ym, codes, Y)
            return (scale * (X - (Xm / n_q[:, None])[codes]),
                    scale * (Y - (Ym / n_q[:, None])[codes]))

        errors, (_, t) = self._select(X, y, codes, transform)
        n_pairs = float(np.sum(n_q * (n_q - 1) / 2))
        if n_pairs == 0:
            raise InvalidInputError("every query has a single row; there are no pairs to rank")
        warn_without_preference(type(self).__name__, y, codes)
        self.loo_errors_ = errors / (n_pairs * t)
        return self
