"""Conjugate-gradient RankRLS at scale: millions of implied pairs, none materialized.

Thesis §4.1.2: linear RankRLS from scored data with queries costs O(t m n̄) (the query
Laplacian L = D - P P^T applied implicitly), and from pairwise preferences
O(t m n̄ + t l) (sparse incidence matrix). This script builds a random sparse problem
(default m = 100,000 documents, n = 50,000 features, n̄ = 20 non-zeros per row, queries of
200 documents → about 10^7 within-query pairs), trains :class:`learners.cg.CGRankRLS`
both ways and prints:

* time, CG iterations and the relative residual of the normal equations
  ``||(X^T L X + λI) w - X^T L y|| / ||X^T L y||`` recomputed independently at the end;
* the number of implied pairs and what materializing their difference vectors would cost
  (2 n̄ non-zeros per pair in CSR: 12 bytes each) against the memory of X itself;
* peak resident memory (``resource.getrusage``) after building the data and after each
  fit: the growth is O(nnz(X) + m + n + l), not O(pairs).

Timings are from ONE run on this (shared) machine; nothing is asserted.

Usage::

    python -m benchmarks.timings.bench_cg [--m 100000] [--n 50000] [--nnz-per-row 20]
                                           [--query-size 200] [--preferences 5000000]
"""

import time

import numpy as np
import scipy.sparse as sp

from benchmarks import harness
from learners.cg import CGRankRLS, query_laplacian
from learners.pairs import incidence_matrix


def _sparse_rows(m, n, per_row, rng):
    indptr = np.arange(0, m * per_row + 1, per_row, dtype=np.int64)
    indices = rng.integers(0, n, size=m * per_row)
    data = rng.random(m * per_row)
    X = sp.csr_matrix((data, indices, indptr), shape=(m, n))
    X.sum_duplicates()
    return X


def _residual(X, middle, alpha, w, rhs):
    lhs = X.T @ middle(X @ w) + alpha * w
    return np.linalg.norm(lhs - rhs) / np.linalg.norm(rhs)


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--m", type=int, default=100_000)
    parser.add_argument("--n", type=int, default=50_000)
    parser.add_argument("--nnz-per-row", type=int, default=20)
    parser.add_argument("--query-size", type=int, default=200)
    parser.add_argument("--preferences", type=int, default=5_000_000,
                        help="number of random within-query preference pairs (0: skip)")
    parser.add_argument("--alpha", type=float, default=1.0)
    parser.add_argument("--tol", type=float, default=1e-6)
    parser.add_argument("--max-iter", type=int, default=500)
    harness.add_seed(parser)
    args = harness.parse_args(parser, argv)
    rng = np.random.default_rng(args.seed)
    harness.print_load("start")
    rss0 = harness.peak_rss()
    X = _sparse_rows(args.m, args.n, args.nnz_per_row, rng)
    w_true = rng.normal(size=args.n)
    y = np.digitize(X @ w_true + rng.normal(scale=1.0, size=args.m), [-1.0, 1.0]).astype(float)
    qids = np.arange(args.m) // args.query_size
    sizes = np.bincount(qids)
    n_pairs = int(np.sum(sizes * (sizes - 1) // 2))
    x_mb = (X.data.nbytes + X.indices.nbytes + X.indptr.nbytes) / 2**20
    pair_gb = n_pairs * 2 * args.nnz_per_row * 12 / 2**30
    print(f"X: {args.m} x {args.n}, nnz {X.nnz} ({x_mb:.0f} MiB in CSR); "
          f"{len(sizes)} queries of {args.query_size}; implied within-query pairs: {n_pairs:,}")
    print(f"materializing the pair difference vectors would take ~{pair_gb:.1f} GiB")
    rss_data = harness.peak_rss()
    print(f"peak RSS: {rss0:.0f} MiB at start, {rss_data:.0f} MiB with the data")

    model = CGRankRLS(alpha=args.alpha, tol=args.tol, max_iter=args.max_iter)
    start = time.perf_counter()
    model.fit(X, y, qids)
    elapsed = time.perf_counter() - start
    middle = query_laplacian(qids, y)
    rhs = X.T @ middle(y)
    res = _residual(X, middle, args.alpha, model.coef_, rhs)
    print(f"scored/queries: {elapsed:.2f} s, {model.n_iter_} CG iterations "
          f"({elapsed / max(model.n_iter_, 1) * 1e3:.1f} ms each), converged={model.converged_}, "
          f"relative residual {res:.1e}, pairs in the loss {model.n_pairs_:,}; "
          f"peak RSS {harness.peak_rss():.0f} MiB")

    if args.preferences:
        l = args.preferences
        q = rng.integers(0, len(sizes), size=l)
        a = q * args.query_size + rng.integers(0, args.query_size, size=l)
        b = q * args.query_size + rng.integers(0, args.query_size, size=l)
        keep = (a != b) & (a < args.m) & (b < args.m) & (y[a] != y[b])
        a, b = a[keep], b[keep]
        upper = y[a] > y[b]
        pairs = np.column_stack([np.where(upper, a, b), np.where(upper, b, a)])
        del q, a, b, keep, upper
        print(f"peak RSS after generating {len(pairs):,} pairs: {harness.peak_rss():.0f} MiB "
              f"(the pair index array alone: {pairs.nbytes / 2**20:.0f} MiB)")
        pref = CGRankRLS(alpha=args.alpha, tol=args.tol, max_iter=args.max_iter)
        start = time.perf_counter()
        pref.fit(X, pairs=pairs)
        elapsed = time.perf_counter() - start
        Mt = incidence_matrix(pairs, args.m)
        middle = lambda u: Mt.T @ (Mt @ u)  # noqa: E731
        rhs = X.T @ (Mt.T @ np.ones(len(pairs)))
        res = _residual(X, middle, args.alpha, pref.coef_, rhs)
        print(f"preferences: l = {len(pairs):,} pairs, {elapsed:.2f} s, {pref.n_iter_} CG "
              f"iterations, converged={pref.converged_}, relative residual {res:.1e}; "
              f"peak RSS {harness.peak_rss():.0f} MiB")
    harness.print_load("end")


if __name__ == "__main__":
    main()
