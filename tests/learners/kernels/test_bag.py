"""The bag-of-features kernel's vocabulary, fitted while the bags are read."""

import numpy as np
import pytest

from learners.kernels.bag import BagOfFeaturesKernel


def _bags(seed=0, n=300):
    rs = np.random.default_rng(seed)
    words = ["a", "b", "B", "zeta", "Äx", "a b", "é", "x" * 80, "", "1", "10", "2"]
    bags = [[words[i] for i in rs.integers(0, len(words), rs.integers(0, 7))]
            for _ in range(n)]
    return bags + [[]]                              # a last empty bag keeps its row


@pytest.mark.parametrize("binary", [False, True])
def test_fit_from_a_generator_equals_the_counts_of_the_sorted_distinct_features(binary):
    """The vocabulary is np.unique of every feature string (code-point order); each row
    holds its bag's counts (or ones) in those columns, unit norm; a generator of bags gives
    the same rows as their list."""
    bags = _bags()
    k = BagOfFeaturesKernel(binary=binary)
    X = k.fit_features(iter(bags)).toarray()
    vocab = np.unique(np.array([w for b in bags for w in b], dtype=str))
    assert list(k.vocabulary_) == list(vocab)
    col = {w: j for j, w in enumerate(vocab)}
    want = np.zeros((len(bags), len(vocab)))
    for i, b in enumerate(bags):
        for w in b:
            want[i, col[w]] = 1.0 if binary else want[i, col[w]] + 1.0
    norms = np.linalg.norm(want, axis=1, keepdims=True)
    want = np.divide(want, norms, out=np.zeros_like(want), where=norms > 0)
    np.testing.assert_allclose(X, want, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(BagOfFeaturesKernel(binary=binary).fit_features(bags).toarray(),
                               X)
    np.testing.assert_allclose(k.features(bags[:40]).toarray(), X[:40])


def test_a_string_bag_is_refused_naming_it():
    with pytest.raises(Exception, match="bag 1 is a string"):
        BagOfFeaturesKernel().fit_features(iter([["a"], "ab"]))
