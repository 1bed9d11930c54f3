"""Parse rankers (parse_ranking/ranking.py): λ chosen by the selection engine equals λ chosen
by explicit retraining without each sentence (or each inner fold, for the all-pairs graphs),
for every cost variant."""

import numpy as np
import pytest

from learners.measures import disagreement_error
from learners.pairs import preference_pairs
from learners.rankrls import PairwiseRankRLS
from learners.splits import folds_to_sets, group_folds, group_sets
from parse_ranking.ranking import fit_ranker

ALPHAS = 2.0 ** np.arange(-4, 7, 2)


def problem(rng, n_sent=8, per=5, n=6):
    X = rng.normal(size=(n_sent * per, n))
    qids = np.repeat(np.arange(n_sent), per)
    y = np.round(1 / (1 + np.exp(-(X @ rng.normal(size=n)))), 2)   # F-like scores in [0, 1]
    return X @ X.T + np.eye(len(y)), y, qids


def brute_force(K, y, qids, sets, cost, all_pairs):
    errors = []
    for a in ALPHAS:
        P = np.empty(len(y))
        for H in sets:
            T = np.setdiff1d(np.arange(len(y)), H)
            pairs, mags = preference_pairs(y[T], None if all_pairs else qids[T])
            if cost == "weighted":
                keep = mags > 1e-9
                pairs, mags = pairs[keep], mags[keep]
            model = PairwiseRankRLS(alpha=a, kernel="precomputed", cost=cost).fit(
                K[np.ix_(T, T)], pairs=pairs, magnitudes=mags)
            P[H] = model.predict(K[np.ix_(H, T)])
        errors.append(disagreement_error(y, P, qids))
    errors = np.array(errors)
    return ALPHAS[np.flatnonzero(errors <= errors.min() * (1 + 1e-12)).max()], errors


@pytest.mark.parametrize("name,cost,all_pairs", [
    ("rankrls_20", "discrete", False), ("rankrls_22", "weighted", False),
    ("rankrls_20_all", "discrete", True), ("rankrls_22_all", "weighted", True)])
def test_pairwise_rankers_choose_lambda_as_explicit_retraining(rng, name, cost, all_pairs):
    K, y, qids = problem(rng)
    model, info = fit_ranker(name, K, y, qids, ALPHAS, seed=1)
    sets = folds_to_sets(group_folds(qids, 3, seed=1)) if all_pairs else group_sets(qids)
    alpha, errors = brute_force(K, y, qids, sets, cost, all_pairs)
    np.testing.assert_allclose(info["inner_disagreement"], errors, rtol=1e-8, atol=1e-12)
    assert info["alpha"] == alpha
    pairs, mags = preference_pairs(y, None if all_pairs else qids)
    if cost == "weighted":
        pairs, mags = pairs[mags > 1e-9], mags[mags > 1e-9]
    final = PairwiseRankRLS(alpha=alpha, kernel="precomputed", cost=cost).fit(
        K, pairs=pairs, magnitudes=mags)
    np.testing.assert_allclose(model.predict(K), final.predict(K), rtol=1e-8, atol=1e-10)
    assert info["n_pairs"] == len(pairs)
