"""Rankers for parse ranking: one query = one sentence, its parses are the items.

Every learner comes from :mod:`learners` (fit, exact fast hold-out, λ path); this module only
chooses λ and wraps the learners behind one interface. λ is chosen from ``alphas`` by
**inner leave-query-out** on the training sentences (exact shortcuts: ``leave_query_out``
of :class:`learners.rankrls.QueryRankRLS`, ``holdout_sets`` with one set per sentence for
the others), minimising the query-averaged disagreement error (Paper I eq. 1).

Rankers (Paper I §2.4 cost variants, §5.2 setting; paper 002 for KPCRank):

=====================  =======================================================================
``lg``                 Link Grammar's own cost order (score = −LG rank); no learning.
``rankrls``            RankRLS, relevant pairs only (same sentence), cost (21), QueryRankRLS.
``rankrls_all``        RankRLS over all pairs of the training set, cost (21), GlobalRankRLS.
``rankrls_20``         relevant pairs with different scores, cost (20) (z = 1, w = 1).
``rankrls_22``         relevant pairs with different scores, cost (22) (z = y, w = 1/y).
``rankrls_20_all``     all pairs with different scores, cost (20) (explicit graph; refused
                       when it has more than ``max_pairs`` edges; λ by inner 3-fold
                       sentence-level CV with retraining, see ``_inner_kfold_path``).
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
from learners.measures import disagreement_error

__all__ = ["RANKERS", "LEARNED_RANKERS", "DEFAULT_ALPHAS", "preference_pairs",
           "fit_ranker", "query_sets"]

RANKERS = ("lg", "rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rankrls_20_all",
           "rankrls_22_all", "rls", "kpcrank", "corankrls")
LEARNED_RANKERS = tuple(r for r in RANKERS if r != "lg")
DEFAULT_ALPHAS = tuple(2.0 ** np.arange(-8, 17, 2))

_PAIRWISE = {"rankrls_20": ("discrete", False), "rankrls_22": ("weighted", False),
             "rankrls_20_all": ("discrete", True), "rankrls_22_all": ("weighted", True)}


def query_sets(qids):
    """Row index arrays, one per distinct query (in ``numpy.unique`` order)."""
    _, codes = np.unique(qids, return_inverse=True)
    order = np.argsort(codes, kind="stable")
    bounds = np.cumsum(np.bincount(codes))
    return np.split(order, bounds[:-1])


def preference_pairs(y, qids=None, max_pairs=None):
    """Pairs ``(i, j)`` with ``y_i > y_j``: inside each query, or over all rows (qids None).

    Returns ``(pairs, magnitudes)`` with ``magnitudes = y_i - y_j > 0``. Vectorised per
    group by broadcasting; raises when more than ``max_pairs`` pairs would be built.
    """
    y = np.asarray(y, dtype=float)
    m = y.size
    if qids is None:
        codes = np.zeros(m, dtype=np.intp)
    else:
        _, codes = np.unique(qids, return_inverse=True)
    sizes = np.bincount(codes)
    n_candidates = int(np.sum(sizes.astype(np.int64) ** 2))
    if max_pairs is not None and n_candidates > 2 * max_pairs:
        raise InvalidInputError(f"{n_candidates // 2} candidate pairs exceed max_pairs="
                                f"{max_pairs}")
    order = np.argsort(codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    rep = sizes[codes[order]]                       # partners of each row (own group)
    i = np.repeat(order, rep)
    first = np.repeat(starts[codes[order]], rep)
    offset = np.arange(i.size) - np.repeat(np.cumsum(rep) - rep, rep)
    j = order[first + offset]
    keep = y[i] > y[j]
    pairs = np.stack([i[keep], j[keep]], axis=1)
    if max_pairs is not None and pairs.shape[0] > max_pairs:
        raise InvalidInputError(f"{pairs.shape[0]} pairs exceed max_pairs={max_pairs}")
    return pairs, y[pairs[:, 0]] - y[pairs[:, 1]]


def _select(P, y, qids, alphas):
    """Index of the λ with the lowest inner leave-query-out disagreement error."""
    errors = np.array([disagreement_error(y, P[k], qids) for k in range(len(alphas))])
    return int(np.argmin(errors)), errors


def fit_ranker(name, K, y, qids, alphas=DEFAULT_ALPHAS, max_pairs=2_000_000, seed=0):
    """Fit ranker ``name`` on the training kernel ``K`` with λ chosen by leave-query-out.

    Returns ``(model, info)`` where ``model.predict(K_test)`` scores test rows against the
    training rows and ``info`` holds the chosen λ and the inner error curve.
    """
    from learners.rankrls import GlobalRankRLS, PairwiseRankRLS, QueryRankRLS
    from learners.rls import RLS

    if name == "corankrls":
        raise InvalidParameterError("corankrls is multi-view and semi-supervised: fit it with "
                                    "parse_ranking.coreg.fit_corankrls on feature views")
    if name not in LEARNED_RANKERS:
        raise InvalidParameterError(f"unknown ranker {name!r}; choose from {LEARNED_RANKERS}")
    y = np.asarray(y, dtype=float)
    qids = np.asarray(qids)
    alphas = np.asarray(alphas, dtype=float)
    sets = query_sets(qids)
    info = {}
    if name == "kpcrank":
        from learners.kpcrank import KPCRank
        model = KPCRank(n_components="cv", kernel="precomputed", cv=3,
                        max_components=min(200, K.shape[0] - 1), random_state=seed)
        model.fit(K, y, qids)
        info["n_components"] = int(model.n_components_)
        return model, info
    if name == "rankrls":
        model = QueryRankRLS(kernel="precomputed").fit(K, y, qids=qids)
        P = model.leave_query_out(alphas)
        refit = lambda a: QueryRankRLS(alpha=a, kernel="precomputed").fit(K, y, qids=qids)
    elif name in ("rankrls_all", "rls"):
        cls = GlobalRankRLS if name == "rankrls_all" else RLS
        model = cls(kernel="precomputed").fit(K, y)
        P = _assemble(model.holdout_sets(sets, alphas), sets, len(alphas), y.size)
        refit = lambda a: cls(alpha=a, kernel="precomputed").fit(K, y)
    else:
        cost, all_pairs = _PAIRWISE[name]
        pairs, mags = preference_pairs(y, None if all_pairs else qids, max_pairs=max_pairs)
        if cost == "weighted":
            # w = 1/y explodes on near-ties; tiny differences are float noise of F-scores
            keep = mags > 1e-9
            pairs, mags = pairs[keep], mags[keep]
        info["n_pairs"] = int(pairs.shape[0])
        if all_pairs:
            P = _inner_kfold_path(K, y, sets, alphas, cost, max_pairs, seed)
        else:
            model = PairwiseRankRLS(kernel="precomputed", cost=cost).fit(K, pairs, mags)
            P = _assemble(model.holdout_sets(sets, alphas), sets, len(alphas), y.size)
        refit = lambda a: PairwiseRankRLS(alpha=a, kernel="precomputed", cost=cost).fit(
            K, pairs, mags)
    best, errors = _select(P, y, qids, alphas)
    info.update(alpha=float(alphas[best]), inner_disagreement=errors.tolist())
    return refit(float(alphas[best])), info


def _inner_kfold_path(K, y, sets, alphas, cost, max_pairs, seed, n_inner=3):
    """Out-of-fold predictions (n_alphas, m) by sentence-level K-fold with retraining.

    Used for the explicit all-pairs graphs: removing one sentence there removes edges
    touching *every* row, so the touched-set hold-out shortcut degenerates to O(m^3) per
    sentence; instead each inner fold is refitted once and its λ path
    (``predict_path``, one eigendecomposition) serves the whole grid.
    """
    from learners.rankrls import PairwiseRankRLS

    order = np.random.default_rng(seed).permutation(len(sets))
    P = np.empty((len(alphas), y.size))
    for f in range(n_inner):
        test = np.concatenate([sets[i] for i in order[f::n_inner]])
        train = np.setdiff1d(np.arange(y.size), test)
        pairs, mags = preference_pairs(y[train], None, max_pairs=max_pairs)
        if cost == "weighted":
            keep = mags > 1e-9
            pairs, mags = pairs[keep], mags[keep]
        model = PairwiseRankRLS(kernel="precomputed", cost=cost).fit(
            K[np.ix_(train, train)], pairs, mags)
        P[:, test] = model.predict_path(K[np.ix_(test, train)], alphas)
    return P


def _assemble(results, sets, n_alphas, m):
    P = np.empty((n_alphas, m))
    for U, r in zip(sets, results):
        P[:, U] = np.asarray(r).reshape(n_alphas, -1)
    return P
