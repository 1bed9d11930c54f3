"""Saved PPI extraction models: one class per format version, each of which saves itself
and scores new pairs; the format and its reading are :mod:`ppi.models.formats`.

:class:`SingleViewModel` (versions 1–3, Paper V's one all-paths view), :class:`MultiViewModel`
(4), :class:`GaussianModel` (5) and :class:`DocumentModel` (6) are subclasses of
:class:`PPIModel`; :meth:`PPIModel.load` returns the class of the file's version, and a
system (:attr:`ppi.systems.base.System.model_class`) says which one ``ppi train`` writes.

Because the kernel is linear in the all-paths features, the dual model
``f(x) = Σ_i a_i k(x, x_i)`` is stored as its primal weight vector ``w = Σ_i a_i x_i``
restricted to its non-zero entries: ``f(x) = x · w``.  A pair is predicted to interact
when ``f(x) > threshold``.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kernelrank.atomic import read_consistently
from kernelrank.errors import DataNotFoundError, InvalidParameterError
from kernelrank.sealed import NPZ_ERRORS, meta_sha256  # noqa: F401 (this module's names too)
from kernelrank.sealed import save_directory
from learners.kernels import gaussian_of, squared_row_norms
from learners.kernels.sparse_product import sparse_dense_product
from ppi.models.formats import (DOCUMENT_VERSION, FORMAT, GAUSSIAN_VERSION, MULTIVIEW_VERSION,
                                RELATION_VERSION, VERSION, basis_rows, document_stage, load_multiview,
                                load_single_view, read_meta)
from ppi.models.training_record import check_not_learned_from, learned_from, read_training
from ppi.names import DEFAULT_SPACY_MODEL

__all__ = ["PPIModel", "LinearModel", "SingleViewModel", "MultiViewModel", "GaussianModel",
           "DocumentModel", "FORMAT", "VERSION", "MULTIVIEW_VERSION",
           "GAUSSIAN_VERSION", "DOCUMENT_VERSION", "featurizer_parses", "load_model",
           "read_training", "learned_from", "check_not_learned_from"]


def featurizer_parses(featurizer):
    """The dependency analyses (canonical parse names) ``featurizer`` reads, in view order:
    ``(parse,)`` for Paper V's :class:`~ppi.representation.features.PairFeaturizer`; for a
    :class:`~ppi.representation.views.MultiViewFeaturizer` the parse of every ``apg`` / ``path`` view and,
    with a ``bow`` view, its ``bow_parse`` (the featurizer's ``parses``)."""
    return tuple(featurizer.parses)


class PPIModel:
    """A trained PPI extractor: a fitted featurizer, a scoring function over its rows and a
    threshold.  The base of one class per saved format (module docstring):
    :class:`SingleViewModel` (version 3, Paper V's one all-paths view),
    :class:`MultiViewModel` (4), :class:`GaussianModel` (5) and :class:`DocumentModel` (6);
    a system (:attr:`ppi.systems.base.System.model_class`) says which it saves.
    :meth:`load` reads any of them.

    Parameters
    ----------
    featurizer : ppi.representation.features.PairFeaturizer or ppi.representation.views.MultiViewFeaturizer
        Fitted.
    alpha, threshold : float
        The chosen λ and the decision threshold (``f(x) > threshold``: interaction).
    learner : str
    training : dict or None
        Informational (corpus, file, pairs, inner criterion).
    """

    #: the format version the class writes
    version = None
    #: the Gaussian top kernel's γ (None: a linear model)
    gamma = None
    #: the primal weights over the featurizer's columns (None: a Gaussian model)
    weights = None

    def __init__(self, featurizer, alpha, threshold, learner="rls", training=None):
        self.featurizer = featurizer
        self.alpha = float(alpha)
        self.threshold = float(threshold)
        self.learner = learner
        self.training = training or {}

    @property
    def parses(self):
        """The dependency analyses the model reads (:func:`featurizer_parses`): a
        learning-format file must carry each of them; on raw text ``ppi extract`` and the
        spaCy component store spaCy's analysis under every one."""
        return featurizer_parses(self.featurizer)

    @property
    def spacy_model(self):
        """The spaCy pipeline (installed name or folder) the model was trained on: the one
        ``ppi extract`` parses raw text with unless told otherwise (parser-matched).
        Recorded as ``training.spacy_model`` by the models that read spaCy's analyses; a
        model that reads the corpus files' parses (or was saved before it was recorded)
        gets :data:`ppi.names.DEFAULT_SPACY_MODEL`, the pipeline that parsed raw text for
        it before."""
        name = self.training.get("spacy_model")
        return name if isinstance(name, str) and name else DEFAULT_SPACY_MODEL

    @property
    def spacy_conversion(self):
        """The version of the conversion of spaCy's analysis the model was trained on
        (:data:`ppi.parsing.spacy_parse.CONVERSIONS`): ``ppi extract`` converts raw text's parse with
        it.  Recorded as ``training.spacy_conversion``; a model that reads spaCy's analyses
        but was saved before it was recorded gets 1, the conversion of its training; a
        model that reads the corpus files' parses gets the current
        :data:`ppi.parsing.spacy_parse.CONVERSION_VERSION`, the closest to their collapsed Stanford
        dependencies."""
        from ppi.parsing.spacy_parse import CONVERSION_VERSION

        if "spacy_conversion" in self.training:
            return self.training["spacy_conversion"]
        return 1 if "spacy_model" in self.training else CONVERSION_VERSION

    def decision_function(self, corpus):
        """``(PairSet, scores)`` for every candidate pair of ``corpus``."""
        raise NotImplementedError

    def scores(self, corpus):
        """The scores of :meth:`decision_function` alone."""
        raise NotImplementedError

    def predict(self, corpus):
        """``(PairSet, scores, decisions)`` of the candidate pairs (``score >
        pair_threshold``)."""
        data, s = self.decision_function(corpus)
        return data, s, s > self.pair_threshold

    @property
    def pair_threshold(self):
        """The threshold of one mention pair's score (``ppi extract``'s ``interaction``)."""
        return self.threshold

    # ------------------------------------------------------------------ persistence
    def save(self, directory):
        """Write the model to ``directory`` as a unit, in its class' format version (module
        docstring). Returns the path."""
        d = Path(directory)
        meta = {"format": FORMAT, "alpha": self.alpha, "threshold": self.threshold,
                "learner": self.learner, "training": self.training}
        fields, arrays = self._payload()
        meta.update(fields)
        # checked by the loader before it replaces anything (what is saved can be loaded);
        # the archive is byte for byte reproducible (a loaded model saves to the same bytes)
        save_directory(d, meta, arrays, json_name="model.json", npz_name="weights.npz",
                       validate=PPIModel.load)
        return d

    def _payload(self):
        """``(model.json fields, weights.npz arrays)`` of the class' format."""
        raise NotImplementedError

    @classmethod
    def load(cls, directory):
        """The model saved in ``directory``, every field checked (see the module docstring),
        as the class of its format version.

        Raises
        ------
        DataNotFoundError
            ``directory`` does not hold ``model.json`` and ``weights.npz``.
        CorpusFormatError
            A file is damaged, altered, of another model, or a field has a wrong type or
            value (the message names the file and the field).
        ConcurrentChangeError
            Another run kept replacing ``directory`` while it was read (a reader sees the
            old or the new model, or this retryable error:
            :func:`kernelrank.atomic.read_consistently`).
        """
        d = Path(directory)
        return read_consistently([d], lambda: _load(d), what=f"the PPI model {d}")

    @classmethod
    def _from_saved(cls, d, meta):
        """The model of the checked ``meta`` and the arrays of ``d``."""
        raise NotImplementedError


def _load(d):
    if not (d / "model.json").is_file() or not (d / "weights.npz").is_file():
        raise DataNotFoundError(f"{d} is not a saved PPI model (needs model.json and "
                                "weights.npz); create one with `python -m ppi train`")
    meta = read_meta(d / "model.json")
    return _CLASS_OF_VERSION[meta["version"]]._from_saved(d, meta)


class LinearModel(PPIModel):
    """A linear model: ``f(x) = x · w`` with the primal weights ``w`` over the featurizer's
    columns (a multi-view featurizer's ``view_slices_`` cut them into the views' blocks).

    Parameters
    ----------
    featurizer, alpha, threshold, learner, training : as :class:`PPIModel`
    weights : array-like of float
    """

    def __init__(self, featurizer, weights, alpha, threshold, learner="rls", training=None):
        super().__init__(featurizer, alpha, threshold, learner, training)
        self.weights = np.asarray(weights, dtype=float)     # over the featurizer's columns

    @classmethod
    def from_fit(cls, featurizer, X_basis, coef, alpha, threshold, learner, training):
        """``w = X_basisᵀ coef`` (rows of the basis / training pairs, dual
        coefficients)."""
        w = np.asarray(X_basis.T @ np.asarray(coef, dtype=float)).ravel()
        return cls(featurizer, w, alpha, threshold, learner, training)

    def decision_function(self, corpus):
        """``(PairSet, scores)`` for every candidate pair of ``corpus``."""
        (data,) = self.featurizer.transform([corpus])
        return data, np.asarray(data.X @ self.weights).ravel()

    def scores(self, corpus):
        """The scores of :meth:`decision_function` alone: by the featurizer's ``scores``
        (a multi-view featurizer scores views of identical inputs — raw text parsed by
        spaCy — from one set of rows, :meth:`ppi.representation.views.MultiViewFeaturizer.scores`; the
        same scores up to round-off)."""
        return self.featurizer.scores([corpus], self.weights)[0]


class SingleViewModel(LinearModel):
    """Paper V's model (format version 3): one all-paths view
    (:class:`ppi.representation.features.PairFeaturizer`), its label list in ``model.json``; versions 1
    and 2 load as this class too."""

    version = VERSION

    def _payload(self):
        """Version 3: the label list in model.json, codes and weights in the archive."""
        f = self.featurizer
        v = f.vectorizer
        labels, arrays = _apg_arrays(v, self.weights)
        return ({"version": VERSION,
                 "featurizer": {"parse": f.parse, "variant": v.variant,
                                "normalize": v.normalize, "min_weight": v.min_weight,
                                "n_features": v.n_features, "graph": f.settings.as_dict()},
                 "labels": labels, "n_labels": len(labels)}, arrays)

    @classmethod
    def _from_saved(cls, d, meta):
        featurizer, weights = load_single_view(d, meta)
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"))


class MultiViewModel(LinearModel):
    """A linear multi-view model (format version 4, :class:`ppi.representation.views.MultiViewFeaturizer`):
    per view its weight, pruned vocabulary and block of the weights."""

    version = MULTIVIEW_VERSION

    def _payload(self):
        return _multiview_payload(self, self.weights)

    @classmethod
    def _from_saved(cls, d, meta):
        featurizer, weights, _ = load_multiview(d, meta)
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"))


def gaussian_of_new_rows(K, gamma, featurizer, basis_sq):
    """``exp(−γ‖x − b‖²)`` from the inner products ``K`` (m × r) of new rows of a fitted
    multi-view ``featurizer`` with basis rows of squared norms ``basis_sq``, ``‖x‖²`` taken
    as the new row's norm in the full feature space, ``Σ_v w_v`` (the reason:
    :meth:`GaussianModel._gaussian_of_products`) — the one convention of the saved
    Gaussian model and of the development selection (:mod:`ppi.systems.development`).  O(m r)."""
    full = np.full(K.shape[0], float(np.sum(featurizer.weights)))
    return gaussian_of(np.asarray(K, dtype=float), gamma, full, basis_sq)


class GaussianModel(PPIModel):
    """A multi-view model with the Gaussian top kernel (format version 5):
    ``f(x) = Σ_j c_j exp(−γ‖x − b_j‖²)`` over its basis rows.

    Parameters
    ----------
    featurizer : ppi.representation.views.MultiViewFeaturizer
        Fitted.
    alpha, threshold, learner, training : as :class:`PPIModel`
    basis : sparse matrix (r × the featurizer's columns)
    dual_coef : array-like (r,)
    gamma : float
    """

    version = GAUSSIAN_VERSION

    def __init__(self, featurizer, alpha, threshold, learner="rls", training=None, *, basis,
                 dual_coef, gamma):
        from ppi.representation.views import MultiViewFeaturizer

        if not isinstance(featurizer, MultiViewFeaturizer):
            raise InvalidParameterError("a Gaussian model needs a multi-view featurizer "
                                        "(--system multiview or --views)")
        super().__init__(featurizer, alpha, threshold, learner, training)
        self.gamma = float(gamma)
        basis = sp.csr_matrix(basis, dtype=float)
        self.dual_coef = np.asarray(dual_coef, dtype=float).ravel()
        self._basis_sq = squared_row_norms(basis)
        self._basis_t = basis.T.tocsr()      # columns × r: one sparse product a batch

    @classmethod
    def from_fit(cls, featurizer, X_basis, coef, alpha, threshold, learner, training, *,
                 gamma):
        """The Gaussian model of the basis rows ``X_basis`` and their coefficients."""
        return cls(featurizer, alpha, threshold, learner, training, basis=X_basis,
                   dual_coef=coef, gamma=gamma)

    @property
    def basis(self):
        """The basis rows (r × the featurizer's columns; a view of the stored transpose,
        which is what scoring reads — the model keeps one copy)."""
        return self._basis_t.T

    def decision_function(self, corpus):
        """``(PairSet, scores)`` for every candidate pair of ``corpus``."""
        (data,) = self.featurizer.transform([corpus])
        return data, self._gaussian_scores(data.X)

    def _gaussian_scores(self, X):
        """``Σ_j c_j exp(−γ‖x − b_j‖²)`` for the rows ``X``: the inner products by one
        sparse product with the stored ``Bᵀ`` (CSR) into a dense result
        (:func:`learners.kernels.sparse_product.sparse_dense_product`;
        :func:`learners.kernels.gram_matrix`'s dense/sparse column split of a model's
        columns costs more a call than the product for a batch of sentences), then
        :meth:`_gaussian_of_products`."""
        return self._gaussian_of_products(sparse_dense_product(X, self._basis_t))

    def _gaussian_of_products(self, K):
        """The scores from the inner products ``K`` (m × r) of new rows with the basis rows,
        O(m r).

        ``‖x‖²`` is the norm in the full feature space, ``Σ_v w_v = 1``: every view gives
        every pair at least one feature (the all-paths view its linear-order subgraph,
        ``bow`` its ``gap:`` feature, ``path`` its walk or ``samehead`` / ``nopath``), so each
        unit-normalized view row has norm 1 before the vocabulary drops the features unseen
        in training.  Those features are orthogonal to every basis row; they count in the
        distance through ``‖x‖²`` alone — as in the cross-validation, whose joint vocabulary
        holds every feature of its pairs."""
        return gaussian_of_new_rows(K, self.gamma, self.featurizer,
                                    self._basis_sq) @ self.dual_coef

    def scores(self, corpus):
        """The scores of :meth:`decision_function` alone: the inner products with the
        transposed basis rows by :meth:`ppi.representation.views.MultiViewFeaturizer.scores` (views of
        identical inputs from one set of rows; the same scores up to round-off), then
        :meth:`_gaussian_of_products`."""
        return self._gaussian_of_products(self.featurizer.scores([corpus], self._basis_t)[0])

    def _payload(self):
        """Version 5: version 4's payload of the column numbers (1-based) of the columns the
        basis uses, in place of weights, and the basis rows and coefficients."""
        B = self.basis.tocsr()
        B.sum_duplicates()
        used = np.unique(B.indices)
        numbers = np.zeros(B.shape[1])
        numbers[used] = used + 1.0
        fields, arrays = _multiview_payload(self, numbers)
        fields["version"] = GAUSSIAN_VERSION
        fields["kernel"] = {"name": "gaussian", "gamma": self.gamma, "n_basis": B.shape[0]}
        arrays.update(basis_data=B.data.astype(np.float64),
                      basis_indices=B.indices.astype(np.int64),
                      basis_indptr=B.indptr.astype(np.int64),
                      dual_coef=self.dual_coef.astype(np.float64))
        return fields, arrays

    @classmethod
    def _from_saved(cls, d, meta):
        featurizer, numbers, arrays = load_multiview(d, meta)
        basis = basis_rows(d / "weights.npz", arrays, numbers, meta["kernel"]["n_basis"])
        return cls(featurizer, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"), basis=basis, dual_coef=arrays["dual_coef"],
                   gamma=meta["kernel"]["gamma"])


def _multiview_payload(model, weights):
    """Version 4's fields and arrays of ``model``'s multi-view featurizer: per view its
    weight, pruned vocabulary and block of ``weights``."""
    f = model.featurizer
    views, arrays, apg = [], {}, None
    for k, (view, (kind, _)) in enumerate(zip(f.views, f.kinds)):
        block = weights[f.view_slices_[view]]
        part = f._parts[view]
        if kind == "apg":
            apg = part.vectorizer
            labels, a = _apg_arrays(apg, block)
            vocab = np.array(labels, dtype=str)
            arrays[f"v{k}_labels"] = vocab
        else:
            keep = np.flatnonzero(block != 0)
            vocab = np.asarray(part.vocabulary_)[keep].astype(str)
            a = {"weights": block[keep], "features": vocab}
        arrays.update({f"v{k}_{key}": x for key, x in a.items()})
        views.append({"name": view, "weight": float(f.weights[k]),
                      "n_vocabulary": len(vocab), "n_weights": len(a["weights"])})
    return ({"version": MULTIVIEW_VERSION,
             "featurizer": {"kind": "multiview", "variant": f.variant, "normalize": True,
                            "min_weight": apg.min_weight if apg else 1e-5,
                            "n_features": f.n_features, "bow_parse": f.bow_parse,
                            "graph": f.settings.as_dict(), "views": views},
             "parses": list(model.parses)}, arrays)


class DocumentModel(MultiViewModel):
    """A model of the ``documents`` system (:mod:`ppi.documents.system`; format version 6):
    the linear mention-pair model of :class:`MultiViewModel` (``weights``,
    ``pair_threshold``), the entity types whose mentions are candidates, and the document
    stage that scores every candidate concept pair of a document (``threshold`` is the
    candidates').

    Parameters
    ----------
    featurizer, weights, alpha, threshold, learner, training : as :class:`LinearModel`
        (``threshold``: the candidates' decision threshold)
    entity_types : sequence of str
    instance_threshold : float — a mention pair's threshold
    stage : ppi.documents.stage.DocumentStage or None — None: a candidate's score is the
        maximum of its mention pairs'
    typed : ppi.documents.typed_fit.TypedFit or None — a typed model (format version 7,
        :mod:`ppi.models.relation_format`): every pair type with its relation types and
        novelty; ``weights`` is then unused (the fit's per pair type), ``scores`` are a
        mention pair's q target columns and :meth:`candidate_outputs` says the rest
    """

    version = DOCUMENT_VERSION

    def __init__(self, featurizer, weights, alpha, threshold, learner="rls", training=None,
                 *, entity_types, instance_threshold, stage=None, typed=None):
        super().__init__(featurizer, weights, alpha, threshold, learner, training)
        self.entity_types = tuple(entity_types)
        self.instance_threshold = float(instance_threshold)
        self.stage = stage
        self.typed = typed
        if typed is not None:
            from ppi.models.relation_format import weight_matrix

            self._matrix = weight_matrix(typed)

    @property
    def pair_types(self):
        """A typed model's :class:`ppi.documents.pair_types.PairTypes` (None: untyped)."""
        return None if self.typed is None else self.typed.pair_types

    @property
    def relation_types(self):
        return () if self.typed is None else self.typed.relation_types

    @property
    def n_outputs(self):
        """A typed model's target columns of a mention pair (None: one score)."""
        return None if self.typed is None else self.typed.n_outputs

    def scores(self, corpus):
        """The mention pairs' scores; a typed model's are their target columns (m × q,
        :func:`ppi.models.relation_format.typed_scores`)."""
        if self.typed is None:
            return super().scores(corpus)
        from ppi.models.relation_format import typed_scores

        return typed_scores(self.featurizer, self.typed, corpus)

    def candidate_outputs(self, pair_scores, candidates):
        """A typed model's :meth:`ppi.documents.typed_fit.TypedFit.candidate_outputs` of
        typed ``candidates`` from their mention pairs' target columns."""
        return self.typed.candidate_outputs(np.asarray(pair_scores), candidates)

    @property
    def pair_threshold(self):
        """A mention pair's threshold (the candidates' is ``threshold``)."""
        return self.instance_threshold

    def candidate_scores(self, pair_scores, candidates):
        """Scores of ``candidates`` (:class:`ppi.documents.relations.Candidates`) from their mention
        pairs' scores: the document stage's, or the bag maxima (−inf for an empty bag)."""
        from ppi.documents.relations import bag_max

        if self.typed is not None:
            return self.candidate_outputs(pair_scores, candidates)["score"]
        if self.stage is None:
            return bag_max(pair_scores, candidates)
        from ppi.documents.stage import document_features

        return self.stage.decision_function(document_features(pair_scores, candidates))

    def _payload(self):
        from ppi.documents.stage import FEATURES

        if self.typed is not None:
            from ppi.models.relation_format import typed_payload

            return typed_payload(self.typed, self._matrix,
                                 lambda numbers: _multiview_payload(self, numbers),
                                 {"entity_types": list(self.entity_types),
                                  "features": list(FEATURES),
                                  "instance_threshold": self.instance_threshold})
        fields, arrays = _multiview_payload(self, self.weights)
        st = self.stage
        fields["version"] = DOCUMENT_VERSION
        fields["document"] = {
            "entity_types": list(self.entity_types), "features": list(FEATURES),
            "instance_threshold": self.instance_threshold,
            "stage": None if st is None else {"gamma": st.gamma_, "alpha": st.alpha_,
                                              "threshold": st.threshold_,
                                              "n_basis": int(st.basis_.shape[0])}}
        if st is not None:
            arrays.update(doc_mean=np.asarray(st.mean_, dtype=np.float64),
                          doc_scale=np.asarray(st.scale_, dtype=np.float64),
                          doc_basis=np.asarray(st.basis_, dtype=np.float64),
                          doc_dual_coef=np.asarray(st.dual_coef_, dtype=np.float64))
        return fields, arrays

    @classmethod
    def _from_saved(cls, d, meta):
        featurizer, weights, arrays = load_multiview(d, meta)
        doc = meta["document"]
        if meta["version"] == RELATION_VERSION:
            from ppi.models.relation_format import typed_fit_of

            fit = typed_fit_of(d, meta, weights, arrays)
            return cls(featurizer, np.zeros(0), meta["alpha"], meta["threshold"],
                       meta["learner"], meta.get("training"),
                       entity_types=doc["entity_types"],
                       instance_threshold=doc["instance_threshold"], stage=fit.stage,
                       typed=fit)
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"), entity_types=doc["entity_types"],
                   instance_threshold=doc["instance_threshold"],
                   stage=document_stage(d / "weights.npz", arrays, doc))


#: the class that reads each format version
_CLASS_OF_VERSION = {1: SingleViewModel, 2: SingleViewModel, VERSION: SingleViewModel,
                     MULTIVIEW_VERSION: MultiViewModel, GAUSSIAN_VERSION: GaussianModel,
                     DOCUMENT_VERSION: DocumentModel, RELATION_VERSION: DocumentModel}


def load_model(directory):
    """The model saved in ``directory`` (:meth:`PPIModel.load`: the class of its format
    version, e.g. a :class:`DocumentModel` for version 6)."""
    return PPIModel.load(directory)


def _apg_arrays(vectorizer, weights):
    """``(labels, arrays)`` of an all-paths block: the used labels (renumbered in their
    order) and ``weights`` + ``pair_codes`` (sorted) of its non-zero weights, or with feature
    hashing no labels and ``weights`` + ``columns``."""
    keep = np.flatnonzero(weights != 0)
    if vectorizer.n_features is not None:
        return [], {"weights": weights[keep], "columns": keep.astype(np.int64)}
    codes = vectorizer.pair_codes_[keep]
    used = np.unique(np.concatenate([codes >> 32, codes & 0xFFFFFFFF]))
    remap = np.full(len(vectorizer.labels_), -1, np.int64)
    remap[used] = np.arange(len(used))
    labels = [vectorizer.labels_[i] for i in used]
    new = (remap[codes >> 32] << np.int64(32)) | remap[codes & 0xFFFFFFFF]
    order = np.argsort(new)
    return labels, {"weights": weights[keep][order], "pair_codes": new[order]}


