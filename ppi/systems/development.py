"""(λ, β) of a model for raw text chosen on a development set of abstracts (``ppi train
--select-on FILE``).

The inner leave-one-document-out selection measures how a model ranks held-out documents of
its *own* corpus.  A model for raw text is used on other literature, and there the inner
choice is the wrong one: on AIMed it picks λ = 1, while larger λ (the model kept closer to
the transfer prior, :mod:`ppi.learning.transfer`) ranks the pairs of LLL, HPRD50 and IEPA and of
BioRED's abstracts better (the results page, "parser match").  This module scores every
candidate of the selection grid on abstracts with document-level relations — a
PubTator / BioC file, e.g. BioRED's training abstracts, none of them a test corpus — and
keeps the one whose document-level AUC is best.  The measure is the one of ``ppi
evaluate-documents``: every unordered pair of two distinct ids of the entity
types (default gene / protein) in an abstract is a candidate, related when the file relates
the two ids; a candidate's score is the maximum over its mention pairs
(:func:`ppi.documents.relations.bag_max`), a candidate never scored ranks last.

A system whose :attr:`~ppi.systems.base.System.trains_on_development` is set (``text``)
also learns from the development file: :func:`development_halves` splits its abstracts in
two by document id, one half's mention pairs join the training data with single-instance
labels, and only the other half — abstracts the fit never saw — chooses.

This is model selection on a held-out validation set (Hastie, Tibshirani & Friedman,
*The Elements of Statistical Learning*, 2nd ed., §7.2), the set drawn from the data the
model will be applied to rather than from the training corpus — the validation set of
domain adaptation (Daumé III & Marcu 2006, *JAIR* 26, §6).  The threshold stays the inner
best-F threshold of the chosen candidate: the decision follows the training corpus'
definition of a relation, the development set's definition only ranks.

Cost: the development file parsed by spaCy once (cached, :mod:`ppi.documents.relations`), its mention
pairs featurized with the model's featurizer, then, in chunks of rows, one kernel block
against the fitted model's rows and the source models' rows: O(n_dev · (m + Σ m_s)) kernel
entries and O(n_dev · g) scores for the g candidates of the grid; the fit is not repeated.
"""

from __future__ import annotations

import logging
import time

import numpy as np

from kernelrank.report import format_duration

__all__ = ["development_path", "development_corpus", "check_disjoint", "development_halves",
           "development_choice", "CHUNK_ROWS"]

log = logging.getLogger(__name__)

#: development rows scored per kernel block (a block is CHUNK_ROWS × the model's rows)
CHUNK_ROWS = 2048


def development_path(select_on, system, data_dir=None):
    """The development file of ``ppi train --select-on`` (checked before any training):
    ``select_on`` a file or a name of :data:`ppi.names.RELATION_SETS` (resolved in the data
    directory), ``"inner"`` (None: the inner criterion), or None (the system's
    :attr:`~ppi.systems.base.System.development_set`).  A missing file raises
    :class:`~kernelrank.errors.DataNotFoundError` saying how to get it."""
    from kernelrank.errors import DataNotFoundError
    from ppi.names import relations_path

    select_on = system.development_set if select_on is None else select_on
    if select_on in (None, "inner"):
        return None
    path = relations_path(data_dir, select_on)
    if not path.is_file():
        raise DataNotFoundError(f"--select-on {select_on}: no such file; give a PubTator / "
                                "BioC file with document-level relations, biored (python -m "
                                "corpora fetch biored), or inner")
    return path


def development_corpus(path, spacy_model, *, progress=False):
    """The development abstracts of the file ``path`` as a :class:`ppi.documents.relations.
    RelationCorpus` of gene / protein pairs, parsed by ``spacy_model``, every relation type
    counted."""
    from ppi.documents.system import DocumentSystem

    return DocumentSystem(spacy_model=spacy_model, progress=progress).read_relations(path)


def check_disjoint(documents, dev, path):
    """Refuse a development corpus ``dev`` that shares a document id with the training
    corpus ``documents`` (read from ``path``).

    A shared id is the same abstract on both sides (PubMed ids) or two abstracts that would
    be one group of the inner leave-one-document-out selection: either way the development
    AUC would measure documents the fit has seen.  O(documents).

    Raises
    ------
    InvalidParameterError
        Naming the shared ids (at most five) and what to do.
    """
    from kernelrank.errors import InvalidParameterError

    shared = sorted({d.id for d in documents} & {d.id for d in dev.corpus.documents})
    if shared:
        shown = ", ".join(shared[:5]) + (f" … ({len(shared)} in all)" if len(shared) > 5
                                          else "")
        raise InvalidParameterError(
            f"--select-on {dev.source}: document ids {shown} are also in the training corpus "
            f"{path}; a development abstract must be one the fit never sees — remove them "
            "from one of the two files, or give --select-on inner")


def _check_both_classes(dev, what=""):
    """Refuse a development corpus (or half, ``what``) whose candidates are all related or
    all unrelated: their AUC cannot choose, and a training half of one class teaches
    nothing about the other."""
    from kernelrank.errors import InvalidParameterError

    y = dev.candidates.y
    if y is None or len(np.unique(y)) < 2:
        raise InvalidParameterError(
            f"--select-on {dev.source}{what}: its gene-pair candidates are not both related "
            "and unrelated, so their AUC cannot choose λ; give abstracts with document-level "
            "relations between some of their genes and not others, or --select-on inner")


def development_halves(dev):
    """The development abstracts ``dev`` in two halves: one joins the training data, the
    other chooses λ and β (:attr:`ppi.systems.base.System.trains_on_development`).

    The halves are drawn by document id, not by position: the documents sorted by the
    SHA-256 of their ids, alternately to the training and to the development half — the
    same split of the same file on every machine, a document on the same side whatever the
    order of the file.  The training half's mention pairs carry the single-instance labels
    (every mention pair of a related id pair positive, every other one negative;
    :class:`ppi.documents.relations.RelationCorpus`), so the model learns the abstracts' own relation
    definition beside the corpus', and the other half — documents it never saw — measures
    it.  O(documents log documents) besides the two subsets.

    Returns
    -------
    (taught, chosen) : two :class:`ppi.documents.relations.RelationCorpus`

    Raises
    ------
    InvalidParameterError
        When either half's candidates are all related or all unrelated (e.g. a file of one
        or two abstracts).
    """
    import hashlib

    ids = [d.id for d in dev.corpus.documents]
    order = sorted(range(len(ids)), key=lambda k: hashlib.sha256(ids[k].encode()).hexdigest())
    taught, chosen = dev.subset(sorted(order[0::2])), dev.subset(sorted(order[1::2]))
    for half, what in ((taught, "training"), (chosen, "development")):
        n = len(half.corpus.documents)
        _check_both_classes(half, f" (its {what} half, {n} abstract{'s' * (n != 1)}; the "
                                  "file is split in two by document id)")
    return taught, chosen


def _kernel_block(system, featurizer, A, B):
    """The top kernel between the development rows ``A`` and model rows ``B`` as the saved
    model computes it: the linear kernel, or its Gaussian by
    :func:`ppi.models.classes.gaussian_of_new_rows`."""
    from learners.kernels import gram_matrix, squared_row_norms
    from ppi.models.classes import gaussian_of_new_rows

    K = np.asarray(gram_matrix(A, B), dtype=float)
    gamma = getattr(system.top, "gamma", None)
    if gamma is None:
        return K
    return gaussian_of_new_rows(K, gamma, featurizer, squared_row_norms(B))


def _grid_scores(system, featurizer, X_dev, model, X_train, prior, alphas):
    """Scores of the development rows under every λ of ``alphas`` (the fit's columns: the
    fit to y and, with transfer, the fit to the prior) and the sources' mean ``g``.

    Returns ``(S, g)``: ``S`` of shape (n_dev, len(alphas), columns), ``g`` (n_dev,) or
    None without transfer."""
    from ppi.learning.evaluation import expansion

    rows, _ = expansion(model, X_train, alphas[0])     # the same rows for every λ
    path = np.asarray(model.regularization_path(alphas), dtype=float)   # (λ, m[, columns])
    path = path.reshape(len(alphas), path.shape[1], -1)
    C = np.concatenate(list(path), axis=1)              # m × (len(alphas) · columns)
    parts = prior.parts if prior.g is not None else []
    S = np.empty((X_dev.shape[0], C.shape[1]))
    g = np.zeros(X_dev.shape[0]) if parts else None
    for start in range(0, X_dev.shape[0], CHUNK_ROWS):
        block = X_dev[start:start + CHUNK_ROWS]
        stop = start + block.shape[0]
        S[start:stop] = _kernel_block(system, featurizer, block, rows) @ C
        for Xs, cs in parts:
            g[start:stop] += _kernel_block(system, featurizer, block, Xs) @ cs
    if parts:
        g /= len(parts)
    return S.reshape(X_dev.shape[0], len(alphas), -1), g


def development_choice(system, featurizer, selection, choice, data, prior, dev):
    """The candidate of ``choice["grid"]`` (the inner selection's grid, each with its inner
    threshold and F) whose document-level AUC on the development corpus ``dev`` is best.

    Parameters
    ----------
    system : ppi.systems.base.System
    featurizer : the fitted featurizer of the model
    selection, choice : :meth:`ppi.systems.base.System.select`'s result on ``data``
    data : ppi.representation.features.PairSet — the training pairs
    prior : ppi.systems.sources.TrainingPrior
    dev : ppi.documents.relations.RelationCorpus — :func:`development_corpus`

    Returns
    -------
    dict : the chosen grid entry, with ``development_auc`` and ``inner_score`` (the inner
        criterion of that candidate) added, ``grid`` with each candidate's
        ``development_auc``, and ``development`` (the file, its candidates and related
        pairs, the seconds taken)
    """
    from ppi.documents.mention_stage import candidate_auc
    from ppi.documents.relations import bag_max

    t0 = time.perf_counter()
    _check_both_classes(dev)
    y = dev.candidates.y
    (dev_rows,) = featurizer.transform([dev.corpus])
    grid = [dict(g) for g in choice["grid"]]
    alphas = sorted({g["alpha"] for g in grid})
    S, g = _grid_scores(system, featurizer, dev_rows.X, selection.model, data.X, prior, alphas)
    column = {a: k for k, a in enumerate(alphas)}
    for cand in grid:
        s = S[:, column[cand["alpha"]], 0]
        beta = cand.get("beta", 0.0)
        if beta:
            s = s - beta * S[:, column[cand["alpha"]], 1] + beta * g
        cand["development_auc"] = candidate_auc(y, bag_max(s, dev.candidates))
    best = max(range(len(grid)), key=lambda k: (grid[k]["development_auc"], grid[k]["score"]))
    chosen = dict(grid[best])
    chosen["inner_score"] = chosen["score"]
    chosen["score"] = chosen["development_auc"]
    chosen["grid"] = grid
    chosen["development"] = {"file": dev.source, "documents": len(dev.corpus.documents),
                             "candidates": int(len(y)),
                             "related": int((np.asarray(y) > 0).sum()),
                             "mention_pairs": int(dev_rows.X.shape[0]),
                             "seconds": time.perf_counter() - t0}
    log.info("λ%s chosen on %s: development AUC %.1f (inner %.1f) [%s]",
             ", β" if "beta" in chosen else "", dev.source, 100 * chosen["development_auc"],
             100 * chosen["inner_score"], format_duration(time.perf_counter() - t0))
    return chosen
