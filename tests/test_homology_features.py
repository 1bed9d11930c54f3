"""Protein features (Biopython ProteinAnalysis) and weighted kernel sums."""

import numpy as np
import pytest
from Bio.SeqUtils.ProtParam import ProteinAnalysis

from homology.features import PHYSCHEM_NAMES, ProteinFeatures, raw_features
from homology.kmers import ALPHABET
from homology.mismatch import MismatchKernel
from homology.spectrum import SpectrumKernel
from homology.sums import SumKernel
from kernelrank.errors import InvalidInputError, InvalidParameterError


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
    Z = f.transform(X)
    assert np.allclose(Z.mean(axis=0), 0, atol=1e-10)
    sd = Z.std(axis=0)
    assert np.allclose(sd[sd > 0], 1)
    np.testing.assert_allclose(f.gram(X, Y), Z @ f.transform(Y).T, rtol=1e-10)
    g = ProteinFeatures(groups=("aa",), kernel="gaussian", gamma=0.1).fit(X)
    A, B = g.transform(X), g.transform(Y)
    expected = np.exp(-0.1 * ((A[:, None, :] - B[None, :, :]) ** 2).sum(-1))
    np.testing.assert_allclose(g.gram(X, Y), expected, rtol=1e-10)
    n = ProteinFeatures().fit(X)
    np.testing.assert_allclose(np.diag(n.gram(X)), 1.0)


def test_sum_kernel_gram_and_feature_map(rng):
    X, Y = _proteins(rng, 12), _proteins(rng, 4)
    a, b = SpectrumKernel(k=2), ProteinFeatures(groups=("aa", "physchem"))
    s = SumKernel([(0.7, a), (0.3, b)]).fit(X)
    expected = 0.7 * a.gram(X, Y) + 0.3 * b.gram(X, Y)
    np.testing.assert_allclose(s.gram(X, Y), expected, rtol=1e-10)
    np.testing.assert_allclose((s.transform(X) @ s.transform(Y).T).toarray(), expected,
                               rtol=1e-10)
    thesis = MismatchKernel(3, 1, definition="thesis")
    with pytest.raises(InvalidParameterError, match="feature map"):
        SumKernel([(1.0, thesis)]).fit(X).transform(X)
    with pytest.raises(InvalidParameterError, match=">= 0"):
        SumKernel([(-1.0, a)]).fit(X)


def test_bad_input():
    with pytest.raises(InvalidParameterError, match="groups"):
        ProteinFeatures(groups=("aa", "bogus")).fit(["ACDEF"])
    with pytest.raises(InvalidParameterError, match="gamma"):
        ProteinFeatures(kernel="linear", gamma=0.5).fit(["ACDEF"])
    with pytest.raises(InvalidInputError, match="sequence 0"):
        ProteinFeatures().fit(["AC#EF"])
