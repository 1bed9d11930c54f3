"""Locality-convolution kernel for sequences of parse features (Tsivtsivadze et al. 2006,
"Locality-convolution kernel and its application to dependency parse ranking", IEA/AIE,
LNCS 4031; generalised as the locality kernels of Tsivtsivadze et al. 2008, Applied
Intelligence — thesis of Tsivtsivadze 2008, ../shared/papers/003 §2.2.1).

The papers describe the kernel in words: parse similarity is measured *locally, within a
small window built around each matching feature*; inside the window a *position
sensitive function* accounts for the order of appearance; the window similarity is
computed over the common attributes and the kernel is the *sum of the window
similarities*. Their exact printed formula was not available to us; we implement the
following definition, which has exactly those ingredients and is positive semi-definite
by construction. For feature sequences ``p = (p_1..p_|p|)`` and ``q``, window half-width
``w`` and offset weight ``g``:

    k(p, q) = Σ_i Σ_j δ(p_i, q_j) · Σ_{h=-w..w} Σ_{l=-w..w} δ(p_{i+h}, q_{j+l}) g(h, l)

(positions outside a sequence contribute nothing), with three ways of using positions
inside the window (the variants named in the thesis §2.2.2):

* ``matching="sensitive"``: ``g(h, l) = exp(-((h - l) / θ)^2)`` — features matching at
  different relative positions are penalised smoothly (θ = ``theta``, the decay);
* ``matching="strict"``: ``g(h, l) = δ(h, l)`` — only matches at the same relative position;
* ``matching="insensitive"``: ``g = 1`` — any match inside the window counts.

Feature map (why this is fast and exactly PSD): writing ``C_p(a, b, h)`` for the number of
positions ``i`` with ``p_i = a`` and ``p_{i+h} = b``,

    k(p, q) = Σ_{a,b} Σ_{h,l} C_p(a, b, h) g(h, l) C_q(a, b, l) = ⟨Φ(p), Φ(q)⟩,
    Φ(p)_{(a,b),·} = C_p(a, b, ·) R,   with  G = [g(h, l)] = R Rᵀ.

``G`` is PSD for all three variants (the Gaussian on the integers is positive definite),
so ``k`` is a kernel and ``Φ`` is a sparse matrix with ``(2w+1)`` columns per feature pair
(one for "insensitive"). Cost: O(|p| (2w+1)) to count a sequence, O(nnz (2w+1)) for the
``R`` product; the Gram matrix is a sparse-dense product (:func:`learners.all_paths.gram_matrix`).
A naive O(|p| |q| (2w+1)^2) evaluation, :func:`locality_kernel_naive`, is kept for tests.

Parameters used by ``parse_ranking`` (documented in its CLI): ``window=2``, ``theta=1.0``,
``matching="sensitive"``, rows normalised to unit norm.
"""

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidInputError, InvalidParameterError
from parse_ranking.names import MATCHING

__all__ = ["LocalityConvolutionVectorizer", "locality_kernel_naive", "offset_weights",
           "MATCHING"]


def offset_weights(window, theta=1.0, matching="sensitive"):
    """The (2w+1) × (2w+1) matrix ``G[h+w, l+w] = g(h, l)``."""
    if matching not in MATCHING:
        raise InvalidParameterError(f"matching must be one of {MATCHING}, got {matching!r}")
    window = int(window)
    if window < 0:
        raise InvalidParameterError(f"window must be >= 0, got {window}")
    off = np.arange(-window, window + 1, dtype=float)
    if matching == "strict":
        return np.eye(off.size)
    if matching == "insensitive":
        return np.ones((off.size, off.size))
    theta = float(theta)
    if not theta > 0:
        raise InvalidParameterError(f"theta must be > 0, got {theta}")
    return np.exp(-((off[:, None] - off[None, :]) / theta) ** 2)


def locality_kernel_naive(p, q, window=2, theta=1.0, matching="sensitive"):
    """Direct evaluation of the defining double sum (module docstring); for tests."""
    G = offset_weights(window, theta, matching)
    w = int(window)
    total = 0.0
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            if a != b:
                continue
            for h in range(-w, w + 1):
                if not 0 <= i + h < len(p):
                    continue
                for ll in range(-w, w + 1):
                    if 0 <= j + ll < len(q) and p[i + h] == q[j + ll]:
                        total += G[h + w, ll + w]
    return total


def _factor(G):
    """``R`` with ``G = R Rᵀ`` (symmetric eigendecomposition, tiny negative noise clipped)."""
    vals, vecs = np.linalg.eigh(G)
    keep = vals > 1e-12 * max(vals.max(), 1.0)
    return vecs[:, keep] * np.sqrt(vals[keep])


class LocalityConvolutionVectorizer:
    """Sequences of hashable features → sparse rows ``Φ`` with ``Φ(p)·Φ(q) = k(p, q)``.

    Parameters
    ----------
    window : int, default 2
        Half-width ``w`` of the window around each matching feature.
    theta : float, default 1.0
        Decay of the position-sensitive weight ``exp(-((h-l)/θ)^2)``.
    matching : {"sensitive", "strict", "insensitive"}
    normalize : bool, default True
        Unit-norm rows, i.e. the kernel ``k(p,q) / sqrt(k(p,p) k(q,q))``.

    ``fit`` learns the vocabulary of feature pairs ``(a, b)`` seen in training; pairs first
    seen at ``transform`` are dropped (they are orthogonal to every training row, so they
    change no prediction of a kernel model; with ``normalize=True`` they still count in
    the row norm, which is computed exactly).

    Attributes
    ----------
    symbols_ : dict feature -> id
    pairs_ : dict (id_a, id_b) -> column block
    R_ : ndarray (2w+1, r), factor of the offset weights
    """

    def __init__(self, window=2, theta=1.0, matching="sensitive", normalize=True):
        self.window = window
        self.theta = theta
        self.matching = matching
        self.normalize = normalize

    def get_params(self, deep=True):
        return {"window": self.window, "theta": self.theta, "matching": self.matching,
                "normalize": self.normalize}

    def set_params(self, **params):
        for key, value in params.items():
            if key not in self.get_params():
                raise InvalidParameterError(f"unknown parameter {key!r}")
            setattr(self, key, value)
        return self

    def _counts(self, sequences, grow):
        """COO triplets (row, pair id, offset index, count) for all sequences."""
        w = int(self.window)
        rows, pa, pb, offs = [], [], [], []
        for r, seq in enumerate(sequences):
            if isinstance(seq, (str, bytes)):
                raise InvalidInputError("each sequence must be a list of features, not a "
                                        "string")
            ids = np.empty(len(seq), dtype=np.int64)
            for k, s in enumerate(seq):
                sid = self.symbols_.get(s)
                if sid is None:
                    sid = len(self.symbols_) if grow else -1
                    if grow:
                        self.symbols_[s] = sid
                ids[k] = sid
            n = ids.size
            for h in range(-w, w + 1):
                lo, hi = max(0, -h), min(n, n - h)
                if hi <= lo:
                    continue
                a, b = ids[lo:hi], ids[lo + h:hi + h]
                rows.append(np.full(hi - lo, r, dtype=np.int64))
                pa.append(a), pb.append(b)
                offs.append(np.full(hi - lo, h + w, dtype=np.int64))
        if not rows:
            z = np.zeros(0, np.int64)
            return z, z, z, z
        return (np.concatenate(rows), np.concatenate(pa), np.concatenate(pb),
                np.concatenate(offs))

    def _matrix(self, sequences, grow):
        w = int(self.window)
        width = 2 * w + 1
        rows, a, b, offs = self._counts(sequences, grow)
        n_rows = len(sequences)
        unknown = (a < 0) | (b < 0)
        codes = (a << np.int64(32)) | (b & np.int64(0xFFFFFFFF))
        if grow:
            uniq = np.unique(codes)
            self.pair_codes_ = uniq
        known = ~unknown
        pos = np.searchsorted(self.pair_codes_, codes)
        pos_c = np.minimum(pos, max(len(self.pair_codes_) - 1, 0))
        if len(self.pair_codes_):
            known &= self.pair_codes_[pos_c] == codes
        else:
            known[:] = False
        n_pairs = len(self.pair_codes_)
        counts = sp.csr_matrix(
            (np.ones(int(known.sum())), (rows[known], pos[known] * width + offs[known])),
            shape=(n_rows, n_pairs * width))
        counts.sum_duplicates()
        R = self.R_
        Z = (counts @ sp.kron(sp.eye(n_pairs, format="csr"), sp.csr_matrix(R),
                              format="csr")).tocsr()
        Z.eliminate_zeros()
        if self.normalize:
            norms = self._exact_norms(rows, codes, offs, n_rows) if not grow else \
                np.sqrt(np.asarray(Z.multiply(Z).sum(axis=1)).ravel())
            scale = np.divide(1.0, norms, out=np.zeros_like(norms), where=norms > 0)
            Z = sp.diags(scale) @ Z
        return Z.tocsr()

    def _exact_norms(self, rows, codes, offs, n_rows):
        """Row norms ``sqrt(k(p, p))`` including pairs unseen in training."""
        width = 2 * int(self.window) + 1
        uniq, inv = np.unique(codes, return_inverse=True)
        counts = sp.csr_matrix((np.ones(rows.size), (rows, inv * width + offs)),
                               shape=(n_rows, max(len(uniq), 1) * width))
        counts.sum_duplicates()
        G = self.R_ @ self.R_.T
        Cg = counts @ sp.kron(sp.eye(max(len(uniq), 1), format="csr"), sp.csr_matrix(G),
                              format="csr")
        return np.sqrt(np.maximum(np.asarray(Cg.multiply(counts).sum(axis=1)).ravel(), 0))

    def fit_transform(self, sequences):
        """Fit the pair vocabulary on ``sequences``; return their feature rows (CSR)."""
        self.R_ = _factor(offset_weights(self.window, self.theta, self.matching))
        self.symbols_ = {}
        return self._matrix(list(sequences), grow=True)

    def fit(self, sequences):
        self.fit_transform(sequences)
        return self

    def transform(self, sequences):
        """Feature rows of new sequences in the fitted space."""
        if not hasattr(self, "pair_codes_"):
            raise InvalidParameterError("LocalityConvolutionVectorizer is not fitted")
        return self._matrix(list(sequences), grow=False)
