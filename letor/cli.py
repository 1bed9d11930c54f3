"""The ``letor`` subcommand of ``python -m learners``: its parser and its handler.

Importing this module (and building the parser) loads no NumPy: the protocol is imported
when the command runs.
"""

from kernelrank.cli import Summary, add_alphas, add_common, parse_grid, thread_limit
from letor.names import ALPHAS_TEXT, CONVENTIONS, CS_TEXT, DATASETS, EXTRA_LEARNERS, LEARNERS

__all__ = ["add_letor_parser", "letor_command"]

DESCRIPTION = """LETOR benchmark on the standard folds of any LETOR-format data set: each fold
trains on three parts, chooses λ (or C) by MAP on the validation part and reports the LETOR
measures (MAP, NDCG@k, P@k, with the conventions of the data set's own evaluation script:
Eval-Score-3.0.pl, -4.0.pl or -MSLR.pl) and the disagreement error on the test part. Data:
the OHSUMED preset of the data directory (default), or --data FOLDER with Fold1..Fold5/
{train,vali,test}.txt[.gz] (LETOR 3.0/4.0, MSLR-WEB) or S1..S5.txt[.gz] (LETOR 4.0)."""


def add_letor_parser(subparsers):
    """Register the ``letor`` subcommand on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "letor", help="LETOR benchmark (standard 5 folds) for rankrls / rls / ranksvm / "
        "lightgbm", description=DESCRIPTION)
    p.add_argument("--dataset", choices=sorted(DATASETS),
                   help="a preset of the data directory (default OHSUMED when --data is not "
                        "given)")
    p.add_argument("--data", metavar="FOLDER",
                   help="a LETOR data set folder: Fold1..Fold5/{train,vali,test}.txt[.gz] or "
                        "S1..S5.txt[.gz]")
    p.add_argument("--n-features", type=int,
                   help="number of features (default: detected; give it for files that "
                        "write features sparsely)")
    p.add_argument("--eval", choices=CONVENTIONS, dest="convention",
                   help="evaluation conventions: letor3 = Eval-Score-3.0.pl, letor4 = "
                        "Eval-Score-4.0.pl, mslr = Eval-Score-MSLR.pl (default: the data "
                        "set's own; letor4 when unknown)")
    p.add_argument("--learner", default="all", choices=list(LEARNERS + EXTRA_LEARNERS) + ["all"],
                   help="all = rankrls, rls, ranksvm (default; ranksvm = squared-hinge "
                        "RankSVM, ranksvm_hinge = the hinge-loss one of SVMlight and the "
                        "LETOR 3.0 baseline); lightgbm = LambdaMART (needs the optional "
                        "lightgbm package)")
    p.add_argument("--folds", type=int, nargs="+", help="subset of folds 1..5 (default: all)")
    add_alphas(p, default=ALPHAS_TEXT, what="λ grid of rls / rankrls / cgrankrls")
    add_alphas(p, default=CS_TEXT, flag="--Cs", what="C grid of ranksvm / ranksvm_hinge")
    add_common(p, data_dir="letor/<dataset>/Fold{k}.test.txt.gz", output_dir=True,
               seed="LightGBM's (--learner lightgbm); the other learners are deterministic",
               threads=True)
    p.set_defaults(handler=letor_command)
    return p


def _paths(args):
    from kernelrank.datadir import resolve_data_dir
    from kernelrank.paths import PathSpec

    spec = PathSpec().input("--data", args.data)
    if args.data is None:                        # a preset of the data folder
        spec.input("--data-dir", resolve_data_dir(args.data_dir) / "letor")
    return spec.folder("--output-dir", args.output_dir, "results.json", "results.md")


def _checks():
    from kernelrank.cli import Checks

    # a feature index is an int64 (the reader's range); --folds are checked against the
    # data set's parts when it is opened
    return {"letor": Checks(_paths, {"n_features": (1, 2 ** 62), "folds": (1, 1000)})}


def letor_command(args):
    """Run the ``letor`` subcommand from parsed arguments; returns its :class:`Summary`."""
    from letor.runs import mean_line, run_benchmark

    grid = {k: None if getattr(args, k) is None else parse_grid(getattr(args, k), f"--{k}")
            for k in ("alphas", "Cs")}
    with thread_limit(args.threads):
        results, written = run_benchmark(
            args.output_dir, list(LEARNERS) if args.learner == "all" else [args.learner],
            data_dir=args.data_dir, dataset=args.dataset, data=args.data,
            n_features=args.n_features, convention=args.convention, folds=args.folds,
            seed=args.seed, threads=args.threads, progress=not args.quiet,
            command=getattr(args, "command_line", None), **grid)
    return Summary(written, [mean_line(name, res) for name, res in results.items()])
