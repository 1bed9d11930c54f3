"""Weighted kernel sums ``k = sum_i w_i k_i`` (e.g. a string kernel plus protein features).

A sum of positive semi-definite kernels with non-negative weights is a kernel; when every
part has an explicit feature map the sum has one too, the concatenation
``[sqrt(w_1) Phi_1, sqrt(w_2) Phi_2, ...]`` (kept sparse), so linear learners and the fast
leave-one-out still apply. Use normalized parts so that the weights are comparable
(each normalized part has ``k_i(x, x) = 1``, the sum has ``k(x, x) = sum_i w_i``).
"""

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError


class SumKernel:
    """``sum_i weight_i * kernel_i`` over kernel objects with ``fit``/``transform``/``gram``.

    Parameters
    ----------
    parts : list of (weight, kernel) pairs
        Non-negative weights; kernels such as :class:`homology.mismatch.MismatchKernel`,
        :class:`homology.locality.LocalityKernel`, :class:`homology.features.ProteinFeatures`.
    """

    def __init__(self, parts):
        self.parts = parts

    def get_params(self, deep=True):
        return {"parts": self.parts}

    def __repr__(self):
        return "SumKernel(" + " + ".join(f"{w:g}*{k!r}" for w, k in self.parts) + ")"

    def _check(self):
        if not self.parts:
            raise InvalidParameterError("SumKernel needs at least one (weight, kernel) part")
        for w, k in self.parts:
            if not np.isfinite(w) or w < 0:
                raise InvalidParameterError(f"kernel sum weights must be >= 0, got {w!r}")
            if not hasattr(k, "gram"):
                raise InvalidParameterError(f"{k!r} is not a kernel object with gram()")

    @property
    def is_feature_map(self):
        self._check()
        return all(getattr(k, "is_feature_map", True) for _, k in self.parts)

    def fit(self, sequences):
        self._check()
        for _, k in self.parts:
            k.fit(sequences)
        return self

    def transform(self, sequences):
        """Concatenated weighted feature maps (CSR)."""
        if not self.is_feature_map:
            raise InvalidParameterError(f"{self!r} has a part without a feature map; use gram()")
        blocks = [np.sqrt(w) * sp.csr_matrix(k.transform(sequences)) for w, k in self.parts]
        return sp.hstack(blocks, format="csr")

    def fit_transform(self, sequences):
        return self.fit(sequences).transform(sequences)

    def gram(self, X, Y=None):
        self._check()
        return sum(w * k.gram(X, Y) for w, k in self.parts)
