"""Vectorized k-mer machinery shared by the spectrum and mismatch kernels (thesis §1.1.2).

A protein is encoded as integer residue codes 0..19 (alphabet ``ACDEFGHIKLMNPQRSTVWY``);
ambiguous residues (``B Z J U O X``) get code 20 and every k-mer that contains one is
skipped (an unknown residue matches nothing). All sequences are concatenated once and the
length-k windows are read with NumPy stride tricks (``sliding_window_view``); windows that
cross a sequence boundary or hold an ambiguous residue are masked out. No Python loop runs
over k-mers or over sequence pairs.

:class:`WildcardSpectrumMap` is the common engine. It is a weighted sum of *wildcard
spectrum* kernels: for a set ``T`` of wildcard positions, ``S_T(x)`` counts the k-mers of
``x`` by their residues outside ``T``, and

    k(x, y) = sum_T  w_|T|  <S_T(x), S_T(y)>.

``T = {}`` with weight 1 is the spectrum kernel (eq. 1.13). The mismatch kernel
(:mod:`homology.mismatch`) is such a sum with the weights that reproduce the Leslie et al.
(2004) neighbourhood feature map. When all weights are non-negative the map
``x -> [sqrt(w_T) S_T(x)]_T`` is an explicit sparse (CSR) feature map, so any linear
learner and the fast leave-one-out of RLS apply; the Gram matrix is ``Phi Phi^T``.

Normalization (``normalize=True``) is ``k(x, y) / sqrt(k(x, x) k(y, y))``; the self-kernel
``k(x, x)`` is always computed from *all* k-mers of ``x``, also those absent from the
vocabulary learned by :meth:`WildcardSpectrumMap.fit`, so transforming new sequences gives
exactly the normalized kernel values against the training sequences.

Cost: O(N k) to encode N residues, O(N |blocks| log N) for the sorts in ``np.unique``; a
Gram block costs one sparse product (sum over features of the squared number of
sequences holding it).
"""

from itertools import combinations

import numpy as np
import scipy.sparse as sp

from corpora.fasta import PROTEIN_ALPHABET, STANDARD_AMINO_ACIDS
from kernelrank.errors import InvalidInputError, InvalidParameterError

ALPHABET = STANDARD_AMINO_ACIDS
ALPHABET_SIZE = len(ALPHABET)
UNKNOWN = ALPHABET_SIZE
MAX_K = 14  # 20**14 < 2**63: k-mer codes fit in int64

_LOOKUP = np.full(256, 255, dtype=np.uint8)
for _code, _aa in enumerate(ALPHABET):
    _LOOKUP[ord(_aa)] = _code
    _LOOKUP[ord(_aa.lower())] = _code
for _aa in set(PROTEIN_ALPHABET) - set(ALPHABET):
    _LOOKUP[ord(_aa)] = UNKNOWN
    _LOOKUP[ord(_aa.lower())] = UNKNOWN


def as_sequences(sequences):
    """Validate a list of protein strings (a single string is an error, not n residues)."""
    if isinstance(sequences, str):
        raise InvalidInputError("expected a list of sequences, got a single string")
    sequences = list(sequences)
    for i, s in enumerate(sequences):
        if not isinstance(s, str):
            raise InvalidInputError(f"sequence {i} is a {type(s).__name__}, not a str")
    return sequences


def encode(sequences):
    """Concatenated residue codes (uint8, 0..19 standard, 20 ambiguous) and sequence lengths.

    Raises :class:`InvalidInputError` naming the sequence index on a non-protein character.
    """
    sequences = as_sequences(sequences)
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    raw = np.frombuffer("".join(sequences).encode("latin-1", errors="replace"), dtype=np.uint8)
    codes = _LOOKUP[raw]
    bad = np.flatnonzero(codes == 255)
    if bad.size:
        seq_of = np.searchsorted(np.cumsum(lengths), bad[0], side="right")
        raise InvalidInputError(
            f"sequence {seq_of} has the non-protein character {chr(raw[bad[0]])!r}; "
            f"allowed are {ALPHABET} and the ambiguity codes B Z J U O X")
    return codes, lengths


def kmer_windows(sequences, k):
    """All valid length-``k`` windows: ``(seq_index, windows)``.

    ``windows`` is an ``(n_windows, k)`` uint8 array of residue codes; windows crossing a
    sequence boundary or containing an ambiguous residue are left out.
    """
    codes, lengths = encode(sequences)
    n_seq = len(lengths)
    if codes.size < k:
        return np.zeros(0, dtype=np.int64), np.zeros((0, k), dtype=np.uint8)
    windows = np.lib.stride_tricks.sliding_window_view(codes, k)
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    seq_index = np.repeat(np.arange(n_seq), lengths)[: len(windows)]
    pos = np.arange(len(windows)) - starts[seq_index]
    ok = pos <= lengths[seq_index] - k
    unknown = np.concatenate([[0], np.cumsum(codes == UNKNOWN)])
    ok &= (unknown[k:] - unknown[:-k])[: len(windows)] == 0
    return seq_index[ok], np.ascontiguousarray(windows[ok])


def pack(windows, positions):
    """Base-20 integer code (int64) of the residues of each window at ``positions``."""
    out = np.zeros(len(windows), dtype=np.int64)
    for p in positions:  # at most k vector operations
        out *= ALPHABET_SIZE
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


class WildcardSpectrumMap:
    """Weighted sum of wildcard spectrum kernels, as a sparse feature map or a Gram matrix.

    Subclasses set ``k`` and implement :meth:`_blocks` → list of ``(wildcard_set, weight)``.
    ``normalize`` is one flag here, not repeated per kernel.

    Parameters
    ----------
    normalize : bool, default True
        Use ``k(x, y) / sqrt(k(x, x) k(y, y))`` (a sequence without any valid k-mer gets
        the zero vector).
    """

    def __init__(self, normalize=True):
        self.normalize = normalize

    # -- subclass interface ---------------------------------------------------------
    def _blocks(self):
        raise NotImplementedError

    def _check_params(self):
        k = getattr(self, "k", None)
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 1 <= k <= MAX_K:
            raise InvalidParameterError(f"k must be an integer in 1..{MAX_K}, got {k!r}")
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise InvalidParameterError(f"normalize must be True or False, got {self.normalize!r}")

    # -- public API -----------------------------------------------------------------
    def get_params(self, deep=True):
        import inspect

        names = [p for p in inspect.signature(type(self).__init__).parameters if p != "self"]
        return {name: getattr(self, name) for name in names}

    def set_params(self, **params):
        valid = self.get_params()
        for name, value in params.items():
            if name not in valid:
                raise InvalidParameterError(
                    f"{type(self).__name__} has no parameter {name!r}; it has {sorted(valid)}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        args = ", ".join(f"{k}={v!r}" for k, v in self.get_params().items())
        return f"{type(self).__name__}({args})"

    @property
    def is_feature_map(self):
        """True when all block weights are non-negative (an explicit feature map exists)."""
        self._check_params()
        return all(w >= 0 for _, w in self._blocks())

    def fit(self, sequences):
        """Learn the vocabulary of every block (the k-mers present in ``sequences``)."""
        self._check_params()
        seq_index, windows = kmer_windows(sequences, self.k)
        n = len(as_sequences(sequences))
        self.vocabularies_ = []
        for wildcard, _ in self._blocks():
            keep = [p for p in range(self.k) if p not in wildcard]
            _, _, vocab = _count_matrix(seq_index, pack(windows, keep), n)
            self.vocabularies_.append(vocab)
        self.n_features_out_ = int(sum(len(v) for v in self.vocabularies_))
        return self

    def transform(self, sequences):
        """Sparse CSR feature matrix (n_sequences x n_features_out_), rows normalized if
        ``normalize``. Raises :class:`InvalidParameterError` if some weight is negative."""
        if not hasattr(self, "vocabularies_"):
            raise InvalidParameterError(f"{type(self).__name__} is not fitted; call fit first")
        blocks = self._blocks()
        if any(w < 0 for _, w in blocks):
            raise InvalidParameterError(
                f"{self!r} has negative block weights, so it has no explicit feature map; "
                "use gram() instead")
        mats, self_k = self._block_counts(sequences, self.vocabularies_)
        phi = sp.hstack([np.sqrt(w) * m for m, (_, w) in zip(mats, blocks)], format="csr")
        if self.normalize:
            phi = sp.diags(_inverse_sqrt(self_k)) @ phi
        return phi.tocsr()

    def fit_transform(self, sequences):
        return self.fit(sequences).transform(sequences)

    def self_kernel(self, sequences):
        """``k(x, x)`` of every sequence (unnormalized), from all its k-mers."""
        self._check_params()
        return self._block_counts(sequences, None)[1]

    def gram(self, X, Y=None):
        """Dense Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y`` defaults to ``X``).

        Works for any weights (also negative), block by block:
        ``K = sum_T w_T S_T(X) S_T(Y)^T``, one sparse product per block.
        """
        self._check_params()
        X = as_sequences(X)
        same = Y is None
        Y = X if same else as_sequences(Y)
        both = X if same else X + Y
        nx = len(X)
        mats, self_k = self._block_counts(both, None)
        K = np.zeros((nx, len(Y)))
        for m, (_, w) in zip(mats, self._blocks()):
            a = m[:nx]
            b = a if same else m[nx:]
            K += w * (a @ b.T).toarray()
        if self.normalize:
            K *= _inverse_sqrt(self_k[:nx])[:, None]
            K *= _inverse_sqrt(self_k if same else self_k[nx:])[None, :]
        return K

    def _block_counts(self, sequences, vocabularies):
        sequences = as_sequences(sequences)
        seq_index, windows = kmer_windows(sequences, self.k)
        n = len(sequences)
        mats, self_k = [], np.zeros(n)
        for b, (wildcard, w) in enumerate(self._blocks()):
            keep = [p for p in range(self.k) if p not in wildcard]
            vocab = None if vocabularies is None else vocabularies[b]
            m, sq, _ = _count_matrix(seq_index, pack(windows, keep), n, vocab)
            mats.append(m)
            self_k += w * sq
        return mats, self_k


def _inverse_sqrt(values):
    out = np.zeros_like(values, dtype=np.float64)
    pos = values > 0
    out[pos] = 1.0 / np.sqrt(values[pos])
    return out


def normalize_gram(K, diag_x, diag_y=None):
    """``K[i, j] / sqrt(diag_x[i] diag_y[j])`` (zero where a self-kernel is zero)."""
    diag_y = diag_x if diag_y is None else diag_y
    return K * _inverse_sqrt(np.asarray(diag_x, float))[:, None] * \
        _inverse_sqrt(np.asarray(diag_y, float))[None, :]
