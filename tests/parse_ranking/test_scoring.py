"""parse_ranking.alignment and .scoring on a hand-made example worked out on paper."""

from types import SimpleNamespace

import pytest

from parse_ranking.alignment import align_words, is_punctuation
from parse_ranking.scoring import f_score, gold_edges, linkage_edges, score_linkage

TEXT = "ADAM11-deficient mice were increased."
# CRAFT-style gold tokens: the hyphenated word is split in three.
GOLD = [  # form, upos, head (1-based), deprel
    ("ADAM11", "PROPN", 3, "compound"),
    ("-", "PUNCT", 3, "punct"),
    ("deficient", "ADJ", 4, "amod"),
    ("mice", "NOUN", 6, "nsubjpass"),
    ("were", "AUX", 6, "auxpass"),
    ("increased", "VERB", 0, "root"),
    (".", "PUNCT", 6, "punct"),
]
SPANS = [(0, 6), (6, 7), (7, 16), (17, 21), (22, 26), (27, 36), (36, 37)]
# Link Grammar keeps the hyphenated word whole.
WORDS = [("LEFT-WALL", 0, 0), ("ADAM11-deficient[!]", 0, 16), ("mice.p", 17, 21),
         ("were.v-d", 22, 26), ("increased.v-d", 27, 36), (".", 36, 37),
         ("RIGHT-WALL", 37, 37)]
LINKS = [(0, 5, "Xp"), (0, 3, "WV"), (0, 2, "Wd"), (2, 3, "Sp"), (1, 2, "AN"),
         (3, 4, "Pa"), (5, 6, "RW")]


def _tokens():
    return [SimpleNamespace(form=f, upos=u, head=h, deprel=d) for f, u, h, d in GOLD]


def test_spans_are_consistent_with_text():
    assert [TEXT[a:b] for a, b in SPANS] == [g[0] for g in GOLD]


def test_alignment_by_offsets_maps_merged_word_to_its_head():
    heads = [g[2] for g in GOLD]
    # ADAM11-deficient covers tokens 0,1,2; only 'deficient' (index 2) has its head
    # (mice) outside the covered set.
    assert align_words(WORDS, SPANS, heads) == [-1, 2, 3, 4, 5, 6, -1]


def test_split_pieces_map_to_one_token_and_self_links_are_dropped():
    spans = [(0, 6)]  # one gold token "mice's"
    words = [("LEFT-WALL", 0, 0), ("mice", 0, 4), ("'s", 4, 6)]
    alignment = align_words(words, spans, [0])
    assert alignment == [-1, 0, 0]
    assert linkage_edges([(1, 2, "YS")], alignment, [False]) == set()


def test_gold_edges_skip_root_and_punctuation():
    tokens = _tokens()
    punct = is_punctuation(tokens)
    assert punct.tolist() == [False, True, False, False, False, False, True]
    assert gold_edges([t.head for t in tokens], punct) == {(0, 2), (2, 3), (3, 5), (4, 5)}


def test_f_score_by_hand():
    tokens = _tokens()
    heads, punct = [t.head for t in tokens], is_punctuation(tokens)
    alignment = align_words(WORDS, SPANS, heads)
    # walls and the period drop out; the other three links map to
    # {mice, were}, {deficient, mice}, {were, increased}
    assert linkage_edges(LINKS, alignment, punct) == {(3, 4), (2, 3), (4, 5)}
    sc = score_linkage(LINKS, alignment, heads, punct)
    # correct = {(2,3), (4,5)}: P = 2/3, R = 2/4, F = 4/7
    assert (sc.n_correct, sc.n_predicted, sc.n_gold) == (2, 3, 4)
    assert sc.precision == pytest.approx(2 / 3)
    assert sc.recall == pytest.approx(0.5)
    assert sc.f == pytest.approx(4 / 7)


def test_f_score_degenerate_cases():
    assert f_score(set(), {(0, 1)}).f == 0.0
    assert f_score({(0, 1)}, set()).f == 0.0
    assert f_score({(0, 1)}, {(0, 1)}).f == 1.0
