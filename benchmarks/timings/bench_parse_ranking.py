"""Parse ranking pipeline: the time of the data set build and of the locality Gram matrix.

Measured against two targets: building 1,000 CRAFT sentences in under 10 minutes on 2 cores,
and the locality-convolution Gram matrix of 20,000 parses in under 2 minutes
(:func:`parse_ranking.benchmark.run_benchmark`). Prints the measured times and their ratio to
the targets; asserts nothing. With ``--rankers`` (e.g. ``lg,rankrls,corankrls``) also one
timed article-level CV with its measures.

    python -m benchmarks.timings.bench_parse_ranking --treebank ../shared/data/craft/conllu \
        --data craft1000.jsonl --output-dir /tmp/pr_bench
"""

import json
import sys

from benchmarks import harness
from kernelrank.atomic import write_json
from parse_ranking.benchmark import run_benchmark


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    p.add_argument("--treebank", default=None)
    p.add_argument("--data", default=None)
    p.add_argument("--sentences", type=int, default=1000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--gram-parses", type=int, default=20000)
    p.add_argument("--threads", type=int, default=2)
    harness.add_output_dir(p, help="write benchmark.json here (default: none)")
    p.add_argument("--rankers", default=None,
                   help="also time one CV of these rankers, e.g. lg,rankrls,corankrls")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--max-parses", type=int, default=5)
    args = harness.parse_args(p, argv)
    rankers = tuple(args.rankers.split(",")) if args.rankers else None
    out = run_benchmark(args.treebank, args.data, sentences=args.sentences, jobs=args.jobs,
                        gram_parses=args.gram_parses, threads=args.threads, rankers=rankers,
                        folds=args.folds, max_parses=args.max_parses)
    out.pop("cv_results", None)
    if "build" in out:
        out["build"]["ratio_to_target_600s"] = round(out["build"]["wall_seconds"] / 600, 3)
    for key, val in out.items():
        if key.startswith("gram["):
            val["ratio_to_target_120s"] = round(val["total_seconds"] / 120, 3)
    print(json.dumps(out, indent=2))
    if args.output_dir:
        write_json(f"{args.output_dir}/benchmark.json", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
