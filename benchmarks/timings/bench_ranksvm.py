"""RankSVM loss + subgradient: Fenwick-tree counting (O(m log m)) vs explicit pairs.

Thesis §4.2 / Paper II: the pairwise hinge loss of linear RankSVM and its subgradient
coefficients ``c_i - d_i`` (eqs. 4.10-4.13) computed by sorting and counting with a
Fenwick tree, against the same quantities by enumerating every pair (blocked NumPy,
O(m^2) — only where feasible). Two settings:

* ``global``: one ranking over all m items with m/10 distinct labels (worst case for the
  O(r m) level-wise method of Joachims 2006, r = number of label levels);
* ``queries``: queries of 100 items with 3 label levels (LETOR-like); explicit pairs stay
  feasible since their number grows only linearly with m.

Also measured once: the same tree loop run interpreted (numba's ``.py_func``) at small m,
to show whether compiling it matters. Prints times, ratios (explicit / tree) and the tree
time divided by m log2 m (roughly constant if the cost is O(m log m)). Where explicit pairs
are out of reach (one global ranking, m > --explicit-max) their time is extrapolated
quadratically from the largest measured m and marked with '~'. Timings are from
ONE run on this (shared) machine; nothing here is asserted.

Usage::

    python -m benchmarks.timings.bench_ranksvm [--sizes 10000 100000 1000000] [--explicit-max 30000]
"""

import numpy as np

from benchmarks import harness
from learners.ranksvm import (QueryStructure, sweep_counts, pairwise_hinge,
                              pairwise_hinge_explicit)


def _problem(m, setting, rng):
    if setting == "global":
        y = rng.integers(0, max(2, m // 10), size=m).astype(float)
        qids = None
    else:
        y = rng.integers(0, 3, size=m).astype(float)
        qids = np.arange(m) // 100
    f = rng.normal(scale=2.0, size=m)
    return f, y, qids


def _interpreted(f, structure):
    """The same counting with the sweep loop run by the Python interpreter."""
    order = np.lexsort((f, structure.query))
    c = np.zeros(structure.m, dtype=np.int64)
    d = np.zeros(structure.m, dtype=np.int64)
    sweep_counts.py_func(f[order], structure.rank[order], structure.starts,
                          structure.n_ranks, c, d)
    return c


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--explicit-max", type=int, default=20_000,
                        help="largest m for explicit pairs in the global setting")
    parser.add_argument("--repeat", type=int, default=3)
    harness.add_seed(parser)
    args = harness.parse_args(parser, argv)
    rng = np.random.default_rng(args.seed)
    harness.print_load("start")
    # compile once (excluded from the timings)
    f0, y0, q0 = _problem(1000, "global", rng)
    pairwise_hinge(f0, QueryStructure(y0, q0))

    s = QueryStructure(y0, q0)
    t_jit, _ = harness.best_time(lambda: pairwise_hinge(f0, s), args.repeat)
    t_py, c_py = harness.best_time(lambda: _interpreted(f0, s), 1)
    print(f"numba check at m=1000 (global): compiled {t_jit * 1e3:.2f} ms, interpreted "
          f"{t_py * 1e3:.1f} ms, ratio {t_py / t_jit:.0f}x")

    header = (f"{'setting':8s} {'m':>9s} {'pairs':>14s} {'tree s':>9s} {'explicit s':>11s} "
              f"{'ratio':>8s} {'tree ns/(m log2 m)':>19s} {'max |Δloss|/loss':>17s}")
    print(header)
    for setting in ("global", "queries"):
        measured = None  # (m, seconds) of the largest explicit run, for extrapolation
        for m in args.sizes:
            f, y, qids = _problem(m, setting, rng)
            t_struct, structure = harness.best_time(lambda: QueryStructure(y, qids), 1)
            t_tree, (loss, coef) = harness.best_time(lambda: pairwise_hinge(f, structure),
                                                     args.repeat)
            feasible = setting == "queries" or m <= args.explicit_max
            if feasible:
                t_exp, (loss_e, coef_e) = harness.best_time(
                    lambda: pairwise_hinge_explicit(f, y, qids), 1)
                if not np.array_equal(coef, coef_e):
                    raise SystemExit(f"coefficient mismatch at m={m} ({setting})")
                diff = abs(loss - loss_e) / loss_e
                exp_text, ratio_text, diff_text = f"{t_exp:11.3f}", f"{t_exp / t_tree:8.1f}", \
                    f"{diff:17.1e}"
                measured = (m, t_exp)
            elif measured is not None:
                # explicit pairs of one global ranking cost O(m^2): extrapolate, marked '~'
                guess = measured[1] * (m / measured[0]) ** 2
                exp_text, ratio_text, diff_text = f"~{guess:10.0f}", f"~{guess / t_tree:7.0f}", \
                    f"{'–':>17s}"
            else:
                exp_text, ratio_text, diff_text = f"{'–':>11s}", f"{'–':>8s}", f"{'–':>17s}"
            norm = t_tree / (m * np.log2(m)) * 1e9
            print(f"{setting:8s} {m:9d} {structure.n_pairs:14d} {t_tree:9.4f} {exp_text} "
                  f"{ratio_text} {norm:19.2f} {diff_text}   (query structure once: "
                  f"{t_struct:.3f} s)")
    harness.print_load("end")


if __name__ == "__main__":
    main()
