"""The fast shortest-path marking of ppi/representation/graphs.py (BFS distances once per sentence structure)
gives exactly the dependency sets of networkx ``all_shortest_paths`` per token pair, and its
path enumeration exactly networkx's paths (between head tokens, as the path view); and the
structure cache shares a structure only between names holding the very same analysis."""

import dataclasses

import networkx as nx
import numpy as np
import pytest

from learners.kernels.all_paths import (AllPathsKernel, LabelledGraph, aggregate_label_pairs,
                                        all_paths_matrices, all_paths_matrix)
from tests.all_paths_reference import max_per_row_code
from corpora.ppi_xml import (Dependency, Entity, Pair, Parse, Sentence, Token, Tokenization,
                             read_corpus)
from ppi.representation.graphs import GraphSettings, SentenceStructure, sentence_structure
from ppi.names import corpus_path


def _check_structure(st):
    ents = list(st.ent_tokens.values())
    n_checked = 0
    for i, t1 in enumerate(ents):
        for t2 in ents[i + 1:]:
            for a, b in ((t1, t2), (t2, t1), ([st.head_token(t1)], [st.head_token(t2)])):
                assert st.path_dependencies(a, b) == st.path_dependencies_networkx(a, b)
                n_checked += 1
            a, b = st.head_token(t1), st.head_token(t2)
            ours = st.shortest_paths(a, b)
            try:
                theirs = list(nx.all_shortest_paths(st.graph, a, b))
            except nx.NetworkXNoPath:
                theirs = []
            assert sorted(map(tuple, ours)) == sorted(map(tuple, theirs))
    return n_checked


@pytest.mark.parametrize("name", ["LLL", "HPRD50"])
@pytest.mark.parametrize("parse", ["split_parse", "Charniak-Lease"])
@pytest.mark.slow
def test_real_corpora_every_entity_pair(data_dir, name, parse):
    corpus = read_corpus(corpus_path(data_dir, name))
    checked = 0
    for doc in corpus.documents:
        for s in doc.sentences:
            if len(s.entities) >= 2:
                checked += _check_structure(SentenceStructure(s, parse, GraphSettings()))
    assert checked > 300


def _random_sentence(rng, n, m):
    toks = [Token(f"t{i}", f"w{i}", "NN", ((2 * i, 2 * i),)) for i in range(n)]
    deps = [Dependency(f"d{j}", f"t{rng.integers(n)}", f"t{rng.integers(n)}",
                       str(rng.choice(["nsubj", "dobj", "punct", "nn"])))
            for j in range(m)]
    starts = sorted(rng.choice(n, size=min(n, 4), replace=False))
    ents = [Entity(f"e{k}", ((2 * a, 2 * min(a + int(rng.integers(0, 3)), n - 1)),), "x")
            for k, a in enumerate(starts)]
    return Sentence("s", " ".join("x" for _ in range(n)), ents,
                    [Pair("p", "e0", "e1", False)], {"split": Tokenization("split", toks)},
                    {"split_parse": Parse("split_parse", "split", deps)})


def test_random_graphs():
    """Sparse (disconnected), tree-like and dense random graphs with self-loops and parallel
    dependencies, overlapping entities."""
    rng = np.random.default_rng(0)
    for _ in range(300):
        n = int(rng.integers(2, 25))
        m = int(rng.integers(0, 3 * n))
        _check_structure(SentenceStructure(_random_sentence(rng, n, m), "split_parse",
                                           GraphSettings()))


def test_structure_shared_only_for_identical_analyses():
    rng = np.random.default_rng(1)
    s = _random_sentence(rng, 10, 12)
    tok, par = s.tokenizations["split"], s.parses["split_parse"]
    same = Sentence(s.id, s.text, s.entities, s.pairs,
                    {"split": tok, "Charniak-Lease": Tokenization("Charniak-Lease",
                                                                  tok.tokens)},
                    {"split_parse": par, "Charniak-Lease": Parse(
                        "Charniak-Lease", "Charniak-Lease", par.dependencies)})
    g = GraphSettings()
    assert sentence_structure(same, "split_parse", g) is \
        sentence_structure(same, "Charniak-Lease", g)
    # a batch copy holding some of the pairs shares the lists, hence the structure
    part = dataclasses.replace(same, pairs=same.pairs[:1])
    assert sentence_structure(part, "split_parse", g) is sentence_structure(same,
                                                                            "split_parse", g)
    # equal but distinct lists: a structure of its own
    copy = Sentence(s.id, s.text, s.entities, s.pairs,
                    {"split": tok, "Charniak-Lease": Tokenization("Charniak-Lease",
                                                                  list(tok.tokens))},
                    {"split_parse": par, "Charniak-Lease": Parse(
                        "Charniak-Lease", "Charniak-Lease", list(par.dependencies))})
    assert sentence_structure(copy, "split_parse", g) is not \
        sentence_structure(copy, "Charniak-Lease", g)
    # other removed dependency types: another structure
    assert sentence_structure(same, "split_parse", GraphSettings(remove_types=())) is not \
        sentence_structure(same, "split_parse", g)


def test_batched_all_paths_matrices_equal_one_at_a_time():
    """Equal-size general graphs inverted in one batch: bit for bit the single inverses;
    chains (triangular), divergent (scaled) and one-vertex ones in the same batch."""
    rng = np.random.default_rng(2)
    As = []
    for _ in range(60):
        n = int(rng.choice([1, 5, 8]))
        A = (rng.random((n, n)) < 0.3) * rng.choice([0.3, 0.9], size=(n, n))
        kind = rng.integers(3)
        if kind == 1:
            A = np.triu(A, 1)                      # acyclic in natural order
        elif kind == 2:
            A = A * 3.0                            # diverges: scaled
        As.append(A)
    for batch, single in zip(all_paths_matrices(As, on_divergence="scale"),
                             [all_paths_matrix(A, on_divergence="scale") for A in As]):
        assert batch[1] == single[1]
        assert np.array_equal(batch[0], single[0])


def test_max_per_row_code_equals_aggregate():
    rng = np.random.default_rng(3)
    rows = np.sort(rng.integers(0, 20, 5000))
    codes = rng.integers(0, 50, 5000).astype(np.int64) << np.int64(32) | rng.integers(0, 9, 5000)
    values = rng.random(5000)
    r, c, v = max_per_row_code(rows, codes, values)
    uniq, inv = np.unique(codes, return_inverse=True)
    G = aggregate_label_pairs(rows, inv.ravel(), values, "max", 20, len(uniq)).tocoo()
    ours = sorted(zip(r.tolist(), c.tolist(), v.tolist()))
    theirs = sorted(zip(G.row.tolist(), uniq[G.col].tolist(), G.data.tolist()))
    assert ours == theirs


def test_all_paths_kernel_rows_unchanged_by_batching():
    """Feature rows of many graphs in one call equal those of one graph per call."""
    rng = np.random.default_rng(4)
    graphs = []
    for _ in range(40):
        n = int(rng.integers(2, 9))
        e = rng.integers(0, n, size=(2 * n, 2))
        graphs.append(LabelledGraph(n, e, rng.choice([0.3, 0.9], size=len(e)),
                                    [(f"a{rng.integers(4)}", f"b{rng.integers(3)}")
                                     for _ in range(n)]))
    k = AllPathsKernel(on_divergence="scale").fit(graphs)
    X = k.features(graphs)
    for i, g in enumerate(graphs):
        assert (k.features([g]) != X[i]).nnz == 0
