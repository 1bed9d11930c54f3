"""The saved model of a typed ``documents`` system (format version 7): every pair type, its
relation types and novelty (:mod:`ppi.documents.typed_fit`).

What version 7 adds to version 6 (:class:`ppi.models.classes.DocumentModel`):

* ``model.json``'s ``relations`` object: the pair types (``[[a, b], …]``), the relation
  types, which types each pair type takes (``allowed``) and its most frequent
  (``default_type``), the number ``q`` of target columns (related, the relation types,
  novel), each pair type's threshold, the pair types with a document stage of their own,
  novelty's threshold, and the names of the arrays below;
* the weights as a matrix: the featurizer is pruned to the columns any weight uses, and
  stores for each the 1-based row of ``relation_weights`` (columns × T·q: pair type ``t``'s
  column ``c`` is ``t·q + c``) in place of a weight — as version 5 stores its basis;
* the document stages' arrays: the shared one as version 6 (``doc_*``), a pair type's own
  under ``own<t>_*``, novelty's under ``nov_*``.

Scoring a mention pair costs one sparse product with T·q columns: O(nnz · T q).
"""

from __future__ import annotations

import numpy as np

from kernelrank.errors import CorpusFormatError
from ppi.models.classes import DocumentModel, _multiview_payload
from ppi.models.formats import RELATION_VERSION, document_stage, load_multiview

__all__ = ["RelationModel", "RELATION_VERSION"]

_STAGE_KEYS = ("mean", "scale", "basis", "dual_coef")


def _stage_arrays(prefix, st):
    return {f"{prefix}_{k}": np.asarray(getattr(st, f"{k}_"), dtype=np.float64)
            for k in _STAGE_KEYS}


def _stage_fields(st):
    return {"gamma": st.gamma_, "alpha": st.alpha_, "threshold": st.threshold_,
            "n_basis": int(st.basis_.shape[0])}


def _load_stage(path, arrays, prefix, fields, features):
    """A stage saved under ``prefix`` (version 6's reader, its arrays renamed)."""
    renamed = {f"doc_{k}": arrays[f"{prefix}_{k}"] for k in _STAGE_KEYS}
    return document_stage(path, renamed, {"stage": fields, "features": features})


class RelationModel(DocumentModel):
    """A typed ``documents`` model (module docstring): :class:`ppi.models.classes.
    DocumentModel` with the pair types, relation types and novelty of a
    :class:`ppi.documents.typed_fit.TypedFit`.

    ``scores`` of a corpus are its mention pairs' target columns (m × q, each row by its
    pair type's weights); :meth:`candidate_outputs` turns them into the candidates' related
    score, relation type and novelty.
    """

    version = RELATION_VERSION

    def __init__(self, featurizer, fit, alpha, learner="rls", training=None):
        super().__init__(featurizer, np.zeros(0), alpha, fit.threshold, learner, training,
                         entity_types=fit.pair_types.entity_types,
                         instance_threshold=fit.instance_threshold, stage=fit.stage)
        self.fit = fit
        self.pair_types = fit.pair_types
        T, d, q = fit.weights.shape
        # columns × T·q, pair type t's columns t·q … t·q + q − 1
        self._matrix = np.ascontiguousarray(fit.weights.transpose(1, 0, 2).reshape(d, T * q))

    @property
    def relation_types(self):
        return self.fit.relation_types

    @property
    def n_outputs(self):
        """The target columns of a mention pair's scores (:meth:`scores`)."""
        return int(self.fit.weights.shape[2])

    @property
    def with_novelty(self):
        return self.fit.with_novelty

    def scores(self, corpus):
        """The target columns (m × q) of the mention pairs of ``corpus``: each row by the
        weights of its pair type (a pair of another type is no candidate and cannot be
        here: :func:`ppi.documents.pair_types.keep_pair_types`)."""
        from ppi.documents.pair_types import row_pair_types

        t = row_pair_types(corpus.sentences(), self.pair_types)
        if (t < 0).any():
            raise CorpusFormatError("a mention pair of a pair type the model does not relate "
                                    "reached the scorer; keep_pair_types filters them")
        q = self.fit.weights.shape[2]
        S = np.asarray(self.featurizer.scores([corpus], self._matrix)[0]).reshape(-1, len(self.pair_types), q)
        return S[np.arange(len(t)), t]

    def decision_function(self, corpus):
        """``(PairSet, related scores)`` of the mention pairs of ``corpus``."""
        (data,) = self.featurizer.transform([corpus])
        from ppi.documents.pair_types import row_pair_types

        return data, self.fit.row_outputs(data.X, row_pair_types(corpus.sentences(),
                                                                 self.pair_types))[:, 0]

    def candidate_scores(self, pair_scores, candidates):
        """The candidates' related scores (:meth:`candidate_outputs`)."""
        return self.candidate_outputs(pair_scores, candidates)["score"]

    def candidate_outputs(self, pair_scores, candidates):
        """:meth:`ppi.documents.typed_fit.TypedFit.candidate_outputs` of typed
        ``candidates`` from their mention pairs' target columns."""
        return self.fit.candidate_outputs(np.asarray(pair_scores).reshape(-1, self.fit.weights.shape[2]),
                                          candidates)

    # ------------------------------------------------------------------ saving
    def _payload(self):
        from ppi.documents.stage import FEATURES

        fit = self.fit
        W = self._matrix
        used = np.flatnonzero(np.any(W != 0, axis=1))
        numbers = np.zeros(W.shape[0])
        numbers[used] = np.arange(1, len(used) + 1, dtype=float)
        fields, arrays = _multiview_payload(self, numbers)
        fields["version"] = RELATION_VERSION
        arrays["relation_weights"] = W[used].astype(np.float64)
        st = fit.stage
        fields["document"] = {
            "entity_types": list(self.entity_types), "features": list(FEATURES),
            "instance_threshold": self.instance_threshold,
            "stage": None if st is None else _stage_fields(st)}
        names = ["relation_weights"]
        if st is not None:
            a = _stage_arrays("doc", st)
            arrays.update(a)
            names += list(a)
        own = {}
        for t, s in sorted(fit.own_stages.items()):
            a = _stage_arrays(f"own{t}", s)
            arrays.update(a)
            names += list(a)
            own[str(t)] = _stage_fields(s)
        nov = None
        if fit.novelty_stage is not None:
            a = _stage_arrays("nov", fit.novelty_stage)
            arrays.update(a)
            names += list(a)
            nov = _stage_fields(fit.novelty_stage)
        fields["relations"] = {
            "pair_types": fit.pair_types.as_list(),
            "relation_types": list(fit.relation_types),
            "allowed": np.asarray(fit.allowed, dtype=bool).tolist(),
            "default_type": [int(x) for x in fit.default_type],
            "outputs": int(fit.weights.shape[2]),
            "thresholds": None if fit.thresholds is None else
            [float(x) for x in fit.thresholds],
            "own_stages": own, "novelty_stage": nov,
            "novelty_threshold": float(fit.novelty_threshold),
            "n_columns": int(len(used)), "arrays": names}
        return fields, arrays

    @classmethod
    def _from_saved(cls, d, meta):
        from ppi.documents.pair_types import PairTypes
        from ppi.documents.stage import FEATURES
        from ppi.documents.typed_fit import TypedFit

        path = d / "weights.npz"
        featurizer, numbers, arrays = load_multiview(d, meta)
        rel, doc = meta["relations"], meta["document"]
        pair_types = PairTypes(tuple(tuple(p) for p in rel["pair_types"]))
        T, q, K = len(pair_types), rel["outputs"], len(rel["relation_types"])
        Wu = arrays["relation_weights"]
        if Wu.shape != (rel["n_columns"], T * q) or not np.isfinite(Wu).all():
            raise CorpusFormatError(f"array 'relation_weights' is {Wu.shape}, expected "
                                    f"({rel['n_columns']}, {T * q}) finite", path=path)
        idx = np.asarray(numbers, dtype=np.int64)
        if idx.min(initial=0) < 0 or idx.max(initial=0) > len(Wu):
            raise CorpusFormatError("the featurizer's column numbers do not index "
                                    "'relation_weights'", path=path)
        W = np.zeros((len(idx), T * q))
        W[idx > 0] = Wu[idx[idx > 0] - 1]
        weights = W.reshape(len(idx), T, q).transpose(1, 0, 2)
        features = list(FEATURES) + [f"pair_type:{n}" for n in pair_types.names]
        stage = None if doc["stage"] is None else _load_stage(path, arrays, "doc",
                                                              doc["stage"], features)
        own = {int(t): _load_stage(path, arrays, f"own{t}", f, list(FEATURES))
               for t, f in rel["own_stages"].items()}
        nov = None if rel["novelty_stage"] is None else _load_stage(
            path, arrays, "nov", rel["novelty_stage"], features)
        allowed = np.asarray(rel["allowed"], dtype=bool).reshape(T, K)
        fit = TypedFit(pair_types, weights, tuple(rel["relation_types"]), allowed,
                       np.asarray(rel["default_type"], dtype=np.int64),
                       doc["instance_threshold"], stage, nov, rel["novelty_threshold"],
                       None if rel["thresholds"] is None else np.asarray(rel["thresholds"]),
                       own, dict((meta.get("training") or {}).get("selection") or {}))
        return cls(featurizer, fit, meta["alpha"], meta["learner"], meta.get("training"))
