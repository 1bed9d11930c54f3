"""The local-alignment kernel on SCOP 1.53 with our learners, and combined with the strict
locality and mismatch kernels: mean ROC / ROC50 over the 54 families, every row of the
table of ``docs/results/homology.md`` from one command.

Gram matrices of all 4,352 sequences, each computed once (the LA kernel's from the cache in
``<data-dir>/cache``, computed there if absent): LA (Saigo et al. 2004: BLOSUM62, gaps
11 / 1, β = 0.5, eigenvalue shift), LA with the empirical kernel map, strict locality (t = 3),
mismatch (5, 1). Rows, each over the 54 families with λ (and the weight of a sum) chosen by
leave-one-out ROC on the family's training part only (:func:`homology.benchmark.
scop_experiment`):

* strict locality / L2-SVM — kernelrank's best before the LA kernel;
* LA / L2-SVM (the default learner), LA / RLS (class-balanced targets), LA / RankRLS;
* LA with the empirical kernel map / L2-SVM: the map over each family's training part (the
  protocol, :class:`homology.benchmark.EmpiricalMapGram`), and, for comparison, over all
  4,352 sequences (``la-ekm-all``: transductive — the test sequences, without their labels,
  are features);
* ``(1 − w)·LA + w·strict locality`` and ``(1 − w)·LA + w·mismatch`` / L2-SVM, w chosen
  per family from ``--weights``;

then the published SVM means, and paired per-family wins / losses (Wilcoxon) against the
first row. Saigo et al. publish means only (no per-family values), so per-family
comparisons are against our own rows.

Usage::

    python -m benchmarks.experiments.homology.exp_homology_alignment [--data-dir D] [--output-dir O]
        [--weights 0.25,0.5,0.75] [--jobs 2] [--rows all]
"""

import time
from pathlib import Path

from benchmarks import harness
from corpora.scop import load_scop
from homology.benchmark import (DEFAULT_ALPHAS, L2SVM_ALPHAS, WeightedGrams, full_gram,
                                make_kernel, scop_experiment, with_cache)
from homology.report import benchmark_markdown, cumulative_plot
from homology.runs import gram_cache
from kernelrank.cli import exit_code, parse_grid
from kernelrank.report import write_report

#: row name → (kernel name, kernel options, learner, Gram key)
ROWS = {
    "locality-strict/l2svm": ("locality", {"mode": "strict", "half_width": 3}, "l2svm",
                              "strict"),
    "la/l2svm": ("la", {}, "l2svm", "la"),
    "la/rls": ("la", {}, "rls", "la"),
    "la/rankrls": ("la", {}, "rankrls", "la"),
    "la-ekm/l2svm": ("la", {"psd": "ekm"}, "l2svm", "la-ekm"),
    "la-ekm-all/l2svm": ("la", {"psd": "ekm"}, "l2svm", "la-ekm-all"),
    "la+locality-strict/l2svm": ("la+locality", {"mode": "strict", "half_width": 3},
                                 "l2svm", ("la", "strict")),
    "la+mismatch/l2svm": ("la+mismatch", {"k": 5, "m": 1}, "l2svm", ("la", "mismatch")),
}
GRAMS = {"la": ("la", {}), "la-ekm": ("la", {"psd": "ekm"}),
         "la-ekm-all": ("la", {"psd": "ekm"}),
         "strict": ("locality", {"mode": "strict", "half_width": 3}),
         "mismatch": ("mismatch", {"k": 5, "m": 1})}


def run(args):
    bench = load_scop(args.data_dir)
    weights = tuple(parse_grid(args.weights, "--weights"))
    rows = list(ROWS) if args.rows == "all" else args.rows.split(",")
    seqs = list(bench.sequences)
    grams, results = {}, []

    def gram(key):
        if key not in grams:
            t0 = time.perf_counter()
            name, opts = GRAMS[key]
            kernel = with_cache(make_kernel(name, **opts), gram_cache(args.data_dir))
            # la-ekm-all: the empirical map over all 4,352 sequences (transductive: test
            # sequences, without labels, are features), as a comparison with the protocol's
            # map over each training part (la-ekm)
            grams[key] = (kernel.fit_transform(seqs) if key == "la-ekm-all"
                          else full_gram(kernel, seqs))
            print(f"Gram {key}: {time.perf_counter() - t0:.0f} s", flush=True)
        return grams[key]

    for row in rows:
        name, opts, learner, key = ROWS[row]
        kernel = make_kernel(name, **opts, **({"weight": list(weights)} if "+" in name
                                              else {}))
        K = WeightedGrams(gram(key[0]), gram(key[1]), weights) if isinstance(key, tuple) \
            else gram(key)
        t0 = time.perf_counter()
        res = scop_experiment(bench, kernel, name, learner,
                              L2SVM_ALPHAS if learner == "l2svm" else DEFAULT_ALPHAS,
                              args.jobs, None, not args.quiet, "balanced", K=K)
        res["config"] = res["label"] = row
        results.append(res)
        print(f"{row}: mean ROC {res['mean_roc']:.3f}, mean ROC50 {res['mean_roc50']:.3f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    out = Path(args.output_dir)
    plots = [cumulative_plot(results, out / "roc50_families.png", "roc50"),
             cumulative_plot(results, out / "roc_families.png", "roc")]
    summary = {"weights": list(weights), "rows": results}
    for path in write_report(out, "results", summary, benchmark_markdown(results, plots)):
        print(f"wrote {path}")
    return 0


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    harness.add_output_dir(parser, "results/exp_homology_alignment")
    parser.add_argument("--weights", default="0.25,0.5,0.75",
                        help="weights w of the second kernel of the sums (chosen per family)")
    parser.add_argument("--rows", default="all", help="comma-separated subset of: "
                        + ", ".join(ROWS))
    parser.add_argument("--jobs", type=int, default=1, help="families in parallel")
    return exit_code(run, harness.parse_args(parser, argv))


if __name__ == "__main__":
    raise SystemExit(main())
