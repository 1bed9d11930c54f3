"""Remote protein homology detection with string kernels and the L2-SVM, RLS or RankRLS.

Commands:
  scop       one kernel on the SCOP 1.53 benchmark (54 families) → results.json + results.md
  benchmark  several kernels on the benchmark → one comparison table
  train      fit a detector on your own family (positive / negative FASTA) → model file
  predict    score sequences (FASTA) with a saved model → TSV

Every command ends with a summary: files written, mean ROC / ROC50 (or the chosen λ), wall
time, peak memory.
"""

import argparse
import sys

from homology.names import (ALPHAS_TEXT, BENCHMARK_CONFIGS, FEATURE_GROUPS, FEATURE_KERNELS,
                            KERNELS, L2SVM_ALPHAS_TEXT, LEARNERS, LOCALITY_MODES, PSD_FIXES,
                            SELECTIONS, SUM_WEIGHTS_TEXT, TARGETS, TRAIN_LEARNERS)
from kernelrank.cli import Summary, add_alphas, add_common, parse_grid, run_subcommand, thread_limit
from kernelrank.errors import InvalidParameterError

_GRIDS = f"{ALPHAS_TEXT}; l2svm {L2SVM_ALPHAS_TEXT}"


def _add_kernel_options(p):
    g = p.add_argument_group("kernel")
    g.add_argument("--kernel", choices=KERNELS, default="mismatch",
                   help="la: the local-alignment kernel (Saigo et al. 2004; its Gram matrix "
                        "on SCOP is cached in <data-dir>/cache); a+b: a weighted sum")
    g.add_argument("--k", type=int, default=None, help="k-mer length (spectrum 3, mismatch 5)")
    g.add_argument("--m", type=int, default=None, help="mismatches (mismatch kernel, default 1)")
    g.add_argument("--mode", choices=LOCALITY_MODES, default="sensitive",
                   help="locality kernel window matching")
    g.add_argument("--half-width", type=int, default=3, help="locality window half-width t")
    g.add_argument("--theta", type=float, default=2.0,
                   help="Gaussian position penalty width (locality, mode=sensitive)")
    g.add_argument("--groups", default=",".join(FEATURE_GROUPS),
                   help="protein feature groups, comma-separated")
    g.add_argument("--feature-kernel", choices=FEATURE_KERNELS, default="linear")
    g.add_argument("--gamma", type=float, default=None, help="Gaussian feature-kernel width")
    g.add_argument("--weight", default=None, metavar="W[,W...]",
                   help="weight w of the second kernel of a sum, (1-w)*first + w*second "
                        "(the protein features; after la, the locality / mismatch kernel); "
                        "several comma-separated values: w is chosen with λ by leave-one-out "
                        f"on each training part (default {SUM_WEIGHTS_TEXT['features']} for "
                        f"+features, {SUM_WEIGHTS_TEXT['la']} for la+…)")
    g.add_argument("--beta", type=float, default=0.5,
                   help="local alignment: β of exp(β·score) (Saigo et al. 2004: 0.5)")
    g.add_argument("--gap-open", type=float, default=11.0,
                   help="local alignment: gap opening cost (BLOSUM62 scores)")
    g.add_argument("--gap-extend", type=float, default=1.0,
                   help="local alignment: gap extension cost")
    g.add_argument("--psd", choices=PSD_FIXES, default="shift",
                   help="local alignment: positive semi-definite fix, eigenvalue shift of the "
                        "training Gram matrix or the empirical kernel map")


def _add_selection(p, learners):
    p.add_argument("--learner", choices=learners, default="l2svm",
                   help="l2svm (default: squared-hinge SVM solved as RLS on its active set, "
                        "class-balanced), rls (class-balanced targets)"
                        + (" or rankrls (bipartite RankRLS)" if "rankrls" in learners else ""))
    add_alphas(p, default=_GRIDS)
    p.add_argument("--select", choices=SELECTIONS, default="roc",
                   help="leave-one-out measure that chooses λ on the training part")


def _add_eval_options(p):
    _add_selection(p, LEARNERS)
    p.add_argument("--targets", choices=TARGETS, default="balanced",
                   help="RLS regression targets (class-balanced or ±1)")
    p.add_argument("--families", default=None,
                   help="comma-separated subset of family ids (default: all 54)")
    add_common(p, data_dir="scop153/", output_dir=True, seed=False, threads=True,
               jobs=1)
    p.add_argument("--scheduler", default=None,
                   help="address of a Dask scheduler (tcp://host:port) whose workers compute "
                        "the local-alignment Gram matrix; default: the cores of this machine")


def build_parser():
    parser = argparse.ArgumentParser(prog="homology", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("scop", help="one kernel on the SCOP 1.53 benchmark")
    _add_kernel_options(p)
    _add_eval_options(p)

    p = sub.add_parser("benchmark", help="all kernels on SCOP 1.53, one comparison table")
    p.add_argument("--configs", default=",".join(c[0] for c in BENCHMARK_CONFIGS),
                   help="comma-separated subset of: "
                        + ", ".join(c[0] for c in BENCHMARK_CONFIGS))
    p.add_argument("--reuse", action="store_true",
                   help="reuse OUTPUT/<config>/results.json when it was made with the same "
                        "kernel, learner, targets, λ grid and selection, for all requested "
                        "families, on data of the same content (extra stored families are "
                        "left out)")
    _add_eval_options(p)

    p = sub.add_parser("train", help="fit a detector on your own family")
    p.add_argument("--positives", required=True, help="FASTA of family members")
    p.add_argument("--negatives", required=True, help="FASTA of non-members")
    p.add_argument("--model", required=True, help="output model file (.npz, no pickle)")
    _add_selection(p, TRAIN_LEARNERS)
    _add_kernel_options(p)
    add_common(p, seed=False, quiet=False, threads=True)

    p = sub.add_parser("predict", help="score sequences with a saved model")
    p.add_argument("--model", required=True)
    p.add_argument("--input", required=True, help="FASTA of sequences to score")
    p.add_argument("--output", required=True, help="TSV: id, score (higher = member)")
    add_common(p, seed=False, quiet=False, threads=True)
    return parser


# ----------------------------------------------------------------------------- handlers
def _names(text):
    return None if text is None else [x for x in text.split(",") if x]


def _alphas(args):
    return None if args.alphas is None else parse_grid(args.alphas)


def _weights(text, kernel):
    """``--weight``: one number or a comma-separated list, each in [0, 1] (None: the
    default of the kernel's sum, :data:`homology.names.SUM_WEIGHTS_TEXT`)."""
    if text is None:
        text = SUM_WEIGHTS_TEXT["la" if kernel.startswith("la+") else "features"]
    weights = list(parse_grid(text, "--weight", allow_zero=True))
    if any(w > 1 for w in weights):
        raise InvalidParameterError(f"--weight {text!r}: every weight must be in [0, 1]")
    return weights[0] if len(weights) == 1 else weights


def _kernel_options(args):
    from homology.runs import kernel_options

    return kernel_options(args.kernel, k=args.k, m=args.m, mode=args.mode,
                          half_width=args.half_width, theta=args.theta,
                          groups=_names(args.groups), feature_kernel=args.feature_kernel,
                          gamma=args.gamma, weight=_weights(args.weight, args.kernel), beta=args.beta,
                          gap_open=args.gap_open, gap_extend=args.gap_extend, psd=args.psd)


def _evaluation(args):
    return dict(data_dir=args.data_dir, learner=args.learner, targets=args.targets,
                alphas=_alphas(args), select=args.select, families=_names(args.families),
                jobs=args.jobs, progress=not args.quiet, scheduler=args.scheduler)


def _means(r):
    return (f"mean ROC {r['mean_roc']:.3f}, mean ROC50 {r['mean_roc50']:.3f} over "
            f"{r['n_families']} families" if "n_families" in r else
            f"mean ROC {r['mean_roc']:.3f}, mean ROC50 {r['mean_roc50']:.3f}")


def cmd_scop(args):
    from homology.runs import run_scop

    res, written = run_scop(args.kernel, _kernel_options(args), args.output_dir,
                            **_evaluation(args))
    return Summary(written, [f"{args.kernel}/{args.learner}: {_means(res)}"])


def cmd_benchmark(args):
    from homology.runs import run_benchmark

    res, written = run_benchmark(_names(args.configs), args.output_dir, reuse=args.reuse,
                                 **_evaluation(args))
    return Summary(written, [f"{c['config']}: {_means(c)}" for c in res["configs"]])


def cmd_train(args):
    from homology.training import train_from_fasta

    meta = train_from_fasta(args.positives, args.negatives, args.model, args.kernel,
                            _kernel_options(args), alphas=_alphas(args), learner=args.learner,
                            select=args.select)
    weight = meta["kernel_options"].get("weight")
    return Summary([args.model], [
        f"{args.learner} trained on {meta['n_positive']} positives / {meta['n_negative']} "
        f"negatives, λ={meta['alpha']:g}"
        + ("" if weight is None else f", weight {weight:g}") + ", leave-one-out "
        f"{'ROC' if args.select == 'roc' else 'ROC50'} {meta['loo_score']:.3f}"])


def cmd_predict(args):
    from homology.training import score_fasta

    n = score_fasta(args.model, args.input, args.output)
    return Summary([args.output], [f"scored {n} sequences"])


COMMANDS = {"scop": cmd_scop, "benchmark": cmd_benchmark, "train": cmd_train,
            "predict": cmd_predict}


def _run(args):
    # --jobs splits the cores between parallel families itself (kernelrank.parallel)
    with thread_limit(args.threads):
        return COMMANDS[args.command](args)


def main(argv=None):
    from homology.cli_checks import CHECKS

    return run_subcommand(build_parser(), argv, _run, checks=CHECKS)


if __name__ == "__main__":
    sys.exit(main())
