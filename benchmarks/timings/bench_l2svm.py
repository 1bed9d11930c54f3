"""L2-SVM on SCOP 1.53 families: our active-set Newton solver and its leave-one-out against
explicit retraining and against scikit-learn's SVC (libsvm, hinge loss) as the peer library.

Measures in ONE run on the same machine, for each of ``--families`` (mismatch(5,1) Gram of
all 4,352 sequences computed once):

1. ours: :class:`learners.l2svm.L2SVM` (class-balanced, as in :mod:`homology.benchmark`)
   over the λ grid of :mod:`homology.benchmark` — fit, the whole path and the leave-one-out
   of every λ;
2. explicit leave-one-out: ``--retrain`` random training examples refitted without
   themselves at every λ; time per refit extrapolated to the m refits per λ; the largest
   difference from our values and how many agree to 1e-8 (the inactive examples always do;
   active ones when removing them leaves the others' active set unchanged);
3. peer: ``SVC(kernel="precomputed", C=1/(2λ), class_weight="balanced")`` at every λ of
   the grid (hinge instead of squared hinge: a different loss, so only times and test
   ROC / ROC50 are compared).

Usage::

    python -m benchmarks.timings.bench_l2svm [--data-dir D] [--families 1.27.1.2,...] [--retrain 8]
"""

import os
import time

import numpy as np
from sklearn.base import clone
from sklearn.svm import SVC

from benchmarks import harness
from corpora.scop import load_scop
from homology.benchmark import L2SVM_ALPHAS, full_gram, learner_for, make_kernel
from kernelrank.cli import exit_code
from learners.measures import auc, roc50


def one_family(K, split, alphas, n_retrain, rng):
    tr, te = split.train, split.test
    Ktr, Kte = K[np.ix_(tr, tr)], K[np.ix_(te, tr)]
    y, m = split.y_train, len(tr)
    t0 = time.perf_counter()
    model = learner_for("l2svm", alphas[-1]).fit(Ktr, y)   # as homology.benchmark
    loo = model.leave_one_out(alphas)
    path = model.predict_path(Kte, alphas)
    ours_s = time.perf_counter() - t0

    picks = rng.choice(m, n_retrain, replace=False)
    t0 = time.perf_counter()
    diffs, agree = [], 0
    for j, lam in enumerate(alphas):
        for i in picks:
            keep = np.delete(np.arange(m), i)
            sub = clone(model).set_params(alpha=lam).fit(Ktr[np.ix_(keep, keep)], y[keep])
            value = sub.decision_function(Ktr[np.ix_([i], keep)])[0]
            diffs.append(abs(value - loo[j, i]))
            agree += diffs[-1] <= 1e-8 * (1 + abs(value))
    per_refit = (time.perf_counter() - t0) / (n_retrain * len(alphas))
    explicit_s = per_refit * m * len(alphas)

    t0 = time.perf_counter()
    peer = []
    for lam in alphas:
        svc = SVC(kernel="precomputed", C=1.0 / (2 * lam), class_weight="balanced")
        s = svc.fit(Ktr, y).decision_function(Kte)
        peer.append((auc(split.y_test, s), roc50(split.y_test, s)))
    svc_s = time.perf_counter() - t0
    ours_test = [(auc(split.y_test, p), roc50(split.y_test, p)) for p in path]
    return {"family": split.family, "m": m, "ours_path_and_loo_s": ours_s,
            "explicit_loo_extrapolated_s": explicit_s, "loo_speedup": explicit_s / ours_s,
            "loo_max_abs_diff": float(max(diffs)), "loo_agree_1e-8": f"{agree}/{len(diffs)}",
            "svc_path_s": svc_s, "ours_test_roc_roc50": ours_test,
            "svc_test_roc_roc50": peer}


def run(args):
    bench = load_scop(args.data_dir)
    families = args.families.split(",") if args.families else list(bench.families[:3])
    t0 = time.perf_counter()
    K = full_gram(make_kernel("mismatch", k=5, m=1), list(bench.sequences))
    print(f"mismatch(5,1) Gram: {time.perf_counter() - t0:.1f} s", flush=True)
    alphas = np.sort(np.asarray(L2SVM_ALPHAS))
    rng = np.random.default_rng(args.seed)
    rows = []
    for fam in families:
        r = one_family(K, bench.split(fam), alphas, args.retrain, rng)
        rows.append(r)
        print(f"{fam} (m={r['m']}): ours path+LOO over {len(alphas)} λ "
              f"{r['ours_path_and_loo_s']:.1f} s; explicit LOO ≈ "
              f"{r['explicit_loo_extrapolated_s'] / 60:.0f} min (ratio "
              f"{r['loo_speedup']:.0f}x, agree to 1e-8: {r['loo_agree_1e-8']}, max diff "
              f"{r['loo_max_abs_diff']:.1e}); SVC fits at the same λ {r['svc_path_s']:.1f} s "
              f"(ratio SVC/ours {r['svc_path_s'] / r['ours_path_and_loo_s']:.2f}, ours also "
              "gives the LOO)", flush=True)
        for lam, o, p in zip(alphas, r["ours_test_roc_roc50"], r["svc_test_roc_roc50"]):
            print(f"   λ={lam:g}: test ROC/ROC50 ours {o[0]:.3f}/{o[1]:.3f}, SVC "
                  f"{p[0]:.3f}/{p[1]:.3f}")
    out = {"alphas": alphas.tolist(), "families": rows, "cpu_count": os.cpu_count(),
           "load_average_1min_at_end": harness.load_1min()}
    harness.save_json(args.output, out)
    return 0


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--families", default=None,
                        help="comma-separated family ids (default: the first three)")
    parser.add_argument("--retrain", type=int, default=8,
                        help="training examples refitted explicitly per λ")
    harness.add_seed(parser)
    harness.add_output(parser)
    return exit_code(run, harness.parse_args(parser, argv))


if __name__ == "__main__":
    raise SystemExit(main())
