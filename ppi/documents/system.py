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
   holdout_predictions`).  The RLS is the reduced set (subset of regressors) over
   :data:`ppi.names.DOCUMENT_N_BASIS` uniformly drawn basis mention pairs (Paper III; the
   held-out document's basis pairs removed, so every hold-out is the model retrained
   without it): O(m r) memory and O(nnz·r + m r²) time, linear in the m mention pairs
   (``learner="rls"``: the full m × m kernel, O(m²) memory, O(m³) time).
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

:class:`DocumentSystem` is the registered ``documents`` system (:mod:`ppi.systems.registry`;
chosen by ``--relations-from``) and owns its behaviour: :meth:`~DocumentSystem.featurize`,
:meth:`~DocumentSystem.source_model`, :meth:`~DocumentSystem.fit` (all three parts on a
:class:`ppi.documents.relations.RelationCorpus`) and :meth:`~DocumentSystem.cross_validate`
(inside document folds); :func:`ppi.documents.mention_stage.predict_documents` scores new
documents.  Its parts are :mod:`ppi.documents.mention_stage` and
:mod:`ppi.documents.stage`.  The saved model (``ppi train --relations-from``) is a
:class:`ppi.models.classes.DocumentModel`, format version 6 (:mod:`ppi.models.formats`).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

from kernelrank.errors import InvalidParameterError
from ppi.names import (CORPORA, DEFAULT_ENTITY_TYPES, DEFAULT_SPACY_MODEL, DOCUMENT_N_BASIS,
                       DOCUMENTS_SUMMARY, MIN_RELATIONS)
from ppi.systems.registry import register

__all__ = ["DOCUMENT_VIEWS", "INSTANCE_LABELS", "ALPHAS", "DocumentSystem"]

log = logging.getLogger(__name__)

#: The views of the mention-pair stage: the all-paths kernel and the shortest-path walks on
#: spaCy's parse, the bag of words, the mention pair and the local context
#: (:mod:`ppi.representation.views`).
DOCUMENT_VIEWS = ("apg:spacy", "path:spacy", "bow", "pair", "local")
#: How the mention pairs of a related candidate are labelled (module docstring).
INSTANCE_LABELS = ("sil", "mi")
#: λ grid of the mention-pair stage (the benchmark systems' 2^-10..2^10).
ALPHAS = tuple(2.0 ** k for k in range(-10, 11))


@register
@dataclass(frozen=True)
class DocumentSystem:
    """The ``documents`` system (module docstring): its choices, and the behaviour they
    decide.

    Importing this module imports no NumPy (the registry is read by ``--help``); every
    method imports what it uses.
    """

    #: the system's name in the registry, reports and help
    name = "documents"
    #: one line on what the system is (the help shows it)
    summary = DOCUMENTS_SUMMARY
    #: the option that chooses this system on the command line
    chosen_by = "--relations-from"
    #: the command-line options (argparse destinations) the system reads
    #: (:mod:`ppi.systems.options`); the others are refused when it is chosen
    options = ("relations_format", "pairs", "pair_model", "entity_types", "relation_types",
               "instances",
               "no_document_stage", "stage_search", "skip_bad", "transfer", "sources",
               "alphas", "learner", "n_basis", "spacy_model")

    views: tuple = DOCUMENT_VIEWS
    entity_types: tuple = DEFAULT_ENTITY_TYPES
    #: the pair types to relate (``("all",)``: every pair type the training file relates;
    #: ``("ChemicalEntity:GeneOrGeneProduct", …)``; :mod:`ppi.documents.pair_types`) — a
    #: typed model with relation types and novelty (:mod:`ppi.documents.typed_fit`); None:
    #: the mentions of ``entity_types`` paired with themselves, one untyped task
    pairs: tuple | None = None
    #: a typed model's mention-pair stage: one model per pair type (``separate``: one
    #: block of weights each; as accurate on BioRED dev as ``shared`` and cheaper) or one
    #: over all pair types with shared and pair-type-specific weights (``shared``: feature
    #: augmentation, Daumé III 2007; :mod:`ppi.documents.pair_types`)
    pair_model: str = "separate"
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
    #: ``reduced_set``: RLS over ``n_basis`` uniformly drawn basis mention pairs (Paper III;
    #: linear in the mention pairs, :mod:`ppi.documents.mention_stage`); ``rls``: the
    #: full-kernel RLS (one m × m eigendecomposition); ``auto`` as
    #: :mod:`ppi.learning.evaluation`
    learner: str = "reduced_set"
    n_basis: int = DOCUMENT_N_BASIS
    seed: int = 0
    progress: bool = True
    spacy_model: str = DEFAULT_SPACY_MODEL

    def __post_init__(self):
        if self.instances not in INSTANCE_LABELS:
            raise InvalidParameterError(f"instances={self.instances!r}; choose one of "
                                        f"{INSTANCE_LABELS}")
        from ppi.documents.pair_types import PAIR_MODELS, PairTypes

        if self.pair_model not in PAIR_MODELS:
            raise InvalidParameterError(f"pair_model={self.pair_model!r}; choose one of "
                                        f"{PAIR_MODELS}")
        if self.pairs is not None:
            PairTypes.parse(self.pairs)           # the syntax, now
            if self.instances == "mi":
                raise InvalidParameterError("instances='mi' is for one untyped pair "
                                            "type (--entity-types); typed pairs (--pairs) "
                                            "learn with --instances sil")
        if self.transfer and not self.sources:
            raise InvalidParameterError("transfer needs at least one source corpus")
        from ppi.representation.views import parse_view

        for v in self.views:
            kind, parse = parse_view(v)
            if parse not in (None, "spacy"):
                raise InvalidParameterError(
                    f"view {v!r}: the documents system reads spaCy's parse only (the one raw "
                    "text gets); use apg:spacy / path:spacy")

    @classmethod
    def from_options(cls, args, default_system=None):
        """The system of the command line's parsed ``args`` (the options of
        :attr:`options`; ``default_system`` is not used: the system is chosen by
        ``--relations-from``)."""
        transfer = True if args.transfer is None else args.transfer
        pairs = getattr(args, "pairs", None)
        if pairs and args.entity_types:
            raise InvalidParameterError(
                "--pairs and --entity-types are two ways to say what to relate: --pairs "
                "A:B … (typed pairs, with relation types and novelty), or --entity-types "
                "(one set of types paired with itself, one untyped task)")
        if not pairs and not args.entity_types:
            pairs = ["all"]
        return cls(
            pairs=None if not pairs else tuple(pairs),
            pair_model=getattr(args, "pair_model", None) or "separate",
            entity_types=tuple(args.entity_types or DEFAULT_ENTITY_TYPES),
            relation_types=None if args.relation_types is None else tuple(args.relation_types),
            instances=args.instances or "sil", document_stage=not args.no_document_stage,
            stage_search=args.stage_search,
            transfer=transfer, sources=tuple(getattr(args, "sources", None) or CORPORA),
            alphas=None if args.alphas is None else tuple(args.alphas), seed=args.seed,
            progress=not args.quiet, spacy_model=args.spacy_model,
            n_basis=DOCUMENT_N_BASIS if args.n_basis is None else args.n_basis,
            **({"learner": args.learner} if args.learner else {}))

    @property
    def alpha_grid(self):
        """The λ grid as an array (:data:`ALPHAS` when ``alphas`` is None)."""
        import numpy as np

        return np.asarray(ALPHAS if self.alphas is None else self.alphas, dtype=float)

    def featurizer(self):
        """The unfitted :class:`ppi.representation.views.MultiViewFeaturizer` (text order,
        spaCy tokens)."""
        from ppi.representation.graphs import GraphSettings
        from ppi.representation.views import MultiViewFeaturizer

        return MultiViewFeaturizer(self.views, settings=GraphSettings(order="text"),
                                   bow_parse="spacy")

    @property
    def model_class(self):
        """The saved-model class: :class:`ppi.models.classes.DocumentModel` (format version
        6)."""
        from ppi.models.classes import DocumentModel

        return DocumentModel

    def config(self):
        """The configuration recorded in every report."""
        return {"system": "documents", "views": list(self.views),
                "entity_types": list(self.entity_types),
                "pairs": None if self.pairs is None else list(self.pairs),
                "pair_model": self.pair_model,
                "relation_types": (None if self.relation_types is None
                                   else list(self.relation_types)),
                "instances": self.instances,
                "document_stage": self.document_stage, "stage_search": self.stage_search,
                "transfer": self.transfer,
                "sources": list(self.sources) if self.transfer else [],
                "alphas": self.alpha_grid.tolist(), "learner": self.learner,
                "n_basis": self.n_basis, "seed": self.seed, "spacy_model": self.spacy_model}

    # ------------------------------------------------------------------ input
    def read_relations(self, path, *, format=None, skip_bad=False, source=None):
        """The :class:`ppi.documents.relations.RelationCorpus` of a PubTator / BioC file with
        document-level relations, parsed for this system (its entity types and spaCy model,
        parses cached) and labelled by its relation types; ``rc.read_stats`` counts what
        the reader repaired, dropped or skipped, ``rc.relation_counts`` what became of each
        relation (:mod:`ppi.documents.relation_counts`; a warning when relations name ids
        no mention carries or were left out).  O(documents) besides the parse."""
        from pathlib import Path

        from corpora.text_input import ReadStats
        from kernelrank.report import format_duration
        from ppi.documents.relation_counts import account_relations
        from ppi.documents.relations import (
            keep_relation_types,
            read_relation_documents,
            relation_corpus,
        )

        t0 = time.perf_counter()
        stats = ReadStats()
        source = source or Path(path).name
        docs = read_relation_documents(path, format, skip_bad=skip_bad, stats=stats)
        pair_types = self.pair_types(docs, path)
        types = self.entity_types if pair_types is None else pair_types.entity_types
        counts = account_relations(docs, types, self.relation_types,
                                   stats.relations_dropped, pair_types)
        counts.log(source, types)
        docs = keep_relation_types(docs, self.relation_types, path)
        rc = relation_corpus(docs, types, source=source, spacy_model=self.spacy_model,
                             progress=self.progress, pair_types=pair_types)
        c = rc.candidates
        log.info("%s: %d documents, %d candidate pairs (%d related), %d mention pairs (%s)",
                 rc.source, len(docs), len(c), int((c.y > 0).sum()), rc.n_pairs,
                 format_duration(time.perf_counter() - t0))
        rc.read_stats, rc.relation_counts = stats, counts
        return rc

    def pair_types(self, docs, path=None):
        """The :class:`ppi.documents.pair_types.PairTypes` this system relates in the
        training documents ``docs`` (``pairs`` resolved: ``all`` is every pair type at
        least :data:`ppi.documents.pair_types.MIN_RELATIONS` of their relations relate, the
        rarer ones logged); None for an untyped system."""
        if self.pairs is None:
            return None
        from ppi.documents.pair_types import PairTypes

        given = PairTypes.parse(self.pairs)
        if given is not None:
            self._check_pair_types(given, docs, path)
            return given
        found, left = PairTypes.from_relations(docs, path)
        log.info("pair types of %s: %s", path or "the documents", ", ".join(found.names))
        if left:
            log.warning("%s: pair types left out of --pairs all (fewer than %d relations "
                        "to learn from; name them in --pairs to learn them): %s",
                        path or "the documents", MIN_RELATIONS,
                        ", ".join(f"{n} ({c} relation{'s' if c != 1 else ''})"
                                  for n, c in sorted(left.items())))
        return found

    @staticmethod
    def _check_pair_types(pair_types, docs, path):
        """Refuse ``--pairs`` naming an entity type no mention of ``docs`` has, saying the
        file's types and the pair types its relations relate."""
        from ppi.documents.pair_types import relation_pair_types

        found = {m.type.lower(): m.type for d in docs for m in d.mentions or () if m.type}
        missing = sorted({t for t in pair_types.entity_types if t.lower() not in found})
        if missing:
            related = relation_pair_types(docs)
            raise InvalidParameterError(
                f"{path or 'the documents'}: --pairs names {', '.join(missing)}, "
                + ("an entity type" if len(missing) == 1 else "entity types")
                + f" no mention has; the file's types are {', '.join(sorted(found.values()))}"
                " and its relations relate " + (", ".join(
                    f"{n} ({c})" for n, c in related.most_common()) or "no pair type")
                + " (--pairs all: every one of them)")

    def check_learner_fits(self, rc):
        """Refuse the exact learner on the corpus' mention pairs now, when they could not
        fit (:func:`ppi.learning.evaluation.check_full_rls_memory`; the fit would refuse
        them too, after their featurization) — a CV's training parts are a little smaller,
        so this is conservative there."""
        from ppi.learning.evaluation import check_full_rls_memory, resolve_learner

        if self.instances == "sil" and resolve_learner(self.learner, rc.n_pairs) == "rls":
            check_full_rls_memory(rc.n_pairs)

    def check_data(self, rc, folds=None):
        """Refuse now, before any featurization or fit, a relation corpus that cannot be
        learned from (:func:`ppi.documents.mention_stage.check_classes`: 2 documents with a
        mention pair, a related and an unrelated candidate), and with ``folds`` (``ppi cv``)
        one with fewer documents than folds or a fold whose training part could not be
        learned from.  O(candidates · folds)."""
        import numpy as np

        from ppi.documents.mention_stage import check_classes

        check_classes(rc, entity_types=self._types_of(rc))
        if folds is None:
            return
        n_docs = len(rc.corpus.documents)
        if n_docs < folds:
            raise InvalidParameterError(
                f"{rc.source}: {n_docs} documents for {folds} folds; cv needs at least as many "
                "documents as folds (--folds), and each fold's training part at least 2 "
                "documents with a mention pair")
        fold_of_doc = self.document_folds(rc, folds)
        for k in range(folds):
            check_classes(rc.subset(np.flatnonzero(fold_of_doc != k)),
                          f"the training part of fold {k} of {folds} (--folds)",
                          self._types_of(rc))

    def _types_of(self, rc):
        """The entity types whose mentions are ``rc``'s candidates: its pair types' or
        ``entity_types``."""
        return self.entity_types if rc.pair_types is None else rc.pair_types.entity_types

    def document_folds(self, rc, folds):
        """The fold of every document of ``rc``: stratified by whether it has a related
        candidate (:func:`learners.splits.group_folds`, seeded by :attr:`seed`)."""
        import numpy as np

        from learners.splits import group_folds

        cands = rc.candidates
        doc_label = np.zeros(len(rc.corpus.documents))
        np.maximum.at(doc_label, cands.doc, (cands.y > 0).astype(float))
        return group_folds(np.arange(len(doc_label)), folds, self.seed,
                           y=np.where(doc_label > 0, 1.0, -1.0))

    # ------------------------------------------------------------------ featurization
    def featurize(self, relation_corpora, data_dir=None):
        """Featurize the mention pairs of ``relation_corpora`` (and, with transfer, of the
        benchmark corpora, spaCy-parsed) in one joint vocabulary.  Returns
        :class:`ppi.documents.mention_stage.Features`.  O(pairs)."""
        from ppi.documents.mention_stage import Features

        t0 = time.perf_counter()
        f = self.featurizer()
        corpora = [rc.corpus for rc in relation_corpora]
        names = list(self.sources) if self.transfer else []
        if names:
            from corpora.ppi_xml import read_corpus
            from ppi.names import corpus_path
            from ppi.parsing.spacy_analyses import add_spacy_analyses

            corpora += [add_spacy_analyses(read_corpus(corpus_path(data_dir, n)),
                                           self.spacy_model) for n in names]
        sets = f.fit_transform(corpora, progress=self.progress)
        rows = sets[:len(relation_corpora)]
        sources, dropped = {}, {}
        if names:
            from ppi.learning.transfer import leak_guarded, sentence_texts

            datasets = dict(zip(names, sets[len(relation_corpora):]))
            texts = {n: sentence_texts(c)
                     for n, c in zip(names, corpora[len(relation_corpora):])}
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

    # ------------------------------------------------------------------ transfer
    def source_model(self, features, data_dir=None):
        """``(w_g, info)`` of the transfer prior (None, {} without transfer): the mean of
        the source corpora's linear models over the featurizer's columns (each λ by its
        own leave-one-document-out AUC; fits cached by :mod:`ppi.learning.source_cache`),
        and what they were."""
        if not self.transfer:
            return None, {}
        import numpy as np

        from ppi.documents.mention_stage import mention_learner_input
        from ppi.learning.evaluation import expansion, select_parameters
        from ppi.learning.source_cache import source_fit
        from ppi.names import corpus_path
        from ppi.parsing.spacy_analyses import spacy_identity

        t0 = time.perf_counter()
        settings = {"system": "documents", "views": list(self.views), "order": "text",
                    "bow_parse": "spacy", "spacy": spacy_identity(self.spacy_model),
                    "learner": self.learner, "n_basis": self.n_basis, "seed": self.seed,
                    "alphas": self.alpha_grid.tolist(), "select_by": "auc"}
        ws, info = [], {"sources": [], "source_alpha": {}, "dropped_pairs": features.dropped}
        for name, d in features.sources.items():
            def fit(d=d):
                K = mention_learner_input(d.X, self.learner, self.n_basis)
                sel, choice = select_parameters(K, d.y, d.document_ids, self.alpha_grid,
                                                self.learner, self.n_basis, self.seed, "auc")
                _, coef = expansion(sel.model, d.X, choice["alpha"])
                basis = getattr(sel.model, "basis_indices_", None)
                rows = np.arange(len(d)) if basis is None else np.asarray(basis)
                return choice["alpha"], rows, np.asarray(coef, dtype=float).ravel()

            alpha, rows, coef = source_fit(name, corpus_path(data_dir, name), d, settings,
                                           fit, data_dir)
            ws.append(np.asarray(d.X[rows].T @ coef).ravel())
            info["sources"].append(name)
            info["source_alpha"][name] = alpha
        info["source_seconds"] = time.perf_counter() - t0
        log.info("source models %s (%.0f s)", ", ".join(info["sources"]),
                 info["source_seconds"])
        return np.mean(ws, axis=0), info

    # ------------------------------------------------------------------ the fit
    def fit_mention_stage(self, rc, X, w_source=None):
        """Stage 1 alone on the relation corpus ``rc`` (mention pairs ``X``; ``w_source``:
        the transfer prior's weights): ``(w, selection)`` — the linear mention-pair model
        over the featurizer's columns, and what the selection found: ``params`` (λ[, β]),
        ``auc``, ``threshold``, ``f1`` and ``heldout``, the leave-one-document-out scores of
        the mention pairs, from which the document stage learns (:meth:`fit`)."""
        import numpy as np

        from ppi.documents.mention_stage import instance_weights, select_instances

        cands = rc.candidates
        prior = None if w_source is None else np.asarray(X @ w_source).ravel()
        bags = None
        if self.instances == "mi":
            related = np.flatnonzero((cands.y > 0) & (cands.bag_sizes > 0))
            bags = [cands.bag_rows[cands.bag_ptr[c]:cands.bag_ptr[c + 1]] for c in related]
        sel = select_instances(X, rc.instance_labels(), cands, rc.documents_of_pairs(), self,
                               prior, bags)
        return instance_weights(sel, X, w_source), sel

    def fit(self, rc, X, w_source=None, source_info=None):
        """Fit the system on the relation corpus ``rc`` whose mention pairs have the rows
        ``X`` (``w_source``: the transfer prior's weights, :meth:`source_model`).  Returns
        :class:`ppi.documents.mention_stage.DocumentFit`."""
        from ppi.documents.mention_stage import DocumentFit, check_classes
        from ppi.documents.stage import ALPHAS as STAGE_ALPHAS
        from ppi.documents.stage import GAMMAS, DocumentStage, document_features

        check_classes(rc, entity_types=self._types_of(rc))
        if rc.pair_types is not None:
            from ppi.documents.typed_fit import fit_typed

            return fit_typed(self, rc, X, w_source, source_info)
        t0 = time.perf_counter()
        cands = rc.candidates
        w, sel = self.fit_mention_stage(rc, X, w_source)
        info = {"alpha": sel["params"]["alpha"], "beta": sel["params"].get("beta"),
                "instance_auc": sel["auc"], "instance_f1": sel["f1"],
                "instance_threshold": sel["threshold"], "n_pairs": int(X.shape[0]),
                "n_candidates": len(cands), "n_related": int((cands.y > 0).sum()),
                "n_documents": len(rc.corpus.documents), **(source_info or {})}
        stage = None
        if self.document_stage:
            F = document_features(sel["heldout"], cands)
            grid = {"alphas": STAGE_ALPHAS, "gammas": GAMMAS} if self.stage_search else {}
            stage = DocumentStage(**grid).fit(F, cands.y, cands.doc)
            info.update(stage_alpha=stage.alpha_, stage_gamma=stage.gamma_,
                        stage_auc=stage.inner_auc_, stage_f1=stage.inner_f1_)
        info["seconds"] = time.perf_counter() - t0
        return DocumentFit(None, w, sel["threshold"], stage, info)

    # ------------------------------------------------------------------ evaluation
    def cross_validate(self, rc, X, *, folds=10, w_source=None, source_info=None):
        """Document-level ``folds``-fold CV of the whole system on ``rc`` (rows ``X``):
        every fit inside the training documents (stratified document folds by related
        candidates, :func:`learners.splits.group_folds`).  Returns the pooled out-of-fold
        candidate scores, the per-fold measures and their mean."""
        import numpy as np

        from ppi.documents.mention_stage import candidate_measures, predict_documents

        self.check_data(rc, folds)
        cands = rc.candidates
        fold_of_doc = self.document_folds(rc, folds)
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
            fit = self.fit(tr, Xtr, w_source, source_info)
            if te.pair_types is not None:         # typed: each row by its pair type
                S = fit.row_outputs(Xte, te.row_pair_types())
                s = fit.candidate_outputs(S, te.candidates)["score"]
                d = s > fit.threshold
            else:
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
