"""Centring within queries: ``L^(1/2)`` of query-structured RankRLS, and the query-centred basis.

Query-structured RankRLS minimizes the pairwise squared loss inside each query, i.e. the
quadratic form of ``L = blockdiag(n_q I - 1 1^T)`` (Paper I eq. 25). Since ``L_q^(1/2) =
sqrt(n_q) (I - 1 1^T / n_q)``, the loss sees the rows centred within their query and scaled
by ``sqrt(n_q)``, and the model's weight vector lies in the span of the centred rows. This
module holds that centring, once, for every place the query-structured reduced-set learners
(:class:`learners.reduced_set.ReducedSetQueryRankRLS`,
:class:`learners.nystroem_rankrls.NystroemQueryRankRLS`) need it:

* :func:`centre_scale` — the ``L^(1/2)`` rows of a dense Nyström map (one output array);
* :func:`query_centered_rows` — sparse feature rows minus their query's mean (the centred
  basis vectors ``z_j = x_j - mean_q(j) x``), O(nnz of the rows of the touched queries);
* :func:`center_columns` — a dense kernel block centred within queries, O(m t) (randomly
  pivoted Cholesky on the centred kernel);
* :func:`query_basis_map` — the fitted :class:`~learners.nystroem.NystroemMap` of a
  query learner for its ``basis`` (:data:`QUERY_BASIS`) and ``basis_selection``
  (:data:`BASIS_SELECTION`).
"""

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners._solvers import dense
from learners.kernels import kernel_matrix, resolve_kernel
from learners.nystroem import NystroemMap, jittered_cholesky, choose_basis, rp_cholesky_pivots

__all__ = ["QUERY_BASIS", "BASIS_SELECTION", "query_centered_rows", "centre_scale",
           "center_columns", "query_basis_map"]


#: basis options of the query-structured learners (``basis``, ``basis_selection``)
QUERY_BASIS = ("rows", "query_centered")
BASIS_SELECTION = ("uniform", "rpcholesky")


def _query_means(X, codes, queries, chunk=2000):
    """Sparse rows of the feature means of ``queries`` (codes), in that order. Only the
    rows of those queries are read, ``chunk`` queries at a time. O(nnz of their rows)."""
    out = []
    for i in range(0, queries.size, chunk):
        qs = queries[i:i + chunk]
        rows = np.flatnonzero(np.isin(codes, qs))
        pos = np.searchsorted(qs, codes[rows])
        n = np.bincount(pos, minlength=qs.size)
        avg = sp.csr_matrix((1.0 / n[pos], (pos, np.arange(rows.size))),
                            shape=(qs.size, rows.size))
        out.append(sp.csr_matrix(avg @ X[rows]))
    return sp.vstack(out, format="csr")


def query_centered_rows(X, codes, rows):
    """``x_j - mean of x over the query of j`` for the rows ``rows`` (sparse, (``|rows|``, d)).

    In the span of the training rows and orthogonal to every within-query constant, i.e.
    exactly the directions query-structured RankRLS can use: its weight vector lies in the
    span of ``L^(1/2) X`` (the centred rows; Paper I eq. 25 with ``L = blockdiag(n_q I -
    1 1^T)``), whatever the kernel. O(nnz of the rows of the touched queries).
    """
    X = sp.csr_matrix(X)
    qs, pos = np.unique(codes[rows], return_inverse=True)
    return sp.csr_matrix(X[rows] - _query_means(X, codes, qs)[pos])


def centre_scale(P, means, codes, scale):
    """``scale * (P - means[codes])`` with one output array and no other temporary of
    P's size (the gathered means are overwritten in place): the same values, elementwise,
    as the expression, at a third of its peak memory (an m x r Nyström map: three m x r
    temporaries before)."""
    out = means[codes]
    np.subtract(P, out, out=out)
    np.multiply(scale, out, out=out)
    return out


def center_columns(G, codes):
    """Subtract from every row of the dense ``G`` the mean of its query's rows. O(m t)."""
    n = np.bincount(codes)
    mu = np.zeros((n.size, G.shape[1]))
    np.add.at(mu, codes, G)
    return G - (mu / n[:, None])[codes]


def query_basis_map(est, X, codes, n_basis):
    """The fitted :class:`NystroemMap` of a query learner (``basis``, ``basis_selection``).

    ``basis="rows"``: basis vectors are training rows (the map as usual).
    ``basis="query_centered"`` (linear kernel, explicit feature rows only): the basis vectors
    are the chosen rows centred within their query, ``z_j = x_j - mean_q(j)``
    (:func:`query_centered_rows`); ``basis_X_`` holds them and ``cholesky_`` factors
    ``Z Z^T``. ``basis_selection="rpcholesky"``: the rows are chosen by block randomly pivoted
    Cholesky (:func:`learners.nystroem.rp_cholesky_pivots`) on the kernel of the candidate
    vectors — for the centred basis the within-query centred kernel ``L^(1/2) K L^(1/2)``
    (up to the per-query scale), the part of ``K`` the ranking loss sees. Cost of the
    selection: ``n_basis`` kernel columns against all m rows, O(m n_basis^2).
    """
    kw = dict(kernel=est.kernel, gamma=est.gamma, degree=est.degree, coef0=est.coef0,
              kernel_params=est.kernel_params, random_state=est.random_state,
              jitter=est.jitter)
    basis, how = est.basis, est.basis_selection
    if basis == "rows" and how == "uniform":
        return NystroemMap(n_basis=n_basis, basis_indices=est.basis_indices, **kw).fit(X)
    if basis == "query_centered" and est.kernel != "linear":
        raise InvalidParameterError("basis='query_centered' needs kernel='linear' (explicit "
                                    f"feature rows), got kernel={est.kernel!r}")
    if how == "rpcholesky" and est.basis_indices is not None:
        raise InvalidParameterError("basis_indices fixes the basis; it cannot be combined "
                                    "with basis_selection='rpcholesky'")
    m = X.shape[0]
    if how == "rpcholesky":
        name, params = resolve_kernel(est.kernel, gamma=est.gamma, degree=est.degree,
                                      coef0=est.coef0, kernel_params=est.kernel_params)
        if basis == "query_centered":
            Xs = sp.csr_matrix(X)                      # shares X's arrays
            qs = np.unique(codes)
            diag = np.empty(m)
            # 200 queries at a time: centred rows are denser than the rows (the union of
            # their query's features)
            for i in range(0, qs.size, 200):
                rows = np.flatnonzero(np.isin(codes, qs[i:i + 200]))
                Z = query_centered_rows(Xs, codes, rows)
                diag[rows] = np.asarray(Z.multiply(Z).sum(axis=1)).ravel()
            del Z

            def columns(S):
                return center_columns(
                    kernel_matrix(Xs, query_centered_rows(Xs, codes, S), "linear"), codes)
        elif name == "precomputed":
            diag = np.diag(dense(X)).copy()

            def columns(S):
                return dense(X[:, S])
        else:
            diag = np.concatenate([np.diag(kernel_matrix(X[i:i + 256], X[i:i + 256], name,
                                                         **params))
                                   for i in range(0, m, 256)])

            def columns(S):
                return kernel_matrix(X, X[S], name, **params)
        R = rp_cholesky_pivots(columns, diag, n_basis, random_state=est.random_state)
    else:
        R = choose_basis(m, n_basis, est.basis_indices, est.random_state)
    nm = NystroemMap(n_basis=R.size, basis_indices=R, **kw).fit(X)
    if basis == "query_centered":
        Z = query_centered_rows(X, codes, R)
        K_ZZ = dense(Z @ Z.T)
        nm.basis_X_ = Z
        nm.cholesky_, nm.jitter_ = jittered_cholesky(0.5 * (K_ZZ + K_ZZ.T), est.jitter)
    return nm
