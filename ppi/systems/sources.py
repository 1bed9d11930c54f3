"""The source part of a PPI system (:mod:`ppi.systems.base`): whether the learner fits
towards the other corpora's models — :class:`NoTransfer`, or :class:`Transfer`: hypothesis
transfer with least squares, ``f = β g + h`` (Tommasi, Orabona & Caputo 2010 §3;
:mod:`ppi.learning.transfer`), ``g`` the mean of the source models, each trained on
another benchmark corpus without the sentences it shares with another corpus of the run.

Beside the two parts, what they compute: the leak-guarded source models of a run
(:func:`source_models`) and the prior of one target (:func:`transfer_source`), the sources
of a model being trained (:func:`source_prior`, :class:`TrainingPrior`).

Cost: one selection per source corpus (that of the system's learner on its pairs; fits
cached by :mod:`ppi.learning.source_cache` when training), and one kernel block
``O(|target| × |basis|)`` per source to score the target.  Importing this module imports no
NumPy: every function imports what it uses.
"""

from __future__ import annotations

import logging
import time

from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration
from ppi.names import corpus_path

__all__ = ["NoTransfer", "Transfer", "TrainingPrior", "NO_PRIOR", "source_models",
           "transfer_source", "check_no_leaky_transfer", "source_prior"]

log = logging.getLogger(__name__)


# ----------------------------------------------------------------------------- sources
class TrainingPrior:
    """The transfer prior of a model being trained (:meth:`Transfer.training_inputs`):
    ``g``, the mean of the source models' scores of the training pairs; ``parts``, each
    source model's ``(rows, coefficients)``; ``info``, what they were (for the report)."""

    def __init__(self, g=None, parts=(), info=None):
        self.g, self.parts, self.info = g, list(parts), info

    def expand(self, Xb, coef, choice):
        """The saved model's rows and coefficients from the fit's ``(Xb, coef)`` at
        ``choice``: ``f = h_y − β h_g + β g`` with ``g`` the sources' mean — the source
        models' rows appended (weights ``β/|S| c_s``) when β > 0."""
        import numpy as np
        import scipy.sparse as sp

        beta = choice["beta"]
        coef = coef[:, 0] - beta * coef[:, 1]
        if beta:
            Xb = sp.vstack([Xb] + [X for X, _ in self.parts], format="csr")
            coef = np.concatenate([coef] + [beta / len(self.parts) * c for _, c in self.parts])
        self.info["beta"] = beta
        return Xb, coef

    def markdown(self):
        """The report's sentence on the transfer."""
        return (f"\nTransfer: f = β g + h with β = {self.info['beta']:g}, g the mean of the "
                f"models of {', '.join(self.info['sources'])} (trained without the sentences "
                "they share with another corpus).\n")


class _NoPrior(TrainingPrior):
    """No transfer: the fit is the model."""

    def expand(self, Xb, coef, choice):
        return Xb, coef

    def markdown(self):
        return ""


#: the prior of a system without transfer
NO_PRIOR = _NoPrior()


class NoTransfer:
    """Each corpus learns from its own pairs only."""

    def texts(self):
        """The sentence texts a run collects for the leak guard: none."""
        return None

    def cv_inputs(self, system, corpus, data_dir, sources, leaky):
        """``(data, None)``: the corpus featurized alone."""
        from ppi.systems.inputs import read_corpora

        (data,) = system.featurizer().fit_transform(
            read_corpora([corpus], system.settings, data_dir), progress=system.progress)
        return data, None

    def cross(self, system, datasets, kernel_fn, texts):
        """The cross-corpus evaluation (:func:`ppi.learning.evaluation.cross_corpus`)."""
        return system.cross_corpus(datasets, kernel_fn)

    def benchmark_source(self, sources, name):
        """The source hypothesis of ``name`` in a benchmark: none."""
        return None

    def training_inputs(self, system, featurizer, target, corpus, data_dir, sources):
        """``(data, NO_PRIOR)``: the training corpus featurized alone."""
        (data,) = featurizer.fit_transform([target], progress=system.progress)
        return data, NO_PRIOR


class Transfer:
    """Each corpus learns towards the mean of the other corpora's models
    (:mod:`ppi.learning.transfer`)."""

    def texts(self):
        """The sentence texts a run collects for the leak guard (filled by
        :func:`ppi.systems.inputs.featurize_corpora`)."""
        return {}

    def cv_inputs(self, system, corpus, data_dir, sources, leaky):
        """``(data, (g, info))``: the corpus featurized with the source corpora (default
        the other benchmark corpora) in one vocabulary, and the mean of their models'
        scores of its pairs (:func:`source_models`)."""
        from ppi.names import CORPORA
        from ppi.systems.inputs import featurize_corpora

        check_no_leaky_transfer(leaky)
        names = [corpus] + [n for n in (sources or CORPORA) if n != corpus]
        texts = {}
        datasets, _ = featurize_corpora(names, system.settings, data_dir, texts)
        data = datasets[corpus]
        t1 = time.perf_counter()
        models = source_models(datasets, texts, system.settings, trains=names[1:],
                               tests=[corpus])
        source = transfer_source(models, corpus)
        source[1]["seconds"] = time.perf_counter() - t1
        log.info("source models for %s: %s (%s)", corpus, ", ".join(names[1:]),
                 format_duration(source[1]["seconds"]))
        return data, source

    def cross(self, system, datasets, kernel_fn, texts):
        """The cross-corpus evaluation of the leak-guarded source models, with their
        scores (:func:`source_models`)."""
        return source_models(datasets, texts, system.settings)

    def benchmark_source(self, sources, name):
        """``(g, info)`` of ``name`` from the benchmark's cross-corpus models."""
        return transfer_source(sources, name)

    def training_inputs(self, system, featurizer, target, corpus, data_dir, sources):
        """``(data, prior)``: the training corpus featurized with the sources
        (:func:`source_prior`) and the :class:`TrainingPrior`."""
        data, g, parts, info = source_prior(system, featurizer, target, corpus, data_dir,
                                            sources)
        return data, TrainingPrior(g, parts, info)


def source_models(datasets, texts, settings, trains=None, tests=None):
    """The cross-corpus evaluation with the transfer's source models (:mod:`ppi.learning.transfer`):
    every corpus of ``trains`` trained without the sentences it shares with another corpus
    of ``datasets`` and scoring the pairs of every corpus of ``tests``.  Returns the
    :func:`ppi.learning.evaluation.cross_corpus` result with ``scores`` and ``dropped_pairs``."""
    from ppi.learning.transfer import leak_guarded

    guarded, dropped = leak_guarded(datasets, texts, sources=trains)
    system = settings.strategy
    res = system.cross_corpus(datasets, system.kernel_function(datasets, guarded),
                                         train_sets=guarded, trains=trains, tests=tests,
                                         keep_scores=True)
    res["dropped_pairs"] = {n: dropped[n] for n in (trains or datasets)}
    return res


def transfer_source(sources, target):
    """``(g, info)`` of ``target`` from :func:`source_models`' result: the mean of the
    source models' scores and what they were (for the report)."""
    from ppi.learning.transfer import mean_prior

    g, names = mean_prior(sources["scores"], target)
    info = {"sources": names,
            "source_pairs": {s: sources["selection"][s]["n_train"] for s in names},
            "dropped_pairs": {s: sources["dropped_pairs"][s] for s in names},
            "source_alpha": {s: sources["selection"][s]["alpha"] for s in names},
            "source_auc": {s: sources["auc"][s][target] for s in names}}
    return g, info


def check_no_leaky_transfer(leaky):
    """Refuse transfer together with the leaky pair-level protocol (raises
    :class:`kernelrank.errors.InvalidParameterError`)."""
    if leaky:
        raise InvalidParameterError("--transfer with --leaky: the leaky pair-level protocol "
                                    "exists only to reproduce Paper V's criticism; run one "
                                    "or the other")


def source_prior(system, featurizer, target, corpus, data_dir, names=None):
    """The transfer's sources for training ``system`` on ``target`` (:mod:`ppi.learning.transfer`):
    the other benchmark corpora (all five for a file of one's own), featurized with it in
    one vocabulary; each trained without the sentences it shares with another of them, λ
    by its own leave-one-document-out selection (the fits cached by
    :mod:`ppi.learning.source_cache`).

    Returns ``(data, g, parts, info)``: the target's pairs, the mean of the source models'
    scores of them, each source model's ``(rows, coefficients)``, and what they were."""
    import numpy as np

    from ppi.learning.evaluation import expansion
    from ppi.learning.source_cache import source_fit
    from ppi.learning.transfer import leak_guarded, sentence_texts
    from ppi.names import CORPORA
    from ppi.systems.inputs import read_corpora

    settings = system.settings
    key = corpus or "input"
    names = [n for n in (names or CORPORA) if n != corpus]
    others = read_corpora(names, settings, data_dir)
    sets = featurizer.fit_transform([target, *others], progress=system.progress)
    datasets = dict(zip([key, *names], sets))
    texts = dict(zip([key, *names], map(sentence_texts, [target, *others])))
    guarded, dropped = leak_guarded(datasets, texts, sources=names)
    kernel_fn = system.kernel_function(datasets, guarded)
    g, parts, info = 0.0, [], {"sources": names, "source_alpha": {}, "dropped_pairs": {}}
    # (the spaCy pipeline is in the key as its identity: name, version)
    cache_key = {k: v for k, v in settings.config().items() if k not in ("transfer",
                                                                         "spacy_model")}
    cache_key["spacy"] = system.spacy_identity()
    for s in names:
        d = guarded[s]

        def fit(s=s, d=d):
            sel, choice = system.select(kernel_fn(s, s), d)
            _, c = expansion(sel.model, d.X, choice["alpha"])
            basis = getattr(sel.model, "basis_indices_", None)
            return (choice["alpha"], np.arange(len(d)) if basis is None else
                    np.asarray(basis), np.asarray(c, dtype=float).ravel())

        alpha, rows, c = source_fit(s, corpus_path(data_dir, s), d, cache_key, fit, data_dir)
        basis = d.subset(rows)
        g = g + system.top.kernel(datasets[key], basis) @ c
        parts.append((basis.X, c))
        info["source_alpha"][s] = alpha
        info["dropped_pairs"][s] = dropped[s]
    return datasets[key], g / len(names), parts, info


