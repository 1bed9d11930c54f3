"""learners/kernels/vocabulary_union.py: the rows of several kernels that differ only in
their vocabularies, computed once in the union of the vocabularies and cut per kernel, are
each kernel's own ``features`` — all-paths (vocabulary and hashing, max and sum: the same
columns and entries, values equal up to the order in which ``‖G‖²`` is summed, which
follows the label ids) and bag-of-features kernels (bit for bit: integer counts); the union
is cached while the vocabularies stay and rebuilt after a refit."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from kernelrank.errors import InvalidParameterError
from learners.kernels import AllPathsKernel, LabelledGraph
from learners.kernels.bag import BagOfFeaturesKernel
from learners.kernels.vocabulary_union import (VocabularyUnion, merged_columns,
                                               vocabulary_union)


def assert_same_rows(A, B):
    """Bit for bit: shape, structure and the float bits of every value."""
    A, B = A.tocsr(), B.tocsr()
    assert A.shape == B.shape
    assert np.array_equal(A.indptr, B.indptr)
    assert np.array_equal(A.indices, B.indices)
    assert np.array_equal(A.data.view(np.int64), B.data.view(np.int64))


def assert_close_rows(A, B):
    """The same structure; values within 1e-14 relative (the norm ‖G‖² summed in another
    order of the label pairs)."""
    A, B = A.tocsr(), B.tocsr()
    assert A.shape == B.shape
    assert np.array_equal(A.indptr, B.indptr)
    assert np.array_equal(A.indices, B.indices)
    np.testing.assert_allclose(A.data, B.data, rtol=1e-14, atol=0)


def _graphs(rng, count, labels):
    """Random labelled DAGs (and a few cyclic, weights < 1/n) with 0–3 labels per vertex,
    single graphs and two-graph instances."""
    out = []
    for _ in range(count):
        inst = []
        for _ in range(int(rng.integers(1, 3))):
            n = int(rng.integers(1, 9))
            m = int(rng.integers(0, 2 * n + 1))
            e = rng.integers(0, n, size=(m, 2))
            w = rng.uniform(0.01, 0.9 / n, size=m)
            labs = [tuple(rng.choice(labels, size=int(rng.integers(0, 4))))
                    for _ in range(n)]
            inst.append(LabelledGraph(n, e, w, labs))
        out.append(inst if len(inst) > 1 else inst[0])
    return out


def _bags(rng, count, words):
    return [list(rng.choice(words, size=int(rng.integers(0, 12)))) for _ in range(count)]


@pytest.mark.parametrize("variant", ["max", "sum"])
@pytest.mark.parametrize("n_features", [None, 97])
def test_all_paths_union_rows_equal_each_kernels_own(rng, variant, n_features):
    labels = [f"l{i}" for i in range(20)]
    params = dict(variant=variant, n_features=n_features, min_weight=1e-5,
                  on_divergence="scale")
    kernels = [AllPathsKernel(**params).fit(_graphs(rng, 40, labels[a:b]))
               for a, b in ((0, 12), (6, 20), (0, 20))]
    test = _graphs(rng, 80, labels + ["unseen", "other"])
    union = VocabularyUnion(kernels)
    if n_features is None:             # the union holds every kernel's label pairs
        assert len(union.union.pair_codes_) > max(len(k.pair_codes_) for k in kernels)
        assert all(len(k.pair_codes_) == (m >= 0).sum()
                   for k, m in zip(kernels, union.column_maps))
    rows = union.split(*union.union._feature_map(test, False))
    for k, X in zip(kernels, rows):
        assert_close_rows(X, k.features(test))
    assert rows[0].nnz > 100
    # the kernels are unchanged (no label of the test graphs kept)
    assert all(len(k.labels_) < len(labels) + 2 for k in kernels)


def test_bag_union_rows_equal_each_kernels_own(rng):
    words = [f"w{i}" for i in range(30)]
    kernels = [BagOfFeaturesKernel().fit(_bags(rng, 30, words[a:b]))
               for a, b in ((0, 15), (10, 30))]
    kernels.append(BagOfFeaturesKernel().fit([[]]))        # empty vocabulary: one column
    assert len(kernels[2].vocabulary_) == 0
    test = _bags(rng, 60, words + ["new"]) + [[]]
    union = VocabularyUnion(kernels)
    assert list(union.union.vocabulary_) == sorted(set(words))
    rows = union.split(*union.union._feature_map(test, False))
    for k, X in zip(kernels, rows):
        assert_same_rows(X, k.features(test))
    assert rows[2].shape == (len(test), 1) and rows[2].nnz == 0


def test_union_is_cached_until_a_refit(rng):
    words = [f"w{i}" for i in range(10)]
    a = BagOfFeaturesKernel().fit(_bags(rng, 10, words[:6]))
    b = BagOfFeaturesKernel().fit(_bags(rng, 10, words[4:]))
    first = vocabulary_union([a, b])
    assert vocabulary_union([a, b]) is first
    b.fit(_bags(rng, 10, words + ["more"]))
    second = vocabulary_union([a, b])
    assert second is not first and "more" in set(second.union.vocabulary_)
    test = _bags(rng, 20, words + ["more"])
    for k, X in zip((a, b), second.split(*second.union._feature_map(test, False))):
        assert_same_rows(X, k.features(test))


def test_union_refuses_kernels_that_differ_beyond_the_vocabulary(rng):
    graphs = _graphs(rng, 10, list("abc"))
    k = AllPathsKernel().fit(graphs)
    with pytest.raises(InvalidParameterError, match="parameters"):
        VocabularyUnion([k, clone(k).set_params(min_weight=0.1).fit(graphs)])
    with pytest.raises(InvalidParameterError, match="class"):
        VocabularyUnion([k, BagOfFeaturesKernel().fit([["a"]])])
    with pytest.raises(InvalidParameterError, match="not fitted"):
        VocabularyUnion([k, clone(k)])


def test_merged_columns_maps_each_vocabulary_into_the_union():
    union, maps = merged_columns([np.array([2, 5, 9]), np.array([1, 5, 7, 9])])
    assert union.tolist() == [1, 2, 5, 7, 9]
    assert maps[0].tolist() == [-1, 0, 1, -1, 2]
    assert maps[1].tolist() == [0, -1, 1, 2, 3]


def test_merged_weights_of_a_matrix_are_the_merged_columns(rng):
    """Blocks of r models at once (sparse or dense, columns × r) merge column by column as
    r vectors do, and score the union's rows as each kernel's rows score with its block."""
    words = [f"w{i}" for i in range(30)]
    kernels = [BagOfFeaturesKernel().fit(_bags(rng, 30, words[a:b]))
               for a, b in ((0, 15), (10, 30))]
    instances = _bags(rng, 40, words + ["new"])
    union = VocabularyUnion(kernels)
    blocks = [sp.random(k.n_columns(), 5, density=0.3, random_state=1, format="csr")
              for k in kernels]
    merged = union.merged_weights(blocks)
    assert sp.issparse(merged) and merged.shape == (union.union.n_columns(), 5)
    dense = union.merged_weights([b.toarray() for b in blocks])
    np.testing.assert_allclose(dense, merged.toarray(), rtol=1e-15)
    for j in range(5):
        np.testing.assert_allclose(
            merged[:, [j]].toarray().ravel(),
            union.merged_weights([b[:, [j]].toarray().ravel() for b in blocks]), rtol=1e-15)
    Phi, self_kernel = union.union._feature_map(instances, False)
    got = (union.union.rows_of_map(Phi, self_kernel) @ merged).toarray()
    want = sum((k.features(instances) @ b).toarray() for k, b in zip(kernels, blocks))
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)

