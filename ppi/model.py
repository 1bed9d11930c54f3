"""Saved PPI extraction models: a documented, versioned, non-pickle format.

A model is a directory with two files, written as a unit
(:func:`kernelrank.atomic.atomic_directory`: a crash or a full disk leaves the old model
whole, never the JSON of one model beside the weights of another):

``model.json`` (UTF-8 JSON)::

    {"format": "kernelrank-ppi-model", "version": 3,
     "featurizer": {"parse": ..., "variant": "max"|"sum", "normalize": true,
                    "min_weight": 1e-05, "n_features": null|int,
                    "graph": {GraphSettings fields}},
     "alpha": λ, "threshold": t, "learner": "rls"|"reduced_set",
     "training": {"corpus": ..., "n_pairs": ..., "inner_f1": ...},
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

Because the kernel is linear in the all-paths features, the dual model
``f(x) = Σ_i a_i k(x, x_i)`` is stored as its primal weight vector ``w = Σ_i a_i x_i``
restricted to its non-zero entries: ``f(x) = x · w``.  A pair is predicted to interact
when ``f(x) > threshold``.
"""

from __future__ import annotations

import json
import math
import struct
import zipfile
import zlib
from pathlib import Path

import numpy as np

from kernelrank.atomic import atomic_directory, atomic_open, write_json
from kernelrank.checksum import file_sha256, json_sha256
from kernelrank.errors import CorpusFormatError, DataNotFoundError
from ppi.features import PairFeaturizer
from ppi.graphs import GraphSettings
from ppi.names import VARIANTS

FORMAT, VERSION = "kernelrank-ppi-model", 3
VERSIONS = (1, 2, 3)

#: what reading a damaged ``.npz`` archive can raise (zipfile, zlib, numpy's header parser)
NPZ_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError,
              NotImplementedError, RuntimeError, struct.error, OverflowError, IndexError,
              SyntaxError, TypeError, MemoryError)

__all__ = ["PPIModel", "FORMAT", "VERSION"]


class PPIModel:
    """A trained all-paths PPI extractor (featurizer + primal weights + threshold)."""

    def __init__(self, featurizer, weights, alpha, threshold, learner="rls", training=None):
        self.featurizer = featurizer
        self.weights = np.asarray(weights, dtype=float)  # over the featurizer's columns
        self.alpha = float(alpha)
        self.threshold = float(threshold)
        self.learner = learner
        self.training = training or {}

    @classmethod
    def from_fit(cls, featurizer, X_basis, coef, alpha, threshold, learner, training):
        """``w = X_basisᵀ coef`` (rows of the basis / training pairs, dual coefficients)."""
        w = np.asarray(X_basis.T @ np.asarray(coef, dtype=float)).ravel()
        return cls(featurizer, w, alpha, threshold, learner, training)

    def decision_function(self, corpus):
        """``(PairSet, scores)`` for every candidate pair of ``corpus``."""
        (data,) = self.featurizer.transform([corpus])
        return data, np.asarray(data.X @ self.weights).ravel()

    def predict(self, corpus):
        data, s = self.decision_function(corpus)
        return data, s, s > self.threshold

    # ------------------------------------------------------------------ persistence
    def save(self, directory):
        d = Path(directory)
        v = self.featurizer.vectorizer
        keep = np.flatnonzero(self.weights != 0)
        arrays = {"weights": self.weights[keep]}
        if v.n_features is None:
            codes = v.pair_codes_[keep]
            used = np.unique(np.concatenate([codes >> 32, codes & 0xFFFFFFFF]))
            remap = np.full(len(v.labels_), -1, np.int64)
            remap[used] = np.arange(len(used))
            labels = [v.labels_[i] for i in used]
            new = (remap[codes >> 32] << np.int64(32)) | remap[codes & 0xFFFFFFFF]
            order = np.argsort(new)
            arrays = {"weights": self.weights[keep][order], "pair_codes": new[order]}
        else:
            labels = []
            arrays["columns"] = keep.astype(np.int64)
        meta = {"format": FORMAT, "version": VERSION,
                "featurizer": {"parse": self.featurizer.parse, "variant": v.variant,
                               "normalize": v.normalize, "min_weight": v.min_weight,
                               "n_features": v.n_features,
                               "graph": self.featurizer.settings.as_dict()},
                "alpha": self.alpha, "threshold": self.threshold, "learner": self.learner,
                "training": self.training, "labels": labels, "n_labels": len(labels)}
        with atomic_directory(d) as tmp:
            with atomic_open(tmp / "weights.npz", "wb") as handle:
                np.savez_compressed(handle, **arrays)
            meta["weights_sha256"] = file_sha256(tmp / "weights.npz")
            meta["meta_sha256"] = meta_sha256(meta)
            write_json(tmp / "model.json", meta)
        return d

    @classmethod
    def load(cls, directory):
        """The model saved in ``directory``, every field checked (see the module docstring).

        Raises
        ------
        DataNotFoundError
            ``directory`` does not hold ``model.json`` and ``weights.npz``.
        CorpusFormatError
            A file is damaged, altered, of another model, or a field has a wrong type or
            value (the message names the file and the field).
        """
        d = Path(directory)
        if not (d / "model.json").is_file() or not (d / "weights.npz").is_file():
            raise DataNotFoundError(f"{d} is not a saved PPI model (needs model.json and "
                                    "weights.npz); create one with `python -m ppi train`")
        meta = _read_meta(d / "model.json")
        arrays = _read_weights(d / "weights.npz", meta)
        f = meta["featurizer"]
        g = dict(f["graph"])
        g["remove_types"] = tuple(g.get("remove_types", ("punct",)))
        try:                             # the checks of _read_meta leave only value errors
            featurizer = PairFeaturizer(parse=f["parse"], variant=f["variant"],
                                        normalize=f["normalize"], min_weight=f["min_weight"],
                                        n_features=f["n_features"],
                                        settings=GraphSettings(**g))
        except (TypeError, ValueError, KeyError) as exc:   # InvalidParameterError included
            raise CorpusFormatError(f"bad featurizer settings ({exc}); retrain with "
                                    "`python -m ppi train`", path=d / "model.json") from None
        v = featurizer.vectorizer
        v.labels_ = list(meta["labels"])
        v._index = {x: i for i, x in enumerate(v.labels_)}
        if f["n_features"] is None:
            v.pair_codes_ = arrays["pair_codes"].astype(np.int64)
            weights = arrays["weights"]
        else:
            weights = np.zeros(int(f["n_features"]))
            weights[arrays["columns"]] = arrays["weights"]
        return cls(featurizer, weights, meta["alpha"], meta["threshold"], meta["learner"],
                   meta.get("training"))


# ------------------------------------------------------------------ checks on load
def _bad(path, what):
    return CorpusFormatError(f"{what}; the model is damaged — retrain it with "
                             "`python -m ppi train`", path=path)


def meta_sha256(meta):
    """Hex SHA-256 of ``meta`` (without its ``meta_sha256`` key) as canonical JSON: sorted
    keys, no whitespace — the seal of ``model.json``'s content."""
    return json_sha256(meta, exclude=("meta_sha256",))


_NUMBER = (int, float)
#: model.json's fields and their types (version >= 2 adds n_labels and weights_sha256,
#: version 3 meta_sha256); "training" is informational and may be absent
_FIELDS = {"featurizer": dict, "alpha": _NUMBER, "threshold": _NUMBER, "learner": str,
           "labels": list}
_FEATURIZER = {"parse": str, "variant": str, "normalize": bool, "min_weight": _NUMBER,
               "graph": dict}
_GRAPH = {"path_weight": _NUMBER, "other_weight": _NUMBER, "linear_weight": _NUMBER,
          "path_prefix": str, "order": str}


def _check_fields(path, obj, types, prefix=""):
    for key, kind in types.items():
        if key not in obj:
            raise _bad(path, f"no field {prefix + key!r}")
        value = obj[key]
        # bool is an int in Python: only a field declared bool may hold one
        if not isinstance(value, kind) or (isinstance(value, bool) and kind is not bool):
            raise _bad(path, f"field {prefix + key!r} is {value!r}, not a {_kind(kind)}")
        if isinstance(value, float) and not math.isfinite(value):
            raise _bad(path, f"field {prefix + key!r} is {value!r}, not a finite number")


def _read_meta(path):
    """``model.json`` as a dict whose fields have the types :meth:`PPIModel.load` uses."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError) as exc:
        raise CorpusFormatError(f"not JSON: {exc}", path=path) from None
    if not isinstance(meta, dict):
        raise _bad(path, f"a JSON {type(meta).__name__}, not an object")
    version = meta.get("version")
    if (meta.get("format") != FORMAT or isinstance(version, bool)
            or version not in VERSIONS):
        raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                f"{version!r} (expected {FORMAT} version 1, 2 or "
                                f"{VERSION})", path=path)
    types = dict(_FIELDS)
    if version >= 2:
        types.update(n_labels=int, weights_sha256=str)
    if version >= 3:
        types.update(meta_sha256=str)
    _check_fields(path, meta, types)
    if version >= 3 and meta["meta_sha256"] != meta_sha256(meta):
        raise _bad(path, "its content is not the one its meta_sha256 sealed (the file was "
                         "edited or damaged)")
    if not all(isinstance(x, str) for x in meta["labels"]):
        raise _bad(path, "field 'labels' holds a non-string")
    if len(set(meta["labels"])) != len(meta["labels"]):
        raise _bad(path, "field 'labels' holds a label twice")
    if version >= 2 and meta["n_labels"] != len(meta["labels"]):
        raise _bad(path, f"{len(meta['labels'])} labels, but the model was saved with "
                         f"{meta['n_labels']}")
    f = meta["featurizer"]
    _check_fields(path, f, _FEATURIZER, "featurizer.")
    if "n_features" not in f:
        raise _bad(path, "no field 'featurizer.n_features'")
    n = f["n_features"]
    if n is not None and (not isinstance(n, int) or isinstance(n, bool) or n < 1):
        raise _bad(path, f"field 'featurizer.n_features' is {n!r}, not null or a positive "
                         "integer")
    if f["variant"] not in VARIANTS or f["min_weight"] < 0:
        raise _bad(path, f"featurizer variant {f['variant']!r} / min_weight "
                         f"{f['min_weight']!r}: expected one of {VARIANTS} and a number >= 0")
    g = f["graph"]
    # version 3 has every field GraphSettings writes; older files may lack some (defaults)
    needed = _GRAPH if version >= 3 else {k: t for k, t in _GRAPH.items() if k in g}
    _check_fields(path, g, needed, "featurizer.graph.")
    if version >= 3 and "remove_types" not in g:
        raise _bad(path, "no field 'featurizer.graph.remove_types'")
    types_ = g.get("remove_types", [])
    if not isinstance(types_, list) or not all(isinstance(x, str) for x in types_):
        raise _bad(path, "field 'featurizer.graph.remove_types' is not a list of strings")
    return meta


def _kind(kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({"int": "integer", "float": "number", "str": "string", "bool": "boolean",
                        "list": "list", "dict": "object"}[k.__name__] for k in kinds)


def _read_weights(path, meta):
    """The arrays of ``weights.npz``, checked against ``model.json``."""
    if meta["version"] >= 2 and file_sha256(path) != meta["weights_sha256"]:
        raise _bad(path, "its sha256 is not the one model.json records: the two files come "
                         "from different models (or the weights were altered)")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except NPZ_ERRORS as exc:
        raise _bad(path, f"not a readable NumPy .npz file ({type(exc).__name__}: "
                         f"{exc})") from None
    hashed = meta["featurizer"]["n_features"] is not None
    need = ("weights", "columns") if hashed else ("weights", "pair_codes")
    for key in need:
        if key not in arrays:
            raise _bad(path, f"no array {key!r}")
    w, codes = arrays["weights"], arrays[need[1]]
    if (w.ndim != 1 or codes.shape != w.shape or w.dtype != np.float64
            or codes.dtype != np.int64):
        raise _bad(path, f"arrays of the wrong shape or type ({w.dtype}{w.shape}, "
                         f"{codes.dtype}{codes.shape})")
    if not np.isfinite(w).all():
        raise _bad(path, "non-finite weights")
    if codes.size:
        if hashed:
            limit, top = int(meta["featurizer"]["n_features"]), int(codes.max())
        else:
            limit = len(meta["labels"])
            top = int(max((codes >> 32).max(), (codes & 0xFFFFFFFF).max()))
        if codes.min() < 0 or top >= limit:
            raise _bad(path, f"a stored code names entry {top}, but there are {limit}")
        if codes.size > 1 and not np.all(codes[1:] > codes[:-1]):
            raise _bad(path, f"the stored {need[1]} are not strictly increasing")
    return arrays
