"""Locality kernels for proteins (Tsivtsivadze, Boberg & Salakoski 2007; thesis §2.2.2).

The thesis describes the kernels only in words (§2.2.2; Paper III, the WABI 2007 paper, and
the locality-convolution kernel of Tsivtsivadze et al. 2006 were not available to us in
full text): similarity is measured *within a small window constructed around matching
amino acids* of the two proteins, with three ways of evaluating the window — *position
insensitive* (amino acids that match count irrespective of their position), *position
sensitive* (matches at different positions are penalized) and *strict* (only matches at
the same position count). We implement that description as the convolution kernel
(eq. 1.12 with a windowed kappa)

    k(p, q) = sum_i sum_j  delta(p_i, q_j)  sum_{l=-t}^{t} sum_{h=-t}^{t}
                    w(l, h) delta(p_{i+l}, q_{j+h}),

where ``t`` is the half-width of the window (the window has ``2t + 1`` residues centred on
the matching pair ``p_i = q_j``; positions outside a sequence match nothing) and

* ``mode="insensitive"``: ``w(l, h) = 1``;
* ``mode="sensitive"``:   ``w(l, h) = exp(-(l - h)**2 / theta**2)`` (a Gaussian penalty
  on the position difference, parameter ``theta > 0``);
* ``mode="strict"``:      ``w(l, h) = [l == h]``.

The sensitive kernel tends to the strict one as ``theta -> 0`` and to the insensitive one
as ``theta -> inf``. The centre pair (l = h = 0) is included, so the kernel contains the
amino-acid composition kernel. Ambiguous residues (X, B, Z, ...) match nothing. The
window match is *not* raised to a power here (Zien et al.'s locality-improved kernel
does that); with this linear form every variant is an explicit, low-dimensional feature
map: let ``V_{a,b,l}(p) = #{i : p_i = a, p_{i+l} = b}`` (400 (2t + 1) counts) and
``W = [w(l, h)]``, a positive semi-definite (2t+1) x (2t+1) matrix (all-ones, Gaussian
Toeplitz, identity), ``W = L L^T``. Then

    k(p, q) = sum_{a,b} V_{a,b,.}(p)^T W V_{a,b,.}(q) = <V(p) (I ⊗ L), V(q) (I ⊗ L)>,

so the feature map is ``Phi = V (I_400 ⊗ L)`` (400 columns for the insensitive mode,
400 (2t + 1) otherwise) and the Gram matrix is one product ``Phi Phi^T``.

Cost: O(N (2t + 1)) to count the offset pairs of N residues (2t + 1 vector operations over
all sequences at once), O(n^2 d) for the Gram matrix of n sequences with d features.
"""

import numpy as np
import scipy.sparse as sp

from homology.kmers import ALPHABET_SIZE, UNKNOWN, _inverse_sqrt, as_sequences, encode
from kernelrank.errors import InvalidParameterError

MODES = ("insensitive", "sensitive", "strict")


def window_weights(mode, half_width, theta=1.0):
    """The (2t+1) x (2t+1) position weight matrix ``W[l + t, h + t] = w(l, h)``."""
    offsets = np.arange(-half_width, half_width + 1)
    diff = offsets[:, None] - offsets[None, :]
    if mode == "insensitive":
        return np.ones(diff.shape)
    if mode == "strict":
        return (diff == 0).astype(float)
    return np.exp(-(diff.astype(float) ** 2) / theta**2)


def offset_pair_counts(sequences, half_width):
    """Sparse ``V`` (n x 400 (2t+1)): column ``(l + t) * 400 + a * 20 + b`` counts the
    positions i with ``p_i = a`` and ``p_{i+l} = b`` (both standard residues)."""
    sequences = as_sequences(sequences)
    codes, lengths = encode(sequences)
    n, total = len(lengths), codes.size
    seq_of = np.repeat(np.arange(n), lengths)
    pair_space = ALPHABET_SIZE * ALPHABET_SIZE
    rows, cols = [], []
    for l in range(-half_width, half_width + 1):  # 2t + 1 vectorized passes
        i = np.arange(max(0, -l), total - max(0, l))
        j = i + l
        ok = (seq_of[i] == seq_of[j]) & (codes[i] != UNKNOWN) & (codes[j] != UNKNOWN)
        i, j = i[ok], j[ok]
        rows.append(seq_of[i])
        cols.append((l + half_width) * pair_space
                    + codes[i].astype(np.int64) * ALPHABET_SIZE + codes[j])
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    shape = (n, pair_space * (2 * half_width + 1))
    V = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=shape)
    V.sum_duplicates()
    return V


class LocalityKernel:
    """Locality kernel for proteins as an explicit feature map (see the module docstring).

    Parameters
    ----------
    mode : {"insensitive", "sensitive", "strict"}, default "sensitive"
    half_width : int, default 3
        ``t``: the window holds ``2t + 1`` residues centred on the matching pair.
    theta : float, default 2.0
        Width of the Gaussian position penalty (``mode="sensitive"`` only).
    normalize : bool, default True
        Cosine normalization ``k(x, y) / sqrt(k(x, x) k(y, y))``.
    """

    def __init__(self, mode="sensitive", half_width=3, theta=2.0, normalize=True):
        self.mode = mode
        self.half_width = half_width
        self.theta = theta
        self.normalize = normalize

    def get_params(self, deep=True):
        return {"mode": self.mode, "half_width": self.half_width, "theta": self.theta,
                "normalize": self.normalize}

    def set_params(self, **params):
        for name, value in params.items():
            if name not in self.get_params():
                raise InvalidParameterError(
                    f"LocalityKernel has no parameter {name!r}; it has {sorted(self.get_params())}")
            setattr(self, name, value)
        return self

    def __repr__(self):
        return "LocalityKernel(" + ", ".join(f"{k}={v!r}" for k, v in self.get_params().items()) + ")"

    def _check_params(self):
        if self.mode not in MODES:
            raise InvalidParameterError(f"mode must be one of {MODES}, got {self.mode!r}")
        t = self.half_width
        if not isinstance(t, (int, np.integer)) or isinstance(t, bool) or not 0 <= t <= 50:
            raise InvalidParameterError(f"half_width must be an integer in 0..50, got {t!r}")
        if not (isinstance(self.theta, (int, float)) and np.isfinite(self.theta)
                and self.theta > 0):
            raise InvalidParameterError(f"theta must be a positive number, got {self.theta!r}")
        if self.mode != "sensitive" and self.theta != 2.0:
            raise InvalidParameterError(
                f"theta is used only by mode='sensitive', not by mode={self.mode!r}")
        if not isinstance(self.normalize, (bool, np.bool_)):
            raise InvalidParameterError(f"normalize must be True or False, got {self.normalize!r}")

    def _factor(self):
        """``L`` with ``W = L L^T`` (columns with zero eigenvalue dropped)."""
        W = window_weights(self.mode, self.half_width, self.theta)
        if self.mode == "insensitive":
            return np.ones((len(W), 1))
        if self.mode == "strict":
            return np.eye(len(W))
        vals, vecs = np.linalg.eigh(W)
        keep = vals > vals.max() * 1e-12
        return vecs[:, keep] * np.sqrt(vals[keep])

    def fit(self, sequences=None):
        """Nothing to learn (the feature space is fixed); validates the parameters."""
        self._check_params()
        self.n_features_out_ = ALPHABET_SIZE**2 * self._factor().shape[1]
        return self

    def transform(self, sequences):
        """Feature matrix ``Phi = V (I ⊗ L)`` (CSR), rows normalized if ``normalize``."""
        self._check_params()
        V = offset_pair_counts(sequences, self.half_width)
        L = self._factor()
        pair_space = ALPHABET_SIZE**2
        # V columns are ordered (offset, pair); block product sum_l V_l L[l, :]
        T = sp.kron(sp.csr_matrix(L), sp.identity(pair_space, format="csr"), format="csr")
        phi = (V @ T).tocsr()
        if self.normalize:
            norms_sq = np.asarray(phi.multiply(phi).sum(axis=1)).ravel()
            phi = (sp.diags(_inverse_sqrt(norms_sq)) @ phi).tocsr()
        return phi

    def fit_transform(self, sequences):
        return self.fit(sequences).transform(sequences)

    def gram(self, X, Y=None):
        """Dense Gram matrix ``K[i, j] = k(X[i], Y[j])`` (``Y`` defaults to ``X``)."""
        phi_x = self.transform(X).toarray()  # at most 400 (2t+1) columns: dense BLAS
        phi_y = phi_x if Y is None else self.transform(Y).toarray()
        return phi_x @ phi_y.T

    def self_kernel(self, sequences):
        """Unnormalized ``k(x, x)`` of every sequence."""
        normalize, self.normalize = self.normalize, False
        try:
            phi = self.transform(sequences)
        finally:
            self.normalize = normalize
        return np.asarray(phi.multiply(phi).sum(axis=1)).ravel()
