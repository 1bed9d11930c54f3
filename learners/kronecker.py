"""Kronecker-kernel RLS for relational data: conditional regression and conditional ranking.

Paper 004 (Pahikkala, Airola, Stock, De Baets, Waegeman, "Efficient regularized
least-squares algorithms for conditional ranking on relational data", §3-§4). The formulas
lost in our copy of the paper are reconstructed in ``papers/notes/seed-002-004-digest.md``
Appendix R; every closed form below is tested against explicit Kronecker products.

Data: a graph over nodes with a feature vector (or kernel row) each; an *edge* ``e = (v, v')``
carries a label ``y_e``. The first node ``v`` is the *conditioning* node: conditional ranking
ranks the end nodes ``v'`` for every fixed ``v`` (to condition on the end node, swap the
columns of ``edges``). Edge kernels (R2), from one node kernel ``k``:

* ``"kronecker"``  ``K((v,v'),(u,u')) = k(v,u) k(v',u')``                (eq. 7)
* ``"symmetric"``  ``½[k(v,u)k(v',u') + k(v,u')k(v',u)]`` = S(K⊗K)          (eq. 8)
* ``"reciprocal"`` ``½[k(v,u)k(v',u') − k(v,u')k(v',u)]`` = A(K⊗K)          (eq. 9)

The reciprocal kernel models antisymmetric relations ``f(v,v') = −f(v',v)``; a reciprocal
relation ``Q + Qᵀ = 1`` is ``Q − ½`` (the ½ is irrelevant: A annihilates constants).

Model: ``f(v, v') = k(v, X)ᵀ A k(v', X_end)`` with an ``m × m'`` dual matrix ``A``
(``dual_coef_``); this is the vec trick ``(K⊗K) vec(A) = vec(K A Kᵀ)`` — no Kronecker product
is ever formed. Losses: regression (eq. 5) ``Σ_e (y_e − f_e)²``; conditional ranking (eq. 6,
the block Laplacian (31) of paper 004) ``Σ_v (1/l_v)·½ Σ_{e,ē ∈ E_v} (y_e − f_e − y_ē + f_ē)²``
= ``(y − f)ᵀ L (y − f)`` with ``L = diag(C^{l_v})``, ``C^l = I − 11ᵀ/l`` (each conditioning node
weighted by ``1/l_v``, as in 004, unlike the query Laplacian ``l·C`` of RankRLS).

Solvers (chosen in :func:`_resolve_solver`):

* ``"closed_form"`` — complete graph (a label for every (v, v') pair, the ``Y`` matrix). With
  ``K = V Λ Vᵀ`` and ``K_end = U Σ Uᵀ`` (positive eigenvalues only; PSD kernels are handled
  through the empirical kernel map, which gives the same predictions):

  - regression (Cor. 4.5 / Prop. 4.4):  ``A = V [(Vᵀ Y U) ⊘ (λ_i σ_j + α)] Uᵀ``;
  - ranking (Cor. 4.8), with ``Φ = U Σ^{½}`` and ``Φᵀ C Φ = W Ω Wᵀ``:
    ``A = V [(Vᵀ Y C Φ W) ⊘ (λ_i ω_j + α)] Wᵀ Σ^{-½} Uᵀ``;
  - symmetric/reciprocal kernels with the regression loss: Prop. 4.7 — the ordinary
    Kronecker closed form on labels ``S y = (Y + Yᵀ)/2`` (``A y = (Y − Yᵀ)/2``).

  Cost O(m³ + m'³) time, O(m m') memory, independent of the number m·m' of edges.
* ``"cg"`` — any edge set (incomplete graphs, repeated edges), any kernel, either loss.
  Conjugate gradients on the symmetric positive semi-definite system
  ``(L G_E L + α I) a = L y`` (regression: ``L = I``), where ``G_E`` is the edge kernel
  matrix of the n training edges and ``a`` their dual coefficients. Since ``α a = L(y − G_E a)``
  at the solution, ``a = L a`` and this is exactly 004's system (33) ``(L G_E + α I) a = L y``
  made symmetric (the block-centred kernel of Lemma 4.9). One product ``G_E a`` scatters ``a``
  into an m × m' matrix and forms ``K A K_endᵀ`` with two BLAS-3 products, then gathers
  the n edges: O(m²m' + m m'² + n) per iteration; ``L`` costs O(n) (two ``bincount``).
  ``max_iter`` gives early stopping (a regulariser, 004 §4.4), ``alpha=0`` is then allowed.

Fast leave-one-out: :meth:`KronRLS.leave_one_out` returns exact leave-one-edge-out
predictions of the complete-graph closed form (Kronecker kernel) from the diagonal of the
hat matrix, ``diag(H) = (V∘V) D (U∘U)ᵀ`` with ``D_ij = λ_iσ_j/(λ_iσ_j + α)``, in O(m³ + m'³),
for any list of α. :meth:`predict_path` gives predictions for many α from one fit (both
losses), reusing the node eigendecompositions.
"""

import numpy as np
from scipy.sparse.linalg import LinearOperator, cg
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.metrics import r2_score
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import check_alphas, check_matrix, warn_without_preference
from learners.base import (
    KERNEL_CONSTRAINTS,
    NON_NEGATIVE,
    POSITIVE,
    POSITIVE_INT,
    RankerMixin,
    concordance_score,
    validate_hyperparameters,
)
from learners.kernels import kernel_matrix, resolve_kernel

PAIRWISE_KERNELS = ("kronecker", "symmetric", "reciprocal")
SOLVERS = ("auto", "closed_form", "cg")
_EIG_RTOL = 1e-12
_PREDICT_CHUNK = 1 << 16

# --------------------------------------------------------------------------- validation


def _check_edges(edges, m_start, m_end, name="edges"):
    edges = np.asarray(edges)
    if edges.ndim != 2 or edges.shape[1] != 2 or len(edges) == 0:
        raise InvalidInputError(f"{name} must be a non-empty (n, 2) array of (start, end) node "
                                f"indices, got shape {edges.shape}")
    if not np.issubdtype(edges.dtype, np.integer):
        raise InvalidInputError(f"{name} must hold integer node indices")
    if edges.min() < 0 or edges[:, 0].max() >= m_start or edges[:, 1].max() >= m_end:
        raise InvalidInputError(
            f"{name} refer to nodes outside the node sets ({m_start} start, {m_end} end nodes)")
    return edges.astype(np.int64)


def _check_labels(y, shape, name="y"):
    y = np.asarray(y, dtype=np.float64)
    if y.shape != shape:
        raise InvalidInputError(f"{name} must have shape {shape}, got {y.shape}")
    if not np.all(np.isfinite(y)):
        raise InvalidInputError(f"{name} contains NaN or infinite values")
    return y


# --------------------------------------------------------------------------- linear algebra


def _eig_psd(K):
    """Eigenpairs of a symmetric PSD matrix with eigenvalues > rtol·max (rest dropped)."""
    if not np.allclose(K, K.T, rtol=1e-10, atol=1e-12 * max(1.0, np.abs(K).max())):
        raise InvalidInputError("the node kernel matrix is not symmetric")
    evals, evecs = np.linalg.eigh((K + K.T) / 2)
    keep = evals > _EIG_RTOL * max(evals.max(), 0.0)
    if not keep.any():
        raise InvalidInputError("the node kernel matrix is zero (no positive eigenvalue)")
    return evals[keep], evecs[:, keep]


def _center_columns(Y):
    """``Y C``: subtract from every row its mean (centring per conditioning node)."""
    return Y - Y.mean(axis=1, keepdims=True)


def _closed_form_dual(eig_start, eig_end, Y, alpha, ranking):
    """Dual matrix A of the complete-graph Kronecker RLS / conditional RankRLS (R4, R6)."""
    lam, V = eig_start
    sig, U = eig_end
    if not ranking:
        return V @ ((V.T @ Y @ U) / (np.outer(lam, sig) + alpha)) @ U.T
    Phi = U * np.sqrt(sig)                       # empirical feature map of the end nodes
    omega, W = np.linalg.eigh(Phi.T @ _center_columns(Phi.T).T)   # Φᵀ C Φ
    omega = np.clip(omega, 0.0, None)
    R = V.T @ _center_columns(Y) @ Phi @ W
    return V @ (R / (np.outer(lam, omega) + alpha)) @ (W.T / np.sqrt(sig)[None, :]) @ U.T


def _symmetrize(A, pairwise):
    if pairwise == "symmetric":
        return (A + A.T) / 2
    if pairwise == "reciprocal":
        return (A - A.T) / 2
    return A


class _EdgeKernel:
    """Products with the edge kernel matrix G_E of a fixed edge list (vec trick, R7)."""

    def __init__(self, K_start, K_end, edges, pairwise):
        self.K_start, self.K_end, self.pairwise = K_start, K_end, pairwise
        self.shape = (K_start.shape[0], K_end.shape[0])
        self.rows, self.cols = edges[:, 0], edges[:, 1]
        self.flat = np.ravel_multi_index((self.rows, self.cols), self.shape)

    def scatter(self, a):
        """Dual matrix: ``A[v, v'] = Σ_{e=(v,v')} a_e`` (repeated edges add up)."""
        size = self.shape[0] * self.shape[1]
        return np.bincount(self.flat, weights=a, minlength=size).reshape(self.shape)

    def matvec(self, a):
        A = _symmetrize(self.scatter(a), self.pairwise)
        F = self.K_start @ A @ self.K_end.T
        return F[self.rows, self.cols]


class _GroupCentering:
    """``v ↦ L v`` with ``L = diag(C^{l_g})``: subtract the mean of each group, O(n)."""

    def __init__(self, groups):
        self.groups = np.unique(groups, return_inverse=True)[1].ravel()
        self.sizes = np.bincount(self.groups).astype(np.float64)

    def __call__(self, v):
        means = np.bincount(self.groups, weights=v, minlength=len(self.sizes)) / self.sizes
        return v - means[self.groups]


def _solve_cg(edge_kernel, y, alpha, center, max_iter, tol):
    """CG on ``(L G_E L + α I) a = L y`` (L = I for regression); returns (a, iterations)."""
    n = len(y)
    L = center if center is not None else (lambda v: v)

    def matvec(a):
        a = np.ravel(a)
        return L(edge_kernel.matvec(L(a))) + alpha * a

    op = LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    count = [0]

    def callback(_):
        count[0] += 1

    a, _ = cg(op, L(y), rtol=tol, atol=0.0, maxiter=max_iter, callback=callback)
    return L(a), count[0]


# --------------------------------------------------------------------------- estimators


class _KronBase(BaseEstimator):
    _ranking = False
    _parameter_constraints = {
        "alpha": NON_NEGATIVE,
        **KERNEL_CONSTRAINTS,
        "pairwise": [StrOptions(set(PAIRWISE_KERNELS))],
        "solver": [StrOptions(set(SOLVERS))],
        "max_iter": [*POSITIVE_INT, None],
        "tol": POSITIVE,
    }

    def __init__(self, alpha=1.0, kernel="linear", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, pairwise="kronecker", solver="auto", max_iter=None,
                 tol=1e-10):
        self.alpha = alpha
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.pairwise = pairwise
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol

    def _resolve_solver(self, complete):
        closed_ok = complete and (not self._ranking or self.pairwise == "kronecker")
        if self.solver == "auto":
            return "closed_form" if closed_ok and self.alpha > 0 else "cg"
        if self.solver == "closed_form":
            if not complete:
                raise InvalidParameterError(
                    "solver='closed_form' needs a complete graph (y as an m x m' matrix, "
                    "edges=None); use solver='cg' for an edge list")
            if not closed_ok:
                raise InvalidParameterError(
                    f"conditional ranking with the {self.pairwise!r} pairwise kernel has no "
                    "closed form (004 §4.3); use solver='cg'")
            if self.alpha == 0:
                raise InvalidParameterError("solver='closed_form' needs alpha > 0")
        if self.solver == "cg" and self.alpha == 0 and self.max_iter is None:
            raise InvalidParameterError(
                "alpha=0 with solver='cg' needs max_iter (early stopping is the regulariser)")
        return self.solver

    def _node_kernel(self, X, Z):
        name, params = self._kernel_spec_
        return kernel_matrix(X, Z, name, **params)

    # -- fit ----------------------------------------------------------------------------
    @numerical_guard("fit")
    def fit(self, X, y, edges=None, X_end=None):
        """Fit on a labelled graph.

        Parameters
        ----------
        X : array-like or sparse, shape (m, d)
            Features of the (start) nodes; the ``m × m`` node kernel if
            ``kernel="precomputed"``.
        y : ndarray, shape (m, m') if ``edges`` is None, else (n,)
            Edge labels: a matrix ``y[v, v']`` for a complete graph, or one label per edge.
        edges : array-like of int, shape (n, 2), optional
            ``(start, end)`` node indices of the labelled edges (rows of ``X`` and of
            ``X_end``). Repeated edges are allowed. Conditional ranking groups edges by start
            node.
        X_end : array-like, optional
            A second node set for the end nodes (two-domain data, e.g. drugs × targets);
            only with ``pairwise="kronecker"``. Default: the end nodes are ``X``.

        Returns
        -------
        self
        """
        validate_hyperparameters(self)
        self._kernel_spec_ = resolve_kernel(self.kernel, gamma=self.gamma, degree=self.degree,
                                            coef0=self.coef0, kernel_params=self.kernel_params)
        X = check_matrix(X, "X", owner=type(self).__name__)
        two_domain = X_end is not None
        if two_domain and self.pairwise != "kronecker":
            raise InvalidParameterError(
                f"pairwise={self.pairwise!r} needs one node set (start and end nodes from the "
                "same domain); drop X_end")
        X_end = check_matrix(X_end, "X_end", owner=type(self).__name__) if two_domain else X
        m, m_end = X.shape[0], X_end.shape[0]
        if self.kernel == "precomputed":
            for name, K in (("X", X), ("X_end", X_end)):
                if K.shape[0] != K.shape[1]:
                    raise InvalidInputError(f"kernel='precomputed': {name} must be the square "
                                            f"node kernel matrix, got shape {K.shape}")
        complete = edges is None
        if complete:
            Y = _check_labels(y, (m, m_end))
        else:
            edges = _check_edges(edges, m, m_end)
            Y = _check_labels(y, (len(edges),))
        if self._ranking:          # queries: the start nodes
            warn_without_preference(type(self).__name__, np.ravel(Y), np.repeat(
                np.arange(m), m_end) if complete else edges[:, 0])
        solver = self._resolve_solver(complete)

        K = self._node_kernel(X, X)
        K_end = self._node_kernel(X_end, X_end) if two_domain else K
        if solver == "closed_form":
            Yt = _symmetrize(Y, self.pairwise) if self.pairwise != "kronecker" else Y
            eig = _eig_psd(K)
            eig_end = _eig_psd(K_end) if two_domain else eig
            self.dual_coef_ = _closed_form_dual(eig, eig_end, Yt, self.alpha, self._ranking)
            self._path_cache_ = (eig, eig_end, Yt)
            self.n_iter_ = 0
        else:
            if complete:
                rr, cc = np.meshgrid(np.arange(m), np.arange(m_end), indexing="ij")
                edges = np.column_stack([rr.ravel(), cc.ravel()])
                Y = Y.ravel()
            op = _EdgeKernel(K, K_end, edges, self.pairwise)
            center = _GroupCentering(edges[:, 0]) if self._ranking else None
            a, self.n_iter_ = _solve_cg(op, Y, float(self.alpha), center, self.max_iter,
                                        self.tol)
            self.edge_dual_coef_ = a
            self.dual_coef_ = _symmetrize(op.scatter(a), self.pairwise)
        self.solver_ = solver
        self.X_fit_ = X
        self.X_end_fit_ = X_end if two_domain else None
        return self

    # -- predict ------------------------------------------------------------------------
    @numerical_guard("predict")
    def predict(self, X, edges=None, X_end=None):
        """Predict edge scores for (new) node pairs.

        Parameters
        ----------
        X : array-like, shape (t, d)
            Start nodes (kernel rows ``k(X, X_fit_)`` if ``kernel="precomputed"``).
        edges : array-like of int, shape (n, 2), optional
            ``(start, end)`` indices into ``X`` and ``X_end``; default all pairs.
        X_end : array-like, shape (t', d), optional
            End nodes; default ``X``. Nodes may be training nodes or new ones (setting 4 of
            004: both nodes unseen).

        Returns
        -------
        ndarray, shape (t, t') without ``edges`` (``F[v, v']``), else (n,).
        Cost O(t m m' + t t' m') for all pairs; O(t m m' + n m') for an edge list.
        """
        Ks, Ke, edges = self._test_kernels(X, edges, X_end)
        return _predict_dual(self.dual_coef_, Ks, Ke, edges)

    @numerical_guard("predict_path")
    def predict_path(self, X, alphas, edges=None, X_end=None):
        """Predictions for several regularisation values from one fit (closed form only).

        The eigendecompositions of the node kernels are reused: each α costs O(m²r + m r'²)
        plus the prediction, instead of a new O(m³ + m'³) fit.

        Returns
        -------
        ndarray, shape (n_alphas, t, t') or (n_alphas, n)
        """
        alphas = self._check_path_alphas(alphas)
        Ks, Ke, edges = self._test_kernels(X, edges, X_end)
        return np.stack([_predict_dual(self._dual_at(a), Ks, Ke, edges) for a in alphas])

    def _check_path_alphas(self, alphas):
        check_is_fitted(self, "dual_coef_")
        if self.solver_ != "closed_form":
            raise InvalidParameterError("regularisation paths need the closed form (complete "
                                        "graph); refit per alpha with the CG solver")
        return check_alphas(alphas, self.alpha)[0]

    def _dual_at(self, alpha):
        eig, eig_end, Yt = self._path_cache_
        return _closed_form_dual(eig, eig_end, Yt, alpha, self._ranking)

    def _edge_scores(self, X, y, edges, X_end):
        """Labels and predictions of the test edges as vectors, and each edge's start node."""
        pred = self.predict(X, edges=edges, X_end=X_end)
        y = np.asarray(y, dtype=np.float64)
        if y.shape != pred.shape:
            raise InvalidInputError(f"y must have shape {pred.shape} (one label per predicted "
                                    f"edge), got {y.shape}")
        starts = (np.repeat(np.arange(pred.shape[0]), pred.shape[1]) if edges is None
                  else np.asarray(edges)[:, 0])
        return y.ravel(), pred.ravel(), starts

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = True
        return tags

    def _test_kernels(self, X, edges, X_end):
        check_is_fitted(self, "dual_coef_")
        X = check_matrix(X, "X", owner=type(self).__name__)
        X_end = X if X_end is None else check_matrix(X_end, "X_end", owner=type(self).__name__)
        train_end = self.X_fit_ if self.X_end_fit_ is None else self.X_end_fit_
        Ks = self._node_kernel(X, self.X_fit_)
        Ke = self._node_kernel(X_end, train_end)
        if edges is not None:
            edges = _check_edges(edges, X.shape[0], X_end.shape[0])
        return Ks, Ke, edges


def _predict_dual(A, Ks, Ke, edges):
    """``Ks A Keᵀ`` (all pairs) or its entries at ``edges`` (chunked, O(n m'))."""
    T = Ks @ A                                                   # t × m'
    if edges is None:
        return T @ Ke.T
    out = np.empty(len(edges))
    for start in range(0, len(edges), _PREDICT_CHUNK):
        e = edges[start:start + _PREDICT_CHUNK]
        out[start:start + len(e)] = np.einsum("ij,ij->i", T[e[:, 0]], Ke[e[:, 1]])
    return out


class KronRLS(RegressorMixin, _KronBase):
    """Kronecker regularized least-squares: conditional regression on relational data.

    Minimises ``Σ_e (y_e − f(e))² + α ‖f‖²`` over the RKHS of the Kronecker (or
    symmetric / reciprocal) edge kernel (paper 004 eq. 5, Cor. 4.5, Prop. 4.7). See the module
    docstring for the closed form (complete graphs, O(m³)) and the conjugate-gradient solver
    (any edge list, O(m³ + n) per iteration).

    Parameters
    ----------
    alpha : float, default 1.0
        Regularisation λ (≥ 0; 0 only with ``solver="cg"`` and ``max_iter``).
    kernel, gamma, degree, coef0, kernel_params :
        Node kernel, as in :func:`learners.kernels.resolve_kernel`.
    pairwise : {"kronecker", "symmetric", "reciprocal"}, default "kronecker"
        Edge kernel built from the node kernel.
    solver : {"auto", "closed_form", "cg"}, default "auto"
        "auto" uses the closed form for a complete graph and ``alpha > 0``, else CG.
    max_iter : int, optional
        CG iteration limit (early stopping).
    tol : float, default 1e-10
        CG relative-residual tolerance.

    Attributes
    ----------
    dual_coef_ : ndarray (m, m')
        Dual matrix ``A``; ``f(v, v') = k(v, X_fit_) A k(v', X_end_fit_)ᵀ``.
    edge_dual_coef_ : ndarray (n,)
        Per-edge dual coefficients (CG solver only).
    n_iter_ : int
        CG iterations (0 for the closed form).
    solver_ : str
    """

    _ranking = False

    def score(self, X, y, *, edges=None, X_end=None):
        """R² of the edge predictions (:func:`sklearn.metrics.r2_score`, every edge one
        sample): ``y`` of shape (t, t') for all pairs of ``X`` × ``X_end``, or (n,) for
        ``edges``; arguments as :meth:`predict`."""
        y, pred, _ = self._edge_scores(X, y, edges, X_end)
        return float(r2_score(y, pred))

    @numerical_guard("leave-one-out", data="fitted")
    def leave_one_out(self, alphas=None):
        """Exact leave-one-edge-out predictions of the complete-graph closed form.

        For every edge ``e``: ``f_{-e}(e) = (f_e − H_ee y_e) / (1 − H_ee)`` with
        ``H = G (G + αI)^{-1}``, ``G = K ⊗ K_end``; ``diag(H) = (V∘V) D (U∘U)ᵀ`` with
        ``D_ij = λ_iσ_j / (λ_iσ_j + α)``. O(m³ + m'³) once, then O(m m' r) per α, reusing the
        eigendecompositions of the fit. Only for ``pairwise="kronecker"``, fitted with the
        closed form (a complete graph).

        Parameters
        ----------
        alphas : sequence of float, optional
            Regularisation values (default: the fitted ``alpha``).

        Returns
        -------
        ndarray, shape (m, m'), or (n_alphas, m, m') when ``alphas`` is given.
        """
        check_is_fitted(self, "dual_coef_")
        if self.solver_ != "closed_form" or self.pairwise != "kronecker":
            raise InvalidParameterError(
                "leave_one_out needs the closed form with pairwise='kronecker' (complete graph)")
        single = alphas is None
        alphas = self._check_path_alphas([self.alpha] if single else alphas)
        (lam, V), (sig, U), Y = self._path_cache_
        VV, UU = V * V, U * U
        prod = np.outer(lam, sig)
        R = V.T @ Y @ U
        out = []
        for a in alphas:
            H = VV @ (prod / (prod + a)) @ UU.T
            F = V @ (R * (prod / (prod + a))) @ U.T          # fitted values G (G + aI)^-1 y
            out.append((F - H * Y) / (1.0 - H))
        return out[0] if single else np.stack(out)


class KronRankRLS(RankerMixin, _KronBase):
    """Conditional RankRLS: Kronecker-kernel RankRLS ranking end nodes per start node.

    Minimises ``(y − f)ᵀ L (y − f) + α ‖f‖²`` with ``L = diag(C^{l_v})`` centring the edges of
    each conditioning (start) node (paper 004 eqs. 6, 31-33, Cor. 4.8, §4.4). Closed form for a
    complete graph with the Kronecker kernel (O(m³ + m'³)); otherwise conjugate gradients on
    the block-centred system (module docstring). Parameters and attributes as
    :class:`KronRLS`; ``score`` is the concordance index with the start nodes as queries
    (:meth:`score`).
    """

    _ranking = True

    def score(self, X, y, qids=None, *, edges=None, X_end=None):
        """Concordance index of the edge predictions, end nodes ranked per start node.

        ``y`` has shape (t, t') for all pairs of ``X`` × ``X_end`` or (n,) for ``edges``
        (arguments as :meth:`predict`). By default the queries are the start (conditioning)
        nodes, as in the loss; ``qids`` (one per edge, row-major for the (t, t') form)
        overrides them. Ties as in :func:`learners.base.concordance_score`.
        """
        y, pred, starts = self._edge_scores(X, y, edges, X_end)
        return concordance_score(y, pred, starts if qids is None else qids)
