"""The ``letor`` subcommand of ``python -m learners``: its parser and its handler.

Importing this module (and building the parser) loads no NumPy: the protocol is imported
when the command runs.
"""

from kernelrank.cli import Summary, add_alphas, add_common, parse_grid, thread_limit
from letor.names import ALPHAS_TEXT, CS_TEXT, DATASETS, EXTRA_LEARNERS, LEARNERS

__all__ = ["add_letor_parser", "letor_command"]

DESCRIPTION = """LETOR 3.0 benchmark on the standard folds: each fold trains on three parts,
chooses λ (or C) by MAP on the validation part and reports the LETOR measures (MAP, NDCG@k,
P@k, as Eval-Score-3.0.pl) and the disagreement error on the test part."""


def add_letor_parser(subparsers):
    """Register the ``letor`` subcommand on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "letor", help="LETOR 3.0 benchmark (standard 5 folds) for rankrls / rls / ranksvm",
        description=DESCRIPTION)
    p.add_argument("--dataset", default="OHSUMED", choices=sorted(DATASETS))
    p.add_argument("--learner", default="all", choices=list(LEARNERS + EXTRA_LEARNERS) + ["all"],
                   help="all = rankrls, rls, ranksvm (default)")
    p.add_argument("--folds", type=int, nargs="+", help="subset of folds 1..5 (default: all)")
    add_alphas(p, default=ALPHAS_TEXT, what="λ grid of rls / rankrls / cgrankrls")
    add_alphas(p, default=CS_TEXT, flag="--Cs", what="C grid of ranksvm")
    add_common(p, data_dir="letor/<dataset>/Fold{k}.test.txt.gz", output_dir=True,
               seed=False, threads=True)
    p.set_defaults(handler=letor_command)
    return p


def letor_command(args):
    """Run the ``letor`` subcommand from parsed arguments; returns its :class:`Summary`."""
    from letor.runs import mean_line, run_benchmark

    grid = {k: None if getattr(args, k) is None else parse_grid(getattr(args, k), f"--{k}")
            for k in ("alphas", "Cs")}
    with thread_limit(args.threads):
        results, written = run_benchmark(
            args.output_dir, list(LEARNERS) if args.learner == "all" else [args.learner],
            data_dir=args.data_dir, dataset=args.dataset, folds=args.folds, seed=args.seed,
            progress=not args.quiet, command=getattr(args, "command_line", None), **grid)
    return Summary(written, [mean_line(name, res) for name, res in results.items()])
