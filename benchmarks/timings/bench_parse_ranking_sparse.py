"""Parse ranking: the full-kernel RankRLS against the sparse rankers, one process each.

On a built parse ranking data set (the README's 1,000-sentence
``craft1000.jsonl``), for every representation (``--kernels``) and every ranker
(``--rankers``: the full-kernel ``rankrls``, which decomposes the parse-by-parse kernel
matrix, O(m^3); ``sparse_rankrls`` and ``nystroem_rankrls``, which form only the kernel
against r basis vectors, O(m r^2 + r^3); :mod:`parse_ranking.ranking`), one article-level
cross-validation (:func:`parse_ranking.evaluation.cross_validate`, the code behind
``python -m parse_ranking cv``) runs in its own child process, so that the process's peak
RSS (``ru_maxrss``, data and features included) is that ranker's. Printed per
(representation, ranker): Kendall τ_b, disagreement, top-1 F (pooled out-of-fold scores),
τ_b minus the full RankRLS's, the basis size and λ chosen per fold, the fit time (wall
seconds of fitting with λ / basis selection and scoring the test parses, summed over the
outer folds; featurizing excluded — ``cv``'s ``timings_seconds``), the child's CPU seconds,
the fit-time ratio full / this ranker, and the peak RSS.

Timings are from ONE run on this (shared, 2-core) machine; the load average is printed at
start and end; nothing is asserted. ``--threads 1`` (default) caps BLAS at one thread:
on a loaded machine an oversubscribed BLAS pool is many times slower.

Usage::

    python -m benchmarks.timings.bench_parse_ranking_sparse --data craft1000.jsonl \\
        [--kernels locality,links_words,graph] [--basis 1000,1500,2000] \\
        [--max-parses 5] [--folds 3] [--output results/bench_sparse.json]
"""

import argparse
import json
import subprocess
import sys
import time

from benchmarks import harness
from kernelrank.report import markdown_table

RANKERS = ("rankrls", "sparse_rankrls", "nystroem_rankrls")


def child(args):
    """One cross-validation (one representation, one ranker); prints a JSON line."""
    from parse_ranking.dataset import load_dataset
    from parse_ranking.evaluation import cross_validate

    t0, c0 = time.perf_counter(), time.process_time()
    records = load_dataset(args.data, max_parses=args.max_parses)
    res = cross_validate(records, kernels=(args.kernel,), rankers=("lg", args.ranker),
                         n_folds=args.folds, max_parses=args.max_parses, progress=False,
                         threads=args.threads, n_basis=_sizes(args.basis))
    name = f"{args.ranker}[{args.kernel}]"
    r = res["rankers"][name]
    out = {k: r[k] for k in ("kendall_tau_b", "disagreement", "top1_f", "oracle_f")}
    out.update(lg_tau_b=res["rankers"]["lg"]["kendall_tau_b"],
               alpha=[f.get("alpha") for f in r["fold_info"]],
               n_basis=[f.get("n_basis") for f in r["fold_info"]],
               fit_seconds=res["timings_seconds"][name],
               features_seconds=res["timings_seconds"].get(f"features[{args.kernel}]"),
               wall_seconds=round(time.perf_counter() - t0, 2),
               cpu_seconds=round(time.process_time() - c0, 2),
               peak_rss_gb=round(harness.peak_rss("KiB") / 1e6, 3),
               parses=res["data"]["parses"], sentences=res["data"]["sentences"])
    print(json.dumps(out))


def _sizes(text):
    return tuple(int(v) for v in text.split(","))


#: the columns of the printed table
TABLE = ["kernel", "ranker", "τ_b", "Δτ_b vs full", "disagreement", "top-1 F", "r per fold",
         "λ per fold", "fit s", "CPU s", "fit-time ratio full/this", "peak RSS GB"]


def _table_row(r, full):
    """The printed cells of the row ``r`` (``full``: the full RankRLS's row of its kernel)."""
    nb = ", ".join(str(b) for b in r["n_basis"]) if r["n_basis"][0] else ""
    return dict(zip(TABLE, (
        r["kernel"], r["ranker"], f"{r['kendall_tau_b']:.3f}",
        f"{r['kendall_tau_b'] - full['kendall_tau_b']:+.3f}" if full else "",
        f"{r['disagreement']:.3f}", f"{r['top1_f']:.3f}", nb,
        ", ".join(f"{a:g}" for a in r["alpha"] if a is not None),
        f"{r['fit_seconds']:.1f}", f"{r['cpu_seconds']:.1f}",
        f"{full['fit_seconds'] / r['fit_seconds']:.2f}" if full else "",
        f"{r['peak_rss_gb']:.2f}")))


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    p.add_argument("--data", required=True, help="a parse ranking data set (.jsonl)")
    p.add_argument("--kernels", default="locality,links_words,graph")
    p.add_argument("--rankers", default=",".join(RANKERS))
    p.add_argument("--basis", default="1000,1500,2000",
                   help="basis sizes r of the sparse rankers (several: chosen by inner CV)")
    p.add_argument("--max-parses", type=int, default=5)
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--threads", type=int, default=1)
    harness.add_output(p, "also write the rows as JSON here (default: none)")
    p.add_argument("--child", nargs=2, metavar=("KERNEL", "RANKER"), help=argparse.SUPPRESS)
    args = harness.parse_args(p, argv)
    if args.child:
        args.kernel, args.ranker = args.child
        child(args)
        return 0
    harness.print_load("start")
    rows = []
    for kernel in args.kernels.split(","):
        for ranker in args.rankers.split(","):
            # this module again (``__spec__.name``: its dotted name under ``python -m``)
            cmd = [sys.executable, "-m", __spec__.name, "--data", args.data, "--basis",
                   args.basis, "--max-parses", str(args.max_parses), "--folds",
                   str(args.folds), "--threads", str(args.threads), "--child", kernel, ranker]
            done = subprocess.run(cmd, capture_output=True, text=True, check=True)
            row = json.loads(done.stdout.strip().splitlines()[-1])
            row.update(kernel=kernel, ranker=ranker, load=harness.load_1min())
            rows.append(row)
            print(f"  done {ranker}[{kernel}] load {row['load']:.2f}", flush=True)
    full = {r["kernel"]: r for r in rows if r["ranker"] == "rankrls"}
    print(f"\n{rows[0]['sentences']} sentences, {rows[0]['parses']} parses, {args.folds} "
          f"article folds; LG τ_b {rows[0]['lg_tau_b']:.3f}; basis sizes {args.basis}\n")
    print(markdown_table([_table_row(r, full.get(r["kernel"])) for r in rows], TABLE))
    harness.print_load("end")
    harness.save_json(args.output, {"rows": rows, "args": vars(args)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
