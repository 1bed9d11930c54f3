"""Preference pairs from scores (learners/pairs.py) against brute-force enumeration."""

import numpy as np
import pytest

from kernelrank.errors import InvalidInputError
from learners.pairs import count_preference_pairs, preference_pairs
from learners.rankrls import PairwiseRankRLS


def test_preference_pairs_match_brute_force(rng):
    y = rng.integers(0, 4, 30) / 4.0
    qids = rng.integers(0, 5, 30)
    pairs, mags = preference_pairs(y, qids)
    brute = {(i, j) for i in range(30) for j in range(30)
             if qids[i] == qids[j] and y[i] > y[j]}
    assert set(map(tuple, pairs.tolist())) == brute and len(pairs) == len(brute)
    np.testing.assert_allclose(mags, y[pairs[:, 0]] - y[pairs[:, 1]])
    all_pairs, _ = preference_pairs(y)
    assert len(all_pairs) == sum(1 for i in range(30) for j in range(30) if y[i] > y[j])
    assert count_preference_pairs(y, qids) == len(brute)


def test_tie_tolerance_and_max_pairs(rng):
    y = np.array([0.1 + 0.2, 0.3, 0.0, 0.6])           # 0.30000000000000004 vs 0.3
    pairs, mags = preference_pairs(y)
    assert len(pairs) == 6 and mags.min() < 1e-15      # a rounding-noise "preference"
    pairs, mags = preference_pairs(y, tie_tolerance=1e-9)
    assert len(pairs) == 5 and mags.min() > 1e-9
    with pytest.raises(InvalidInputError, match="max_pairs"):
        preference_pairs(y, max_pairs=5)
    X = rng.normal(size=(4, 2))
    model = PairwiseRankRLS(cost="weighted", tie_tolerance=1e-9).fit(X, y)
    assert model.n_pairs_ == 5
