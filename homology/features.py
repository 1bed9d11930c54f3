"""Protein representations of ``homology``: residue sequences for the string kernels, and
global protein features from Biopython's ``ProteinAnalysis``, standardized.

Residue sequences (:func:`residue_sequences`): upper-case strings over the 20 standard
amino acids :data:`ALPHABET` and the ambiguity codes ``B Z J U O X``; the kernels of
:mod:`learners.kernels` get :data:`ALPHABET` as their alphabet, so ambiguous residues match
nothing. A character that is not a residue is an error naming the sequence.

Protein features, three groups, chosen with ``groups``:

* ``"aa"`` — amino-acid composition: the fraction of each of the 20 standard residues
  (``ProteinAnalysis.count_amino_acids`` / length);
* ``"dipeptide"`` — dipeptide composition: the fraction of each of the 400 ordered pairs of
  adjacent standard residues (counted vectorized, :func:`learners.kernels.sequences.offset_pairs`);
* ``"physchem"`` — 13 physico-chemical properties from ``ProteinAnalysis``: log length,
  log molecular weight, aromaticity, instability index, isoelectric point, GRAVY, helix /
  turn / sheet fractions, molar extinction coefficients (reduced, oxidized) per residue,
  net charge at pH 7 per residue, mean flexibility.

Ambiguous residues (X, B, Z, J, U, O) are removed before the physico-chemical properties
are computed (Biopython rejects them) and do not count in the compositions. A property that
is undefined for a sequence (e.g. flexibility needs 9 residues) is imputed with the fitted
mean. Every column is standardized with the mean and standard deviation of the sequences
given to :meth:`ProteinFeatures.fit` (constant columns get scale 1).

:class:`ProteinFeatures` is the kernel on these features: a linear or Gaussian
:class:`learners.kernels.VectorKernel` whose input is the standardized feature rows of the
sequences, optionally cosine-normalized, and can be summed with a string kernel
(:class:`learners.kernels.SumKernel`).

Cost: O(N) Python-level work per residue inside Biopython for ``physchem``, vectorized NumPy
for the compositions.
"""

from numbers import Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from corpora.fasta import PROTEIN_ALPHABET, STANDARD_AMINO_ACIDS
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import VectorKernel, resolve_kernel
from learners.kernels.sequences import (alphabet_ids, check_sequences, encode, offset_pairs,
                                        sequence_index)

ALPHABET = STANDARD_AMINO_ACIDS
ALPHABET_SIZE = len(ALPHABET)
_RESIDUES = frozenset(PROTEIN_ALPHABET) | {c.lower() for c in PROTEIN_ALPHABET}
GROUPS = ("aa", "dipeptide", "physchem")
PHYSCHEM_NAMES = ("log_length", "log_molecular_weight", "aromaticity", "instability_index",
                  "isoelectric_point", "gravy", "helix_fraction", "turn_fraction",
                  "sheet_fraction", "extinction_reduced_per_residue",
                  "extinction_oxidized_per_residue", "charge_pH7_per_residue",
                  "mean_flexibility")
_STANDARD = set(ALPHABET)


def residue_sequences(sequences):
    """Validated protein sequences, upper-cased (a single string is an error, not a batch).

    Raises :class:`InvalidInputError` naming the sequence index on a non-protein character.
    """
    sequences = check_sequences(sequences)
    for i, s in enumerate(sequences):
        if not isinstance(s, str):
            raise InvalidInputError(f"sequence {i} is a {type(s).__name__}, not a str")
        bad = set(s) - _RESIDUES
        if bad:
            raise InvalidInputError(
                f"sequence {i} has the non-protein character {min(bad)!r}; "
                f"allowed are {ALPHABET} and the ambiguity codes B Z J U O X")
    return [s.upper() for s in sequences]


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
    ids, lengths = encode(sequences, alphabet_ids(ALPHABET))
    seq_of = sequence_index(lengths)
    i, j = offset_pairs(ids, seq_of, 1)                  # (p_i, p_{i+1}), both standard
    block = np.bincount(seq_of[i] * ALPHABET_SIZE**2 + ids[i] * ALPHABET_SIZE + ids[j],
                        minlength=len(lengths) * ALPHABET_SIZE**2
                        ).reshape(len(lengths), ALPHABET_SIZE**2).astype(float)
    total = block.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, block / np.where(total > 0, total, 1), np.nan)


def raw_features(sequences, groups=GROUPS):
    """Unstandardized feature matrix (NaN where undefined) and the column names."""
    sequences = residue_sequences(sequences)  # validates the characters
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


class ProteinFeatures(VectorKernel):
    """Standardized protein features and their kernel (a :class:`VectorKernel` on them).

    Parameters
    ----------
    groups : tuple of {"aa", "dipeptide", "physchem"}, default all three
    kernel : {"linear", "gaussian"}, default "linear"
    gamma : float or None
        Gaussian width (``None``: 1 / n_features); only for ``kernel="gaussian"``.
    normalize : bool, default True
        Cosine normalization of the kernel (for the linear kernel: unit-length rows; the
        Gaussian kernel has ``k(x, x) = 1`` already).

    Attributes
    ----------
    mean_, scale_ : ndarray
        Standardization learned by :meth:`fit`.
    feature_names_ : list of str
    """

    _parameter_constraints = {
        "groups": [str, list, tuple],
        "kernel": [StrOptions({"linear", "gaussian"})],
        "gamma": [Interval(Real, 0, None, closed="neither"), None],
        "normalize": ["boolean"],
    }

    def __init__(self, groups=GROUPS, kernel="linear", gamma=None, normalize=True):
        self.groups = groups
        self.kernel = kernel
        self.gamma = gamma
        self.normalize = normalize

    def _resolve(self):
        return resolve_kernel(self.kernel, gamma=self.gamma)

    def _groups(self):
        groups = (self.groups,) if isinstance(self.groups, str) else tuple(self.groups)
        bad = [g for g in groups if g not in GROUPS]
        if not groups or bad or len(set(groups)) != len(groups):
            raise InvalidParameterError(
                f"groups must be a non-empty selection of {GROUPS} without repeats, got "
                f"{self.groups!r}")
        return groups

    def _check_consistency(self):
        self._groups()
        super()._check_consistency()

    def _parse_input(self, sequences, fit):
        """Standardized feature rows (the mean imputes undefined values)."""
        raw, names = raw_features(sequences, self._groups())
        if fit:
            self.feature_names_ = names
            self.mean_ = np.nan_to_num(np.nanmean(raw, axis=0)) if len(raw) \
                else np.zeros(raw.shape[1])
            std = np.nan_to_num(np.nanstd(raw, axis=0))
            self.scale_ = np.where(std > 0, std, 1.0)
        Z = (np.where(np.isnan(raw), self.mean_, raw) - self.mean_) / self.scale_
        return super()._parse_input(Z, fit)
