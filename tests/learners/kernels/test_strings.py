"""Spectrum and mismatch kernels (learners/kernels) against naive k-mer enumeration on small
random proteins (amino-acid alphabet, X = ambiguous, matches nothing) and on a small
generic alphabet of multi-character symbols."""

from collections import Counter
from itertools import product

import numpy as np
import pytest

from homology.features import ALPHABET
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import MismatchKernel, SpectrumKernel
from learners.kernels.kmers import kmer_windows
from learners.kernels.mismatch import neighbourhood_overlap, wildcard_weights
from learners.kernels.sequences import encode


def _random_proteins(rng, n, lo=1, hi=25, ambiguous=0.05):
    letters = np.array(list(ALPHABET + "X"))
    p = np.r_[np.full(20, (1 - ambiguous) / 20), ambiguous]
    return ["".join(rng.choice(letters, size=rng.integers(lo, hi), p=p)) for _ in range(n)]


def _kmers(s, k):
    return [s[i:i + k] for i in range(len(s) - k + 1) if "X" not in s[i:i + k]]


def _hamming(a, b):
    return sum(x != y for x, y in zip(a, b))


def _naive_spectrum(X, Y, k):
    return np.array([[sum(c * Counter(_kmers(y, k))[a] for a, c in Counter(_kmers(x, k)).items())
                      for y in Y] for x in X], dtype=float)


def _neighbours(alpha, m, alphabet=ALPHABET):
    """Every beta with d(alpha, beta) <= m, by brute enumeration of mismatch positions."""
    out = {alpha}
    for _ in range(m):
        out |= {b[:i] + (c,) + b[i + 1:] if isinstance(b, tuple) else b[:i] + c + b[i + 1:]
                for b in out for i in range(len(b)) for c in alphabet}
    return out


def _naive_mismatch(X, Y, k, m):
    def phi(s):
        f = Counter()
        for a in _kmers(s, k):
            f.update(_neighbours(a, m))
        return f
    PX, PY = [phi(x) for x in X], [phi(y) for y in Y]
    return np.array([[sum(v * py[b] for b, v in px.items()) for py in PY] for px in PX], float)


def _naive_thesis(X, Y, k, m):
    return np.array([[sum(_hamming(a, b) <= m for a in _kmers(x, k) for b in _kmers(y, k))
                      for y in Y] for x in X], dtype=float)


def _cosine(K, dx, dy):
    with np.errstate(divide="ignore", invalid="ignore"):
        out = K / np.sqrt(np.outer(dx, dy))
    return np.nan_to_num(out)


def test_windows_skip_boundaries_and_unknown():
    idx, win = kmer_windows(*encode(["ACDX", "EF", "GHIK"],
                                    {a: i for i, a in enumerate(ALPHABET)}), 2)
    got = ["".join(ALPHABET[c] for c in w) + str(i) for i, w in zip(idx, win)]
    assert got == ["AC0", "CD0", "EF1", "GH2", "HI2", "IK2"]


@pytest.mark.parametrize("k", [1, 2, 3])
def test_spectrum_matches_direct_count(rng, k):
    X, Y = _random_proteins(rng, 9), _random_proteins(rng, 6)
    expected = _naive_spectrum(X, Y, k)
    kern = SpectrumKernel(ALPHABET, k=k, normalize=False)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-12)
    phi_x = kern.fit_features(X)
    np.testing.assert_allclose((phi_x @ kern.features(Y).T).toarray(), expected, rtol=1e-12)
    np.testing.assert_allclose(kern.transform(Y), expected.T, rtol=1e-12)
    np.testing.assert_allclose(kern.self_kernel(X), np.diag(_naive_spectrum(X, X, k)))


@pytest.mark.parametrize("k,m", [(2, 1), (3, 1), (3, 2), (4, 1)])
def test_mismatch_matches_neighbourhood_definition(rng, k, m):
    X, Y = _random_proteins(rng, 7, hi=14), _random_proteins(rng, 5, hi=14)
    expected = _naive_mismatch(X, Y, k, m)
    kern = MismatchKernel(ALPHABET, k=k, m=m, normalize=False)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-10)
    np.testing.assert_allclose((kern.fit_features(X) @ kern.features(Y).T).toarray(),
                               expected, rtol=1e-10)
    np.testing.assert_allclose(kern.transform(Y), expected.T, rtol=1e-10)


@pytest.mark.parametrize("k,m", [(3, 1), (4, 2)])
def test_thesis_variant_counts_close_pairs(rng, k, m):
    X, Y = _random_proteins(rng, 6, hi=16), _random_proteins(rng, 5, hi=16)
    kern = MismatchKernel(ALPHABET, k=k, m=m, normalize=False, definition="thesis")
    np.testing.assert_allclose(kern.gram(X, Y), _naive_thesis(X, Y, k, m), rtol=1e-12)
    np.testing.assert_allclose(kern.fit(Y).transform(X), _naive_thesis(X, Y, k, m),
                               rtol=1e-12)
    assert not kern.has_feature_map
    with pytest.raises(InvalidParameterError, match="feature map"):
        kern.fit(X).features(X)


def test_overlap_counts_by_enumeration():
    letters = "ABCD"
    for k, m in [(3, 1), (4, 1), (4, 2)]:
        for d in range(k + 1):
            a, b = "A" * k, "B" * d + "A" * (k - d)
            brute = sum(_hamming(a, beta) <= m and _hamming(b, beta) <= m
                        for beta in map("".join, product(letters, repeat=k)))
            assert neighbourhood_overlap(k, m, d, alphabet_size=4) == brute
    assert wildcard_weights(5, 1, "neighbourhood", 20) == (16, 12, 2)


def test_generic_alphabet_of_tokens(rng):
    """Multi-character symbols, tokens outside the alphabet match nothing."""
    alphabet = ("ab", "cd", "ef")
    pool = np.array(list(alphabet) + ["zz"], dtype=object)
    X = [tuple(rng.choice(pool, size=rng.integers(1, 12))) for _ in range(8)]

    def kmers(s, k):
        return [s[i:i + k] for i in range(len(s) - k + 1) if "zz" not in s[i:i + k]]

    def phi(s, k, m):
        f = Counter()
        for a in kmers(s, k):
            f.update(_neighbours(a, m, alphabet))
        return f

    for k, m in [(2, 0), (2, 1), (3, 1)]:
        P = [phi(x, k, m) for x in X]
        expected = np.array([[sum(v * q[b] for b, v in p.items()) for q in P] for p in P])
        got = MismatchKernel(alphabet, k=k, m=m, normalize=False).fit_transform(X)
        np.testing.assert_allclose(got, expected, rtol=1e-10)
    spectrum = SpectrumKernel(list(alphabet), k=2, normalize=False).fit_transform(X)
    expected = np.array([[sum(c * Counter(kmers(y, 2))[a] for a, c in Counter(kmers(x, 2)).items())
                          for y in X] for x in X], dtype=float)
    np.testing.assert_allclose(spectrum, expected)


@pytest.mark.parametrize("kern", [SpectrumKernel(ALPHABET, k=2),
                                  MismatchKernel(ALPHABET, k=3, m=1),
                                  MismatchKernel(ALPHABET, k=3, m=1, definition="thesis")])
def test_normalization(rng, kern):
    X, Y = _random_proteins(rng, 8), _random_proteins(rng, 4)
    kern.set_params(normalize=False)
    raw_xy, dx, dy = kern.gram(X, Y), kern.self_kernel(X), kern.self_kernel(Y)
    kern.set_params(normalize=True)
    expected = _cosine(raw_xy, dx, dy)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-12, atol=1e-15)
    # fitted on X, applied to Y with unseen k-mers: same normalized values
    np.testing.assert_allclose(kern.fit(X).transform(Y), expected.T, rtol=1e-12, atol=1e-15)
    if kern.has_feature_map:
        np.testing.assert_allclose((kern.fit_features(X) @ kern.features(Y).T).toarray(),
                                   expected, rtol=1e-12, atol=1e-15)
    diag = np.diag(kern.gram(X))
    np.testing.assert_allclose(diag[dx > 0], 1.0)
    np.testing.assert_allclose(diag[dx <= 0], 0.0)   # zero self-similarity: zero row


def test_bad_input_and_parameters():
    with pytest.raises(InvalidInputError, match="single string"):
        SpectrumKernel(ALPHABET, k=2).gram("ACDEF")
    for bad in [dict(k=0), dict(k=2.0)]:
        with pytest.raises(InvalidParameterError, match="'k' parameter"):
            SpectrumKernel(ALPHABET, **bad).gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="k must be at most 14"):
        SpectrumKernel(ALPHABET, k=20).gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="alphabet"):
        SpectrumKernel("AAC", k=2).gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="m must"):
        MismatchKernel(ALPHABET, k=3, m=3).gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="'definition'"):
        MismatchKernel(ALPHABET, definition="leslie").gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="no parameter"):
        MismatchKernel(ALPHABET).set_params(mm=1)
    with pytest.raises(InvalidParameterError, match="not fitted"):
        MismatchKernel(ALPHABET).transform(["ACDEFG"])
