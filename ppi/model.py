"""Saved PPI extraction models: a documented, versioned, non-pickle format.

A model is a directory with two files, written as a unit
(:func:`kernelrank.atomic.atomic_directory`: a crash or a full disk leaves the old model
whole, never the JSON of one model beside the weights of another):

``model.json`` (UTF-8 JSON)::

    {"format": "kernelrank-ppi-model", "version": 2,
     "featurizer": {"parse": ..., "variant": "max"|"sum", "normalize": true,
                    "min_weight": 1e-05, "n_features": null|int,
                    "graph": {GraphSettings fields}},
     "alpha": λ, "threshold": t, "learner": "rls"|"reduced_set",
     "training": {"corpus": ..., "n_pairs": ..., "inner_f1": ...},
     "labels": [label strings; a label's id is its position],
     "n_labels": len(labels), "weights_sha256": sha256 of weights.npz}

``weights.npz`` (NumPy, ``allow_pickle=False``): ``pair_codes`` (int64, sorted; code
``i·2^32 + j`` is the label pair (labels[i], labels[j])) or, with feature hashing,
``columns`` (hashed column numbers) — and ``weights`` (float64, same length).

:meth:`PPIModel.load` checks the pair: the weights file's sha256 and the label count must
be the ones ``model.json`` records, every stored code must name a label (or column), and
every field must have its type; otherwise a :class:`~kernelrank.errors.CorpusFormatError`
names the file and the field. Version 1 directories (no checksum) still load.

Because the kernel is linear in the all-paths features, the dual model
``f(x) = Σ_i a_i k(x, x_i)`` is stored as its primal weight vector ``w = Σ_i a_i x_i``
restricted to its non-zero entries: ``f(x) = x · w``.  A pair is predicted to interact
when ``f(x) > threshold``.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from kernelrank.atomic import atomic_directory, atomic_open, write_json
from kernelrank.checksum import file_sha256
from kernelrank.errors import CorpusFormatError, DataNotFoundError
from ppi.features import PairFeaturizer
from ppi.graphs import GraphSettings

FORMAT, VERSION = "kernelrank-ppi-model", 2

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
            write_json(tmp / "model.json", meta)
        return d

    @classmethod
    def load(cls, directory):
        d = Path(directory)
        if not (d / "model.json").exists() or not (d / "weights.npz").exists():
            raise DataNotFoundError(f"{d} is not a saved PPI model (needs model.json and "
                                    "weights.npz); create one with `python -m ppi train`")
        meta = _read_meta(d / "model.json")
        arrays = _read_weights(d / "weights.npz", meta)
        f = meta["featurizer"]
        g = dict(f["graph"])
        g["remove_types"] = tuple(g.get("remove_types", ("punct",)))
        try:
            featurizer = PairFeaturizer(parse=f["parse"], variant=f["variant"],
                                        normalize=f["normalize"], min_weight=f["min_weight"],
                                        n_features=f["n_features"],
                                        settings=GraphSettings(**g))
        except (TypeError, ValueError, KeyError) as exc:
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


def _read_meta(path):
    """``model.json`` as a dict whose fields have the types :meth:`PPIModel.load` uses."""
    try:
        meta = json.loads(path.read_text(encoding="utf-8"))
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise CorpusFormatError(f"not JSON: {exc}", path=path) from None
    if not isinstance(meta, dict):
        raise _bad(path, f"a JSON {type(meta).__name__}, not an object")
    if meta.get("format") != FORMAT or meta.get("version") not in (1, VERSION):
        raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                f"{meta.get('version')!r} (expected {FORMAT} 1 or {VERSION})",
                                path=path)
    types = {"featurizer": dict, "alpha": (int, float), "threshold": (int, float),
             "learner": str, "labels": list}
    if meta["version"] >= 2:
        types.update(n_labels=int, weights_sha256=str)
    for key, kind in types.items():
        if key not in meta:
            raise _bad(path, f"no field {key!r}")
        if not isinstance(meta[key], kind) or isinstance(meta[key], bool):
            raise _bad(path, f"field {key!r} is {meta[key]!r}, not a {_kind(kind)}")
    if not all(isinstance(x, str) for x in meta["labels"]):
        raise _bad(path, "field 'labels' holds a non-string")
    if meta["version"] >= 2 and meta["n_labels"] != len(meta["labels"]):
        raise _bad(path, f"{len(meta['labels'])} labels, but the model was saved with "
                         f"{meta['n_labels']}")
    for key in ("parse", "variant", "normalize", "min_weight", "n_features", "graph"):
        if key not in meta["featurizer"]:
            raise _bad(path, f"no field 'featurizer.{key}'")
    if not isinstance(meta["featurizer"]["graph"], dict):
        raise _bad(path, "field 'featurizer.graph' is not an object")
    return meta


def _kind(kind):
    kinds = kind if isinstance(kind, tuple) else (kind,)
    return " or ".join({"int": "integer", "float": "number", "str": "string",
                        "list": "list", "dict": "object"}[k.__name__] for k in kinds)


def _read_weights(path, meta):
    """The arrays of ``weights.npz``, checked against ``model.json``."""
    if meta["version"] >= 2 and file_sha256(path) != meta["weights_sha256"]:
        raise _bad(path, "its sha256 is not the one model.json records: the two files come "
                         "from different models (or the weights were altered)")
    try:
        with np.load(path, allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise _bad(path, f"not a readable NumPy .npz file ({exc})") from None
    hashed = meta["featurizer"]["n_features"] is not None
    need = ("weights", "columns") if hashed else ("weights", "pair_codes")
    for key in need:
        if key not in arrays:
            raise _bad(path, f"no array {key!r}")
    w, codes = arrays["weights"], arrays[need[1]]
    if w.ndim != 1 or codes.shape != w.shape or w.dtype.kind != "f" or codes.dtype.kind != "i":
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
    return arrays
