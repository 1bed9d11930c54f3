"""The experiments of Paper V end to end: corpora → all-paths features → evaluation → reports.

Each run reads the benchmark corpora (:func:`ppi.names.corpus_path`), featurizes them with
one :class:`Settings` — whose :class:`ppi.systems.base.System` (``settings.strategy``)
featurizes, builds the learner's input and selects — calls the protocol of
:mod:`ppi.evaluation` and writes
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

from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration
from ppi.names import corpus_path
from ppi.systems import SYSTEMS, Settings

__all__ = ["Settings", "SYSTEMS", "read_corpora", "featurize_corpora", "run_cv",
           "run_cross_corpus", "run_learning_curves", "run_benchmark", "check_no_leaky_transfer"]

log = logging.getLogger(__name__)


def prepare_corpus(corpus, settings):
    """``corpus`` with every analysis ``settings`` reads
    (:meth:`ppi.systems.base.System.prepare_corpus`: spaCy's added, cached, when the system
    reads spaCy's parse or tokens; the corpus itself otherwise)."""
    return settings.strategy.prepare_corpus(corpus)


def read_corpora(names, settings, data_dir=None):
    """The benchmark corpora ``names`` (:func:`ppi.names.corpus_path`) read and prepared for
    ``settings`` (:func:`prepare_corpus`), in order.

    Parameters
    ----------
    names : sequence of str
    settings : Settings
    data_dir : path-like or None

    Returns
    -------
    list of corpora.ppi_xml.Corpus
    """
    from corpora.ppi_xml import read_corpus

    return [prepare_corpus(read_corpus(corpus_path(data_dir, n)), settings) for n in names]


def featurize_corpora(names, settings, data_dir=None, texts=None, featurizer=None):
    """Read and featurize the corpora ``names`` with one (joint) vocabulary; ``texts``: a
    dict filled with name → {sentence id → key} (:func:`ppi.transfer.sentence_texts`);
    ``featurizer``: the (unfitted) featurizer to fit, kept by the caller (default
    ``settings.featurizer()``).

    Returns ``(datasets, kernel_fn)``: name → :class:`ppi.features.PairSet`, and
    ``kernel_fn(a, b)`` the input, for the pairs of ``a``, of the learner trained on ``b``
    (:func:`kernel_function`).
    """
    t0 = time.perf_counter()
    corpora = read_corpora(names, settings, data_dir)
    if texts is not None:
        from ppi.transfer import sentence_texts

        texts.update({n: sentence_texts(c) for n, c in zip(names, corpora)})
    featurizer = featurizer or settings.featurizer()
    sets = featurizer.fit_transform(corpora, progress=settings.progress)
    datasets = dict(zip(names, sets))
    log.info("featurized %s: %d pairs (%s)", ", ".join(names),
             sum(len(d) for d in sets), format_duration(time.perf_counter() - t0))
    return datasets, kernel_function(datasets, settings)


def kernel_function(datasets, settings, train_sets=None):
    """``kernel_fn(a, b)``: the input, for the pairs of ``datasets[a]``, of the learner
    trained on ``train_sets[b]`` (default ``datasets[b]``; :func:`ppi.evaluation.
    learner_input`): the kernel between the two, or ``a``'s sparse feature rows when
    ``b``'s Gram matrix would be too large; for ``a == b`` the training set's own input.
    Nothing is cached: a corpus' own Gram matrix lives as long as its users (the
    cross-corpus selection; the CV and then the learning curve) and is recomputed by the
    next one — about 20 s for BioInfer on 2 cores, against 0.75 GB held through the rest
    of the run."""
    system = settings.strategy
    train_sets = datasets if train_sets is None else train_sets

    def kernel_fn(a, b):
        if a == b:
            return system.learner_input(train_sets[b])
        return system.cross_input(datasets[a], train_sets[b])

    return kernel_fn


def source_models(datasets, texts, settings, trains=None, tests=None):
    """The cross-corpus evaluation with the transfer's source models (:mod:`ppi.transfer`):
    every corpus of ``trains`` trained without the sentences it shares with another corpus
    of ``datasets`` and scoring the pairs of every corpus of ``tests``.  Returns the
    :func:`ppi.evaluation.cross_corpus` result with ``scores`` and ``dropped_pairs``."""
    from ppi.transfer import leak_guarded

    guarded, dropped = leak_guarded(datasets, texts, sources=trains)
    res = settings.strategy.cross_corpus(datasets, kernel_function(datasets, settings, guarded),
                                         train_sets=guarded, trains=trains, tests=tests,
                                         keep_scores=True)
    res["dropped_pairs"] = {n: dropped[n] for n in (trains or datasets)}
    return res


def transfer_source(sources, target):
    """``(g, info)`` of ``target`` from :func:`source_models`' result: the mean of the
    source models' scores and what they were (for the report)."""
    from ppi.transfer import mean_prior

    g, names = mean_prior(sources["scores"], target)
    info = {"sources": names,
            "source_pairs": {s: sources["selection"][s]["n_train"] for s in names},
            "dropped_pairs": {s: sources["dropped_pairs"][s] for s in names},
            "source_alpha": {s: sources["selection"][s]["alpha"] for s in names},
            "source_auc": {s: sources["auc"][s][target] for s in names}}
    return g, info


def _strip(r):
    """A CV result without the per-pair arrays (kept in predictions.tsv)."""
    return {k: v for k, v in r.items() if k not in ("scores", "fold_of_pair", "y")}


def _cv(data, K, out, settings, folds, leaky, t0, feat_seconds, source=None):
    """CV of ``data`` (``source``: ``(g, info)`` of :func:`ppi.transfer.source_hypothesis`)
    and its reports."""
    from ppi import report

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
    report.plot_roc([r], written[0])
    report.write_predictions(written[1], data, r["scores"], r["fold_of_pair"])
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


def check_no_leaky_transfer(leaky):
    """Refuse transfer together with the leaky pair-level protocol (raises
    :class:`kernelrank.errors.InvalidParameterError`)."""
    if leaky:
        raise InvalidParameterError("--transfer with --leaky: the leaky pair-level protocol "
                                    "exists only to reproduce Paper V's criticism; run one "
                                    "or the other")


def _cross(datasets, kernel_fn, out, settings, t0, texts=None):
    """The cross-corpus evaluation and its report; with ``texts`` (a transfer run) the
    models are the leak-guarded source models (:func:`source_models`) and the result keeps
    their ``scores``."""
    from ppi import report

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
    """Learning curve of ``d`` on its kernel ``K`` (:func:`ppi.evaluation.learning_curve`)."""
    from ppi import report

    t0 = time.perf_counter()
    curve = settings.strategy.learning_curve(d, K, points)
    log.info("%s (%s)", report.curve_line(curve), format_duration(time.perf_counter() - t0))
    return curve


def _write_curves(curves, out, settings):
    from ppi import report

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
    from ppi import report

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
    report.plot_roc(cv, plots[0])
    md = [report.cv_markdown(cv, settings.config(), plots[:1], start=out),
          report.cross_markdown(cross, settings.config(), plots[1:2], start=out)]
    if curve_res:
        md.append(report.curve_markdown(curve_res["curves"], settings.config(), plots[2:],
                                        start=out))
    md.append(f"Featurization of all corpora (joint vocabulary): {t_feat:.0f} s; "
              f"total {res['total_seconds']:.0f} s.\n")
    return res, [*report.write_report(out, "results", res, "\n".join(md)), plots[0], *written]
