"""Transfer from the other corpora (the ``multicorpus`` system; ``--transfer``).

The five benchmark corpora annotate the same relation under different guidelines; a
corpus' own training folds are small (LLL: 330 pairs).  Following hypothesis transfer with
least squares (Tommasi, Orabona & Caputo 2010, CVPR §3, and its multi-source form, "Safety
in numbers": one prior model per source; :mod:`learners.transfer`), the **source
hypothesis** ``g`` of a target corpus is the mean of the **source models** — the same
system (views, kernel, learner) trained on each *other* corpus of the run, its λ chosen by
leave-one-document-out AUC on that corpus — ::

    g(x) = (1 / |S|) Σ_{s∈S} f_s(x),

and each training part of the target fits

    f = β g + h,   h the RLS fit to y − β g      (min Σ (y − f)² + λ ‖f − β g‖²),

(λ, β) chosen together by the pooled inner leave-one-document-out AUC (β from
:data:`ppi.names.BETAS`; β = 0 is the system without transfer, so the selection can refuse
the sources), the threshold by best inner F there — all from one decomposition per fold
(:class:`learners.transfer.TransferRLS`).  Averaging the models rather than training one
model on the union of the sources: the small corpora count as much as the large ones (on
LLL, HPRD50 and IEPA the mean of the four models ranks the target's pairs better than the
union model did: AUC 93.1 / 86.9 / 88.2 against 88.9 / 84.9 / 85.7; on AIMed 78.0 against
80.1), and the source models are the models of the cross-corpus evaluation, which the
benchmark trains anyway (:func:`ppi.experiments.runs.run_benchmark` runs it first and reuses its
predictions).

No label of a test fold reaches the prediction: the source models are trained on other
corpora only, and every pair whose sentence also occurs in another corpus of the run is left
out of its corpus' source model (:func:`leak_guarded`) — sentences compared by their
letters and digits, lower-cased (:func:`sentence_key`), so that a copy tokenized or
punctuated differently still matches.  On the five corpora: 61 AIMed pairs (5 sentences
shared with BioInfer, 2 with HPRD50), 60 BioInfer pairs, 2 HPRD50 pairs; none of IEPA and
LLL (whitespace-normalized text alone missed one BioInfer sentence and both HPRD50 ones).
The cross-corpus table of a transfer run is computed with the same guarded models.

Cost: one selection per source corpus (the cross-corpus evaluation's), then the target's
CV with two target columns instead of one.
"""

from __future__ import annotations

import numpy as np

from kernelrank.errors import InvalidParameterError
from ppi.names import BETAS

__all__ = ["BETAS", "sentence_key", "sentence_texts", "leak_guarded", "mean_prior"]


def sentence_key(text):
    """The leak guard's key of a sentence: its letters and digits, lower-cased (spacing,
    punctuation and hyphenation differ between the corpora's copies of one sentence)."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def sentence_texts(corpus):
    """Sentence id → :func:`sentence_key` of its text."""
    return {s.id: sentence_key(s.text) for d in corpus.documents for s in d.sentences}


def leak_guarded(datasets, texts, sources=None):
    """Each corpus without the pairs whose sentence occurs in another corpus of
    ``datasets`` — what its source model trains on.

    Parameters
    ----------
    datasets : dict name → :class:`ppi.representation.features.PairSet`
    texts : dict name → {sentence id → key} (:func:`sentence_texts`)
    sources : iterable of names, optional
        The corpora that will train a source model (default all): each must keep
        positive and negative pairs, else :class:`InvalidParameterError` (e.g. a training
        file that holds a copy of a source corpus).

    Returns
    -------
    guarded : dict name → PairSet (the corpus' own object when nothing is dropped)
    dropped : dict name → number of pairs left out
    """
    guarded, dropped = {}, {}
    for name, d in datasets.items():
        others = set()
        for other, t in texts.items():
            if other != name and other in datasets:
                others.update(t.values())
        own = texts[name]
        keep = np.fromiter((own[s] not in others for s in d.sentence_ids.astype(str)),
                           dtype=bool, count=len(d))
        dropped[name] = int((~keep).sum())
        guarded[name] = d if keep.all() else d.subset(np.flatnonzero(keep))
    for name in datasets if sources is None else sources:
        if len(np.unique(guarded[name].y)) < 2:
            raise InvalidParameterError(
                f"transfer source {name}: {dropped[name]} of its {len(datasets[name])} pairs "
                "are in sentences another corpus of the run holds, and what is left has "
                "one class only; leave it out of --sources, or use --no-transfer")
    return guarded, dropped


def mean_prior(scores, target):
    """``g`` on ``target``'s pairs: the mean of the source models' scores.

    Parameters
    ----------
    scores : dict source → {target → ndarray of scores} (the cross-corpus predictions)
    target : str

    Returns
    -------
    g : ndarray (m,)
    sources : list of str — the corpora whose models were averaged
    """
    sources = [s for s, by_target in scores.items() if s != target and target in by_target]
    if not sources:
        raise InvalidParameterError(f"transfer to {target}: no other corpus in the run to "
                                    "learn from; give more corpora or --no-transfer")
    return np.mean([scores[s][target] for s in sources], axis=0), sources
