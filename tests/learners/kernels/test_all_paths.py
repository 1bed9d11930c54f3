"""All-paths graph kernel (learners/kernels/all_paths.py) against brute force: walk
enumeration, explicit triple loops over L W Lᵀ, and kernel = dot product of the feature
vectors = the kernel matrix of the base class."""

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import AllPathsKernel, LabelledGraph, gram_matrix
from learners.kernels.all_paths import all_paths_matrix, spectral_radius, topological_order
from tests.all_paths_reference import graph_features

LABELS = list("abcdefg")


def random_graph(rng, n, density=0.3, weight=0.4, acyclic=False, n_labels=3):
    mask = rng.random((n, n)) < density
    np.fill_diagonal(mask, False)
    if acyclic:
        mask = np.triu(mask, 1)
        perm = rng.permutation(n)
        mask = mask[np.ix_(perm, perm)]
    src, dst = np.nonzero(mask)
    w = rng.uniform(0.05, weight, size=len(src))
    labels = [tuple(rng.choice(LABELS, size=rng.integers(1, n_labels + 1), replace=False))
              for _ in range(n)]
    return LabelledGraph(n, np.stack([src, dst], 1), w, labels)


def walk_sum(A, max_len=400):
    """Σ_{k=1..max_len} A^k — truncated Neumann series."""
    total, P = np.zeros_like(A), np.eye(len(A))
    for _ in range(max_len):
        P = P @ A
        total += P
        if np.abs(P).max() < 1e-18:
            break
    return total


def walk_enumeration(A, max_len):
    """Σ over explicit walks (vertex sequences) of length 1..max_len of the weight products."""
    n = len(A)
    W = np.zeros_like(A)
    frontier = {(k,): 1.0 for k in range(n)}
    for _ in range(max_len):
        nxt = {}
        for walk, w in frontier.items():
            for l in np.flatnonzero(A[walk[-1]]):
                nw = w * A[walk[-1], l]
                W[walk[0], l] += nw
                nxt[walk + (l,)] = nw
        frontier = nxt
    return W


@pytest.mark.parametrize("acyclic", [True, False])
def test_W_equals_truncated_power_series(rng, acyclic):
    for _ in range(20):
        g = random_graph(rng, int(rng.integers(2, 14)), acyclic=acyclic)
        A = g.adjacency()
        if spectral_radius(A) >= 0.9:
            A *= 0.5 / spectral_radius(A)
        W, scaled = all_paths_matrix(A)
        assert not scaled
        np.testing.assert_allclose(W, walk_sum(A), rtol=1e-10, atol=1e-13)


def test_W_equals_explicit_walk_enumeration(rng):
    # acyclic graphs have finitely many walks: enumerate them all
    for _ in range(10):
        g = random_graph(rng, 7, density=0.4, acyclic=True)
        A = g.adjacency()
        np.testing.assert_allclose(all_paths_matrix(A)[0], walk_enumeration(A, 7),
                                   rtol=1e-12, atol=1e-15)


def test_topological_order_and_cycles(rng):
    g = random_graph(rng, 10, acyclic=True)
    A = g.adjacency()
    order = topological_order(A)
    pos = np.empty(10, int)
    pos[order] = np.arange(10)
    src, dst = np.nonzero(A)
    assert np.all(pos[src] < pos[dst])
    A[3, 3] = 0.1  # self loop = cycle
    assert topological_order(A) is None


def test_divergent_series_raises_or_scales():
    A = np.array([[0, 1.5], [0.9, 0]])   # ρ = sqrt(1.35) > 1
    with pytest.raises(InvalidInputError, match="spectral radius"):
        all_paths_matrix(A)
    W, scaled = all_paths_matrix(A, on_divergence="scale")
    assert scaled
    B = A * 0.99 / spectral_radius(A)
    np.testing.assert_allclose(W, np.linalg.inv(np.eye(2) - B) - np.eye(2))
    with pytest.raises(InvalidInputError):
        all_paths_matrix(-A)


def explicit_G(g, variant):
    """Triple loop over (i, j) label pairs and vertex pairs (k, l): the definitions."""
    W = walk_sum(g.adjacency())
    G = {}
    for k, l in itertools.product(range(g.n_vertices), repeat=2):
        if W[k, l] <= 0:
            continue
        for i in g.labels[k]:
            for j in g.labels[l]:
                if variant == "sum":
                    G[i, j] = G.get((i, j), 0.0) + W[k, l]
                else:
                    G[i, j] = max(G.get((i, j), 0.0), W[k, l])
    return G


@pytest.mark.parametrize("variant", ["max", "sum"])
def test_G_against_explicit_triple_loop(rng, variant):
    for _ in range(15):
        g = random_graph(rng, int(rng.integers(2, 10)), acyclic=bool(rng.integers(2)))
        got = graph_features(g, variant)
        want = explicit_G(g, variant)
        assert set(got) == set(want)
        for key, value in want.items():
            assert got[key] == pytest.approx(value, rel=1e-10)


def test_sum_variant_is_L_W_Lt(rng):
    g = random_graph(rng, 8)
    W, _ = all_paths_matrix(g.adjacency())
    L = np.zeros((len(LABELS), g.n_vertices))
    for v, labs in enumerate(g.labels):
        for x in labs:
            L[LABELS.index(x), v] = 1
    G = L @ W @ L.T
    got = graph_features(g, "sum")
    for i, j in zip(*np.nonzero(G)):
        assert got[LABELS[i], LABELS[j]] == pytest.approx(G[i, j], rel=1e-10)
    assert len(got) == np.count_nonzero(G)


@pytest.mark.parametrize("variant", ["max", "sum"])
@pytest.mark.parametrize("normalize", [False, True])
def test_kernel_is_dot_product_of_feature_vectors(rng, variant, normalize):
    graphs = [random_graph(rng, int(rng.integers(2, 9))) for _ in range(12)]
    kernel = AllPathsKernel(variant, normalize=normalize)
    X = kernel.fit_features(graphs)
    Gs = [explicit_G(g, variant) for g in graphs]

    def k(a, b):
        return sum(v * b.get(key, 0.0) for key, v in a.items())

    K = np.array([[k(a, b) for b in Gs] for a in Gs])
    if normalize:
        d = np.sqrt(np.diag(K))
        K = K / np.outer(d, d)
    np.testing.assert_allclose((X @ X.T).toarray(), K, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(gram_matrix(X, dense_columns=3), K, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(gram_matrix(X, dense_columns=0), K, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(kernel.fit_transform(graphs), K, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(kernel.transform(graphs[:5]), K[:5], rtol=1e-10, atol=1e-14)


def test_disjoint_union_instance(rng):
    g1, g2 = random_graph(rng, 5), random_graph(rng, 4)
    union = LabelledGraph(9, np.vstack([g1.edges, np.asarray(g2.edges) + 5]),
                          np.concatenate([g1.weights, g2.weights]), g1.labels + g2.labels)
    for variant in ("max", "sum"):
        v = AllPathsKernel(variant, normalize=False)
        X = v.fit_features([[g1, g2], union])
        np.testing.assert_allclose(X[0].toarray(), X[1].toarray(), rtol=1e-12)


def test_vocabulary_from_training_graphs_gives_the_same_kernel(rng):
    """Test rows built with a train-only vocabulary give the same kernel with the training
    rows as rows built with a joint vocabulary (normalization uses the full G)."""
    train = [random_graph(rng, 6) for _ in range(8)]
    test = [random_graph(rng, 6, n_labels=3) for _ in range(5)]
    v = AllPathsKernel("max")
    Xtr = v.fit_features(train)
    n_labels = len(v.labels_)
    Xte = v.features(test)
    assert len(v.labels_) == n_labels   # transform does not grow the model
    joint = AllPathsKernel("max").fit_features(train + test)
    np.testing.assert_allclose((Xte @ Xtr.T).toarray(), (joint[8:] @ joint[:8].T).toarray(),
                               rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(v.transform(test), (joint[8:] @ joint[:8].T).toarray(),
                               rtol=1e-12, atol=1e-15)


def test_hashing_without_collisions_equals_vocabulary(rng):
    graphs = [random_graph(rng, 6) for _ in range(6)]
    for variant in ("max", "sum"):
        Xv = AllPathsKernel(variant).fit_features(graphs)
        Xh = AllPathsKernel(variant, n_features=2 ** 22).fit_features(graphs)
        np.testing.assert_allclose((Xv @ Xv.T).toarray(), (Xh @ Xh.T).toarray(), rtol=1e-12)
        assert sp.issparse(Xh) and Xh.shape[1] == 2 ** 22


def test_parameters_are_validated(rng):
    g = random_graph(rng, 4)
    with pytest.raises(InvalidParameterError, match="'variant'"):
        AllPathsKernel(variant="mean").fit([g])
    with pytest.raises(InvalidParameterError, match="not fitted"):
        AllPathsKernel().transform([g])
    with pytest.raises(InvalidParameterError, match="not fitted"):
        AllPathsKernel().features([g])
    with pytest.raises(InvalidParameterError, match="varient"):
        AllPathsKernel().set_params(varient="max")
    with pytest.raises(InvalidParameterError, match="'n_features'"):
        AllPathsKernel(n_features=0).fit([g])
    with pytest.raises(InvalidParameterError, match="'min_weight'"):
        AllPathsKernel(min_weight=-1.0).fit([g])


def test_upper_triangular_fast_path(rng):
    # vertices already in topological order: the unit-triangular inverse is used
    for _ in range(10):
        n = int(rng.integers(2, 12))
        A = np.triu(rng.uniform(0.1, 0.9, (n, n)) * (rng.random((n, n)) < 0.5), 1)
        np.testing.assert_allclose(all_paths_matrix(A)[0], walk_sum(A), rtol=1e-10,
                                   atol=1e-13)


@pytest.mark.parametrize("variant", ["max", "sum"])
@pytest.mark.parametrize("n_features", [None, 2 ** 20])
def test_chunked_featurization_equals_one_batch(rng, monkeypatch, variant, n_features):
    """Graphs are featurized CHUNK at a time (memory bound): any chunk size, a generator
    as input, fit and transform alike, give the rows of one batch."""
    import learners.kernels.all_paths.batches as module

    train = [random_graph(rng, int(rng.integers(2, 8))) for _ in range(23)]
    test = [random_graph(rng, 6, n_labels=3) for _ in range(9)]
    one = AllPathsKernel(variant, n_features=n_features)
    X1, T1 = one.fit_features(train), one.features(test)
    for chunk in (1, 4, 7):
        monkeypatch.setattr(module, "CHUNK", chunk)
        k = AllPathsKernel(variant, n_features=n_features)
        X = k.fit_features(g for g in train)
        T = k.features(iter(test))
        assert (X != X1).nnz == 0 and (T != T1).nnz == 0
        np.testing.assert_array_equal(X.indices, X1.indices)


@pytest.mark.parametrize("dense_columns", [None, 0, 2])
def test_gram_matrix_in_row_blocks_equals_the_product(rng, monkeypatch, dense_columns):
    """The sparse part of gram_matrix runs SPARSE_BLOCK rows at a time (memory bound)."""
    import learners.kernels.sparse_gram as sparse_gram

    X = sp.random(37, 50, density=0.2, random_state=1, format="csr")
    Z = sp.random(23, 50, density=0.3, random_state=2, format="csr")
    for block in (1, 5, 1024):
        monkeypatch.setattr(sparse_gram, "SPARSE_BLOCK", block)
        np.testing.assert_allclose(gram_matrix(X, Z, dense_columns=dense_columns),
                                   (X @ Z.T).toarray(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(gram_matrix(X, dense_columns=dense_columns),
                                   (X @ X.T).toarray(), rtol=1e-13, atol=1e-15)
