"""The collapsed-Stanford rewriting of spaCy's dependencies (:func:`ppi.parsing.spacy_parse._collapse`)
on hand-built analyses, against what the Stanford typed dependencies manual (de Marneffe &
Manning 2008, section 4: collapsed dependencies with propagation of conjunct dependencies)
gives for the same sentence — the representation of the benchmark corpora's parses."""

import pytest

from kernelrank.errors import InvalidParameterError
from ppi.parsing.spacy_parse import (CONVERSION_VERSION, CONVERSIONS, _collapse, conversion_version)


def _run(words, tags, edges, version=2):
    """``{(governor word, label, dependent word)}`` of ``_collapse`` on spaCy-style edges
    given as ``(governor index, dependent index, label)``."""
    out = _collapse([list(e) for e in edges], lambda i: words[i].lower(), tags.__getitem__,
                    version)
    triples = [(words[g], typ, words[d]) for g, d, typ in out]
    assert len(triples) == len(set(triples))
    return set(triples)


def test_an_object_coordination_shares_the_verb():
    # "The kinase phosphorylates KinB and KinC" (spaCy: cc and conj under the first object)
    w = ["The", "kinase", "phosphorylates", "KinB", "and", "KinC"]
    t = ["DT", "NN", "VBZ", "NN", "CC", "NN"]
    e = [(1, 0, "det"), (2, 1, "nsubj"), (2, 3, "dobj"), (3, 4, "cc"), (3, 5, "conj")]
    assert _run(w, t, e) == {("kinase", "det", "The"), ("phosphorylates", "nsubj", "kinase"),
                             ("phosphorylates", "dobj", "KinB"),
                             ("KinB", "conj_and", "KinC"),
                             ("phosphorylates", "dobj", "KinC")}
    # version 1 (models trained before the propagation): conj_and only
    assert _run(w, t, e, 1) == {("kinase", "det", "The"), ("phosphorylates", "nsubj", "kinase"),
                                ("phosphorylates", "dobj", "KinB"),
                                ("KinB", "conj_and", "KinC")}


def test_a_chained_coordination_attaches_every_conjunct_to_the_first():
    # "Interaction of A , B and C" — spaCy chains A -conj-> B -conj-> C, the cc under B;
    # Stanford: prep_of(Interaction, X) and conj_and(A, X) for X = B, C
    w = ["Interaction", "of", "A", ",", "B", "and", "C"]
    t = ["NN", "IN", "NN", ",", "NN", "CC", "NN"]
    e = [(0, 1, "prep"), (1, 2, "pobj"), (2, 3, "punct"), (2, 4, "conj"), (4, 5, "cc"),
         (4, 6, "conj")]
    assert _run(w, t, e) == {("Interaction", "prep_of", "A"), ("A", "punct", ","),
                             ("A", "conj_and", "B"), ("A", "conj_and", "C"),
                             ("Interaction", "prep_of", "B"), ("Interaction", "prep_of", "C")}
    # version 1 left the chain and the first link's missing cc as they were
    assert _run(w, t, e, 1) == {("Interaction", "prep_of", "A"), ("A", "punct", ","),
                                ("A", "conj", "B"), ("B", "conj_and", "C")}


def test_a_subject_coordination_and_a_verb_coordination():
    # "A and B bind C and inhibit D": nsubj(bind, B) propagated; inhibit shares both
    # subjects (it has none of its own)
    w = ["A", "and", "B", "bind", "C", "and", "inhibit", "D"]
    t = ["NN", "CC", "NN", "VBP", "NN", "CC", "VBP", "NN"]
    e = [(3, 0, "nsubj"), (0, 1, "cc"), (0, 2, "conj"), (3, 4, "dobj"), (3, 5, "cc"),
         (3, 6, "conj"), (6, 7, "dobj")]
    got = _run(w, t, e)
    assert {("bind", "nsubj", "B"), ("inhibit", "nsubj", "A"),
            ("inhibit", "nsubj", "B")} <= got
    assert ("bind", "conj_and", "inhibit") in got and ("A", "conj_and", "B") in got
    assert not any(typ == "cc" for _, typ, _ in got)
    assert ("inhibit", "dobj", "C") not in got          # objects are not shared


def test_a_verb_conjunct_with_its_own_subject_keeps_it_alone():
    # "A binds B and C inhibits D"
    w = ["A", "binds", "B", "and", "C", "inhibits", "D"]
    t = ["NN", "VBZ", "NN", "CC", "NN", "VBZ", "NN"]
    e = [(1, 0, "nsubj"), (1, 2, "dobj"), (1, 3, "cc"), (1, 5, "conj"), (5, 4, "nsubj"),
         (5, 6, "dobj")]
    got = _run(w, t, e)
    assert ("inhibits", "nsubj", "A") not in got and ("inhibits", "nsubj", "C") in got


def test_a_nominal_conjunct_does_not_take_a_verbs_subject():
    # "A activates B and C": C is a noun conjunct of B; it gets the dobj, never a subject
    w = ["A", "activates", "B", "and", "C"]
    t = ["NN", "VBZ", "NN", "CC", "NN"]
    e = [(1, 0, "nsubj"), (1, 2, "dobj"), (2, 3, "cc"), (2, 4, "conj")]
    got = _run(w, t, e)
    assert ("activates", "dobj", "C") in got
    assert not any(g == "C" for g, _, _ in got)


def test_an_open_clausal_complement_gets_its_controlling_subject():
    # "A fails to bind B": xsubj(bind, A), also without any coordination
    w = ["A", "fails", "to", "bind", "B"]
    t = ["NN", "VBZ", "TO", "VB", "NN"]
    e = [(1, 0, "nsubj"), (1, 3, "xcomp"), (3, 2, "aux"), (3, 4, "dobj")]
    assert ("bind", "xsubj", "A") in _run(w, t, e)
    assert ("bind", "xsubj", "A") not in _run(w, t, e, 1)


def test_no_edge_is_added_between_tokens_already_linked():
    # the governor of the first conjunct already governs the second: no second edge
    w = ["X", "A", "and", "B"]
    t = ["VB", "NN", "CC", "NN"]
    e = [(0, 1, "dobj"), (1, 2, "cc"), (1, 3, "conj"), (0, 3, "dep")]
    got = _run(w, t, e)
    assert ("X", "dep", "B") in got and ("X", "dobj", "B") not in got


@pytest.mark.parametrize("collapse, version", [(True, CONVERSION_VERSION), (False, 0),
                                               (None, 0), (1, 1), (2, 2)])
def test_the_collapse_argument_names_a_conversion(collapse, version):
    assert conversion_version(collapse) == version
    assert CONVERSION_VERSION in CONVERSIONS


@pytest.mark.parametrize("bad", [3, 0.5, "2"])
def test_an_unknown_conversion_is_refused(bad):
    with pytest.raises(InvalidParameterError, match="conversion"):
        conversion_version(bad)
