"""parse_ranking.linkgrammar: the ctypes binding on one sentence (skipped without LG)."""

import pytest

from parse_ranking.linkgrammar import APT_PACKAGES, LinkGrammarParser, is_available

pytestmark = pytest.mark.skipif(
    not is_available(),
    reason="Link Grammar C library absent: apt-get install " + " ".join(APT_PACKAGES))

TEXT = "The mRNA levels of ADAM11-deficient mice were increased in the striatum."


def test_one_sentence_words_links_costs():
    result = LinkGrammarParser(max_parses=10, linkage_limit=1000).parse(TEXT)
    assert result.found >= len(result.linkages) >= 2
    assert not result.timed_out
    for lk in result.linkages:
        words = [w for w in lk.words if w[0] not in ("LEFT-WALL", "RIGHT-WALL")]
        # character offsets point at the words themselves (LG lower-cases 'The' and
        # appends subscripts such as '.n' or '[?]', so compare prefixes)
        for text, start, end in words:
            assert text.lower().startswith(TEXT[start:end].lower())
        assert [w[1] for w in words] == sorted(w[1] for w in words)
        n = len(lk.words)
        assert all(0 <= a < b < n and label for a, b, label in lk.links)
    # distinct unlabelled edge sets, in LG's cost order
    keys = [lk.edge_set() for lk in result.linkages]
    assert len(set(keys)) == len(keys)
    costs = [lk.cost for lk in result.linkages]
    assert costs == sorted(costs, key=lambda c: (c[0], c[1]))


def test_repeatable_across_parser_instances():
    a = LinkGrammarParser(max_parses=20).parse(TEXT)
    b = LinkGrammarParser(max_parses=20).parse(TEXT)
    assert a == b
