"""Train a parse ranker on a built data set, save it without pickle, rerank new sentences.

A saved model is two files: ``<model>.json`` (ranker, λ, representation parameters and
vocabulary, LG options) and ``<model>.npz`` (the primal weight vector). Every supported
kernel is linear in explicit sparse features, so the dual solution ``a`` of a kernel model
collapses to ``w = Xᵀ a`` and scoring a new parse is one sparse dot product.
"""

import json
from pathlib import Path

import numpy as np

from corpora.atomic import atomic_open, write_json
from learners.all_paths import gram_matrix
from learners.errors import DataNotFoundError, InvalidParameterError
from parse_ranking.evaluation import flatten
from parse_ranking.ranking import DEFAULT_ALPHAS, fit_ranker
from parse_ranking.representations import (ParseRepresentation, representation_from_state,
                                           representation_state)

__all__ = ["train_model", "load_model", "rank_sentence", "SAVEABLE_RANKERS"]

SAVEABLE_RANKERS = ("rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rls")
FORMAT = "kernelrank.parse_ranking.model/1"


def train_model(records, path, *, kernel="locality", ranker="rankrls", alphas=DEFAULT_ALPHAS,
                max_parses=None, rep_params=None, lg_options=None, threads=1):
    """Fit ``ranker`` on all ``records`` (λ by leave-query-out) and save it at ``path``."""
    from threadpoolctl import threadpool_limits

    if ranker not in SAVEABLE_RANKERS:
        raise InvalidParameterError(f"ranker {ranker!r} cannot be saved; choose from "
                                    f"{SAVEABLE_RANKERS}")
    items, y, qids, _, _ = flatten(records, max_parses)
    rep = ParseRepresentation(kernel, **(rep_params or {}))
    state_check = None
    with threadpool_limits(limits=int(threads)):
        X = rep.fit_transform(items)
        state_check = representation_state(rep)  # fail before the expensive fit
        model, info = fit_ranker(ranker, gram_matrix(X), y, qids, alphas)
    w = np.asarray(X.T @ model.dual_coef_).ravel()
    path = Path(path)
    meta = {"format": FORMAT, "ranker": ranker, "kernel": kernel, "fit_info": info,
            "n_sentences": int(np.unique(qids).size), "n_parses": int(y.size),
            "representation": state_check, "lg_options": lg_options or {}}
    write_json(path.with_suffix(".json"), meta)
    with atomic_open(path.with_suffix(".npz"), "wb") as handle:
        np.savez(handle, w=w)
    return meta


def load_model(path):
    """``(meta, representation, w)`` of a model saved by :func:`train_model`."""
    path = Path(path)
    js, npz = path.with_suffix(".json"), path.with_suffix(".npz")
    if not js.is_file() or not npz.is_file():
        raise DataNotFoundError(f"model files {js} and {npz} are needed; train one with "
                                "`python -m parse_ranking train`")
    meta = json.loads(js.read_text())
    if meta.get("format") != FORMAT:
        raise InvalidParameterError(f"{js} is not a parse ranking model ({FORMAT})")
    with np.load(npz, allow_pickle=False) as data:
        w = data["w"]
    return meta, representation_from_state(meta["representation"]), w


def rank_sentence(path, sentence, max_parses=20, parser=None):
    """Parse ``sentence`` with Link Grammar and rank its linkages with the saved model.

    Returns a list of dicts (best first): score, LG rank, LG cost, links as
    ``left-word LABEL right-word`` strings.
    """
    from parse_ranking.linkgrammar import LinkGrammarParser
    from parse_ranking.representations import parse_words

    meta, rep, w = load_model(path)
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
    X = rep.transform([(p, sentence) for p in parses])
    scores = np.asarray(X @ w).ravel()
    order = np.lexsort((np.arange(len(parses)), -scores))
    out = []
    for i in order:
        p = parses[i]
        words = parse_words(p, sentence)
        out.append({"score": float(scores[i]), "lg_rank": p["lg_rank"], "cost": p["cost"],
                    "links": [f"{words[a]} {lab} {words[b]}" for a, b, lab in p["links"]]})
    return out
