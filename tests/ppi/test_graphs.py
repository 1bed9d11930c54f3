"""Pair graph construction (ppi/representation/graphs.py) on a small hand-made sentence: vertices, labels,
weights, shortest-path marking, blinding, position tags; and the features built from it."""

import numpy as np
import pytest

from corpora.ppi_xml import Dependency, Entity, Pair, Parse, Sentence, Token, Tokenization
from learners.kernels.all_paths import all_paths_matrix
from tests.all_paths_reference import graph_features
from kernelrank.errors import CorpusFormatError
from ppi.representation.graphs import GraphSettings, pair_graphs, sentence_graphs

#            0123456789012345678901234567890
TEXT = "KinC activates KinD and KinE ."
TOKENS = [("KinC", "NN", 0, 3), ("activates", "VBZ", 5, 13), ("KinD", "NN", 15, 18),
          ("and", "CC", 20, 22), ("KinE", "NN", 24, 27), (".", ".", 29, 29)]
DEPS = [  # governor, dependent, type
    (2, 1, "nsubj"), (2, 3, "dobj"), (3, 5, "conj_and"), (2, 5, "dobj"), (2, 6, "punct"),
    (3, 4, "cc"), (2, 5, "prep_via")]


def make_sentence(pairs=(("e0", "e1"),)):
    toks = [Token(f"st_{i + 1}", t, p, ((a, b),)) for i, (t, p, a, b) in enumerate(TOKENS)]
    deps = [Dependency(f"d{i}", f"st_{g}", f"st_{d}", typ) for i, (g, d, typ) in enumerate(DEPS)]
    ents = [Entity("e0", ((0, 3),), "KinC"), Entity("e1", ((15, 18),), "KinD"),
            Entity("e2", ((24, 27),), "KinE")]
    prs = [Pair(f"p{i}", a, b, True) for i, (a, b) in enumerate(pairs)]
    return Sentence("s0", TEXT, ents, prs, {"split": Tokenization("split", toks)},
                    {"split_parse": Parse("split_parse", "split", deps)})


def edge_weights(g):
    return {(int(a), int(b)): float(w) for (a, b), w in zip(g.edges, g.weights)}


def test_dependency_subgraph_vertices_labels_weights():
    s = make_sentence()
    dep, lin = pair_graphs(s, s.pairs[0])
    n = 6
    kept = [d for d in DEPS if d[2] != "punct"]          # punctuation removed
    assert dep.n_vertices == n + len(kept)
    # shortest path KinC -nsubj- activates -dobj- KinD is marked
    assert dep.labels[0] == ("sp_PROT1", "sp_NN")
    assert dep.labels[1] == ("sp_activates", "sp_VBZ")
    assert dep.labels[2] == ("sp_PROT2", "sp_NN")
    assert dep.labels[3] == ("and", "CC")
    assert dep.labels[4] == ("PROT", "NN")                # other protein blinded
    assert dep.labels[5] == (".", ".")
    dep_labels = dep.labels[n:]
    assert dep_labels == [("sp_nsubj",), ("sp_dobj",), ("conj_and",), ("dobj",), ("cc",),
                          ("prep_via",)]
    w = edge_weights(dep)
    # governor → dependency vertex → dependent, 0.9 on the path, 0.3 elsewhere
    assert w[(1, n + 0)] == w[(n + 0, 0)] == 0.9
    assert w[(1, n + 1)] == w[(n + 1, 2)] == 0.9
    assert w[(2, n + 2)] == w[(n + 2, 4)] == 0.3
    assert w[(2, n + 4)] == w[(n + 4, 3)] == 0.3          # cc: KinD → and
    assert len(w) == 2 * len(kept)
    W, _ = all_paths_matrix(dep.adjacency())
    assert W[1, 0] == pytest.approx(0.81)                # activates → nsubj → KinC
    assert W[1, 4] == pytest.approx(0.9 * 0.9 * 0.3 * 0.3 + 2 * 0.3 * 0.3)


def test_linear_subgraph_positions_and_chain():
    s = make_sentence()
    dep, lin = pair_graphs(s, s.pairs[0])
    assert lin.n_vertices == 6
    assert lin.labels == [("M_PROT1", "M_NN"), ("M_activates", "M_VBZ"), ("M_PROT2", "M_NN"),
                          ("A_and", "A_CC"), ("A_PROT", "A_NN"), ("A_.", "A_.")]
    assert edge_weights(lin) == {(i, i + 1): 0.9 for i in range(5)}


def test_all_shortest_paths_are_marked():
    # KinC – KinE: two shortest paths (via dobj and via prep_via), both marked
    s = make_sentence((("e0", "e2"),))
    dep, lin = pair_graphs(s, s.pairs[0])
    labels = dep.labels[6:]
    assert labels == [("sp_nsubj",), ("dobj",), ("conj_and",), ("sp_dobj",), ("cc",),
                      ("sp_prep_via",)]
    assert dep.labels[2] == ("PROT", "NN") and dep.labels[4] == ("sp_PROT2", "sp_NN")
    assert [lab[0] for lab in lin.labels] == ["M_PROT1", "M_activates", "M_PROT", "M_and",
                                               "M_PROT2", "A_."]


def test_pair_order_text_vs_published_code():
    s = make_sentence((("e1", "e0"),))                  # e1 = KinD comes after KinC
    dep, lin = pair_graphs(s, s.pairs[0], settings=GraphSettings(order="text"))
    assert dep.labels[0][0] == "sp_PROT1" and lin.labels[1][0] == "M_activates"
    dep, lin = pair_graphs(s, s.pairs[0], settings=GraphSettings(order="pair"))
    assert dep.labels[2][0] == "sp_PROT1" and dep.labels[0][0] == "sp_PROT2"
    assert lin.labels[1][0] == "B_activates"            # the published code's quirk


def test_sentence_graphs_and_features():
    s = make_sentence((("e0", "e1"), ("e0", "e2"), ("e1", "e2")))
    out = sentence_graphs(s)
    assert [p.id for p, _ in out] == ["p0", "p1", "p2"]
    feats = graph_features(out[0][1], "max")
    assert feats["sp_activates", "sp_nsubj"] == pytest.approx(0.9)
    assert feats["sp_activates", "sp_PROT1"] == pytest.approx(0.81)
    assert feats["M_PROT1", "M_PROT2"] == pytest.approx(0.81)
    assert feats["M_PROT1", "A_."] == pytest.approx(0.9 ** 5)
    # no label pair spans the two disconnected subgraphs
    assert not any(a.startswith(("M_", "A_", "B_")) != b.startswith(("M_", "A_", "B_"))
                   for a, b in feats)
    feats_sum = graph_features(out[0][1], "sum")
    assert feats_sum["M_NN", "M_NN"] == pytest.approx(0.81)   # PROT1 → PROT2 only
    assert set(feats) == set(feats_sum)


def test_entity_without_token_is_an_error():
    s = make_sentence()
    s.entities.append(Entity("e3", ((4, 4),), " "))
    s.pairs.append(Pair("p9", "e0", "e3", False))
    with pytest.raises(CorpusFormatError, match="e3"):
        sentence_graphs(s)


def test_real_sentence_graphs_are_consistent(data_dir):
    from corpora.ppi_xml import read_corpus
    c = read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")
    n_pairs = 0
    for s in list(c.sentences())[:20]:
        for p, (dep, lin) in sentence_graphs(s):
            n_pairs += 1
            toks, deps = s.analysis("split_parse")
            kept = sum(d.type != "punct" for d in deps)
            assert dep.n_vertices == len(toks) + kept and lin.n_vertices == len(toks)
            flat = [x for labs in dep.labels for x in labs]
            assert flat.count("sp_PROT1") >= 1 and flat.count("sp_PROT2") >= 1 or \
                not any(x.startswith("sp_") for x in flat)
            assert set(np.unique(dep.weights)) <= {0.3, 0.9}
    assert n_pairs > 0
