"""Command-line entry point: ``python -m parse_ranking {build,cv,benchmark,rank} --help``.

* ``build``: Link Grammar linkages of CRAFT sentences scored against the gold trees (JSONL).
* ``cv``: article-level cross-validation of the rankers (RankRLS variants, RLS, Link
  Grammar's own order, KPCRank when available) with λ chosen by inner leave-query-out;
  writes ``results.json``, ``report.md`` and ``results.png``.
* ``benchmark``: timings (build, locality Gram) printed and written as JSON.
* ``rank``: rerank a new sentence's linkages with a saved model (JSON + NPZ, no pickle).
"""

import argparse
import sys

from learners.errors import KernelrankError


def _add_build(sub):
    p = sub.add_parser("build", help="build the parse ranking data set (JSONL)")
    p.add_argument("--treebank", required=True, help="folder of CoNLL-U(.gz) gold trees "
                   "(e.g. ../shared/data/craft/conllu)")
    p.add_argument("--output", required=True, help="JSONL file to write or resume")
    p.add_argument("--max-parses", type=int, default=20)
    p.add_argument("--linkage-limit", type=int, default=1000,
                   help="Link Grammar !limit (linkages sampled and sorted per sentence)")
    p.add_argument("--max-sentences", type=int, default=None)
    p.add_argument("--min-length", type=int, default=8, help="minimum gold words")
    p.add_argument("--max-length", type=int, default=30, help="maximum gold words")
    p.add_argument("--timeout", type=int, default=1, help="LG CPU seconds per sentence")
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--chunk-size", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--no-progress", action="store_true")


def _run_build(args):
    from parse_ranking.dataset import build_dataset
    summary = build_dataset(args.treebank, args.output, max_parses=args.max_parses,
                            linkage_limit=args.linkage_limit, timeout=args.timeout,
                            min_length=args.min_length, max_length=args.max_length,
                            max_sentences=args.max_sentences, seed=args.seed,
                            jobs=args.jobs, chunk_size=args.chunk_size,
                            progress=not args.no_progress)
    print(f"kept {summary['sentences_kept']} of {summary['sentences_in_file']} sentences "
          f"({summary['dropped_fewer_than_2_scores']} with < 2 distinct scores, "
          f"{summary['dropped_no_linkage']} without linkage), {summary['parses_kept']} "
          f"parses; mean F: LG first {summary['mean_f_lg_first']:.3f}, oracle "
          f"{summary['mean_f_oracle']:.3f}; {summary['wall_seconds_this_run']} s")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="parse_ranking", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_build(sub)
    try:
        from parse_ranking import cli_extra
    except ImportError:
        cli_extra = None
    if cli_extra is not None:
        cli_extra.add_commands(sub)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        if args.command == "build":
            return _run_build(args)
        from parse_ranking import cli_extra
        return cli_extra.run(args)
    except KernelrankError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
