"""Spectrum kernel (Leslie, Eskin & Noble 2002; thesis §1.1.2, eq. 1.13).

``k(p, q) = sum_i sum_j prod_{l<k} delta(p_{i+l}, q_{j+l})`` = the number of pairs of
equal length-k substrings = ``<S(p), S(q)>`` with ``S_a(x)`` the number of occurrences of
the k-mer ``a`` in ``x``. Implemented as an explicit sparse feature map (one CSR column per
k-mer present at fit time) by :class:`learners.kernels.kmers.WildcardSpectrumKernel` with
the single block "no wildcard". k-mers containing a symbol outside the alphabet (for
proteins: X, B, Z, ...) are skipped.

Cost: O(N log N) for N symbols (vectorized sort); Gram matrix: one sparse product.
"""

from learners.kernels.kmers import WildcardSpectrumKernel

__all__ = ["SpectrumKernel"]


class SpectrumKernel(WildcardSpectrumKernel):
    """k-spectrum kernel as a sparse feature map.

    Parameters
    ----------
    alphabet : str or sequence of symbols
        The symbols that can match (homology: the 20 standard amino acids).
    k : int, default 3
        Substring length (the thesis' h); ``L**k < 2**63`` for L symbols (k ≤ 14 for 20).
    normalize : bool, default True
        Cosine normalization ``k(x, y) / sqrt(k(x, x) k(y, y))``.

    Attributes
    ----------
    vocabularies_ : list of one int64 array
        Base-L codes of the k-mers seen by ``fit`` (the columns of the feature rows).
    """

    def __init__(self, alphabet, k=3, normalize=True):
        self.alphabet = alphabet
        self.k = k
        self.normalize = normalize

    def _blocks(self):
        return [((), 1.0)]
