"""parse_ranking.representations on a hand-made linkage; JSON round trip of fitted state."""

import json

import numpy as np

from parse_ranking.representations import (ParseRepresentation, link_sequence, parse_graph,
                                           parse_words, representation_from_state,
                                           representation_state)

TEXT = "The mice were increased."
P1 = {"words": [["LEFT-WALL", 0, 0], ["the", 0, 3], ["mice.p", 4, 8], ["were.v-d", 9, 13],
                ["increased.v-d", 14, 23], [".", 23, 24], ["RIGHT-WALL", 24, 24]],
      "links": [[0, 3, "WV"], [1, 2, "Dmc"], [2, 3, "Spx"], [3, 4, "Pa"], [0, 2, "Wd"]]}
P2 = {"words": P1["words"], "links": [[1, 2, "Dmc"], [2, 4, "Spx"], [0, 2, "Wd"]]}


def test_words_sequence_and_graph():
    assert parse_words(P1, TEXT) == ["LEFT-WALL", "the", "mice", "were", "increased", ".",
                                     "RIGHT-WALL"]
    assert link_sequence(P1) == ["Wd", "WV", "Dmc", "Spx", "Pa"]
    g = parse_graph(P1, TEXT, edge_weight=0.3)
    assert g.n_vertices == 7 + 5
    assert g.labels[2] == ["W:mice", "S:p"] and g.labels[7] == ["L:WV"]
    A = g.adjacency()
    # link vertex 7 (WV) joins LEFT-WALL (0) and 'were' (3), both directions
    assert A[0, 7] == A[7, 0] == A[3, 7] == A[7, 3] == 0.3
    assert A.sum() == 0.3 * 4 * 5


def test_bag_counts_and_normalisation():
    rep = ParseRepresentation("links_words", normalize=False)
    X = rep.fit_transform([(P1, TEXT), (P2, TEXT)]).toarray()
    names = rep.vec_.feature_names_
    col = {n: i for i, n in enumerate(names)}
    assert X[0, col["Spx"]] == 1 and X[1, col["Spx"]] == 1
    assert X[0, col["Spx|mice|were"]] == 1 and X[1, col["Spx|mice|increased"]] == 1
    assert X[1, col["Spx|mice|were"]] == 0
    Xn = ParseRepresentation("bag_of_links").fit_transform([(P1, TEXT), (P2, TEXT)])
    np.testing.assert_allclose(np.asarray(Xn.multiply(Xn).sum(axis=1)).ravel(), 1.0)


def test_state_round_trip_gives_identical_features():
    for kind in ("bag_of_links", "links_words", "locality"):
        rep = ParseRepresentation(kind).fit([(P1, TEXT)])
        state = json.loads(json.dumps(representation_state(rep)))
        again = representation_from_state(state)
        a = rep.transform([(P2, TEXT), (P1, TEXT)]).toarray()
        b = again.transform([(P2, TEXT), (P1, TEXT)]).toarray()
        np.testing.assert_allclose(a, b)
