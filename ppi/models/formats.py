"""The saved PPI model format: a documented, versioned, non-pickle format, and its reading.

The model classes that write and score (:mod:`ppi.models.classes`) ask this module for
everything they read back: :func:`read_meta` (``model.json``, checked field by field and
against its seal), :func:`load_single_view` / :func:`load_multiview` (a fresh featurizer
given the stored vocabulary, and the weights), :func:`basis_rows` and
:func:`document_stage`.  Every damage is a :class:`~kernelrank.errors.CorpusFormatError`
naming the file.  Cost: O(size of the files).


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

Version 4 (multi-view models, :class:`ppi.representation.views.MultiViewFeaturizer`) —
single-view (``paper-v``) models are still written as version 3, so that they stay readable
by older releases and their files do not change; ``model.json``::

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
:func:`ppi.representation.views.parse_view`, and ``parses`` must be the ones the views need.
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

Version 6 (the ``documents`` system, :mod:`ppi.documents.system`; ``ppi train
--relations-from``): a linear multi-view model of the mention pairs exactly as version 4, plus
the document stage (:mod:`ppi.documents.stage`) and the entity types whose mentions are
candidates.  ``model.json`` is version 4's with ``"version": 6`` and::

    "document": {"entity_types": [mention types, e.g. "Gene", "GeneOrGeneProduct"],
                 "features": [the names of ppi.documents.stage.FEATURES],
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


import numpy as np
import scipy.sparse as sp

from kernelrank.errors import CorpusFormatError
from kernelrank.sealed import NUMBER, SealedFormat
from ppi.representation.features import PairFeaturizer
from ppi.representation.graphs import GraphSettings
from ppi.names import MAX_HASH_FEATURES, VARIANTS

FORMAT, VERSION = "kernelrank-ppi-model", 3
#: the version of multi-view models (single-view ones are written as :data:`VERSION`)
MULTIVIEW_VERSION = 4
#: multi-view models with the Gaussian top kernel (dual: basis rows and coefficients)
GAUSSIAN_VERSION = 5
#: the documents system: a linear multi-view model of mention pairs + its document stage
DOCUMENT_VERSION = 6
#: a typed documents model: pair types, relation types, novelty
#: (:mod:`ppi.models.relation_model`)
RELATION_VERSION = 7
VERSIONS = (1, 2, 3, 4, 5, 6, 7)
#: version 6's arrays of the document stage
STAGE_ARRAYS = ("doc_mean", "doc_scale", "doc_basis", "doc_dual_coef")
#: version 5's arrays beside the views' blocks
BASIS_ARRAYS = ("basis_data", "basis_indices", "basis_indptr", "dual_coef")

__all__ = ["FORMAT", "VERSION", "MULTIVIEW_VERSION", "GAUSSIAN_VERSION", "DOCUMENT_VERSION",
           "RELATION_VERSION",
           "VERSIONS", "STAGE_ARRAYS", "BASIS_ARRAYS", "SEALED", "read_meta",
           "load_single_view", "load_multiview", "basis_rows", "document_stage"]


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


def load_single_view(d, meta):
    """Versions 1–3: one all-paths featurizer and its weights."""
    arrays = _read_weights(d / "weights.npz", meta)
    f = meta["featurizer"]
    settings = _graph_settings(d / "model.json", f["graph"])
    try:                             # the checks of read_meta leave only value errors
        featurizer = PairFeaturizer(parse=f["parse"], variant=f["variant"],
                                    normalize=f["normalize"], min_weight=f["min_weight"],
                                    n_features=f["n_features"], settings=settings)
    except (TypeError, ValueError, KeyError) as exc:   # InvalidParameterError included
        raise CorpusFormatError(f"bad featurizer settings ({exc}); retrain with "
                                "`python -m ppi train`", path=d / "model.json") from None
    weights = _set_apg_vocabulary(featurizer, meta["labels"], arrays, f["n_features"])
    return featurizer, weights


def load_multiview(d, meta):
    """Version 4: a :class:`ppi.representation.views.MultiViewFeaturizer` with every view's stored
    vocabulary and the concatenated weights of its blocks."""
    from ppi.representation.views import MultiViewFeaturizer

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


def basis_rows(path, arrays, numbers, n_basis):
    """Version 5's basis rows over the loaded featurizer's columns: ``numbers`` (the
    loaded views' blocks) holds, per loaded column, the 1-based basis column it stands for
    (0: a padding column); every number must be used once and every basis column stored."""
    data, indices, indptr, coef = (arrays[k] for k in BASIS_ARRAYS)
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


def read_meta(path):
    """``model.json`` as a dict whose fields have the types :meth:`PPIModel.load` uses."""
    meta = SEALED.read_json(path)
    version = meta.get("version")
    if (meta.get("format") != FORMAT or isinstance(version, bool)
            or version not in VERSIONS):
        raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                f"{version!r} (expected {FORMAT} version 1 to "
                                f"{RELATION_VERSION})", path=path)
    training = meta.get("training")
    if isinstance(training, dict) and "spacy_model" in training and \
            not (isinstance(training["spacy_model"], str) and training["spacy_model"]):
        raise _bad(path, f"field 'training.spacy_model' is {training['spacy_model']!r}, not "
                         "the name or folder of a spaCy pipeline")
    if isinstance(training, dict) and "spacy_conversion" in training:
        from ppi.parsing.spacy_parse import CONVERSIONS

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
    :func:`ppi.representation.views.parse_view`."""
    from corpora.ppi_xml import resolve_parse_name
    from ppi.representation.views import parse_view

    SEALED.check_fields(path, meta, _FIELDS_V4)
    SEALED.check_seal(path, meta)
    if meta["version"] in (DOCUMENT_VERSION, RELATION_VERSION):
        _check_document_meta(path, meta)
    if meta["version"] == RELATION_VERSION:
        _check_relation_meta(path, meta)
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
    from ppi.documents.stage import FEATURES

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


_RELATIONS_V7 = {"pair_types": list, "relation_types": list, "allowed": list,
                 "default_type": list, "outputs": int, "shared_block": bool,
                 "own_stages": dict,
                 "novelty_threshold": _NUMBER, "n_columns": int, "arrays": list}


def _check_relation_meta(path, meta):
    """Version 7's ``relations`` object (:mod:`ppi.models.relation_model`): its fields'
    types, pair types of two names, an ``allowed`` row per pair type and a column per
    relation type, and array names."""
    SEALED.check_fields(path, meta, {"relations": dict})
    rel = meta["relations"]
    SEALED.check_fields(path, rel, _RELATIONS_V7, "relations.")
    T, K = len(rel["pair_types"]), len(rel["relation_types"])
    if not T or not all(isinstance(p, list) and len(p) == 2 and all(
            isinstance(t, str) and t for t in p) for p in rel["pair_types"]):
        raise _bad(path, "field 'relations.pair_types' is not a list of [type, type] pairs")
    if not all(isinstance(t, str) and t for t in rel["relation_types"]):
        raise _bad(path, "field 'relations.relation_types' is not a list of type names")
    if len(rel["allowed"]) != T or not all(isinstance(r, list) and len(r) == K and all(
            isinstance(x, bool) for x in r) for r in rel["allowed"]):
        raise _bad(path, f"field 'relations.allowed' is not {T} rows of {K} booleans")
    if len(rel["default_type"]) != T or not all(
            isinstance(x, int) and 0 <= x < max(K, 1) for x in rel["default_type"]):
        raise _bad(path, "field 'relations.default_type' is not a relation type per pair type")
    if rel["outputs"] != 1 + K + (rel.get("novelty_stage") is not None):
        raise _bad(path, f"field 'relations.outputs' is {rel['outputs']}, not 1 + {K} "
                         "relation types (+ novelty)")
    th = rel.get("thresholds")
    if th is not None and (not isinstance(th, list) or len(th) != T):
        raise _bad(path, "field 'relations.thresholds' is not one threshold per pair type")
    for t, st in list(rel["own_stages"].items()) + [("novelty", rel.get("novelty_stage"))]:
        if st is not None:
            SEALED.check_fields(path, st, _STAGE_V6, f"relations.stage {t}.")
    if not all(isinstance(a, str) for a in rel["arrays"]):
        raise _bad(path, "field 'relations.arrays' is not a list of array names")


def document_stage(path, arrays, doc):
    """Version 6's :class:`ppi.documents.stage.DocumentStage` (None without a stage), its
    arrays checked against ``model.json``."""
    from ppi.documents.stage import DocumentStage

    st = doc["stage"]
    if st is None:
        return None
    d, m = len(doc["features"]), st["n_basis"]
    mean, scale, basis, coef = (arrays[k] for k in STAGE_ARRAYS)
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
    from ppi.representation.views import parse_view

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
    extras = {GAUSSIAN_VERSION: BASIS_ARRAYS,
              DOCUMENT_VERSION: STAGE_ARRAYS if meta.get("document", {}).get("stage")
              else (),
              RELATION_VERSION: tuple(meta.get("relations", {}).get("arrays", ()))
              }.get(meta["version"], ())
    for name in extras:
        if name not in arrays:
            raise _bad(path, f"no array {name!r}")
    expected.update(extras)
    extra = sorted(set(arrays) - expected)
    if extra:
        raise _bad(path, f"unexpected arrays {extra}")
    return arrays
