"""Feature rows of several kernels that differ only in their fitted vocabulary, computed once.

A multi-view model may hold two fitted feature-map kernels of the same class and parameters
that read the same objects and differ only in the vocabulary fitted on their training data —
e.g. the all-paths views of two parses, which on raw text both read spaCy's one analysis.
Their unnormalized feature maps are then restrictions of one map ``Φ`` to different column
sets, and (as everywhere in :mod:`learners.kernels`) the normalization uses ``k(x, x)`` of
the whole object, so it does not depend on the vocabulary either.  Hence

    rows_v(x) = Φ(x)[columns of v] / sqrt(k(x, x))

for every kernel ``v``: :class:`VocabularyUnion` fits nothing; it builds a kernel whose
vocabulary is the union of theirs, lets it compute ``Φ`` and ``k(x, x)`` once, and cuts each
kernel's columns out of it.  The rows are those of ``v.features(x)``: the same entries and
values, normalized by the same ``k(x, x)`` — bit for bit where ``k(x, x)`` is a sum of
integers (bags of features), up to the order of its summation otherwise (the all-paths
``‖G‖²`` sums the label pairs in the order of their ids, which differ between the union and
each kernel: ≤ 1e-14 relative; tested in ``tests/learners/kernels/test_vocabulary_union.py``).

A kernel class takes part by implementing ``_vocabulary_union(kernels) -> (union kernel,
column maps)`` (a column map gives, per union column, the kernel's column or −1, or is None
for the identity), ``n_columns()`` (the width of its rows) and ``_vocabulary_state()`` (the
objects that hold its vocabulary, to tell a cached union from a stale one);
:class:`learners.kernels.AllPathsKernel` and
:class:`learners.kernels.bag.BagOfFeaturesKernel` do.

Cost: building the union once, O(V log V) for V vocabulary entries in all; per call one
gather over the union rows' non-zeros per kernel, O(nnz), instead of the kernels' whole
feature computation.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.kernels.base import squared_row_norms

__all__ = ["VocabularyUnion", "vocabulary_union", "merged_columns"]

#: unions kept by :func:`vocabulary_union` (a model holds one or two groups of views)
_CACHE_SIZE = 8
_cache = {}


class VocabularyUnion:
    """Fitted feature-map kernels of one class and equal parameters, as one kernel.

    Parameters
    ----------
    kernels : sequence of FeatureMapKernel
        Fitted, of the same class, with equal ``get_params()``.

    Attributes
    ----------
    union : FeatureMapKernel
        A kernel of the same class and parameters whose vocabulary is the union of theirs:
        compute its unnormalized map (``_feature_map`` or a class's own entry point) and
        pass it to :meth:`split`.
    """

    def __init__(self, kernels):
        self.kernels = tuple(kernels)
        if not self.kernels:
            raise InvalidParameterError("VocabularyUnion needs at least one kernel")
        first = self.kernels[0]
        if any(type(k) is not type(first) or k.get_params() != first.get_params()
               for k in self.kernels):
            raise InvalidParameterError("VocabularyUnion: the kernels differ in class or "
                                        "parameters; only their vocabularies may differ")
        for k in self.kernels:
            k._check_fitted()
            k._check_feature_map()
        self.states = tuple(k._vocabulary_state() for k in self.kernels)
        if len(self.kernels) == 1:
            self.union, self.column_maps = first, [None]
        else:
            self.union, self.column_maps = type(first)._vocabulary_union(self.kernels)
        # a map that keeps the union's column order needs no sort of the cut rows
        self.ordered = [m is None or bool(np.all(np.diff(m[m >= 0]) > 0))
                        for m in self.column_maps]

    def is_current(self, kernels):
        """Whether this union was built from these very kernels with their present
        vocabularies (a refit replaces the vocabulary objects)."""
        kernels = tuple(kernels)
        return len(kernels) == len(self.kernels) and all(
            a is b and _same_objects(a._vocabulary_state(), s)
            for a, b, s in zip(kernels, self.kernels, self.states))

    def split(self, Phi, self_kernel):
        """Each kernel's feature rows (as its ``features``) from the union's unnormalized
        map ``Phi`` (CSR over the union's columns) and ``k(x, x)`` (None: the squared row
        norms of ``Phi``, which then must be the whole map)."""
        Phi = sp.csr_matrix(Phi)
        if self_kernel is None:                   # of the whole map, before any cut
            self_kernel = squared_row_norms(Phi)
        if len(self.kernels) == 1:
            return [self.union.rows_of_map(Phi, self_kernel)]
        return [k.rows_of_map(_columns_of(Phi, cmap, k.n_columns(), ordered), self_kernel)
                for k, cmap, ordered in zip(self.kernels, self.column_maps, self.ordered)]

    def merged_weights(self, blocks):
        """Weights ``w`` over the union's columns with ``Φ_union(x) · w = Σ_v Φ_v(x) ·
        blocks[v]`` for the kernels' rows ``Φ_v`` (:meth:`split`): each kernel's weights
        moved to the union columns that map to it and added up — a linear model over the
        kernels' concatenated rows scored from the union's rows alone, without cutting
        them.

        ``blocks[v]`` is a vector over kernel ``v``'s columns, or a matrix (dense or sparse,
        its columns × r) of r linear models at once — e.g. the transposed basis rows of a
        Gaussian model, whose inner products with new rows are then ``Φ_union(x) @ w``.
        Returns a vector, or a matrix (CSR when a block is sparse) of the union's columns ×
        r.  O(union columns + the blocks' non-zeros)."""
        n = self.union.n_columns()
        total = None
        for cmap, block in zip(self.column_maps, blocks):
            if not sp.issparse(block):
                block = np.asarray(block, dtype=np.float64)
            if cmap is not None:                  # union column j ← kernel column cmap[j]
                to = np.flatnonzero(cmap >= 0)
                block = sp.csr_matrix((np.ones(len(to)), (to, cmap[to])),
                                      shape=(n, block.shape[0])) @ block
            total = block if total is None else total + block
        return sp.csr_matrix(total) if sp.issparse(total) else np.asarray(total)


def vocabulary_union(kernels):
    """The :class:`VocabularyUnion` of ``kernels``, built once and reused while they keep
    their vocabularies (a small cache; a stale entry is rebuilt)."""
    kernels = tuple(kernels)
    key = tuple(map(id, kernels))
    hit = _cache.get(key)
    if hit is not None and hit.is_current(kernels):
        return hit
    if len(_cache) >= _CACHE_SIZE:
        _cache.pop(next(iter(_cache)))
    _cache[key] = union = VocabularyUnion(kernels)
    return union


def merged_columns(vocabularies):
    """Union of vocabularies (arrays of distinct entries): ``(union, maps)`` with ``union``
    sorted and ``maps[v][j]`` the position of ``union[j]`` in ``vocabularies[v]``, or −1."""
    vocabularies = [np.asarray(v) for v in vocabularies]
    union = np.unique(np.concatenate(vocabularies)) if vocabularies else np.zeros(0)
    maps = []
    for v in vocabularies:
        cmap = np.full(len(union), -1, np.int64)
        cmap[np.searchsorted(union, v)] = np.arange(len(v))
        maps.append(cmap)
    return union, maps


def _columns_of(Phi, cmap, width, ordered):
    """The columns of CSR ``Phi`` (sorted indices) that ``cmap`` maps (to ``cmap[j]``), as
    a CSR matrix of ``width`` columns with sorted indices (sorted again unless ``cmap`` is
    ``ordered``: increasing where it maps); ``cmap`` None: a copy of ``Phi``."""
    if cmap is None:
        return Phi.copy()
    new = cmap[Phi.indices]
    keep = new >= 0
    kept = np.concatenate([[0], np.cumsum(keep)])
    X = sp.csr_matrix((Phi.data[keep], new[keep], kept[Phi.indptr]),
                      shape=(Phi.shape[0], width))
    if ordered:
        X.has_sorted_indices = True
    else:
        X.sort_indices()
    return X


def _same_objects(a, b):
    return len(a) == len(b) and all(x is y for x, y in zip(a, b))
