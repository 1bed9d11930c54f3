"""Spectrum and mismatch kernels against direct implementations on small random proteins."""

from collections import Counter
from itertools import product

import numpy as np
import pytest

from homology.kmers import ALPHABET, kmer_windows
from homology.mismatch import MismatchKernel, neighbourhood_overlap, wildcard_weights
from homology.spectrum import SpectrumKernel
from kernelrank.errors import InvalidInputError, InvalidParameterError


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


def _neighbours(alpha, m):
    """Every beta with d(alpha, beta) <= m, by brute enumeration of mismatch positions."""
    out = {alpha}
    for _ in range(m):
        out |= {b[:i] + c + b[i + 1:] for b in out for i in range(len(b)) for c in ALPHABET}
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
    idx, win = kmer_windows(["ACDX", "EF", "GHIK"], 2)
    got = ["".join(ALPHABET[c] for c in w) + str(i) for i, w in zip(idx, win)]
    assert got == ["AC0", "CD0", "EF1", "GH2", "HI2", "IK2"]


@pytest.mark.parametrize("k", [1, 2, 3])
def test_spectrum_matches_direct_count(rng, k):
    X, Y = _random_proteins(rng, 9), _random_proteins(rng, 6)
    expected = _naive_spectrum(X, Y, k)
    kern = SpectrumKernel(k=k, normalize=False)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-12)
    phi_x = kern.fit_transform(X)
    np.testing.assert_allclose((phi_x @ kern.transform(Y).T).toarray(), expected, rtol=1e-12)
    np.testing.assert_allclose(kern.self_kernel(X), np.diag(_naive_spectrum(X, X, k)))


@pytest.mark.parametrize("k,m", [(2, 1), (3, 1), (3, 2), (4, 1)])
def test_mismatch_matches_neighbourhood_definition(rng, k, m):
    X, Y = _random_proteins(rng, 7, hi=14), _random_proteins(rng, 5, hi=14)
    expected = _naive_mismatch(X, Y, k, m)
    kern = MismatchKernel(k=k, m=m, normalize=False)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-10)
    np.testing.assert_allclose((kern.fit_transform(X) @ kern.transform(Y).T).toarray(),
                               expected, rtol=1e-10)


@pytest.mark.parametrize("k,m", [(3, 1), (4, 2)])
def test_thesis_variant_counts_close_pairs(rng, k, m):
    X, Y = _random_proteins(rng, 6, hi=16), _random_proteins(rng, 5, hi=16)
    kern = MismatchKernel(k=k, m=m, normalize=False, definition="thesis")
    np.testing.assert_allclose(kern.gram(X, Y), _naive_thesis(X, Y, k, m), rtol=1e-12)
    assert not kern.is_feature_map
    with pytest.raises(InvalidParameterError, match="negative"):
        kern.fit(X).transform(X)


def test_overlap_counts_by_enumeration():
    letters = "ABCD"
    for k, m in [(3, 1), (4, 1), (4, 2)]:
        for d in range(k + 1):
            a, b = "A" * k, "B" * d + "A" * (k - d)
            brute = sum(_hamming(a, beta) <= m and _hamming(b, beta) <= m
                        for beta in map("".join, product(letters, repeat=k)))
            assert neighbourhood_overlap(k, m, d, alphabet_size=4) == brute
    assert wildcard_weights(5, 1) == (16, 12, 2)


@pytest.mark.parametrize("kern", [SpectrumKernel(k=2), MismatchKernel(k=3, m=1)])
def test_normalization(rng, kern):
    X, Y = _random_proteins(rng, 8), _random_proteins(rng, 4)
    kern.set_params(normalize=False)
    raw_xy, dx, dy = kern.gram(X, Y), kern.self_kernel(X), kern.self_kernel(Y)
    kern.set_params(normalize=True)
    expected = _cosine(raw_xy, dx, dy)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-12, atol=1e-15)
    # features learned on X, applied to Y with unseen k-mers: same normalized values
    np.testing.assert_allclose((kern.fit_transform(X) @ kern.transform(Y).T).toarray(),
                               expected, rtol=1e-12, atol=1e-15)
    diag = np.diag(kern.gram(X))
    np.testing.assert_allclose(diag[dx > 0], 1.0)


def test_bad_input_and_parameters():
    with pytest.raises(InvalidInputError, match="sequence 1"):
        SpectrumKernel(k=2).gram(["ACD", "AC1"])
    with pytest.raises(InvalidInputError, match="single string"):
        SpectrumKernel(k=2).gram("ACDEF")
    for bad in [dict(k=0), dict(k=2.0), dict(k=20)]:
        with pytest.raises(InvalidParameterError, match="k must"):
            SpectrumKernel(**bad).gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="m must"):
        MismatchKernel(k=3, m=3).gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="definition"):
        MismatchKernel(definition="leslie").gram(["ACD"])
    with pytest.raises(InvalidParameterError, match="no parameter"):
        MismatchKernel().set_params(mm=1)
    with pytest.raises(InvalidParameterError, match="not fitted"):
        MismatchKernel().transform(["ACDEFG"])
