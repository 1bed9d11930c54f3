"""Streaming raw-text readers (corpora.text_input): PubTator, PubMed XML, plain text,
learning-format XML; malformed records stop the read or are skipped and counted."""

import gzip
import io

import pytest

from corpora.text_input import (Mention, ReadStats, TextDocument, read_documents,
                                write_pubmed_xml, write_pubtator)
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError

DOCS = [
    TextDocument("101", "KinC binds KinD. Both act on Spo0A~P in vivo.",
                 [Mention(0, 4, "KinC", "Gene", "G1"), Mention(11, 15, "KinD", "Gene"),
                  Mention(29, 36, "Spo0A~P", "Gene")], title_end=16),
    TextDocument("102", "A title without abstract", [], title_end=24),
    TextDocument("103", "IL-2 and the IL-2 receptor. Nothing else here.",
                 [Mention(0, 4, "IL-2", "Gene"), Mention(13, 26, "IL-2 receptor", "Gene")],
                 title_end=27),
]


def _pubtator(tmp_path, docs=DOCS, name="in.pubtator"):
    buf = io.StringIO()
    write_pubtator(docs, buf)
    path = tmp_path / name
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


def test_pubtator_round_trip(tmp_path):
    path = _pubtator(tmp_path)
    stats = ReadStats()
    got = list(read_documents(path, "pubtator", stats=stats))
    assert [(d.id, d.text, d.mentions, d.title_end) for d in got] == \
        [(d.id, d.text, d.mentions, d.title_end) for d in DOCS]
    assert stats.documents == 3 and stats.skipped == 0
    for d in got:
        for m in d.mentions:
            assert d.text[m.start:m.end] == m.text


def test_pubtator_gzip_and_relation_lines(tmp_path):
    text = _pubtator(tmp_path).read_text(encoding="utf-8")
    text = text.replace("101\t29\t36", "101\tCPI\tG1\tG2\n101\t29\t36", 1)
    path = tmp_path / "in.pubtator.gz"
    path.write_bytes(gzip.compress(text.encode()))
    got = list(read_documents(path, "pubtator"))
    assert len(got) == 3 and len(got[0].mentions) == 3


def test_pubtator_offsets_must_match_text(tmp_path):
    """A mention off its offsets is moved to the nearest occurrence of its text (counted);
    one whose text is not near them stops the read naming its line, or with skip_bad is
    left out (counted) while its record is kept (corpora.standoff)."""
    text = _pubtator(tmp_path).read_text(encoding="utf-8")
    shifted = text.replace("103\t0\t4\tIL-2", "103\t1\t5\tIL-2", 1)
    path = tmp_path / "shifted.pubtator"
    path.write_text(shifted, encoding="utf-8")
    stats = ReadStats()
    got = list(read_documents(path, "pubtator", stats=stats))
    assert [(d.id, d.mentions) for d in got] == [(d.id, d.mentions) for d in DOCS]
    assert stats.mentions_repaired == 1 and "'IL-2' 1-5 → 0-4" in stats.repair_examples[0]
    bad = text.replace("103\t0\t4\tIL-2", "103\t0\t4\tIL-7", 1)
    path = tmp_path / "bad.pubtator"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(CorpusFormatError) as err:
        list(read_documents(path, "pubtator"))
    msg = str(err.value)
    assert "'103'" in msg and "line" in msg and str(path) in msg and "IL-7" in msg
    # the line number is the annotation's line
    lineno = next(i for i, l in enumerate(bad.splitlines(), 1) if l.startswith("103\t0\t4"))
    assert err.value.line == lineno
    stats = ReadStats()
    got = list(read_documents(path, "pubtator", skip_bad=True, stats=stats))
    assert [d.id for d in got] == ["101", "102", "103"]
    assert got[2].mentions == DOCS[2].mentions[1:]
    assert stats.skipped == 0 and stats.mentions_dropped == 1
    assert "IL-7" in stats.mention_errors[0]


def test_pubtator_is_streamed(tmp_path):
    """The first record is yielded before a later malformed record is even read."""
    text = _pubtator(tmp_path).read_text(encoding="utf-8") + "999\tnot\tan annotation\n"
    path = tmp_path / "late.pubtator"
    path.write_text(text, encoding="utf-8")
    it = read_documents(path, "pubtator")
    assert next(it).id == "101"
    with pytest.raises(CorpusFormatError, match="before the title"):
        list(it)


def test_pubmed_xml_round_trip_and_markup(tmp_path):
    path = tmp_path / "in.xml"
    with open(path, "wb") as handle:
        write_pubmed_xml(DOCS, handle)
    got = list(read_documents(path, "pubmed-xml"))
    assert [(d.id, d.text, d.title_end) for d in got] == [(d.id, d.text, d.title_end) for d in DOCS]
    assert all(d.mentions is None for d in got)
    # inline markup, several abstract sections, a MEDLINE citation set, gzip
    xml = b"""<?xml version="1.0"?>
<MedlineCitationSet>
 <MedlineCitation><PMID Version="1">7</PMID><Article>
   <ArticleTitle>The <i>kinA</i> gene.</ArticleTitle>
   <Abstract><AbstractText Label="BACKGROUND">First  part.</AbstractText>
             <AbstractText Label="RESULTS">Second <sup>2</sup> part.</AbstractText></Abstract>
 </Article></MedlineCitation>
 <MedlineCitation><PMID>8</PMID><Article><ArticleTitle>Only a title.</ArticleTitle></Article>
 </MedlineCitation>
</MedlineCitationSet>"""
    gz = tmp_path / "medline.xml.gz"
    gz.write_bytes(gzip.compress(xml))
    got = list(read_documents(gz, "pubmed-xml"))
    assert [(d.id, d.text) for d in got] == [
        ("7", "The kinA gene. First part. Second 2 part."), ("8", "Only a title.")]
    assert got[0].text[:got[0].title_end] == "The kinA gene."


def test_pubmed_xml_bad_records(tmp_path):
    xml = b"""<PubmedArticleSet>
<PubmedArticle><MedlineCitation><PMID>1</PMID><Article><ArticleTitle>Fine.</ArticleTitle>
</Article></MedlineCitation></PubmedArticle>
<PubmedArticle><MedlineCitation><Article><ArticleTitle>No PMID.</ArticleTitle>
</Article></MedlineCitation></PubmedArticle>
<PubmedArticle><MedlineCitation><PMID>3</PMID><Article></Article></MedlineCitation></PubmedArticle>
<PubmedArticle><MedlineCitation><PMID>4</PMID><Article><ArticleTitle>Also fine.</ArticleTitle>
</Article></MedlineCitation></PubmedArticle>
</PubmedArticleSet>"""
    path = tmp_path / "bad.xml"
    path.write_bytes(xml)
    with pytest.raises(CorpusFormatError, match="article #2"):
        list(read_documents(path, "pubmed-xml"))
    stats = ReadStats()
    got = list(read_documents(path, "pubmed-xml", skip_bad=True, stats=stats))
    assert [d.id for d in got] == ["1", "4"]
    assert stats.skipped == 2 and "'3'" in stats.errors[1]
    broken = tmp_path / "broken.xml"
    broken.write_bytes(xml.replace(b"</PubmedArticleSet>", b"<oops>"))
    with pytest.raises(CorpusFormatError, match="not well-formed"):
        list(read_documents(broken, "pubmed-xml", skip_bad=True))


def test_plain_text_blocks_directory_and_whole_file(tmp_path):
    path = tmp_path / "abstracts.txt"
    path.write_text("First doc line one.\nline two.\n\n\nSecond doc.\n", encoding="utf-8")
    got = list(read_documents(path, "text"))
    assert [(d.id, d.text) for d in got] == [("abstracts:1", "First doc line one.\nline two."),
                                             ("abstracts:5", "Second doc.")]
    assert all(d.mentions is None for d in got)
    (whole,) = read_documents(path, "text", one_document=True)
    assert whole.text == path.read_text(encoding="utf-8")
    folder = tmp_path / "dir"
    folder.mkdir()
    (folder / "b.txt").write_text("Bee.", encoding="utf-8")
    (folder / "a.txt").write_text("Ay.", encoding="utf-8")
    assert [(d.id, d.text) for d in read_documents(folder, "text")] == [("a", "Ay."),
                                                                       ("b", "Bee.")]


def test_bad_arguments(tmp_path):
    with pytest.raises(InvalidParameterError, match="unknown input format"):
        read_documents(tmp_path, "docx")
    with pytest.raises(DataNotFoundError):
        read_documents(tmp_path / "absent.txt", "text")
    with pytest.raises(InvalidParameterError, match="directory"):
        read_documents(tmp_path, "pubtator")


def test_learning_xml_keeps_sentences_entities_pairs(data_dir):
    from corpora.ppi_xml import corpus_statistics, read_corpus
    path = data_dir / "ppi" / "LLL-learning-format.xml.gz"
    if not path.exists():
        pytest.skip(f"{path} absent")
    docs = list(read_documents(path, "learning-xml"))
    ref = corpus_statistics(read_corpus(path))
    assert len(docs) == ref["documents"]
    assert sum(len(d.sentences) for d in docs) == ref["sentences"]
    assert sum(len(s.pairs) for d in docs for s in d.sentences) == ref["pairs"]


def test_undecodable_bytes_are_a_format_error(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes(b"fine line\n\ncaf\xe9 line\n")
    with pytest.raises(CorpusFormatError, match="UTF-8") as err:
        list(read_documents(path, "text"))
    assert err.value.line == 3
    path.write_bytes(b"1|t|A title.\n1|a|caf\xe9.\n")
    with pytest.raises(CorpusFormatError, match="UTF-8") as err:
        list(read_documents(path, "pubtator"))
    assert err.value.line == 2


# ----------------------------------------------------------------------------- benchmark → PubTator
def _doc_with_discontinuous():
    from corpora.ppi_xml import Document, Entity, Pair, Sentence
    s0 = "Birch profilin binds muscle and brain actin."
    s1 = "NRP1 binds NRP1 here."
    ents0 = [Entity("d.s0.e0", ((6, 13),), "profilin", "protein"),
             Entity("d.s0.e1", ((21, 26), (38, 42)), "muscle actin", "protein"),
             Entity("d.s0.e2", ((32, 42),), "brain actin", "protein")]
    ents1 = [Entity("d.s1.e0", ((0, 3),), "NRP1", "protein"),
             Entity("d.s1.e1", ((0, 3),), "NRP1", None),          # same span as e0
             Entity("d.s1.e2", ((11, 14),), "NRP1", None)]
    pairs0 = [Pair("d.s0.p0", "d.s0.e0", "d.s0.e1", True),
              Pair("d.s0.p1", "d.s0.e0", "d.s0.e2", True),
              Pair("d.s0.p2", "d.s0.e1", "d.s0.e2", False)]
    pairs1 = [Pair("d.s1.p0", "d.s1.e0", "d.s1.e1", False),
              Pair("d.s1.p1", "d.s1.e0", "d.s1.e2", True),
              Pair("d.s1.p2", "d.s1.e1", "d.s1.e2", False)]
    return Document("d", [Sentence("d.s0", s0, ents0, pairs0),
                          Sentence("d.s1", s1, ents1, pairs1)])


def test_discontinuous_entities_raise_by_default_and_are_counted_when_dropped(tmp_path):
    from corpora.text_input import ConversionStats, learning_to_text_document
    doc = _doc_with_discontinuous()
    with pytest.raises(CorpusFormatError, match="d.s0.e1.*discontinuous.*drop") as err:
        learning_to_text_document(doc)
    assert "d.s0" in str(err.value)
    with pytest.raises(InvalidParameterError, match="fragments"):
        learning_to_text_document(doc, discontinuous="fragments")
    stats = ConversionStats()
    d = learning_to_text_document(doc, discontinuous="drop", stats=stats)
    assert d.text == doc.sentences[0].text + " " + doc.sentences[1].text
    assert d.title_end == len(doc.sentences[0].text)
    off = len(doc.sentences[0].text) + 1
    assert [(m.start, m.end, m.text, m.type) for m in d.mentions] == [
        (6, 14, "profilin", "protein"), (32, 43, "brain actin", "protein"),
        (off, off + 4, "NRP1", "protein"), (off + 11, off + 15, "NRP1", "Gene")]
    # lost: p0 and p2 (the dropped "muscle actin"), s1.p0 (both ends merged into one mention)
    assert (stats.entities, stats.mentions, stats.discontinuous, stats.merged) == (6, 4, 1, 1)
    assert (stats.pairs, stats.pairs_lost, stats.positive_pairs_lost) == (6, 3, 1)
    assert stats.examples == ["d.s0: d.s0.e1 'muscle actin' [(21, 26), (38, 42)]"]
    # what is written reads back unchanged
    path = _pubtator(tmp_path, [d])
    (back,) = read_documents(path, "pubtator")
    assert (back.text, back.mentions, back.title_end) == (d.text, d.mentions, d.title_end)


def test_write_pubtator_refuses_what_it_cannot_hold():
    bad = [TextDocument("1|2", "KinC.", []),
           TextDocument("1", "two\nlines", []),
           TextDocument("1", "KinC binds KinD.", [Mention(0, 4, "KinD")]),
           TextDocument("1", "KinC binds KinD.", [Mention(0, 4, "KinC", "Ge\tne")])]
    good = io.StringIO()
    write_pubtator([DOCS[0]], good)
    for d in bad:
        buf = io.StringIO()
        with pytest.raises(InvalidParameterError, match="document"):
            write_pubtator([DOCS[0], d], buf)
        # the good document before it is complete, nothing of the bad one is written
        assert buf.getvalue() == good.getvalue()


@pytest.mark.slow
def test_bioinfer_discontinuous_entities_counted(data_dir, tmp_path):
    """BioInfer has discontinuous entities: every one is counted (not silently lost), the
    lost pairs are exactly those touching one, and the rest round-trips through PubTator."""
    from corpora.ppi_xml import iter_documents
    from corpora.text_input import ConversionStats, learning_to_text_document
    path = data_dir / "ppi" / "BioInfer-learning-format.xml.gz"
    if not path.exists():
        pytest.skip(f"{path} absent")
    stats = ConversionStats()
    docs, n_disc, lost, n_single = [], 0, 0, 0
    for _, _, doc in iter_documents(path):
        docs.append(learning_to_text_document(doc, discontinuous="drop", stats=stats))
        for s in doc.sentences:
            disc = {e.id for e in s.entities if len(e.offsets) > 1}
            spans = {e.id: e.offsets for e in s.entities}
            n_disc += len(disc)
            n_single += len(s.entities) - len(disc)
            lost += sum(p.e1 in disc or p.e2 in disc or spans[p.e1] == spans[p.e2]
                        for p in s.pairs)
    assert stats.discontinuous == n_disc > 0 and stats.pairs_lost == lost > 0
    assert stats.mentions + stats.merged == n_single
    written = [d for d in docs if d.text.strip()]
    got = list(read_documents(_pubtator(tmp_path, written), "pubtator"))
    assert [(d.id, d.text, d.mentions) for d in got] == \
        [(d.id, d.text, d.mentions) for d in written]
