"""Global protein features from Biopython's ``ProteinAnalysis``, standardized (issue 5).

Three groups, chosen with ``groups``:

* ``"aa"`` — amino-acid composition: the fraction of each of the 20 standard residues
  (``ProteinAnalysis.count_amino_acids`` / length);
* ``"dipeptide"`` — dipeptide composition: the fraction of each of the 400 ordered pairs of
  adjacent standard residues (counted vectorized, :func:`homology.locality.offset_pair_counts`);
* ``"physchem"`` — 13 physico-chemical properties from ``ProteinAnalysis``: log length,
  log molecular weight, aromaticity, instability index, isoelectric point, GRAVY, helix /
  turn / sheet fractions, molar extinction coefficients (reduced, oxidized) per residue,
  net charge at pH 7 per residue, mean flexibility.

Ambiguous residues (X, B, Z, J, U, O) are removed before the physico-chemical properties
are computed (Biopython rejects them) and do not count in the compositions. A property that
is undefined for a sequence (e.g. flexibility needs 9 residues) is imputed with the fitted
mean. Every column is standardized with the mean and standard deviation of the sequences
given to :meth:`ProteinFeatures.fit` (constant columns get scale 1).

The kernel on these features is linear or Gaussian (``learners.kernels``), optionally
cosine-normalized, and can be summed with a string kernel (:mod:`homology.sums`).

Cost: O(N) Python-level work per residue inside Biopython for ``physchem`` (about 1 ms per
protein), vectorized NumPy for the compositions.
"""

import numpy as np

from homology.kmers import ALPHABET, ALPHABET_SIZE, _inverse_sqrt, as_sequences, encode
from homology.locality import offset_pair_counts
from kernelrank.errors import InvalidParameterError
from learners.kernels import kernel_matrix, resolve_kernel

GROUPS = ("aa", "dipeptide", "physchem")
PHYSCHEM_NAMES = ("log_length", "log_molecular_weight", "aromaticity", "instability_index",
                  "isoelectric_point", "gravy", "helix_fraction", "turn_fraction",
                  "sheet_fraction", "extinction_reduced_per_residue",
                  "extinction_oxidized_per_residue", "charge_pH7_per_residue",
                  "mean_flexibility")
_STANDARD = set(ALPHABET)


def _physchem_row(seq):
    from Bio.SeqUtils.ProtParam import ProteinAnalysis

    clean = "".join(c for c in seq if c in _STANDARD)
    if not clean:
        return [np.nan] * len(PHYSCHEM_NAMES)
    pa = ProteinAnalysis(clean)
    n = len(clean)
    helix, turn, sheet = pa.secondary_structure_fraction()
    ext_red, ext_ox = pa.molar_extinction_coefficient()
    flex = pa.flexibility()
    return [np.log(n), np.log(pa.molecular_weight()), pa.aromaticity(),
            pa.instability_index(), pa.isoelectric_point(), pa.gravy(), helix, turn, sheet,
            ext_red / n, ext_ox / n, pa.charge_at_pH(7.0) / n,
            float(np.mean(flex)) if flex else np.nan]


def _aa_composition(sequences):
    from Bio.SeqUtils.ProtParam import ProteinAnalysis

    out = np.full((len(sequences), ALPHABET_SIZE), np.nan)
    for r, seq in enumerate(sequences):
        counts = ProteinAnalysis(seq).count_amino_acids()
        total = sum(counts[a] for a in ALPHABET)
        if total:
            out[r] = [counts[a] / total for a in ALPHABET]
    return out


def _dipeptide_composition(sequences):
    V = offset_pair_counts(sequences, 1)
    block = V[:, 2 * ALPHABET_SIZE**2:].toarray()  # offset l = +1: (p_i, p_{i+1})
    total = block.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, block / np.where(total > 0, total, 1), np.nan)


def raw_features(sequences, groups=GROUPS):
    """Unstandardized feature matrix (NaN where undefined) and the column names."""
    sequences = as_sequences(sequences)
    encode(sequences)  # validates the characters, naming the bad sequence
    blocks, names = [], []
    for g in groups:
        if g == "aa":
            blocks.append(_aa_composition(sequences))
            names += [f"aa_{a}" for a in ALPHABET]
        elif g == "dipeptide":
            blocks.append(_dipeptide_composition(sequences))
            names += [f"dp_{a}{b}" for a in ALPHABET for b in ALPHABET]
        elif g == "physchem":
            blocks.append(np.array([_physchem_row(s) for s in sequences], dtype=float)
                          .reshape(len(sequences), len(PHYSCHEM_NAMES)))
            names += list(PHYSCHEM_NAMES)
    return np.hstack(blocks), names


class ProteinFeatures:
    """Standardized protein features and their kernel.

    Parameters
    ----------
    groups : tuple of {"aa", "dipeptide", "physchem"}, default all three
    kernel : {"linear", "gaussian"}, default "linear"
    gamma : float or None
        Gaussian width (``None``: 1 / n_features); only for ``kernel="gaussian"``.
    normalize : bool, default True
        Cosine normalization of the kernel (for the linear kernel: unit-length rows).

    Attributes
    ----------
    mean_, scale_ : ndarray
        Standardization learned by :meth:`fit`.
    feature_names_ : list of str
    """

    def __init__(self, groups=GROUPS, kernel="linear", gamma=None, normalize=True):
        self.groups = groups
        self.kernel = kernel
        self.gamma = gamma
        self.normalize = normalize

    def get_params(self, deep=True):
        return {"groups": self.groups, "kernel": self.kernel, "gamma": self.gamma,
                "normalize": self.normalize}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self.get_params():
                raise InvalidParameterError(
                    f"ProteinFeatures has no parameter {name!r}; it has {sorted(self.get_params())}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        return "ProteinFeatures(" + ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()) + ")"

    def _check_params(self):
        groups = (self.groups,) if isinstance(self.groups, str) else tuple(self.groups)
        bad = [g for g in groups if g not in GROUPS]
        if not groups or bad or len(set(groups)) != len(groups):
            raise InvalidParameterError(
                f"groups must be a non-empty selection of {GROUPS} without repeats, got "
                f"{self.groups!r}")
        if self.kernel not in ("linear", "gaussian"):
            raise InvalidParameterError(f"kernel must be 'linear' or 'gaussian', got {self.kernel!r}")
        resolve_kernel(self.kernel, gamma=self.gamma)
        return groups

    @property
    def is_feature_map(self):
        return self.kernel == "linear"

    def fit(self, sequences):
        """Learn the standardization (mean, standard deviation) on ``sequences``."""
        groups = self._check_params()
        raw, self.feature_names_ = raw_features(sequences, groups)
        self.mean_ = np.nan_to_num(np.nanmean(raw, axis=0)) if len(raw) else np.zeros(raw.shape[1])
        std = np.nan_to_num(np.nanstd(raw, axis=0))
        self.scale_ = np.where(std > 0, std, 1.0)
        return self

    def transform(self, sequences):
        """Standardized dense features (rows unit-length if linear and ``normalize``)."""
        if not hasattr(self, "mean_"):
            raise InvalidParameterError("ProteinFeatures is not fitted; call fit first")
        groups = self._check_params()
        raw, _ = raw_features(sequences, groups)
        Z = (np.where(np.isnan(raw), self.mean_, raw) - self.mean_) / self.scale_
        if self.normalize and self.kernel == "linear":
            Z = Z * _inverse_sqrt(np.einsum("ij,ij->i", Z, Z))[:, None]
        return Z

    def fit_transform(self, sequences):
        return self.fit(sequences).transform(sequences)

    def gram_from_features(self, A, B=None):
        """Kernel matrix between standardized feature rows ``A`` and ``B``."""
        B = A if B is None else B
        name, params = resolve_kernel(self.kernel, gamma=self.gamma)
        return kernel_matrix(A, B, name, **params)

    def gram(self, X, Y=None):
        """Dense kernel matrix (standardization must already be fitted)."""
        A = self.transform(X)
        return self.gram_from_features(A, None if Y is None else self.transform(Y))
