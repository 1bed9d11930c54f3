"""Locality kernels against the direct double sum over matching positions and window offsets."""

import numpy as np
import pytest

from homology.kmers import ALPHABET
from homology.locality import LocalityKernel
from kernelrank.errors import InvalidParameterError


def _proteins(rng, n, hi=20):
    letters = np.array(list(ALPHABET[:6] + "X"))  # small alphabet: many matches
    return ["".join(rng.choice(letters, size=rng.integers(1, hi))) for _ in range(n)]


def _direct(p, q, mode, t, theta):
    total = 0.0
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            if a != b or a == "X":
                continue
            for l in range(-t, t + 1):
                for h in range(-t, t + 1):
                    if not (0 <= i + l < len(p) and 0 <= j + h < len(q)):
                        continue
                    if p[i + l] != q[j + h] or p[i + l] == "X":
                        continue
                    if mode == "insensitive":
                        total += 1.0
                    elif mode == "strict":
                        total += float(l == h)
                    else:
                        total += np.exp(-((l - h) ** 2) / theta**2)
    return total


@pytest.mark.parametrize("mode,t,theta", [("insensitive", 2, 2.0), ("strict", 3, 2.0),
                                          ("sensitive", 2, 1.5), ("sensitive", 0, 2.0)])
def test_matches_direct_double_sum(rng, mode, t, theta):
    X, Y = _proteins(rng, 7), _proteins(rng, 5)
    expected = np.array([[_direct(p, q, mode, t, theta) for q in Y] for p in X])
    kern = LocalityKernel(mode=mode, half_width=t, theta=theta, normalize=False)
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kern.self_kernel(X),
                               [_direct(p, p, mode, t, theta) for p in X], rtol=1e-10)


def test_normalization_and_limits(rng):
    X = _proteins(rng, 9)
    raw = LocalityKernel(half_width=2, normalize=False)
    d = raw.self_kernel(X)
    K = LocalityKernel(half_width=2).gram(X)
    ok = d > 0
    np.testing.assert_allclose(K[np.ix_(ok, ok)],
                               raw.gram(X)[np.ix_(ok, ok)] / np.sqrt(np.outer(d[ok], d[ok])))
    # the Gaussian position penalty interpolates between strict and insensitive matching
    tiny = LocalityKernel("sensitive", 2, theta=0.05, normalize=False).gram(X)
    huge = LocalityKernel("sensitive", 2, theta=1e4, normalize=False).gram(X)
    np.testing.assert_allclose(tiny, LocalityKernel("strict", 2, normalize=False).gram(X),
                               rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(huge, LocalityKernel("insensitive", 2, normalize=False).gram(X),
                               rtol=1e-6)


def test_bad_parameters():
    for bad in [dict(mode="loose"), dict(half_width=-1), dict(half_width=1.5),
                dict(theta=0.0), dict(mode="strict", theta=3.0)]:
        with pytest.raises(InvalidParameterError):
            LocalityKernel(**bad).gram(["ACD"])
