"""Train a parse ranker on a built data set, save it without pickle, rerank new sentences.

A saved model is two files (format ``kernelrank.parse_ranking.model/3``):

``<model>.json`` (UTF-8 JSON)::

    {"format": "kernelrank.parse_ranking.model/3", "ranker": "rankrls" | ... | "corankrls",
     "views": [{"kernel": "locality" | "bag_of_links" | "links_words" | "graph",
                "representation": {fitted state, see representation_state}}, ...],
     "combine": "mean", "fit_info": {...}, "n_sentences": .., "n_parses": ..,
     "lg_options": {...}}

``<model>.npz`` (NumPy, compressed, ``allow_pickle=False``): ``w0, w1, …``, the primal
weight vector of each view over that view's feature columns, and ``codes0, codes1, …``
(int64), the sorted feature-pair codes of the views that have them (locality and graph
kernels) — kept out of the JSON, where they were the bulk of the file in version 2.

Every supported kernel is linear in explicit sparse features (the graph kernel's all-paths
features included, :mod:`learners.kernels.all_paths`), so the dual solution ``a`` of a kernel
model collapses to ``w = Xᵀ a`` and scoring a new parse is one sparse dot product per view;
the score is the mean over the views (one view for the single-kernel rankers; the
co-regularized ranker averages its view predictors, :mod:`learners.coreg`, whose basis
rows play the role of ``X``). Version-2 files (pair codes as JSON integers inside
``representation``) and version-1 files (single view: top-level ``kernel``,
``representation`` and ``w``) are still read.
"""

import json
from pathlib import Path

import numpy as np

from kernelrank.atomic import atomic_open, write_json
from learners.kernels import gram_matrix
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError
from parse_ranking.evaluation import extra_parses, flatten
from parse_ranking.names import SAVEABLE_KERNELS, SAVEABLE_RANKERS
from parse_ranking.ranking import DEFAULT_ALPHAS, fit_ranker
from parse_ranking.representations import (ParseRepresentation, representation_from_state,
                                           representation_state)

__all__ = ["train_model", "load_model", "score_parses", "rank_sentence", "SAVEABLE_RANKERS",
           "SAVEABLE_KERNELS", "FORMAT"]

FORMAT = "kernelrank.parse_ranking.model/3"
_FORMAT_V2 = "kernelrank.parse_ranking.model/2"
_FORMAT_V1 = "kernelrank.parse_ranking.model/1"


def train_model(records, path, *, kernel="locality", ranker="rankrls", alphas=DEFAULT_ALPHAS,
                max_parses=None, rep_params=None, lg_options=None, threads=1, coreg=None,
                seed=0):
    """Fit ``ranker`` on all ``records`` and save it at ``path`` (``.json`` + ``.npz``).

    Single-kernel rankers: λ by leave-query-out (:func:`parse_ranking.ranking.fit_ranker`).
    ``corankrls``: views ``coreg["views"]`` (default links_words + locality), unlabelled
    data = the parses beyond ``max_parses`` (needs ``max_parses``), (α, μ) by inner
    article-level CV (:func:`parse_ranking.coreg.fit_corankrls`; other ``coreg`` keys:
    ``alphas``, ``mus``, ``n_basis``, ``n_inner``). Returns the saved metadata.
    """
    from threadpoolctl import threadpool_limits

    if ranker not in SAVEABLE_RANKERS:
        raise InvalidParameterError(f"ranker {ranker!r} cannot be saved; choose from "
                                    f"{SAVEABLE_RANKERS}")
    items, y, qids, arts, _ = flatten(records, max_parses)
    rep_params = dict(rep_params or {})
    with threadpool_limits(limits=int(threads)):
        if ranker == "corankrls":
            views, weights, info = _train_corankrls(records, items, y, qids, arts, max_parses,
                                                    rep_params, dict(coreg or {}), seed)
        else:
            if kernel not in SAVEABLE_KERNELS:
                raise InvalidParameterError(f"kernel {kernel!r}: choose from "
                                            f"{SAVEABLE_KERNELS}")
            rep = ParseRepresentation(kernel, **rep_params)
            X = rep.fit_transform(items)
            state = representation_state(rep)   # fail before the expensive fit
            model, info = fit_ranker(ranker, gram_matrix(X), y, qids, alphas, seed=seed)
            views = [{"kernel": kernel, "representation": state}]
            weights = [np.asarray(X.T @ model.dual_coef_).ravel()]
    path = Path(path)
    arrays = {f"w{v}": w for v, w in enumerate(weights)}
    for v, view in enumerate(views):
        codes = view["representation"].pop("pair_codes", None)
        if codes is not None:
            arrays[f"codes{v}"] = np.asarray(codes, dtype=np.int64)
    meta = {"format": FORMAT, "ranker": ranker, "views": views, "combine": "mean",
            "fit_info": info, "n_sentences": int(np.unique(qids).size),
            "n_parses": int(y.size), "lg_options": lg_options or {}}
    write_json(path.with_suffix(".json"), meta)
    with atomic_open(path.with_suffix(".npz"), "wb") as handle:
        np.savez_compressed(handle, **arrays)
    return meta


def _train_corankrls(records, items, y, qids, arts, max_parses, rep_params, coreg, seed):
    from parse_ranking.coreg import DEFAULT_VIEWS, fit_corankrls

    kinds = tuple(coreg.pop("views", DEFAULT_VIEWS))
    use_extra = coreg.pop("extra_parses", True)
    for k in kinds:
        if k not in SAVEABLE_KERNELS:
            raise InvalidParameterError(f"corankrls view {k!r}: choose from {SAVEABLE_KERNELS}")
    x_items, x_qids, _ = extra_parses(records, max_parses, qids) if use_extra \
        else ([], None, None)
    reps, X, U = [], [], []
    for k in kinds:
        rep = ParseRepresentation(k, **rep_params)
        X.append(rep.fit_transform(items))
        U.append(rep.transform(x_items) if x_items else None)
        reps.append(rep)
    states = [representation_state(r) for r in reps]
    model, info = fit_corankrls(X, y, qids, arts, U if x_items else None,
                                x_qids if x_items else None, seed=seed, **coreg)
    # f_v(x) = k_v(x, B_v) a_v = x · (B_vᵀ a_v) for the linear kernel of every view
    weights = [np.asarray(B.T @ a).ravel() for B, a in zip(model.basis_views_,
                                                            model.dual_coef_)]
    views = [{"kernel": k, "representation": s} for k, s in zip(kinds, states)]
    return views, weights, info


def load_model(path):
    """``(meta, views, weights)`` of a saved model: ``views`` the fitted
    :class:`ParseRepresentation` of every view, ``weights`` their primal weight vectors."""
    path = Path(path)
    js, npz = path.with_suffix(".json"), path.with_suffix(".npz")
    if not js.is_file() or not npz.is_file():
        raise DataNotFoundError(f"model files {js} and {npz} are needed; train one with "
                                "`python -m parse_ranking train`")
    try:
        meta = json.loads(js.read_text(encoding="utf-8"))
    except json.JSONDecodeError as exc:
        raise CorpusFormatError(f"not JSON: {exc.msg}", path=js) from None
    fmt = meta.get("format") if isinstance(meta, dict) else None
    if fmt not in (FORMAT, _FORMAT_V2, _FORMAT_V1):
        raise CorpusFormatError(f"unsupported model format {fmt!r} (expected {FORMAT}, "
                                f"{_FORMAT_V2} or {_FORMAT_V1})", path=js)
    with np.load(npz, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files}
    if fmt == _FORMAT_V1:
        meta = dict(meta, views=[{"kernel": meta["kernel"],
                                  "representation": meta["representation"]}],
                    combine="mean")
        arrays = {"w0": arrays["w"]}
    views, weights = [], []
    for v, view in enumerate(meta["views"]):
        state = view["representation"]
        if f"codes{v}" in arrays:                 # version 3: pair codes in the npz
            state = dict(state, pair_codes=arrays[f"codes{v}"])
        rep = representation_from_state(state)
        w = arrays.get(f"w{v}")
        if w is None:
            raise CorpusFormatError(f"weights w{v} of view {v} missing", path=npz)
        views.append(rep)
        weights.append(np.asarray(w, dtype=float))
    return meta, views, weights


def score_parses(views, weights, items):
    """Scores of ``(parse, text)`` items: mean over the views of ``features · w``."""
    out = np.zeros(len(items))
    for rep, w in zip(views, weights):
        X = rep.transform(items)
        if X.shape[1] != w.size:
            raise CorpusFormatError(f"a view has {X.shape[1]} feature columns but {w.size} "
                                    "weights; the model files do not belong together")
        out += np.asarray(X @ w).ravel()
    return out / len(views)


def rank_sentence(path, sentence, max_parses=20, parser=None):
    """Parse ``sentence`` with Link Grammar and rank its linkages with the saved model.

    Returns a list of dicts (best first): score, LG rank, LG cost, links as
    ``left-word LABEL right-word`` strings.
    """
    from parse_ranking.linkgrammar import LinkGrammarParser
    from parse_ranking.representations import parse_words

    meta, views, weights = load_model(path)
    opts = dict(meta.get("lg_options") or {})
    opts["max_parses"] = max_parses
    parser = parser or LinkGrammarParser(**{k: v for k, v in opts.items()
                                            if k in ("max_parses", "linkage_limit",
                                                     "timeout")})
    result = parser.parse(sentence)
    if not result.linkages:
        return []
    parses = [{"lg_rank": r, "words": [list(x) for x in lk.words],
               "links": [list(x) for x in lk.links], "cost": list(lk.cost)}
              for r, lk in enumerate(result.linkages)]
    scores = score_parses(views, weights, [(p, sentence) for p in parses])
    order = np.lexsort((np.arange(len(parses)), -scores))
    out = []
    for i in order:
        p = parses[i]
        words = parse_words(p, sentence)
        out.append({"score": float(scores[i]), "lg_rank": p["lg_rank"], "cost": p["cost"],
                    "links": [f"{words[a]} {lab} {words[b]}" for a, b, lab in p["links"]]})
    return out
