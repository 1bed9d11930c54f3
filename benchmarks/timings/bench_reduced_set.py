"""Reduced-set RLS at scale, and why held-out basis vectors must be removed (Paper III).

Part 1 — scale (``--m``, ``--r``; default m = 50,000, r = 4,000): Gaussian kernel (gamma
small), 50 standardized random features, a noisy nonlinear target. Times ONE training of
:class:`learners.reduced_set.ReducedSetRLS` (kernel rows, Nyström map, r x r system), then
10-fold cross-validation over the 31 values 2^-15..2^15 with held-out basis vectors removed
(exact: equal to retraining each fold with the remaining basis vectors), and prints the
ratio CV / training, measured in this one run. With ``--check`` one fold is also retrained
explicitly (one more training) and compared.

Part 2 — Paper III Fig. 1: reduced-set RLS regression with basis vectors drawn from every
group, group-level 10-fold CV over lambda = 10^-9..10^9 with and without removal of held-out
basis vectors, against the test error of the model trained on the same data. Real data:
LETOR 3.0 OHSUMED (relevance label as target, queries as groups, parts 1-3 train, parts 4-5
test; 20 basis vectors per query); synthetic data: groups of mutually similar rows like the
parses of one sentence (2 basis vectors per group, as in the paper).

Usage::

    python -m benchmarks.timings.bench_reduced_set [--m 50000 --r 4000] [--skip-scale] [--skip-fig1]
        [--data-dir DIR] [--output-dir results] [--seed 0] [--check]
"""

import os
import sys
import time

import numpy as np

from benchmarks import harness
from kernelrank.datadir import resolve_data_dir
from kernelrank.cli import add_threads, exit_code, thread_limit
from kernelrank.errors import KernelrankError
from learners.selection import best_candidate
from learners.splits import folds_to_sets, group_folds
from learners.reduced_set import ReducedSetRLS
from kernelrank.report import markdown_table, write_report

GRID = 2.0 ** np.arange(-15, 16)           # 31 values
FIG1_GRID = 10.0 ** np.arange(-9, 10)      # Paper III Sect. 4.1


def _load():
    """``load average 0.52 0.61 0.70``, as the report quotes it."""
    return "load average " + harness.format_load(harness.load_average())


def make_data(m, n_features, seed):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((m, n_features))
    y = np.sin(X[:, 0]) + 0.5 * X[:, 1] * X[:, 2] + 0.3 * np.cos(X[:, 3:6]).sum(1)
    y += 0.2 * rng.standard_normal(m)
    return X, y


def bench_scale(args):
    print(f"[scale] m={args.m} r={args.r} features={args.n_features} gamma={args.gamma} "
          f"folds={args.folds} lambdas={GRID.size}; {_load()}", flush=True)
    X, y = make_data(args.m, args.n_features, args.seed)
    folds = folds_to_sets(group_folds(np.arange(args.m), args.folds, args.seed + 1))
    model = ReducedSetRLS(alpha=1.0, kernel="gaussian", gamma=args.gamma, n_basis=args.r,
                          random_state=args.seed)
    t0 = time.perf_counter()
    model.fit(X, y)
    t_fit = time.perf_counter() - t0
    print(f"[scale] one training: {t_fit:.1f} s (jitter {model.nystroem_.jitter_:.2g}); "
          f"{_load()}", flush=True)
    t0 = time.perf_counter()
    preds = model.holdout_sets(folds, alphas=GRID)
    t_cv = time.perf_counter() - t0
    mse = np.array([np.mean(np.concatenate([(P[a] - y[U]) ** 2 for U, P in zip(folds, preds)]))
                    for a in range(GRID.size)])
    best = best_candidate(mse, [{"alpha": a} for a in GRID], False)
    print(f"[scale] 10-fold CV x {GRID.size} lambdas, basis vectors removed: {t_cv:.1f} s; "
          f"ratio CV / training = {t_cv / t_fit:.2f}; best lambda 2^{int(np.log2(GRID[best]))} "
          f"CV MSE {mse[best]:.4f}; {_load()}", flush=True)
    out = {"m": args.m, "r": args.r, "n_features": args.n_features, "gamma": args.gamma,
           "folds": args.folds, "n_lambdas": int(GRID.size), "fit_s": t_fit, "cv_s": t_cv,
           "ratio": t_cv / t_fit, "cv_mse": mse.tolist(), "lambdas": GRID.tolist()}
    if args.check:
        U = folds[0]
        train = np.setdiff1d(np.arange(args.m), U)
        L = np.setdiff1d(model.basis_indices_, U)
        pos = np.searchsorted(train, L)                 # basis indices inside the train part
        t0 = time.perf_counter()
        ref = ReducedSetRLS(alpha=1.0, kernel="gaussian", gamma=args.gamma, basis_indices=pos,
                            jitter=model.nystroem_.jitter_).fit(X[train], y[train])
        t_ref = time.perf_counter() - t0
        diff = np.abs(ref.predict(X[U]) - preds[0][int(np.flatnonzero(GRID == 1.0)[0])]).max()
        print(f"[scale] check: fold 0 retrained from scratch ({L.size} basis vectors) in "
              f"{t_ref:.1f} s; max |difference| of its predictions = {diff:.2e}", flush=True)
        out.update(check_retrain_s=t_ref, check_max_abs_diff=float(diff))
    return out


def _ohsumed(data_dir):
    from corpora.svmlight import load_svmlight
    parts = []
    for k in range(1, 6):
        path = data_dir / "letor" / "OHSUMED" / f"Fold{k}.test.txt.gz"
        if not path.is_file():
            return None
        d = load_svmlight(path, n_features=45, dense=True)
        parts.append((d.X, d.y, np.asarray(d.qids)))
    return parts


def _synthetic_groups(seed, n_groups=300, size=16, n_features=10):
    """Groups of mutually similar rows (like the parses of one sentence)."""
    rng = np.random.default_rng(seed)
    centers = rng.standard_normal((n_groups, n_features))
    g = np.repeat(np.arange(n_groups), size)
    X = centers[g] + 0.3 * rng.standard_normal((g.size, n_features))
    y = np.sin(X[:, 0]) + X[:, 1] ** 2 / 2 + 0.5 * np.sin(3 * centers[g, 2]) \
        + 0.3 * rng.standard_normal(g.size)
    cut = g < int(0.6 * n_groups)
    return [(X[cut], y[cut], g[cut])], [(X[~cut], y[~cut], g[~cut])]


def bench_fig1(args, data):
    """CV estimate with vs without removal of held-out basis vectors, vs test error."""
    rng = np.random.default_rng(args.seed)
    if data == "letor":
        try:
            parts = _ohsumed(resolve_data_dir(args.data_dir))
        except KernelrankError:
            parts = None
        if parts is None:
            print("[fig1] OHSUMED not found (use --data-dir); skipped", flush=True)
            return None, ""
        source = "LETOR 3.0 OHSUMED (train: parts 1-3, test: parts 4-5)"
        train_parts, test_parts = parts[:3], parts[3:]
        gamma, per_group = args.fig1_gamma, args.basis_per_group
    else:
        source = "synthetic groups (300 groups of 16 similar rows; 60% train, 40% test)"
        train_parts, test_parts = _synthetic_groups(args.seed)
        gamma, per_group = 0.5, 2
    X = np.vstack([p[0] for p in train_parts])
    y = np.concatenate([p[1] for p in train_parts])
    q = np.concatenate([p[2] for p in train_parts])
    Xt = np.vstack([p[0] for p in test_parts])
    yt = np.concatenate([p[1] for p in test_parts])
    groups = np.unique(q)
    # basis: `per_group` rows drawn from every group (Paper III: 2 per sentence)
    basis = np.sort(np.concatenate([
        rng.choice(np.flatnonzero(q == g), size=min(per_group, np.sum(q == g)),
                   replace=False) for g in groups]))
    perm = rng.permutation(groups.size)
    folds = [np.flatnonzero(np.isin(q, groups[f])) for f in np.array_split(perm, 10)]
    print(f"[fig1] {source}: m={X.shape[0]} rows, {groups.size} groups, r={basis.size} basis "
          f"vectors ({per_group} per group), gamma={gamma}, 10-fold group-level CV; {_load()}",
          flush=True)
    rows = []
    res = {}
    for remove in (True, False):
        model = ReducedSetRLS(alpha=1.0, kernel="gaussian", gamma=gamma, basis_indices=basis,
                              remove_basis=remove).fit(X, y)
        t0 = time.perf_counter()
        preds = model.holdout_sets(folds, alphas=FIG1_GRID)
        res[remove] = [float(np.mean(np.concatenate([(P[a] - y[U]) ** 2
                                                     for U, P in zip(folds, preds)])))
                       for a in range(FIG1_GRID.size)]
        print(f"[fig1] CV with remove_basis={remove}: {time.perf_counter() - t0:.1f} s", flush=True)
    test = np.mean((model.predict_path(Xt, FIG1_GRID) - yt[None, :]) ** 2, axis=1)
    for a, lam in enumerate(FIG1_GRID):
        rows.append({"lambda": f"1e{int(np.log10(lam))}", "removed": res[True][a],
                     "kept": res[False][a], "test": float(test[a]),
                     "ratio": res[False][a] / res[True][a]})
    table = markdown_table(rows, ["lambda", "removed", "kept", "test", "ratio"],
                           ["lambda", "CV MSE, basis removed", "CV MSE, basis kept (leaky)",
                            "test MSE", "kept / removed"], digits=4)
    print(table, flush=True)
    return {"source": source, "m": int(X.shape[0]), "r": int(basis.size), "gamma": gamma,
            "basis_per_group": per_group, "rows": rows}, table


def main(argv=None):
    p = harness.parser(__doc__)
    p.add_argument("--m", type=int, default=50000)
    p.add_argument("--r", type=int, default=4000)
    p.add_argument("--n-features", type=int, default=50)
    p.add_argument("--gamma", type=float, default=1e-3)
    p.add_argument("--folds", type=int, default=10)
    harness.add_seed(p)
    p.add_argument("--check", action="store_true",
                   help="retrain one fold from scratch and compare (one more training)")
    p.add_argument("--skip-scale", action="store_true")
    p.add_argument("--skip-fig1", action="store_true")
    p.add_argument("--fig1-data", choices=("letor", "synthetic", "both"), default="both")
    p.add_argument("--fig1-gamma", type=float, default=1.0, help="Gaussian gamma on OHSUMED")
    p.add_argument("--basis-per-group", type=int, default=20,
                   help="basis vectors per OHSUMED query (about 14%% of the rows)")
    add_threads(p)      # 1 is fastest on a loaded machine
    harness.add_data_dir(p)
    harness.add_output_dir(p, report="bench_reduced_set")
    args = harness.parse_args(p, argv)
    with thread_limit(args.threads):
        return exit_code(_run, args)


def _run(args):
    results = {"start": _load(), "blas_threads": args.threads, "cpus": os.cpu_count()}
    md = ["# Reduced-set RLS benchmark\n"]
    if not args.skip_scale:
        results["scale"] = s = bench_scale(args)
        md.append(f"Scale: m={s['m']}, r={s['r']}: one training {s['fit_s']:.1f} s, "
                  f"10-fold CV x {s['n_lambdas']} lambdas (basis removed) {s['cv_s']:.1f} s, "
                  f"ratio {s['ratio']:.2f}.\n")
    if not args.skip_fig1:
        kinds = ("letor", "synthetic") if args.fig1_data == "both" else (args.fig1_data,)
        for kind in kinds:
            res, table = bench_fig1(args, kind)
            if res is None:
                continue
            results[f"fig1_{kind}"] = res
            md.append(f"\nPaper III Fig. 1 effect — {res['source']}, m={res['m']}, "
                      f"r={res['r']}, gamma={res['gamma']}:\n\n{table}")
    results["end"] = _load()
    md.append(f"\n{results['start']} (start), {results['end']} (end).\n")
    if args.output_dir:
        for path in write_report(args.output_dir, "bench_reduced_set", results, "".join(md)):
            print(f"wrote {path}")


if __name__ == "__main__":
    sys.exit(main())
