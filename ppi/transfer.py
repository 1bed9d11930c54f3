"""Transfer from the other corpora (``ppi cv --transfer``, ``ppi benchmark --transfer``).

The five benchmark corpora annotate the same relation under different guidelines; a
corpus' own training folds are small (LLL: 330 pairs). Following hypothesis transfer with
least squares (Tommasi, Orabona & Caputo 2010, CVPR §3; :mod:`learners.transfer`), a
**source hypothesis** ``g`` — the same system trained on the union of the *other* corpora —
is a prior the in-corpus model adapts:

    f = β g + h,   h the RLS fit to y − β g      (min Σ (y − f)² + λ ‖f − β g‖²),

and (λ, β) are chosen together by the pooled inner leave-one-document-out AUC of each
training part (β from :data:`ppi.names.BETAS`; β = 0 is the system without transfer, so
the selection can refuse the source), the threshold by best inner F there — from one
decomposition per fold (:class:`learners.transfer.TransferRLS`).

No label of a test fold reaches the prediction: ``g`` is trained on other corpora only,
and a source pair whose sentence also occurs anywhere in the target corpus is left out of
``g``'s training — sentences compared by their letters and digits, lower-cased, so that a
copy tokenized or punctuated differently still matches (counted in the results: for AIMed
60 pairs of 5 BioInfer sentences and 2 of 2 HPRD50 sentences; for BioInfer and HPRD50 the
AIMed pairs of the same sentences; none for IEPA and LLL; whitespace-normalized text alone
missed one BioInfer and both HPRD50 sentences). ``g``'s λ is chosen by the pooled
leave-one-document-out AUC over the source documents; its learner is reduced-set RLS on the
sources' feature rows above :data:`ppi.names.N_BASIS` pairs (always, for the five
corpora: 11,192–16,750 source pairs), memory O(m r).

Measured (issue 14; ``python -m benchmarks.exp_ppi_transfer``, README): F / AUC +4.4 / +3.7
on LLL, +0.4 / +1.5 IEPA, −0.8 / +1.1 HPRD50, +1.2 / +0.6 AIMed.
"""

from __future__ import annotations

import logging
import time

import numpy as np
import scipy.sparse as sp

from kernelrank.report import format_duration
from ppi.names import BETAS

__all__ = ["BETAS", "sentence_key", "sentence_texts", "source_hypothesis"]

log = logging.getLogger(__name__)


def sentence_key(text):
    """The leak guard's key of a sentence: its letters and digits, lower-cased (spacing,
    punctuation and hyphenation differ between the corpora's copies of one sentence)."""
    return "".join(ch for ch in text.lower() if ch.isalnum())


def sentence_texts(corpus):
    """Sentence id → :func:`sentence_key` of its text."""
    return {s.id: sentence_key(s.text) for d in corpus.documents for s in d.sentences}


def source_hypothesis(datasets, texts, target, settings):
    """Scores of ``target``'s pairs by the system trained on every other corpus of
    ``datasets`` (one joint vocabulary), and what the source was.

    Parameters
    ----------
    datasets : dict name → :class:`ppi.features.PairSet`, featurized together
    texts : dict name → {sentence id → text} (:func:`sentence_texts`)
    target : str
    settings : :class:`ppi.runs.Settings` — λ grid, n_basis, seed

    Returns
    -------
    g : ndarray (m,) — the source hypothesis on the target's pairs
    info : dict — ``sources``, ``n_source_pairs``, ``dropped_pairs`` (per source: pairs left
        out because their sentence occurs in the target), ``source_alpha``, ``seconds``
    """
    from learners.kernels import gram_matrix
    from learners.nystroem import release_freed_memory
    from ppi.evaluation import select_parameters

    t0 = time.perf_counter()
    own = set(texts[target].values())
    rows, ys, docs, dropped = [], [], [], {}
    for name, d in datasets.items():
        if name == target:
            continue
        keep = np.array([texts[name][s] not in own for s in d.sentence_ids.astype(str)],
                        dtype=bool)
        dropped[name] = int((~keep).sum())
        rows.append(d.X if keep.all() else d.X[keep])      # no copy of a corpus kept whole
        ys.append(d.y[keep])
        docs.append(np.char.add(f"{name}:", d.document_ids[keep].astype(str)))
    X, y, groups = sp.vstack(rows, format="csr"), np.concatenate(ys), np.concatenate(docs)
    del rows
    release_freed_memory()      # the featurization's freed heap, before the O(m r) fit
    target_rows = datasets[target].X
    if settings.learner != "rls" and len(y) > settings.n_basis:
        # the linear kernel of the rows, evaluated by the learner against its basis: O(m r)
        learner, inputs, test = "reduced_set", X, target_rows
    else:
        learner, inputs, test = "rls", gram_matrix(X), gram_matrix(target_rows, X)
    sel, choice = select_parameters(inputs, y, groups, settings.alpha_grid, learner,
                                    settings.n_basis, settings.seed, "auc")
    g = np.asarray(sel.predict(test), dtype=float)
    del sel, X, inputs, test
    release_freed_memory()
    info = {"sources": [n for n in datasets if n != target], "n_source_pairs": int(len(y)),
            "dropped_pairs": dropped, "source_alpha": choice["alpha"],
            "source_learner": learner, "seconds": time.perf_counter() - t0}
    log.info("source hypothesis for %s: %d pairs of %s (%s)", target, len(y),
             ", ".join(info["sources"]), format_duration(info["seconds"]))
    return g, info
