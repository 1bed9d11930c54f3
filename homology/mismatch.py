"""(k, m)-mismatch kernel (Leslie, Eskin, Cohen, Weston & Noble 2004; thesis eq. 1.14).

Standard definition (Leslie et al. 2004, the one used for the published SCOP results):
for a k-mer ``beta`` let ``phi_beta(x)`` = number of k-mers ``alpha`` of ``x`` with
Hamming distance ``d(alpha, beta) <= m`` (``alpha`` lies in the (k, m)-neighbourhood
of ``beta``), and ``k(x, y) = <phi(x), phi(y)>`` over all ``20**k`` k-mers ``beta``.
Expanding the sum, each pair of k-mers ``(alpha in x, alpha' in y)`` contributes
``c_d = |N_m(alpha) ∩ N_m(alpha')|``, which depends only on ``d = d(alpha, alpha')``
(``c_d = 0`` for ``d > 2m``); for (5, 1): ``c_0 = 96, c_1 = 20, c_2 = 2``.

The thesis' eq. 1.14 is a *simplification*: it counts each pair of k-mers with
``d <= m`` once (``c_d = 1`` for ``d <= m``, else 0). That is not the neighbourhood feature
map (it weights exact matches like near matches) and is in general not positive
semi-definite; it is available as ``definition="thesis"`` (Gram matrix only).

Fast exact computation without enumerating neighbourhoods: let ``W_T(alpha, alpha')`` = 1
when the two k-mers agree outside the position set ``T``, and
``Q_s = sum_{|T| = s} W_T``. A pair at distance ``d`` is counted ``C(k - d, s - d)``
times in ``Q_s``, so solving the triangular system
``sum_s w_s C(k - d, s - d) = c_d`` (d = 0..2m) gives
``k(x, y) = sum_T w_|T| <S_T(x), S_T(y)>`` with ``S_T`` the spectrum of k-mers with
wildcards at ``T`` (see :mod:`homology.kmers`). For (5, 1): ``w = (16, 12, 2)`` over
1 + 5 + 10 wildcard sets — all weights are non-negative, so
``x -> [sqrt(w_T) S_T(x)]_T`` is an explicit sparse feature map with 16 blocks (about 16x
the non-zeros of the spectrum map, instead of (1 + 19 k) = 96x for the direct
neighbourhood map).

Cost: sum over wildcard sets of one vectorized sort, O(sum_s C(k, s) N log N) for N
residues; the Gram matrix is one sparse product ``Phi Phi^T``.
"""

from functools import lru_cache
from math import comb, factorial

import numpy as np

from homology.kmers import ALPHABET_SIZE, WildcardSpectrumMap, wildcard_sets
from kernelrank.errors import InvalidParameterError

DEFINITIONS = ("neighbourhood", "thesis")


def neighbourhood_overlap(k, m, d, alphabet_size=ALPHABET_SIZE):
    """``|N_m(a) ∩ N_m(b)|`` for two k-mers at Hamming distance ``d`` (closed-form count).

    ``beta`` differs from both at ``e`` of the ``k - d`` agreeing positions
    (``(L-1)**e`` choices each) and, at the ``d`` differing ones, equals ``a`` (``i``
    places), ``b`` (``j`` places) or a third letter (``(L-2)`` choices).
    """
    total = 0
    for e in range(k - d + 1):
        for i in range(d + 1):
            for j in range(d - i + 1):
                o = d - i - j
                if e + j + o <= m and e + i + o <= m:
                    total += (comb(k - d, e) * (alphabet_size - 1) ** e
                              * factorial(d) // (factorial(i) * factorial(j) * factorial(o))
                              * (alphabet_size - 2) ** o)
    return total


@lru_cache(maxsize=None)
def wildcard_weights(k, m, definition="neighbourhood", alphabet_size=ALPHABET_SIZE):
    """Weights ``w_s`` (s = 0..S) with ``k(x, y) = sum_{|T| <= S} w_|T| <S_T(x), S_T(y)>``.

    ``S = min(2m, k)`` for the neighbourhood definition, ``min(m, k)`` for the thesis one.
    """
    if definition == "neighbourhood":
        top = min(2 * m, k)
        target = [neighbourhood_overlap(k, m, d, alphabet_size) for d in range(top + 1)]
    else:
        top = min(m, k)
        target = [1] * (top + 1)
    w = [0] * (top + 1)
    for s in range(top, -1, -1):
        w[s] = target[s] - sum(w[t] * comb(k - s, t - s) for t in range(s + 1, top + 1))
    return tuple(w)


class MismatchKernel(WildcardSpectrumMap):
    """(k, m)-mismatch kernel; a sparse feature map for the standard definition.

    Parameters
    ----------
    k : int, default 5
        k-mer length.
    m : int, default 1
        Maximum number of mismatches, 0 <= m < k (m = 0 is the spectrum kernel).
    normalize : bool, default True
        Cosine normalization ``k(x, y) / sqrt(k(x, x) k(y, y))``.
    definition : {"neighbourhood", "thesis"}, default "neighbourhood"
        Leslie et al. (2004) neighbourhood feature map, or the thesis' eq. 1.14 (pairs of
        k-mers within distance m counted once; Gram matrix only, not always PSD).

    Attributes
    ----------
    vocabularies_ : list of int64 arrays
        Per wildcard block, the codes seen by :meth:`fit` (the blocks of columns of
        :meth:`transform`).
    """

    def __init__(self, k=5, m=1, normalize=True, definition="neighbourhood"):
        self.k = k
        self.m = m
        self.normalize = normalize
        self.definition = definition

    def _check_params(self):
        super()._check_params()
        if (not isinstance(self.m, (int, np.integer)) or isinstance(self.m, bool)
                or not 0 <= self.m < self.k):
            raise InvalidParameterError(f"m must be an integer with 0 <= m < k={self.k}, "
                                        f"got {self.m!r}")
        if self.definition not in DEFINITIONS:
            raise InvalidParameterError(
                f"definition must be one of {DEFINITIONS}, got {self.definition!r}")

    def _blocks(self):
        w = wildcard_weights(self.k, self.m, self.definition)
        return [(t, float(w[len(t)])) for t in wildcard_sets(self.k, len(w) - 1)
                if w[len(t)] != 0]
