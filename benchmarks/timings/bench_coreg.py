"""Sparse co-regularised RankRLS: training time linear in the number of unlabelled examples.

003 §2.3.3 / Paper VI state O(M³r³ + M²r²n) for M views, r basis vectors per view and n
unlabelled examples. This script times :class:`learners.CoRankRLS` (M = 2 Gaussian views,
r = ``--n-basis``, 200 labelled examples in 20 queries) for growing n in one run and prints
seconds per 1000 unlabelled examples (flat ⇒ linear), plus the exact variant (every example a
basis vector, O(M³(m + n)³)) for the small sizes. Timings use one BLAS thread.

Usage::

    python -m benchmarks.timings.bench_coreg [--sizes 2000 4000 8000 16000 32000] [--n-basis 200]
"""

import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks import harness
from learners.coreg import CoRankRLS


def data(n, rng, d=10):
    Z = rng.normal(size=(n, d))
    return [Z[:, :5] + 0.1 * rng.normal(size=(n, 5)), Z[:, 5:]], Z.sum(1)


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[2000, 4000, 8000, 16000, 32000])
    parser.add_argument("--n-basis", type=int, default=200)
    parser.add_argument("--exact-max", type=int, default=2000)
    harness.add_seed(parser)
    harness.add_output(parser)
    args = harness.parse_args(parser, argv)
    rng = np.random.default_rng(args.seed)
    Xl, yl = data(200, rng)
    ql = np.repeat(np.arange(20), 10)
    specs = [{"kernel": "gaussian", "gamma": 0.2}] * 2
    rows = []
    with threadpool_limits(1):
        for n in args.sizes:
            Xu, _ = data(n, rng)
            qu = np.repeat(np.arange(n // 50 + 1), 50)[:n]
            model = CoRankRLS(alpha=1.0, mu=1.0, views=specs, n_basis=args.n_basis,
                              random_state=0)
            start = time.perf_counter()
            model.fit(Xl, yl, ql, Xu, qids_unlabelled=qu)
            t = time.perf_counter() - start
            row = {"n_unlabelled": n, "sparse_s": t, "sparse_s_per_1000": 1000 * t / n}
            if n <= args.exact_max:
                start = time.perf_counter()
                CoRankRLS(alpha=1.0, mu=1.0, views=specs).fit(Xl, yl, ql, Xu, qids_unlabelled=qu)
                row["exact_s"] = time.perf_counter() - start
            rows.append(row)
            extra = f", exact {row['exact_s']:.2f} s" if "exact_s" in row else ""
            print(f"n = {n:6d} unlabelled: sparse (r = {args.n_basis}) {t:.2f} s "
                  f"({row['sparse_s_per_1000']:.3f} s per 1000){extra}", flush=True)
    harness.save_json(args.output, {"args": vars(args), "rows": rows})
    return 0


if __name__ == "__main__":
    sys.exit(main())
