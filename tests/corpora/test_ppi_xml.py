"""PPI corpus reader/writer (corpora/ppi_xml.py): counts of the five real corpora equal to
those of an independent ElementTree reading, round trips, the interaction-XML variant, and errors naming the record."""

import functools
import gzip
import re

import pytest

from corpora.ppi_xml import (corpus_statistics, format_offsets, parse_offsets, read_corpus,
                             write_corpus)
from kernelrank.errors import CorpusFormatError, InvalidParameterError

CORPORA = ("AIMed", "BioInfer", "HPRD50", "IEPA", "LLL")

SMALL = """<?xml version="1.0" encoding="UTF-8"?>
<corpus source="TOY">
  <document id="TOY.d0" origId="1">
    <sentence id="TOY.d0.s0" origId="1-1" text="KinC binds Spo0A-P and KinD.">
      <entity charOffset="0-3" id="TOY.d0.s0.e0" origId="a" text="KinC" type="protein" />
      <entity charOffset="11-15,17-17" id="TOY.d0.s0.e1" origId="b" text="Spo0A P" type="protein" />
      <entity charOffset="23-26" id="TOY.d0.s0.e2" origID="c" text="KinD" />
      <pair e1="TOY.d0.s0.e0" e2="TOY.d0.s0.e1" id="TOY.d0.s0.p0" interaction="True" />
      <pair e1="TOY.d0.s0.e0" e2="TOY.d0.s0.e2" id="TOY.d0.s0.p1" interaction="False" />
      <sentenceanalyses>
        <parses>
          <parse parser="split_parse" tokenizer="split">
            <dependency id="sp_1" t1="st_2" t2="st_1" type="nsubj" />
            <dependency t1="st_2" t2="st_3" type="dobj" />
            <dependency id="sp_3" t1="st_2" t2="st_7" type="punct" />
          </parse>
        </parses>
        <tokenizations>
          <tokenization tokenizer="split">
            <token POS="NN" charOffset="0-3" id="st_1" text="KinC" />
            <token POS="VBZ" charOffset="5-9" id="st_2" text="binds" />
            <token POS="NN" charOffset="11-15" id="st_3" text="Spo0A" />
            <token POS="HYPH" charOffset="16-16" id="st_4" text="-" />
            <token POS="NN" charOffset="17-17" id="st_5" text="P" />
            <token POS="CC" charOffset="19-21" id="st_6" text="and" />
            <token POS="." charOffset="27-27" id="st_7" text="." />
          </tokenization>
        </tokenizations>
      </sentenceanalyses>
    </sentence>
  </document>
</corpus>
"""


@functools.lru_cache(maxsize=None)
def real(data_dir, name):
    return read_corpus(data_dir / "ppi" / f"{name}-learning-format.xml.gz")


def _raw_counts(path):
    """Documents, sentences, entities, pairs, positive and negative pairs of a learning-format
    file counted with ElementTree (not :mod:`corpora`), and whether every pair names two
    entities of its own sentence."""
    import xml.etree.ElementTree as ET
    with gzip.open(path) as handle:
        root = ET.parse(handle).getroot()
    sentences = root.findall("document/sentence")
    pairs = [p for s in sentences for p in s.findall("pair")]
    positive = sum(p.get("interaction") == "True" for p in pairs)
    own = all({p.get("e1"), p.get("e2")} <= {e.get("id") for e in s.findall("entity")}
              for s in sentences for p in s.findall("pair"))
    return ((len(root.findall("document")), len(sentences),
             sum(len(s.findall("entity")) for s in sentences), len(pairs), positive,
             len(pairs) - positive), own)


@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.slow
def test_counts_equal_an_independent_reading(data_dir, name):
    c = real(data_dir, name)
    s = corpus_statistics(c)
    got = tuple(s[k] for k in ("documents", "sentences", "entities", "pairs", "positive",
                               "negative"))
    raw, own = _raw_counts(data_dir / "ppi" / f"{name}-learning-format.xml.gz")
    assert got == raw and own
    assert min(got) > 0 and s["positive"] + s["negative"] == s["pairs"]
    # every sentence has both analyses; entity text matches its (inclusive) offsets
    for sent in c.sentences():
        for parse in ("split_parse", "Charniak-Lease"):
            tokens, deps = sent.analysis(parse)
            assert tokens or not deps
        for e in sent.entities[:3]:
            assert sent.text[e.offsets[0][0]:e.offsets[0][1] + 1] in e.text or \
                len(e.offsets) > 1


def test_discontinuous_entities_bioinfer(data_dir):
    c = real(data_dir, "BioInfer")
    n = sum(len(e.offsets) > 1 for s in c.sentences() for e in s.entities)
    with gzip.open(data_dir / "ppi" / "BioInfer-learning-format.xml.gz", "rt",
                   encoding="utf-8") as handle:      # entities whose charOffset lists spans
        raw = sum("," in m for m in re.findall(r'<entity [^>]*charOffset="([^"]*)"',
                                               handle.read()))
    assert n == raw > 0


def test_offsets():
    assert parse_offsets("21-24,26-29") == ((21, 24), (26, 29))
    assert parse_offsets("21-25", "interaction") == ((21, 24),)
    assert format_offsets(((21, 24),), "interaction") == "21-25"
    with pytest.raises(CorpusFormatError, match="charOffset"):
        parse_offsets("7-3")


@pytest.mark.parametrize("suffix", [".xml", ".xml.gz"])
def test_round_trip_small(tmp_path, suffix):
    src = tmp_path / "toy.xml"
    src.write_text(SMALL)
    c = read_corpus(src)
    s = c.documents[0].sentences[0]
    assert s.entities[1].offsets == ((11, 15), (17, 17))
    assert dict(s.entities[2].attrs) == {"origID": "c"} and s.entities[2].type is None
    assert s.parses["split_parse"].dependencies[1].id is None
    out = write_corpus(c, tmp_path / f"out{suffix}")
    assert read_corpus(out) == c


def test_round_trip_real_corpus(data_dir, tmp_path):
    c = real(data_dir, "LLL")
    out = write_corpus(c, tmp_path / "LLL.xml.gz")
    assert read_corpus(out) == c


def test_interaction_variant(tmp_path):
    src = tmp_path / "toy.xml"
    src.write_text(SMALL)
    c = read_corpus(src)
    out = write_corpus(c, tmp_path / "inter.xml", variant="interaction")
    text = out.read_text()
    assert 'charOffset="0-4"' in text and "sentenceanalyses" not in text
    back = read_corpus(out)
    assert back.documents[0].sentences[0].entities == c.documents[0].sentences[0].entities
    assert back.documents[0].sentences[0].pairs == c.documents[0].sentences[0].pairs
    # plain interaction XML: exclusive ends given explicitly, <interaction> = positive pair
    raw = tmp_path / "raw.xml"
    raw.write_text('<corpus source="X"><document id="d"><sentence id="d.s0" text="A binds B">'
                   '<entity id="d.s0.e0" charOffset="0-1" text="A"/>'
                   '<entity id="d.s0.e1" charOffset="8-9" text="B"/>'
                   '<interaction id="d.s0.i0" e1="d.s0.e0" e2="d.s0.e1"/>'
                   '</sentence></document></corpus>')
    c2 = read_corpus(raw, variant="interaction")
    s = c2.documents[0].sentences[0]
    assert s.entities[1].offsets == ((8, 8),) and s.pairs[0].interaction
    with pytest.raises(CorpusFormatError, match="no parse"):
        s.analysis("split_parse")
    assert read_corpus(write_corpus(c2, tmp_path / "again.xml", variant="interaction"),
                       variant="interaction") == c2


@pytest.mark.parametrize("bad, where", [
    ('e2="TOY.d0.s0.e1" id="TOY.d0.s0.p0" interaction="True"',
     'e2="TOY.d0.s0.e9" id="TOY.d0.s0.p0" interaction="True"'),
    ('charOffset="0-3" id="TOY.d0.s0.e0"', 'charOffset="0-x" id="TOY.d0.s0.e0"'),
    ('interaction="False"', 'interaction="maybe"'),
    ('t1="st_2" t2="st_3"', 't1="st_2" t2="st_99"'),
])
def test_malformed_input_names_the_record(tmp_path, bad, where):
    p = tmp_path / "bad.xml.gz"
    with gzip.open(p, "wt") as h:
        h.write(SMALL.replace(bad, where))
    with pytest.raises(CorpusFormatError, match=r"bad\.xml\.gz.*TOY\.d0\.s0"):
        read_corpus(p)


def test_not_xml_and_bad_parameters(tmp_path):
    p = tmp_path / "x.xml"
    p.write_text("<corpus><document id='a'>")
    with pytest.raises(CorpusFormatError, match="x.xml"):
        read_corpus(p)
    p.write_text(SMALL)
    with pytest.raises(InvalidParameterError):
        read_corpus(p, variant="json")
    with pytest.raises(InvalidParameterError):
        read_corpus(p).documents[0].sentences[0].analysis("stanford")
