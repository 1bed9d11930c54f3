"""Saved PPI extraction models: a documented, versioned, non-pickle format.

A model is a directory with two files, written as a unit and read back by the sealed-file
module :mod:`kernelrank.sealed` (:func:`kernelrank.sealed.save_directory`: a crash or a full
disk leaves the old model whole, never the JSON of one model beside the weights of another):

``model.json`` (UTF-8 JSON)::

    {"format": "kernelrank-ppi-model", "version": 3,
     "featurizer": {"parse": ..., "variant": "max"|"sum", "normalize": true,
                    "min_weight": 1e-05, "n_features": null|int,
                    "graph": {GraphSettings fields}},
     "alpha": λ, "threshold": t, "learner": "rls"|"reduced_set",
     "training": {"corpus": ..., "n_pairs": ..., "inner_f1": ..., "spacy_model": the spaCy
                  pipeline of its spaCy analyses, "spacy_conversion": the version of
                  their conversion (models that read them)},
     "labels": [label strings; a label's id is its position],
     "n_labels": len(labels), "weights_sha256": sha256 of weights.npz,
     "meta_sha256": sha256 of this object without the key itself, as canonical JSON}

``weights.npz`` (NumPy, ``allow_pickle=False``): ``pair_codes`` (int64, sorted; code
``i·2^32 + j`` is the label pair (labels[i], labels[j])) or, with feature hashing,
``columns`` (hashed column numbers) — and ``weights`` (float64, same length).

:meth:`PPIModel.load` checks the pair: the weights file's sha256 and the label count must
be the ones ``model.json`` records, ``model.json`` must still have the content its own
``meta_sha256`` sealed (a hand-edited threshold, label or graph weight would otherwise score
silently differently), every stored code must name a label (or column), every field must
have its type and every number be finite; otherwise a
:class:`~kernelrank.errors.CorpusFormatError` names the file and the field. The canonical
JSON of ``meta_sha256`` is ``json.dumps(meta, sort_keys=True, separators=(",", ":"))``, so
whitespace and key order do not matter. Version 2 (no ``meta_sha256``) and version 1
directories (no checksum at all) still load, with every field checked.

Version 4 (multi-view models, :class:`ppi.views.MultiViewFeaturizer`; issue 14) — single-view
(``paper-v``) models are still written as version 3, so that they stay readable by older
releases and their files do not change; ``model.json``::

    {"format": "kernelrank-ppi-model", "version": 4,
     "featurizer": {"kind": "multiview", "variant": "max"|"sum", "normalize": true,
                    "min_weight": 1e-05, "n_features": null|int (apg hashing width),
                    "bow_parse": parse whose tokens the bow view reads,
                    "graph": {GraphSettings fields},
                    "views": [{"name": "apg:split_parse"|"bow"|"path:PARSE"|...,
                               "weight": w_v (normalized, Σ = 1),
                               "n_vocabulary": entries of its vocabulary array,
                               "n_weights": its stored weights}, ...]},
     "parses": [the dependency analyses the views read, in view order],
     "alpha", "threshold", "learner", "training", "weights_sha256", "meta_sha256"}

``weights.npz`` holds, for view number ``k`` (its position in ``views``), ``v<k>_weights``
(float64, finite) and its vocabulary: an ``apg`` view ``v<k>_labels`` (NumPy unicode array
of the used vertex labels) and ``v<k>_pair_codes`` (int64, strictly increasing, codes as in
version 3, both halves < len(labels)) or, hashed, ``v<k>_columns`` (int64, strictly
increasing, < n_features); a ``bow`` / ``path`` view ``v<k>_features`` (unicode array of the
used feature strings, strictly increasing — the order of
:class:`learners.kernels.bag.BagOfFeaturesKernel`'s ``vocabulary_``).  Only the entries
with a non-zero weight are stored.  The row of a pair is the concatenation of
``√w_v · x̂_v`` over the views (``x̂_v`` unit norm with the norm of the *whole* feature
vector, so pruning the vocabulary does not change a score), and ``f(x) = x · w`` as below.
Every field and array is checked as for version 3; view names by
:func:`ppi.views.parse_view`, and ``parses`` must be the ones the views need.
:attr:`PPIModel.parses` lists them: raw text has one analysis (spaCy's), which
``ppi extract`` stores under each of these names.

Version 5 (multi-view models with the Gaussian top kernel, ``ppi train --gamma G``;
:func:`learners.kernels.gaussian_of`): the model is ``f(x) = Σ_j c_j exp(−γ‖x − b_j‖²)`` over
its basis rows ``b_j`` (the training pairs, or a reduced-set model's basis), which no
primal weight vector replaces.  ``model.json`` is version 4's with ``"version": 5`` and
``"kernel": {"name": "gaussian", "gamma": γ, "n_basis": r}``; in ``weights.npz`` each view's
``v<k>_weights`` holds, for its stored vocabulary entries, the 1-based column number of that
entry in the basis matrix (the entries are exactly the columns some basis row uses), and
``basis_data`` (float64), ``basis_indices`` (int64, columns 0-based), ``basis_indptr``
(int64, length r + 1) are the basis rows as CSR, ``dual_coef`` (float64, length r) the
``c_j``.  Loading checks, besides version 4's checks: γ positive and finite, the CSR
consistent, every column number used exactly once and every basis column stored.

Version 6 (the ``documents`` system, :mod:`ppi.document_system`; ``ppi train
--relations-from``): a linear multi-view model of the mention pairs exactly as version 4, plus
the document stage (:mod:`ppi.document_stage`) and the entity types whose mentions are
candidates.  ``model.json`` is version 4's with ``"version": 6`` and::

    "document": {"entity_types": [mention types, e.g. "Gene", "GeneOrGeneProduct"],
                 "features": [the names of ppi.document_stage.FEATURES],
                 "stage": null | {"gamma": γ, "alpha": λ, "threshold": t, "n_basis": m},
                 "instance_threshold": the mention pairs' threshold}

and ``threshold`` is the candidates' (the stage's, or the instance threshold without a
stage).  ``weights.npz`` holds version 4's arrays and, with a stage, ``doc_mean``,
``doc_scale`` (float64, one per feature, scale > 0), ``doc_basis`` (float64, m × features)
and ``doc_dual_coef`` (float64, m), all finite.

Each version is read and written by one class: :class:`SingleViewModel` (versions 1–3),
:class:`MultiViewModel` (4), :class:`GaussianModel` (5), :class:`DocumentModel` (6),
subclasses of :class:`PPIModel`; :meth:`PPIModel.load` returns the class of the file's
version, and a system (:attr:`ppi.systems.base.System.model_class`) says which one
``ppi train`` writes.

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
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError
from kernelrank.sealed import NPZ_ERRORS, meta_sha256  # noqa: F401 (this module's names too)
from kernelrank.sealed import NUMBER, SealedFormat, save_directory
from learners.kernels import gaussian_of, squared_row_norms
from learners.kernels.sparse_product import sparse_dense_product
from ppi.features import PairFeaturizer
from ppi.graphs import GraphSettings
from ppi.names import DEFAULT_SPACY_MODEL, MAX_HASH_FEATURES, VARIANTS

FORMAT, VERSION = "kernelrank-ppi-model", 3
#: the version of multi-view models (single-view ones are written as :data:`VERSION`)
MULTIVIEW_VERSION = 4
#: multi-view models with the Gaussian top kernel (dual: basis rows and coefficients)
GAUSSIAN_VERSION = 5
#: the documents system: a linear multi-view model of mention pairs + its document stage
DOCUMENT_VERSION = 6
VERSIONS = (1, 2, 3, 4, 5, 6)
#: version 6's arrays of the document stage
_STAGE_ARRAYS = ("doc_mean", "doc_scale", "doc_basis", "doc_dual_coef")
#: version 5's arrays beside the views' blocks
_BASIS_ARRAYS = ("basis_data", "basis_indices", "basis_indptr", "dual_coef")

__all__ = ["PPIModel", "LinearModel", "SingleViewModel", "MultiViewModel", "GaussianModel",
           "DocumentModel", "FORMAT", "VERSION", "MULTIVIEW_VERSION",
           "GAUSSIAN_VERSION", "DOCUMENT_VERSION", "featurizer_parses", "load_model",
           "read_training", "learned_from", "check_not_learned_from"]


def featurizer_parses(featurizer):
    """The dependency analyses (canonical parse names) ``featurizer`` reads, in view order:
    ``(parse,)`` for Paper V's :class:`~ppi.features.PairFeaturizer`; for a
    :class:`~ppi.views.MultiViewFeaturizer` the parse of every ``apg`` / ``path`` view and,
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
    featurizer : ppi.features.PairFeaturizer or ppi.views.MultiViewFeaturizer
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
        (:data:`ppi.spacy_parse.CONVERSIONS`): ``ppi extract`` converts raw text's parse with
        it.  Recorded as ``training.spacy_conversion``; a model that reads spaCy's analyses
        but was saved before it was recorded gets 1, the conversion of its training; a
        model that reads the corpus files' parses gets the current
        :data:`ppi.spacy_parse.CONVERSION_VERSION`, the closest to their collapsed Stanford
        dependencies."""
        from ppi.spacy_parse import CONVERSION_VERSION

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
    meta = _read_meta(d / "model.json")
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
        spaCy — from one set of rows, :meth:`ppi.views.MultiViewFeaturizer.scores`; the
        same scores up to round-off)."""
        return self.featurizer.scores([corpus], self.weights)[0]


class SingleViewModel(LinearModel):
    """Paper V's model (format version 3): one all-paths view
    (:class:`ppi.features.PairFeaturizer`), its label list in ``model.json``; versions 1
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
        featurizer, weights = _load_single_view(d, meta)
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"))


class MultiViewModel(LinearModel):
    """A linear multi-view model (format version 4, :class:`ppi.views.MultiViewFeaturizer`):
    per view its weight, pruned vocabulary and block of the weights."""

    version = MULTIVIEW_VERSION

    def _payload(self):
        return _multiview_payload(self, self.weights)

    @classmethod
    def _from_saved(cls, d, meta):
        featurizer, weights, _ = _load_multiview(d, meta)
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"))


def gaussian_of_new_rows(K, gamma, featurizer, basis_sq):
    """``exp(−γ‖x − b‖²)`` from the inner products ``K`` (m × r) of new rows of a fitted
    multi-view ``featurizer`` with basis rows of squared norms ``basis_sq``, ``‖x‖²`` taken
    as the new row's norm in the full feature space, ``Σ_v w_v`` (the reason:
    :meth:`GaussianModel._gaussian_of_products`) — the one convention of the saved
    Gaussian model and of the development selection (:mod:`ppi.development`).  O(m r)."""
    full = np.full(K.shape[0], float(np.sum(featurizer.weights)))
    return gaussian_of(np.asarray(K, dtype=float), gamma, full, basis_sq)


class GaussianModel(PPIModel):
    """A multi-view model with the Gaussian top kernel (format version 5):
    ``f(x) = Σ_j c_j exp(−γ‖x − b_j‖²)`` over its basis rows.

    Parameters
    ----------
    featurizer : ppi.views.MultiViewFeaturizer
        Fitted.
    alpha, threshold, learner, training : as :class:`PPIModel`
    basis : sparse matrix (r × the featurizer's columns)
    dual_coef : array-like (r,)
    gamma : float
    """

    version = GAUSSIAN_VERSION

    def __init__(self, featurizer, alpha, threshold, learner="rls", training=None, *, basis,
                 dual_coef, gamma):
        from ppi.views import MultiViewFeaturizer

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
        :func:`learners.kernels.gram_matrix`'s dense/sparse column split costs ≈ 70 ms a
        call over a model's columns, more than a batch of sentences), then
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
        transposed basis rows by :meth:`ppi.views.MultiViewFeaturizer.scores` (views of
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
        featurizer, numbers, arrays = _load_multiview(d, meta)
        basis = _basis_rows(d / "weights.npz", arrays, numbers, meta["kernel"]["n_basis"])
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
    """A model of the ``documents`` system (:mod:`ppi.document_system`; format version 6):
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
    stage : ppi.document_stage.DocumentStage or None — None: a candidate's score is the
        maximum of its mention pairs'
    """

    version = DOCUMENT_VERSION

    def __init__(self, featurizer, weights, alpha, threshold, learner="rls", training=None,
                 *, entity_types, instance_threshold, stage=None):
        super().__init__(featurizer, weights, alpha, threshold, learner, training)
        self.entity_types = tuple(entity_types)
        self.instance_threshold = float(instance_threshold)
        self.stage = stage

    @property
    def pair_threshold(self):
        """A mention pair's threshold (the candidates' is ``threshold``)."""
        return self.instance_threshold

    def candidate_scores(self, pair_scores, candidates):
        """Scores of ``candidates`` (:class:`ppi.relations.Candidates`) from their mention
        pairs' scores: the document stage's, or the bag maxima (−inf for an empty bag)."""
        from ppi.relations import bag_max

        if self.stage is None:
            return bag_max(pair_scores, candidates)
        from ppi.document_stage import document_features

        return self.stage.decision_function(document_features(pair_scores, candidates))

    def _payload(self):
        fields, arrays = _multiview_payload(self, self.weights)
        from ppi.document_stage import FEATURES

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
        featurizer, weights, arrays = _load_multiview(d, meta)
        doc = meta["document"]
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"), entity_types=doc["entity_types"],
                   instance_threshold=doc["instance_threshold"],
                   stage=_document_stage(d / "weights.npz", arrays, doc))


#: the class that reads each format version
_CLASS_OF_VERSION = {1: SingleViewModel, 2: SingleViewModel, VERSION: SingleViewModel,
                     MULTIVIEW_VERSION: MultiViewModel, GAUSSIAN_VERSION: GaussianModel,
                     DOCUMENT_VERSION: DocumentModel}


def load_model(directory):
    """The model saved in ``directory`` (:meth:`PPIModel.load`: the class of its format
    version, e.g. a :class:`DocumentModel` for version 6)."""
    return PPIModel.load(directory)


def read_training(directory):
    """The ``training`` record of the model saved in ``directory`` — what it learned from
    (e.g. a ``documents`` model's entity and relation types, :func:`ppi.records.
    pair_definition`) — from ``model.json`` alone, checked as :meth:`PPIModel.load` checks
    it, without reading the weights.  O(size of ``model.json``).

    Raises
    ------
    DataNotFoundError
        ``directory`` does not hold ``model.json``.
    CorpusFormatError
        ``model.json`` is damaged, altered or of another format (the message names it).
    """
    path = Path(directory) / "model.json"
    if not path.is_file():
        raise DataNotFoundError(f"{directory} is not a saved PPI model (no model.json); "
                                "create one with `python -m ppi train`")
    training = _read_meta(path).get("training")
    return training if isinstance(training, dict) else {}


def learned_from(training):
    """The names of the corpora whose labels a model with the ``training`` record
    (:func:`read_training`) learned from: its training corpus and, with transfer, the
    source corpora of its prior (a mention-level model's ``transfer.sources``, a
    ``documents`` model's ``system.sources``).  A corpus in this set is no test of the
    model.  O(1)."""
    names = set()
    if isinstance(training.get("corpus"), str):
        names.add(training["corpus"])
    transfer = training.get("transfer")
    if isinstance(transfer, dict):
        names.update(transfer.get("sources") or ())
    system = training.get("system")
    if isinstance(system, dict) and system.get("transfer"):
        names.update(system.get("sources") or ())
    return names


def check_not_learned_from(models, corpora):
    """Refuse to test saved ``models`` on ``corpora`` (names) they learned from — a training
    corpus or a source of the transfer prior (:func:`learned_from`; ``ppi train --corpus
    AIMed`` takes every other benchmark corpus as a source unless ``--sources`` says
    otherwise): :class:`~kernelrank.errors.InvalidParameterError` naming model and corpora.
    O(size of each ``model.json``)."""
    for model in models:
        leaked = sorted(learned_from(read_training(model)) & set(corpora))
        if leaked:
            raise InvalidParameterError(
                f"{model} learned from {', '.join(leaked)} (its training corpus or a source "
                "of its transfer prior), so its score there is no test; train it with "
                "--sources leaving them out (e.g. `ppi train --corpus AIMed --sources "
                "BioInfer`) or do not test it on them")


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


def _set_apg_vocabulary(featurizer, labels, arrays, n_features):
    """Give a fresh :class:`PairFeaturizer` the stored vocabulary; returns its weight
    vector over the columns it will produce."""
    v = featurizer.vectorizer
    v.labels_ = list(labels)
    v._index = {x: i for i, x in enumerate(v.labels_)}
    if n_features is None:
        v.pair_codes_ = arrays["pair_codes"].astype(np.int64)
        return arrays["weights"]
    weights = np.zeros(int(n_features))
    weights[arrays["columns"]] = arrays["weights"]
    return weights


def _graph_settings(path, g):
    g = dict(g)
    g["remove_types"] = tuple(g.get("remove_types", ("punct",)))
    try:
        return GraphSettings(**g)
    except (TypeError, ValueError, KeyError) as exc:   # InvalidParameterError included
        raise CorpusFormatError(f"bad featurizer settings ({exc}); retrain with "
                                "`python -m ppi train`", path=path) from None


def _load_single_view(d, meta):
    """Versions 1–3: one all-paths featurizer and its weights."""
    arrays = _read_weights(d / "weights.npz", meta)
    f = meta["featurizer"]
    settings = _graph_settings(d / "model.json", f["graph"])
    try:                             # the checks of _read_meta leave only value errors
        featurizer = PairFeaturizer(parse=f["parse"], variant=f["variant"],
                                    normalize=f["normalize"], min_weight=f["min_weight"],
                                    n_features=f["n_features"], settings=settings)
    except (TypeError, ValueError, KeyError) as exc:   # InvalidParameterError included
        raise CorpusFormatError(f"bad featurizer settings ({exc}); retrain with "
                                "`python -m ppi train`", path=d / "model.json") from None
    weights = _set_apg_vocabulary(featurizer, meta["labels"], arrays, f["n_features"])
    return featurizer, weights


def _load_multiview(d, meta):
    """Version 4: a :class:`ppi.views.MultiViewFeaturizer` with every view's stored
    vocabulary and the concatenated weights of its blocks."""
    from ppi.views import MultiViewFeaturizer

    f = meta["featurizer"]
    views = [v["name"] for v in f["views"]]
    arrays = _read_multiview_weights(d / "weights.npz", meta)
    settings = _graph_settings(d / "model.json", f["graph"])
    try:
        featurizer = MultiViewFeaturizer(views, [v["weight"] for v in f["views"]],
                                         variant=f["variant"], settings=settings,
                                         n_features=f["n_features"], bow_parse=f["bow_parse"])
        # the stored (normalized) weights exactly, not renormalized
        featurizer.weights = np.array([v["weight"] for v in f["views"]], dtype=float)
        blocks = []
        for k, (view, (kind, parse)) in enumerate(zip(views, featurizer.kinds)):
            a = {key[len(f"v{k}_"):]: x for key, x in arrays.items()
                 if key.startswith(f"v{k}_")}
            if kind == "apg":
                part = PairFeaturizer(parse=parse, variant=f["variant"], normalize=True,
                                      min_weight=f["min_weight"], n_features=f["n_features"],
                                      settings=settings)
                featurizer._parts[view] = part
                labels = a.get("labels", np.zeros(0, str)).tolist()
                blocks.append(_set_apg_vocabulary(part, labels, a, f["n_features"]))
            else:
                # as Python strings: the look-up dict shares them (a fixed-width '<U68' array
                # of 100,000 features is 27 MB beside the dict's own copies)
                featurizer._parts[view].vocabulary_ = a["features"].astype(object)
                # the bag kernel has at least one column (an empty vocabulary: one zero)
                w = np.zeros(max(len(a["features"]), 1))
                w[:len(a["weights"])] = a["weights"]
                blocks.append(w)
    except (TypeError, ValueError, KeyError) as exc:   # InvalidParameterError included
        raise CorpusFormatError(f"bad featurizer settings ({exc}); retrain with "
                                "`python -m ppi train`", path=d / "model.json") from None
    ends = np.cumsum([len(b) for b in blocks])           # a loaded model saves again
    featurizer.view_slices_ = {v: slice(int(e - len(b)), int(e))
                               for v, b, e in zip(views, blocks, ends)}
    return featurizer, np.concatenate(blocks), arrays


def _basis_rows(path, arrays, numbers, n_basis):
    """Version 5's basis rows over the loaded featurizer's columns: ``numbers`` (the
    loaded views' blocks) holds, per loaded column, the 1-based basis column it stands for
    (0: a padding column); every number must be used once and every basis column stored."""
    data, indices, indptr, coef = (arrays[k] for k in _BASIS_ARRAYS)
    if (data.dtype != np.float64 or indices.dtype != np.int64 or indptr.dtype != np.int64
            or coef.dtype != np.float64 or data.ndim != 1 or indices.shape != data.shape
            or indptr.shape != (n_basis + 1,) or coef.shape != (n_basis,)):
        raise _bad(path, f"basis arrays of the wrong shape or type for {n_basis} basis rows "
                         f"(data {data.dtype}{data.shape}, indices {indices.dtype}"
                         f"{indices.shape}, indptr {indptr.dtype}{indptr.shape}, dual_coef "
                         f"{coef.dtype}{coef.shape})")
    if not (np.isfinite(data).all() and np.isfinite(coef).all()):
        raise _bad(path, "non-finite basis values or coefficients")
    if indptr[0] != 0 or indptr[-1] != len(data) or np.any(np.diff(indptr) < 0):
        raise _bad(path, "array 'basis_indptr' is not a valid CSR row pointer")
    if not (np.all(numbers == np.round(numbers)) and numbers.min(initial=0) >= 0):
        raise _bad(path, "the views' blocks hold non-integer column numbers")
    loaded = np.flatnonzero(numbers > 0)
    stored = numbers[loaded].astype(np.int64) - 1
    order = np.argsort(stored, kind="stable")
    stored, loaded = stored[order], loaded[order]
    if stored.size > 1 and np.any(stored[1:] == stored[:-1]):
        raise _bad(path, "a basis column number is stored twice")
    # by search, not a table indexed by column number: a damaged file's huge numbers
    # must not allocate memory
    pos = np.minimum(np.searchsorted(stored, indices), max(stored.size - 1, 0))
    if indices.size and (stored.size == 0 or np.any(stored[pos] != indices)):
        raise _bad(path, "a basis row uses a column that no view's vocabulary stores")
    return sp.csr_matrix((data, loaded[pos] if indices.size else indices, indptr),
                         shape=(n_basis, len(numbers)))


# ------------------------------------------------------------------ checks on load
#: the sealed-file reader of the format (:mod:`kernelrank.sealed`)
SEALED = SealedFormat("kernelrank PPI model", "python -m ppi train")
_bad = SEALED.bad        # the error of a damaged or altered file: _bad(path, what)
_NUMBER = NUMBER
#: model.json's fields and their types (version >= 2 adds n_labels and weights_sha256,
#: version 3 meta_sha256); "training" is informational and may be absent
_FIELDS = {"featurizer": dict, "alpha": _NUMBER, "threshold": _NUMBER, "learner": str,
           "labels": list}
_FEATURIZER = {"parse": str, "variant": str, "normalize": bool, "min_weight": _NUMBER,
               "graph": dict}
_GRAPH = {"path_weight": _NUMBER, "other_weight": _NUMBER, "linear_weight": _NUMBER,
          "path_prefix": str, "order": str}


def _read_meta(path):
    """``model.json`` as a dict whose fields have the types :meth:`PPIModel.load` uses."""
    meta = SEALED.read_json(path)
    version = meta.get("version")
    if (meta.get("format") != FORMAT or isinstance(version, bool)
            or version not in VERSIONS):
        raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                f"{version!r} (expected {FORMAT} version 1 to "
                                f"{DOCUMENT_VERSION})", path=path)
    training = meta.get("training")
    if isinstance(training, dict) and "spacy_model" in training and \
            not (isinstance(training["spacy_model"], str) and training["spacy_model"]):
        raise _bad(path, f"field 'training.spacy_model' is {training['spacy_model']!r}, not "
                         "the name or folder of a spaCy pipeline")
    if isinstance(training, dict) and "spacy_conversion" in training:
        from ppi.spacy_parse import CONVERSIONS

        v = training["spacy_conversion"]
        if isinstance(v, bool) or v not in CONVERSIONS:
            raise _bad(path, f"field 'training.spacy_conversion' is {v!r}, not one of the "
                             f"conversions {list(CONVERSIONS)} of spaCy's analysis")
    if version >= MULTIVIEW_VERSION:
        return _read_multiview_meta(path, meta)
    types = dict(_FIELDS)
    if version >= 2:
        types.update(n_labels=int, weights_sha256=str)
    if version >= 3:
        types.update(meta_sha256=str)
    SEALED.check_fields(path, meta, types)
    if version >= 3:
        SEALED.check_seal(path, meta)
    if not all(isinstance(x, str) for x in meta["labels"]):
        raise _bad(path, "field 'labels' holds a non-string")
    if len(set(meta["labels"])) != len(meta["labels"]):
        raise _bad(path, "field 'labels' holds a label twice")
    if version >= 2 and meta["n_labels"] != len(meta["labels"]):
        raise _bad(path, f"{len(meta['labels'])} labels, but the model was saved with "
                         f"{meta['n_labels']}")
    f = meta["featurizer"]
    SEALED.check_fields(path, f, _FEATURIZER, "featurizer.")
    _check_apg_settings(path, f, version)
    return meta


def _check_apg_settings(path, f, version):
    """``featurizer.n_features``, ``variant``, ``min_weight`` and ``graph`` (types checked
    by the caller's table)."""
    if "n_features" not in f:
        raise _bad(path, "no field 'featurizer.n_features'")
    n = f["n_features"]
    if n is not None and (not isinstance(n, int) or isinstance(n, bool)
                          or not 1 <= n <= MAX_HASH_FEATURES):
        raise _bad(path, f"field 'featurizer.n_features' is {n!r}, not null or an integer "
                         f"in 1..{MAX_HASH_FEATURES} (the dense weights are sized by it)")
    if f["variant"] not in VARIANTS or f["min_weight"] < 0:
        raise _bad(path, f"featurizer variant {f['variant']!r} / min_weight "
                         f"{f['min_weight']!r}: expected one of {VARIANTS} and a number >= 0")
    g = f["graph"]
    # version >= 3 has every field GraphSettings writes; older files may lack some (defaults)
    needed = _GRAPH if version >= 3 else {k: t for k, t in _GRAPH.items() if k in g}
    SEALED.check_fields(path, g, needed, "featurizer.graph.")
    if version >= 3 and "remove_types" not in g:
        raise _bad(path, "no field 'featurizer.graph.remove_types'")
    types_ = g.get("remove_types", [])
    if not isinstance(types_, list) or not all(isinstance(x, str) for x in types_):
        raise _bad(path, "field 'featurizer.graph.remove_types' is not a list of strings")


#: version 4's model.json, its featurizer and each of its views
_FIELDS_V4 = {"featurizer": dict, "alpha": _NUMBER, "threshold": _NUMBER, "learner": str,
              "parses": list, "weights_sha256": str, "meta_sha256": str}
_FEATURIZER_V4 = {"kind": str, "variant": str, "normalize": bool, "min_weight": _NUMBER,
                  "bow_parse": str, "graph": dict, "views": list}
_VIEW_V4 = {"name": str, "weight": _NUMBER, "n_vocabulary": int, "n_weights": int}
#: version 5's kernel
_KERNEL_V5 = {"name": str, "gamma": _NUMBER, "n_basis": int}


def _read_multiview_meta(path, meta):
    """Version 4's fields (module docstring), each checked; view names by
    :func:`ppi.views.parse_view`."""
    from corpora.ppi_xml import resolve_parse_name
    from ppi.views import parse_view

    SEALED.check_fields(path, meta, _FIELDS_V4)
    SEALED.check_seal(path, meta)
    if meta["version"] == DOCUMENT_VERSION:
        _check_document_meta(path, meta)
    if meta["version"] == GAUSSIAN_VERSION:
        SEALED.check_fields(path, meta, {"kernel": dict})
        SEALED.check_fields(path, meta["kernel"], _KERNEL_V5, "kernel.")
        k = meta["kernel"]
        if k["name"] != "gaussian" or not k["gamma"] > 0 or k["n_basis"] < 1:
            raise _bad(path, f"field 'kernel' is {k!r}: expected name 'gaussian', gamma > 0 "
                             "and n_basis >= 1")
    f = meta["featurizer"]
    SEALED.check_fields(path, f, _FEATURIZER_V4, "featurizer.")
    if f["kind"] != "multiview" or f["normalize"] is not True:
        raise _bad(path, f"featurizer kind {f['kind']!r} / normalize {f['normalize']!r}: "
                         "version 4 holds a multiview featurizer of normalized views")
    _check_apg_settings(path, f, MULTIVIEW_VERSION)
    try:
        bow_parse = resolve_parse_name(f["bow_parse"])
    except Exception:
        raise _bad(path, f"field 'featurizer.bow_parse' is {f['bow_parse']!r}, not a "
                         "parse name") from None
    if not f["views"]:
        raise _bad(path, "field 'featurizer.views' is empty")
    needed = []
    for k, v in enumerate(f["views"]):
        where = f"featurizer.views[{k}]"
        if not isinstance(v, dict):
            raise _bad(path, f"field {where!r} is {v!r}, not an object")
        SEALED.check_fields(path, v, _VIEW_V4, where + ".")
        try:
            kind, parse = parse_view(v["name"])
        except Exception as exc:
            raise _bad(path, f"field {where + '.name'!r}: {exc}") from None
        if v["weight"] < 0 or v["n_vocabulary"] < 0 or v["n_weights"] < 0:
            raise _bad(path, f"field {where!r} has a negative weight or count")
        if (parse or bow_parse) not in needed:
            needed.append(parse or bow_parse)
    names = [v["name"] for v in f["views"]]
    if len(set(names)) != len(names):
        raise _bad(path, f"field 'featurizer.views' repeats a view ({names})")
    if sum(v["weight"] for v in f["views"]) <= 0:
        raise _bad(path, "the view weights of 'featurizer.views' are all zero")
    if meta["parses"] != needed:
        raise _bad(path, f"field 'parses' is {meta['parses']!r}, but the views read "
                         f"{needed}")
    return meta


_DOCUMENT_V6 = {"entity_types": list, "features": list, "instance_threshold": _NUMBER}
_STAGE_V6 = {"gamma": _NUMBER, "alpha": _NUMBER, "threshold": _NUMBER, "n_basis": int}


def _check_document_meta(path, meta):
    """Version 6's ``document`` object (module docstring)."""
    from ppi.document_stage import FEATURES

    SEALED.check_fields(path, meta, {"document": dict})
    doc = meta["document"]
    SEALED.check_fields(path, doc, _DOCUMENT_V6, "document.")
    if not doc["entity_types"] or not all(isinstance(t, str) and t.strip()
                                          for t in doc["entity_types"]):
        raise _bad(path, "field 'document.entity_types' is not a list of type names")
    if doc["features"] != list(FEATURES):
        raise _bad(path, f"field 'document.features' is {doc['features']!r}; this version "
                         f"computes {list(FEATURES)}")
    if "stage" not in doc:
        raise _bad(path, "no field 'document.stage'")
    st = doc["stage"]
    if st is not None:
        if not isinstance(st, dict):
            raise _bad(path, f"field 'document.stage' is {st!r}, not null or an object")
        SEALED.check_fields(path, st, _STAGE_V6, "document.stage.")
        if not (st["gamma"] > 0 and st["alpha"] > 0 and st["n_basis"] >= 1):
            raise _bad(path, f"field 'document.stage' is {st!r}: gamma and alpha must be "
                             "positive, n_basis >= 1")


def _document_stage(path, arrays, doc):
    """Version 6's :class:`ppi.document_stage.DocumentStage` (None without a stage), its
    arrays checked against ``model.json``."""
    from ppi.document_stage import DocumentStage

    st = doc["stage"]
    if st is None:
        return None
    d, m = len(doc["features"]), st["n_basis"]
    mean, scale, basis, coef = (arrays[k] for k in _STAGE_ARRAYS)
    shapes = {"doc_mean": (mean, (d,)), "doc_scale": (scale, (d,)),
              "doc_basis": (basis, (m, d)), "doc_dual_coef": (coef, (m,))}
    for name, (a, shape) in shapes.items():
        if a.dtype != np.float64 or a.shape != shape or not np.isfinite(a).all():
            raise _bad(path, f"array {name!r} is {a.dtype}{a.shape}, not finite float64 "
                             f"of shape {shape}")
    if not (scale > 0).all():
        raise _bad(path, "array 'doc_scale' holds a scale <= 0")
    return DocumentStage.from_arrays(mean, scale, basis, coef, gamma=st["gamma"],
                                     alpha=st["alpha"], threshold=st["threshold"])


def _load_npz(path, meta):
    """The arrays of ``weights.npz`` once its sha256 is the one ``model.json`` records."""
    return SEALED.read_arrays(path, meta["weights_sha256"] if meta["version"] >= 2 else None)


def _check_block(path, w, codes, codes_name, dtype_kind="i"):
    """Weights (float64, 1-D, finite) and their codes / columns / features (same shape,
    ``dtype_kind``: ``"i"`` int64, ``"U"`` unicode; strictly increasing)."""
    if (w.ndim != 1 or codes.shape != w.shape or w.dtype != np.float64
            or (codes.dtype != np.int64 if dtype_kind == "i" else codes.dtype.kind != "U")):
        raise _bad(path, f"arrays of the wrong shape or type ({w.dtype}{w.shape}, "
                         f"{codes.dtype}{codes.shape})")
    if not np.isfinite(w).all():
        raise _bad(path, "non-finite weights")
    if codes.size > 1 and not np.all(codes[1:] > codes[:-1]):
        raise _bad(path, f"the stored {codes_name} are not strictly increasing")


def _check_range(path, codes, limit, pairs):
    """Every code names an entry below ``limit`` (``pairs``: both halves of a label pair)."""
    if not codes.size:
        return
    low = int(codes.min())
    top = (int(max((codes >> 32).max(), (codes & 0xFFFFFFFF).max())) if pairs
           else int(codes.max()))
    if low < 0 or top >= limit:
        raise _bad(path, f"a stored code names entry {top}, but there are {limit}")


def _read_weights(path, meta):
    """The arrays of a version 1–3 ``weights.npz``, checked against ``model.json``."""
    arrays = _load_npz(path, meta)
    hashed = meta["featurizer"]["n_features"] is not None
    need = ("weights", "columns") if hashed else ("weights", "pair_codes")
    for key in need:
        if key not in arrays:
            raise _bad(path, f"no array {key!r}")
    w, codes = arrays["weights"], arrays[need[1]]
    _check_block(path, w, codes, need[1])
    limit = int(meta["featurizer"]["n_features"]) if hashed else len(meta["labels"])
    _check_range(path, codes, limit, pairs=not hashed)
    return arrays


def _read_multiview_weights(path, meta):
    """The arrays of a version 4 ``weights.npz``, every view's block checked against its
    entry in ``model.json`` (module docstring)."""
    from ppi.views import parse_view

    arrays = _load_npz(path, meta)
    n_features = meta["featurizer"]["n_features"]
    expected = set()
    for k, v in enumerate(meta["featurizer"]["views"]):
        kind = parse_view(v["name"])[0]
        if kind != "apg":
            keys = ("weights", "features")
        elif n_features is None:
            keys = ("weights", "labels", "pair_codes")
        else:
            keys = ("weights", "labels", "columns")
        a = {}
        for key in keys:
            name = f"v{k}_{key}"
            expected.add(name)
            if name not in arrays:
                raise _bad(path, f"no array {name!r} (view {v['name']!r})")
            a[key] = arrays[name]
        codes_name = keys[-1]
        _check_block(path, a["weights"], a[codes_name], f"v{k}_{codes_name}",
                     "U" if codes_name == "features" else "i")
        vocab = a["features"] if kind != "apg" else a["labels"]
        if vocab.ndim != 1 or vocab.dtype.kind != "U":
            raise _bad(path, f"array 'v{k}_{'features' if kind != 'apg' else 'labels'}' is "
                             f"{vocab.dtype}{vocab.shape}, not a 1-D unicode array")
        if len(vocab) != v["n_vocabulary"] or len(a["weights"]) != v["n_weights"]:
            raise _bad(path, f"view {v['name']!r}: {len(vocab)} vocabulary entries and "
                             f"{len(a['weights'])} weights, but model.json records "
                             f"{v['n_vocabulary']} and {v['n_weights']}")
        if kind == "apg":
            if len(np.unique(vocab)) != len(vocab):
                raise _bad(path, f"array 'v{k}_labels' holds a label twice")
            limit = len(vocab) if n_features is None else int(n_features)
            _check_range(path, a[codes_name], limit, pairs=n_features is None)
    extras = {GAUSSIAN_VERSION: _BASIS_ARRAYS,
              DOCUMENT_VERSION: _STAGE_ARRAYS if meta.get("document", {}).get("stage")
              else ()}.get(meta["version"], ())
    for name in extras:
        if name not in arrays:
            raise _bad(path, f"no array {name!r}")
    expected.update(extras)
    extra = sorted(set(arrays) - expected)
    if extra:
        raise _bad(path, f"unexpected arrays {extra}")
    return arrays
