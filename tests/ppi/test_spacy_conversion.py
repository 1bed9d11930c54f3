"""spaCy ``Doc`` → sentences (:func:`ppi.parsing.spacy_parse.doc_sentences`) from per-token arrays
equals the conversion through spaCy's ``Token`` objects (the reference below: what every
attribute means in spaCy's own API) on real abstracts — sentence breaks merged across
mentions, whitespace tokens dropped, offsets, tags, heads, collapsed labels."""

import itertools
from pathlib import Path

import pytest

from corpora.ppi_xml import Dependency, Token
from corpora.text_input import read_documents
from ppi.extraction.mentions import document_mentions
from ppi.parsing.spacy_parse import _collapse, _split_doc, doc_sentences, load_spacy


def _reference_sentences(sdoc, mentions, collapse):
    """``[(text, first, tokens, deps)]`` of every sentence group, through Token objects."""
    starts = [s.start for s in sdoc.sents]
    groups, begin = [], 0
    for k in starts[1:]:
        c = sdoc[k].idx
        if not any(m.start < c < m.end for m in mentions):
            groups.append((begin, k))
            begin = k
    groups.append((begin, len(sdoc)))
    out = []
    for a, b in groups:
        toks = [t for t in sdoc[a:b] if not t.is_space]
        if not toks:
            continue
        first = toks[0].idx
        idmap = {t.i: f"st_{k}" for k, t in enumerate(toks)}
        tokens = [Token(f"st_{k}", t.text, t.tag_,
                        ((t.idx - first, t.idx - first + len(t.text) - 1),))
                  for k, t in enumerate(toks)]
        edges = [[t.head.i, t.i, t.dep_] for t in toks
                 if t.head.i != t.i and t.head.i in idmap]
        if collapse:
            lower = {t.i: t.lower_ for t in toks}
            tag = {t.i: t.tag_ for t in toks}
            edges = _collapse(edges, lower.__getitem__, tag.__getitem__)
        deps = [Dependency(f"sp_{n}", idmap[g], idmap[d], typ)
                for n, (g, d, typ) in enumerate(edges)]
        out.append((sdoc.text[first:toks[-1].idx + len(toks[-1].text)], tokens, deps))
    return out


@pytest.mark.parametrize("collapse", [True, False])
@pytest.mark.slow
@pytest.mark.needs_spacy
def test_array_conversion_equals_token_objects(data_dir, collapse):
    path = Path(data_dir) / "text" / "PMtask_Relations_TrainingSet.pubtator.gz"
    if not path.exists():
        pytest.skip(f"{path} absent (see ../shared/data/README)")
    nlp = load_spacy()
    docs = list(itertools.islice(read_documents(path, "pubtator", skip_bad=True), 60))
    checked = 0
    for d in docs:
        ms = sorted(document_mentions(d, None), key=lambda m: (m.start, m.end))
        sdoc = nlp(_split_doc(nlp, d.text, [x for m in ms for x in (m.start, m.end)]))
        ours = doc_sentences(d.id, sdoc, ms, "split_parse", collapse, analyse_pairless=True)
        ref = _reference_sentences(sdoc, ms, collapse)
        assert len(ours) == len(ref)
        for p, (text, tokens, deps) in zip(ours, ref):
            s = p.sentence
            assert s.text == text
            toks, dps = s.analysis("split_parse")
            assert toks == tokens
            assert dps == deps
            checked += len(deps)
    assert checked > 3000
