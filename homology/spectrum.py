"""Spectrum kernel (Leslie, Eskin & Noble 2002; thesis §1.1.2, eq. 1.13).

``k(p, q) = sum_i sum_j prod_{l<k} delta(p_{i+l}, q_{j+l})`` = the number of pairs of
equal length-k substrings = ``<S(p), S(q)>`` with ``S_a(x)`` the number of occurrences of
the k-mer ``a`` in ``x``. Implemented as an explicit sparse feature map (one CSR column per
k-mer present at fit time) by :class:`homology.kmers.WildcardSpectrumMap` with the single
block "no wildcard". k-mers containing an ambiguous residue (X, B, Z, ...) are skipped.

Cost: O(N log N) for N residues (vectorized sort); Gram matrix: one sparse product.
"""

from homology.kmers import WildcardSpectrumMap


class SpectrumKernel(WildcardSpectrumMap):
    """k-spectrum kernel as a sparse feature map.

    Parameters
    ----------
    k : int, default 3
        Substring length (the thesis' h), 1..14.
    normalize : bool, default True
        Cosine normalization ``k(x, y) / sqrt(k(x, x) k(y, y))``.

    Attributes
    ----------
    vocabularies_ : list of one int64 array
        Base-20 codes of the k-mers seen by :meth:`fit` (the columns of :meth:`transform`).
    """

    def __init__(self, k=3, normalize=True):
        self.k = k
        self.normalize = normalize

    def _blocks(self):
        return [((), 1.0)]
