"""Conjugate-gradient linear RLS and RankRLS for sparse, high-dimensional data.

Thesis §4.1.2 and Paper I §3 (end): with the linear kernel the primal RankRLS system
(4.9), ``(X^T M M^T X + λI) w = X^T M n``, is solved by conjugate gradients using only
sparse matrix-vector products, so neither an n x n nor an m x m matrix, nor any pair, is
ever formed:

* scored data with queries: ``M M^T = L = D - P P^T`` per query (P the m x ``|Q|`` query
  indicator, D the diagonal of query sizes) is applied implicitly with two ``bincount``
  calls, O(m); one CG iteration costs O(m n̄) (n̄ = mean non-zeros per row), t iterations
  O(t m n̄) — for any number of implied pairs;
* pairwise preferences ``(i, j)``, "i is preferred to j" with target margin ``n_e``
  (default 1): ``M M^T v`` uses the sparse oriented incidence matrix (4.5) with two
  non-zeros per column, O(l); t iterations cost O(t m n̄ + t l);
* plain RLS (ridge regression): ``(X^T X + λI) w = X^T y`` in O(t m n̄).

Losses (each unordered pair counted once):

* scored, ``ties="include"`` (thesis eq. 4.2): ``Σ_q Σ_{i<j in q} (y_i - y_j - f_i + f_j)^2``;
* scored, ``ties="exclude"``: only pairs of a query with different labels ("relevant
  pairs", Paper I §5.3); the Laplacian of that complete multipartite graph is the query
  Laplacian minus the Laplacians of the (query, label) groups, still O(m);
* pairs: ``Σ_e (n_e - f_i + f_j)^2``.

All solvers are :func:`scipy.sparse.linalg.cg` on a :class:`~scipy.sparse.linalg.
LinearOperator`; iterations stop at relative residual ``tol``, after ``max_iter``, or
(``early_stopping=True``) when the validation loss has not improved for
``n_iter_no_change`` iterations, keeping the best iterate.
"""

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d

from kernelrank.errors import InvalidInputError
from learners._numerics import numerical_guard
from learners._validation import (
    check_pairs,
    check_vector,
    validate_data,
    warn_without_preference,
)
from learners.base import POSITIVE, POSITIVE_INT, RankerMixin, validate_hyperparameters
from learners.pairs import count_preference_pairs, incidence_matrix

# --------------------------------------------------------------------------- operators


def _group_index(*keys):
    """Dense 0..g-1 group ids of the rows sharing all ``keys``."""
    if len(keys) == 1:
        return np.unique(keys[0], return_inverse=True)[1].ravel()
    stacked = np.column_stack(keys)
    return np.unique(stacked, axis=0, return_inverse=True)[1].ravel()


def group_laplacian(groups):
    """Function ``v -> L v`` for L = D - P P^T of the complete graph inside each group.

    ``(L v)_i = |g(i)| v_i - Σ_{j in g(i)} v_j``; ``v^T L v = Σ_g Σ_{i<j in g} (v_i - v_j)^2``.
    Cost O(m) per product.
    """
    sizes = np.bincount(groups).astype(np.float64)
    size_of = sizes[groups]

    def apply(v):
        return size_of * v - np.bincount(groups, weights=v, minlength=len(sizes))[groups]

    return apply


def query_laplacian(qids, y=None, ties="include"):
    """``v -> L v`` for the RankRLS pair graph of scored data with queries (O(m)).

    ``ties="include"``: all pairs inside a query; ``"exclude"``: only pairs with
    different labels (query Laplacian minus the (query, label) group Laplacians).
    """
    queries = _group_index(qids)
    full = group_laplacian(queries)
    if ties == "include":
        return full
    tied = group_laplacian(_group_index(queries, y))
    return lambda v: full(v) - tied(v)


def _normal_operator(X, middle, alpha, center=None):
    """LinearOperator ``w -> Xc^T middle(Xc w) + alpha w`` with ``Xc = X - 1 center^T``."""
    n = X.shape[1]

    if center is None:
        def matvec(w):
            w = np.ravel(w)
            return X.T @ middle(X @ w) + alpha * w
    else:
        def matvec(w):
            w = np.ravel(w)
            u = middle(X @ w - center @ w)
            return X.T @ u - center * u.sum() + alpha * w

    return LinearOperator((n, n), matvec=matvec, dtype=np.float64)


class _StopIteration(Exception):
    pass


def _solve(A, b, tol, max_iter, validation_loss=None, n_iter_no_change=5):
    """CG on ``A w = b``; returns ``(w, n_iter, history, converged)``.

    ``validation_loss(w)`` (lower is better), when given, is evaluated after every
    iteration; the best iterate is returned and the run stops after
    ``n_iter_no_change`` iterations without improvement.
    """
    state = {"n_iter": 0, "best": np.inf, "best_w": None, "since": 0, "history": []}

    def callback(w):
        state["n_iter"] += 1
        if validation_loss is None:
            return
        loss = float(validation_loss(w))
        state["history"].append(loss)
        if loss < state["best"]:
            state["best"], state["best_w"], state["since"] = loss, w.copy(), 0
        else:
            state["since"] += 1
            if state["since"] >= n_iter_no_change:
                raise _StopIteration

    if not np.any(b):
        return np.zeros_like(b), 0, [], True
    try:
        w, info = cg(A, b, rtol=tol, atol=0.0, maxiter=max_iter, callback=callback)
        converged = info == 0
    except _StopIteration:
        w, converged = None, False
    if validation_loss is not None and state["best_w"] is not None:
        w = state["best_w"]
    return w, state["n_iter"], state["history"], converged


# --------------------------------------------------------------------------- estimators


class _CGBase(BaseEstimator):
    _parameter_constraints = {
        "alpha": POSITIVE,
        "tol": POSITIVE,
        "max_iter": [*POSITIVE_INT, None],
        "early_stopping": ["boolean"],
        "n_iter_no_change": POSITIVE_INT,
    }

    def _max_iter(self, n):
        return self.max_iter if self.max_iter is not None else 10 * n

    @numerical_guard("predict")
    def predict(self, X):
        """Scores ``X w (+ intercept)``; O(nnz(X))."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False)
        return np.asarray(X @ self.coef_).ravel() + getattr(self, "intercept_", 0.0)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags


class CGRLS(RegressorMixin, _CGBase):
    """Linear regularized least-squares (ridge regression) trained by conjugate gradients.

    Minimizes ``||y - X w - b||^2 + alpha ||w||^2`` (``b`` unpenalized, only with
    ``fit_intercept``) by CG on ``(Xc^T Xc + alpha I) w = Xc^T yc``, where centering is
    applied implicitly so sparse ``X`` stays sparse. Cost O(t m n̄) for t iterations.

    Parameters
    ----------
    alpha : float, default 1.0
        Regularization λ.
    fit_intercept : bool, default True
    tol : float, default 1e-6
        Relative residual ``||A w - b|| / ||b||`` at which CG stops.
    max_iter : int or None, default None (10 * n_features)
    early_stopping : bool, default False
        Stop when the squared error on ``(X_val, y_val)`` given to ``fit`` has not improved
        for ``n_iter_no_change`` iterations; keep the best iterate.
    n_iter_no_change : int, default 5

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    intercept_ : float
    n_iter_ : int
        CG iterations run.
    converged_ : bool
        Whether CG reached ``tol`` (False after early stopping or ``max_iter``).
    validation_loss_ : list of float
        Validation loss after each iteration (only with early stopping).
    """

    _parameter_constraints = {**_CGBase._parameter_constraints, "fit_intercept": ["boolean"]}

    def __init__(self, alpha=1.0, *, fit_intercept=True, tol=1e-6, max_iter=None,
                 early_stopping=False, n_iter_no_change=5):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.early_stopping = early_stopping
        self.n_iter_no_change = n_iter_no_change

    @numerical_guard("fit")
    def fit(self, X, y, X_val=None, y_val=None):
        """Fit on ``(X, y)``; ``X_val, y_val`` are required iff ``early_stopping``."""
        validate_hyperparameters(self)
        X, y = validate_data(self, X, y)
        y = check_vector(column_or_1d(y, warn=True), "y", X.shape[0])
        m, n = X.shape
        if self.fit_intercept:
            center = np.asarray(X.mean(axis=0)).ravel()
            y_mean = y.mean()
        else:
            center, y_mean = None, 0.0
        yc = y - y_mean
        b = np.asarray(X.T @ yc).ravel() - (center * yc.sum() if center is not None else 0.0)
        A = _normal_operator(X, lambda u: u, float(self.alpha), center)
        val = _validation(self, X_val, y_val, None, n)

        def val_loss(w):
            offset = y_mean - (center @ w if center is not None else 0.0)
            return np.sum((val[1] - (val[0] @ w) - offset) ** 2)

        w, self.n_iter_, self.validation_loss_, self.converged_ = _solve(
            A, b, self.tol, self._max_iter(n), val_loss if val else None,
            self.n_iter_no_change)
        self.coef_ = w
        self.intercept_ = float(y_mean - (center @ w if center is not None else 0.0))
        return self


class CGRankRLS(RankerMixin, _CGBase):
    """Linear RankRLS trained by conjugate gradients, from scored data or from pairs.

    Scored data (``fit(X, y, qids=...)``, ``qids=None`` = one global ranking) minimizes
    ``(y - Xw)^T L (y - Xw) + alpha ||w||^2`` with the query Laplacian ``L = D - P P^T``
    applied implicitly (``ties`` selects all within-query pairs or only those with
    different labels); cost O(t m n̄) whatever the number of implied pairs.
    Pairwise preferences (``fit(X, pairs=..., magnitudes=..., weights=...)``, the fit
    contract of :class:`learners.PairwiseRankRLS`) minimize
    ``Σ_e w_e^2 (n_e - f_i + f_j)^2 + alpha ||w||^2`` through the sparse incidence matrix,
    O(t m n̄ + t l). No pair feature vector is ever formed (thesis §4.1.2, eq. 4.9).
    ``score(X, y, qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`).

    Parameters
    ----------
    alpha : float, default 1.0
    ties : {"include", "exclude"}, default "include"
        Scored data only: whether tied pairs (same query, same label) enter the loss.
    tol, max_iter, early_stopping, n_iter_no_change : as in :class:`CGRLS`; the
        validation loss is the same pairwise squared loss on ``(X_val, y_val,
        qids_val)`` (scored validation data; with ``ties`` as for training).

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    n_iter_ : int
    n_pairs_ : int
        Number of pairs in the loss (counted, never enumerated, for scored data).
    validation_loss_ : list of float
    """

    _parameter_constraints = {**_CGBase._parameter_constraints,
                              "ties": [StrOptions({"include", "exclude"})]}

    def __init__(self, alpha=1.0, *, ties="include", tol=1e-6, max_iter=None,
                 early_stopping=False, n_iter_no_change=5):
        self.alpha = alpha
        self.ties = ties
        self.tol = tol
        self.max_iter = max_iter
        self.early_stopping = early_stopping
        self.n_iter_no_change = n_iter_no_change

    @numerical_guard("fit")
    def fit(self, X, y=None, qids=None, *, pairs=None, magnitudes=None, weights=None,
            X_val=None, y_val=None, qids_val=None):
        """Fit from scored data ``(y, qids)`` or from ``pairs`` (exactly one of y, pairs).

        Parameters
        ----------
        X : array or sparse matrix (m, n)
        y : array (m,), optional
            Utility scores (scored setting).
        qids : array (m,), optional
            Query of each example; None puts all examples in one query.
        pairs : int array (l, 2), optional
            Rows ``(i, j)``: example i is preferred to example j.
        magnitudes : array (l,), optional
            Target margins ``n_e`` (default 1).
        weights : array (l,), optional
            Non-negative edge weights ``w_e`` (default 1).
        X_val, y_val, qids_val : optional scored validation data for early stopping.
        """
        validate_hyperparameters(self)
        if y is None and pairs is None:
            raise InvalidInputError(f"{type(self).__name__} requires y to be passed, but the "
                                    "target y is None (give scores y, or pairs)")
        X = validate_data(self, X)
        m, n = X.shape
        if (y is None) == (pairs is None):
            raise InvalidInputError("give either scores y (with qids) or pairs, not both")
        if pairs is not None:
            if qids is not None:
                raise InvalidInputError("qids are not used with pairs; pass one or the other")
            pairs = check_pairs(pairs, m)
            targets = (np.ones(len(pairs)) if magnitudes is None
                       else check_vector(magnitudes, "magnitudes", len(pairs)))
            w = None if weights is None else check_vector(weights, "weights", len(pairs))
            if w is not None and np.any(w < 0):
                raise InvalidInputError("weights must be non-negative")
            Mt = incidence_matrix(pairs, m, w)
            middle = lambda u: Mt.T @ (Mt @ u)  # noqa: E731
            b = np.asarray(X.T @ (Mt.T @ (targets if w is None else w * targets))).ravel()
            self.n_pairs_ = len(pairs)
        else:
            if magnitudes is not None or weights is not None:
                raise InvalidInputError("magnitudes and weights are only used with pairs")
            y = check_vector(column_or_1d(y, warn=True), "y", m)
            qids = np.zeros(m, dtype=np.int64) if qids is None else check_vector(
                qids, "qids", m, numeric=False)
            warn_without_preference(type(self).__name__, y, qids)
            middle = query_laplacian(qids, y, self.ties)
            b = np.asarray(X.T @ middle(y)).ravel()
            self.n_pairs_ = _count_pairs(qids, y, self.ties)
        A = _normal_operator(X, middle, float(self.alpha))
        val = _validation(self, X_val, y_val, qids_val, n)
        val_loss = None
        if val:
            Lval = query_laplacian(val[2], val[1], self.ties)

            def val_loss(w):
                r = val[1] - np.asarray(val[0] @ w).ravel()
                return r @ Lval(r)

        w, self.n_iter_, self.validation_loss_, self.converged_ = _solve(
            A, b, self.tol, self._max_iter(n), val_loss, self.n_iter_no_change)
        self.coef_ = w
        return self


def _count_pairs(qids, y, ties):
    if ties == "exclude":
        return count_preference_pairs(y, qids)
    sizes = np.bincount(_group_index(qids)).astype(np.int64)
    return int(np.sum(sizes * (sizes - 1) // 2))


def _validation(estimator, X_val, y_val, qids_val, n):
    """Checked validation data ``(X, y, qids)`` or None; errors if inconsistent."""
    given = X_val is not None or y_val is not None
    if estimator.early_stopping and not (X_val is not None and y_val is not None):
        raise InvalidInputError("early_stopping=True needs X_val and y_val in fit")
    if given and not estimator.early_stopping:
        raise InvalidInputError("X_val/y_val are only used with early_stopping=True")
    if not given:
        return None
    X_val = validate_data(estimator, X_val, reset=False)
    y_val = check_vector(y_val, "y_val", X_val.shape[0])
    if qids_val is None:
        qids_val = np.zeros(X_val.shape[0], dtype=np.int64)
    else:
        qids_val = check_vector(qids_val, "qids_val", X_val.shape[0], numeric=False)
    return X_val, y_val, qids_val
