"""The ``documents`` system: relations learned from document-level annotations, on spaCy's
parse, scored at the parser's speed.

Input: PubTator / BioC documents whose relations are given per document ("genes A and B are
related in document D"; :mod:`ppi.documents.relations`).  Output: a score for every candidate concept
pair of a document.  Three parts, each chosen inside the training documents only:

1. **Mention pairs** (stage 1).  Every two mentions of the entity types in a spaCy sentence
   (exactly the pairs ``ppi extract`` scores) are featurized by the views of
   :data:`DOCUMENT_VIEWS` on spaCy's parse (:mod:`ppi.representation.views`; parser-matched by
   construction) and scored by a *linear* RLS — one weight vector, so extraction costs one
   sparse dot product per pair.  The labels come from the bags (:mod:`ppi.documents.relations`):
   ``instances="sil"`` gives every mention pair of a related candidate the label +1
   (single-instance learning, the baseline of Ray & Craven 2005, "Supervised versus
   multiple instance learning: an empirical comparison", ICML, which is hard to beat when
   positive bags hold many positives); ``instances="mi"`` re-assigns the labels inside
   related bags by the model (mi-SVM of Andrews, Tsochantaridis & Hofmann 2003 with the
   squared loss, :class:`learners.mil.MultipleInstanceRLS`).  λ is chosen by the pooled
   leave-one-document-out AUC of the **candidates' maxima** (the bag-level measure, not the
   mention-pair one), exact from one decomposition (:func:`learners.selection.
   holdout_predictions`).
2. **Transfer** (``transfer=True``): the five benchmark corpora, parsed by spaCy
   (:func:`ppi.parsing.spacy_analyses.add_spacy_analyses`), each train a model of the same views;
   their mean ``g`` is the prior and stage 1 fits ``f = β g + h`` with (λ, β) chosen
   together (:mod:`ppi.learning.transfer`, :class:`learners.transfer.TransferRLS`) — β = 0 refuses
   the sources.  Sentences the target shares with a source are left out of that source
   (:func:`ppi.learning.transfer.leak_guarded`).  The prior is linear too: the saved weights are
   ``w = w_h + β w_g``.
3. **Document stage** (``document_stage=True``; :mod:`ppi.documents.stage`): a Gaussian
   RLS on the candidate's stage-1 evidence (its bag's held-out maximum, second best, mean)
   and where the two concepts are mentioned — it scores the cross-sentence candidates too.
   Its λ and γ are transferred from BioRED (``stage_search=True``: chosen on the training
   documents).

:func:`fit_documents` trains all three on a :class:`ppi.documents.relations.RelationCorpus`;
:func:`cross_validate_documents` runs it inside document folds; :func:`predict_documents`
scores new documents.  The saved model (``ppi train --relations-from``) is a
:class:`ppi.models.classes.PPIModel` of format version 6 (:mod:`ppi.models.classes`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass, field

import numpy as np

from kernelrank.errors import InvalidParameterError
from ppi.names import BETAS, CORPORA, DEFAULT_SPACY_MODEL, DOCUMENTS_SUMMARY, N_BASIS
from ppi.documents.relations import DEFAULT_ENTITY_TYPES, bag_max

__all__ = ["DOCUMENT_VIEWS", "INSTANCE_LABELS", "DocumentSystem", "DocumentFit",
           "fit_mention_stage",
           "featurize_documents", "fit_documents", "predict_documents",
           "cross_validate_documents", "candidate_measures", "candidate_auc",
           "source_model", "unscored_last"]

log = logging.getLogger(__name__)

#: The views of the mention-pair stage: the all-paths kernel and the shortest-path walks on
#: spaCy's parse, the bag of words, the mention pair and the local context (:mod:`ppi.representation.views`).
DOCUMENT_VIEWS = ("apg:spacy", "path:spacy", "bow", "pair", "local")
#: How the mention pairs of a related candidate are labelled (module docstring).
INSTANCE_LABELS = ("sil", "mi")
#: λ grid of the mention-pair stage (the benchmark systems' 2^-10..2^10).
ALPHAS = 2.0 ** np.arange(-10, 11)


@dataclass(frozen=True)
class DocumentSystem:
    """The choices of the ``documents`` system (module docstring)."""

    #: the system's name in reports and help (chosen by ``--relations-from``)
    name = "documents"
    #: one line on what the system is (the ``--system`` help shows it)
    summary = DOCUMENTS_SUMMARY

    views: tuple = DOCUMENT_VIEWS
    entity_types: tuple = DEFAULT_ENTITY_TYPES
    #: the relation types that make a candidate related (None: any type;
    #: :func:`ppi.documents.relations.keep_relation_types`)
    relation_types: tuple | None = None
    instances: str = "sil"
    document_stage: bool = True
    #: search the stage's (λ, γ) grid by leave-one-document-out AUC instead of the
    #: transferred pair (:mod:`ppi.documents.stage`)
    stage_search: bool = False
    transfer: bool = True
    sources: tuple = CORPORA
    alphas: tuple | None = None
    #: ``rls``: the exact full-kernel RLS (one m × m eigendecomposition, O(m³); BioRED has
    #: 6,221 training pairs); ``reduced_set`` / ``auto`` as :mod:`ppi.learning.evaluation`
    learner: str = "rls"
    n_basis: int = N_BASIS
    seed: int = 0
    progress: bool = True
    spacy_model: str = DEFAULT_SPACY_MODEL

    def __post_init__(self):
        if self.instances not in INSTANCE_LABELS:
            raise InvalidParameterError(f"instances={self.instances!r}; choose one of "
                                        f"{INSTANCE_LABELS}")
        if self.transfer and not self.sources:
            raise InvalidParameterError("transfer needs at least one source corpus")
        from ppi.representation.views import parse_view

        for v in self.views:
            kind, parse = parse_view(v)
            if parse not in (None, "spacy"):
                raise InvalidParameterError(
                    f"view {v!r}: the documents system reads spaCy's parse only (the one raw "
                    "text gets); use apg:spacy / path:spacy")

    @property
    def alpha_grid(self):
        return ALPHAS if self.alphas is None else np.asarray(self.alphas, dtype=float)

    def featurizer(self):
        """The unfitted :class:`ppi.representation.views.MultiViewFeaturizer` (text order, spaCy tokens)."""
        from ppi.representation.graphs import GraphSettings
        from ppi.representation.views import MultiViewFeaturizer

        return MultiViewFeaturizer(self.views, settings=GraphSettings(order="text"),
                                   bow_parse="spacy")

    @property
    def model_class(self):
        """The saved-model class: :class:`ppi.models.classes.DocumentModel` (format version 6)."""
        from ppi.models.classes import DocumentModel

        return DocumentModel

    def config(self):
        """The configuration recorded in every report."""
        return {"system": "documents", "views": list(self.views),
                "entity_types": list(self.entity_types),
                "relation_types": (None if self.relation_types is None
                                   else list(self.relation_types)),
                "instances": self.instances,
                "document_stage": self.document_stage, "stage_search": self.stage_search,
                "transfer": self.transfer,
                "sources": list(self.sources) if self.transfer else [],
                "alphas": self.alpha_grid.tolist(), "learner": self.learner,
                "n_basis": self.n_basis, "seed": self.seed, "spacy_model": self.spacy_model}


@dataclass
class Features:
    """The featurized data of a run: the fitted featurizer, each relation corpus' mention
    pair rows, and the source corpora's (:class:`ppi.representation.features.PairSet`, leak-guarded)."""

    featurizer: object
    rows: list
    sources: dict = field(default_factory=dict)
    dropped: dict = field(default_factory=dict)
    seconds: float = 0.0


def featurize_documents(system, relation_corpora, data_dir=None):
    """Featurize the mention pairs of ``relation_corpora`` (and, with transfer, of the
    benchmark corpora, spaCy-parsed) in one joint vocabulary.  Returns :class:`Features`."""
    t0 = time.perf_counter()
    f = system.featurizer()
    corpora = [rc.corpus for rc in relation_corpora]
    names = list(system.sources) if system.transfer else []
    if names:
        from corpora.ppi_xml import read_corpus
        from ppi.names import corpus_path
        from ppi.parsing.spacy_analyses import add_spacy_analyses

        corpora += [add_spacy_analyses(read_corpus(corpus_path(data_dir, n)),
                                       system.spacy_model) for n in names]
    sets = f.fit_transform(corpora, progress=system.progress)
    rows = sets[:len(relation_corpora)]
    sources, dropped = {}, {}
    if names:
        from ppi.learning.transfer import leak_guarded, sentence_texts

        datasets = dict(zip(names, sets[len(relation_corpora):]))
        texts = {n: sentence_texts(c) for n, c in zip(names, corpora[len(relation_corpora):])}
        for k, rc in enumerate(relation_corpora):
            key = f"target{k}"
            datasets[key] = rows[k]
            texts[key] = sentence_texts(rc.corpus)
        guarded, dropped = leak_guarded(datasets, texts, sources=names)
        sources = {n: guarded[n] for n in names}
        dropped = {n: dropped[n] for n in names}
    log.info("featurized %d documents' mention pairs%s (%.0f s)",
             sum(len(rc.corpus.documents) for rc in relation_corpora),
             f" and {', '.join(names)}" if names else "", time.perf_counter() - t0)
    return Features(f, rows, sources, dropped, time.perf_counter() - t0)


# ----------------------------------------------------------------------------- stage 1
def _linear_kernel_input(X, learner, n_basis):
    from ppi.learning.evaluation import learner_input
    from ppi.representation.features import PairSet

    data = PairSet("", X, np.zeros(X.shape[0]), None, None, None)
    return learner_input(data, learner, n_basis)


def _source_weights(system, features, data_dir=None):
    """``w_g``: the mean of the source corpora's linear models (each λ by its own
    leave-one-document-out AUC; fits cached by :mod:`ppi.learning.source_cache`), over the
    featurizer's columns; and what they were."""
    from ppi.learning.evaluation import expansion, select_parameters
    from ppi.names import corpus_path
    from ppi.learning.source_cache import source_fit
    from ppi.parsing.spacy_analyses import spacy_identity

    settings = {"system": "documents", "views": list(system.views), "order": "text",
                "bow_parse": "spacy", "spacy": spacy_identity(system.spacy_model),
                "learner": system.learner, "n_basis": system.n_basis, "seed": system.seed,
                "alphas": system.alpha_grid.tolist(), "select_by": "auc"}
    ws, info = [], {"sources": [], "source_alpha": {}, "dropped_pairs": features.dropped}
    for name, d in features.sources.items():
        def fit(d=d):
            K = _linear_kernel_input(d.X, system.learner, system.n_basis)
            sel, choice = select_parameters(K, d.y, d.document_ids, system.alpha_grid,
                                            system.learner, system.n_basis, system.seed,
                                            "auc")
            _, coef = expansion(sel.model, d.X, choice["alpha"])
            basis = getattr(sel.model, "basis_indices_", None)
            rows = np.arange(len(d)) if basis is None else np.asarray(basis)
            return choice["alpha"], rows, np.asarray(coef, dtype=float).ravel()

        alpha, rows, coef = source_fit(name, corpus_path(data_dir, name), d, settings, fit,
                                       data_dir)
        ws.append(np.asarray(d.X[rows].T @ coef).ravel())
        info["sources"].append(name)
        info["source_alpha"][name] = alpha
    return np.mean(ws, axis=0), info


def unscored_last(B):
    """Bag maxima with the empty bags' −inf replaced by less than every finite score (a
    candidate never scored ranks last; ties among those)."""
    B = np.array(B, dtype=float)
    finite = np.isfinite(B)
    low = np.where(finite, B, np.inf).min(axis=-1, keepdims=True)
    low = np.where(np.isfinite(low), low, 0.0)
    return np.where(finite, B, low - 1.0)


def _select_instances(X, y, candidates, row_documents, system, prior=None, bags=None):
    """Stage 1 (module docstring): the fitted learner, the chosen (λ[, β]), its held-out
    (leave-one-document-out) mention-pair scores and bag-level AUC, the best-F threshold of
    the held-out bag maxima.  ``bags``: the related candidates' bags — mi-RLS
    (:class:`learners.mil.MultipleInstanceRLS`) instead of RLS on the labels ``y``."""
    from learners.measures import auc, best_f_threshold
    from learners.mil import MultipleInstanceRLS
    from learners.selection import Channels, best_candidate, holdout_predictions
    from learners.splits import group_sets
    from ppi.learning.evaluation import ppi_learner

    path, fit_params, fixed = {"alpha": system.alpha_grid}, None, None
    if bags is not None:
        if prior is not None:
            raise InvalidParameterError("instances='mi' does not combine with transfer; use "
                                        "--no-transfer, or --instances sil")
        K, est, fixed = X, MultipleInstanceRLS(kernel="linear", solver="dual"), {"bags": bags}
    else:
        K = _linear_kernel_input(X, system.learner, system.n_basis)
        kind = "linear" if K is X else "precomputed"
        if prior is not None:
            path["beta"] = np.asarray(BETAS, dtype=float)
            fit_params = {"prior": np.asarray(prior, dtype=float)}
        est = ppi_learner(system.learner, system.n_basis, system.seed, len(y), kind,
                          transfer=prior is not None)
    h, fitted = holdout_predictions(est, K, y, cv=group_sets(row_documents), path=path,
                                    channels=Channels(fit=fit_params, fixed_fit=fixed))
    P = h.snapped().in_row_order(len(y))
    B = unscored_last(bag_max(P, candidates))
    scores = np.array([auc(candidates.y, b) for b in B])
    best = best_candidate(scores, h.candidates, True)
    thr = best_f_threshold(candidates.y, B[best])
    return {"model": fitted, "params": dict(h.candidates[best]), "auc": float(scores[best]),
            "threshold": float(thr.threshold), "f1": float(thr.f1), "heldout": P[best],
            "grid": [dict(c, auc=float(s)) for c, s in zip(h.candidates, scores)]}


def _instance_weights(sel, X, w_source=None):
    """The linear stage-1 model ``w`` over the featurizer's columns: ``X_bᵀ c`` (and, with
    transfer, ``X_bᵀ(c_y − β c_g) + β w_g``)."""
    from ppi.learning.evaluation import expansion

    Xb, coef = expansion(sel["model"], X, sel["params"]["alpha"])
    beta = sel["params"].get("beta")
    if beta is None:
        return np.asarray(Xb.T @ coef).ravel()
    c = coef[:, 0] - beta * coef[:, 1]
    return np.asarray(Xb.T @ c).ravel() + beta * w_source


# ----------------------------------------------------------------------------- the fit
@dataclass
class DocumentFit:
    """A fitted ``documents`` system: ``weights`` of the linear mention-pair model over the
    featurizer's columns and its bag-level threshold, the document stage (or None) and what
    was chosen."""

    featurizer: object
    weights: np.ndarray
    instance_threshold: float
    stage: object
    info: dict

    @property
    def threshold(self):
        """The decision threshold of the candidates' scores."""
        return self.stage.threshold_ if self.stage is not None else self.instance_threshold

    def candidate_scores(self, X, candidates):
        """Scores of ``candidates`` whose mention pairs have the rows ``X``."""
        s = np.asarray(X @ self.weights).ravel()
        if self.stage is None:
            return bag_max(s, candidates)
        from ppi.documents.stage import document_features

        return self.stage.decision_function(document_features(s, candidates))


def _check_classes(rc):
    y = rc.candidates.y
    if not (y > 0).any() or not (y < 0).any():
        raise InvalidParameterError(
            f"{rc.source}: {int((y > 0).sum())} related and {int((y < 0).sum())} unrelated "
            "candidate pairs — training needs both; give more documents (or check "
            "--entity-types against the file's mention types)")
    if rc.n_pairs == 0:
        raise InvalidParameterError(f"{rc.source}: no two mentions of the entity types "
                                    f"share a sentence: nothing to learn from")


def fit_mention_stage(system, rc, X, w_source=None):
    """Stage 1 of the ``documents`` system alone on the relation corpus ``rc`` (mention
    pairs ``X``; ``w_source``: the transfer prior's weights): ``(w, selection)`` — the
    linear mention-pair model over the featurizer's columns, and what the selection found:
    ``params`` (λ[, β]), ``auc``, ``threshold``, ``f1`` and ``heldout``, the
    leave-one-document-out scores of the mention pairs, from which the document stage
    learns (:func:`fit_documents`)."""
    cands = rc.candidates
    prior = None if w_source is None else np.asarray(X @ w_source).ravel()
    bags = None
    if system.instances == "mi":
        related = np.flatnonzero((cands.y > 0) & (cands.bag_sizes > 0))
        bags = [cands.bag_rows[cands.bag_ptr[c]:cands.bag_ptr[c + 1]] for c in related]
    sel = _select_instances(X, rc.instance_labels(), cands, rc.documents_of_pairs(), system,
                            prior, bags)
    return _instance_weights(sel, X, w_source), sel


def fit_documents(system, rc, X, w_source=None, source_info=None):
    """Fit the ``documents`` system on the relation corpus ``rc`` whose mention pairs have
    the rows ``X`` (``w_source``: the transfer prior's weights, :func:`source_model`).
    Returns :class:`DocumentFit`."""
    from ppi.documents.stage import ALPHAS, GAMMAS, DocumentStage, document_features

    _check_classes(rc)
    t0 = time.perf_counter()
    cands = rc.candidates
    w, sel = fit_mention_stage(system, rc, X, w_source)
    info = {"alpha": sel["params"]["alpha"], "beta": sel["params"].get("beta"),
            "instance_auc": sel["auc"], "instance_f1": sel["f1"],
            "instance_threshold": sel["threshold"], "n_pairs": int(X.shape[0]),
            "n_candidates": len(cands), "n_related": int((cands.y > 0).sum()),
            "n_documents": len(rc.corpus.documents), **(source_info or {})}
    stage = None
    if system.document_stage:
        F = document_features(sel["heldout"], cands)
        grid = {"alphas": ALPHAS, "gammas": GAMMAS} if system.stage_search else {}
        stage = DocumentStage(**grid).fit(F, cands.y, cands.doc)
        info.update(stage_alpha=stage.alpha_, stage_gamma=stage.gamma_,
                    stage_auc=stage.inner_auc_, stage_f1=stage.inner_f1_)
    info["seconds"] = time.perf_counter() - t0
    return DocumentFit(None, w, sel["threshold"], stage, info)


def predict_documents(fit, X, candidates):
    """Candidate scores and decisions (``score > threshold``)."""
    s = fit.candidate_scores(X, candidates)
    return s, s > fit.threshold


def candidate_auc(y, scores):
    """AUC of candidate ``scores`` (−inf: never scored, ranked last)."""
    from learners.measures import auc

    return float(auc(y, unscored_last(scores)))


def candidate_measures(y, scores, threshold):
    """AUC and P / R / F of candidate ``scores`` (−inf: never scored, ranked last) at
    ``threshold``."""
    from learners.measures import auc, precision_recall_f1

    s = unscored_last(scores)
    prf = precision_recall_f1(y, s, threshold)
    return {"auc": float(auc(y, s)), "precision": float(prf.precision),
            "recall": float(prf.recall), "f1": float(prf.f1),
            "predicted_positive": int((s > threshold).sum()), "n": int(len(y)),
            "related": int((np.asarray(y) > 0).sum())}


def source_model(system, features, data_dir=None):
    """``(w_g, info)`` of the transfer prior (None, {} without transfer)."""
    if not system.transfer:
        return None, {}
    t0 = time.perf_counter()
    w, info = _source_weights(system, features, data_dir)
    info["source_seconds"] = time.perf_counter() - t0
    log.info("source models %s (%.0f s)", ", ".join(info["sources"]), info["source_seconds"])
    return w, info


def cross_validate_documents(system, rc, X, *, folds=10, w_source=None, source_info=None):
    """Document-level ``folds``-fold CV of the whole system on ``rc`` (rows ``X``): every
    fit inside the training documents (stratified document folds by related candidates,
    :func:`learners.splits.group_folds`).  Returns the pooled out-of-fold candidate
    scores, the per-fold measures and their mean."""
    from learners.splits import group_folds

    cands = rc.candidates
    doc_label = np.zeros(len(rc.corpus.documents))
    np.maximum.at(doc_label, cands.doc, (cands.y > 0).astype(float))
    fold_of_doc = group_folds(np.arange(len(doc_label)), folds, system.seed,
                              y=np.where(doc_label > 0, 1.0, -1.0))
    rows_doc = rc.documents_of_pairs()
    scores = np.full(len(cands), -np.inf)
    decided = np.zeros(len(cands), dtype=bool)
    per_fold = []
    for k in range(folds):
        train_docs = np.flatnonzero(fold_of_doc != k)
        test_docs = np.flatnonzero(fold_of_doc == k)
        tr, te = rc.subset(train_docs), rc.subset(test_docs)
        Xtr = X[np.flatnonzero(np.isin(rows_doc, train_docs))]
        Xte = X[np.flatnonzero(np.isin(rows_doc, test_docs))]
        fit = fit_documents(system, tr, Xtr, w_source, source_info)
        s, d = predict_documents(fit, Xte, te.candidates)
        idx = np.flatnonzero(np.isin(cands.doc, test_docs))
        scores[idx], decided[idx] = s, d
        m = candidate_measures(te.candidates.y, s, fit.threshold)
        m.update(fold=k, alpha=fit.info["alpha"], beta=fit.info["beta"])
        per_fold.append(m)
        log.info("fold %d: AUC %.3f F %.3f", k, m["auc"], m["f1"])
    mean = {key: float(np.mean([m[key] for m in per_fold]))
            for key in ("auc", "precision", "recall", "f1")}
    return {"scores": scores, "decisions": decided, "folds": per_fold, "mean": mean}
