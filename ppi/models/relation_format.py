"""Format version 7: the saved typed ``documents`` model — every pair type, its relation
types and novelty (:mod:`ppi.documents.typed_fit`) — written and read for
:class:`ppi.models.classes.DocumentModel` (which holds a typed fit when it is one).

What version 7 adds to version 6:

* ``model.json``'s ``relations`` object: the pair types (``[[a, b], …]``), the relation
  types, which types each pair type takes (``allowed``) and its most frequent
  (``default_type``), the number ``q`` of target columns (related, the relation types,
  novel), each pair type's threshold, the pair types with a document stage of their own,
  novelty's threshold, and the names of the arrays below;
* the weights as a sparse matrix: the featurizer is pruned to the columns any weight uses,
  and stores for each the 1-based row of the matrix ``relation_data`` / ``_indices`` /
  ``_indptr`` (CSR, used columns × B·q: block ``b``'s column ``c`` is ``b·q + c``; pair type
  ``t``'s block is ``t``, or ``t + 1`` beside the shared block 0 — ``shared_block``) in place
  of a weight — as version 5 stores its basis;
* the document stages' arrays: the shared one as version 6 (``doc_*``), a pair type's own
  under ``own<t>_*``, novelty's under ``nov_*``.

Scoring a mention pair costs its featurization and one sparse product with its pair type's
q columns (and the shared block's): O(nnz · q).
"""

from __future__ import annotations

import numpy as np

from kernelrank.errors import CorpusFormatError
from ppi.models.formats import RELATION_VERSION, document_stage

__all__ = ["weight_matrix", "typed_scores", "typed_payload", "typed_fit_of"]

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


def weight_matrix(fit):
    """The typed fit's weights, one sparse matrix of the featurizer's columns × T·q (pair
    type ``t``'s target columns at ``t·q`` … ``t·q + q − 1``): what a mention pair's row is
    multiplied by."""
    import scipy.sparse as sp

    return sp.csr_matrix(fit.weights)


def typed_scores(featurizer, fit, corpus):
    """The target columns (m × q) of the mention pairs of ``corpus``, each row by the
    weights of its pair type (:meth:`ppi.documents.typed_fit.TypedFit.row_outputs`; a pair of
    another type is no candidate and cannot be here:
    :func:`ppi.documents.pair_types.keep_pair_types`).  O(featurization + nnz · q)."""
    from ppi.documents.pair_types import row_pair_types

    t = row_pair_types(corpus.sentences(), fit.pair_types)
    if (t < 0).any():
        raise CorpusFormatError("a mention pair of a pair type the model does not relate "
                                "reached the scorer; keep_pair_types filters them")
    (data,) = featurizer.transform([corpus])
    return fit.row_outputs(data.X, t)


def typed_payload(fit, matrix, multiview_payload, document):
    """Version 7's ``(model.json fields, arrays)`` (module docstring):
    ``multiview_payload(numbers)`` gives version 4's of the featurizer pruned to the used
    columns; ``document``: version 6's ``document`` object."""
    used = np.flatnonzero(np.diff(matrix.indptr))
    numbers = np.zeros(matrix.shape[0])
    numbers[used] = np.arange(1, len(used) + 1, dtype=float)
    fields, arrays = multiview_payload(numbers)
    fields["version"] = RELATION_VERSION
    fields["document"] = document
    sub = matrix[used]
    sub.sort_indices()
    arrays.update(relation_data=sub.data.astype(np.float64),
                  relation_indices=sub.indices.astype(np.int64),
                  relation_indptr=sub.indptr.astype(np.int64))
    names = ["relation_data", "relation_indices", "relation_indptr"]
    st = fit.stage
    document["stage"] = None if st is None else _stage_fields(st)
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
        "outputs": int(fit.n_outputs), "shared_block": bool(fit.shared_block),
        "thresholds": None if fit.thresholds is None else [float(x) for x in fit.thresholds],
        "own_stages": own, "novelty_stage": nov,
        "novelty_threshold": float(fit.novelty_threshold),
        "n_columns": int(len(used)), "arrays": names}
    return fields, arrays


def typed_fit_of(d, meta, numbers, arrays):
    """The :class:`ppi.documents.typed_fit.TypedFit` of a version 7 model in ``d``:
    ``numbers`` (the loaded featurizer's columns' 1-based rows of ``relation_weights``) and
    the checked ``arrays``."""
    from ppi.documents.pair_types import PairTypes
    from ppi.documents.stage import FEATURES
    from ppi.documents.typed_fit import TypedFit

    path = d / "weights.npz"
    rel, doc = meta["relations"], meta["document"]
    pair_types = PairTypes(tuple(tuple(p) for p in rel["pair_types"]))
    T, q, K = len(pair_types), rel["outputs"], len(rel["relation_types"])
    shared = rel["shared_block"]
    B = T + (1 if shared else 0)
    import scipy.sparse as sp

    data, ind, ptr = (arrays[k] for k in ("relation_data", "relation_indices",
                                          "relation_indptr"))
    u = rel["n_columns"]
    if (data.dtype != np.float64 or ind.dtype != np.int64 or ptr.dtype != np.int64
            or ptr.shape != (u + 1,) or ptr[0] != 0 or np.any(np.diff(ptr) < 0)
            or ptr[-1] != len(data) or len(ind) != len(data) or not np.isfinite(data).all()
            or (len(ind) and (ind.min() < 0 or ind.max() >= B * q))):
        raise CorpusFormatError(f"the arrays 'relation_*' are not a finite {u} × {B * q} "
                                "sparse matrix of float64 with int64 indices", path=path)
    sub = sp.csr_matrix((data, ind, ptr), shape=(u, B * q))
    idx = np.asarray(numbers)
    if not np.array_equal(idx, np.round(idx)) or idx.min(initial=0) < 0 or \
            idx.max(initial=0) > u:
        raise CorpusFormatError("the featurizer's column numbers do not index the "
                                "'relation_*' rows", path=path)
    idx = idx.astype(np.int64)
    at = np.flatnonzero(idx > 0)
    place = sp.csr_matrix((np.ones(len(at)), (at, idx[at] - 1)), shape=(len(idx), u))
    weights = sp.csr_matrix(place @ sub)
    features = list(FEATURES) + [f"pair_type:{n}" for n in pair_types.names]
    stage = None if doc["stage"] is None else _load_stage(path, arrays, "doc", doc["stage"],
                                                          features)
    own = {int(t): _load_stage(path, arrays, f"own{t}", f, list(FEATURES))
           for t, f in rel["own_stages"].items()}
    nov = None if rel["novelty_stage"] is None else _load_stage(
        path, arrays, "nov", rel["novelty_stage"], features)
    allowed = np.asarray(rel["allowed"], dtype=bool).reshape(T, K)
    return TypedFit(pair_types, weights, tuple(rel["relation_types"]), allowed,
                    np.asarray(rel["default_type"], dtype=np.int64),
                    doc["instance_threshold"], stage, nov, rel["novelty_threshold"],
                    None if rel["thresholds"] is None else np.asarray(rel["thresholds"]),
                    own, shared_block=shared)
