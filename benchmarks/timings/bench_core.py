"""Core benchmark: RLS training and exact fast cross-validation against retraining.

Measures, in ONE run on the same machine, for m = 1000, 2000, 4000 (Gaussian kernel,
gamma = 1e-3, 50 standardized random features, fixed seed, y a noisy nonlinear function):

1. one training: ``learners.RLS`` vs ``sklearn.kernel_ridge.KernelRidge``;
2. leave-one-out over the 31 regularization values 2^-15..2^15: our closed form vs naive
   retraining (our own fit on m-1 rows) and vs KernelRidge refits, both *extrapolated*
   from a few timed retrainings (31 m fits are out of reach); plus ``scipy.linalg.eigh``
   alone on the same kernel matrix, the lower bound for an eigendecomposition-based path;
3. 10-fold CV over the same grid: our hold-out formula vs KernelRidge refits (measured,
   or extrapolated from a sample of the 310 fits when ``--max-refits`` is exceeded);
4. leave-pair-out over all positive-negative pairs of a binary label (m = 2000: 10^6
   pairs) for one regularization value: ours vs naive retraining extrapolated from a
   sample of explicit retrainings.

Every shortcut is also checked against a few explicit retrainings (the largest absolute
difference is printed). Reference timings of the reference implementation and of
KernelRidge, measured on another machine with other software, are printed beside ours for
orientation; the targets are ratios measured here when possible.

Usage::

    python -m benchmarks.timings.bench_core [--sizes 1000 2000 4000] [--quick] [--output FILE]
"""

import os
import platform
import sys
import time

import numpy as np
import scipy.linalg as sla
from sklearn.kernel_ridge import KernelRidge

from benchmarks import harness
from kernelrank.cli import add_threads, thread_limit
from kernelrank.report import markdown_table
from learners.splits import folds_to_sets, group_folds
from learners.kernels import kernel_matrix

GAMMA = 1e-3
N_FEATURES = 50
GRID = 2.0 ** np.arange(-15, 16)  # the 31 regularization values
LPO_ALPHA = 1.0
# Reference timings of another machine and other software (reference implementation /
# KernelRidge), printed beside ours for orientation.
REFERENCE = {
    "fit_4000_reference_s": 14.0,
    "fit_4000_kernelridge_s": 1.5,
    "loo_31_4000_s": 26.0,
    "cv10_31_4000_s": 44.0,
    "lpo_1e6_2000_s": 26.0,
}


# --------------------------------------------------------------------------- data


def make_data(m, seed):
    """Standardized Gaussian features, a noisy nonlinear target and a balanced binary label."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, N_FEATURES))
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = (np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.3 * X[:, 3] ** 2
         + 0.2 * rng.normal(size=m))
    y_bin = np.where(y > np.median(y), 1.0, -1.0)
    return X, y, y_bin


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}
_clock = CLOCKS["wall"]


def timed(fn, repeats=1):
    """(best time over ``repeats`` calls on the selected clock, result of the last call).

    The ``wall`` clock is what a user waits; the ``cpu`` clock (process CPU time, all
    threads summed) is far less sensitive to other jobs on a shared machine and, with
    ``--threads 1``, approximates the single-core time of an idle machine.
    """
    return harness.best_time(fn, repeats, _clock)


# --------------------------------------------------------------------------- our learner


def _rls(alpha=1.0):
    from learners import RLS

    return RLS(alpha=alpha, kernel="gaussian", gamma=GAMMA)


def _as_lam_rows(P, n_lams, n):
    """Predictions as an (n_lams, n) array whatever trailing singleton axes they carry."""
    return np.asarray(P, dtype=float).reshape(n_lams, n)


def ours_fit(X, y, alpha=1.0):
    return _rls(alpha).fit(X, y)


def ours_loo(X, y):
    model = _rls().fit(X, y)
    return _as_lam_rows(model.leave_one_out(alphas=GRID), GRID.size, X.shape[0])


def ours_holdout_sets(X, y, folds):
    model = _rls().fit(X, y)
    preds = model.holdout_sets(folds, alphas=GRID)
    return [_as_lam_rows(p, GRID.size, len(f)) for p, f in zip(preds, folds)]


def ours_lpo(X, y, pairs):
    model = _rls(LPO_ALPHA).fit(X, y)
    out = np.asarray(model.leave_pair_out(pairs, alphas=[LPO_ALPHA]), dtype=float)
    return out.reshape(pairs.shape[0], 2)


def retrain_predict(X, y, train, test, alpha):
    """Explicit retraining with our learner on ``train``; predictions on ``test``."""
    return np.ravel(_rls(alpha).fit(X[train], y[train]).predict(X[test]))


def kr_predict(X, y, train, test, alpha):
    kr = KernelRidge(alpha=alpha, kernel="rbf", gamma=GAMMA).fit(X[train], y[train])
    return kr.predict(X[test])


# --------------------------------------------------------------------------- benchmarks


def bench_fit(X, y, repeats):
    t_ours, _ = timed(lambda: ours_fit(X, y), repeats)
    t_kr, _ = timed(lambda: KernelRidge(alpha=1.0, kernel="rbf", gamma=GAMMA).fit(X, y),
                    repeats)
    return {"ours_s": t_ours, "kernelridge_s": t_kr}


def bench_loo(X, y, n_retrain, rng):
    m = X.shape[0]
    t_ours, loo = timed(lambda: ours_loo(X, y))
    t_eigh, _ = timed(lambda K=kernel_matrix(X, X, "gaussian", gamma=GAMMA):
                      sla.eigh(K, check_finite=False))
    # explicit retrainings at a few (example, lambda) points, timed and checked
    idx = rng.choice(m, size=n_retrain, replace=False)
    lam_idx = rng.choice(GRID.size, size=n_retrain)
    t_naive = t_kr = 0.0
    max_diff = 0.0
    for i, k in zip(idx, lam_idx):
        train = np.delete(np.arange(m), i)
        t, p = timed(lambda: retrain_predict(X, y, train, [i], GRID[k]))
        t_naive += t
        t2, _ = timed(lambda: kr_predict(X, y, train, [i], GRID[k]))
        t_kr += t2
        max_diff = max(max_diff, abs(p[0] - loo[k, i]))
    n_fits = GRID.size * m
    return {"ours_s": t_ours, "eigh_s": t_eigh,
            "naive_s_extrapolated": t_naive / n_retrain * n_fits,
            "kernelridge_s_extrapolated": t_kr / n_retrain * n_fits,
            "retrainings_timed": n_retrain, "fits_needed": n_fits,
            "max_abs_diff_vs_retraining": max_diff}


def bench_cv10(X, y, max_refits, rng):
    m = X.shape[0]
    folds = folds_to_sets(group_folds(np.arange(m), 10, seed=0))
    t_ours, preds = timed(lambda: ours_holdout_sets(X, y, folds))
    jobs = [(f, k) for f in range(10) for k in range(GRID.size)]
    n_jobs = len(jobs)
    sample = jobs if max_refits >= n_jobs else [
        jobs[j] for j in rng.choice(n_jobs, size=max_refits, replace=False)]
    t_kr, max_diff = 0.0, 0.0
    for f, k in sample:
        test = folds[f]
        train = np.setdiff1d(np.arange(m), test)
        t, p = timed(lambda: kr_predict(X, y, train, test, GRID[k]))
        t_kr += t
        max_diff = max(max_diff, float(np.max(np.abs(p - preds[f][k]))))
    extrapolated = len(sample) < n_jobs
    return {"ours_s": t_ours,
            "kernelridge_s": t_kr / len(sample) * n_jobs,
            "kernelridge_extrapolated": extrapolated,
            "refits_timed": len(sample), "fits_needed": n_jobs,
            "max_abs_diff_vs_kernelridge": max_diff}


def bench_lpo(X, y_bin, n_retrain, rng):
    m = X.shape[0]
    pos, neg = np.flatnonzero(y_bin > 0), np.flatnonzero(y_bin < 0)
    pairs = np.column_stack([np.repeat(pos, neg.size), np.tile(neg, pos.size)])
    t_ours, lpo = timed(lambda: ours_lpo(X, y_bin, pairs))
    sample = rng.choice(pairs.shape[0], size=n_retrain, replace=False)
    t_naive, max_diff = 0.0, 0.0
    for s in sample:
        pair = pairs[s]
        train = np.setdiff1d(np.arange(m), pair)
        t, p = timed(lambda: retrain_predict(X, y_bin, train, pair, LPO_ALPHA))
        t_naive += t
        max_diff = max(max_diff, float(np.max(np.abs(p - lpo[s]))))
    auc_lpo = float(np.mean((lpo[:, 0] > lpo[:, 1]) + 0.5 * (lpo[:, 0] == lpo[:, 1])))
    return {"ours_s": t_ours, "n_pairs": int(pairs.shape[0]),
            "naive_s_extrapolated": t_naive / n_retrain * pairs.shape[0],
            "retrainings_timed": n_retrain, "max_abs_diff_vs_retraining": max_diff,
            "lpo_auc": auc_lpo}


# --------------------------------------------------------------------------- report


def _fmt(t):
    if t >= 1e5:
        return f"{t:.3g}"
    return f"{t:.3f}" if t < 10 else f"{t:.1f}"


def table(results):
    rows = []
    for m, r in results["sizes"].items():
        f, lo, cv, lp = r["fit"], r["loo"], r["cv10"], r.get("lpo")
        rows.append((m, "one training", f["ours_s"], "KernelRidge", f["kernelridge_s"],
                     "measured", "14 / 1.5 (m=4000)" if m == 4000 else ""))
        rows.append((m, "LOO, 31 lambdas", lo["ours_s"], "naive retraining",
                     lo["naive_s_extrapolated"],
                     f"extrapolated ({lo['retrainings_timed']} of {lo['fits_needed']} fits)",
                     "26 (m=4000)" if m == 4000 else ""))
        rows.append((m, "", lo["ours_s"], "KernelRidge refits",
                     lo["kernelridge_s_extrapolated"],
                     f"extrapolated ({lo['retrainings_timed']} of {lo['fits_needed']} fits)",
                     ""))
        rows.append((m, "", lo["ours_s"], "scipy eigh(K) alone", lo["eigh_s"], "measured", ""))
        how = (f"extrapolated ({cv['refits_timed']} of {cv['fits_needed']} fits)"
               if cv["kernelridge_extrapolated"] else "measured")
        rows.append((m, "10-fold CV, 31 lambdas", cv["ours_s"], "KernelRidge refits",
                     cv["kernelridge_s"], how, "44 (m=4000)" if m == 4000 else ""))
        if lp is not None:
            rows.append((m, f"LPO, {lp['n_pairs']:.2g} pairs", lp["ours_s"],
                         "naive retraining", lp["naive_s_extrapolated"],
                         f"extrapolated ({lp['retrainings_timed']} fits)",
                         "26 (m=2000)" if m == 2000 else ""))
    head = ["m", "task", "ours [s]", "compared with", "their [s]", "how", "x faster",
            "issue ref. [s]"]
    cells = [dict(zip(head, (str(m), task, _fmt(ours), what, _fmt(theirs), how,
                             f"{theirs / ours:.3g}", ref)))
             for m, task, ours, what, theirs, how, ref in rows]
    return markdown_table(cells, head).rstrip("\n")


def targets(results):
    out = []
    sizes = results["sizes"]
    if 4000 in sizes:
        r = sizes[4000]
        out.append(("single fit <= KernelRidge (m=4000, same run)",
                    r["fit"]["ours_s"], r["fit"]["kernelridge_s"],
                    r["fit"]["ours_s"] <= r["fit"]["kernelridge_s"]))
        out.append(("LOO 31 lambdas <= 0.7 x 26 s (m=4000)", r["loo"]["ours_s"], 0.7 * 26,
                    r["loo"]["ours_s"] <= 0.7 * 26))
        out.append(("10-fold over grid >= 2x faster than 44 s (m=4000)", r["cv10"]["ours_s"],
                    44 / 2, r["cv10"]["ours_s"] <= 22))
    if 2000 in sizes and sizes[2000].get("lpo"):
        t = sizes[2000]["lpo"]["ours_s"]
        out.append(("LPO 1e6 pairs >= 5x faster than 26 s (m=2000)", t, 26 / 5, t <= 26 / 5))
    return out


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 2000, 4000])
    parser.add_argument("--quick", action="store_true",
                        help="sizes 300 and 600, fewer retrainings (smoke test)")
    harness.add_seed(parser)
    parser.add_argument("--retrain", type=int, default=5,
                        help="explicit retrainings timed for each extrapolation")
    parser.add_argument("--max-refits", type=int, default=31,
                        help="KernelRidge refits timed for 10-fold CV (310 needed)")
    parser.add_argument("--lpo-max-m", type=int, default=4000,
                        help="skip leave-pair-out above this m")
    add_threads(parser)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall time (default) or process CPU time (robust to load; "
                             "use with --threads 1)")
    harness.add_output(parser)
    args = harness.parse_args(parser, argv)
    global _clock
    _clock = CLOCKS[args.clock]
    with thread_limit(args.threads):
        return _run(args)


def _run(args):
    from threadpoolctl import threadpool_info

    sizes = [300, 600] if args.quick else args.sizes
    n_retrain = 2 if args.quick else args.retrain
    max_refits = 10 if args.quick else args.max_refits

    load = harness.load_average()
    results = {"machine": {"platform": platform.platform(), "cpus": os.cpu_count(),
                           "loadavg_start": load, "python": sys.version.split()[0],
                           "numpy": np.__version__,
                           "blas": [{k: i.get(k) for k in ("internal_api", "num_threads",
                                                          "version")}
                                    for i in threadpool_info()]},
               "clock": args.clock, "blas_threads": args.threads, "gamma": GAMMA,
               "n_features": N_FEATURES, "seed": args.seed,
               "reference_from_issue": REFERENCE, "sizes": {}}
    print(f"load average at start: {harness.format_load(load)} "
          f"({os.cpu_count()} CPUs); clock: {args.clock}; BLAS threads: "
          f"{args.threads or 'library default'}", flush=True)
    rng = np.random.default_rng(args.seed + 1)
    Xw, yw, _ = make_data(200, args.seed)  # warm-up: imports, BLAS initialisation
    ours_fit(Xw, yw).predict(Xw[:5])
    KernelRidge(kernel="rbf", gamma=GAMMA).fit(Xw, yw).predict(Xw[:5])
    for m in sizes:
        X, y, y_bin = make_data(m, args.seed)
        r = {}
        harness.log.info("m=%d: one training", m)
        r["fit"] = bench_fit(X, y, repeats=3)   # best of 3: the first call pays warm-up
        harness.log.info("m=%d: leave-one-out over %d lambdas", m, GRID.size)
        r["loo"] = bench_loo(X, y, n_retrain, rng)
        harness.log.info("m=%d: 10-fold CV over %d lambdas", m, GRID.size)
        r["cv10"] = bench_cv10(X, y, max_refits, rng)
        if m <= args.lpo_max_m:
            harness.log.info("m=%d: leave-pair-out", m)
            r["lpo"] = bench_lpo(X, y_bin, n_retrain, rng)
        results["sizes"][m] = r
    results["machine"]["loadavg_end"] = harness.load_average()
    print()
    print(table(results))
    print()
    for name, ours, bound, ok in targets(results):
        print(f"target {name}: ours {ours:.3f} s vs bound {bound:.3f} s -> "
              f"{'met' if ok else 'NOT met'}")
    print("(x faster = their / ours; in the eigh row it is eigh time / LOO time)")
    print("accuracy of the shortcuts (max |difference| vs explicit retraining):")
    for m, r in results["sizes"].items():
        parts = [f"LOO {r['loo']['max_abs_diff_vs_retraining']:.1e}",
                 f"10-fold {r['cv10']['max_abs_diff_vs_kernelridge']:.1e} (vs KernelRidge)"]
        if "lpo" in r:
            parts.append(f"LPO {r['lpo']['max_abs_diff_vs_retraining']:.1e}")
        print(f"  m={m}: " + ", ".join(parts))
    print(f"load average at end: {harness.format_load(results['machine']['loadavg_end'])}")
    results["targets"] = [{"target": n, "ours_s": o, "bound_s": b, "met": bool(ok)}
                          for n, o, b, ok in targets(results)]
    if harness.save_json(args.output, results):
        print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
