"""Weighted kernel sums ``k = sum_i w_i k_i`` (e.g. a string kernel plus protein features).

A sum of positive semi-definite kernels with non-negative weights is a kernel; when every
part has an explicit feature map the sum has one too, the concatenation
``[sqrt(w_1) Phi_1, sqrt(w_2) Phi_2, ...]`` (kept sparse), so linear learners and the fast
leave-one-out still apply. Use normalized parts so that the weights are comparable
(each normalized part has ``k_i(x, x) = 1``, the sum has ``k(x, x) = sum_i w_i``).

Cost: the sum of the parts' costs, plus O(n m) per part for the weighted sum.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.kernels.base import Kernel

__all__ = ["SumKernel"]


class SumKernel(Kernel):
    """``sum_i weight_i * kernel_i`` over kernels of :mod:`learners.kernels` (the parts are
    fitted in place, each with its own normalization).

    Parameters
    ----------
    parts : list of (weight, kernel) pairs
        Non-negative weights; kernels on the base class, e.g. a
        :class:`learners.kernels.MismatchKernel` and ``homology.features.ProteinFeatures``.
    normalize : bool, default False
        Cosine normalization of the sum itself.
    """

    _parameter_constraints = {"parts": [list, tuple], "normalize": ["boolean"]}

    def __init__(self, parts, normalize=False):
        self.parts = parts
        self.normalize = normalize

    def _check_consistency(self):
        if not self.parts:
            raise InvalidParameterError("SumKernel needs at least one (weight, kernel) part")
        for part in self.parts:
            w, k = part
            if not isinstance(w, Real) or not np.isfinite(w) or w < 0:
                raise InvalidParameterError(f"kernel sum weights must be >= 0, got {w!r}")
            if not isinstance(k, Kernel):
                raise InvalidParameterError(f"{k!r} is not a kernel of learners.kernels")

    @property
    def has_feature_map(self):
        return all(k.has_feature_map for _, k in self.parts)

    def _parse_input(self, X, fit):
        X = list(X)
        parsed = [k.fit(X)._fitted() if fit else k._parse_input(X, fit=False)
                  for _, k in self.parts]
        self_kernel = sum(w * k._normalized_self_kernel(d)
                          for (w, k), (_, d) in zip(self.parts, parsed))
        return parsed, self_kernel

    def _pairwise(self, P, Q):
        return sum(w * k._gram(p, q) for (w, k), p, q in zip(self.parts, P, Q))

    def _feature_rows(self, P, self_kernel):
        rows = [np.sqrt(w) * sp.csr_matrix(k._feature_rows(*p))
                for (w, k), p in zip(self.parts, P)]
        return self._scale_rows(sp.hstack(rows, format="csr"), self_kernel)
