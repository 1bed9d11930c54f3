"""Linear learning to rank at web scale: an MSLR-WEB10K-shaped problem, fit + selection.

A synthetic problem with the shape of MSLR-WEB10K (no such file is at
hand): ``--queries`` queries (default 10,000) of 60..180 documents (mean 120; ≈ 1.2 M
documents), 136 dense standardized features, graded labels 0..4 drawn with MSLR-WEB10K's
proportions (about 52 / 32 / 13 / 2 / 1 %) from a noisy score that is linear in 40 features
plus a non-linear part (a product and a threshold of other features), so that trees have
something to gain; the features are correlated and of unequal scales (see
:func:`make_problem`). Queries are split 60 / 20 / 20 % into train / validation / test by
contiguous row ranges (views, no copy); features are standardized in place with the
training part's mean and standard deviation. One learner per run, so that the process's peak
RSS is that learner's (data included):

* ``rankrls`` — :class:`learners.QueryRankRLS` primal, every λ of the grid from one
  eigendecomposition of X^T L X (O(m n^2) to form it);
* ``cgrankrls`` — :class:`learners.cg.CGRankRLS` (all pairs within queries), conjugate
  gradients on the implicit query Laplacian, one solve per λ, O(t m n) per solve;
* ``ranksvm`` — :class:`learners.ranksvm.RankSVM`, pairwise squared hinge (L2-loss
  RankSVM) by preconditioned trust-region Newton, loss / gradient / Hessian-vector
  products by sorting and counting (O(m log m) per Newton step, O(m log R) per product),
  the C grid as one path from the smallest C up, each C warm-started from the previous;
* ``lightgbm`` — LightGBM's ``LGBMRanker`` (LambdaMART, 31 leaves, learning rate 0.1),
  early stopping on the validation NDCG@10, at most ``--max-trees`` trees.

The linear learners choose λ or C by validation NDCG@10 with the selection engine
(:func:`learners.selection.select` with a ``ValidationSet``) exactly as ``python -m learners
letor`` does; the test NDCG@10 and MAP use the conventions of ``Eval-Score-MSLR.pl``.
Printed: generation time, fit + selection time (wall, and CPU time of the process: on a
shared machine the better estimate of an idle machine's wall time with ``--threads 1``),
test measures, ``ru_maxrss`` (peak RSS of
the process). Run it under ``/usr/bin/time -v`` for the wall time of the whole process.
Timings are from ONE run on this (shared) machine; the load average is printed; nothing
here is asserted.

Usage::

    python -m benchmarks.timings.bench_webscale --learner cgrankrls [--queries 10000] [--threads 2]
"""

import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks import harness
from learners.measures import letor_evaluation, ndcg_at_k
from learners.selection import Channels, Scoring, Search, ValidationSet, select

N_FEATURES = 136
LABEL_SHARES = np.array([0.52, 0.32, 0.13, 0.02, 0.01])   # MSLR-WEB10K, rounded


def make_problem(n_queries, seed=0, n_features=N_FEATURES):
    """``(X, y, qids, sizes)`` of the synthetic MSLR-shaped problem (module docstring).

    The features are correlated and of unequal scales, like MSLR's raw ones (counts, BM25
    scores, PageRank): ``X = Z M`` with Z standard normal and M = U diag(s) V^T, s spaced
    geometrically from 1 to 10^-2 (condition number of X^T X about 10^4), then column j
    scaled by 10^(-1 + 3 j / n). iid features would make X^T L X a multiple of the
    identity and every solver converge at once.
    """
    rng = np.random.default_rng(seed)
    sizes = rng.integers(60, 181, size=n_queries)
    m = int(sizes.sum())
    qids = np.repeat(np.arange(n_queries, dtype=np.int64), sizes)
    U = np.linalg.qr(rng.standard_normal((n_features, n_features)))[0]
    V = np.linalg.qr(rng.standard_normal((n_features, n_features)))[0]
    M = (U * np.geomspace(1.0, 1e-2, n_features)) @ V.T
    M *= np.logspace(-1, 2, n_features)[None, :]
    X = np.empty((m, n_features))
    for start in range(0, m, 100_000):            # no full-size temporaries
        stop = min(m, start + 100_000)
        X[start:stop] = rng.standard_normal((stop - start, n_features)) @ M
    Z = X / X[:100_000].std(axis=0)               # the label model sees unit scales
    w = np.zeros(n_features)
    w[:40] = rng.normal(size=40)
    score = Z @ w
    score += 1.5 * Z[:, 40] * Z[:, 41] + 2.0 * (Z[:, 42] > 1.0)
    del Z
    score += rng.normal(scale=np.std(score), size=m)
    # per-query offset: queries differ in how many relevant documents they have
    score += np.repeat(rng.normal(scale=0.5 * np.std(score), size=n_queries), sizes)
    cuts = np.quantile(score, np.cumsum(LABEL_SHARES)[:-1])
    y = np.digitize(score, cuts).astype(float)
    return X, y, qids, sizes


def split(X, y, qids, sizes):
    """Train / validation / test views (60 / 20 / 20 % of the queries, contiguous rows)."""
    n = len(sizes)
    bounds = np.concatenate(([0], np.cumsum(sizes)))
    a, b = bounds[int(0.6 * n)], bounds[int(0.8 * n)]
    return [(X[i:j], y[i:j], qids[i:j]) for i, j in ((0, a), (a, b), (b, len(y)))]


def ndcg10(y, scores, qids):
    """NDCG@10 as ``Eval-Score-MSLR.pl`` (the NDCG@10 of ``letor_evaluation``, alone)."""
    return ndcg_at_k(y, scores, qids, 10, discount="letor", ties="input_order",
                     no_relevant="zero", short_queries="zero")


def run_linear(name, train, val, grid):
    from learners import QueryRankRLS
    from learners.cg import CGRankRLS
    from learners.ranksvm import RankSVM
    if name == "rankrls":
        est, search = QueryRankRLS(kernel="linear", solver="primal"), Search({"alpha": grid})
    elif name == "cgrankrls":
        est, search = CGRankRLS(tol=CG_TOL), Search(grid={"alpha": list(grid)})
    else:
        # the C grid is one warm-started path (smallest C first) served by predict_path
        est, search = RankSVM(tol=RANKSVM_TOL), Search({"C": np.asarray(grid)})
    (X, y, q), (Xv, yv, qv) = train, val
    sel = select(est, X, y, cv=ValidationSet(Xv, yv, qv), search=search,
                 scoring=Scoring(ndcg10, greater_is_better=True),
                 channels=Channels(fit={"qids": q}))
    return sel, sel.best_params, [float(s) for s in sel.scores]


def run_lightgbm(train, val, max_trees, threads):
    import lightgbm

    from letor.lambdamart import fit_ranker
    (X, y, q), (Xv, yv, qv) = train, val
    sizes = np.diff(np.flatnonzero(np.r_[True, q[1:] != q[:-1], True]))
    vsizes = np.diff(np.flatnonzero(np.r_[True, qv[1:] != qv[:-1], True]))
    params = {"objective": "lambdarank", "n_estimators": max_trees, "learning_rate": 0.1,
              "num_leaves": 31, "verbosity": -1, "random_state": 0, "deterministic": True,
              "n_jobs": threads or 0}
    model = fit_ranker(lightgbm, params, X, y.astype(int), sizes, Xv, yv.astype(int), vsizes)
    return model, {"n_trees": int(model.best_iteration_ or max_trees)}, []


RANKSVM_TOL = 1e-3   # ||grad J|| <= tol ||grad J(0)|| (squared-hinge RankSVM, TRON)
CG_TOL = 1e-3        # relative residual of every CG solve
# rankrls: the whole path is free after one eigendecomposition. cgrankrls pays per value:
# decades around its validation optimum on this problem (flat from 3e3 to 1e5 to within
# 1e-4 NDCG@10, a maximum near 3e3-1e4 with 1e-3 CG residuals; rankrls's exact path peaks
# at 2^16 ≈ 6.6e4).
# ranksvm pays little per value (warm starts): half decades from 1e-8, where validation
# NDCG@10 is still far below its best, to 1e-4, past the point (≈ 1e-5) where the solution
# no longer changes with C (almost no regularization).
GRIDS = {"rankrls": 2.0 ** np.arange(-10, 31, 2), "cgrankrls": 10.0 ** np.arange(3, 6),
         "ranksvm": 10.0 ** np.arange(-8, -3.9, 0.5)}


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--learner", required=True,
                        choices=["rankrls", "cgrankrls", "ranksvm", "lightgbm"])
    parser.add_argument("--queries", type=int, default=10_000)
    parser.add_argument("--threads", type=int, default=2,
                        help="BLAS / LightGBM threads (on a loaded machine 1 is faster: "
                             "OpenBLAS threads spin-wait for a core)")
    parser.add_argument("--max-trees", type=int, default=500)
    parser.add_argument("--grid", type=float, nargs="+",
                        help="λ (or C) values instead of the default grid")
    args = harness.parse_args(parser, argv)
    harness.print_load("start")
    t0 = time.perf_counter()
    X, y, qids, sizes = make_problem(args.queries)
    train, val, test = split(X, y, qids, sizes)
    # z-scores with the training part's statistics, in place (no copy of X): a user's
    # first step with raw MSLR features; trees are unaffected
    mean, std = train[0].mean(axis=0), train[0].std(axis=0)
    for start in range(0, len(y), 100_000):
        X[start:start + 100_000] -= mean
        X[start:start + 100_000] /= std
    print(f"generated {len(y):,} documents x {X.shape[1]} features, {len(sizes):,} queries "
          f"(train {len(train[1]):,}) in {time.perf_counter() - t0:.1f} s; labels "
          f"{np.bincount(y.astype(int)).tolist()}")
    with threadpool_limits(args.threads):
        t0, cpu0 = time.perf_counter(), time.process_time()
        if args.learner == "lightgbm":
            model, chosen, path = run_lightgbm(train, val, args.max_trees, args.threads)
        else:
            grid = GRIDS[args.learner] if args.grid is None else np.array(args.grid)
            model, chosen, path = run_linear(args.learner, train, val, grid)
        seconds, cpu = time.perf_counter() - t0, time.process_time() - cpu0
        scores = model.predict(test[0])
    out = letor_evaluation(test[1], scores, test[2], max_k=10, convention="mslr")
    peak = harness.peak_rss()
    grid = None if args.learner == "lightgbm" else grid
    fitted = getattr(model, "model", None)
    extra = (f"; {fitted.n_iter_} iterations at the chosen value"
             if hasattr(fitted, "n_iter_") else "")
    if hasattr(fitted, "path_"):   # RankSVM: Newton steps / CG products of every C
        info = fitted.path_[float(chosen["C"])]
        extra = (f"; {info['n_iter']} Newton steps, {info['n_cg']} CG products at the chosen "
                 f"C; path {[(f'{c:g}', v['n_iter'], v['n_cg']) for c, v in fitted.path_.items()]}")
    print(f"{args.learner}: fit + selection {seconds:.1f} s wall, {cpu:.1f} s CPU "
          f"({'grid of ' + str(len(grid)) if grid is not None else 'early stopping'}; "
          f"chosen {chosen}{extra}); validation NDCG@10 path {np.round(path, 5).tolist()}")
    print(f"{args.learner}: test NDCG@10 {out['NDCG@10']:.4f}  MAP {out['MAP']:.4f}; "
          f"peak RSS {peak:.0f} MB")
    harness.print_load("end")


if __name__ == "__main__":
    main()
