"""Dynamic programmes of the local-alignment (LA) kernel and of the Smith–Waterman score
(Saigo, Vert, Ueda & Akutsu 2004, "Protein homology detection using string alignment
kernels", Bioinformatics 20(11):1682–1689, §2.2; the recursion of Vert, Saigo & Akutsu
2004, "Local alignment kernels for biological sequences", in *Kernel Methods in
Computational Biology*, MIT Press, §7.3).

A local alignment ``π`` of ``x`` and ``y`` is a non-empty list of aligned pairs
``(i_1, j_1) < … < (i_k, j_k)`` (both coordinates increasing). Its score is

    s(π) = Σ_l S(x_{i_l}, y_{j_l}) − Σ_{l<k} [g(i_{l+1} − i_l − 1) + g(j_{l+1} − j_l − 1)],

``S`` a substitution matrix, ``g(0) = 0`` and ``g(n) = o + (n − 1) e`` the affine gap cost
(open ``o``, extend ``e``; a gap in each sequence between two aligned pairs costs both). The
LA kernel is the sum over all local alignments, plus 1 for the empty one,

    K_LA(x, y) = 1 + Σ_π exp(β s(π)),

and the Smith–Waterman score is the maximum, ``SW(x, y) = max(0, max_π s(π))``.

Both are one dynamic programme over the states ``M`` (the alignment ends with the pair
``(i, j)``), ``X`` (it ends at ``i`` in a gap of ``x``, last pair ``(i', j)``, ``i' < i``)
and ``Y`` (it ends at ``j`` in a gap of ``y``, possibly after a gap of ``x``), with
``E = exp(β S)``, ``d = exp(−β o)``, ``r = exp(−β e)`` and zero borders:

    M(i, j) = E(x_i, y_j) [1 + M(i−1, j−1) + X(i−1, j−1) + Y(i−1, j−1)]
    X(i, j) = d M(i−1, j) + r X(i−1, j)
    Y(i, j) = d [M(i, j−1) + X(i, j−1)] + r Y(i, j−1)
    K_LA(x, y) = 1 + Σ_{i, j} M(i, j).

(Y may follow X but not the reverse, so a pair of gaps is counted once.) The paper's two
extra states ``X2``, ``Y2`` only accumulate ``Σ M`` for the end of the alignment; the sum is
taken directly here. The Smith–Waterman score is the same recursion in the (max, +)
semiring on scores (Gotoh 1982): ``+`` becomes ``max`` and ``×`` becomes ``+``.

``exp(β s)`` overflows a float64 (β = 0.5 and a 994-residue self-alignment: e^2,500), so
every programme here returns ``log K_LA``:

* :func:`la_log_dp` — the recursion on logarithms (``log(a + b)`` by ``logaddexp``), or on
  scores with ``max`` (``viterbi=True``: ``β·SW``). Exact within float64 rounding; about 10
  million cells per second — the reference;
* :func:`la_scaled_dp` — the recursion on plain floats, *scaled*: after every pair of rows,
  when the row sums of ``M`` leave ``[2^-200, 2^200]`` the stored rows are multiplied by a
  power of two (exact) and the exponent is kept, as is the "1" that starts a new alignment
  (``2^-shift``); ``Σ M`` is folded into a logarithm at each rescaling. Two rows of the
  table are computed in one sweep over ``y`` (two independent chains for the processor;
  the first row's values are never stored). About 90 times faster than the logarithms
  (≈ 3 processor cycles per cell, no vector instructions). A term is lost only where the
  log-space recursion loses it too (below 2^-53 of a sum), or where it is below 2^-1074 of
  the largest value of its row (the "1" underflows once a row exceeds 2^1074); the tests
  compare the two on random and real sequences.

:func:`la_tile` computes a block of a Gram matrix on the scaled programme, :func:`la_diagonal`
the values of sequences with themselves, :func:`sw_tile` a block of Smith–Waterman scores;
they release the GIL, so threads compute blocks in parallel.

Cost: ``O(|x| |y|)`` time and ``O(min(|x|, |y|))`` memory per pair (three rows).
"""

import math

import numba
import numpy as np

__all__ = ["la_log_dp", "la_scaled_dp", "la_tile", "la_diagonal", "sw_tile", "RESCALE_ABOVE",
           "RESCALE_BELOW", "MAX_BETA_SCORE"]

#: The scaled programme rescales its rows when their sum of M leaves [BELOW, ABOVE].
RESCALE_ABOVE = 2.0 ** 200
RESCALE_BELOW = 2.0 ** -200
#: The largest ``β · max S`` the scaled programme holds: a sum of rows below ``ABOVE`` is
#: not rescaled, and the next two rows multiply it by up to ``exp(2 β max S)``; with 64
#: bits kept for the sum over a row (≤ 2^64 columns), ``2^200 · e^(2 β max S) · 2^64``
#: must stay below ``2^1024``: ``β max S ≤ 760 · ln 2 / 2 ≈ 263`` (β ≤ 23.9 for BLOSUM62,
#: whose largest score is 11; measured: exact to β = 30 on runs of W, overflow from 35).
MAX_BETA_SCORE = (1024 - 200 - 64) * math.log(2.0) / 2
_LN2 = math.log(2.0)
#: No reassociation: every sum is taken in the order written (results do not depend on
#: the compiler's choices); fused multiply-adds allowed.  Not ``nnan`` / ``ninf``: the
#: programmes share ``_log_add``, whose ``-inf`` test those flags removed once the scaled
#: programme compiled first in a process — the log-space programme then gave NaN (a test
#: holds it); without them the scaled programme is as fast (845 M cells per CPU second).
_FAST = {"nsz", "contract"}


@numba.njit(cache=True, nogil=True)
def _log_add(a, b):
    """``log(exp(a) + exp(b))`` (``-inf`` is the logarithm of 0)."""
    if a < b:
        a, b = b, a
    if b == -np.inf:
        return a
    return a + math.log1p(math.exp(b - a))


@numba.njit(cache=True, nogil=True)
def _plus(a, b, viterbi):
    """The semiring's addition on logarithms: log-sum (LA kernel) or max (Smith–Waterman)."""
    if viterbi:
        return a if a > b else b
    return _log_add(a, b)


@numba.njit(cache=True, nogil=True)
def la_log_dp(x, y, score, gap_open, gap_extend, viterbi):  # pragma: no cover - compiled
    """``log K_LA(x, y)`` by the recursion on logarithms, or ``max(0, max_π β s(π))`` with
    ``viterbi`` (the Smith–Waterman score in units of β).

    Parameters
    ----------
    x, y : int64 arrays of symbol ids (rows and columns of ``score``)
    score : (A, A) float64, ``β S``
    gap_open, gap_extend : ``β o`` and ``β e`` (penalties, ≥ 0)
    viterbi : bool

    ``O(|x| |y|)`` cells, each with a few ``exp``/``log1p`` (none with ``viterbi``).
    """
    n, m = x.size, y.size
    neg = -np.inf
    Mp = np.full(m + 1, neg)
    Xp = np.full(m + 1, neg)
    Yp = np.full(m + 1, neg)
    Mc = np.full(m + 1, neg)
    Xc = np.full(m + 1, neg)
    Yc = np.full(m + 1, neg)
    total = 0.0                                 # log 1: the empty alignment (SW: max(0, …))
    for i in range(1, n + 1):
        row = score[x[i - 1]]
        for j in range(1, m + 1):
            before = _plus(_plus(0.0, Mp[j - 1], viterbi), _plus(Xp[j - 1], Yp[j - 1], viterbi),
                           viterbi)
            Mc[j] = row[y[j - 1]] + before
            Xc[j] = _plus(Mp[j] - gap_open, Xp[j] - gap_extend, viterbi)
            Yc[j] = _plus(_plus(Mc[j - 1], Xc[j - 1], viterbi) - gap_open, Yc[j - 1] - gap_extend,
                          viterbi)
            total = _plus(total, Mc[j], viterbi)
        Mp, Mc = Mc, Mp
        Xp, Xc = Xc, Xp
        Yp, Yc = Yc, Yp
    return total


@numba.njit(cache=True, nogil=True)
def _fold(log_total, acc, shift):
    """``log_total`` plus the logarithm of ``acc · 2^shift`` (the stored sum of M)."""
    if acc > 0.0:
        return _log_add(log_total, math.log(acc) + shift * _LN2)
    return log_total


@numba.njit(cache=True, nogil=True, fastmath=_FAST)
def la_scaled_dp(x, y, E, d, r, work):  # pragma: no cover - compiled
    """``log K_LA(x, y)`` by the scaled recursion (module docstring).

    Parameters
    ----------
    x, y : int64 arrays of symbol ids; ``y`` is the inner loop (give the longer one)
    E : (A, A) float64, ``exp(β S)``
    d, r : ``exp(−β o)``, ``exp(−β e)``
    work : float64 array of at least ``3 (|y| + 1)`` entries (overwritten)
    """
    n, m = x.size, y.size
    M = work[0:m + 1]
    X = work[m + 1:2 * m + 2]
    Y = work[2 * m + 2:3 * m + 3]
    M[:] = 0.0
    X[:] = 0.0
    Y[:] = 0.0
    log_total, acc, shift, one = 0.0, 0.0, 0, 1.0
    i = 0
    while i < n:
        # rows i (a) and i+1 (b) in one sweep; p = row i-1 at column j-1 (diagonal of a),
        # a*/b* = rows i and i+1 at column j-1
        Ea = E[x[i]]
        pM = pX = pY = 0.0
        aM = aX = aY = 0.0
        sa = 0.0
        if i + 1 < n:
            Eb = E[x[i + 1]]
            bM = bX = bY = 0.0
            sb = 0.0
            for jj in range(m):
                j = numba.uint64(jj + 1)
                yj = y[numba.uint64(jj)]
                vM, vX, vY = M[j], X[j], Y[j]                    # row i-1 at column j
                nMa = Ea[yj] * (one + pM + pX + pY)
                nXa = d * vM + r * vX
                nYa = d * (aM + aX) + r * aY
                nMb = Eb[yj] * (one + aM + aX + aY)
                nXb = d * nMa + r * nXa
                nYb = d * (bM + bX) + r * bY
                M[j], X[j], Y[j] = nMb, nXb, nYb
                pM, pX, pY = vM, vX, vY
                aM, aX, aY = nMa, nXa, nYa
                bM, bX, bY = nMb, nXb, nYb
                sa += nMa
                sb += nMb
            rows = sa + sb
            i += 2
        else:
            for jj in range(m):
                j = numba.uint64(jj + 1)
                vM, vX, vY = M[j], X[j], Y[j]
                nMa = Ea[y[numba.uint64(jj)]] * (one + pM + pX + pY)
                nXa = d * vM + r * vX
                nYa = d * (aM + aX) + r * aY
                M[j], X[j], Y[j] = nMa, nXa, nYa
                pM, pX, pY = vM, vX, vY
                aM, aX, aY = nMa, nXa, nYa
                sa += nMa
            rows = sa
            i += 1
        acc += rows
        if rows > RESCALE_ABOVE or 0.0 < rows < RESCALE_BELOW:
            log_total = _fold(log_total, acc, shift)
            acc = 0.0
            k = math.frexp(rows)[1]
            f = 2.0 ** (-k)
            for j in range(m + 1):
                M[j] *= f
                X[j] *= f
                Y[j] *= f
            shift += k
            one = 2.0 ** (-shift)
    return _fold(log_total, acc, shift)


@numba.njit(cache=True, nogil=True)
def la_tile(codes, starts, lengths, rows, cols, upper, E, d, r, out):  # pragma: no cover
    """``out[a, b] = log K_LA(s_rows[a], s_cols[b])`` for sequences stored as
    ``codes[starts[k]:starts[k] + lengths[k]]``; with ``upper`` only where
    ``cols[b] >= rows[a]`` (the rest of ``out`` is left as it is). Each pair runs with its
    longer sequence in the inner loop."""
    longest = 0
    for k in range(lengths.size):
        longest = max(longest, lengths[k])
    work = np.empty(3 * (longest + 1))
    for a in range(rows.size):
        p = rows[a]
        sp = codes[starts[p]:starts[p] + lengths[p]]
        for b in range(cols.size):
            q = cols[b]
            if upper and q < p:
                continue
            sq = codes[starts[q]:starts[q] + lengths[q]]
            if sq.size >= sp.size:
                out[a, b] = la_scaled_dp(sp, sq, E, d, r, work)
            else:
                out[a, b] = la_scaled_dp(sq, sp, E, d, r, work)


@numba.njit(cache=True, nogil=True)
def la_diagonal(codes, starts, lengths, E, d, r, out):  # pragma: no cover - compiled
    """``out[k] = log K_LA(s_k, s_k)`` for every stored sequence (``O(Σ |s_k|²)``)."""
    longest = 0
    for k in range(lengths.size):
        longest = max(longest, lengths[k])
    work = np.empty(3 * (longest + 1))
    for k in range(lengths.size):
        s = codes[starts[k]:starts[k] + lengths[k]]
        out[k] = la_scaled_dp(s, s, E, d, r, work)


@numba.njit(cache=True, nogil=True)
def sw_tile(codes_a, starts_a, lengths_a, codes_b, starts_b, lengths_b, score, gap_open,
            gap_extend, out):  # pragma: no cover - compiled
    """``out[i, j]`` = the Smith–Waterman score of sequence i of the first set and sequence
    j of the second (:func:`la_log_dp` with ``viterbi``; ``score`` the substitution
    matrix, gaps in its units)."""
    for i in range(lengths_a.size):
        x = codes_a[starts_a[i]:starts_a[i] + lengths_a[i]].astype(np.int64)
        for j in range(lengths_b.size):
            y = codes_b[starts_b[j]:starts_b[j] + lengths_b[j]].astype(np.int64)
            out[i, j] = la_log_dp(x, y, score, gap_open, gap_extend, True)
