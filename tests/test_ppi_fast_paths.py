"""The fast shortest-path marking of ppi/graphs.py (BFS distances once per sentence structure)
gives exactly the dependency sets of networkx ``all_shortest_paths`` per token pair, and its
path enumeration exactly networkx's paths (between head tokens, as the path view); and the
structure cache shares a structure only between names holding the very same analysis."""

import dataclasses

import networkx as nx
import numpy as np
import pytest

from corpora.ppi_xml import (Dependency, Entity, Pair, Parse, Sentence, Token, Tokenization,
                             read_corpus)
from ppi.graphs import GraphSettings, SentenceStructure, sentence_structure
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
