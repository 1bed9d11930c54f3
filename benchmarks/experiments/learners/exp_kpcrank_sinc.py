"""KPCRank vs RankRLS vs RLS under label noise on the sinc data (paper 002 §6.2, §6.1 noise).

Data (002 §6.2): 2000 equidistant points on [−4, 4], score ``sinc(x) = sin(πx)/(πx)``. The
points are split at random into a training pool of 1000 and a test pool of 338. The paper
then samples "379 [pairs] for the training and 48 for the testing"; whether these count
pairs or points is ambiguous, so we train on ``--n-train`` = 379 points from the pool with
every pair (a global ranking, magnitudes ``sinc(x) − sinc(x')``) and test on all pairs of the
338 test points (48 points give too noisy an estimate). Training scores are corrupted with
Gaussian noise N(0, σ²) as in 002 §6.1 (σ = 0.5, 1.0; also 0 and 0.25); test scores are clean.

Learners, Gaussian kernel ``exp(−γ (x − x')²)``:

* :class:`learners.KPCRank` — number of components p ≤ 100 (002: "less than 100");
* :class:`learners.GlobalRankRLS` — RankRLS over all pairs;
* :class:`learners.RLS` — regression of the scores.

Model selection for every learner: 5-fold CV on the (noisy) training points over γ ∈
``--gammas`` and p = 1..100 (KPCRank, the whole path from one eigendecomposition per fold) or
λ ∈ 2^-15..2^15 (RLS/RankRLS, exact hold-out predictions from one fit per γ), minimising
the disagreement error on the held-out folds; then refit on all training points.

Measure: normalised disagreement error (002 eq. 4: the fraction of test pairs ordered
wrongly, a predicted tie counting as an error), mean over ``--repetitions`` random
draws of pools, training points and noise.

Usage::

    python -m benchmarks.experiments.learners.exp_kpcrank_sinc [--repetitions 10] [--seed 0]
        [--output-dir DIR]
"""

import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from benchmarks import harness
from kernelrank.cli import exit_code
from learners.kpcrank import KPCRank
from learners.measures import disagreement_error
from learners.rankrls import GlobalRankRLS
from kernelrank.report import markdown_table, write_report
from learners.rls import RLS
from learners.selection import Scoring, Search, best_candidate, select
from learners.splits import folds_to_sets, group_folds

ALPHAS = 2.0 ** np.arange(-15, 16)
P_MAX = 100
METHODS = ["KPCRank", "RankRLS", "RLS"]


def sinc_data(rng, n_train):
    x = np.linspace(-4, 4, 2000)
    perm = rng.permutation(2000)
    train_pool, test_pool = perm[:1000], perm[1000:1338]
    tr = rng.choice(train_pool, size=n_train, replace=False)
    return x[tr, None], np.sinc(x[tr]), x[test_pool, None], np.sinc(x[test_pool])


def select_kernel_ridge(est_cls, X, y, folds, gammas):
    """(γ, λ) of RLS/GlobalRankRLS by the selection engine: exact hold-out predictions over
    the λ grid from one fit per γ, fold-averaged disagreement error."""
    return select(est_cls(kernel="gaussian"), X, y, cv=folds_to_sets(folds),
                  search=Search({"alpha": ALPHAS}, grid={"gamma": list(gammas)}),
                  scoring=Scoring("disagreement", average="folds"))


def select_kpcrank(X, y, folds, gammas):
    """(γ, p) of KPCRank: per fold one fit gives the whole component path; the fold-averaged
    disagreement error over the p every fold supports; ties by the engine's rule (fewest
    components, then the first γ)."""
    candidates, errors = [], []
    for g in gammas:
        errs = []
        for f in np.unique(folds):
            tr, te = folds != f, folds == f
            model = KPCRank(n_components=1, kernel="gaussian", gamma=g,
                            max_components=P_MAX).fit(X[tr], y[tr])
            P = model.predict_path(X[te])                      # (n_components, |te|)
            errs.append([disagreement_error(y[te], P[k]) for k in range(P.shape[0])])
        width = min(len(e) for e in errs)
        errors.extend(np.mean([e[:width] for e in errs], axis=0))
        candidates += [{"gamma": g, "n_components": p} for p in range(1, width + 1)]
    return candidates[best_candidate(np.array(errors), candidates, False)]


def run_once(rng, sigma, n_train, gammas):
    X, s, Xt, st = sinc_data(rng, n_train)
    y = s + sigma * rng.normal(size=len(s))
    folds = group_folds(np.arange(len(y)), 5, int(rng.integers(2 ** 31)))
    out = {}
    best = select_kpcrank(X, y, folds, gammas)
    p = best["n_components"]
    model = KPCRank(n_components=p, kernel="gaussian", gamma=best["gamma"],
                    max_components=P_MAX).fit(X, y)
    out["KPCRank"] = disagreement_error(st, model.predict(Xt))
    out["KPCRank_p"] = p
    for name, cls in (("RankRLS", GlobalRankRLS), ("RLS", RLS)):
        sel = select_kernel_ridge(cls, X, y, folds, gammas)
        # predictions from the eigendecomposition-based path (Selection.predict), the same
        # computation as the model selection: with γ = 0.1 (cond(K) ~ 1e20) and λ ~ 2^-15
        # the Cholesky fit of GlobalRankRLS (at commit time) returned wildly different
        # predictions (reported)
        out[name] = disagreement_error(st, sel.predict(Xt))
    return out


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--sigmas", type=float, nargs="+", default=[0.0, 0.25, 0.5, 1.0])
    parser.add_argument("--gammas", type=float, nargs="+", default=[0.1, 1.0, 10.0])
    parser.add_argument("--n-train", type=int, default=379)
    harness.add_seed(parser)
    harness.add_output_dir(parser, "results/kpcrank_sinc", report="kpcrank_sinc")
    args = harness.parse_args(parser, argv)
    return exit_code(_run, args)


def _run(args):
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    rows, results = [], {}
    for sigma in args.sigmas:
        with threadpool_limits(1):      # small matrices: BLAS threads only add overhead
            runs = [run_once(rng, sigma, args.n_train, args.gammas)
                    for _ in tqdm(range(args.repetitions), desc=f"sigma={sigma}",
                                  file=sys.stderr, disable=args.quiet)]
        row = {"sigma": sigma}
        for m in METHODS:
            vals = np.array([r[m] for r in runs])
            row[m] = float(vals.mean())
            row[m + " sem"] = float(vals.std(ddof=1) / np.sqrt(len(vals)))
        row["KPCRank p (median)"] = float(np.median([r["KPCRank_p"] for r in runs]))
        results[str(sigma)] = {"runs": runs, **row}
        rows.append(row)
    elapsed = time.perf_counter() - start
    cols = ["sigma"] + [c for m in METHODS for c in (m, m + " sem")] + ["KPCRank p (median)"]
    md = ["# KPCRank vs RankRLS vs RLS on noisy sinc data (002 §6.2)\n",
          f"Normalised test disagreement error, mean over {args.repetitions} repetitions "
          f"(seed {args.seed}, {args.n_train} training points, 338 test points); "
          f"{elapsed:.0f} s.\n",
          markdown_table(rows, cols, digits=4),
          "\nPaper 002: KPCRank 0.025 vs probabilistic pairwise regression 0.035 on sinc "
          "(noise level not stated); parse ranking (Table 1): KPCRank best at σ = 0.5 "
          "and 1.0, RLS/RankRLS best without noise.\n"]
    write_report(args.output_dir, "kpcrank_sinc", {"args": vars(args), "elapsed_s": elapsed,
                                                   "results": results}, "\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
