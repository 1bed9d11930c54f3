"""Linear RankSVM: squared-hinge (L2-loss) by trust-region Newton, hinge (L1-loss) by BMRM.

The primal problem on scored data with queries is ::

    J(w) = ½ ||w||^2 + C Σ_q Σ_{i,j in q, y_i > y_j} ℓ(1 - f_i + f_j),   f = X w

(pairs only inside a query and only with different labels), with the **squared hinge**
``ℓ(t) = max(0, t)^2`` (the default, ``loss="squared_hinge"``) or the **hinge**
``ℓ(t) = max(0, t)`` (``loss="hinge"``, SVMlight's RankSVM). No pair is ever formed: every
quantity below is a per-document sum over the pairs a document is in, computed by sorting
and counting, so the cost does not depend on the number of pairs.

**Squared hinge (default): trust-region Newton (TRON).** The state of the art for linear
RankSVM at scale (Lee & Lin 2014, "Large-scale linear RankSVM", Neural Computation 26(4);
primal truncated Newton as in Chapelle & Keerthi 2010, "Efficient algorithms for ranking
with SVMs", Information Retrieval 13(3)): J is differentiable with a generalized Hessian,
so :func:`learners._tron.tron` (LIBLINEAR's solver) converges in few Newton steps. A pair
(i over j) is *active* at f when ``f_j + 1 > f_i``. For document i let ::

    l⁺_i = |{j: y_j < y_i, active}|,   α⁺_i(v) = Σ_{j: y_j < y_i, active} v_j
    l⁻_i = |{j: y_j > y_i, active}|,   α⁻_i(v) = Σ_{j: y_j > y_i, active} v_j

(j in the query of i). Then (as in Lee & Lin, in our notation) ::

    loss      = Σ_i l⁺_i (1 - f_i)^2 + 2 (1 - f_i) α⁺_i(f) + l⁻_i f_i^2
    ∂loss/∂f_i = 2 [l⁻_i (1 + f_i) - α⁻_i(f)] - 2 [l⁺_i (1 - f_i) + α⁺_i(f)]
    (H_f u)_i  = 2 [(l⁺_i + l⁻_i) u_i - α⁺_i(u) - α⁻_i(u)]       (H_f = 2 × Laplacian of
                                                                   the active pairs)

and ``∇J = w + C X^T ∂loss/∂f``, ``∇²J d = d + C X^T H_f X d``. Computing the sums
(:class:`ActivePairs`): the documents are sorted by (query, f) once per Newton step; the
active partners of every document then form one contiguous range of positions inside its
query (two ``searchsorted`` calls on (query, score) keys, ordered lexicographically as
complex numbers). The label condition ``y_j < y_i`` is split over the bits of the dense
label rank r (0..R-1 inside a query): ``r_j < r_i`` iff at the highest differing bit b, i
has 1 and j has 0. For each of the ⌈log₂ R⌉ bits, the documents are grouped by
(query, r >> (b+1)) keeping the score order, and every document's sum is the difference of
two entries of one cumulative sum in that order. All queries are processed at once with
NumPy (no loop over queries or pairs). Cost: O(m log m · log R) to build the structure once
per Newton step (sorts), O(m log R + nnz(X)) per loss/gradient and per Hessian-vector
product; O(m log R) memory. (Lee & Lin's order-statistic trees: O(m log R) per product
after an O(m log m) sort.) R is 2-5 on LETOR-style graded labels.

Preconditioning (:class:`PairPreconditioner`): the conjugate-gradient steps are
preconditioned with ``M = I + 2 C ρ X^T L_r X``, L_r the Laplacian of *all* relevant pairs
(closed form from per-query and per-(query, label) sums, O(m n^2) once per training set and
an n x n eigendecomposition; its diagonal when n > 1000) and ρ the fraction of pairs active
at the iterate. On a 2,000-query version of the ill-conditioned problem of
``benchmarks/timings/bench_webscale.py`` (C = 1e-5, tol 1e-3) it took the fit from 66
Hessian-vector products in 4 Newton steps to 3 in 3.

**Hinge (``loss="hinge"``): bundle method.** Thesis §4.2 (Paper II; Joachims 2006; Teo et
al. 2010). With the counts of eqs. (4.10)-(4.11), ::

    c_i = |{j in q(i): y_j > y_i, f_j < f_i + 1}|     (i is the lower item of an active pair)
    d_i = |{j in q(i): y_j < y_i, f_j + 1 > f_i}|     (i is the upper item of an active pair)

the hinge loss is ``Σ_i (c_i - d_i) f_i + c_i`` (4.12) and a subgradient is
``Σ_i (c_i - d_i) x_i`` (4.13). Paper II computes the counts with a balanced search tree;
here a Fenwick tree (binary indexed tree) over the label ranks of a query plays that role:
after one NumPy ``lexsort`` by (query, score), two sweeps per query (by decreasing score for
d, increasing for c) insert items and query prefix counts, O(n_q log r_q) per query — so
the loss and subgradient cost O(m log m + nnz(X)) in total. The sweep loop is compiled with
numba (measured in ``benchmarks/timings/bench_ranksvm.py``). Training is the bundle method
for regularized risk minimization (BMRM, Teo et al. 2010; equivalently the one-slack
cutting-plane algorithm of Joachims 2006): each iteration adds the cutting plane at the
current w and solves the small dual QP over the simplex (an SMO-type pairwise coordinate
method). Stopping: ``J(w_best) - lower bound <= tol * J(w_best)``, a certified relative
optimality gap. O(1 / (C^-1 ε)) iterations (Smola et al. 2007), each
O(m log m + nnz(X) + t n): many more than TRON's Newton steps when C is large relative to
the number of pairs (a 720 k-document web-scale problem hits 300 planes,
``benchmarks/timings/bench_webscale.py``).
"""

import warnings

import numba
import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted, column_or_1d

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import numerical_guard
from learners._tron import tron
from learners._validation import check_vector, validate_data
from learners.base import POSITIVE, POSITIVE_INT, RankerMixin, validate_hyperparameters

# --------------------------------------------------------------------------- counting


@numba.njit(cache=True, nogil=True)
def sweep_counts(f, rank, starts, n_ranks, c, d):  # pragma: no cover - compiled
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

    Attributes: ``query`` (dense query index per document), ``rank`` (dense 0-based label
    rank inside its query), ``level`` (dense (query, label) group; ``level_sizes``),
    ``n_ranks`` / ``sizes`` / ``starts`` per query, ``max_ranks``
    (R, the largest number of distinct labels in a query), ``n_pairs``, ``m``.

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
        self.level = np.empty(m, dtype=np.int64)   # dense (query, label) group
        self.level[order] = level_id
        # the query as the narrowest unsigned type: NumPy's stable sort is a radix sort
        # for up to 16 bits
        self.query_key = self.query.astype(np.uint16 if n_q <= 2 ** 16 else np.uint32)
        self.n_ranks = np.bincount(qs, weights=new_level, minlength=n_q).astype(np.int64)
        sizes = np.bincount(self.query, minlength=n_q)
        self.starts = np.r_[0, np.cumsum(sizes)].astype(np.int64)
        # number of pairs with different labels: all pairs minus tied pairs, per query
        tied = np.bincount(level_id)
        self.level_sizes = tied
        self.n_pairs = int(np.sum(sizes * (sizes - 1) // 2) - np.sum(tied * (tied - 1) // 2))
        self.sizes = sizes
        self.max_ranks = int(self.n_ranks.max())
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
    sweep_counts(f[order], structure.rank[order], structure.starts, structure.n_ranks, c, d)
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




# --------------------------------------------------------------------------- squared hinge


def _cumsum0(W):
    """Cumulative sums along axis 0 with a leading row of zeros (range sums by difference)."""
    out = np.empty((W.shape[0] + 1,) + W.shape[1:])
    out[0] = 0.0
    np.cumsum(W, axis=0, out=out[1:])
    return out


#: up to this many distinct labels in a query, :class:`ActivePairs` loops over the label
#: levels (O(m R) per product, no extra sort); above, over the bits of the label rank
#: (O(m log R) per product after ⌈log₂ R⌉ extra sorts per Newton step)
LEVEL_LOOP_MAX_RANKS = 16


class ActivePairs:
    """The active pairs of the squared hinge at scores f, as position ranges (module docstring).

    Built in O(m log m) (R <= ``LEVEL_LOOP_MAX_RANKS``: one loop over the R label levels per
    sum, each a cumulative sum, O(k m R) for k weight columns) or O(m log m · log R) (more
    labels: one loop over the bits of the label rank, O(k m log R) per sum).
    :meth:`loss_grad` and :meth:`hessian_product` are one such sum each. All arrays are in
    the order of the documents sorted by (query, f) (``order``); results are returned in
    input order.

    Parameters
    ----------
    scores : array (m,)
        f = X w.
    structure : QueryStructure
    """

    def __init__(self, scores, structure):
        s = structure
        f = np.asarray(scores, dtype=np.float64)
        # pair differences are unchanged by a per-query shift; centring keeps the sums of
        # the loss expansion small (less cancellation)
        f = f - (np.bincount(s.query, weights=f, minlength=len(s.sizes)) / s.sizes)[s.query]
        by_score = np.argsort(f)
        # stable by query (a radix sort for up to 2^16 queries): score order kept inside
        order = by_score[np.argsort(s.query_key[by_score], kind="stable")]
        fs, qs, rank = f[order], s.query[order], s.rank[order]
        start, end = s.starts[qs], s.starts[qs + 1]
        qf = qs.astype(np.float64)
        key_f, key_g = qf + 1j * fs, qf + 1j * (fs + 1.0)
        # one predicate for pair (upper i, lower j): fl(f_j + 1) > f_i, from either side
        lo = np.searchsorted(key_g, key_f, side="right")   # i's lower partners: [lo_i, end_i)
        hi = np.searchsorted(key_f, key_g, side="left")    # j's upper partners: [start_j, hi_j)
        self.order, self.f, self.m = order, fs, s.m
        R = s.max_ranks
        if R <= LEVEL_LOOP_MAX_RANKS:
            by_level = np.argsort(rank.astype(np.uint16), kind="stable")   # radix sort
            cuts = np.cumsum(np.bincount(rank, minlength=R))[:-1]
            self.levels = [(lev, idx, lo[idx], end[idx], start[idx], hi[idx])
                           for lev, idx in enumerate(np.split(by_level, cuts))]
            self.bits = None
        else:
            self.levels = None
            self.bits = []
            for b in range(int(np.ceil(np.log2(R)))):
                group = qs * (((R - 1) >> (b + 1)) + 1) + (rank >> (b + 1))
                upper = ((rank >> b) & 1).astype(bool)   # bit 1: above the bit-0 members
                perm = np.argsort(group, kind="stable")  # by group, score order kept
                gkey = group.astype(np.float64)
                key = gkey[perm] + 1j * perm
                a = np.searchsorted(key, gkey + 1j * np.where(upper, lo, start))
                z = np.searchsorted(key, gkey + 1j * np.where(upper, end, hi))
                up_idx, low_idx = np.flatnonzero(upper), np.flatnonzero(~upper)
                self.bits.append((perm, upper[perm], up_idx, a[up_idx], z[up_idx],
                                  low_idx, a[low_idx], z[low_idx]))
        # counts and score sums of the partners in one pass: l⁺, l⁻, α⁺(f), α⁻(f)
        up, low = self._sums_sorted(np.column_stack([np.ones(s.m), fs]))
        self.l_up, self.l_low = up[:, 0], low[:, 0]
        self._f_up, self._f_low = up[:, 1], low[:, 1]

    def _sums_sorted(self, V):
        """``(α⁺(V), α⁻(V))`` for V (m, k) in sorted order: sums of V over each document's
        active partners with a lower label, with a higher label."""
        up_sum, low_sum = np.zeros_like(V), np.zeros_like(V)
        if self.bits is None:
            below = np.zeros_like(V)       # V of the documents with a label rank < lev
            for lev, idx, lo, end, start, hi in self.levels:
                if lev > 0:
                    S = _cumsum0(below)
                    up_sum[idx] = S[end] - S[lo]
                below[idx] = V[idx]
            above = V.copy()               # V of the documents with a label rank > lev
            for lev, idx, lo, end, start, hi in self.levels[:-1]:
                above[idx] = 0.0
                S = _cumsum0(above)
                low_sum[idx] = S[hi] - S[start]
            return up_sum, low_sum
        for perm, up_p, up_idx, up_a, up_z, low_idx, low_a, low_z in self.bits:
            W = V[perm]
            S_low = _cumsum0(np.where(up_p[:, None], 0.0, W))   # bit-0 members (below)
            S_up = _cumsum0(np.where(up_p[:, None], W, 0.0))    # bit-1 members (above)
            up_sum[up_idx] += S_low[up_z] - S_low[up_a]
            low_sum[low_idx] += S_up[low_z] - S_up[low_a]
        return up_sum, low_sum

    def sums(self, v):
        """``(α⁺(v), α⁻(v))`` in input order for v (m,) in input order."""
        up, low = self._sums_sorted(np.asarray(v, dtype=np.float64)[self.order, None])
        out_up, out_low = np.empty(self.m), np.empty(self.m)
        out_up[self.order], out_low[self.order] = up[:, 0], low[:, 0]
        return out_up, out_low

    def counts(self):
        """``(l⁺, l⁻)`` in input order."""
        out_up, out_low = np.empty(self.m), np.empty(self.m)
        out_up[self.order], out_low[self.order] = self.l_up, self.l_low
        return out_up, out_low

    def loss_grad(self):
        """``(Σ_active (1 - f_i + f_j)^2, ∂/∂f)``, the gradient in input order."""
        f, lu, ll, a_up, a_low = self.f, self.l_up, self.l_low, self._f_up, self._f_low
        loss = float(np.sum(lu * (1.0 - f) ** 2 + 2.0 * (1.0 - f) * a_up + ll * f * f))
        grad = np.empty(self.m)
        grad[self.order] = 2.0 * (ll * (1.0 + f) - a_low) - 2.0 * (lu * (1.0 - f) + a_up)
        return max(loss, 0.0), grad

    def hessian_product(self, u):
        """``H_f u = 2 [(l⁺ + l⁻) u - α⁺(u) - α⁻(u)]`` (generalized Hessian of the loss in f)."""
        us = np.asarray(u, dtype=np.float64)[self.order]
        a_up, a_low = self._sums_sorted(us[:, None])
        out = np.empty(self.m)
        out[self.order] = 2.0 * ((self.l_up + self.l_low) * us - a_up[:, 0] - a_low[:, 0])
        return out

    @property
    def n_active(self):
        """Number of active pairs."""
        return int(self.l_up.sum())


def pairwise_squared_hinge(scores, structure):
    """Pairwise squared hinge ``Σ_q Σ_{y_i > y_j} max(0, 1 - f_i + f_j)^2`` and its gradient
    with respect to f, in O(m log m · log R) (:class:`ActivePairs`).

    Returns
    -------
    loss : float
    grad : ndarray (m,)
        ``X^T grad`` is the gradient of the loss with respect to w.
    """
    return ActivePairs(scores, structure).loss_grad()


#: up to this many features the preconditioner is the full n x n matrix (else its diagonal)
FULL_PRECONDITIONER_MAX_FEATURES = 1000


class PairPreconditioner:
    """Preconditioners ``M = I + 2 C ρ X^T L_r X`` for the Newton systems of the squared
    hinge, built once per training set.

    L_r is the Laplacian of all relevant pairs (same query, different labels), so
    ``X^T L_r X = X^T diag(n_q - n_{q,y}) X - Σ_q s_q s_q^T + Σ_{q,y} s_{qy} s_{qy}^T`` with
    s the sums of x over a query q and over its documents with label y: O(m n^2) (chunked,
    no copy of X) and one O(n^3) eigendecomposition, or O(nnz(X)) for the diagonal when
    ``n > FULL_PRECONDITIONER_MAX_FEATURES``. The Hessian is ``I + 2 C X^T L_a X`` with L_a
    the Laplacian of the active pairs, a subgraph; ρ = (active pairs) / (relevant pairs)
    scales one to the other. M is the Hessian exactly when every relevant pair is active
    (w = 0, small C) and captures the scales and correlations of the features that make
    plain CG slow otherwise (Hsia, Chiang & Lin 2018 on preconditioned truncated Newton):
    on the web-scale benchmark every Newton step of the C path took 1-3 CG products.
    """

    def __init__(self, X, structure, chunk=65536):
        s = structure
        m, n = X.shape
        d = (s.sizes[s.query] - s.level_sizes[s.level]).astype(np.float64)
        ones = np.ones(m)
        Gq = sp.csr_matrix((ones, (s.query, np.arange(m))), shape=(len(s.sizes), m))
        Gl = sp.csr_matrix((ones, (s.level, np.arange(m))), shape=(len(s.level_sizes), m))
        Sq, Sl = Gq @ X, Gl @ X
        self.full = n <= FULL_PRECONDITIONER_MAX_FEATURES
        if self.full:
            if sp.issparse(X):
                A = (X.T @ X.multiply(d[:, None]).tocsr()).toarray()
            else:
                A = np.zeros((n, n))
                for lo in range(0, m, chunk):
                    Xb = X[lo:lo + chunk]
                    A += (Xb * d[lo:lo + chunk, None]).T @ Xb
            Sq, Sl = _dense(Sq), _dense(Sl)
            A += Sl.T @ Sl - Sq.T @ Sq
            lam, self.V = np.linalg.eigh(0.5 * (A + A.T))
            self.lam = np.maximum(lam, 0.0)
        else:
            if sp.issparse(X):
                diag = np.asarray(X.multiply(X).T @ d).ravel()
            else:
                diag = np.zeros(n)
                for lo in range(0, m, chunk):
                    Xb = X[lo:lo + chunk]
                    diag += (Xb * Xb).T @ d[lo:lo + chunk]
            diag -= _column_sq_sums(Sq)
            diag += _column_sq_sums(Sl)
            self.lam = np.maximum(diag, 0.0)
        self.n_pairs = s.n_pairs

    def at(self, C, n_active):
        """The preconditioner for weight C with ``n_active`` active pairs."""
        return _Preconditioner(self, 2.0 * C * n_active / self.n_pairs)


class _Preconditioner:
    """``M = I + t A`` (A = X^T L_r X): ``solve`` and ``inner`` for :func:`learners._tron.tron`."""

    def __init__(self, base, t):
        self.base, self.scale = base, 1.0 + t * base.lam

    def solve(self, r):
        if self.base.full:
            V = self.base.V
            return V @ ((V.T @ r) / self.scale)
        return r / self.scale

    def inner(self, a, b):
        if self.base.full:
            V = self.base.V
            return float((V.T @ a) @ (self.scale * (V.T @ b)))
        return float(a @ (self.scale * b))


def _dense(S):
    return S.toarray() if sp.issparse(S) else np.asarray(S)


def _column_sq_sums(S):
    return np.asarray(S.multiply(S).sum(axis=0)).ravel() if sp.issparse(S) else (S * S).sum(0)


def _bmrm(X, structure, C, tol, max_iter):
    """Hinge RankSVM by BMRM: ``(w, J(w), certified relative gap, converged, iterations)``."""
    n = X.shape[1]

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
    for it in range(1, max_iter + 1):
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
        gap_target = tol * best_J
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
    gap = float((best_J - lower) / best_J) if best_J > 0 else 0.0
    return np.asarray(best_w, dtype=np.float64), float(best_J), gap, converged or gap <= tol, it


class _LossAt:
    """The C-free parts of J at the last few w evaluated — ``(loss, X^T ∂loss/∂f,
    ActivePairs)`` — so that a warm start at the previous C's solution costs no pass over
    X (J and ∇J at a new C are ``½||w||² + C loss`` and ``w + C X^T ∂loss/∂f``)."""

    def __init__(self, X, structure, keep=2):
        self.X, self.structure, self.keep, self.items = X, structure, keep, []

    def __call__(self, w):
        for v, value in self.items:
            if np.array_equal(v, w):
                return value
        pairs = ActivePairs(np.asarray(self.X @ w).ravel(), self.structure)
        loss, gf = pairs.loss_grad()
        value = (loss, np.asarray(self.X.T @ gf).ravel(), pairs)
        self.items = [(w.copy(), value)] + self.items[:self.keep - 1]
        return value


def _tron_squared_hinge(loss_at, C, tol, max_iter, w0, gnorm0, precond=None):
    """Squared-hinge RankSVM by TRON from ``w0``; ``loss_at`` a :class:`_LossAt`;
    ``gnorm0 = ||X^T ∂loss/∂f(0)||`` (the stopping rule's reference is
    ``C * gnorm0 = ||∇J(0)||``); ``precond`` a :class:`PairPreconditioner` or None.
    Returns a TronResult."""
    X = loss_at.X

    def fun_grad(w):
        loss, Xg, pairs = loss_at(w)
        return 0.5 * w @ w + C * loss, w + C * Xg, pairs

    def hess_vec_at(w, pairs):
        def hv(d):
            u = pairs.hessian_product(np.asarray(X @ d).ravel())
            return d + C * np.asarray(X.T @ u).ravel()
        return hv

    precond_at = None if precond is None else (lambda w, pairs: precond.at(C, pairs.n_active))
    return tron(fun_grad, hess_vec_at, w0, tol=tol, gnorm_ref=C * gnorm0, max_iter=max_iter,
                precond_at=precond_at)


# --------------------------------------------------------------------------- estimator


class RankSVM(RankerMixin, BaseEstimator):
    """Linear RankSVM: pairwise (squared) hinge loss within queries.

    Minimizes ``½ ||w||^2 + C Σ_q Σ_{i,j in q: y_i > y_j} ℓ(1 - w·x_i + w·x_j)`` with
    ``ℓ(t) = max(0, t)^2`` (default) or ``max(0, t)``; no pair is ever formed, and sparse X
    stays sparse (module docstring for the equations and the counting).

    Parameters
    ----------
    C : float, default 1.0
        Weight of the summed pairwise loss (as SVMlight's and LIBLINEAR's ``-c``). It
        multiplies a sum over pairs, so good values shrink as the number of pairs grows.
    loss : {"squared_hinge", "hinge"}, default "squared_hinge"
        ``"squared_hinge"`` (L2-loss RankSVM): trust-region Newton with conjugate
        gradients, the state of the art at scale (Lee & Lin 2014; LIBLINEAR's primal
        solver); each Newton step costs O(m log m · log R + nnz(X)) plus
        O(m log R + nnz(X)) per conjugate-gradient iteration (R: distinct labels in a
        query). ``"hinge"`` (L1-loss, SVMlight's RankSVM and the LETOR 3.0 baseline): the
        bundle method with Fenwick-tree counting, O(m log m + nnz(X)) per cutting plane.
    tol : float, default 1e-3
        Squared hinge: stop when ``||∇J(w)|| <= tol ||∇J(0)||`` (LIBLINEAR's rule). Hinge:
        stop at a certified relative optimality gap ``(J(w) - lower bound) / J(w) <= tol``.
    max_iter : int, default 1000
        Newton steps (squared hinge) or cutting planes (hinge) per value of C.

    Attributes
    ----------
    coef_ : ndarray (n_features,)
    n_iter_ : int
        Newton steps or cutting planes.
    n_cg_ : int
        Hessian-vector products (squared hinge; 0 for the hinge).
    objective_ : float
        ``J(coef_)``.
    grad_norm_ : float
        ``||∇J(coef_)|| / ||∇J(0)||`` (squared hinge; NaN for the hinge).
    gap_ : float
        Certified relative optimality gap at exit (hinge; NaN for the squared hinge).
    converged_ : bool
    n_pairs_ : int
        Number of pairs in the loss (counted, not enumerated).
    path_ : dict
        ``{C: {"n_iter", "n_cg", "converged", "objective"}}`` of every C solved so far by
        ``fit`` and :meth:`predict_path` / :meth:`coef_path`.

    Notes
    -----
    :meth:`predict_path` and :meth:`coef_path` solve a grid of C from the smallest up, each
    warm-started from the solution at the next smaller solved C (squared hinge; the bundle
    method restarts), and cache every solution; the selection engine serves
    ``search={"C": grid}`` from them (:mod:`learners.selection`). The fitted model keeps a
    reference to the training data for that purpose. ``score(X, y, qids=None)`` is the
    concordance index (:class:`learners.base.RankerMixin`).
    """

    _parameter_constraints = {"C": POSITIVE, "loss": [StrOptions({"squared_hinge", "hinge"})],
                              "tol": POSITIVE, "max_iter": POSITIVE_INT}

    def __init__(self, C=1.0, *, loss="squared_hinge", tol=1e-3, max_iter=1000):
        self.C = C
        self.loss = loss
        self.tol = tol
        self.max_iter = max_iter

    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        """Fit on scored data; ``qids`` (None: one global ranking) restricts pairs to queries.

        Raises
        ------
        InvalidInputError
            Bad X, y or qids, or no query with two different labels.
        InvalidParameterError
            A hyper-parameter out of range.
        """
        validate_hyperparameters(self)
        X, y = validate_data(self, X, y)
        m = X.shape[0]
        y = check_vector(column_or_1d(y, warn=True), "y", m)
        if qids is not None:
            qids = check_vector(qids, "qids", m, numeric=False)
        structure = QueryStructure(y, qids)
        self.n_pairs_ = structure.n_pairs
        if structure.n_pairs == 0:
            raise InvalidInputError(
                f"no query has two examples with different labels ({m} sample(s) given): "
                "RankSVM has no pair to learn from")
        self._X, self._structure = X, structure
        self._solutions, self.path_ = {}, {}
        self._loss_at = self._precond = None
        w = self._solve(float(self.C))
        info = self.path_[float(self.C)]
        self.coef_ = w
        self.n_iter_, self.n_cg_ = info["n_iter"], info["n_cg"]
        self.objective_, self.converged_ = info["objective"], info["converged"]
        self.grad_norm_, self.gap_ = info["grad_norm"], info["gap"]
        return self

    @numerical_guard("predict")
    def predict(self, X):
        """Scores ``X w``; O(nnz(X))."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False)
        return np.asarray(X @ self.coef_).ravel()

    @numerical_guard("coef_path", data="fitted")
    def coef_path(self, Cs):
        """Coefficients at every C of ``Cs``: array (n_Cs, n_features), solved from the
        smallest C up with warm starts and cached (class Notes)."""
        check_is_fitted(self, "coef_")
        Cs = self._check_Cs(Cs)
        out = np.empty((len(Cs), self.coef_.shape[0]))
        for j in np.argsort(Cs, kind="stable"):
            out[j] = self._solve(float(Cs[j]))
        return out

    @numerical_guard("predict_path")
    def predict_path(self, X, Cs):
        """Scores of X at every C of ``Cs``: array (n_Cs, m') (:meth:`coef_path`)."""
        check_is_fitted(self, "coef_")
        X = validate_data(self, X, reset=False)
        return np.asarray(X @ self.coef_path(Cs).T).T

    # ------------------------------------------------------------------ internals
    @staticmethod
    def _check_Cs(Cs):
        Cs = np.atleast_1d(np.asarray(Cs, dtype=np.float64))
        if Cs.ndim != 1 or len(Cs) == 0 or not np.all(np.isfinite(Cs)) or np.any(Cs <= 0):
            raise InvalidParameterError(f"Cs must be positive finite numbers, got {Cs!r}")
        return Cs

    def _solve(self, C):
        """The optimum at C (cached); squared hinge warm-started from the largest solved
        C below (else the smallest above, else 0)."""
        hit = self._solutions.get(C)
        if hit is not None:
            return hit
        X, structure = self._X, self._structure
        if self.loss == "hinge":
            w, J, gap, converged, n_iter = _bmrm(X, structure, C, self.tol, self.max_iter)
            info = {"n_iter": n_iter, "n_cg": 0, "objective": J, "converged": converged,
                    "gap": gap, "grad_norm": float("nan")}
        else:
            if getattr(self, "_loss_at", None) is None:   # (dropped from pickles)
                self._loss_at = _LossAt(X, structure)
                # ||X^T ∂loss/∂f|| at w = 0, where every relevant pair is active
                self._gnorm0 = float(np.linalg.norm(self._loss_at(np.zeros(X.shape[1]))[1]))
            if self._precond is None:
                self._precond = PairPreconditioner(X, structure)
            solved = np.array(sorted(self._solutions))
            w0 = np.zeros(X.shape[1])
            if len(solved):
                below = solved[solved < C]
                w0 = self._solutions[below[-1] if len(below) else solved[0]]
            res = _tron_squared_hinge(self._loss_at, C, self.tol, self.max_iter, w0,
                                      self._gnorm0, self._precond)
            w = res.w
            rel = res.grad_norm / (C * self._gnorm0) if self._gnorm0 > 0 else 0.0
            info = {"n_iter": res.n_iter, "n_cg": res.n_cg, "objective": res.fun,
                    "converged": res.converged, "gap": float("nan"), "grad_norm": rel}
            if not res.converged:
                warnings.warn(
                    f"RankSVM: ||grad J|| / ||grad J(0)|| = {rel:.2e} > tol={self.tol:g} at "
                    f"C={C:g} after {res.n_iter} Newton steps; raise max_iter or tol",
                    ConvergenceWarning, stacklevel=3)
        self._solutions[C] = np.asarray(w, dtype=np.float64)
        self.path_[C] = info
        return self._solutions[C]

    def __getstate__(self):
        state = super().__getstate__()
        state.pop("_loss_at", None)   # a cache of the last evaluations, rebuilt on demand
        return state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags
