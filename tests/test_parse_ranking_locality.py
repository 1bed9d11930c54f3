"""Locality-convolution kernel: explicit sparse feature map vs the defining double sum."""

import numpy as np
import pytest

from kernelrank.errors import InvalidParameterError
from parse_ranking.locality import (LocalityConvolutionVectorizer, locality_kernel_naive,
                                    offset_weights)


def _random_sequences(rng, n, alphabet=5, max_len=9):
    labels = [f"L{k}" for k in range(alphabet)]
    return [[labels[i] for i in rng.integers(0, alphabet, rng.integers(0, max_len + 1))]
            for _ in range(n)]


@pytest.mark.parametrize("matching", ["sensitive", "strict", "insensitive"])
@pytest.mark.parametrize("window", [0, 1, 3])
def test_feature_map_equals_naive_kernel(rng, matching, window):
    seqs = _random_sequences(rng, 14)
    train, test = seqs[:9], seqs
    vec = LocalityConvolutionVectorizer(window=window, theta=0.7, matching=matching,
                                        normalize=False)
    Z_tr = vec.fit_transform(train)
    Z_te = vec.transform(test)
    K = (Z_te @ Z_tr.T).toarray()
    K_naive = np.array([[locality_kernel_naive(p, q, window, 0.7, matching) for q in train]
                        for p in test])
    np.testing.assert_allclose(K, K_naive, rtol=1e-10, atol=1e-10)


def test_normalized_rows_give_cosine_kernel_including_unseen_pairs(rng):
    seqs = _random_sequences(rng, 12, alphabet=7)
    vec = LocalityConvolutionVectorizer(window=2, theta=1.3, normalize=True)
    Z_tr = vec.fit_transform(seqs[:6])
    Z_te = vec.transform(seqs[6:])          # may contain pairs never seen in training
    full = np.array([[locality_kernel_naive(p, q, 2, 1.3) for q in seqs] for p in seqs])
    d = np.sqrt(np.diag(full))
    d[d == 0] = 1.0
    cos = full / np.outer(d, d)
    np.testing.assert_allclose((Z_te @ Z_tr.T).toarray(), cos[6:, :6], atol=1e-12)


def test_kernel_is_psd_and_position_sensitive():
    G = offset_weights(3, theta=0.5)
    assert np.linalg.eigvalsh(G).min() > -1e-12
    # same multiset of features, different order: strict < sensitive < insensitive
    p, q = ["A", "B", "C", "D"], ["A", "C", "B", "D"]
    values = [locality_kernel_naive(p, q, 2, 1.0, m) for m in ("strict", "sensitive",
                                                                 "insensitive")]
    assert values[0] < values[1] < values[2]


def test_bad_parameters_raise():
    with pytest.raises(InvalidParameterError):
        offset_weights(2, matching="fuzzy")
    with pytest.raises(InvalidParameterError):
        offset_weights(-1)
    with pytest.raises(InvalidParameterError):
        offset_weights(2, theta=0.0)
