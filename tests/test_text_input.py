"""Streaming raw-text readers (corpora.text_input): PubTator, PubMed XML, plain text,
learning-format XML; malformed records stop the read or are skipped and counted."""

import gzip
import io

import pytest

from corpora.text_input import (Mention, ReadStats, TextDocument, read_documents,
                                write_pubmed_xml, write_pubtator)
from learners.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError

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
    text = _pubtator(tmp_path).read_text(encoding="utf-8")
    bad = text.replace("102|t|", "102|t|", 1).replace("103\t0\t4\tIL-2", "103\t1\t5\tIL-2", 1)
    path = tmp_path / "bad.pubtator"
    path.write_text(bad, encoding="utf-8")
    with pytest.raises(CorpusFormatError) as err:
        list(read_documents(path, "pubtator"))
    msg = str(err.value)
    assert "'103'" in msg and "line" in msg and str(path) in msg
    # the line number is the annotation's line
    lineno = next(i for i, l in enumerate(bad.splitlines(), 1) if l.startswith("103\t1\t5"))
    assert err.value.line == lineno
    stats = ReadStats()
    got = list(read_documents(path, "pubtator", skip_bad=True, stats=stats))
    assert [d.id for d in got] == ["101", "102"]
    assert stats.skipped == 1 and "103" in stats.errors[0]


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
