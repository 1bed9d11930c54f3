"""Linear RankSVM trained by a bundle method with O(m log m) loss and subgradient.

Thesis §4.2 (Paper II; Joachims 2006; Teo et al. 2010). The primal problem on scored data
with queries is

    J(w) = ½ ||w||^2 + C Σ_q Σ_{i,j in q, y_i > y_j} max(0, 1 - f_i + f_j),   f = X w

(pairs only inside a query and only with different labels). With the counts of eqs.
(4.10)-(4.11),

    c_i = |{j in q(i): y_j > y_i, f_j < f_i + 1}|     (i is the lower item of an active pair)
    d_i = |{j in q(i): y_j < y_i, f_j + 1 > f_i}|     (i is the upper item of an active pair)

the hinge loss is ``Σ_i (c_i - d_i) f_i + c_i`` (4.12) and a subgradient is
``Σ_i (c_i - d_i) x_i`` (4.13). Paper II computes the counts with a balanced search tree;
here a Fenwick tree (binary indexed tree) over the label ranks of a query plays that role:
after one NumPy ``lexsort`` by (query, score), two sweeps per query (by decreasing score for
d, increasing for c) insert items and query prefix counts, O(n_q log r_q) per query — so
the loss and subgradient cost O(m log m + nnz(X)) in total, with no dependence on the
number of pairs. The sweep loop is compiled with numba (the only loop; measured in
``benchmarks/bench_ranksvm.py``).

Training is the bundle method for regularized risk minimization (BMRM, Teo et al. 2010;
equivalently the one-slack cutting-plane algorithm of Joachims 2006): the risk is
under-approximated by the maximum of its cutting planes; each iteration adds the plane at
the current w and solves the small dual QP over the simplex (an SMO-type pairwise
coordinate method). Stopping: ``J(w_best) - lower bound <= tol * J(w_best)``, a certified
relative optimality gap. O(1 / (C^-1 ε)) iterations (Smola et al. 2007), each
O(m log m + nnz(X) + t n).
"""


import numba
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, column_or_1d

from kernelrank.errors import InvalidInputError
from learners._numerics import numerical_guard
from learners._validation import check_vector, validate_data
from learners.base import POSITIVE, POSITIVE_INT, RankerMixin, validate_hyperparameters

# --------------------------------------------------------------------------- counting


@numba.njit(cache=True, nogil=True)
def _sweep_counts(f, rank, starts, n_ranks, c, d):  # pragma: no cover - compiled
    """Fill c and d (eqs. 4.10-4.11) for items sorted by (query, score) ascending.

    ``rank`` is the dense 0-based label rank inside the query, ``n_ranks`` the number of
    distinct labels per query. One Fenwick tree of size r_q per query.
    """
    n_queries = len(starts) - 1
    for q in range(n_queries):
        s, e = starts[q], starts[q + 1]
        r = n_ranks[q]
        if r < 2:
            continue
        tree = np.zeros(r + 1, dtype=np.int64)
        # c_i: j with y_j > y_i and f_j < f_i + 1 — sweep by increasing score
        p = s
        inserted = 0
        for i in range(s, e):
            limit = f[i] + 1.0
            while p < e and f[p] < limit:  # f_upper < f_lower + 1: the pair is active
                k = rank[p] + 1
                while k <= r:
                    tree[k] += 1
                    k += k & (-k)
                inserted += 1
                p += 1
            k = rank[i] + 1  # count of inserted labels <= y_i
            below = 0
            while k > 0:
                below += tree[k]
                k -= k & (-k)
            c[i] = inserted - below
        tree[:] = 0
        # d_i: j with y_j < y_i and f_j > f_i - 1 — sweep by decreasing score
        p = e - 1
        for i in range(e - 1, s - 1, -1):
            # same predicate as the c sweep (f_lower + 1 > f_upper), evaluated identically,
            # so that every active pair is counted once in c and once in d
            while p >= s and f[p] + 1.0 > f[i]:
                k = rank[p] + 1
                while k <= r:
                    tree[k] += 1
                    k += k & (-k)
                p -= 1
            k = rank[i]  # count of inserted labels < y_i
            below = 0
            while k > 0:
                below += tree[k]
                k -= k & (-k)
            d[i] = below


class QueryStructure:
    """Per-query label ranks of a training set, computed once (O(m log m)).

    Parameters
    ----------
    y : array (m,)
        Utility scores.
    qids : array (m,) or None
        Query of each example (None: one global ranking).
    """

    def __init__(self, y, qids=None):
        y = np.asarray(y, dtype=np.float64)
        m = len(y)
        qids = np.zeros(m, dtype=np.int64) if qids is None else np.asarray(qids)
        self.query = np.unique(qids, return_inverse=True)[1].ravel().astype(np.int64)
        n_q = int(self.query.max()) + 1
        # dense label rank inside each query: sort by (query, y), new rank on change
        order = np.lexsort((y, self.query))
        qs, ys = self.query[order], y[order]
        new_query = np.r_[True, qs[1:] != qs[:-1]]
        new_level = new_query | np.r_[True, ys[1:] != ys[:-1]]
        level_id = np.cumsum(new_level) - 1
        first_level = level_id[new_query][qs]
        rank = np.empty(m, dtype=np.int64)
        rank[order] = level_id - first_level
        self.rank = rank
        self.n_ranks = np.bincount(qs, weights=new_level, minlength=n_q).astype(np.int64)
        sizes = np.bincount(self.query, minlength=n_q)
        self.starts = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        # number of pairs with different labels: all pairs minus tied pairs, per query
        tied = np.bincount(level_id)
        self.n_pairs = int(np.sum(sizes * (sizes - 1) // 2) - np.sum(tied * (tied - 1) // 2))
        self.m = m


def pairwise_hinge(scores, structure):
    """Pairwise hinge loss and its coefficient vector ``c - d`` in O(m log m).

    Parameters
    ----------
    scores : array (m,)
        Predictions f.
    structure : QueryStructure

    Returns
    -------
    loss : float
        ``Σ_q Σ_{y_i > y_j} max(0, 1 - f_i + f_j)`` (eq. 4.12).
    coef : ndarray (m,)
        ``c - d``; ``X^T coef`` is a subgradient of the loss w.r.t. w (eq. 4.13).
    """
    f = np.asarray(scores, dtype=np.float64)
    order = np.lexsort((f, structure.query))  # by query, then score ascending
    c = np.zeros(structure.m, dtype=np.int64)
    d = np.zeros(structure.m, dtype=np.int64)
    _sweep_counts(f[order], structure.rank[order], structure.starts, structure.n_ranks, c, d)
    coef = np.empty(structure.m)
    coef[order] = c - d
    loss = float(coef @ f + c.sum())
    return max(loss, 0.0), coef


def pairwise_hinge_explicit(scores, y, qids=None, chunk=2048):
    """Reference: the same loss and ``c - d`` by enumerating every pair, O(Σ_q n_q^2).

    Used to check :func:`pairwise_hinge` and as the baseline of the benchmark; pairs are
    enumerated block by block (``chunk`` rows at a time) to bound memory.
    """
    f = np.asarray(scores, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    qids = np.zeros(len(f), dtype=np.int64) if qids is None else np.asarray(qids)
    loss = 0.0
    coef = np.zeros(len(f))
    for q in np.unique(qids):
        idx = np.flatnonzero(qids == q)
        fq, yq = f[idx], y[idx]
        for lo in range(0, len(idx), chunk):
            hi = min(lo + chunk, len(idx))
            # rows: the preferred item i, columns: the other item j
            margin = (fq[None, :] + 1.0) - fq[lo:hi, None]
            active = (yq[lo:hi, None] > yq[None, :]) & (margin > 0)
            loss += float(np.sum(margin, where=active))
            coef[idx[lo:hi]] -= active.sum(axis=1)
            coef[idx] += active.sum(axis=0)
    return loss, coef


# --------------------------------------------------------------------------- bundle QP


@numba.njit(cache=True, nogil=True)
def _simplex_qp(G, b, beta, eps, max_steps=1_000_000):  # pragma: no cover - compiled
    """Minimize ½ βᵀGβ - bᵀβ over the simplex by pairwise (SMO) coordinate steps.

    Stops when ``max_{β_i>0} g_i - min_j g_j <= eps`` (g the gradient), which bounds the
    duality gap of the cutting-plane problem by eps. Warm-started from ``beta`` (modified
    in place and returned). O(t) per step.
    """
    t = len(b)
    g = G @ beta - b
    for _ in range(max_steps):
        i, j = -1, 0
        for k in range(t):
            if beta[k] > 0 and (i < 0 or g[k] > g[i]):
                i = k
            if g[k] < g[j]:
                j = k
        if g[i] - g[j] <= eps:
            break
        curvature = G[i, i] + G[j, j] - 2 * G[i, j]
        step = beta[i] if curvature <= 0 else min(beta[i], (g[i] - g[j]) / curvature)
        beta[i] -= step
        beta[j] += step
        for k in range(t):
            g[k] += step * (G[k, j] - G[k, i])
    return beta


class RankSVM(RankerMixin, BaseEstimator):
    """Linear RankSVM (pairwise hinge loss within queries) trained by BMRM.

    Minimizes ``½ ||w||^2 + C Σ_q Σ_{i,j in q: y_i > y_j} max(0, 1 - w·x_i + w·x_j)``.
    Loss and subgradient per iteration in O(m log m + nnz(X)) by Fenwick-tree counting
    (thesis §4.2, eqs. 4.10–4.13); no pair is ever formed. Sparse X stays sparse.

    Parameters
    ----------
    C : float, default 1.0
        Weight of the summed pairwise hinge loss (as SVMlight's ``-c`` for ranking).
    tol : float, default 1e-3
        Relative optimality gap ``(J(w) - lower bound) / J(w)`` at which to stop.
    max_iter : int, default 1000
        Maximum number of bundle iterations (cutting planes).

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    n_iter_ : int
    objective_ : float
        ``J(coef_)``.
    gap_ : float
        Certified relative optimality gap at exit.
    converged_ : bool
    n_pairs_ : int
        Number of pairs in the loss (counted, not enumerated).

    ``score(X, y, qids=None)`` is the concordance index (:class:`learners.base.RankerMixin`).
    """

    _parameter_constraints = {"C": POSITIVE, "tol": POSITIVE, "max_iter": POSITIVE_INT}

    def __init__(self, C=1.0, *, tol=1e-3, max_iter=1000):
        self.C = C
        self.tol = tol
        self.max_iter = max_iter

    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        """Fit on scored data; ``qids`` (None: one global ranking) restricts pairs to queries."""
        validate_hyperparameters(self)
        X, y = validate_data(self, X, y)
        m, n = X.shape
        y = check_vector(column_or_1d(y, warn=True), "y", m)
        if qids is not None:
            qids = check_vector(qids, "qids", m, numeric=False)
        structure = QueryStructure(y, qids)
        self.n_pairs_ = structure.n_pairs
        if structure.n_pairs == 0:
            raise InvalidInputError(
                f"no query has two examples with different labels ({m} sample(s) given): "
                "RankSVM has no pair to learn from")
        C = float(self.C)

        def risk(w):
            f = np.asarray(X @ w).ravel()
            loss, coef = pairwise_hinge(f, structure)
            return C * loss, C * np.asarray(X.T @ coef).ravel()

        w = np.zeros(n)
        planes_a, planes_b = [], []
        G = np.zeros((0, 0))
        beta = np.zeros(0)
        best_w, best_J = w, np.inf
        lower = -np.inf
        converged = False
        for it in range(1, self.max_iter + 1):
            R, a = risk(w)
            J = 0.5 * w @ w + R
            if J < best_J:
                best_J, best_w = J, w
            # add the cutting plane R(v) >= a·v + (R - a·w)
            planes_a.append(a)
            planes_b.append(R - a @ w)
            A = np.column_stack(planes_a)
            col = A.T @ a
            if it == 1:
                G = col[None, :]
            else:
                G = np.block([[G, col[:-1, None]], [col[None, :-1], col[-1:, None]]])
            beta = np.r_[beta, 0.0] if it > 1 else np.ones(1)
            b = np.asarray(planes_b)
            gap_target = self.tol * best_J
            # the inner QP need only be as accurate as the current outer gap allows: any β
            # on the simplex gives a valid lower bound, so early iterations solve it loosely
            outer_gap = best_J - lower if np.isfinite(lower) else best_J
            beta = _simplex_qp(G, b, beta, eps=max(0.1 * gap_target, 0.25 * outer_gap))
            lower = max(lower, -0.5 * beta @ G @ beta + b @ beta, 0.0)
            w = -(A @ beta)
            if best_J - lower <= gap_target:
                converged = True
                break
        # the final w may be better than every evaluated one
        R, _ = risk(w)
        if 0.5 * w @ w + R < best_J:
            best_J, best_w = 0.5 * w @ w + R, w
        self.coef_ = np.asarray(best_w, dtype=np.float64)
        self.objective_ = float(best_J)
        self.gap_ = float((best_J - lower) / best_J) if best_J > 0 else 0.0
        self.converged_ = converged or self.gap_ <= self.tol
        self.n_iter_ = it
        return self

    @numerical_guard("predict")
    def predict(self, X):
        """Scores ``X w``; O(nnz(X))."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False)
        return np.asarray(X @ self.coef_).ravel()

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
