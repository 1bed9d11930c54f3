"""(k, m)-mismatch kernel (Leslie, Eskin, Cohen, Weston & Noble 2004; thesis eq. 1.14).

Standard definition (Leslie et al. 2004, the one used for the published SCOP results):
for a k-mer ``beta`` let ``phi_beta(x)`` = number of k-mers ``alpha`` of ``x`` with
Hamming distance ``d(alpha, beta) <= m`` (``alpha`` lies in the (k, m)-neighbourhood
of ``beta``), and ``k(x, y) = <phi(x), phi(y)>`` over all ``L**k`` k-mers ``beta`` of the alphabet
(L = 20 for proteins).
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
wildcards at ``T`` (see :mod:`learners.kernels.kmers`). For (5, 1): ``w = (16, 12, 2)`` over
1 + 5 + 10 wildcard sets — all weights are non-negative, so
``x -> [sqrt(w_T) S_T(x)]_T`` is an explicit sparse feature map with 16 blocks (about 16x
the non-zeros of the spectrum map, instead of (1 + 19 k) = 96x for the direct
neighbourhood map). The overlaps ``c_d`` depend on the alphabet size L (20 for proteins).

Cost: sum over wildcard sets of one vectorized sort, O(sum_s C(k, s) N log N) for N
residues; the Gram matrix is one sparse product ``Phi Phi^T``.
"""

from functools import lru_cache
from math import comb, factorial
from numbers import Integral

from sklearn.utils._param_validation import Interval, StrOptions

from kernelrank.errors import InvalidParameterError
from learners.kernels.kmers import WildcardSpectrumKernel, wildcard_sets

__all__ = ["MismatchKernel", "neighbourhood_overlap", "wildcard_weights"]

DEFINITIONS = ("neighbourhood", "thesis")


def neighbourhood_overlap(k, m, d, alphabet_size):
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
def wildcard_weights(k, m, definition, alphabet_size):
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


class MismatchKernel(WildcardSpectrumKernel):
    """(k, m)-mismatch kernel; a sparse feature map for the standard definition.

    Parameters
    ----------
    alphabet : str or sequence of symbols
        The symbols that can match (homology: the 20 standard amino acids); its size L
        enters the neighbourhood overlaps ``c_d``.
    k : int, default 5
        k-mer length.
    m : int, default 1
        Maximum number of mismatches, 0 <= m < k (m = 0 is the spectrum kernel).
    normalize : bool, default True
        Cosine normalization ``k(x, y) / sqrt(k(x, x) k(y, y))``.
    definition : {"neighbourhood", "thesis"}, default "neighbourhood"
        Leslie et al. (2004) neighbourhood feature map, or the thesis' eq. 1.14 (pairs of
        k-mers within distance m counted once; kernel matrix only, not always PSD).

    Attributes
    ----------
    vocabularies_ : list of int64 arrays
        Per wildcard block, the codes seen by ``fit`` (the blocks of columns of the
        feature rows).
    """

    _parameter_constraints = {
        **WildcardSpectrumKernel._parameter_constraints,
        "m": [Interval(Integral, 0, None, closed="left")],
        "definition": [StrOptions(set(DEFINITIONS))],
    }

    def __init__(self, alphabet, k=5, m=1, normalize=True, definition="neighbourhood"):
        self.alphabet = alphabet
        self.k = k
        self.m = m
        self.normalize = normalize
        self.definition = definition

    def _check_consistency(self):
        super()._check_consistency()
        if self.m >= self.k:
            raise InvalidParameterError(f"m must be an integer with 0 <= m < k={self.k}, "
                                        f"got {self.m!r}")

    def _blocks(self):
        w = wildcard_weights(self.k, self.m, self.definition, len(self.alphabet))
        return [(t, float(w[len(t)])) for t in wildcard_sets(self.k, len(w) - 1)
                if w[len(t)] != 0]
