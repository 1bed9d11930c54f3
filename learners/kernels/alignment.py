"""The local-alignment (LA) kernel of protein sequences (Saigo, Vert, Ueda & Akutsu 2004,
"Protein homology detection using string alignment kernels", Bioinformatics 20(11):
1682–1689) and the Smith–Waterman score, on the kernel base of :mod:`learners.kernels.base`.

``K_LA(x, y) = 1 + Σ_π exp(β s(π))`` sums over every local alignment ``π`` of the two
sequences, scored with a substitution matrix and affine gaps (definition and dynamic
programme: :mod:`learners.kernels.alignment_dp`). Following the paper:

* the kernel value is ``(1/β) log K_LA(x, y)`` — the logarithm removes the diagonal
  dominance of ``K_LA`` (the longest SCOP sequence has ``K_LA(x, x) = e^2,558``; 98 % of
  the pairs of SCOP sequences lie between e^9 and e^29) and tends to the Smith–Waterman
  score as β → ∞;
* ``normalize=True`` (the base class's one flag) divides by ``sqrt(k(x, x) k(y, y))``;
* the logarithm is not a positive semi-definite kernel in general. ``psd`` chooses the fix:
  ``"shift"`` (the paper's best, "eig") adds ``|λ_min|`` of the training Gram matrix to its
  diagonal (nothing when it is PSD already; values against new sequences are not changed:
  a new sequence is not a training sequence); ``"ekm"``, the empirical kernel map, replaces
  every sequence by its row of normalized kernel values against the training sequences
  ``φ(x) = (k̂(x, t_1), …, k̂(x, t_m))``, ``k̂`` the cosine-normalized ``(1/β) log K_LA``,
  and uses ``⟨φ(x), φ(y)⟩`` (itself cosine-normalized with ``normalize``); ``None`` leaves
  the matrix as it is.

Defaults are the paper's: BLOSUM62 (Biopython's ``Bio.Align.substitution_matrices``), gap
open 11, extend 1 (a gap of n residues costs 11 + (n − 1)), β = 0.5. Residues are the
letters of the matrix (either case); a letter the matrix lacks (BLOSUM62: J, O, U) is scored
as ``X``, the matrix's unknown residue; any other character is an error naming the
sequence.

Computation: each value is a dynamic programme of ``|x| |y|`` cells (≈ 3 processor cycles per
cell, :func:`learners.kernels.alignment_dp.la_scaled_dp`). Gram matrices are computed in
blocks (:mod:`learners.kernels.gram_blocks`) on ``n_jobs`` threads or a Dask cluster
(``scheduler``) and, with ``memory`` (a directory), cached under the SHA-256 of the
sequences, the parameters and the version of the programme, resumable when killed. A
symmetric Gram matrix computes each pair once. The eigenvalue shift costs the smallest
eigenvalue of the m × m training matrix (LAPACK ``syevx``: a tridiagonal reduction, O(m³));
the empirical map one m × m × n product.

:func:`smith_waterman_scores` exposes the same recursion with ``max`` instead of the sum
(Biopython's ``PairwiseAligner`` local score, checked by the tests).
"""

from __future__ import annotations

import hashlib
import math
import os
from functools import lru_cache
from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels.alignment_dp import MAX_BETA_SCORE, la_diagonal, la_tile, sw_tile
from learners.kernels.base import Kernel, inverse_sqrt
from learners.kernels.gram_blocks import DEFAULT_BLOCK, BlockCache, blockwise_gram
from learners.kernels.sequences import check_sequences

__all__ = ["LocalAlignmentKernel", "smith_waterman_scores", "substitution_matrix",
           "EncodedSequences", "encode_sequences", "PSD_FIXES"]

PSD_FIXES = ("shift", "ekm")
#: Version of the dynamic programme: part of the cache key (bump when values change).
PROGRAMME_VERSION = "la-scaled-2"


@lru_cache(maxsize=8)
def substitution_matrix(name):
    """``(alphabet, S)`` of a substitution matrix of Biopython by name (e.g. ``"BLOSUM62"``):
    the matrix's letters (str) and its scores (float64, read-only)."""
    from Bio.Align import substitution_matrices

    try:
        matrix = substitution_matrices.load(name)
    except (FileNotFoundError, ValueError, OSError):
        known = ", ".join(substitution_matrices.load()[:12])
        raise InvalidParameterError(f"unknown substitution matrix {name!r}; Biopython has "
                                    f"e.g. {known}") from None
    S = np.array(matrix, dtype=np.float64)
    if S.ndim != 2 or S.shape[0] != S.shape[1] or not np.isfinite(S).all():
        raise InvalidParameterError(f"substitution matrix {name!r} is not a square finite "
                                    "matrix")
    S.setflags(write=False)
    return str(matrix.alphabet), S


class EncodedSequences:
    """Sequences as one uint8 array of symbol ids (``codes``) with the ``starts`` and
    ``lengths`` of each; ``digest`` is a SHA-256 of all three (the cache key's input)."""

    def __init__(self, codes, lengths):
        self.codes = codes
        self.lengths = lengths
        self.starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)

    def __len__(self):
        return len(self.lengths)

    @property
    def digest(self):
        h = hashlib.sha256()
        h.update(np.int64(len(self.lengths)).tobytes())
        h.update(self.lengths.tobytes())
        h.update(self.codes.tobytes())
        return h.hexdigest()


def _encoder(alphabet):
    """Look-up table code point → symbol id over ``alphabet`` (either case); a letter
    outside it maps to ``X`` when the alphabet has one; everything else to -1."""
    table = np.full(128, -1, dtype=np.int16)
    unknown = alphabet.find("X")
    if unknown >= 0:
        for c in range(ord("A"), ord("Z") + 1):
            table[c] = table[c + 32] = unknown
    for i, letter in enumerate(alphabet):
        table[ord(letter)] = i
        if letter.isalpha():
            table[ord(letter.lower())] = i
    return table


def encode_sequences(sequences, alphabet):
    """:class:`EncodedSequences` of protein strings over ``alphabet`` (module docstring);
    an invalid character is an :class:`InvalidInputError` naming the sequence."""
    sequences = check_sequences(sequences)
    table = _encoder(alphabet)
    for i, s in enumerate(sequences):
        if not isinstance(s, str):
            raise InvalidInputError(f"sequence {i} is a {type(s).__name__}, not a str")
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    text = "".join(sequences)
    points = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
    ids = np.full(points.size, -1, dtype=np.int16)
    ascii_ = points < 128
    ids[ascii_] = table[points[ascii_]]
    bad = np.flatnonzero(ids < 0)
    if bad.size:
        where = int(np.searchsorted(np.cumsum(lengths), bad[0], side="right"))
        raise InvalidInputError(f"sequence {where} has the character {text[bad[0]]!r}, which "
                                f"is not a residue of the substitution matrix ({alphabet})")
    return EncodedSequences(ids.astype(np.uint8), lengths)


def smith_waterman_scores(A, B=None, *, substitution="BLOSUM62", gap_open=11.0,
                          gap_extend=1.0):
    """Smith–Waterman local alignment scores ``max(0, max_π s(π))`` (affine gaps, Gotoh 1982)
    of every sequence of ``A`` against every one of ``B`` (``B = A`` if None): the
    LA kernel's recursion in the (max, +) semiring
    (:func:`learners.kernels.alignment_dp.la_log_dp` with ``viterbi=True``, one thread).

    ``O(|x| |y|)`` per pair; returns an ndarray (len(A), len(B)).
    """
    alphabet, S = substitution_matrix(substitution)
    P = encode_sequences(A, alphabet)
    Q = P if B is None else encode_sequences(B, alphabet)
    out = np.empty((len(P), len(Q)))
    sw_tile(P.codes, P.starts, P.lengths, Q.codes, Q.starts, Q.lengths, S, float(gap_open),
            float(gap_extend), out)
    return out


class _LATiles:
    """``compute_block`` of :func:`learners.kernels.gram_blocks.blockwise_gram`: ``log K_LA``
    between sequences ``rows`` of ``P`` and ``cols`` of ``Q`` (picklable for Dask)."""

    def __init__(self, P, Q, E, d, r):
        self.P, self.Q, self.E, self.d, self.r = P, Q, E, d, r

    def __call__(self, rows, cols, upper):
        P, Q = self.P, self.Q
        if Q is P:
            codes, starts, lengths, offset = P.codes, P.starts, P.lengths, 0
        else:                           # one array of both sets: Q's ids follow P's
            codes = np.concatenate([P.codes, Q.codes])
            starts = np.concatenate([P.starts, Q.starts + P.codes.size])
            lengths = np.concatenate([P.lengths, Q.lengths])
            offset = len(P)
        out = np.zeros((len(rows), len(cols)))
        la_tile(codes, starts, lengths, np.asarray(rows, np.int64),
                np.asarray(cols, np.int64) + offset, bool(upper), self.E, self.d, self.r, out)
        return out


class LocalAlignmentKernel(Kernel):
    """Local-alignment kernel ``(1/β) log K_LA`` of protein sequences (module docstring).

    Parameters
    ----------
    beta : float, default 0.5
        β of ``exp(β s(π))``: larger values weigh the best alignments more. At most
        ``MAX_BETA_SCORE / max |S|`` (23.9 for BLOSUM62), what the scaled programme holds
        (:data:`learners.kernels.alignment_dp.MAX_BETA_SCORE`).
    gap_open, gap_extend : float, default 11, 1
        Affine gap cost ``open + (n − 1) extend`` of a gap of n residues (≥ 0).
    substitution : str, default "BLOSUM62"
        A substitution matrix of Biopython, by name.
    psd : {"shift", "ekm"} or None, default "shift"
        How the training Gram matrix is made positive semi-definite: eigenvalue shift,
        empirical kernel map, or not at all.
    normalize : bool, default True
        Cosine normalization of ``(1/β) log K_LA`` (with ``psd="ekm"``: of ``⟨φ(x), φ(y)⟩``).
    n_jobs : int or None, default None
        Threads that compute Gram blocks (None: every core).
    scheduler : str or None
        Address of a Dask scheduler that computes the blocks instead (``tcp://host:port``).
    memory : str, path or None
        Directory where Gram matrices of ``log K_LA`` are cached (resumable); None: none.

    Attributes
    ----------
    alphabet_ : str — the substitution matrix's letters
    shift_ : float — with ``psd="shift"``, what :meth:`fit_transform` added to the diagonal
    basis_ : EncodedSequences — with ``psd="ekm"``, the sequences of the empirical map
    basis_self_kernel_ : ndarray — their ``(1/β) log K_LA(t, t)``
    """

    _parameter_constraints = {
        "beta": [Interval(Real, 0, None, closed="neither")],
        "gap_open": [Interval(Real, 0, None, closed="left")],
        "gap_extend": [Interval(Real, 0, None, closed="left")],
        "substitution": [str],
        "psd": [StrOptions(set(PSD_FIXES)), None],
        "normalize": ["boolean"],
        "n_jobs": [Interval(Integral, 1, None, closed="left"), None],
        "scheduler": [str, None],
        "memory": [str, os.PathLike, None],
    }

    def __init__(self, beta=0.5, gap_open=11.0, gap_extend=1.0, substitution="BLOSUM62",
                 psd="shift", normalize=True, n_jobs=None, scheduler=None, memory=None):
        self.beta = beta
        self.gap_open = gap_open
        self.gap_extend = gap_extend
        self.substitution = substitution
        self.psd = psd
        self.normalize = normalize
        self.n_jobs = n_jobs
        self.scheduler = scheduler
        self.memory = memory

    # ------------------------------------------------------------------ parameters
    def _check_consistency(self):
        alphabet, S = substitution_matrix(self.substitution)
        top = float(np.abs(S).max())
        if self.beta * top > MAX_BETA_SCORE:
            raise InvalidParameterError(
                f"beta={self.beta!r}: exp(β·S) with {self.substitution} scores up to {top:g} "
                f"overflows the scaled dynamic programme; give beta ≤ "
                f"{MAX_BETA_SCORE / top:.4g} (β · max |S| ≤ {MAX_BETA_SCORE:.4g})")

    def _programme(self):
        """``(alphabet, E, d, r)``: the matrix's letters, ``exp(β S)``, ``exp(−β open)``,
        ``exp(−β extend)``."""
        alphabet, S = substitution_matrix(self.substitution)
        beta = float(self.beta)
        return (alphabet, np.exp(beta * S), math.exp(-beta * self.gap_open),
                math.exp(-beta * self.gap_extend))

    def _key(self, P, Q):
        """SHA-256 of everything ``log K_LA(P, Q)`` depends on."""
        alphabet, E, d, r = self._programme()
        h = hashlib.sha256()
        h.update(f"{PROGRAMME_VERSION}|{self.substitution}|{alphabet}|{float(self.beta)!r}|"
                 f"{float(self.gap_open)!r}|{float(self.gap_extend)!r}|"
                 f"{'symmetric' if Q is P else 'rectangular'}".encode())
        h.update(np.ascontiguousarray(E).tobytes())
        h.update(P.digest.encode())
        if Q is not P:
            h.update(Q.digest.encode())
        return h.hexdigest()

    # ------------------------------------------------------------------ the values
    def log_kernel(self, P, Q=None, *, progress=False):
        """``log K_LA`` between :class:`EncodedSequences` ``P`` and ``Q`` (``P``, symmetric,
        when None): blocks on threads / Dask, cached in ``memory``."""
        _, E, d, r = self._programme()
        symmetric = Q is None or Q is P
        Q = P if symmetric else Q
        cache = None
        if self.memory is not None:
            key = self._key(P, Q)
            cache = BlockCache(self.memory, f"local-alignment-{key[:16]}", key)
        meta = {"kernel": "log K_LA (Saigo et al. 2004)", "programme": PROGRAMME_VERSION,
                "substitution": self.substitution, "beta": float(self.beta),
                "gap_open": float(self.gap_open), "gap_extend": float(self.gap_extend),
                "rows": len(P), "cols": len(Q)}
        return blockwise_gram(_LATiles(P, Q, E, d, r), len(P), None if symmetric else len(Q),
                              row_costs=P.lengths, col_costs=Q.lengths, block=DEFAULT_BLOCK,
                              n_jobs=self.n_jobs, scheduler=self.scheduler, cache=cache,
                              meta=meta, progress=progress, desc="local alignments")

    def _self_log_kernel(self, P):
        """``log K_LA(x, x)`` of every sequence (the diagonal only, ``O(Σ |x|²)``)."""
        _, E, d, r = self._programme()
        out = np.empty(len(P))
        la_diagonal(P.codes, P.starts, P.lengths, E, d, r, out)
        return out

    # ------------------------------------------------------------------ kernel hooks
    def _parse_input(self, X, fit):
        if fit:
            self.alphabet_ = self._programme()[0]
        P = encode_sequences(X, self.alphabet_)
        diag = self._self_log_kernel(P) / self.beta
        if self.psd != "ekm":
            return P, diag
        if fit:
            self.basis_, self.basis_self_kernel_ = P, diag
        rows = self.log_kernel(P, None if fit else self.basis_) / self.beta
        rows *= inverse_sqrt(diag)[:, None] * inverse_sqrt(self.basis_self_kernel_)[None, :]
        return (P, rows), np.einsum("ij,ij->i", rows, rows)

    def _pairwise(self, P, Q):
        if self.psd == "ekm":
            return P[1] @ Q[1].T
        return self.log_kernel(P, Q) / self.beta

    def _gram(self, A, B):
        K = super()._gram(A, B)
        if self.psd == "shift" and A is B:
            from scipy.linalg import eigh

            smallest = (eigh(K, eigvals_only=True, subset_by_index=[0, 0], driver="evx")[0]
                        if len(K) else 0.0)
            self.shift_ = float(max(0.0, -smallest))
            K[np.diag_indices_from(K)] += self.shift_
        return K
