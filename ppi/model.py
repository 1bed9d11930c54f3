"""Saved PPI extraction models: a documented, versioned, non-pickle format.

A model is a directory with two files:

``model.json`` (UTF-8 JSON)::

    {"format": "kernelrank-ppi-model", "version": 1,
     "featurizer": {"parse": ..., "variant": "max"|"sum", "normalize": true,
                    "min_weight": 1e-05, "n_features": null|int,
                    "graph": {GraphSettings fields}},
     "alpha": λ, "threshold": t, "learner": "rls"|"reduced_set",
     "training": {"corpus": ..., "n_pairs": ..., "inner_f1": ...},
     "labels": [label strings; a label's id is its position]}

``weights.npz`` (NumPy, ``allow_pickle=False``): ``pair_codes`` (int64, sorted; code
``i·2^32 + j`` is the label pair (labels[i], labels[j])) or, with feature hashing,
``columns`` (hashed column numbers) — and ``weights`` (float64, same length).

Because the kernel is linear in the all-paths features, the dual model
``f(x) = Σ_i a_i k(x, x_i)`` is stored as its primal weight vector ``w = Σ_i a_i x_i``
restricted to its non-zero entries: ``f(x) = x · w``.  A pair is predicted to interact
when ``f(x) > threshold``.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from kernelrank.atomic import atomic_open, write_json
from kernelrank.errors import CorpusFormatError, DataNotFoundError
from ppi.features import PairFeaturizer
from ppi.graphs import GraphSettings

FORMAT, VERSION = "kernelrank-ppi-model", 1

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
                "training": self.training, "labels": labels}
        write_json(d / "model.json", meta)
        with atomic_open(d / "weights.npz", "wb") as handle:
            np.savez_compressed(handle, **arrays)
        return d

    @classmethod
    def load(cls, directory):
        d = Path(directory)
        if not (d / "model.json").exists() or not (d / "weights.npz").exists():
            raise DataNotFoundError(f"{d} is not a saved PPI model (needs model.json and "
                                    "weights.npz); create one with `python -m ppi train`")
        try:
            meta = json.loads((d / "model.json").read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise CorpusFormatError(f"not JSON: {exc}", path=d / "model.json") from None
        if meta.get("format") != FORMAT or meta.get("version") != VERSION:
            raise CorpusFormatError(f"unsupported model format {meta.get('format')!r} version "
                                    f"{meta.get('version')!r} (expected {FORMAT} {VERSION})",
                                    path=d / "model.json")
        f = meta["featurizer"]
        g = dict(f["graph"])
        g["remove_types"] = tuple(g.get("remove_types", ("punct",)))
        featurizer = PairFeaturizer(parse=f["parse"], variant=f["variant"],
                                    normalize=f["normalize"], min_weight=f["min_weight"],
                                    n_features=f["n_features"], settings=GraphSettings(**g))
        with np.load(d / "weights.npz", allow_pickle=False) as z:
            arrays = {k: z[k] for k in z.files}
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
