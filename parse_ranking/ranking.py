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

All the rankers above take the precomputed kernel matrix (``kernel="precomputed"``), whose
cost is cubic in the number of training parses (O(m^3) time and O(m^2) memory per fit).
The **sparse rankers** (Paper I §3.5 eq. 41; thesis §2.5; Paper III) take the
representation's explicit sparse feature rows instead, with the linear kernel — every
representation of :mod:`parse_ranking.representations` is linear in its features — and
never form a parse-by-parse kernel matrix: only the kernel against ``r`` basis parses,
in row blocks (O(m r) memory, O(m r^2 + r^3) time per fit):

=====================  =======================================================================
``sparse_rankrls``     reduced-set query-structured RankRLS
                       (:class:`learners.reduced_set.ReducedSetQueryRankRLS`); λ by inner
                       leave-sentence-out from ONE fit, the held-out sentence's basis parses
                       removed exactly (Paper III Theorem 1 — keeping them is unreliable for
                       parse ranking, Paper III §4.1). With several basis sizes, the size is
                       chosen with λ by the same inner CV (ties: fewer basis parses).
``nystroem_rankrls``   Nyström features + linear query-structured RankRLS
                       (:class:`learners.nystroem_rankrls.NystroemQueryRankRLS`); λ by inner
                       article-level 3-fold CV refitting the map and the ranker per inner
                       fold (its basis drawn from that fold's training parses only), the λ
                       path of each refit from one r x r eigendecomposition; basis size: the
                       largest of the given sizes.
=====================  =======================================================================

**Basis** (both rankers, :data:`BASIS`): ``r`` training parses chosen by block **randomly
pivoted Cholesky** (Chen, Epperly, Tropp & Webber 2022, arXiv:2207.06503) on the
*within-sentence centred* kernel, each used as its centred feature vector
``x_j - mean of its sentence's parses``
(``basis="query_centered"``, ``basis_selection="rpcholesky"`` of
:class:`learners.reduced_set.ReducedSetQueryRankRLS`). Why: the RankRLS loss (Paper I eq.
25) sees only within-sentence differences, and the RankRLS weight vector lies in the span
of the centred rows; on parse data the sentence-common part is most of a row's norm (the
centred kernel has 14-22 % of the trace on the 1,000-sentence set). A uniform sample of raw
parses (Williams & Seeger 2001; Paper III §2.1; Rifkin et al. 2003 via Paper I §3.5) spends
the basis on that common part: at r = 1,000 of ~3,090 training parses it lost 0.03-0.05
τ_b to the full RankRLS (links with words 0.313 vs 0.365 at the best λ). On the centred
kernel, greedy largest-residual pivoting (Smola & Schölkopf 2000) gave 0.331 / 0.353 /
0.362 at r = 1,000 / 1,500 / 2,000 and the randomly pivoted rule 0.327 / 0.361 / 0.364
(``benchmarks/experiments/parse_ranking/exp_parse_ranking_basis.py``; within noise of each
other). Randomly pivoted Cholesky is kept because it is the cheaper one here: its pivots
come in blocks of 100, each one sparse product against all rows (the greedy rule needs one
pass per pivot), cf. the adaptive sampling schemes compared by Kumar, Mohri & Talwalkar
2012 (JMLR 13). The selection reads the feature rows of the training parses only, never a
score. ``r`` is capped at the number of training parses (then the model is the exact
RankRLS).
"""

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError
from kernelrank.cli import parse_grid
from learners.pairs import count_preference_pairs, preference_pairs
from parse_ranking.names import ALPHAS_TEXT, RANKERS, SPARSE_BASIS_TEXT, SPARSE_RANKERS

__all__ = ["RANKERS", "LEARNED_RANKERS", "SPARSE_RANKERS", "DEFAULT_ALPHAS",
           "DEFAULT_N_BASIS", "fit_ranker", "fit_sparse_ranker"]

LEARNED_RANKERS = tuple(r for r in RANKERS if r != "lg")
DEFAULT_ALPHAS = parse_grid(ALPHAS_TEXT)
DEFAULT_N_BASIS = tuple(int(r) for r in parse_grid(SPARSE_BASIS_TEXT))
#: inner article-level folds of ``nystroem_rankrls``
NYSTROEM_INNER_FOLDS = 3
#: basis vectors and their selection of both sparse rankers (module docstring)
BASIS = {"basis": "query_centered", "basis_selection": "rpcholesky"}

_PAIRWISE = {"rankrls_20": ("discrete", False), "rankrls_22": ("weighted", False),
             "rankrls_20_all": ("discrete", True), "rankrls_22_all": ("weighted", True)}


def fit_ranker(name, K, y, qids, alphas=DEFAULT_ALPHAS, max_pairs=2_000_000, seed=0):
    """Fit ranker ``name`` on the training kernel ``K`` with λ chosen by leave-query-out.

    Returns ``(model, info)`` where ``model.predict(K_test)`` scores test rows against the
    training rows and ``info`` holds the chosen λ and the inner error curve.
    """
    from learners.rankrls import GlobalRankRLS, PairwiseRankRLS, QueryRankRLS
    from learners.rls import RLS
    from learners.selection import Channels, Search, select
    from learners.splits import GroupKFold, RowStructure

    if name in SPARSE_RANKERS:
        raise InvalidParameterError(f"{name} is a sparse ranker on feature rows: fit it with "
                                    "parse_ranking.ranking.fit_sparse_ranker")
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
    path = {"alpha": np.asarray(alphas, dtype=float)}
    kw = dict(search=Search(path=path, refit=True), scoring="disagreement",
              structure=RowStructure(qids=qids, groups=qids), cv="group")
    if name == "rankrls":
        sel = select(QueryRankRLS(kernel="precomputed"), K, y,
                     channels=Channels(fit={"qids": qids}), **kw)
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
            sel = select(est, K, y, **dict(kw, cv=GroupKFold(3, seed=seed),
                                           search=Search(path, method="refit", refit=True)))
            info["n_pairs"] = int(sel.model.n_pairs_)
        else:
            pairs, mags = preference_pairs(y, qids, max_pairs=max_pairs, tie_tolerance=tol)
            info["n_pairs"] = int(pairs.shape[0])
            sel = select(est, K, None,
                         channels=Channels(fixed_fit={"pairs": pairs, "magnitudes": mags}),
                         **dict(kw, structure=RowStructure(qids=qids, groups=qids, y_eval=y)))
    info.update(alpha=float(sel.best_params["alpha"]), inner_disagreement=sel.scores.tolist())
    return sel.model, info


#: Score differences at most this large are ties (float noise of F scores; with the weighted
#: cost (22), w = 1/y would explode on them).
_TIE = 1e-9


def fit_sparse_ranker(name, X, y, qids, articles=None, alphas=DEFAULT_ALPHAS,
                      n_basis=DEFAULT_N_BASIS, seed=0, refit=False):
    """Fit sparse ranker ``name`` (module docstring) on the training feature rows ``X``.

    Parameters
    ----------
    name : "sparse_rankrls" | "nystroem_rankrls"
    X : sparse (m, d) — unit-norm feature rows of the training parses (linear kernel)
    y, qids : arrays (m,) — gold F and sentence of every row
    articles : array (m,) — article of every row (inner folds of ``nystroem_rankrls``;
        sentence-level folds when there are fewer than 3 articles or when None)
    alphas : λ grid; n_basis : basis size(s) r (each capped at m)
    seed : seeds the basis sample and the inner folds
    refit : fit the winner once more on all rows, so that ``model.model`` has the reduced-set
        coefficients ``dual_coef_`` of basis rows ``basis_indices_`` at the chosen λ (for
        saving; without it the path model fitted at the largest λ predicts at the chosen one)

    Returns
    -------
    (model, info) — ``model.predict(X_test)`` scores test feature rows; ``info`` holds the
    chosen λ, the basis size and the inner error curve.

    Cost: ``sparse_rankrls`` one O(m r^2 + r^3) fit per basis size, then per sentence and λ
    O(r p^2) (p ≈ 2 × parses per sentence + basis parses removed); ``nystroem_rankrls``
    ``NYSTROEM_INNER_FOLDS + 1`` fits of O(m r^2 + r^3). Memory O(m r) during the fit;
    the returned ``sparse_rankrls`` model keeps O(r^2 + basis rows) (its hold-out rows are
    released, :meth:`learners.reduced_set.ReducedSetQueryRankRLS.release_training_rows`).
    """
    from learners.nystroem_rankrls import NystroemQueryRankRLS
    from learners.reduced_set import ReducedSetQueryRankRLS
    from learners.selection import Channels, Search, select
    from learners.splits import RowStructure, folds_to_sets, group_folds

    if name not in SPARSE_RANKERS:
        raise InvalidParameterError(f"unknown sparse ranker {name!r}; choose from "
                                    f"{SPARSE_RANKERS}")
    y = np.asarray(y, dtype=float)
    qids = np.asarray(qids)
    m = y.size
    sizes = sorted({min(int(r), m) for r in n_basis})
    if not sizes or sizes[0] < 1:
        raise InvalidParameterError(f"basis sizes must be positive integers, got {n_basis!r}")
    path = {"alpha": np.asarray(alphas, dtype=float)}
    kw = dict(scoring="disagreement", channels=Channels(fit={"qids": qids}))
    if name == "sparse_rankrls":
        est = ReducedSetQueryRankRLS(kernel="linear", random_state=seed, **BASIS)
        sel = select(est, X, y, cv="group", structure=RowStructure(qids=qids, groups=qids),
                     search=Search(path, grid={"n_basis": sizes}, refit=refit), **kw)
        r = int(sel.best_params["n_basis"])
        info = {"inner": "leave-sentence-out, held-out sentence's basis vectors removed"}
    else:
        groups = qids if articles is None else np.asarray(articles)
        if np.unique(groups).size < NYSTROEM_INNER_FOLDS:
            groups = qids
        if np.unique(groups).size < NYSTROEM_INNER_FOLDS:
            raise InvalidInputError(f"{name}: {np.unique(groups).size} training sentences, "
                                    f"fewer than the {NYSTROEM_INNER_FOLDS} inner folds")
        sets = folds_to_sets(group_folds(groups, NYSTROEM_INNER_FOLDS, seed))
        r = sizes[-1]
        est = NystroemQueryRankRLS(kernel="linear", n_basis=r, random_state=seed, **BASIS)
        sel = select(est, X, y, cv=sets, structure=RowStructure(qids=qids),
                     search=Search(path, method="refit", refit=refit), **kw)
        info = {"inner": f"{NYSTROEM_INNER_FOLDS}-fold by "
                         f"{'sentence' if groups is qids else 'article'}, map refitted per fold"}
    info.update(alpha=float(sel.best_params["alpha"]), n_basis=r,
                inner_disagreement=sel.scores.tolist())
    if hasattr(sel.model, "release_training_rows"):
        sel.model.release_training_rows()   # the inner CV is done: O(m r) rows not needed
    return sel, info
