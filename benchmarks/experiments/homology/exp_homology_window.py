"""The window half-width t of the strict locality kernel on SCOP 1.53: mean ROC / ROC50 at
fixed t and with (t, λ) chosen per family.

For each t of ``--half-widths`` the normalized strict locality Gram matrix of all 4,352
sequences is computed once; per family the class-balanced L2-SVM (the homology default)
gives the leave-one-out ROC and the test ROC / ROC50 for every λ of its grid. Printed:

* fixed t, λ chosen by leave-one-out ROC on the training part (what ``python -m homology
  scop --kernel locality --mode strict --half-width t`` does);
* (t, λ) chosen jointly per family by leave-one-out ROC on the training part (ties: the
  selection engine's rule — the larger λ, then the smaller t) — a protocol that never
  looks at the test part.

Usage::

    python -m benchmarks.experiments.homology.exp_homology_window [--data-dir D]
        [--half-widths 3,5,7] [--output F]
"""

import time

import numpy as np

from benchmarks import harness
from corpora.scop import load_scop
from homology.benchmark import L2SVM_ALPHAS, full_gram, make_kernel, select_alpha
from kernelrank.cli import exit_code
from learners.measures import auc, roc50
from learners.selection import best_candidate


def family_curves(K, split, alphas):
    """Leave-one-out ROC, test ROC and test ROC50 for every λ (arrays of len(alphas))."""
    tr, te = split.train, split.test
    sel = select_alpha(K[np.ix_(tr, tr)], split.y_train, alphas, "l2svm")
    test = sel.model.predict_path(K[np.ix_(te, tr)], alphas)
    return (sel.scores, np.array([auc(split.y_test, p) for p in test]),
            np.array([roc50(split.y_test, p) for p in test]))


def run(args):
    bench = load_scop(args.data_dir)
    widths = [int(t) for t in args.half_widths.split(",")]
    alphas = np.sort(np.asarray(L2SVM_ALPHAS))
    curves = {}
    for t in widths:
        t0 = time.perf_counter()
        K = full_gram(make_kernel("locality", mode="strict", half_width=t),
                      list(bench.sequences))
        curves[t] = [family_curves(K, bench.split(f), alphas) for f in bench.families]
        best = [best_candidate(c[0], [{"alpha": a} for a in alphas], True) for c in curves[t]]
        roc = np.mean([c[1][j] for c, j in zip(curves[t], best)])
        r50 = np.mean([c[2][j] for c, j in zip(curves[t], best)])
        print(f"strict locality t={t}: ROC {roc:.3f} / ROC50 {r50:.3f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    # (t, λ) jointly by leave-one-out ROC, with the selection engine's tie rule
    grid = [{"half_width": t, "alpha": a} for t in widths for a in alphas]
    joint = []
    for i in range(len(bench.families)):
        k = best_candidate(np.concatenate([curves[t][i][0] for t in widths]), grid, True)
        t, j = grid[k]["half_width"], k % len(alphas)
        joint.append((curves[t][i][1][j], curves[t][i][2][j], t))
    roc, r50 = np.mean([r[0] for r in joint]), np.mean([r[1] for r in joint])
    print(f"(t, λ) chosen per family by leave-one-out ROC: ROC {roc:.3f} / ROC50 {r50:.3f}; "
          f"t chosen: { {t: sum(r[2] == t for r in joint) for t in widths} }")
    harness.save_json(args.output, {"half_widths": widths, "alphas": alphas.tolist(),
                                    "joint": {"roc": roc, "roc50": r50}})
    return 0


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--half-widths", default="3,5,7")
    harness.add_output(parser)
    return exit_code(run, harness.parse_args(parser, argv))


if __name__ == "__main__":
    raise SystemExit(main())
