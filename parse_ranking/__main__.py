"""Command-line entry point: ``python -m parse_ranking {build,cv,train,rank,benchmark} --help``.

* ``build``: Link Grammar linkages of CRAFT sentences scored against the gold trees (JSONL).
* ``cv``: article-level cross-validation of the rankers (RankRLS variants, RLS, Link
  Grammar's own order, KPCRank, co-regularized RankRLS ``corankrls``, and the sparse
  ``sparse_rankrls`` / ``nystroem_rankrls`` — the default above 10,000 parses) with λ
  chosen by inner leave-query-out ((α, μ) of corankrls by inner article-level CV);
  writes ``results.json`` and ``results.md`` (embedding ``results.png``).
* ``train``: fit one ranker on a built data set and save it (JSON + NPZ, no pickle).
* ``rank``: rerank a new sentence's linkages with a saved model (JSON lines on stdout).
* ``benchmark``: timings (build, locality Gram; with ``--rankers`` one timed CV, e.g. of
  ``corankrls``, with its measures) → ``results.json`` + ``results.md``.

Every command ends with a summary (files written, τ_b per ranker, time, peak memory).
"""

import argparse
import sys

from kernelrank.cli import Summary, add_alphas, add_common, parse_grid, run_subcommand
from kernelrank.errors import InvalidParameterError
from parse_ranking.names import (ALPHAS_TEXT, COREG_ALPHAS_TEXT, COREG_MUS_TEXT, COREG_N_BASIS,
                                 COREG_VIEWS, CV_RANKERS, MATCHING, RANKERS, REPRESENTATIONS,
                                 SAVEABLE_KERNELS, SAVEABLE_RANKERS, SPARSE_ABOVE,
                                 SPARSE_BASIS_TEXT, SPARSE_CV_RANKERS, SPARSE_RANKERS)


def _add_build(sub):
    p = sub.add_parser("build", help="build the parse ranking data set (JSONL)")
    p.add_argument("--treebank", default=None, help="folder of CoNLL-U(.gz) gold trees "
                   "(default: <data-dir>/craft/conllu)")
    p.add_argument("--output", required=True, help="JSONL file to write or resume")
    p.add_argument("--max-parses", type=int, default=20)
    p.add_argument("--linkage-limit", type=int, default=1000,
                   help="Link Grammar !limit (linkages sampled and sorted per sentence)")
    p.add_argument("--max-sentences", type=int, default=None)
    p.add_argument("--min-length", type=int, default=8, help="minimum gold words")
    p.add_argument("--max-length", type=int, default=30, help="maximum gold words")
    p.add_argument("--timeout", type=int, default=1, help="LG CPU seconds per sentence")
    p.add_argument("--chunk-size", type=int, default=100)
    add_common(p, data_dir="craft/conllu/ (the CRAFT gold trees)",
               seed="the subset of --max-sentences", jobs=2)
    p.set_defaults(resumes=True)        # Ctrl-C and disk full say how to resume


def _add_learning(p):
    p.add_argument("--data", required=True, help="JSONL file written by `build`")
    p.add_argument("--max-parses", type=int, default=5,
                   help="keep LG's first k distinct parses per sentence (default 5)")
    p.add_argument("--max-sentences", type=int, default=None,
                   help="seeded random subset of the usable sentences")
    add_alphas(p, default=ALPHAS_TEXT)
    p.add_argument("--window", type=int, default=2, help="locality kernel half-window w")
    p.add_argument("--theta", type=float, default=1.0,
                   help="locality kernel positional decay θ in exp(-((h-l)/θ)^2)")
    p.add_argument("--matching", default="sensitive", choices=MATCHING)


def _add_coreg(p):
    g = p.add_argument_group("corankrls (sparse co-regularized RankRLS)")
    g.add_argument("--coreg-views", default=None,
                   help=f"comma-separated views (default {','.join(COREG_VIEWS)}), from: "
                   + ", ".join(REPRESENTATIONS))
    add_alphas(g, default=COREG_ALPHAS_TEXT, flag="--coreg-alphas",
               what="α grid (shared by the views)")
    add_alphas(g, default=COREG_MUS_TEXT, flag="--coreg-mus",
               what="co-regularisation μ grid (0 = independent views; zero allowed)")
    g.add_argument("--coreg-basis", type=int, default=None,
                   help=f"basis size r of the sparse variant (default {COREG_N_BASIS}; 0 = all "
                   "rows, exact)")
    g.add_argument("--coreg-inner-folds", type=int, default=None, help="default 3")
    g.add_argument("--coreg-no-extra-parses", action="store_true",
                   help="do not use the training sentences' parses beyond --max-parses "
                   "as unlabelled data")


def _add_cv(sub):
    p = sub.add_parser("cv", help="article-level cross-validation of the rankers")
    _add_learning(p)
    p.add_argument("--kernel", action="append", choices=REPRESENTATIONS,
                   help="representation/kernel; repeat for several (default locality)")
    p.add_argument("--rankers", default=None,
                   help="comma-separated, from: " + ", ".join(RANKERS) + ". Default: "
                   + ",".join(CV_RANKERS) + " on at most " + f"{SPARSE_ABOVE:,}"
                   + " parses (after --max-parses and --max-sentences), else the sparse "
                   "rankers " + ",".join(SPARSE_CV_RANKERS) + " (no parse-by-parse kernel "
                   "matrix: memory O(parses × basis))")
    p.add_argument("--basis", default=None,
                   help=f"basis size(s) r of {' and '.join(SPARSE_RANKERS)} (default "
                   f"{SPARSE_BASIS_TEXT}; capped at the training parses; several, comma-"
                   "separated: sparse_rankrls chooses among them with λ by inner "
                   "leave-sentence-out, nystroem_rankrls uses the largest)")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--noise", type=float, action="append", default=[],
                   help="σ of Gaussian noise added to training scores; repeatable")
    p.add_argument("--max-pairs", type=int, default=2_000_000,
                   help="refuse explicit preference graphs larger than this")
    p.add_argument("--labelled-fraction", type=float, default=1.0,
                   help="share of the training sentences whose scores every ranker sees "
                   "(the rest are unlabelled data for corankrls; default 1)")
    _add_coreg(p)
    add_common(p, output_dir=True, seed="article folds, sentence subset, noise, basis",
               threads=1)


def _add_train(sub):
    p = sub.add_parser("train", help="fit one ranker on a data set and save it (no pickle)")
    _add_learning(p)
    p.add_argument("--output-model", required=True, help="path stem: writes .json and .npz")
    p.add_argument("--kernel", default="locality", choices=SAVEABLE_KERNELS,
                   help="representation of the single-kernel rankers (corankrls uses "
                   "--coreg-views)")
    p.add_argument("--ranker", default="rankrls", choices=SAVEABLE_RANKERS)
    p.add_argument("--basis", default=None,
                   help=f"basis size(s) r of {' and '.join(SPARSE_RANKERS)} (default "
                   f"{SPARSE_BASIS_TEXT}; as for cv)")
    _add_coreg(p)
    add_common(p, seed="sentence subset, inner folds, basis", quiet=False, threads=1)


def _add_rank(sub):
    p = sub.add_parser("rank", help="rerank a new sentence's Link Grammar linkages (JSON "
                                    "lines on stdout; the summary goes to stderr)")
    p.add_argument("--model", required=True, help="model path stem written by `train`")
    p.add_argument("--sentence", required=True)
    p.add_argument("--max-parses", type=int, default=20)
    p.add_argument("--top", type=int, default=5, help="print the best k linkages")
    add_common(p, seed=False, quiet=False)


def _add_benchmark(sub):
    p = sub.add_parser("benchmark", help="time the build, the locality Gram matrix and "
                       "(with --rankers) one CV of the rankers")
    p.add_argument("--treebank", default=None, help="CoNLL-U folder (times the build)")
    p.add_argument("--data", default=None, help="built JSONL (times the Gram matrices)")
    p.add_argument("--sentences", type=int, default=1000)
    p.add_argument("--gram-parses", type=int, default=20000)
    p.add_argument("--kernel", action="append",
                   choices=("bag_of_links", "links_words", "locality", "graph"))
    p.add_argument("--rankers", default=None,
                   help="also time one CV of these comma-separated rankers (e.g. "
                   "lg,rankrls,corankrls) on --data; its report goes to OUTPUT/cv/")
    p.add_argument("--cv-kernel", action="append", choices=REPRESENTATIONS,
                   help="kernels of that CV (default locality)")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--max-parses", type=int, default=5)
    p.add_argument("--max-sentences", type=int, default=None)
    _add_coreg(p)
    add_common(p, output_dir=True, seed="sentence subsets, article folds", quiet=False,
               jobs=2, threads=2)


# ----------------------------------------------------------------------------- handlers
def _names(text):
    return tuple(x.strip() for x in text.split(",") if x.strip())


def _grid(args, name, **kw):
    text = getattr(args, name)
    return None if text is None else parse_grid(text, "--" + name.replace("_", "-"), **kw)


def _coreg(args):
    from parse_ranking.runs import coreg_options

    return coreg_options(views=None if args.coreg_views is None else _names(args.coreg_views),
                         alphas=_grid(args, "coreg_alphas"),
                         mus=_grid(args, "coreg_mus", allow_zero=True),
                         n_basis=args.coreg_basis, n_inner=args.coreg_inner_folds,
                         extra_parses=not args.coreg_no_extra_parses)


def _basis(text):
    """Basis sizes of ``--basis`` (positive integers), or None (the default)."""
    if text is None:
        return None
    values = parse_grid(text, "--basis")
    if any(v != int(v) for v in values):
        raise InvalidParameterError(f"--basis {text!r}: basis sizes are positive integers")
    return tuple(int(v) for v in values)


def _rep_params(args):
    return {"window": args.window, "theta": args.theta, "matching": args.matching}


def _run_build(args):
    from kernelrank.datadir import require_file
    from parse_ranking.dataset import build_dataset

    treebank = args.treebank or require_file(args.data_dir, "craft/conllu", "craft")
    s = build_dataset(treebank, args.output, max_parses=args.max_parses,
                      linkage_limit=args.linkage_limit, timeout=args.timeout,
                      min_length=args.min_length, max_length=args.max_length,
                      max_sentences=args.max_sentences, seed=args.seed, jobs=args.jobs,
                      chunk_size=args.chunk_size, progress=not args.quiet,
                      command=args.command_line)
    return Summary([args.output, args.output + ".meta.json"], [
        f"kept {s['sentences_kept']} of {s['sentences_in_file']} sentences "
        f"({s['dropped_fewer_than_2_scores']} with < 2 distinct scores, "
        f"{s['dropped_no_linkage']} without linkage), {s['parses_kept']} parses; mean F: LG "
        f"first {s['mean_f_lg_first']:.3f}, oracle {s['mean_f_oracle']:.3f}; "
        f"{s['wall_seconds_this_run']} s this run"])


def _run_cv(args):
    from parse_ranking.report import ranker_lines
    from parse_ranking.runs import run_cv

    results, written = run_cv(
        args.data, args.output_dir, max_sentences=args.max_sentences, seed=args.seed,
        command=args.command_line, kernels=tuple(args.kernel or ["locality"]),
        rankers=None if args.rankers is None else _names(args.rankers), n_folds=args.folds,
        alphas=_grid(args, "alphas"), n_basis=_basis(args.basis),
        max_parses=args.max_parses, noise=tuple(args.noise), rep_params=_rep_params(args),
        max_pairs=args.max_pairs, progress=not args.quiet, threads=args.threads,
        coreg=_coreg(args), labelled_fraction=args.labelled_fraction)
    return Summary(written, ranker_lines(results))


def _run_train(args):
    from parse_ranking.runs import run_train

    meta, written = run_train(
        args.data, args.output_model, max_sentences=args.max_sentences, seed=args.seed,
        kernel=args.kernel, ranker=args.ranker, alphas=_grid(args, "alphas"),
        max_parses=args.max_parses, rep_params=_rep_params(args), threads=args.threads,
        coreg=_coreg(args), n_basis=_basis(args.basis))
    kernels = "+".join(v["kernel"] for v in meta["views"])
    mu = meta["fit_info"].get("mu")
    return Summary(written, [
        f"trained {meta['ranker']}[{kernels}] on {meta['n_sentences']} sentences "
        f"({meta['n_parses']} parses), alpha {meta['fit_info'].get('alpha')}"
        + (f", mu {mu}" if mu is not None else "")])


def _run_rank(args):
    import json

    from parse_ranking.model import rank_sentence

    ranked = rank_sentence(args.model, args.sentence, max_parses=args.max_parses)
    for pos, r in enumerate(ranked[:args.top], start=1):
        print(json.dumps({"rank": pos, **r}, ensure_ascii=False))
    if not ranked:
        return Summary(headline=["Link Grammar found no linkage"], code=1, stream="stderr")
    return Summary(headline=[f"{min(args.top, len(ranked))} of {len(ranked)} linkages "
                             "printed"], stream="stderr")


def _run_benchmark(args):
    from parse_ranking.report import ranker_lines
    from parse_ranking.runs import run_benchmark

    out, written = run_benchmark(
        args.output_dir, command=args.command_line, treebank=args.treebank, data=args.data,
        sentences=args.sentences, jobs=args.jobs, gram_parses=args.gram_parses,
        kernels=tuple(args.kernel or ["locality"]), seed=args.seed, threads=args.threads,
        rankers=_names(args.rankers) if args.rankers else None,
        cv_kernels=tuple(args.cv_kernel or ["locality"]), folds=args.folds,
        max_parses=args.max_parses, max_sentences=args.max_sentences, coreg=_coreg(args))
    lines = [f"{step}: {t.get('wall_seconds', t.get('total_seconds'))} s" for step, t in
             out.items()]
    if "cv" in out:
        lines += ranker_lines(out["cv"])
    return Summary(written, lines)


COMMANDS = {"build": (_add_build, _run_build), "cv": (_add_cv, _run_cv),
            "train": (_add_train, _run_train), "rank": (_add_rank, _run_rank),
            "benchmark": (_add_benchmark, _run_benchmark)}


def build_parser():
    parser = argparse.ArgumentParser(prog="parse_ranking", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add, _ in COMMANDS.values():
        add(sub)
    return parser


def main(argv=None):
    from parse_ranking.cli_checks import CHECKS

    return run_subcommand(build_parser(), argv, lambda args: COMMANDS[args.command][1](args),
                          checks=CHECKS)


if __name__ == "__main__":
    sys.exit(main())
