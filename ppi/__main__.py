"""Command line of kernelrank.ppi: protein–protein interaction extraction with the all-paths
graph kernel (Airola et al. 2008, Paper V).

  python -m ppi cv --corpus AIMed            10-fold document-level CV (Table 1)
  python -m ppi cross-corpus                 train on one corpus, test on the others (Tables 2–5)
  python -m ppi learning-curve               AUC against training size (Figure 3)
  python -m ppi benchmark                    all of the above on the five corpora
  python -m ppi train --corpus LLL --model M save a model (JSON + npz, no pickle)
  python -m ppi predict --input F --model M  score the candidate pairs of a corpus file

Corpora are read from <data-dir>/ppi/<NAME>-learning-format.xml.gz (--data-dir, else
$KERNELRANK_DATA). Every command writes JSON + Markdown (+ PNG) to --output-dir.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

from kernelrank.datadir import require_file
from corpora.ppi_xml import read_corpus
from kernelrank.cli import run_subcommand
from ppi import report
from ppi.extract import add_extract_parser, run_extract
from ppi.evaluation import (ALPHAS, LEARNERS, N_BASIS, cross_corpus, cross_validate,
                            learning_curve, select_parameters)
from ppi.features import PairFeaturizer, kernel
from ppi.graphs import GraphSettings

CORPORA = report.CORPORA


def corpus_path(data_dir, name):
    return require_file(data_dir, f"ppi/{name}-learning-format.xml.gz", "ppi")


def _common(p):
    p.add_argument("--data-dir", default=None, help="data folder (default: $KERNELRANK_DATA)")
    p.add_argument("--output-dir", default="ppi-results", help="where reports are written")
    p.add_argument("--seed", type=int, default=0, help="fold tie-breaking, basis vectors")
    p.add_argument("--jobs", type=int, default=1,
                   help="run folds / corpora in parallel in a local Dask cluster (threads)")
    p.add_argument("--blas-threads", type=int, default=None,
                   help="BLAS threads per job (default: the machine's cores divided by --jobs)")
    p.add_argument("--variant", choices=("max", "sum"), default="max",
                   help="G = max_kl L W Lᵀ terms (errata, published) or G = L W Lᵀ (paper)")
    p.add_argument("--parse", choices=("split_parse", "split", "Charniak-Lease"),
                   default="split_parse", help="dependency analysis to use")
    p.add_argument("--order", choices=("pair", "text"), default="pair",
                   help="pair (default, the published code): PROT1 = the pair's e1, position "
                        "tags relative to e1/e2; text: PROT1 = first protein in the sentence, "
                        "tokens between the proteins tagged 'middle' (better cross-corpus)")
    p.add_argument("--learner", choices=LEARNERS, default="reduced_set",
                   help="reduced_set (default; Paper V's sparse RLS: ≤ --n-basis random basis "
                        "vectors, identical to full RLS when the training set is not larger) "
                        "or rls (full-kernel RLS: one m×m eigendecomposition per fold)")
    p.add_argument("--n-basis", type=int, default=N_BASIS,
                   help=f"basis vectors of the reduced-set learner (default {N_BASIS}; Paper V "
                        "used at most 4000 — same results within fold noise, twice the time)")
    p.add_argument("--hash-features", type=int, default=None, metavar="N",
                   help="feature hashing into N columns instead of a fitted vocabulary")
    p.add_argument("--no-normalize", action="store_true", help="do not unit-normalize")
    p.add_argument("--quiet", action="store_true", help="no progress bars")


def build_parser():
    parser = argparse.ArgumentParser(prog="ppi", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("cv", help="10-fold document-level cross-validation on one corpus")
    _common(p)
    p.add_argument("--corpus", required=True, choices=CORPORA)
    p.add_argument("--folds", type=int, default=10)
    p.add_argument("--leaky", action="store_true",
                   help="LEAKY pair-level random folds (for comparison only, thesis §5.5)")
    p = sub.add_parser("cross-corpus", help="train on each corpus, test on the others")
    _common(p)
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p = sub.add_parser("learning-curve", help="AUC against training-set size")
    _common(p)
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p.add_argument("--points", type=int, default=8)
    p = sub.add_parser("benchmark", help="cv on all five corpora + cross-corpus + curves")
    _common(p)
    p.add_argument("--corpora", nargs="+", choices=CORPORA, default=list(CORPORA))
    p.add_argument("--no-curves", action="store_true", help="skip the learning curves")
    p = sub.add_parser("train", help="train on a corpus and save the model")
    _common(p)
    g = p.add_mutually_exclusive_group(required=True)
    g.add_argument("--corpus", choices=CORPORA)
    g.add_argument("--input", help="a learning-format XML file (gz or plain)")
    p.add_argument("--model", required=True, help="model directory to write")
    p = sub.add_parser("predict", help="score candidate pairs with a saved model")
    p.add_argument("--input", required=True, help="a learning-format XML file (gz or plain)")
    p.add_argument("--model", required=True, help="model directory (from `ppi train`)")
    p.add_argument("--output-dir", default="ppi-predictions")
    p.add_argument("--blas-threads", type=int, default=None,
                   help="BLAS threads (default: the machine's cores)")
    p.add_argument("--quiet", action="store_true")
    add_extract_parser(sub)
    return parser


def _featurizer(args):
    return PairFeaturizer(parse=args.parse, variant=args.variant,
                          normalize=not args.no_normalize, n_features=args.hash_features,
                          settings=GraphSettings(order=args.order))


def _config(args, **extra):
    keys = ("variant", "parse", "order", "learner", "n_basis", "seed", "hash_features")
    c = {k: getattr(args, k) for k in keys if hasattr(args, k)}
    c.update(extra)
    return c


def _load(args, names):
    corpora = []
    for n in names:
        corpora.append(read_corpus(corpus_path(args.data_dir, n)))
    return corpora


def _strip(r):
    """A CV result without the per-pair arrays (kept in predictions.tsv)."""
    return {k: v for k, v in r.items() if k not in ("scores", "fold_of_pair", "y")}


def _write_predictions(path, data, scores, fold=None):
    from kernelrank.atomic import write_text
    lines = ["pair_id\tdocument_id\tfold\tlabel\tscore"]
    for i in range(len(data)):
        f = "" if fold is None else str(int(fold[i]))
        lines.append(f"{data.pair_ids[i]}\t{data.document_ids[i]}\t{f}\t"
                     f"{int(data.y[i] > 0)}\t{scores[i]:.6g}")
    write_text(path, "\n".join(lines) + "\n")


def run_cv(args, data=None, K=None, out=None):
    out = Path(out or args.output_dir)
    t0 = time.perf_counter()
    feat_seconds = 0.0
    if data is None:
        (corpus,) = _load(args, [args.corpus])
        f = _featurizer(args)
        (data,) = f.fit_transform([corpus], progress=not args.quiet)
        K = kernel(data)
        feat_seconds = time.perf_counter() - t0
    r = cross_validate(data, K, n_folds=getattr(args, "folds", 10), alphas=ALPHAS,
                       learner=args.learner, n_basis=args.n_basis, seed=args.seed,
                       leaky=getattr(args, "leaky", False), jobs=args.jobs)
    r["y"] = data.y
    r["featurize_seconds"] = feat_seconds
    r["total_seconds"] = time.perf_counter() - t0
    res = _strip(r)
    res["config"] = _config(args)
    report.write_report(out, "results", res, report.cv_markdown([r], _config(args)))
    _write_predictions(out / "predictions.tsv", data, r["scores"], r["fold_of_pair"])
    report.plot_roc([r], out / "roc.png")
    return r


def _joint(args, names):
    corpora = _load(args, names)
    f = _featurizer(args)
    sets = f.fit_transform(corpora, progress=not args.quiet)
    datasets = dict(zip(names, sets))
    cache = {}

    def kernel_fn(a, b):
        if (a, b) not in cache:
            K = kernel(datasets[a], datasets[b])
            if a != b:
                return K
            cache[a, b] = K
        return cache[a, b]
    return datasets, kernel_fn


def run_cross(args, datasets=None, kernel_fn=None, out=None):
    out = Path(out or args.output_dir)
    t0 = time.perf_counter()
    if datasets is None:
        datasets, kernel_fn = _joint(args, args.corpora)
    res = cross_corpus(datasets, kernel_fn, alphas=ALPHAS, learner=args.learner,
                       n_basis=args.n_basis, seed=args.seed, jobs=args.jobs)
    res["config"] = _config(args)
    res["published"] = report.PUBLISHED_CROSS
    res["seconds"] = time.perf_counter() - t0
    report.write_report(out, "cross_corpus", res, report.cross_markdown(res, _config(args)))
    report.plot_cross_auc(res, out / "cross_corpus_auc.png")
    return res


def run_curves(args, datasets=None, kernel_fn=None, out=None):
    out = Path(out or args.output_dir)
    if datasets is None:
        datasets, kernel_fn = _joint(args, args.corpora)
    curves = [learning_curve(d, kernel_fn(n, n), n_points=getattr(args, "points", 8),
                             learner=args.learner, n_basis=args.n_basis, seed=args.seed)
              for n, d in datasets.items()]
    res = {"curves": curves, "config": _config(args)}
    report.write_report(out, "learning_curves", res,
                        report.curve_markdown(curves, _config(args)))
    report.plot_learning_curves(curves, out / "learning_curves.png")
    return res


def run_benchmark(args):
    out = Path(args.output_dir)
    t0 = time.perf_counter()
    datasets, kernel_fn = _joint(args, args.corpora)
    t_feat = time.perf_counter() - t0
    cv = []
    for name, d in datasets.items():
        args.folds = 10
        r = run_cv(args, d, kernel_fn(name, name), out / "cv" / name)
        cv.append(r)
    cross = run_cross(args, datasets, kernel_fn, out / "cross_corpus")
    curves = None if args.no_curves else run_curves(args, datasets, kernel_fn, out / "curves")
    res = {"cv": [_strip(r) for r in cv], "cross_corpus": cross,
           "learning_curves": curves, "featurize_seconds": t_feat,
           "total_seconds": time.perf_counter() - t0, "config": _config(args)}
    md = [report.cv_markdown(cv, _config(args)), report.cross_markdown(cross, _config(args))]
    if curves:
        md.append(report.curve_markdown(curves["curves"], _config(args)))
    md.append(f"Featurization of all corpora (joint vocabulary): {t_feat:.0f} s; "
              f"total {res['total_seconds']:.0f} s.\n")
    report.write_report(out, "benchmark", res, "\n".join(md))
    report.plot_roc(cv, out / "roc.png")
    return res


def run_train(args):
    from ppi.model import PPIModel
    path = corpus_path(args.data_dir, args.corpus) if args.corpus else Path(args.input)
    corpus = read_corpus(path)
    f = _featurizer(args)
    (data,) = f.fit_transform([corpus], progress=not args.quiet)
    K = kernel(data)
    sel, choice = select_parameters(K, data.y, data.document_ids, ALPHAS, args.learner,
                                    args.n_basis, args.seed)
    model = sel.model
    coef = np.asarray(model.regularization_path([choice["alpha"]]))[0]
    basis = getattr(model, "basis_indices_", None)
    Xb = data.X if basis is None else data.X[basis]
    training = {"corpus": corpus.source, "file": str(path), "n_pairs": len(data),
                "inner_f1": choice["f1"]}
    m = PPIModel.from_fit(f, Xb, coef, choice["alpha"], choice["threshold"], args.learner,
                          training)
    m.save(args.model)
    res = {"model": str(args.model), "alpha": choice["alpha"], "threshold": choice["threshold"],
           "inner_loo_document_f1": choice["f1"], "training": training, "config": _config(args)}
    md = (f"# PPI model trained on {corpus.source}\n\nλ = {choice['alpha']:g}, threshold = "
          f"{choice['threshold']:.4g} (leave-one-document-out F = {100 * choice['f1']:.1f}).\n"
          f"Saved to `{args.model}`.\n")
    report.write_report(args.output_dir, "train", res, md)
    return res


def run_predict(args):
    from learners.measures import auc, precision_recall_f1
    from ppi.model import PPIModel
    m = PPIModel.load(args.model)
    corpus = read_corpus(args.input)
    data, s, pred = m.predict(corpus)
    out = Path(args.output_dir)
    _write_predictions(out / "predictions.tsv", data, s)
    res = {"model": str(args.model), "input": str(args.input), "n_pairs": len(data),
           "n_predicted_positive": int(pred.sum()), "threshold": m.threshold}
    if len(np.unique(data.y)) == 2:
        prf = precision_recall_f1(data.y, s, m.threshold)
        res.update(precision=prf.precision, recall=prf.recall, f1=prf.f1, auc=auc(data.y, s))
    md = "# PPI predictions\n\n" + "\n".join(f"- {k}: {v}" for k, v in res.items()) + "\n"
    report.write_report(out, "predict", res, md)
    return res


COMMANDS = {"cv": run_cv, "cross-corpus": run_cross, "learning-curve": run_curves,
            "benchmark": run_benchmark, "train": run_train, "predict": run_predict,
            "extract": run_extract}


def main(argv=None):
    return run_subcommand(build_parser(), argv, _run)


def _run(args):
    from threadpoolctl import threadpool_limits

    if getattr(args, "quiet", False):
        import ppi.evaluation
        ppi.evaluation.PROGRESS = False
    threads = args.blas_threads
    if threads is None:
        threads = (os.cpu_count() or 1) // max(1, getattr(args, "jobs", 1) or 1)
    with threadpool_limits(max(1, threads)):
        COMMANDS[args.command](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
