"""The experiments of Paper V end to end: corpora → all-paths features → evaluation → reports.

Each run reads the benchmark corpora (:func:`ppi.names.corpus_path`), featurizes them with
one :class:`Settings`, calls the protocol of :mod:`ppi.evaluation` and writes
``results.json`` + ``results.md`` (which embeds the run's PNG plots) into an output folder:

* :func:`run_cv` — 10-fold document-level CV of one corpus (Table 1), plus
  ``predictions.tsv`` and ``roc.png``;
* :func:`run_cross_corpus` — train on each corpus, test on the others (Tables 2–5);
* :func:`run_learning_curves` — AUC against training size (Figure 3);
* :func:`run_benchmark` — all three on a shared featurization (joint vocabulary), in
  ``cv/<corpus>/``, ``cross_corpus/``, ``curves/`` plus a combined report.

Every run returns ``(results, written)``: the results dictionary and the paths it wrote.
Progress: tqdm bars (``Settings.progress``) and one INFO log line per finished stage on the
``ppi`` logger (the command line prints them: ``cv AIMed: F 56.3 AUC 85.3 (1:33)``).
"""

from __future__ import annotations

import contextlib
import logging
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration
from ppi.names import N_BASIS, corpus_path

__all__ = ["Settings", "read_corpora", "featurize_corpora", "run_cv", "run_cross_corpus",
           "run_learning_curves", "run_benchmark"]

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Settings:
    """Featurization and learner of a run (the command line's model options).

    ``config()`` is the configuration recorded in every report.
    """

    variant: str = "max"
    parse: str = "split_parse"
    order: str = "pair"
    endpoints: str = "all"
    select_by: str = "f1"
    learner: str = "reduced_set"
    n_basis: int = N_BASIS
    seed: int = 0
    hash_features: int | None = None
    normalize: bool = True
    jobs: int = 1
    progress: bool = True

    views: tuple | None = None
    system: str | None = None
    #: None: the (sum of the views') kernel itself; γ > 0: its Gaussian
    #: (:func:`learners.kernels.gaussian_of`)
    gamma: float | None = None
    #: the λ grid of the nested selection; None: :data:`ppi.evaluation.ALPHAS`
    alphas: tuple | None = None
    #: CV towards a source hypothesis trained on the other benchmark corpora
    #: (:mod:`ppi.transfer`)
    transfer: bool = False
    #: whose tokens the ``bow`` and ``local`` views read (``spacy`` for the ``text`` system)
    bow_parse: str = "split_parse"

    def __post_init__(self):
        if self.alphas is not None:
            a = np.asarray(self.alphas, dtype=float).ravel()
            if a.size == 0 or not np.all(np.isfinite(a)) or np.any(a <= 0):
                raise InvalidParameterError(f"alphas {list(self.alphas)}: give one or more "
                                            "positive, finite regularization parameters")
            object.__setattr__(self, "alphas", tuple(float(x) for x in np.unique(a)))

    @property
    def alpha_grid(self):
        """The λ grid as an array (:data:`ppi.evaluation.ALPHAS` when ``alphas`` is None)."""
        from ppi.evaluation import ALPHAS

        return ALPHAS if self.alphas is None else np.asarray(self.alphas)

    @classmethod
    def for_system(cls, system=None, **options):
        """The settings of a named system (:data:`ppi.names.SYSTEMS`; default
        :data:`ppi.names.DEFAULT_SYSTEM`), with every option that is not None overriding it.
        The dataclass' own defaults are Paper V's."""
        from ppi.names import DEFAULT_SYSTEM, SYSTEMS

        system = system or DEFAULT_SYSTEM
        if system not in SYSTEMS:
            raise InvalidParameterError(f"system={system!r}; choose one of {sorted(SYSTEMS)}")
        values = dict(SYSTEMS[system])
        values.update({k: v for k, v in options.items() if v is not None})
        if values.get("views") is not None:
            values["views"] = tuple(values["views"])
        if values.get("gamma") == 0:
            values["gamma"] = None          # --gamma 0: the linear kernel itself
        return cls(system=system, **values)

    def featurizer(self):
        """Paper V's :class:`ppi.features.PairFeaturizer` (the all-paths kernel on ``parse``)
        when ``views`` is None or that one view, else a
        :class:`ppi.views.MultiViewFeaturizer` of ``views``."""
        from ppi.features import PairFeaturizer
        from ppi.graphs import GraphSettings

        graph = GraphSettings(order=self.order, endpoints=self.endpoints)
        if self.views is None or tuple(self.views) == (f"apg:{self.parse}",):
            return PairFeaturizer(parse=self.parse, variant=self.variant,
                                  normalize=self.normalize, n_features=self.hash_features,
                                  settings=graph)
        from ppi.views import MultiViewFeaturizer

        if not self.normalize:
            raise InvalidParameterError("several views are combined as a sum of normalized "
                                        "kernels; --no-normalize applies to one view only")
        return MultiViewFeaturizer(self.views, variant=self.variant, settings=graph,
                                   n_features=self.hash_features, bow_parse=self.bow_parse)

    def parses(self):
        """The canonical parse names of ``views`` (:func:`ppi.views.view_parses`), or
        ``parse`` when ``views`` is None."""
        from corpora.ppi_xml import resolve_parse_name
        from ppi.views import view_parses

        if self.views is None:
            return (resolve_parse_name(self.parse),)
        return view_parses(self.views)

    def config(self):
        return {"system": self.system, "variant": self.variant, "parse": self.parse,
                "order": self.order,
                "endpoints": self.endpoints, "select_by": self.select_by,
                "views": list(self.views or (f"apg:{self.parse}",)),
                "learner": self.learner, "n_basis": self.n_basis, "seed": self.seed,
                "hash_features": self.hash_features, "gamma": self.gamma,
                "alphas": self.alpha_grid.tolist(), "transfer": self.transfer,
                "bow_parse": self.bow_parse}


@contextlib.contextmanager
def _progress(enabled):
    """:mod:`ppi.evaluation`'s progress bars on or off for the block."""
    import ppi.evaluation as evaluation

    saved, evaluation.PROGRESS = evaluation.PROGRESS, enabled
    try:
        yield
    finally:
        evaluation.PROGRESS = saved


def prepare_corpus(corpus, settings):
    """``corpus`` with every analysis ``settings`` reads: spaCy's
    (:func:`ppi.spacy_analyses.add_spacy_analyses`, cached) added when a view or ``--parse``
    names ``spacy``; the corpus itself otherwise."""
    from ppi.spacy_analyses import SPACY_PARSE, add_spacy_analyses

    if SPACY_PARSE in settings.parses() or (settings.views is not None and
                                            settings.bow_parse == SPACY_PARSE):
        add_spacy_analyses(corpus)
    return corpus


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
    from ppi.evaluation import learner_input, uses_feature_rows
    from ppi.features import kernel

    train_sets = datasets if train_sets is None else train_sets

    def kernel_fn(a, b):
        tb = train_sets[b]
        if a == b:
            return learner_input(tb, settings.learner, settings.n_basis, gamma=settings.gamma)
        if uses_feature_rows(tb, settings.learner, settings.n_basis):
            return datasets[a].X
        return kernel(datasets[a], tb, gamma=settings.gamma)

    return kernel_fn


def source_models(datasets, texts, settings, trains=None, tests=None):
    """The cross-corpus evaluation with the transfer's source models (:mod:`ppi.transfer`):
    every corpus of ``trains`` trained without the sentences it shares with another corpus
    of ``datasets`` and scoring the pairs of every corpus of ``tests``.  Returns the
    :func:`ppi.evaluation.cross_corpus` result with ``scores`` and ``dropped_pairs``."""
    from ppi.evaluation import cross_corpus
    from ppi.transfer import leak_guarded

    guarded, dropped = leak_guarded(datasets, texts, sources=trains)
    with _progress(settings.progress):
        res = cross_corpus(datasets, kernel_function(datasets, settings, guarded),
                           alphas=settings.alpha_grid, learner=settings.learner,
                           n_basis=settings.n_basis, seed=settings.seed, jobs=settings.jobs,
                           select_by=settings.select_by, train_sets=guarded, trains=trains,
                           tests=tests, keep_scores=True)
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
    from ppi.evaluation import cross_validate

    out = Path(out)
    with _progress(settings.progress):
        r = cross_validate(data, K, n_folds=folds, alphas=settings.alpha_grid,
                           learner=settings.learner,
                           n_basis=settings.n_basis, seed=settings.seed, leaky=leaky,
                           jobs=settings.jobs, select_by=settings.select_by,
                           prior=None if source is None else source[0])
    if source is not None:
        r["transfer"] = source[1]
    r["y"] = data.y
    r["featurize_seconds"] = feat_seconds
    r["total_seconds"] = time.perf_counter() - t0
    res = _strip(r)
    res["config"] = settings.config()
    written = [out / "roc.png", out / "predictions.tsv"]
    report.plot_roc([r], written[0])
    report.write_predictions(written[1], data, r["scores"], r["fold_of_pair"])
    written[:0] = report.write_report(out, "results", res,
                                      report.cv_markdown([r], settings.config(), written[:1]))
    log.info("cv %s (%s)", report.cv_line(r), format_duration(r["total_seconds"]))
    return r, written


def run_cv(corpus, output_dir, settings=Settings(), *, data_dir=None, folds=10, leaky=False,
           sources=None):
    """Document-level ``folds``-fold CV of one corpus (``leaky``: pair-level random folds,
    for comparison only). With ``settings.transfer`` the ``sources`` (default: the other
    benchmark corpora) are read too and each trains a source model (:func:`source_models`).
    Returns ``(result, written)``; the result keeps the out-of-fold ``scores``, ``y`` and
    ``fold_of_pair`` (left out of ``results.json``)."""
    from ppi.evaluation import learner_input

    t0 = time.perf_counter()
    source = None
    if settings.transfer:
        _no_leaky_transfer(leaky)
        from ppi.names import CORPORA

        names = [corpus] + [n for n in (sources or CORPORA) if n != corpus]
        texts = {}
        datasets, _ = featurize_corpora(names, settings, data_dir, texts)
        data = datasets[corpus]
        t1 = time.perf_counter()
        sources = source_models(datasets, texts, settings, trains=names[1:], tests=[corpus])
        source = transfer_source(sources, corpus)
        source[1]["seconds"] = time.perf_counter() - t1
        log.info("source models for %s: %s (%s)", corpus, ", ".join(names[1:]),
                 format_duration(source[1]["seconds"]))
        del datasets, texts, sources
    else:
        (data,) = settings.featurizer().fit_transform(
            read_corpora([corpus], settings, data_dir), progress=settings.progress)
    K = learner_input(data, settings.learner, settings.n_basis, gamma=settings.gamma)
    return _cv(data, K, output_dir, settings, folds, leaky, t0, time.perf_counter() - t0,
               source)


def _no_leaky_transfer(leaky):
    if leaky:
        raise InvalidParameterError("--transfer with --leaky: the leaky pair-level protocol "
                                    "exists only to reproduce Paper V's criticism; run one "
                                    "or the other")


def _cross(datasets, kernel_fn, out, settings, t0, texts=None):
    """The cross-corpus evaluation and its report; with ``texts`` (a transfer run) the
    models are the leak-guarded source models (:func:`source_models`) and the result keeps
    their ``scores``."""
    from ppi import report
    from ppi.evaluation import cross_corpus

    out = Path(out)
    if texts is not None:
        res = source_models(datasets, texts, settings)
    else:
        with _progress(settings.progress):
            res = cross_corpus(datasets, kernel_fn, alphas=settings.alpha_grid,
                               learner=settings.learner, n_basis=settings.n_basis,
                               seed=settings.seed, jobs=settings.jobs,
                               select_by=settings.select_by)
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
    texts = {} if settings.transfer else None
    datasets, kernel_fn = featurize_corpora(names, settings, data_dir, texts)
    res, written = _cross(datasets, kernel_fn, output_dir, settings, t0, texts)
    res.pop("scores", None)
    return res, written


def _curve(d, K, settings, points):
    """Learning curve of ``d`` on its kernel ``K`` (:func:`ppi.evaluation.learning_curve`)."""
    from ppi import report
    from ppi.evaluation import learning_curve

    t0 = time.perf_counter()
    with _progress(settings.progress):
        curve = learning_curve(d, K, n_points=points, alphas=settings.alpha_grid,
                               learner=settings.learner, n_basis=settings.n_basis,
                               seed=settings.seed, select_by=settings.select_by)
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
    texts = {} if settings.transfer else None
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
        source = transfer_source(sources, name) if settings.transfer else None
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
