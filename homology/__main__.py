"""Remote protein homology detection with string kernels and the L2-SVM, RLS or RankRLS.

Commands:
  scop       one kernel on the SCOP 1.53 benchmark (54 families) → results.json + report
  benchmark  several kernels on the benchmark → one comparison table
  train      fit a detector on your own family (positive / negative FASTA) → model file
  predict    score sequences (FASTA) with a saved model → TSV
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np

from kernelrank.cli import run_subcommand
from kernelrank.errors import InvalidParameterError

# (name, kernel, kernel options) of `python -m homology benchmark`
BENCHMARK_CONFIGS = [
    ("mismatch-k5-m1", "mismatch", {"k": 5, "m": 1}),
    ("spectrum-k3", "spectrum", {"k": 3}),
    ("locality-sensitive", "locality", {"mode": "sensitive", "half_width": 3, "theta": 2.0}),
    ("locality-insensitive", "locality", {"mode": "insensitive", "half_width": 3}),
    ("locality-strict", "locality", {"mode": "strict", "half_width": 3}),
    ("features", "features", {}),
    ("mismatch+features", "mismatch+features", {"k": 5, "m": 1, "weight": 0.2}),
]


def _add_kernel_options(p):
    from homology.benchmark import KERNELS

    p.add_argument("--kernel", choices=KERNELS, default="mismatch")
    p.add_argument("--k", type=int, default=None, help="k-mer length (spectrum 3, mismatch 5)")
    p.add_argument("--m", type=int, default=None, help="mismatches (mismatch kernel, default 1)")
    p.add_argument("--mode", choices=("sensitive", "insensitive", "strict"),
                   default="sensitive", help="locality kernel window matching")
    p.add_argument("--half-width", type=int, default=3, help="locality window half-width t")
    p.add_argument("--theta", type=float, default=2.0,
                   help="Gaussian position penalty width (locality, mode=sensitive)")
    p.add_argument("--groups", default="aa,dipeptide,physchem",
                   help="protein feature groups, comma-separated")
    p.add_argument("--feature-kernel", choices=("linear", "gaussian"), default="linear")
    p.add_argument("--gamma", type=float, default=None, help="Gaussian feature-kernel width")
    p.add_argument("--weight", type=float, default=0.2,
                   help="protein-feature weight w in (1-w)*string + w*features (sums)")


def _kernel_options(args):
    opts = {"k": args.k, "m": args.m, "mode": args.mode, "half_width": args.half_width,
            "theta": args.theta, "groups": tuple(g for g in args.groups.split(",") if g),
            "feature_kernel": args.feature_kernel, "gamma": args.gamma, "weight": args.weight}
    name = args.kernel
    keep = set()
    if name.startswith(("spectrum", "mismatch")):
        keep |= {"k", "m"} if name.startswith("mismatch") else {"k"}
    if name.startswith("locality"):
        keep |= {"mode", "half_width", "theta"}
    if "features" in name:
        keep |= {"groups", "feature_kernel", "gamma"}
    if "+" in name:
        keep.add("weight")
    out = {k: v for k, v in opts.items() if k in keep}
    if "groups" in out:
        out["groups"] = list(out["groups"])
    return out


def _add_common(p, data=True):
    if data:
        p.add_argument("--data-dir", default=None,
                       help="data folder holding scop153/ (default $KERNELRANK_DATA or cache)")
    p.add_argument("--seed", type=int, default=0,
                   help="accepted for uniformity; every step here is deterministic")


def _add_eval_options(p):
    p.add_argument("--learner", choices=("l2svm", "rls", "rankrls"), default="l2svm",
                   help="l2svm (default: squared-hinge SVM solved as RLS on its active set, "
                        "class-balanced), rls (class-balanced targets) or rankrls "
                        "(bipartite RankRLS)")
    p.add_argument("--targets", choices=("balanced", "pm1"), default="balanced",
                   help="RLS regression targets (class-balanced or ±1)")
    p.add_argument("--alphas", default=None,
                   help="comma-separated λ grid (default 2^-10..2^8; l2svm 2^-8..2^2 "
                        "in steps of 4)")
    p.add_argument("--select", choices=("roc", "roc50"), default="roc",
                   help="leave-one-out measure that chooses λ on the training part")
    p.add_argument("--families", default=None,
                   help="comma-separated subset of family ids (default: all 54)")
    p.add_argument("--jobs", type=int, default=1, help="families evaluated at once on a local Dask cluster (threads; BLAS threads are split between them)")
    p.add_argument("--reuse", action="store_true",
                   help="benchmark: reuse OUTPUT/<config>/results.json when it was made with "
                        "the same kernel, learner, targets, λ grid and selection, for all "
                        "requested families (extra stored families are left out)")
    p.add_argument("--no-progress", action="store_true")
    p.add_argument("--output-dir", required=True)


def build_parser():
    parser = argparse.ArgumentParser(prog="homology", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    p = sub.add_parser("scop", help="one kernel on the SCOP 1.53 benchmark")
    _add_kernel_options(p)
    _add_eval_options(p)
    _add_common(p)

    p = sub.add_parser("benchmark", help="all kernels on SCOP 1.53, one comparison table")
    p.add_argument("--configs", default=",".join(c[0] for c in BENCHMARK_CONFIGS),
                   help="comma-separated subset of: "
                        + ", ".join(c[0] for c in BENCHMARK_CONFIGS))
    _add_eval_options(p)
    _add_common(p)

    p = sub.add_parser("train", help="fit a detector on your own family")
    p.add_argument("--positives", required=True, help="FASTA of family members")
    p.add_argument("--negatives", required=True, help="FASTA of non-members")
    p.add_argument("--model", required=True, help="output model file (.npz, no pickle)")
    p.add_argument("--alphas", default=None, help="comma-separated λ grid")
    p.add_argument("--learner", choices=("l2svm", "rls"), default="l2svm",
                   help="class-balanced squared-hinge SVM (default) or class-balanced RLS")
    p.add_argument("--select", choices=("roc", "roc50"), default="roc",
                   help="leave-one-out measure that chooses λ")
    _add_kernel_options(p)
    _add_common(p, data=False)

    p = sub.add_parser("predict", help="score sequences with a saved model")
    p.add_argument("--model", required=True)
    p.add_argument("--input", required=True, help="FASTA of sequences to score")
    p.add_argument("--output", required=True, help="TSV: id, score (higher = member)")
    _add_common(p, data=False)
    return parser


def _alphas(text, learner="rls"):
    from homology.benchmark import DEFAULT_ALPHAS, L2SVM_ALPHAS

    if text is None:
        return L2SVM_ALPHAS if learner == "l2svm" else DEFAULT_ALPHAS
    try:
        vals = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise InvalidParameterError(f"--alphas must be comma-separated numbers, got {text!r}")
    if not vals or any(not np.isfinite(v) or v <= 0 for v in vals):
        raise InvalidParameterError(f"--alphas must be positive numbers, got {text!r}")
    return tuple(vals)


def _families(bench, text):
    if text is None:
        return None
    fams = [f for f in text.split(",") if f]
    unknown = [f for f in fams if f not in bench.families]
    if unknown:
        raise InvalidParameterError(f"unknown SCOP families {unknown}")
    return fams


def _write_scop(out, results):
    from homology.report import cumulative_plot, scop_markdown
    from kernelrank.report import write_report

    plots = [cumulative_plot([results], out / "roc50_families.png", "roc50"),
             cumulative_plot([results], out / "roc_families.png", "roc")]
    write_report(out, "results", results, scop_markdown(results, plots))


def cmd_scop(args):
    from corpora.scop import load_scop
    from homology.benchmark import make_kernel, scop_experiment

    bench = load_scop(args.data_dir)
    opts = _kernel_options(args)
    kernel = make_kernel(args.kernel, **opts)
    results = scop_experiment(bench, kernel, args.kernel, args.learner,
                              _alphas(args.alphas, args.learner), args.jobs,
                              _families(bench, args.families),
                              not args.no_progress, args.targets, select=args.select)
    results["kernel_options"] = opts
    out = Path(args.output_dir)
    _write_scop(out, results)
    print(f"{args.kernel}/{args.learner}: mean ROC {results['mean_roc']:.3f}, mean ROC50 "
          f"{results['mean_roc50']:.3f} over {results['n_families']} families "
          f"→ {out / 'results.json'}")
    return 0


def cmd_benchmark(args):
    from corpora.scop import load_scop
    from homology.benchmark import make_kernel, scop_experiment
    from homology.report import benchmark_markdown, cumulative_plot
    from kernelrank.report import write_report

    names = [c for c in args.configs.split(",") if c]
    configs = {c[0]: c for c in BENCHMARK_CONFIGS}
    unknown = [n for n in names if n not in configs]
    if unknown:
        raise InvalidParameterError(f"unknown benchmark configs {unknown}; known: {list(configs)}")
    bench = load_scop(args.data_dir)
    families = _families(bench, args.families)
    out = Path(args.output_dir)
    all_results = []
    for name in names:
        _, kname, opts = configs[name]
        t0 = time.perf_counter()
        old = _reusable(out / name / "results.json", kname, opts, args, families, bench)
        if old is not None:
            old["config"] = name
            all_results.append(old)
            print(f"{name}: reused {out / name / 'results.json'}", flush=True)
            continue
        res = scop_experiment(bench, make_kernel(kname, **opts), kname, args.learner,
                              _alphas(args.alphas, args.learner), args.jobs, families,
                              not args.no_progress, args.targets, select=args.select)
        res["kernel_options"] = opts
        res["config"] = name
        _write_scop(out / name, res)
        all_results.append(res)
        print(f"{name}: mean ROC {res['mean_roc']:.3f}, mean ROC50 {res['mean_roc50']:.3f} "
              f"({time.perf_counter() - t0:.0f} s)", flush=True)
    plots = [cumulative_plot(all_results, out / "roc50_families.png", "roc50"),
             cumulative_plot(all_results, out / "roc_families.png", "roc")]
    summary = {"configs": [{"config": r["config"], "kernel": r["kernel"],
                            "params": r["params"], "learner": r["learner"],
                            "mean_roc": r["mean_roc"], "mean_roc50": r["mean_roc50"],
                            "seconds": r["seconds"]} for r in all_results]}
    write_report(out, "benchmark", summary, benchmark_markdown(all_results, plots))
    return 0


def _reusable(path, kname, opts, args, families, bench):
    """The stored results at ``path`` if they match this benchmark run, else None."""
    import json

    from homology.benchmark import make_kernel, kernel_params

    if not args.reuse or not path.exists():
        return None
    res = json.loads(path.read_text())
    wanted = {"kernel": kname, "learner": args.learner,
              "params": json.loads(json.dumps(kernel_params(make_kernel(kname, **opts)))),
              "alphas": [float(a) for a in np.sort(_alphas(args.alphas, args.learner))],
              "families": list(bench.families if families is None else families)}
    got = {"kernel": res.get("kernel"), "learner": res.get("learner"),
           "params": res.get("params"), "alphas": res.get("alphas")}
    if args.learner == "rls" and res.get("targets") != args.targets:
        return None
    if not res.get("selection", "").startswith(
            "leave-one-out ROC50" if args.select == "roc50" else "leave-one-out ROC area"):
        return None
    stored = {f["family"]: f for f in res.get("families", [])}
    families = wanted.pop("families")
    if got != wanted or not set(families) <= set(stored):
        return None
    # stored results of more families: keep the requested ones (each family is independent)
    if len(families) < len(stored):  # timings were of the larger run
        res["seconds"] = {"gram": None, "families": None,
                          "note": f"timed on {len(stored)} families, not reported here"}
    res["families"] = [stored[f] for f in families]
    res["n_families"] = len(families)
    res["mean_roc"] = float(np.mean([f["roc"] for f in res["families"]]))
    res["mean_roc50"] = float(np.mean([f["roc50"] for f in res["families"]]))
    return res


def cmd_train(args):
    from corpora.fasta import read_fasta
    from homology.model import save_model, train_model

    model = train_model(read_fasta(args.positives), read_fasta(args.negatives), args.kernel,
                        _kernel_options(args), _alphas(args.alphas, args.learner),
                        args.learner, args.select)
    save_model(args.model, model)
    meta = model["meta"]
    print(f"{args.learner} trained on {meta['n_positive']} positives / "
          f"{meta['n_negative']} negatives, λ={meta['alpha']:g}, leave-one-out "
          f"{'ROC' if args.select == 'roc' else 'ROC50'} {meta['loo_score']:.3f} → "
          f"{args.model}")
    return 0


def cmd_predict(args):
    from kernelrank.atomic import atomic_open
    from corpora.fasta import read_fasta
    from homology.model import load_model, predict_scores

    model = load_model(args.model)
    records = read_fasta(args.input)
    scores = predict_scores(model, [r.seq for r in records])
    with atomic_open(args.output) as handle:
        handle.write("id\tscore\n")
        for r, s in zip(records, scores):
            handle.write(f"{r.id}\t{s:.8g}\n")
    print(f"scored {len(records)} sequences → {args.output}")
    return 0


COMMANDS = {"scop": cmd_scop, "benchmark": cmd_benchmark, "train": cmd_train,
            "predict": cmd_predict}


def main(argv=None):
    return run_subcommand(build_parser(), argv, lambda args: COMMANDS[args.command](args))


if __name__ == "__main__":
    sys.exit(main())
