"""The compiled route of :mod:`ppi.representation.pair_rows` (the one route of
``fit_transform`` and ``transform`` alike) against the kernel's route through the pair
graphs (``LabelledGraph`` objects, an LU inverse per adjacency): the same label table and
vocabulary, and the same rows up to round-off — the same columns in every row and values
within 1e-12 relative — on every pair of real corpora under every graph setting, and on
random sentences whose dependency graphs are trees, DAGs with shared dependents, or cyclic
(those pairs take the graph route); plus the pieces it is made of.  A linear model's scores
without the rows (:meth:`ppi.representation.features.PairFeaturizer.union_scores`) against
the graph route's rows times the weights, on the same pairs."""

import dataclasses
import itertools

import numpy as np
import pytest
from sklearn.base import clone

import ppi.representation.features
from corpora.ppi_xml import Corpus, Dependency, Document, Pair, Parse, read_corpus
from learners.kernels import AllPathsKernel
from learners.kernels.all_paths import kernel as all_paths_kernel
from learners.kernels.all_paths import all_paths_matrix, dag_walk_sums
from kernelrank.errors import InvalidParameterError
from learners.kernels.all_paths.label_pairs import (_lower_bound, append_entries,
                                                    dense_weight_rows, dot_entries)
from ppi.representation.features import PairFeaturizer, iter_corpus_graphs
from ppi.representation.graphs import GraphSettings, _overlaps, entity_tokens
from ppi.names import corpus_path
from tests.ppi.test_fast_paths import _random_sentence

SETTINGS = [GraphSettings(), GraphSettings(order="text"),
            GraphSettings(order="text", endpoints="head"),
            GraphSettings(path_weight=1, other_weight=0.25, linear_weight=0.5,
                          path_prefix="P:", remove_types=())]


def assert_close_rows(A, B):
    """The same columns in every row, values within 1e-12 relative."""
    A, B = A.tocsr(), B.tocsr()
    A.sort_indices(), B.sort_indices()
    assert A.shape == B.shape
    assert np.array_equal(A.indptr, B.indptr)
    assert np.array_equal(A.indices, B.indices)
    np.testing.assert_allclose(A.data, B.data, rtol=1e-12, atol=0)


def _graph_rows(featurizer, corpus, fit=False):
    """The rows of ``corpus``' pair graphs by the featurizer's kernel (the graph route; with
    ``fit`` a copy fitted on them, returned too)."""
    graphs = iter_corpus_graphs(corpus, featurizer.parse, featurizer.settings)
    if fit:
        kernel = clone(featurizer.vectorizer)
        return kernel.fit_features(graphs), kernel
    return featurizer.vectorizer.features(graphs)


def _both(featurizer, corpora):
    """``transform`` (the compiled route), and the same rows through the pair graphs."""
    compiled = featurizer.transform(corpora)
    return compiled, [dataclasses.replace(c, X=_graph_rows(featurizer, corpus))
                      for c, corpus in zip(compiled, corpora)]


def _assert_fit_equals_graph_fit(featurizer, corpus, rows, min_weight=None):
    """``fit_transform``'s ``rows``: bit for bit its own ``transform``'s (one route), and the
    label table, vocabulary and rows (up to round-off) of a fit on the pair graphs."""
    (again,) = featurizer.transform([corpus])
    assert_close_rows(rows, again.X)
    assert np.array_equal(rows.data.view(np.int64), again.X.data.view(np.int64))
    X, kernel = _graph_rows(featurizer, corpus, fit=True)
    assert featurizer.vectorizer.labels_ == kernel.labels_
    if featurizer.vectorizer.n_features is None:
        assert np.array_equal(featurizer.vectorizer.pair_codes_, kernel.pair_codes_)
    if min_weight == 0.0:     # the inverse's residues (≈ 1e-17) where no walk exists
        np.testing.assert_allclose(rows.toarray(), X.toarray(), rtol=1e-12, atol=1e-15)
    else:
        assert_close_rows(rows, X)


@pytest.fixture(scope="module")
def corpora(data_dir):
    return {name: read_corpus(corpus_path(data_dir, name)) for name in ("LLL", "HPRD50")}


@pytest.mark.parametrize("parse", ["split_parse", "Charniak-Lease"])
@pytest.mark.parametrize("settings", SETTINGS, ids=["paper", "text", "head", "custom"])
@pytest.mark.slow
def test_compiled_route_equals_graph_route_on_ppi_pairs(corpora, parse, settings):
    """Fit on LLL (the fit on the graphs' labels and vocabulary), transform HPRD50 (many
    unseen labels) and LLL itself."""
    f = PairFeaturizer(parse=parse, settings=settings, min_weight=1e-5)
    (fitted,) = f.fit_transform([corpora["LLL"]])
    _assert_fit_equals_graph_fit(f, corpora["LLL"], fitted.X)
    labels = list(f.vectorizer.labels_)
    assert f.compiled
    compiled, graphs = _both(f, [corpora["HPRD50"], corpora["LLL"]])
    for a, b in zip(compiled, graphs):
        assert_close_rows(a.X, b.X)
        assert a.X.nnz > 5_000
        assert np.array_equal(a.pair_ids, b.pair_ids)
    assert f.vectorizer.labels_ == labels          # temporary labels dropped again
    _assert_scores_equal_rows_times_weights(f, [corpora["HPRD50"], corpora["LLL"]], graphs)
    assert f.vectorizer.labels_ == labels


def _assert_scores_equal_rows_times_weights(featurizer, corpora, graph_sets):
    """``union_scores`` (no rows) against the graph route's rows times random weights."""
    w = np.random.default_rng(5).normal(size=featurizer.vectorizer.n_columns())
    want = np.concatenate([d.X @ w for d in graph_sets])
    assert np.abs(want).max() > 0.1
    for budget in (0, 1 << 14, 1 << 24):            # no, some, every first label dense
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(all_paths_kernel, "DENSE_WEIGHT_BYTES", budget)
            got = PairFeaturizer.union_scores([featurizer], corpora, w)
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)
    per_corpus = featurizer.scores(corpora, w)          # a linear model's scores: this route
    assert [len(x) for x in per_corpus] == [d.X.shape[0] for d in graph_sets]
    np.testing.assert_allclose(np.concatenate(per_corpus), want, rtol=1e-10, atol=1e-12)
    with pytest.raises(InvalidParameterError, match="weights"):
        PairFeaturizer.union_scores([featurizer], corpora, w[:-1])


@pytest.mark.parametrize("n_features", [None, 2 ** 12])
@pytest.mark.parametrize("min_weight", [0.0, 1e-5, 0.05])
@pytest.mark.slow
def test_compiled_route_on_random_sentences(n_features, min_weight):
    """Trees, DAGs (a dependent with two governors, parallel dependencies), cyclic graphs
    (self-loops included: their pairs take the graph route) and disconnected ones, with
    overlapping entities, under every setting, vocabulary and hashing."""
    rng = np.random.default_rng(7)
    train, test = [], []
    for k in range(160):
        n = int(rng.integers(2, 22))
        kind = k % 4
        s = _random_sentence(rng, n, 0)
        perm = rng.permutation(n)
        if kind == 3:                                  # anything: mostly cyclic
            edges = rng.integers(0, n, size=(int(rng.integers(0, 2 * n)), 2))
        else:                                          # acyclic: forward in a random order
            heads = [(int(rng.integers(0, d)), d) for d in range(1, n)]
            if kind == 1:
                heads = heads[:int(rng.integers(0, n))]           # disconnected
            if kind == 2:                                          # shared dependents
                extra = [tuple(sorted(rng.choice(n, 2, replace=False))) for _ in range(n)]
                heads += [(int(a), int(b)) for a, b in extra]
            edges = np.array([(perm[a], perm[b]) for a, b in heads], dtype=int).reshape(-1, 2)
        deps = [Dependency(f"d{j}", f"t{a}", f"t{b}",
                           str(rng.choice(["nsubj", "dobj", "punct", "nn", "prep_of"])))
                for j, (a, b) in enumerate(edges)]
        s = dataclasses.replace(
            s, parses={"split_parse": Parse("split_parse", "split", deps)},
            pairs=[Pair(f"p{i}", a.id, b.id, False)
                   for i, (a, b) in enumerate(itertools.combinations(s.entities, 2))])
        (train if k < 60 else test).append(Document(f"d{k}", [dataclasses.replace(
            s, id=f"s{k}")]))
    train, test = Corpus("train", train), Corpus("test", test)
    for settings in SETTINGS:
        f = PairFeaturizer(settings=settings, min_weight=min_weight, n_features=n_features)
        (fitted,) = f.fit_transform([train])
        _assert_fit_equals_graph_fit(f, train, fitted.X, min_weight)
        (a,), (b,) = _both(f, [test])
        if min_weight == 0.0:
            # the LU inverse leaves round-off residues (≈ 1e-17) where no walk exists; the
            # walk sums are exactly zero there
            b.X.data[b.X.data < 1e-12] = 0.0
            b.X.eliminate_zeros()
        assert_close_rows(a.X, b.X)
        assert a.X.nnz > 1_000
        if n_features is None:              # cyclic sentences' pairs: the graph route
            _assert_scores_equal_rows_times_weights(f, [test], [b])


@pytest.mark.slow
def test_shared_views_and_chunks(corpora, monkeypatch):
    """Two featurizers on one pass of arrays equal each alone; chunk boundaries do not
    matter."""
    f1 = PairFeaturizer(settings=GraphSettings(order="text"))
    f2 = clone_featurizer(f1)
    f1.fit_transform([corpora["LLL"]])
    f2.fit_transform([corpora["HPRD50"]])
    shared = PairFeaturizer.transform_shared([f1, f2], [corpora["HPRD50"]])
    monkeypatch.setattr(ppi.representation.features, "CHUNK", 7)
    for f, (x,) in zip((f1, f2), shared):
        (alone,) = f.transform([corpora["HPRD50"]])
        assert_close_rows(x.X, alone.X)


def clone_featurizer(f):
    g = PairFeaturizer(parse=f.parse, settings=f.settings)
    g.vectorizer = clone(f.vectorizer)
    return g


def test_dag_walk_sums_equal_inverse():
    rng = np.random.default_rng(3)
    for _ in range(300):
        n = int(rng.integers(1, 30))
        perm = rng.permutation(n)
        m = int(rng.integers(0, 3 * n))
        a = rng.integers(0, n, size=m)
        b = rng.integers(0, n, size=m)
        keep = a < b
        src, dst = perm[a[keep]], perm[b[keep]]            # forward in the order perm
        w = rng.choice([0.3, 0.9, 1.0, 2.5], size=len(src))
        A = np.zeros((n, n))
        np.add.at(A, (src, dst), w)                         # parallel edges add up
        order = np.argsort(src, kind="stable")
        ptr = np.searchsorted(src[order], np.arange(n + 1))
        W = np.full((n, n), np.nan)
        dag_walk_sums(perm.astype(np.int64), ptr.astype(np.int64),
                      dst[order].astype(np.int64), w[order], W)
        ref, scaled = all_paths_matrix(A)
        assert not scaled
        np.testing.assert_allclose(W, ref, rtol=1e-12, atol=1e-12 * max(1.0, ref.max()))


def test_lower_bound_equals_searchsorted():
    rng = np.random.default_rng(4)
    for _ in range(500):
        a = np.sort(rng.integers(0, 50, size=int(rng.integers(0, 40))))
        lo = int(rng.integers(0, len(a) + 1))
        hi = int(rng.integers(lo, len(a) + 1))
        x = int(rng.integers(-1, 52))
        assert _lower_bound(a, lo, hi, x) == lo + np.searchsorted(a[lo:hi], x)


def test_dot_entries_equal_appended_entries_times_weights():
    """:func:`dot_entries` against a brute-force sum over the non-zero entries of ``G`` whose
    label pair is in the vocabulary, and against :func:`append_entries`' entries times the
    weights (``‖G‖²`` the same sum in the same order: equal); labels outside the
    vocabulary (ids past it), first labels without columns; ``G`` is zero again after
    both.  With dense weight rows (:func:`dense_weight_rows`) the very same numbers."""
    rng = np.random.default_rng(8)
    for _ in range(200):
        n_labels = int(rng.integers(1, 30))
        pairs = rng.integers(0, n_labels, size=(int(rng.integers(0, 80)), 2))
        codes = np.unique((pairs[:, 0] << 32) | pairs[:, 1]).astype(np.int64)
        ptr = np.searchsorted(codes, np.arange(n_labels + 1, dtype=np.int64) << 32)
        w = rng.normal(size=len(codes))
        u_ids = np.sort(rng.choice(n_labels + 10, size=int(rng.integers(1, 12)),
                                   replace=False)).astype(np.int64)
        u = len(u_ids)
        G = np.where(rng.random((u, u)) < 0.4, rng.random((u, u)), 0.0)
        column = {c: k for k, c in enumerate(codes.tolist())}
        expect = sum(G[i, j] * w[column[(int(u_ids[i]) << 32) | int(u_ids[j])]]
                     for i, j in zip(*np.nonzero(G))
                     if (int(u_ids[i]) << 32) | int(u_ids[j]) in column)
        squares = float((G ** 2).sum())
        G2 = G.copy()
        out = (np.empty(4, np.int64), np.empty(4, np.int64), np.empty(4))
        (_, cols, vals), m, norm = append_entries(G, u_ids, 0, ptr, codes, out, 0)
        G3 = G2.copy()
        dot, norm2 = dot_entries(G2, u_ids, ptr, codes, w, np.full(n_labels, -1), np.zeros(0))
        assert norm2 == norm == pytest.approx(squares, rel=1e-12)
        assert not G.any() and not G2.any()
        assert dot == pytest.approx(float(vals[:m] @ w[cols[:m]]), rel=1e-12, abs=1e-14)
        assert dot == pytest.approx(expect, rel=1e-12, abs=1e-14)
        # the first labels of most columns as dense rows: the same terms, the same sums
        dense_row, dense = dense_weight_rows(ptr, codes, w, 8 * n_labels * 3)
        assert (dense_row >= 0).sum() == min(3, np.count_nonzero(np.diff(ptr)))
        assert dot_entries(G3, u_ids, ptr, codes, w, dense_row, dense) == (dot, norm)


def test_entity_tokens_equal_overlap_rule():
    from corpora.ppi_xml import Entity, Token
    rng = np.random.default_rng(6)
    for _ in range(300):
        n = int(rng.integers(1, 15))
        tokens = []
        for i in range(n):
            spans = tuple((int(a), int(a + rng.integers(0, 3)))
                          for a in rng.integers(0, 40, size=int(rng.integers(1, 3))))
            tokens.append(Token(f"t{i}", "w", "NN", spans))
        ents = [Entity(f"e{k}", tuple((int(a), int(a + rng.integers(0, 5)))
                                      for a in rng.integers(0, 45, size=int(rng.integers(1, 3)))),
                       "x") for k in range(int(rng.integers(0, 5)))]
        expect = {e.id: [i for i, t in enumerate(tokens) if _overlaps(t.offsets, e.offsets)]
                  for e in ents}
        assert entity_tokens(tokens, ents) == expect


def test_features_from_entries_validates_fitting():
    from learners.kernels.base import KernelNotFittedError
    with pytest.raises(KernelNotFittedError):
        AllPathsKernel().features_from_entries(lambda ids, vocabulary: [])
