"""Protein representations of homology: residue sequences, protein features (Biopython
ProteinAnalysis) and their weighted sums with string kernels."""

import numpy as np
import pytest
from Bio.SeqUtils.ProtParam import ProteinAnalysis

from homology.benchmark import full_gram, make_kernel
from homology.features import (ALPHABET, PHYSCHEM_NAMES, ProteinFeatures, raw_features,
                               residue_sequences)
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import MismatchKernel, SpectrumKernel, SumKernel


def _proteins(rng, n, lo=12, hi=40):
    return ["".join(rng.choice(list(ALPHABET), size=rng.integers(lo, hi))) for _ in range(n)]


def test_raw_features_by_hand():
    seq = "ACDAXCWKLA"
    raw, names = raw_features([seq])
    row = dict(zip(names, raw[0]))
    clean = seq.replace("X", "")
    assert row["aa_A"] == pytest.approx(3 / 9) and row["aa_C"] == pytest.approx(2 / 9)
    # dipeptides: adjacent standard pairs only (AX and XC are not counted): 7 pairs
    assert row["dp_AC"] == pytest.approx(1 / 7) and row["dp_CW"] == pytest.approx(1 / 7)
    assert sum(row[f"dp_{a}{b}"] for a in ALPHABET for b in ALPHABET) == pytest.approx(1)
    pa = ProteinAnalysis(clean)
    assert row["isoelectric_point"] == pytest.approx(pa.isoelectric_point())
    assert row["gravy"] == pytest.approx(pa.gravy())
    assert np.isnan(row["mean_flexibility"]) or len(clean) >= 9
    assert len(names) == 20 + 400 + len(PHYSCHEM_NAMES)


def test_standardized_and_kernel(rng):
    X, Y = _proteins(rng, 30), _proteins(rng, 5)
    f = ProteinFeatures(normalize=False).fit(X)
    Z = f.features(X)
    assert np.allclose(Z.mean(axis=0), 0, atol=1e-10)
    sd = Z.std(axis=0)
    assert np.allclose(sd[sd > 0], 1)
    np.testing.assert_allclose(f.transform(Y), f.features(Y) @ Z.T, rtol=1e-10)
    np.testing.assert_allclose(f.fit_transform(X), Z @ Z.T, rtol=1e-10)
    g = ProteinFeatures(groups=("aa",), kernel="gaussian", gamma=0.1).fit(X)
    A, B = g.X_fit_, g._parse_input(Y, fit=False)[0]     # standardized with X's statistics
    expected = np.exp(-0.1 * ((B[:, None, :] - A[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(g.transform(Y), expected, rtol=1e-10)
    assert not g.has_feature_map
    n = ProteinFeatures().fit(X)
    np.testing.assert_allclose(np.diag(n.fit_transform(X)), 1.0)
    np.testing.assert_allclose(np.linalg.norm(n.features(Y), axis=1), 1.0)


def test_sum_kernel_gram_and_feature_map(rng):
    X, Y = _proteins(rng, 12), _proteins(rng, 4)
    a, b = SpectrumKernel(ALPHABET, k=2), ProteinFeatures(groups=("aa", "physchem"))
    s = SumKernel([(0.7, a), (0.3, b)]).fit(X)
    expected = 0.7 * a.fit(X).transform(Y) + 0.3 * b.fit(X).transform(Y)
    np.testing.assert_allclose(s.fit(X).transform(Y), expected, rtol=1e-10)
    np.testing.assert_allclose((s.features(Y) @ s.features(X).T).toarray(), expected,
                               rtol=1e-10)
    np.testing.assert_allclose(s.fit_transform(X),
                               0.7 * a.fit_transform(X) + 0.3 * b.fit_transform(X), rtol=1e-10)
    thesis = MismatchKernel(ALPHABET, 3, 1, definition="thesis")
    with pytest.raises(InvalidParameterError, match="feature map"):
        SumKernel([(1.0, thesis)]).fit(X).features(X)
    with pytest.raises(InvalidParameterError, match=">= 0"):
        SumKernel([(-1.0, a)]).fit(X)


def test_residue_sequences():
    assert residue_sequences(["acdX", "MKV"]) == ["ACDX", "MKV"]
    with pytest.raises(InvalidInputError, match="sequence 1"):
        residue_sequences(["ACD", "AC1"])
    with pytest.raises(InvalidInputError, match="sequence 1"):
        full_gram(make_kernel("spectrum", k=2), ["ACD", "AC1"])
    with pytest.raises(InvalidInputError, match="single string"):
        residue_sequences("ACDEF")
    # lower case and ambiguous residues as the string kernels see them
    K = full_gram(make_kernel("spectrum", k=2), ["acdxef", "ACDEF"])
    np.testing.assert_allclose(K[0, 1], 3 / np.sqrt(3 * 4))   # AC CD EF of AC CD DE EF


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="groups"):
        ProteinFeatures(groups=("aa", "bogus")).fit(["ACDEF"])
    with pytest.raises(InvalidParameterError, match="gamma"):
        ProteinFeatures(kernel="linear", gamma=0.5).fit(["ACDEF"])
    with pytest.raises(InvalidInputError, match="sequence 0"):
        ProteinFeatures().fit(["AC#EF"])
