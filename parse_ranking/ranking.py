"""Rankers for parse ranking: one query = one sentence, its parses are the items.

Every learner comes from :mod:`learners` (fit, exact fast hold-out, λ path) and λ is chosen by
the selection engine (:func:`learners.selection.select`); this module only says which learner
and which hold-out scheme each ranker uses. λ is chosen from ``alphas`` by **inner
leave-query-out** on the training sentences (exact shortcuts: the learners' ``holdout_sets``
with one set per sentence, for QueryRankRLS eq. 33), minimising the query-averaged
disagreement error (Paper I eq. 1); ties go to the larger λ (the engine's rule).

Rankers (Paper I §2.4 cost variants, §5.2 setting; paper 002 for KPCRank):

=====================  =======================================================================
``lg``                 Link Grammar's own cost order (score = −LG rank); no learning.
``rankrls``            RankRLS, relevant pairs only (same sentence), cost (21), QueryRankRLS.
``rankrls_all``        RankRLS over all pairs of the training set, cost (21), GlobalRankRLS.
``rankrls_20``         relevant pairs with different scores, cost (20) (z = 1, w = 1).
``rankrls_22``         relevant pairs with different scores, cost (22) (z = y, w = 1/y).
``rankrls_20_all``     all pairs with different scores, cost (20) (explicit graph; refused
                       when it has more than ``max_pairs`` edges; λ by inner 3-fold
                       sentence-level CV with one refit per fold and the λ path: removing a
                       sentence there removes edges touching *every* row, so the
                       touched-set hold-out shortcut would cost O(m^3) per sentence).
``rankrls_22_all``     all pairs with different scores, cost (22) (same).
``rls``                RLS regression on the F scores (learners.RLS).
``kpcrank``            KPCRank (learners.kpcrank), components chosen by its query-wise CV.
``corankrls``          sparse co-regularized RankRLS (learners.coreg, semi-supervised, two
                       views of explicit features — not a precomputed kernel): fitted by
                       :func:`parse_ranking.coreg.fit_corankrls`, not by :func:`fit_ranker`.
=====================  =======================================================================

All learners take the precomputed kernel matrix (``kernel="precomputed"``).
"""

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError
from kernelrank.cli import parse_grid
from learners.pairs import count_preference_pairs, preference_pairs
from parse_ranking.names import ALPHAS_TEXT, RANKERS

__all__ = ["RANKERS", "LEARNED_RANKERS", "DEFAULT_ALPHAS", "fit_ranker"]

LEARNED_RANKERS = tuple(r for r in RANKERS if r != "lg")
DEFAULT_ALPHAS = parse_grid(ALPHAS_TEXT)

_PAIRWISE = {"rankrls_20": ("discrete", False), "rankrls_22": ("weighted", False),
             "rankrls_20_all": ("discrete", True), "rankrls_22_all": ("weighted", True)}


def fit_ranker(name, K, y, qids, alphas=DEFAULT_ALPHAS, max_pairs=2_000_000, seed=0):
    """Fit ranker ``name`` on the training kernel ``K`` with λ chosen by leave-query-out.

    Returns ``(model, info)`` where ``model.predict(K_test)`` scores test rows against the
    training rows and ``info`` holds the chosen λ and the inner error curve.
    """
    from learners.rankrls import GlobalRankRLS, PairwiseRankRLS, QueryRankRLS
    from learners.rls import RLS
    from learners.selection import select

    if name == "corankrls":
        raise InvalidParameterError("corankrls is multi-view and semi-supervised: fit it with "
                                    "parse_ranking.coreg.fit_corankrls on feature views")
    if name not in LEARNED_RANKERS:
        raise InvalidParameterError(f"unknown ranker {name!r}; choose from {LEARNED_RANKERS}")
    y = np.asarray(y, dtype=float)
    qids = np.asarray(qids)
    info = {}
    if name == "kpcrank":
        from learners.kpcrank import KPCRank
        model = KPCRank(n_components="cv", kernel="precomputed", cv=3,
                        max_components=min(200, K.shape[0] - 1), random_state=seed)
        model.fit(K, y, qids)
        info["n_components"] = int(model.n_components_)
        return model, info
    kw = dict(path={"alpha": np.asarray(alphas, dtype=float)}, scoring="disagreement",
              qids=qids, groups=qids, cv="group", refit=True, seed=seed)
    if name == "rankrls":
        sel = select(QueryRankRLS(kernel="precomputed"), K, y, fit_params={"qids": qids}, **kw)
    elif name in ("rankrls_all", "rls"):
        sel = select((GlobalRankRLS if name == "rankrls_all" else RLS)(kernel="precomputed"),
                     K, y, **kw)
    else:
        cost, all_pairs = _PAIRWISE[name]
        tol = _TIE if cost == "weighted" else 0.0
        est = PairwiseRankRLS(kernel="precomputed", cost=cost, max_pairs=max_pairs,
                              tie_tolerance=tol)
        if all_pairs:
            n = count_preference_pairs(y)
            if max_pairs is not None and n > max_pairs:
                raise InvalidInputError(f"{name}: {n} preference pairs exceed max_pairs="
                                        f"{max_pairs}")
            # one refit per inner fold, its λ path for the whole grid
            sel = select(est, K, y, **dict(kw, cv=3, method="refit"))
            info["n_pairs"] = int(sel.model.n_pairs_)
        else:
            pairs, mags = preference_pairs(y, qids, max_pairs=max_pairs, tie_tolerance=tol)
            info["n_pairs"] = int(pairs.shape[0])
            sel = select(est, K, None, y_eval=y,
                         fixed_fit_params={"pairs": pairs, "magnitudes": mags}, **kw)
    info.update(alpha=float(sel.best_params["alpha"]), inner_disagreement=sel.scores.tolist())
    return sel.model, info


#: Score differences at most this large are ties (float noise of F scores; with the weighted
#: cost (22), w = 1/y would explode on them).
_TIE = 1e-9
