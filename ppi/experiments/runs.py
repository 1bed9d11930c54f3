"""The experiments of Paper V end to end: corpora → all-paths features → evaluation → reports.

Each run reads the benchmark corpora (:func:`ppi.names.corpus_path`), featurizes them with
one :class:`Settings` — whose :class:`ppi.systems.base.System` (``settings.strategy``)
featurizes, builds the learner's input and selects — calls the protocol of
:mod:`ppi.learning.evaluation` and writes
``results.json`` + ``results.md`` (which embeds the run's PNG plots) into an output folder:

* :func:`run_cv` — 10-fold document-level CV of one corpus (Table 1), plus
  ``predictions.tsv`` and ``roc.png``;
* :func:`run_cross_corpus` — train on each corpus, test on the others (Tables 2–5);
* :func:`run_learning_curves` — AUC against training size (Figure 3);
* :func:`run_benchmark` — all three on a shared featurization (joint vocabulary), in
  ``cv/<corpus>/``, ``cross_corpus/``, ``curves/`` plus a combined report.

Every run returns ``(results, written)``: the results dictionary and the paths it wrote.
Progress: tqdm bars (``Settings.progress``, passed to every call that draws one) and one
INFO log line per finished stage on the ``ppi`` logger (the command line prints them:
``cv AIMed: F 56.3 AUC 85.3 (1:33)``).
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

from kernelrank.report import format_duration
from ppi.learning.outputs import plot_roc, write_predictions
from ppi.systems import Settings
from ppi.systems.inputs import featurize_corpora

__all__ = ["run_cv", "run_cross_corpus", "run_learning_curves", "run_benchmark"]

log = logging.getLogger(__name__)


def _strip(r):
    """A CV result without the per-pair arrays (kept in predictions.tsv)."""
    return {k: v for k, v in r.items() if k not in ("scores", "fold_of_pair", "y")}


def _cv(data, K, out, settings, folds, leaky, t0, feat_seconds, source=None):
    """CV of ``data`` (``source``: ``(g, info)`` of :func:`ppi.learning.transfer.source_hypothesis`)
    and its reports."""
    from ppi.experiments import report

    out = Path(out)
    prior, info = source or (None, None)
    r = settings.strategy.cross_validate(data, K, folds=folds, leaky=leaky, prior=prior)
    if info is not None:
        r["transfer"] = info
    r["y"] = data.y
    r["featurize_seconds"] = feat_seconds
    r["total_seconds"] = time.perf_counter() - t0
    note = settings.strategy.cv_note
    if note:
        r["note"] = note
        log.warning("%s", note)
    res = _strip(r)
    res["config"] = settings.config()
    written = [out / "roc.png", out / "predictions.tsv"]
    plot_roc([r], written[0])
    write_predictions(written[1], data, r["scores"], r["fold_of_pair"])
    md = report.cv_markdown([r], settings.config(), written[:1])
    written[:0] = report.write_report(out, "results", res,
                                      md + (f"\n**Note.** {note}\n" if note else ""))
    log.info("cv %s (%s)", report.cv_line(r), format_duration(r["total_seconds"]))
    return r, written


def run_cv(corpus, output_dir, settings=Settings(), *, data_dir=None, folds=10, leaky=False,
           sources=None):
    """Document-level ``folds``-fold CV of one corpus (``leaky``: pair-level random folds,
    for comparison only). With ``settings.transfer`` the ``sources`` (default: the other
    benchmark corpora) are read too and each trains a source model (:func:`source_models`).
    Returns ``(result, written)``; the result keeps the out-of-fold ``scores``, ``y`` and
    ``fold_of_pair`` (left out of ``results.json``)."""
    t0 = time.perf_counter()
    system = settings.strategy
    data, source = system.source.cv_inputs(system, corpus, data_dir, sources, leaky)
    K = system.learner_input(data)
    return _cv(data, K, output_dir, settings, folds, leaky, t0, time.perf_counter() - t0,
               source)


def _cross(datasets, kernel_fn, out, settings, t0, texts=None):
    """The cross-corpus evaluation and its report; with ``texts`` (a transfer run) the
    models are the leak-guarded source models (:func:`source_models`) and the result keeps
    their ``scores``."""
    from ppi.experiments import report

    out = Path(out)
    system = settings.strategy
    res = system.source.cross(system, datasets, kernel_fn, texts)
    scores = res.pop("scores", None)
    res["config"] = settings.config()
    res["published"] = report.PUBLISHED_CROSS
    res["seconds"] = time.perf_counter() - t0
    written = [out / "cross_corpus_auc.png"]
    report.plot_cross_auc(res, written[0])
    written[:0] = report.write_report(out, "results", res,
                                      report.cross_markdown(res, settings.config(), written))
    log.info("%s (%s)", report.cross_line(res), format_duration(res["seconds"]))
    if scores is not None:
        res["scores"] = scores
    return res, written


def run_cross_corpus(names, output_dir, settings=Settings(), *, data_dir=None):
    """Train on each corpus of ``names`` (λ and threshold by leave-one-document-out on it),
    test on every other one — with ``settings.transfer``, each trained without the sentences
    it shares with another corpus (the transfer's source models). Returns ``(results,
    written)``; ``results["seconds"]`` includes the featurization."""
    t0 = time.perf_counter()
    texts = settings.strategy.source.texts()
    datasets, kernel_fn = featurize_corpora(names, settings, data_dir, texts)
    res, written = _cross(datasets, kernel_fn, output_dir, settings, t0, texts)
    res.pop("scores", None)
    return res, written


def _curve(d, K, settings, points):
    """Learning curve of ``d`` on its kernel ``K`` (:func:`ppi.learning.evaluation.learning_curve`)."""
    from ppi.experiments import report

    t0 = time.perf_counter()
    curve = settings.strategy.learning_curve(d, K, points)
    log.info("%s (%s)", report.curve_line(curve), format_duration(time.perf_counter() - t0))
    return curve


def _write_curves(curves, out, settings):
    from ppi.experiments import report

    res = {"curves": curves, "config": settings.config()}
    written = [Path(out) / "learning_curves.png"]
    report.plot_learning_curves(curves, written[0])
    written[:0] = report.write_report(out, "results", res,
                                      report.curve_markdown(curves, settings.config(), written))
    return res, written


def run_learning_curves(names, output_dir, settings=Settings(), *, data_dir=None, points=8):
    """Learning curve (AUC against training pairs, ``points`` sizes) of each corpus of
    ``names``. Returns ``(results, written)``."""
    datasets, kernel_fn = featurize_corpora(names, settings, data_dir)
    curves = [_curve(d, kernel_fn(name, name), settings, points)
              for name, d in datasets.items()]
    return _write_curves(curves, output_dir, settings)


def run_benchmark(names, output_dir, settings=Settings(), *, data_dir=None, curves=True):
    """10-fold CV of every corpus of ``names``, cross-corpus evaluation and (``curves``)
    learning curves, on one featurization with a joint vocabulary. Returns
    ``(results, written)``: ``results["cv"]`` (one CV result per corpus, without the
    per-pair arrays), ``results["cross_corpus"]``, ``results["learning_curves"]``."""
    from ppi.experiments import report

    out = Path(output_dir)
    t0 = time.perf_counter()
    system = settings.strategy
    texts = system.source.texts()
    datasets, kernel_fn = featurize_corpora(names, settings, data_dir, texts)
    t_feat = time.perf_counter() - t0
    # the cross-corpus models first: with transfer they are the CVs' source models
    cross, w_cross = _cross(datasets, kernel_fn, out / "cross_corpus", settings,
                            time.perf_counter(), texts)
    sources = {"scores": cross.pop("scores", None), "selection": cross["selection"],
               "auc": cross["auc"], "dropped_pairs": cross.get("dropped_pairs")}
    cv, curve_list, written = [], [], []
    for name, d in datasets.items():
        t1 = time.perf_counter()
        source = system.source.benchmark_source(sources, name)
        K = kernel_fn(name, name)          # one Gram matrix for the CV and the curve
        r, w = _cv(d, K, out / "cv" / name, settings, 10, False, t1, 0.0, source)
        cv.append(r)
        written += w
        if curves:
            curve_list.append(_curve(d, K, settings, 8))
        del K
    written += w_cross
    curve_res = None
    if curves:
        curve_res, w = _write_curves(curve_list, out / "curves", settings)
        written += w
    res = {"cv": [_strip(r) for r in cv], "cross_corpus": cross,
           "learning_curves": curve_res, "featurize_seconds": t_feat,
           "total_seconds": time.perf_counter() - t0, "config": settings.config()}
    plots = [out / "roc.png", out / "cross_corpus" / "cross_corpus_auc.png"]
    if curve_res:
        plots.append(out / "curves" / "learning_curves.png")
    plot_roc(cv, plots[0])
    md = [report.cv_markdown(cv, settings.config(), plots[:1], start=out),
          report.cross_markdown(cross, settings.config(), plots[1:2], start=out)]
    if curve_res:
        md.append(report.curve_markdown(curve_res["curves"], settings.config(), plots[2:],
                                        start=out))
    md.append(f"Featurization of all corpora (joint vocabulary): {t_feat:.0f} s; "
              f"total {res['total_seconds']:.0f} s.\n")
    return res, [*report.write_report(out, "results", res, "\n".join(md)), plots[0], *written]
