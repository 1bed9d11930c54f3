"""Locality-convolution kernel for symbol sequences: parse features (Tsivtsivadze et al. 2006,
"Locality-convolution kernel and its application to dependency parse ranking", IEA/AIE,
LNCS 4031) and proteins (the locality kernels of Tsivtsivadze, Boberg & Salakoski 2007;
generalised in Tsivtsivadze et al. 2008, Applied Intelligence — thesis of Tsivtsivadze
2008, ../shared/papers/003 §2.2.1–2.2.2).

The papers describe the kernel in words: similarity is measured *locally, within a small
window built around each matching symbol* (a parse feature, an amino acid); inside the
window a *position sensitive function* accounts for the order of appearance; the kernel is
the *sum of the window similarities*. Their exact printed formula was not available to us;
we implement the following definition, which has exactly those ingredients and is positive
semi-definite by construction (a convolution kernel, thesis eq. 1.12, with a windowed
kappa). For sequences ``p = (p_1..p_|p|)`` and ``q``, window half-width ``t`` and offset
weight ``g``:

    k(p, q) = Σ_i Σ_j δ(p_i, q_j) · Σ_{h=-t..t} Σ_{l=-t..t} δ(p_{i+h}, q_{j+l}) g(h, l)

(positions outside a sequence contribute nothing; the centre pair h = l = 0 is included, so
the kernel contains the composition kernel), with three ways of using positions inside the
window (the variants named in the thesis §2.2.2):

* ``matching="sensitive"``: ``g(h, l) = exp(-((h - l) / θ)^2)`` — symbols matching at
  different relative positions are penalised smoothly (θ = ``theta``);
* ``matching="strict"``: ``g(h, l) = δ(h, l)`` — only matches at the same relative position;
* ``matching="insensitive"``: ``g = 1`` — any match inside the window counts.

The sensitive kernel tends to the strict one as ``θ → 0`` and to the insensitive one as
``θ → ∞``. The window match is *not* raised to a power (Zien et al.'s locality-improved
kernel does that), so every variant has an explicit low-dimensional feature map. Writing
``C_p(a, b, h)`` for the number of positions ``i`` with ``p_i = a`` and ``p_{i+h} = b``,

    k(p, q) = Σ_{a,b} Σ_{h,l} C_p(a, b, h) g(h, l) C_q(a, b, l) = ⟨Φ(p), Φ(q)⟩,
    Φ(p)_{(a,b),·} = C_p(a, b, ·) R,   with  G = [g(h, l)] = R Rᵀ.

``G`` is PSD for all three variants (all-ones, identity, and the Gaussian on the integers,
which is positive definite), so ``Φ`` is a sparse matrix with ``2t+1`` columns per symbol
pair (one for "insensitive").

Symbols (:mod:`learners.kernels.sequences`): ``alphabet=None`` learns the vocabulary of
symbols and of symbol pairs at fit (parse features); pairs first seen at transform are
dropped from the rows — they are orthogonal to every training row — but count exactly in
``k(p, p)``, so normalized values do not depend on the training set. A fixed ``alphabet``
(proteins: the 20 standard amino acids) has all ``|alphabet|^2`` pairs as columns and no
vocabulary to learn; other symbols (ambiguous residues X, B, Z, ...) match nothing.

Parameters used by the applications (each passes them explicitly): ``homology`` —
sensitive, ``half_width=3``, ``θ = 2``, amino-acid alphabet; ``parse_ranking`` — sensitive,
``half_width=2`` (its ``window``), ``θ = 1``, learned vocabulary; both normalized.

Cost: O(N (2t+1)) to count the offset pairs of N symbols of a whole batch (``2t+1`` vector
passes, no loop per sequence or symbol), O(nnz (2t+1)) for the ``R`` product; the Gram
matrix is one sparse–dense product (:func:`learners.kernels.sparse_gram.gram_matrix`). A naive
``O(|p| |q| (2t+1)^2)`` evaluation of the double sum is the reference of the tests.
"""

from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval, StrOptions

from kernelrank.errors import InvalidParameterError
from learners.kernels.base import FeatureMapKernel
from learners.kernels.sequences import alphabet_ids, encode, offset_pairs, sequence_index

__all__ = ["LocalityKernel", "offset_weights", "offset_factor", "MATCHING"]

MATCHING = ("sensitive", "strict", "insensitive")
_DEFAULT_THETA = 1.0


def offset_weights(half_width, theta=_DEFAULT_THETA, matching="sensitive"):
    """The (2t+1) × (2t+1) matrix ``G[h+t, l+t] = g(h, l)``."""
    off = np.arange(-half_width, half_width + 1, dtype=float)
    if matching == "strict":
        return np.eye(off.size)
    if matching == "insensitive":
        return np.ones((off.size, off.size))
    return np.exp(-((off[:, None] - off[None, :]) / theta) ** 2)


def offset_factor(half_width, theta=_DEFAULT_THETA, matching="sensitive"):
    """``R`` with ``G = R Rᵀ``: identity (strict), a column of ones (insensitive), the
    scaled eigenvectors of ``G`` with non-negligible eigenvalues (sensitive)."""
    if matching == "strict":
        return np.eye(2 * half_width + 1)
    if matching == "insensitive":
        return np.ones((2 * half_width + 1, 1))
    vals, vecs = np.linalg.eigh(offset_weights(half_width, theta, matching))
    keep = vals > 1e-12 * max(vals.max(), 1.0)
    return vecs[:, keep] * np.sqrt(vals[keep])


def _count_matrix(rows, cols, shape):
    """Canonical CSR matrix of how often each ``(row, col)`` occurs: one sort of int64 keys
    (cheaper than scipy's per-row sort of a COO matrix with duplicates)."""
    key = np.sort(rows * np.int64(shape[1]) + cols)
    if not key.size:
        return sp.csr_matrix(shape)
    start = np.flatnonzero(np.r_[True, key[1:] != key[:-1]])
    counts = np.diff(np.r_[start, key.size]).astype(np.float64)
    key = key[start]
    indptr = np.r_[0, np.cumsum(np.bincount(key // shape[1], minlength=shape[0]))]
    return sp.csr_matrix((counts, key % shape[1], indptr), shape=shape)


class LocalityKernel(FeatureMapKernel):
    """Locality-convolution kernel of symbol sequences (module docstring).

    Parameters
    ----------
    half_width : int, default 2
        ``t``: the window holds ``2t + 1`` positions centred on the matching pair.
    matching : {"sensitive", "strict", "insensitive"}, default "sensitive"
    theta : float, default 1.0
        Width θ of the Gaussian position penalty ``exp(-((h-l)/θ)^2)``; only for
        ``matching="sensitive"`` (another value with another matching is an error).
    alphabet : None, str or sequence of symbols, default None
        None: the vocabulary is learned at fit. Otherwise the symbols that can match (a
        ``str`` is a sequence of one-character symbols); every other symbol matches nothing.
    normalize : bool, default True
        Cosine normalization ``k(p, q) / sqrt(k(p, p) k(q, q))``.

    Attributes
    ----------
    symbols_ : dict symbol -> id
    pair_codes_ : int64 array, sorted codes ``id_a * 2**32 + id_b`` of the symbol pairs; the
        columns of pair ``pair_codes_[c]`` are ``c r .. c r + r - 1``
    factor_ : ndarray (2t+1, r), the factor ``R`` of the offset weights
    """

    _parameter_constraints = {
        "half_width": [Interval(Integral, 0, None, closed="left")],
        "matching": [StrOptions(set(MATCHING))],
        "theta": [Interval(Real, 0, None, closed="neither")],
        "alphabet": [None, str, "array-like"],
        "normalize": ["boolean"],
    }

    def __init__(self, half_width=2, matching="sensitive", theta=_DEFAULT_THETA, alphabet=None,
                 normalize=True):
        self.half_width = half_width
        self.matching = matching
        self.theta = theta
        self.alphabet = alphabet
        self.normalize = normalize

    def _check_consistency(self):
        if self.matching != "sensitive" and self.theta != _DEFAULT_THETA:
            raise InvalidParameterError(
                f"theta is used only by matching='sensitive', not by matching={self.matching!r}")
        if self.alphabet is not None:
            alphabet_ids(self.alphabet)

    def _feature_map(self, sequences, fit):
        fixed = self.alphabet is not None
        if fit:
            self.factor_ = offset_factor(self.half_width, self.theta, self.matching)
            self.symbols_ = alphabet_ids(self.alphabet) if fixed else {}
        ids, lengths = encode(sequences, self.symbols_,
                              "ignore" if fixed else "add" if fit else "temporary")
        rows, a, b, offsets = self._offset_pairs(ids, lengths)
        codes = None if fixed else (a << np.int64(32)) | b
        exact = None
        if fixed:       # every pair of the alphabet is a column, in code order
            n_symbols = len(self.symbols_)
            if fit:
                ids_all = np.arange(n_symbols, dtype=np.int64)
                self.pair_codes_ = ((ids_all[:, None] << np.int64(32)) | ids_all).ravel()
            pos = a * n_symbols + b
        elif fit:
            self.pair_codes_, pos = np.unique(codes, return_inverse=True)
        else:           # pairs unseen at fit: no column, but they count in k(p, p)
            pos = np.searchsorted(self.pair_codes_, codes)
            known = pos < len(self.pair_codes_)
            known[known] = self.pair_codes_[pos[known]] == codes[known]
            if not known.all():
                exact = self._exact_self_kernel(rows, codes, offsets, len(lengths))
                rows, pos, offsets = rows[known], pos[known], offsets[known]
        width, n_pairs = self.factor_.shape[0], len(self.pair_codes_)
        counts = _count_matrix(rows, pos * width + offsets, (len(lengths), n_pairs * width))
        Phi = (counts @ sp.kron(sp.eye(n_pairs, format="csr"), sp.csr_matrix(self.factor_),
                                format="csr")).tocsr()
        Phi.eliminate_zeros()
        return Phi, exact

    def _offset_pairs(self, ids, lengths):
        """``(row, symbol a, symbol b, offset index)`` of every ``(p_i = a, p_{i+h} = b)``,
        one vector pass per offset ``h`` over the whole batch."""
        t = (self.factor_.shape[0] - 1) // 2
        seq_of = sequence_index(lengths)
        rows, a, b, offsets = [], [], [], []
        for h in range(-t, t + 1):
            i, j = offset_pairs(ids, seq_of, h)
            rows.append(seq_of[i]), a.append(ids[i]), b.append(ids[j])
            offsets.append(np.full(i.size, h + t, dtype=np.int64))
        return tuple(np.concatenate(x) for x in (rows, a, b, offsets))

    def _exact_self_kernel(self, rows, codes, offsets, n_rows):
        """Exact ``k(p, p) = Σ_{a,b} C_p(a,b,·) G C_p(a,b,·)ᵀ`` over all pairs of ``p``,
        also those outside the fitted vocabulary."""
        width = self.factor_.shape[0]
        uniq, inv = np.unique(codes, return_inverse=True)
        counts = _count_matrix(rows, inv * width + offsets, (n_rows, max(len(uniq), 1) * width))
        G = self.factor_ @ self.factor_.T
        CG = counts @ sp.kron(sp.eye(max(len(uniq), 1), format="csr"), sp.csr_matrix(G),
                              format="csr")
        return np.maximum(np.asarray(CG.multiply(counts).sum(axis=1)).ravel(), 0.0)
