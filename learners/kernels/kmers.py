"""Vectorized k-mer machinery shared by the spectrum and mismatch kernels (thesis §1.1.2).

Sequences are encoded over a fixed ``alphabet`` of L symbols (ids 0..L-1,
:mod:`learners.kernels.sequences`); a symbol outside the alphabet (for proteins: the
ambiguous residues ``B Z J U O X``) gets id -1 and every k-mer that contains one is skipped
(an unknown symbol matches nothing). All sequences are concatenated once and the length-k
windows are read with NumPy stride tricks (``sliding_window_view``); windows that cross a
sequence boundary or hold an unknown symbol are masked out. No Python loop runs over
k-mers or over sequence pairs.

:class:`WildcardSpectrumKernel` is the common engine. It is a weighted sum of *wildcard
spectrum* kernels: for a set ``T`` of wildcard positions, ``S_T(x)`` counts the k-mers of
``x`` by their symbols outside ``T``, and ::

    k(x, y) = sum_T  w_|T|  <S_T(x), S_T(y)>.

``T = {}`` with weight 1 is the spectrum kernel (eq. 1.13, :mod:`learners.kernels.spectrum`).
The mismatch kernel (:mod:`learners.kernels.mismatch`) is such a sum with the weights that
reproduce the Leslie et al. (2004) neighbourhood feature map. When all weights are
non-negative the map ``x -> [sqrt(w_T) S_T(x)]_T`` is an explicit sparse (CSR) feature map,
so any linear learner and the fast leave-one-out of RLS apply; the Gram matrix is
``Phi Phi^T``. With negative weights the same rows, scaled by ``sqrt(|w_T|)``, give the
kernel as ``Phi diag(sign w) Phi^T`` (no feature map).

Normalization (the base class's ``normalize``) uses the self-kernel ``k(x, x)`` computed
from *all* k-mers of ``x``, also those absent from the vocabulary learned at fit, so new
sequences get exactly the normalized kernel values against the training sequences.

Cost: O(N k) to encode N symbols and read the windows, ``O(N |blocks| log N)`` for the sorts
in ``np.unique``; a Gram block costs one sparse product (sum over features of the squared
number of sequences holding it).
"""

from itertools import combinations
from numbers import Integral

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import Interval

from kernelrank.errors import InvalidParameterError
from learners.kernels.base import FeatureMapKernel
from learners.kernels.sparse_gram import gram_matrix
from learners.kernels.sequences import alphabet_ids, encode

__all__ = ["WildcardSpectrumKernel", "kmer_windows", "pack", "wildcard_sets"]


def kmer_windows(ids, lengths, k):
    """All valid length-``k`` windows of an encoded batch: ``(seq_index, windows)``.

    ``windows`` is an ``(n_windows, k)`` array of symbol ids; windows crossing a sequence
    boundary or containing an unknown symbol (id -1) are left out.
    """
    n_seq = len(lengths)
    if ids.size < k:
        return np.zeros(0, dtype=np.int64), np.zeros((0, k), dtype=ids.dtype)
    windows = np.lib.stride_tricks.sliding_window_view(ids, k)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    seq_index = np.repeat(np.arange(n_seq), lengths)[: len(windows)]
    pos = np.arange(len(windows)) - starts[seq_index]
    ok = pos <= lengths[seq_index] - k
    unknown = np.concatenate([[0], np.cumsum(ids < 0)])
    ok &= (unknown[k:] - unknown[:-k])[: len(windows)] == 0
    return seq_index[ok], np.ascontiguousarray(windows[ok])


def pack(windows, positions, base):
    """Base-``base`` integer code (int64) of the symbols of each window at ``positions``."""
    out = np.zeros(len(windows), dtype=np.int64)
    for p in positions:  # at most k vector operations
        out *= base
        out += windows[:, p]
    return out


def wildcard_sets(k, max_size):
    """All wildcard position sets of size 0..max_size, as tuples, in a fixed order."""
    return [t for s in range(min(max_size, k) + 1) for t in combinations(range(k), s)]


def _count_matrix(seq_index, keys, n_seq, vocabulary=None):
    """CSR counts ``C[i, j]`` = occurrences of ``vocabulary[j]`` in sequence i, and the
    per-sequence sum of squared counts over *all* keys (the block's self-kernel)."""
    order = np.lexsort((keys, seq_index))
    s_sorted, k_sorted = seq_index[order], keys[order]
    new = np.ones(len(order), dtype=bool)
    new[1:] = (s_sorted[1:] != s_sorted[:-1]) | (k_sorted[1:] != k_sorted[:-1])
    first = np.flatnonzero(new)
    counts = np.diff(np.append(first, len(order))).astype(np.float64)
    rows, cols_key = s_sorted[first], k_sorted[first]
    self_sq = np.bincount(rows, weights=counts**2, minlength=n_seq)
    if vocabulary is None:
        vocabulary, cols = np.unique(cols_key, return_inverse=True)
    else:
        cols = np.searchsorted(vocabulary, cols_key)
        cols[cols == len(vocabulary)] = 0
        known = vocabulary[cols] == cols_key if len(vocabulary) else np.zeros(len(cols), bool)
        rows, cols, counts = rows[known], cols[known], counts[known]
    matrix = sp.csr_matrix((counts, (rows, cols)), shape=(n_seq, len(vocabulary)))
    return matrix, self_sq, vocabulary


class WildcardSpectrumKernel(FeatureMapKernel):
    """Weighted sum of wildcard spectrum kernels over a fixed alphabet (module docstring).

    Subclasses store ``alphabet``, ``k`` (and their own parameters) and implement
    :meth:`_blocks` → list of ``(wildcard_set, weight)``.

    Attributes
    ----------
    symbols_ : dict symbol -> id
    vocabularies_ : list of int64 arrays
        Per wildcard block, the base-L codes of the (wildcarded) k-mers seen by ``fit``: the
        blocks of columns of the feature rows.
    """

    _parameter_constraints = {
        "alphabet": [str, "array-like"],
        "k": [Interval(Integral, 1, None, closed="left")],
        "normalize": ["boolean"],
    }

    def _blocks(self):
        raise NotImplementedError

    def _check_consistency(self):
        size = len(alphabet_ids(self.alphabet))
        if size > 1 and self.k * np.log2(size) >= 63:
            max_k = int(np.floor(62.999 / np.log2(size)))
            raise InvalidParameterError(f"k must be at most {max_k} for an alphabet of {size} "
                                        f"symbols (k-mer codes are 64-bit), got {self.k!r}")

    @property
    def has_feature_map(self):
        """True when all block weights are non-negative (an explicit feature map exists)."""
        return all(w >= 0 for _, w in self._blocks())

    def _feature_map(self, sequences, fit):
        if fit:
            self.symbols_ = alphabet_ids(self.alphabet)
        ids, lengths = encode(sequences, self.symbols_, "ignore")
        seq_index, windows = kmer_windows(ids, lengths, self.k)
        n, base = len(lengths), len(self.symbols_)
        blocks = self._blocks()
        if fit:
            self.vocabularies_ = [None] * len(blocks)
        mats, self_kernel = [], np.zeros(n)
        for b, (wildcard, w) in enumerate(blocks):
            keep = [p for p in range(self.k) if p not in wildcard]
            m, sq, vocab = _count_matrix(seq_index, pack(windows, keep, base), n,
                                         None if fit else self.vocabularies_[b])
            if fit:
                self.vocabularies_[b] = vocab
            mats.append(np.sqrt(abs(w)) * m)
            self_kernel += w * sq
        return sp.hstack(mats, format="csr"), self_kernel

    def _pairwise(self, P, Q):
        if self.has_feature_map:
            return super()._pairwise(P, Q)
        signs = np.concatenate([np.full(len(v), np.sign(w))
                                for v, (_, w) in zip(self.vocabularies_, self._blocks())])
        return gram_matrix(P @ sp.diags(signs), Q)
