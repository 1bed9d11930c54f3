"""The all-paths featurization at extraction speed, tested against the straightforward
computation bit for bit:

* the ``max`` aggregation without expanding the label-pair terms (``max_label_pairs``, one
  W per distinct adjacency; the kernel's one route) against the expand-and-sort oracle of
  ``tests/all_paths_reference.py``;
* several kernels fed one pass over the same graphs (``AllPathsKernel.features_shared``)
  against each kernel on its own;
* a multi-view model's views of identical inputs (two parse names holding spaCy's one
  analysis) computed once, in the union of their vocabularies, against the views computed
  one by one (the same entries; values up to the summation order of the all-paths norms);
* the pair graphs built from the sentence structure's shared arrays against the former
  construction pass by pass, and the structure's breadth-first distances against scipy.
"""

import dataclasses
import itertools

import numpy as np
import pytest
from sklearn.base import clone

from corpora.ppi_xml import Corpus, Document, Pair, Parse, Tokenization, read_corpus
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import AllPathsKernel, LabelledGraph
from ppi.representation.features import iter_corpus_graphs, same_analyses
from ppi.representation.graphs import (PROT1, PROT2, GraphSettings, SentenceStructure, structure_pair_graphs,
                        sentence_graphs)
from ppi.names import corpus_path
from ppi.representation.views import DEFAULT_VIEWS, MultiViewFeaturizer
from tests.all_paths_reference import ReferenceAllPathsKernel


def assert_same_rows(A, B):
    """Bit for bit: shape, structure, index dtype and the float bits of every value."""
    A, B = A.tocsr(), B.tocsr()
    assert A.shape == B.shape
    assert A.indices.dtype == B.indices.dtype
    assert np.array_equal(A.indptr, B.indptr)
    assert np.array_equal(A.indices, B.indices)
    assert np.array_equal(A.data.view(np.int64), B.data.view(np.int64))


def _reference(kernel):
    """The expand-and-sort oracle with ``kernel``'s parameters."""
    return ReferenceAllPathsKernel(**kernel.get_params())


def _random_instances(rng, count, labels):
    """Single graphs and two-graph instances: general, chains (triangular), divergent
    (scaled), one-vertex; repeated adjacencies with other labels; several labels
    per vertex, repeated labels, vertices without labels."""
    out = []
    chain_cache = {}
    for _ in range(count):
        inst = []
        for _ in range(int(rng.integers(1, 3))):
            n = int(rng.choice([1, 2, 5, 8, 12]))
            kind = rng.integers(4)
            if kind == 0 and n > 1:                        # a chain, reused adjacency
                e, w = chain_cache.setdefault(n, (np.stack([np.arange(n - 1),
                                                            np.arange(1, n)], 1),
                                                  np.full(n - 1, 0.9)))
            else:
                m = int(rng.integers(0, 3 * n + 1))
                e = rng.integers(0, max(n, 1), size=(m, 2)) if n else np.zeros((0, 2), int)
                w = rng.choice([0.3, 0.9], size=m) * (3.0 if kind == 1 else 1.0)
            labs = [tuple(rng.choice(labels, size=int(rng.integers(0, 4))))
                    for _ in range(n)]
            inst.append(LabelledGraph(n, e, w, labs))
        out.append(inst if len(inst) > 1 or rng.random() < 0.5 else inst[0])
    return out


@pytest.mark.parametrize("n_features", [None, 97])
@pytest.mark.parametrize("min_weight", [0.0, 1e-5, 0.05])
@pytest.mark.slow
def test_fast_max_equals_general_path_random_graphs(rng, n_features, min_weight):
    train = _random_instances(rng, 120, [f"a{i}" for i in range(12)])
    test = _random_instances(rng, 150, [f"a{i}" for i in range(20)])   # unseen labels
    fast = AllPathsKernel(min_weight=min_weight, n_features=n_features,
                          on_divergence="scale")
    ref = _reference(fast)
    assert_same_rows(fast.fit_features(train), ref.fit_features(train))
    assert fast.labels_ == ref.labels_
    assert fast.n_scaled_ == ref.n_scaled_ > 0
    if n_features is None:
        assert np.array_equal(fast.pair_codes_, ref.pair_codes_)
    labels = list(fast.labels_)
    for chunk in (1000, 7):                # one chunk, and chunks that split the input
        import learners.kernels.all_paths.batches as ap
        old = ap.CHUNK
        ap.CHUNK = chunk
        try:
            assert_same_rows(fast.features(test), ref.features(test))
            assert np.array_equal(fast.self_kernel(test).view(np.int64),
                                  ref.self_kernel(test).view(np.int64))
        finally:
            ap.CHUNK = old
        assert fast.n_scaled_ == ref.n_scaled_
        assert fast.labels_ == labels       # labels first seen by transform are dropped


def test_fast_max_handles_graphless_instances_and_refuses_mismatched_labels():
    k = AllPathsKernel().fit([LabelledGraph(2, [[0, 1]], [0.5], [("a",), ("b",)])])
    assert k.features([]).shape == (0, 1)
    g = LabelledGraph(3, [[0, 1], [1, 2]], [0.5, 0.5], [("a",), (), ("a", "b")])
    ref = _reference(k).fit([LabelledGraph(2, [[0, 1]], [0.5], [("a",), ("b",)])])
    assert_same_rows(k.features([[], g, []]), ref.features([[], g, []]))   # no graph: 0 row
    # labels that do not match the vertices: refused (one label tuple per vertex)
    bad = LabelledGraph(2, [[0, 1]], [0.5], [("a",), ("b",), ("c",)])
    with pytest.raises(InvalidInputError, match="label tuples"):
        k.features([bad])


@pytest.fixture(scope="module")
def lll(data_dir):
    return read_corpus(corpus_path(data_dir, "LLL"))


@pytest.fixture(scope="module")
def hprd50(data_dir):
    return read_corpus(corpus_path(data_dir, "HPRD50"))


@pytest.mark.parametrize("parse", ["split_parse", "Charniak-Lease"])
@pytest.mark.slow
def test_fast_max_equals_general_path_on_ppi_pairs(lll, hprd50, parse):
    """The pair graphs of every pair of LLL (fit) and HPRD50 (many label pairs unseen):
    the kernel's graph route against the oracle (the compiled route of :mod:`ppi.representation.pair_rows`
    is tested against the graph route in tests/ppi/test_pair_rows.py)."""
    settings = GraphSettings(order="text")
    fast = AllPathsKernel(min_weight=1e-5, on_divergence="scale")
    ref = _reference(fast)
    assert_same_rows(fast.fit_features(iter_corpus_graphs(lll, parse, settings)),
                     ref.fit_features(iter_corpus_graphs(lll, parse, settings)))
    assert np.array_equal(fast.pair_codes_, ref.pair_codes_)
    X = fast.features(iter_corpus_graphs(hprd50, parse, settings))
    assert_same_rows(X, ref.features(iter_corpus_graphs(hprd50, parse, settings)))
    assert X.nnz > 10_000


def test_features_shared_equals_each_kernel_alone(rng):
    labels = [f"a{i}" for i in range(15)]
    k1 = AllPathsKernel(on_divergence="scale").fit(_random_instances(rng, 60, labels))
    k2 = AllPathsKernel(on_divergence="scale").fit(_random_instances(rng, 60, labels[5:]))
    test = _random_instances(rng, 100, labels + ["new"])
    shared = AllPathsKernel.features_shared([k1, k2], iter(test))  # one pass, a generator
    for k, X in zip((k1, k2), shared):
        assert_same_rows(X, k.features(test))
    for k in (k1, k2):                 # the general path (sum variant) is shared too
        k.set_params(variant="sum")
    shared = AllPathsKernel.features_shared([k1, k2], test)
    for k, X in zip((k1, k2), shared):
        assert_same_rows(X, k.features(test))
    with pytest.raises(InvalidParameterError):
        AllPathsKernel.features_shared([k1, clone(k2).set_params(min_weight=0.1)], test)


def _aliased(corpus):
    """The corpus with its Charniak-Lease analysis replaced by the very same token and
    dependency lists as its split parse — what raw text parsed by spaCy looks like."""
    docs = []
    for d in corpus.documents:
        sents = []
        for s in d.sentences:
            toks, deps = s.analysis("split_parse")
            sents.append(dataclasses.replace(
                s, tokenizations={**s.tokenizations,
                                  "Charniak-Lease": Tokenization("Charniak-Lease", toks)},
                parses={**s.parses, "Charniak-Lease": Parse("Charniak-Lease",
                                                            "Charniak-Lease", deps)}))
        docs.append(Document(d.id, sents))
    return Corpus(corpus.source, docs)


@pytest.mark.slow
def test_multiview_views_of_identical_inputs_computed_once(lll, hprd50, monkeypatch):
    f = MultiViewFeaturizer(DEFAULT_VIEWS, settings=GraphSettings(order="text"))
    f.fit_transform([lll])
    assert f._shared_groups([hprd50]) == []                 # two real parses: distinct
    aliased = _aliased(hprd50)
    assert same_analyses([aliased], "split_parse", "Charniak-Lease")
    assert not same_analyses([aliased], "split_parse", "no such parse")
    assert f._shared_groups([aliased]) == [["apg:split_parse", "apg:Charniak-Lease"],
                                           ["path:split_parse", "path:Charniak-Lease"]]
    (shared,) = f.transform([aliased])
    calls = []
    monkeypatch.setattr(MultiViewFeaturizer, "_shared_groups",
                        lambda self, corpora: calls.append(1) or [])
    (alone,) = f.transform([aliased])
    assert calls
    A, B = shared.X, alone.X
    assert np.array_equal(A.indptr, B.indptr) and np.array_equal(A.indices, B.indices)
    np.testing.assert_allclose(A.data, B.data, rtol=1e-14, atol=0)
    assert shared.X.nnz > 10_000


def _assert_scores_without_rows_equal_decision_function(fitted, hprd50, tmp_path):
    """``model.scores`` against ``model.decision_function`` for the fitted and the saved
    and loaded model, on real parses of HPRD50 (no shared views) and spaCy-like aliased
    ones (both all-paths and both path views shared).  Returns the loaded model."""
    from ppi.models.classes import PPIModel

    loaded = PPIModel.load(fitted.save(tmp_path / "model"))
    for model in (fitted, loaded):
        for corpus in (hprd50, _aliased(hprd50)):
            _, want = model.decision_function(corpus)
            got = model.scores(corpus)
            assert got.shape == want.shape == (sum(len(s.pairs) for s in
                                                   corpus.sentences()),)
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
            assert np.abs(want).max() > 0.1
    return loaded


@pytest.mark.parametrize("n_features", [None, 2 ** 12])
@pytest.mark.slow
def test_model_scores_without_rows_equal_rows_times_weights(lll, hprd50, tmp_path,
                                                            n_features):
    """``PPIModel.scores`` (views of identical inputs scored from their vocabularies'
    union with merged weights) against ``decision_function`` (every view's rows, then
    ``X @ w``)."""
    from ppi.models.classes import MultiViewModel

    f = MultiViewFeaturizer(DEFAULT_VIEWS, settings=GraphSettings(order="text"),
                            n_features=n_features)
    (train,) = f.fit_transform([lll])
    w = np.random.default_rng(0).normal(size=train.X.shape[1])
    _assert_scores_without_rows_equal_decision_function(
        MultiViewModel(f, w, alpha=1.0, threshold=0.0), hprd50, tmp_path)
    with pytest.raises(InvalidParameterError, match="weights"):
        f.scores([hprd50], w[:-1])


@pytest.mark.parametrize("n_features", [None, 2 ** 12])
@pytest.mark.slow
def test_gaussian_model_scores_without_rows_equal_its_decision_function(lll, hprd50,
                                                                        tmp_path, n_features):
    """A Gaussian model's ``scores`` (inner products with the basis from the union's rows
    and the basis rows merged into its columns) against ``decision_function`` (every
    view's rows, ``X @ Bᵀ``); the inner products themselves against ``X @ Bᵀ``."""
    from ppi.models.classes import GaussianModel

    f = MultiViewFeaturizer(DEFAULT_VIEWS, settings=GraphSettings(order="text"),
                            n_features=n_features)
    (train,) = f.fit_transform([lll])
    rng = np.random.default_rng(1)
    rows = np.sort(rng.choice(train.X.shape[0], 120, replace=False))
    fitted = GaussianModel(f, alpha=1.0, threshold=0.0, basis=train.X[rows],
                           dual_coef=rng.normal(size=len(rows)), gamma=0.7)
    loaded = _assert_scores_without_rows_equal_decision_function(fitted, hprd50, tmp_path)
    aliased = _aliased(hprd50)
    (data,) = loaded.featurizer.transform([aliased])
    np.testing.assert_allclose(loaded.featurizer.scores([aliased], loaded._basis_t)[0],
                               (data.X @ loaded.basis.T).toarray(), rtol=1e-10, atol=1e-13)


# ------------------------------------------------------------------ pair graphs, BFS
def _reference_pair_graphs(st, pair, settings):
    """The pair graph construction by one Python pass per pair over the dependencies and
    tokens: the reference of the vectorized one in ppi/representation/graphs.py."""
    s = settings
    toks1, toks2 = st.pair_tokens(pair, s.order)
    n, deps = st.n, st.deps
    on_path = st.path_dependencies(*st.endpoints(toks1, toks2, s.endpoints))
    texts = st.blinded_texts(toks1, toks2)
    pos = [t.pos for t in st.tokens]
    token_on_path = np.zeros(n, bool)
    dep_labels, edges, weights = [], [], []
    for j, (t1, t2, typ) in enumerate(deps):
        hit = j in on_path
        w = s.path_weight if hit else s.other_weight
        edges += [(t1, n + j), (n + j, t2)]
        weights += [w, w]
        dep_labels.append((s.path_prefix + typ,) if hit else (typ,))
        if hit:
            token_on_path[t1] = token_on_path[t2] = True
    tok_labels = [((s.path_prefix + texts[i], s.path_prefix + pos[i]) if token_on_path[i]
                   else (texts[i], pos[i])) for i in range(n)]
    dep_graph = LabelledGraph(n + len(deps), np.array(edges, dtype=np.intp).reshape(-1, 2),
                              np.array(weights, dtype=float), tok_labels + dep_labels)
    first, last = min(toks1), max(toks2)
    lin_labels = []
    for i in range(n):
        if texts[i] in (PROT1, PROT2):
            tag = "M_"
        elif i < first:
            tag = "B_"
        elif i > last:
            tag = "A_"
        else:
            tag = "M_"
        lin_labels.append((tag + texts[i], tag + pos[i]))
    lin_edges = np.stack([np.arange(n - 1), np.arange(1, n)], axis=1) if n > 1 else \
        np.zeros((0, 2), np.intp)
    lin_graph = LabelledGraph(n, lin_edges, np.full(len(lin_edges), s.linear_weight),
                              lin_labels)
    return [dep_graph, lin_graph]


def assert_same_graph(a, b):
    assert a.n_vertices == b.n_vertices
    ea, eb = np.asarray(a.edges), np.asarray(b.edges)
    assert ea.dtype == eb.dtype and ea.shape == eb.shape and np.array_equal(ea, eb)
    wa, wb = np.asarray(a.weights), np.asarray(b.weights)
    assert wa.dtype == wb.dtype and np.array_equal(wa.view(np.int64), wb.view(np.int64))
    assert [tuple(x) for x in a.labels] == [tuple(x) for x in b.labels]


SETTINGS = [GraphSettings(), GraphSettings(order="text"),
            GraphSettings(order="text", endpoints="head"),
            GraphSettings(path_weight=1, other_weight=0.25, linear_weight=0.5,
                          path_prefix="P:", remove_types=())]


@pytest.mark.parametrize("parse", ["split_parse", "Charniak-Lease"])
@pytest.mark.slow
def test_pair_graphs_equal_reference_on_ppi_pairs(lll, hprd50, parse):
    checked = 0
    for corpus in (lll, hprd50):
        for doc in corpus.documents:
            for s in doc.sentences:
                for settings in SETTINGS:
                    for pair, graphs in sentence_graphs(s, parse, settings):
                        ref = _reference_pair_graphs(SentenceStructure(s, parse, settings),
                                                     pair, settings)
                        for a, b in zip(graphs, ref):
                            assert_same_graph(a, b)
                        checked += 1
    assert checked > 3000


def test_pair_graphs_and_bfs_on_random_sentences():
    """Disconnected, dense, self-loop and parallel dependencies, overlapping entities."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import shortest_path

    from tests.ppi.test_fast_paths import _random_sentence

    rng = np.random.default_rng(5)
    for _ in range(200):
        n = int(rng.integers(2, 25))
        s = _random_sentence(rng, n, int(rng.integers(0, 3 * n)))
        s = dataclasses.replace(s, pairs=[Pair(f"p{i}", a.id, b.id, False)
                                          for i, (a, b) in enumerate(
                                              itertools.combinations(s.entities, 2))])
        for settings in SETTINGS:
            st = SentenceStructure(s, "split_parse", settings)
            for pair in s.pairs:
                for a, b in zip(structure_pair_graphs(st, pair, settings),
                                _reference_pair_graphs(st, pair, settings)):
                    assert_same_graph(a, b)
            m = len(st.deps)
            src = [t1 for t1, _, _ in st.deps] + list(range(n, n + m))
            dst = list(range(n, n + m)) + [t2 for _, t2, _ in st.deps]
            A = csr_matrix((np.ones(len(src)), (src, dst)), shape=(n + m, n + m))
            toks = list(range(n))
            assert np.array_equal(st.distances(toks), shortest_path(
                A, method="D", directed=False, unweighted=True, indices=toks))
            with pytest.raises(ValueError):
                st.distances(toks)[0, 0] = 1.0       # cached rows are read-only
