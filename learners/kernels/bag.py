"""The bag-of-features kernel: the linear kernel on counts of symbolic features.

An object is a bag (multiset) of hashable features — e.g. the words around a candidate pair,
or the n-grams along a dependency path — and

    k(x, z) = Σ_f c_x(f) c_z(f),

with ``c_x(f)`` the count of ``f`` in ``x`` (1 if ``binary``), i.e. the dot product of the
count vectors (scikit-learn's ``CountVectorizer`` / ``DictVectorizer`` followed by a linear
kernel).  Columns come from a vocabulary fitted on the training bags; ``k(x, x)`` is the one
of the whole bag, features outside the vocabulary included, so that (as for every kernel of
:mod:`learners.kernels`) the normalized kernel between two objects does not depend on the
vocabulary.

Cost: O(N log N) for N features in all bags (one sort), the Gram matrix as
:func:`learners.kernels.sparse_gram.gram_matrix`.
"""

from __future__ import annotations

from itertools import repeat

import numpy as np
import scipy.sparse as sp
from sklearn.base import clone

from kernelrank.errors import InvalidInputError
from learners.kernels.base import FeatureMapKernel
from learners.kernels.vocabulary_union import merged_columns

__all__ = ["BagOfFeaturesKernel"]


class BagOfFeaturesKernel(FeatureMapKernel):
    """Linear kernel on feature counts (see the module docstring).

    Parameters
    ----------
    normalize : bool, default True
        Cosine normalization (unit-norm rows).
    binary : bool, default False
        Count every distinct feature of a bag once.

    Attributes
    ----------
    vocabulary_ : ndarray of str — the fitted features, sorted; column j is ``vocabulary_[j]``
    """

    _parameter_constraints = {"normalize": ["boolean"], "binary": ["boolean"]}

    def __init__(self, normalize=True, binary=False):
        self.normalize = normalize
        self.binary = binary

    @staticmethod
    def _flatten(bags):
        """``(row of each feature, the features as strings)`` of all bags, in order."""
        sizes, feats = [], []
        for r, bag in enumerate(bags):
            if isinstance(bag, (str, bytes)):
                raise InvalidInputError(f"bag {r} is a string; give an iterable of features "
                                        "(e.g. a list of words)")
            size = len(feats)
            feats.extend(map(str, bag))
            sizes.append(len(feats) - size)
        return np.repeat(np.arange(len(sizes), dtype=np.int64), sizes), feats

    @staticmethod
    def _interned(bags):
        """``(row of each feature, its id, the features in order of first occurrence, the
        number of bags)`` of all bags, each feature string held once: the ids are assigned while the bags are
        read (a dict look-up per feature), so the bags may be a generator and no array of
        all feature strings is formed.  O(total features) time, O(distinct features)
        strings."""
        from array import array

        index, ids, sizes = {}, array("q"), array("q")
        for r, bag in enumerate(bags):
            if isinstance(bag, (str, bytes)):
                raise InvalidInputError(f"bag {r} is a string; give an iterable of features "
                                        "(e.g. a list of words)")
            start = len(ids)
            ids.extend(index.setdefault(f, len(index)) for f in map(str, bag))
            sizes.append(len(ids) - start)
        sizes = np.frombuffer(sizes, dtype=np.int64) if len(sizes) else np.zeros(0, np.int64)
        ids = np.frombuffer(ids, dtype=np.int64) if len(ids) else np.zeros(0, np.int64)
        row = np.repeat(np.arange(sizes.size, dtype=np.int64), sizes)
        return row, ids, list(index), sizes.size

    def _feature_map(self, bags, fit):
        if fit:
            # the vocabulary is the sorted distinct features (code-point order, as
            # np.unique), each column renumbered from its first-occurrence id
            row, ids, first_seen, n = self._interned(bags)
            order = sorted(range(len(first_seen)), key=first_seen.__getitem__)
            self.vocabulary_ = np.array([first_seen[i] for i in order], dtype=str) \
                if order else np.zeros(0, dtype=str)
            column = np.empty(len(order), dtype=np.int64)
            column[np.asarray(order, dtype=np.int64)] = np.arange(len(order))
            X = self._counts(row, column[ids] if ids.size else ids, n,
                             max(len(order), 1))
            X.sort_indices()
            return X, None
        bags = list(bags)
        n = len(bags)
        row, feats = self._flatten(bags)
        # transform: a dict look-up per feature (features never seen get columns past the
        # vocabulary, which count in k(x, x) and are then cut off) instead of sorting all
        # feature strings
        index = self._vocabulary_index()
        n_known = len(self.vocabulary_)
        col = np.fromiter(map(index.get, feats, repeat(-1)), dtype=np.int64, count=len(feats))
        missing = np.flatnonzero(col < 0)
        unseen = {}
        col[missing] = np.fromiter((unseen.setdefault(feats[i], n_known + len(unseen))
                                    for i in missing.tolist()), dtype=np.int64,
                                   count=len(missing))
        X = self._counts(row, col, n, n_known + len(unseen))
        self_kernel = np.asarray(X.multiply(X).sum(axis=1)).ravel()
        out = X[:, :max(n_known, 1)] if n_known else sp.csr_matrix((n, 1))
        out.sort_indices()
        return out.tocsr(), self_kernel

    # ------------------------------------------------------------------ vocabulary union
    def _vocabulary_state(self):
        return (self.vocabulary_,)

    def n_columns(self):
        """The width of the fitted feature rows: the vocabulary's size (an empty vocabulary:
        one zero column)."""
        return max(len(self.vocabulary_), 1)

    @classmethod
    def _vocabulary_union(cls, kernels):
        """(:mod:`learners.kernels.vocabulary_union`) A kernel of the sorted union of the
        vocabularies, and per kernel its column of each union feature (−1: not in it)."""
        union = clone(kernels[0])
        union.vocabulary_, maps = merged_columns(
            [np.asarray(k.vocabulary_, dtype=str) for k in kernels])
        return union, maps

    def _counts(self, row, col, n, width):
        """CSR counts (1 per distinct feature if ``binary``) of features ``col`` in rows
        ``row``."""
        X = sp.csr_matrix((np.ones(len(row)), (row, col)), shape=(n, max(width, 1)))
        X.sum_duplicates()
        if self.binary:
            X.data[:] = 1.0
        return X

    def _vocabulary_index(self):
        """``{feature: column}`` of the fitted vocabulary, built once per vocabulary."""
        cached = self.__dict__.get("_index_of_vocabulary")
        if cached is None or cached[0] is not self.vocabulary_:
            cached = (self.vocabulary_, {f: i for i, f in
                                         enumerate(self.vocabulary_.tolist())})
            self.__dict__["_index_of_vocabulary"] = cached
        return cached[1]
