"""What a mention-level system learns from: the benchmark corpora read and prepared for its
settings and featurized in one joint vocabulary, with the learner's input between them
(:meth:`ppi.systems.base.System.kernel_function`).

Used by the sources of a system (:mod:`ppi.systems.sources`), by the experiments
(:mod:`ppi.experiments.runs`) and by training (:mod:`ppi.systems.training`); it asks the
system (``settings.strategy``) and imports none of those modules.

Cost: reading and featurizing are linear in the corpora's pairs.
"""

from __future__ import annotations

import logging
import time

from kernelrank.report import format_duration
from ppi.names import corpus_path

__all__ = ["prepare_corpus", "read_corpora", "featurize_corpora"]

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
    (:meth:`ppi.systems.base.System.kernel_function`).
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
    return datasets, settings.strategy.kernel_function(datasets)




