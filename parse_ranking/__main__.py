"""Command-line entry point: ``python -m parse_ranking {build,cv,benchmark,rank} --help``.

* ``build``: Link Grammar linkages of CRAFT sentences scored against the gold trees (JSONL).
* ``cv``: article-level cross-validation of the rankers (RankRLS variants, RLS, Link
  Grammar's own order, KPCRank, co-regularized RankRLS ``corankrls``) with λ chosen by
  inner leave-query-out ((α, μ) of corankrls by inner article-level CV);
  writes ``results.json``, ``report.md`` and ``results.png``.
* ``benchmark``: timings (build, locality Gram; with ``--rankers`` one timed CV, e.g. of
  ``corankrls``, with its measures) printed and written as JSON (+ results.json, report.md).
* ``train``: fit one ranker on a built data set and save it (JSON + NPZ, no pickle).
* ``rank``: rerank a new sentence's linkages with a saved model.
"""

import argparse
import sys

from kernelrank.cli import run_subcommand


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


def _alphas(text):
    from kernelrank.errors import InvalidParameterError
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InvalidParameterError(f"--alphas must be comma-separated numbers, got {text!r}") \
            from None
    if not values or min(values) <= 0:
        raise InvalidParameterError("--alphas must be positive numbers")
    return values


def _add_common_learning(p):
    from parse_ranking.ranking import DEFAULT_ALPHAS
    p.add_argument("--data", required=True, help="JSONL file written by `build`")
    p.add_argument("--max-parses", type=int, default=5,
                   help="keep LG's first k distinct parses per sentence (default 5)")
    p.add_argument("--max-sentences", type=int, default=None,
                   help="seeded random subset of the usable sentences")
    p.add_argument("--alphas", default=",".join(f"{a:g}" for a in DEFAULT_ALPHAS),
                   help="λ grid, comma-separated (default 2^-8..2^16, step 2^2)")
    p.add_argument("--window", type=int, default=2, help="locality kernel half-window w")
    p.add_argument("--theta", type=float, default=1.0,
                   help="locality kernel positional decay θ in exp(-((h-l)/θ)^2)")
    p.add_argument("--matching", default="sensitive",
                   choices=("sensitive", "strict", "insensitive"))
    p.add_argument("--threads", type=int, default=1, help="BLAS threads (default 1)")
    p.add_argument("--seed", type=int, default=0)


def _add_cv(sub):
    from parse_ranking.ranking import RANKERS
    from parse_ranking.representations import REPRESENTATIONS
    p = sub.add_parser("cv", help="article-level cross-validation of the rankers")
    _add_common_learning(p)
    p.add_argument("--output-dir", required=True)
    p.add_argument("--kernel", action="append", choices=REPRESENTATIONS,
                   help="representation/kernel; repeat for several (default locality)")
    p.add_argument("--rankers", default="lg,rankrls,rankrls_all,rankrls_20,rankrls_22,rls",
                   help="comma-separated, from: " + ", ".join(RANKERS))
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--noise", type=float, action="append", default=[],
                   help="σ of Gaussian noise added to training scores; repeatable")
    p.add_argument("--max-pairs", type=int, default=2_000_000,
                   help="refuse explicit preference graphs larger than this")
    p.add_argument("--labelled-fraction", type=float, default=1.0,
                   help="share of the training sentences whose scores every ranker sees "
                   "(the rest are unlabelled data for corankrls; default 1)")
    _add_coreg(p)
    p.add_argument("--no-progress", action="store_true")


def _add_coreg(p):
    from parse_ranking.coreg import (DEFAULT_CO_ALPHAS, DEFAULT_MUS, DEFAULT_N_BASIS,
                                     DEFAULT_VIEWS)
    from parse_ranking.representations import REPRESENTATIONS
    g = p.add_argument_group("corankrls (sparse co-regularized RankRLS)")
    g.add_argument("--coreg-views", default=",".join(DEFAULT_VIEWS),
                   help="comma-separated views, from: " + ", ".join(REPRESENTATIONS))
    g.add_argument("--coreg-alphas", default=",".join(f"{a:g}" for a in DEFAULT_CO_ALPHAS),
                   help="α grid (shared by the views)")
    g.add_argument("--coreg-mus", default=",".join(f"{m:g}" for m in DEFAULT_MUS),
                   help="co-regularisation μ grid (0 = independent views)")
    g.add_argument("--coreg-basis", type=int, default=DEFAULT_N_BASIS,
                   help="basis size r of the sparse variant (0 = all rows, exact)")
    g.add_argument("--coreg-inner-folds", type=int, default=3)
    g.add_argument("--coreg-no-extra-parses", action="store_true",
                   help="do not use the training sentences' parses beyond --max-parses "
                   "as unlabelled data")


def _coreg_args(args):
    from kernelrank.errors import InvalidParameterError
    mus = [float(v) for v in args.coreg_mus.split(",") if v.strip()]
    if not mus or min(mus) < 0:
        raise InvalidParameterError("--coreg-mus must be non-negative numbers")
    if args.coreg_basis < 0 or args.coreg_inner_folds < 2:
        raise InvalidParameterError("--coreg-basis must be >= 0 and --coreg-inner-folds >= 2")
    return {"views": tuple(v.strip() for v in args.coreg_views.split(",") if v.strip()),
            "alphas": _alphas(args.coreg_alphas), "mus": mus,
            "n_basis": args.coreg_basis or None, "n_inner": args.coreg_inner_folds,
            "extra_parses": not args.coreg_no_extra_parses}


def _select(records, args):
    import numpy as np
    if args.max_sentences is not None and args.max_sentences < len(records):
        keep = np.sort(np.random.default_rng(args.seed).permutation(len(records))
                       [:args.max_sentences])
        records = [records[i] for i in keep]
    return records


def _rep_params(args):
    return {"window": args.window, "theta": args.theta, "matching": args.matching}


def _run_cv(args):
    from parse_ranking.dataset import load_dataset
    from parse_ranking.evaluation import cross_validate
    from parse_ranking.report import write_cv_report
    records = _select(load_dataset(args.data), args)
    results = cross_validate(records, kernels=tuple(args.kernel or ["locality"]),
                             rankers=tuple(r.strip() for r in args.rankers.split(",")),
                             n_folds=args.folds, alphas=_alphas(args.alphas), seed=args.seed,
                             max_parses=args.max_parses, noise=tuple(args.noise),
                             rep_params=_rep_params(args), max_pairs=args.max_pairs,
                             progress=not args.no_progress, threads=args.threads,
                             coreg=_coreg_args(args),
                             labelled_fraction=args.labelled_fraction)
    if argv_is_cli():
        results["data"]["command"] = "python -m parse_ranking " + " ".join(sys.argv[1:])
    path = write_cv_report(args.output_dir, results)
    for name, res in results["rankers"].items():
        if "skipped" in res:
            print(f"{name:32s} skipped")
            continue
        print(f"{name:32s} tau_b {res['kendall_tau_b']:.3f}  disagreement "
              f"{res['disagreement']:.3f}  top1 F {res['top1_f']:.3f}  oracle F "
              f"{res['oracle_f']:.3f}")
    print(f"wrote {path}")
    return 0


def argv_is_cli():
    return bool(sys.argv) and sys.argv[0].endswith(("__main__.py", "parse_ranking"))


def _add_train(sub):
    from parse_ranking.model import SAVEABLE_KERNELS, SAVEABLE_RANKERS
    p = sub.add_parser("train", help="fit one ranker on a data set and save it (no pickle)")
    _add_common_learning(p)
    p.add_argument("--output-model", required=True, help="path stem: writes .json and .npz")
    p.add_argument("--kernel", default="locality", choices=SAVEABLE_KERNELS,
                   help="representation of the single-kernel rankers (corankrls uses "
                   "--coreg-views)")
    p.add_argument("--ranker", default="rankrls", choices=SAVEABLE_RANKERS)
    _add_coreg(p)


def _run_train(args):
    from parse_ranking.dataset import load_dataset
    from parse_ranking.model import train_model
    records = _select(load_dataset(args.data), args)
    meta = train_model(records, args.output_model, kernel=args.kernel, ranker=args.ranker,
                       alphas=_alphas(args.alphas), max_parses=args.max_parses,
                       rep_params=_rep_params(args), threads=args.threads,
                       coreg=_coreg_args(args), seed=args.seed)
    kernels = "+".join(v["kernel"] for v in meta["views"])
    mu = meta["fit_info"].get("mu")
    print(f"trained {meta['ranker']}[{kernels}] on {meta['n_sentences']} sentences "
          f"({meta['n_parses']} parses), alpha {meta['fit_info'].get('alpha')}"
          + (f", mu {mu}" if mu is not None else ""))
    return 0


def _add_rank(sub):
    p = sub.add_parser("rank", help="rerank a new sentence's Link Grammar linkages")
    p.add_argument("--model", required=True, help="model path stem written by `train`")
    p.add_argument("--sentence", required=True)
    p.add_argument("--max-parses", type=int, default=20)
    p.add_argument("--top", type=int, default=5, help="print the best k linkages")


def _run_rank(args):
    import json
    from parse_ranking.model import rank_sentence
    ranked = rank_sentence(args.model, args.sentence, max_parses=args.max_parses)
    if not ranked:
        print("Link Grammar found no linkage", file=sys.stderr)
        return 1
    for pos, r in enumerate(ranked[:args.top], start=1):
        print(json.dumps({"rank": pos, **r}, ensure_ascii=False))
    return 0


def _add_benchmark(sub):
    from parse_ranking.representations import REPRESENTATIONS
    p = sub.add_parser("benchmark", help="time the build, the locality Gram matrix and "
                       "(with --rankers) one CV of the rankers")
    p.add_argument("--treebank", default=None, help="CoNLL-U folder (times the build)")
    p.add_argument("--data", default=None, help="built JSONL (times the Gram matrices)")
    p.add_argument("--sentences", type=int, default=1000)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--gram-parses", type=int, default=20000)
    p.add_argument("--kernel", action="append",
                   choices=("bag_of_links", "links_words", "locality", "graph"))
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--output-dir", default=None)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--rankers", default=None,
                   help="also time one CV of these comma-separated rankers (e.g. "
                   "lg,rankrls,corankrls) on --data; writes results.json + report.md")
    p.add_argument("--cv-kernel", action="append", choices=REPRESENTATIONS,
                   help="kernels of that CV (default locality)")
    p.add_argument("--folds", type=int, default=3)
    p.add_argument("--max-parses", type=int, default=5)
    p.add_argument("--max-sentences", type=int, default=None)
    _add_coreg(p)


def _run_benchmark(args):
    import json
    from kernelrank.atomic import write_json
    from parse_ranking.benchmark import run_benchmark
    from parse_ranking.report import write_cv_report
    rankers = tuple(r.strip() for r in args.rankers.split(",")) if args.rankers else None
    out = run_benchmark(args.treebank, args.data, sentences=args.sentences, jobs=args.jobs,
                        gram_parses=args.gram_parses,
                        kernels=tuple(args.kernel or ["locality"]), seed=args.seed,
                        threads=args.threads, rankers=rankers,
                        cv_kernels=tuple(args.cv_kernel or ["locality"]), folds=args.folds,
                        max_parses=args.max_parses, max_sentences=args.max_sentences,
                        coreg=_coreg_args(args))
    results = out.pop("cv_results", None)
    print(json.dumps(out, indent=2))
    if args.output_dir:
        write_json(f"{args.output_dir}/benchmark.json", out)
        if results is not None:
            results["data"]["command"] = "python -m parse_ranking " + " ".join(sys.argv[1:]) \
                if argv_is_cli() else None
            write_cv_report(args.output_dir, results)
    return 0


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
    return run_subcommand(build_parser(), argv, lambda args: COMMANDS[args.command][1](args))


if __name__ == "__main__":
    sys.exit(main())
