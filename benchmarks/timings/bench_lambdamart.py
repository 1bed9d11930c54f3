"""Our linear learners vs LambdaMART (LightGBM's ``LGBMRanker``) on the LETOR folds.

Every learner on the same five folds of LETOR 3.0 OHSUMED, once from the
project's data folder (the ``--dataset OHSUMED`` preset) and once from an ``S1..S5`` layout
built in a temporary folder from OHSUMED's parts (``S_i`` = part ``(i mod 5) + 1``, so that
fold k tests on the same part in both; the folder is deleted at the end, never committed).
Prints one table per data set — MAP, NDCG@1/3/5/10 (with the conventions of
``Eval-Score-3.0.pl``), fit time summed over the folds (fit + selection of λ / C / tree
size on the validation part) — and, to explain the gap, LambdaMART's five-fold test MAP
for every tree size of :data:`letor.lambdamart.NUM_LEAVES` (chosen in hindsight on the
test folds, an upper bound on what selection by validation can reach).

Timings are from ONE run on this (shared) machine; the load average is printed; nothing
here is asserted.

Usage::

    python -m benchmarks.timings.bench_lambdamart [--data-dir D] [--learners rankrls rls ranksvm
        ranksvm_hinge cgrankrls lightgbm] [--threads 2] [--output results/bench_lambdamart.json]
"""

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from kernelrank.datadir import require_file
from kernelrank.report import markdown_table
from letor.lambdamart import fit_lambdamart
from letor.layouts import open_letor
from letor.protocol import evaluate_test_part, validation_map, run_letors

LEARNERS = ["rankrls", "rls", "ranksvm", "ranksvm_hinge", "cgrankrls", "lightgbm"]
COLUMNS = ["MAP", "NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10"]


def _table(results):
    head = ["learner", *COLUMNS, "fit s (5 folds)"]
    rows = [{"learner": name, **{c: f"{res['mean'][c]:.4f}" for c in COLUMNS},
             "fit s (5 folds)": f"{sum(f['train_seconds'] for f in res['folds']):.1f}"}
            for name, res in results.items()]
    return markdown_table(rows, head).rstrip("\n")


def _s_layout(data_dir, folder):
    for i in range(1, 6):
        part = require_file(data_dir, f"letor/OHSUMED/Fold{i % 5 + 1}.test.txt.gz", "letor")
        shutil.copy(part, folder / f"S{i}.txt.gz")
    return folder


def _lambdamart_by_tree_size(data, threads):
    """Five-fold test MAP of LambdaMART for each tree size (hindsight, not a protocol)."""
    scorer = validation_map("letor3")
    out = {}
    for leaves in (4, 8, 31):
        maps = []
        for fold in data.folds:
            train, val, test = data.load(fold)
            model, _, _ = fit_lambdamart(train, val, scorer, threads=threads,
                                         num_leaves=(leaves,))
            maps.append(evaluate_test_part(test[1], model.predict(test[0]), test[2])["MAP"])
        out[leaves] = float(np.mean(maps))
    return out


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--learners", nargs="+", default=LEARNERS, choices=LEARNERS)
    parser.add_argument("--threads", type=int, default=None, help="LightGBM threads")
    harness.add_output(parser)
    args = harness.parse_args(parser, argv)
    report = {"load_average_start": harness.print_load("start"), "data": {}}
    with tempfile.TemporaryDirectory(prefix="ohsumed-S-") as tmp:
        sources = {"OHSUMED (preset)": open_letor(dataset="OHSUMED", data_dir=args.data_dir),
                   "OHSUMED as S1..S5": open_letor(_s_layout(args.data_dir, Path(tmp)))}
        for label, data in sources.items():
            t0 = time.perf_counter()
            results = run_letors(data, args.learners, progress=False, threads=args.threads)
            print(f"\n## {label} — layout {data.layout}, version {data.version}, "
                  f"wall {time.perf_counter() - t0:.1f} s\n")
            print(_table(results))
            report["data"][label] = {name: {"mean": res["mean"], "train_seconds": sum(
                f["train_seconds"] for f in res["folds"])} for name, res in results.items()}
        if "lightgbm" in args.learners:
            by_size = _lambdamart_by_tree_size(sources["OHSUMED (preset)"], args.threads)
            print("\nLambdaMART five-fold test MAP by tree size (hindsight): "
                  + ", ".join(f"{k} leaves {v:.4f}" for k, v in by_size.items()))
            report["lambdamart_map_by_num_leaves"] = by_size
    print()
    report["load_average_end"] = harness.print_load("end")
    harness.save_json(args.output, report)


if __name__ == "__main__":
    main()
