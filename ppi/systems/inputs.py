"""What a mention-level system learns from: the benchmark corpora read and prepared for its
settings, featurized in one joint vocabulary, the learner's input between them, and the
transfer's source models (Tommasi, Orabona & Caputo 2010 §3, :mod:`ppi.learning.transfer`).

Used by the parts of a system (:mod:`ppi.systems.parts`), by the experiments
(:mod:`ppi.experiments.runs`) and by training (:mod:`ppi.systems.training`); it asks the
system (``settings.strategy``) and imports none of those modules.

Cost: reading and featurizing are linear in the corpora's pairs; a kernel between corpora
``a`` and ``b`` is ``O(|a| |b|)`` in time and memory (nothing cached: a corpus' own Gram matrix
lives as long as its users and is recomputed by the next one).
"""

from __future__ import annotations

import logging
import time

from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration
from ppi.names import corpus_path

__all__ = ["prepare_corpus", "read_corpora", "featurize_corpora", "kernel_function",
           "source_models", "transfer_source", "check_no_leaky_transfer", "source_prior"]

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
    dict filled with name → {sentence id → key} (:func:`ppi.learning.transfer.sentence_texts`);
    ``featurizer``: the (unfitted) featurizer to fit, kept by the caller (default
    ``settings.featurizer()``).

    Returns ``(datasets, kernel_fn)``: name → :class:`ppi.representation.features.PairSet`, and
    ``kernel_fn(a, b)`` the input, for the pairs of ``a``, of the learner trained on ``b``
    (:func:`kernel_function`).
    """
    t0 = time.perf_counter()
    corpora = read_corpora(names, settings, data_dir)
    if texts is not None:
        from ppi.learning.transfer import sentence_texts

        texts.update({n: sentence_texts(c) for n, c in zip(names, corpora)})
    featurizer = featurizer or settings.featurizer()
    sets = featurizer.fit_transform(corpora, progress=settings.progress)
    datasets = dict(zip(names, sets))
    log.info("featurized %s: %d pairs (%s)", ", ".join(names),
             sum(len(d) for d in sets), format_duration(time.perf_counter() - t0))
    return datasets, kernel_function(datasets, settings)


def kernel_function(datasets, settings, train_sets=None):
    """``kernel_fn(a, b)``: the input, for the pairs of ``datasets[a]``, of the learner
    trained on ``train_sets[b]`` (default ``datasets[b]``; :func:`ppi.learning.evaluation.
    learner_input`): the kernel between the two, or ``a``'s sparse feature rows when
    ``b``'s Gram matrix would be too large; for ``a == b`` the training set's own input.
    Nothing is cached: a corpus' own Gram matrix lives as long as its users (the
    cross-corpus selection; the CV and then the learning curve) and is recomputed by the
    next one, rather than held, O(m²), through the rest of the run."""
    system = settings.strategy
    train_sets = datasets if train_sets is None else train_sets

    def kernel_fn(a, b):
        if a == b:
            return system.learner_input(train_sets[b])
        return system.cross_input(datasets[a], train_sets[b])

    return kernel_fn


def source_models(datasets, texts, settings, trains=None, tests=None):
    """The cross-corpus evaluation with the transfer's source models (:mod:`ppi.learning.transfer`):
    every corpus of ``trains`` trained without the sentences it shares with another corpus
    of ``datasets`` and scoring the pairs of every corpus of ``tests``.  Returns the
    :func:`ppi.learning.evaluation.cross_corpus` result with ``scores`` and ``dropped_pairs``."""
    from ppi.learning.transfer import leak_guarded

    guarded, dropped = leak_guarded(datasets, texts, sources=trains)
    res = settings.strategy.cross_corpus(datasets, kernel_function(datasets, settings, guarded),
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
    from ppi.names import CORPORA
    from ppi.learning.source_cache import source_fit
    from ppi.learning.transfer import leak_guarded, sentence_texts

    settings = system.settings
    key = corpus or "input"
    names = [n for n in (names or CORPORA) if n != corpus]
    others = read_corpora(names, settings, data_dir)
    sets = featurizer.fit_transform([target, *others], progress=system.progress)
    datasets = dict(zip([key, *names], sets))
    texts = dict(zip([key, *names], map(sentence_texts, [target, *others])))
    guarded, dropped = leak_guarded(datasets, texts, sources=names)
    kernel_fn = kernel_function(datasets, settings, guarded)
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


