"""BioC XML / JSON input (corpora.bioc) and the mention alignment shared with PubTator
(corpora.standoff): hand-made files with known answers, and the real BioCreative VI PPIm
training set (skipped when $KERNELRANK_DATA lacks it)."""

import gzip
import json

import pytest

from corpora.standoff import locate_mention, split_concept_ids
from corpora.text_input import ReadStats, detect_format, read_documents, read_pubtator
from kernelrank.errors import CorpusFormatError, InvalidParameterError

pytest.importorskip("bioc", reason="the bioc package is not installed "
                                   "(pip install 'kernelrank[text]')")
import bioc  # noqa: E402
import bioc.biocjson  # noqa: E402,F401
import bioc.biocxml  # noqa: E402,F401

TITLE = "KinC binds KinD."                       # 0..16
ABSTRACT = "We show that SpoIIE and sigmaF bind, and that KinC/KinD-P act."
#           0123456789012345678901234567890123456789012345678901234567890
TEXT = TITLE + " " + ABSTRACT                    # abstract at 17


def _ann(aid, gene, offset, length, text, locations=None):
    locs = "".join(f'<location offset="{o}" length="{n}"/>' for o, n in
                   (locations or [(offset, length)]))
    ident = f'<infon key="NCBI GENE">{gene}</infon>' if gene is not None else ""
    return (f'<annotation id="{aid}">{ident}<infon key="type">Gene</infon>{locs}'
            f"<text>{text}</text></annotation>")


def _document(doc_id, abstract_annotations, relations=""):
    return (f"<document><id>{doc_id}</id>"
            f'<passage><infon key="type">title</infon><offset>0</offset><text>{TITLE}</text>'
            + _ann("T0", "111", 0, 4, "KinC") + _ann("T1", "222", 11, 4, "KinD")
            + "</passage>"
            f'<passage><infon key="type">abstract</infon><offset>17</offset>'
            f"<text>{ABSTRACT}</text>{abstract_annotations}</passage>{relations}</document>")


def _collection(*documents):
    return ('<?xml version="1.0" encoding="UTF-8"?><collection><source>test</source>'
            "<date>2026</date><key>k</key>" + "".join(documents) + "</collection>")


SPOIIE = 17 + ABSTRACT.index("SpoIIE")
SIGMAF = 17 + ABSTRACT.index("sigmaF")
KINC2 = 17 + ABSTRACT.index("KinC/")
KIND_P = 17 + ABSTRACT.index("KinD-P")
GOOD = (_ann("A0", "333", SPOIIE + 3, 6, "SpoIIE")          # misaligned by 3: repaired
        + _ann("A1", "444", SIGMAF, 6, "sigmaF")
        + _ann("A1b", "444", SIGMAF, 6, "sigmaF")              # identical: merged
        + _ann("A2", "111", KINC2, 4, "KinC")
        + _ann("A2b", "555", KINC2, 4, "KinC")                 # same span, other id
        + _ann("A3", "222", KIND_P, 4, "KinD")
        + _ann("A4", "666", KIND_P, 6, "KinD-P"))              # overlaps A3
RELATIONS = ('<relation id="R0"><infon key="Gene1">222</infon><infon key="Gene2">111'
             '</infon><infon key="relation">PPIm</infon></relation>'
             '<relation id="R1"><infon key="Gene1">444</infon><infon key="Gene2">444'
             '</infon></relation>')


def _write(path, text, gz=False):
    data = text.encode("utf-8")
    path.write_bytes(gzip.compress(data) if gz else data)
    return path


def _expected_mentions():
    return [(0, 4, "KinC", "111"), (11, 15, "KinD", "222"), (SPOIIE, SPOIIE + 6, "SpoIIE", "333"),
            (SIGMAF, SIGMAF + 6, "sigmaF", "444"), (KINC2, KINC2 + 4, "KinC", "111,555"),
            (KIND_P, KIND_P + 4, "KinD", "222"), (KIND_P, KIND_P + 6, "KinD-P", "666")]


def test_bioc_xml_document_text_mentions_and_counts(tmp_path):
    path = _write(tmp_path / "a.bioc.xml.gz", _collection(_document("100", GOOD, RELATIONS)),
                  gz=True)
    stats = ReadStats()
    [doc] = read_documents(path, "bioc-xml", stats=stats)
    assert doc.id == "100" and doc.text == TEXT and doc.title_end == len(TITLE)
    got = [(m.start, m.end, m.text, m.id) for m in doc.mentions]
    assert got == _expected_mentions()
    for m in doc.mentions:
        assert doc.text[m.start:m.end] == m.text and m.type == "Gene"
    assert (stats.mentions, stats.mentions_repaired, stats.mentions_identical,
            stats.mentions_merged, stats.mentions_overlapping, stats.mentions_dropped) == \
        (7, 1, 1, 1, 2, 0)


def test_bioc_unplaceable_mentions_and_annotations_without_a_location(tmp_path):
    bad = (_ann("B0", "777", SPOIIE, 6, "Spo0A")                   # nowhere near: fails
           + '<annotation id="B1"><infon key="NCBI GENE">888</infon><infon key="type">Gene'
             "</infon><text>KinC</text></annotation>")             # no location: fails
    path = _write(tmp_path / "b.xml", _collection(_document("100", GOOD + bad)))
    with pytest.raises(CorpusFormatError, match="has no location") as info:
        list(read_documents(path, "bioc-xml"))
    assert info.value.record == "100/annotation B1"
    one = _write(tmp_path / "b1.xml", _collection(_document("100", GOOD + bad[:bad.index(
        '<annotation id="B1"')])))
    with pytest.raises(CorpusFormatError, match="'Spo0A' does not occur within 32") as info:
        list(read_documents(one, "bioc-xml"))
    assert info.value.record == "100/annotation B0"
    stats = ReadStats()
    [doc] = read_documents(path, "bioc-xml", skip_bad=True, stats=stats)
    assert [(m.start, m.end, m.text, m.id) for m in doc.mentions] == _expected_mentions()
    assert stats.mentions_dropped == 2 and stats.skipped == 0 and stats.documents == 1
    assert any("no location" in e for e in stats.mention_errors)


def test_a_discontinuous_annotation_is_one_mention_per_location(tmp_path):
    """Coordination ellipsis as BioCreative VI PPIm annotates it: "receptor types 1a and 5a"
    has the contiguous 1a and the discontinuous 5a ("receptor types" + "5a")."""
    title = "PP1 binds receptor types 1a and 5a."
    head, one_a, five_a = title.index("receptor types"), title.index("1a"), title.index("5a")
    doc_xml = (f"<document><id>7</id><passage><infon key=\"type\">title</infon><offset>0"
               f"</offset><text>{title}</text>"
               + _ann("P", "10", 0, 3, "PP1")
               + _ann("A", "11", head, five_a - head - 4, "receptor types 1a")   # wrong: 1a
               + _ann("B", "22", 0, 0, "receptor types 5a",
                      [(head, len("receptor types")), (five_a, 2)])
               + "</passage></document>")
    # "receptor types 1a" is written over a span that ends before "1a": repaired by its text
    path = _write(tmp_path / "e.xml", _collection(doc_xml))
    stats = ReadStats()
    [doc] = read_documents(path, "bioc-xml", stats=stats)
    got = {(m.start, m.end, m.text, m.id) for m in doc.mentions}
    assert got == {(0, 3, "PP1", "10"), (head, one_a + 2, "receptor types 1a", "11"),
                   (head, head + len("receptor types"), "receptor types", "22"),
                   (five_a, five_a + 2, "5a", "22")}
    assert stats.mentions_fragmented == 1 and stats.mentions_dropped == 0
    assert all(doc.text[m.start:m.end] == m.text for m in doc.mentions)
    # the same fragment span named by two annotations is one mention with both ids
    two = doc_xml.replace(_ann("P", "10", 0, 3, "PP1"), _ann("P", "10", 0, 3, "PP1") + _ann(
        "C", "33", 0, 0, "receptor types 7b", [(head, len("receptor types")), (one_a, 2)]))
    stats = ReadStats()
    [doc] = read_documents(_write(tmp_path / "f.xml", _collection(two)), "bioc-xml",
                           stats=stats)
    ids = {(m.start, m.end): m.id for m in doc.mentions}
    assert ids[(head, head + len("receptor types"))] == "33,22"
    assert ids[(one_a, one_a + 2)] == "33" and stats.mentions_fragmented == 2


def test_bioc_json_lines_and_collection_equal_xml(tmp_path):
    xml = _write(tmp_path / "c.xml", _collection(_document("100", GOOD, RELATIONS),
                                                 _document("200", "")))
    ref = [(d.id, d.text, d.mentions, d.title_end) for d in read_documents(xml, "bioc-xml")]
    collection = bioc.biocxml.load(open(xml, encoding="utf-8"))
    whole = tmp_path / "c.json"
    whole.write_text(bioc.biocjson.dumps(collection, indent=2), encoding="utf-8")
    lines = tmp_path / "c.jsonl"
    with bioc.biocjson.iterwriter(str(lines)) as writer:
        for d in collection.documents:
            writer.write(d)
    plain = tmp_path / "ptc.jsonl"                      # PubTator Central: no "bioctype"
    plain.write_text("".join(json.dumps({k: v for k, v in bioc.biocjson.toJSON(d).items()
                                         if k != "bioctype"}) + "\n"
                             for d in collection.documents), encoding="utf-8")
    for path in (whole, lines, plain):
        got = [(d.id, d.text, d.mentions, d.title_end)
               for d in read_documents(path, "bioc-json")]
        assert got == ref, path


def test_bioc_duplicate_document_ids_name_both(tmp_path):
    path = _write(tmp_path / "d.xml", _collection(_document("100", GOOD),
                                                  _document("200", ""),
                                                  _document("100", "")))
    with pytest.raises(CorpusFormatError, match=r"already document #1, line \d") as info:
        list(read_documents(path, "bioc-xml"))
    assert info.value.record == "100" and "document #3" in str(info.value)
    stats = ReadStats()
    docs = list(read_documents(path, "bioc-xml", skip_bad=True, stats=stats))
    assert [d.id for d in docs] == ["100", "200"] and len(docs[0].mentions) == 7
    assert stats.skipped == 1 and stats.mentions == 7 + 2     # doc 200: title mentions


def test_not_bioc_is_a_typed_error(tmp_path):
    with pytest.raises(CorpusFormatError, match="not BioC XML"):
        list(read_documents(_write(tmp_path / "e.xml", "<PubmedArticleSet/>"), "bioc-xml"))
    with pytest.raises(CorpusFormatError, match="not well-formed"):
        list(read_documents(_write(tmp_path / "f.xml", "<collection><document>"), "bioc-xml"))
    with pytest.raises(CorpusFormatError, match="not BioC JSON"):
        list(read_documents(_write(tmp_path / "g.json", '{"a": 1}'), "bioc-json"))
    with pytest.raises(CorpusFormatError, match="not a BioC document") as info:
        list(read_documents(_write(tmp_path / "h.json", '{"id": "1", "passages": []}\n[1]\n'),
                            "bioc-json"))
    assert info.value.line == 2
    overlap = _collection(_document("100", "").replace("<offset>17</offset>",
                                                       "<offset>5</offset>"))
    with pytest.raises(CorpusFormatError, match="overlaps"):
        list(read_documents(_write(tmp_path / "i.xml", overlap), "bioc-xml"))


def test_bioc_gold_relations(tmp_path):
    from corpora.bioc import read_bioc_relations
    bad = _ann("B1", "888", 0, 0, "KinC sigmaF", [(0, 4), (SIGMAF, 6)])   # not looked at
    path = _write(tmp_path / "r.xml", _collection(_document("100", GOOD + bad, RELATIONS),
                                                  _document("200", "")))
    assert list(read_bioc_relations(path)) == [("100", {("111", "222"), ("444", "444")}),
                                               ("200", set())]
    broken = _write(tmp_path / "s.xml", _collection(_document(
        "100", "", '<relation id="R9"><infon key="Gene1">1</infon></relation>')))
    with pytest.raises(CorpusFormatError, match="R9"):
        list(read_bioc_relations(broken))


# ----------------------------------------------------------------------------- PubTator
def test_pubtator_misaligned_mention_repaired_or_dropped(tmp_path):
    text = "p53 binds MDM2; MDM2 is bound."
    records = ("7|t|" + text + "\n"
               "7\t0\t3\tp53\tGene\t7157\n"
               "7\t7\t11\tMDM2\tGene\t4193\n"          # MDM2 is at 10: repaired
               "7\t10\t14\tMDM2\tGene\t4193\n"         # the same mention again: merged
               "7\t0\t3\tp53\tGene\t7157\n"            # identical: merged
               "7\t20\t25\tTP53BP\tGene\t1\n")          # absent: error / dropped
    path = _write(tmp_path / "p.pubtator", records + "\n")
    with pytest.raises(CorpusFormatError, match="TP53BP") as info:
        list(read_pubtator(path))
    assert info.value.line == 6 and info.value.record == "7"
    stats = ReadStats()
    [doc] = read_pubtator(path, skip_bad=True, stats=stats)
    assert [(m.start, m.end, m.id) for m in doc.mentions] == [(0, 3, "7157"), (10, 14, "4193")]
    assert (stats.mentions, stats.mentions_repaired, stats.mentions_identical,
            stats.mentions_dropped, stats.skipped) == (2, 1, 2, 1, 0)


def test_a_pubtator_relation_id_with_a_bar_no_mention_carries_is_an_error_naming_the_line(
        tmp_path):
    """``3175|77777777`` is no list of ids ('|' separates the fields of a tmVar variant id,
    which a mention then carries): an error naming the file and line, or with --skip-bad
    the relation left out and counted, its document kept; a variant id a mention carries
    is read as it is."""
    records = ("7|t|p53 binds MDM2 at c.120C>T.\n"
               "7\t0\t3\tp53\tGene\t7157\n"
               "7\t10\t14\tMDM2\tGene\t4193\n"
               "7\t18\t26\tc.120C>T\tSequenceVariant\tc|SUB|C|120|T\n"
               "7\tBind\t7157|77777777\t4193\n"
               "7\tAssociation\tc|SUB|C|120|T\t4193\n"
               "7\tBind\t7157\t4193\n")
    path = _write(tmp_path / "r.pubtator", records + "\n")
    with pytest.raises(CorpusFormatError, match=r"7157\|77777777") as info:
        list(read_pubtator(path))
    assert info.value.line == 5 and info.value.record == "7"
    assert str(path) in str(info.value) and "7157,77777777" in str(info.value)
    stats = ReadStats()
    [doc] = read_pubtator(path, skip_bad=True, stats=stats)
    assert [(r.id1, r.id2) for r in doc.relations] == [("c|SUB|C|120|T", "4193"),
                                                      ("7157", "4193")]
    assert (stats.relations, stats.relations_dropped, stats.skipped) == (2, 1, 0)
    assert "line 5" in stats.relation_errors[0]


def test_a_bioc_relation_with_an_empty_second_role_is_refused_for_training_as_for_the_gold(
        tmp_path):
    """One rule for the relations of a BioC file, whoever reads them: the documents of
    training (read_documents) and the gold of evaluate-documents (read_bioc_relations)
    refuse a relation with an empty Gene2 naming it, or with --skip-bad leave it out and
    count it the same way."""
    from corpora.bioc import read_bioc_relations

    broken = ('<relation id="R7"><infon key="Gene1">111</infon><infon key="Gene2"></infon>'
              '<infon key="relation">PPIm</infon></relation>')
    path = _write(tmp_path / "e.xml", _collection(_document("100", GOOD, RELATIONS + broken)))
    for read in (lambda **kw: list(read_documents(path, "bioc-xml", **kw)),
                 lambda **kw: list(read_bioc_relations(path, **kw))):
        with pytest.raises(CorpusFormatError, match="R7") as info:
            read()
        assert str(path) in str(info.value) and "second" in str(info.value)
        stats = ReadStats()
        assert len(read(skip_bad=True, stats=stats)) == 1
        assert (stats.relations, stats.relations_dropped, stats.skipped) == (2, 1, 0)
    stats = ReadStats()
    [doc] = read_documents(path, "bioc-xml", skip_bad=True, stats=stats)
    assert {(r.id1, r.id2) for r in doc.relations} == {("222", "111"), ("444", "444")}


def test_locate_mention_nearest_and_ambiguous():
    text = "xx AB yy AB zz"
    assert locate_mention(text, 3, 5, "AB") == (3, 5, None)
    assert locate_mention(text, 8, 10, "AB")[:2] == (9, 11)
    start, end, problem = locate_mention(text, 6, 8, "AB")        # 3 and 9 equally near
    assert start is None and "equally near" in problem
    assert locate_mention(text, 100, 102, "AB", window=4)[0] is None
    assert locate_mention(text, 0, 2, "  ")[0] is None
    assert split_concept_ids("1,2; 3") == ["1", "2", "3"]
    assert split_concept_ids("-") == [] and split_concept_ids(None) == []


def test_detect_format(tmp_path):
    assert detect_format(_write(tmp_path / "a.PubTator.gz", "x", gz=True)) == "pubtator"
    assert detect_format(_write(tmp_path / "a.bioc.json", "{}")) == "bioc-json"
    assert detect_format(_write(tmp_path / "a.txt", "x")) == "text"
    assert detect_format(tmp_path) == "text"
    assert detect_format(_write(tmp_path / "b.xml", '<?xml version="1.0"?>\n<!-- c -->'
                                "<collection><source/></collection>")) == "bioc-xml"
    assert detect_format(_write(tmp_path / "c.xml.gz", "<PubmedArticleSet>", gz=True)) == \
        "pubmed-xml"
    assert detect_format(_write(tmp_path / "d.xml", '<corpus source="x"/>')) == "learning-xml"
    for name in ("e.xml", "f.csv"):
        with pytest.raises(InvalidParameterError, match="--format"):
            detect_format(_write(tmp_path / name, "<html/>"))


# ----------------------------------------------------------------------------- real data
def _bc6(data_dir, kind):
    path = data_dir / "text" / f"PMtask_Relations_TrainingSet.{kind}.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    return path


def _raw_pubtator(path):
    """The annotation lines of a PubTator file read without :mod:`corpora`: ``{pmid: text}``
    (title + " " + abstract) and ``[(pmid, start, end, name)]``."""
    texts, annotations = {}, []
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        for line in handle:
            pmid, sep, rest = line.rstrip("\n").partition("|")
            if sep and rest[:2] in ("t|", "a|"):
                texts[pmid] = (texts[pmid] + " " if rest[0] == "a" else "") + rest[2:]
            elif line.strip():
                f = line.rstrip("\n").split("\t")
                annotations.append((f[0], int(f[1]), int(f[2]), f[3]))
    return texts, annotations


def _raw_bioc(path):
    """The documents, annotations and relations of a BioC XML file read with ElementTree
    (not :mod:`corpora`): document count, ``[(located as written?, ...)]`` per annotation —
    True when it has one location whose passage text is the annotation's text —, its
    number of locations per annotation, and the set of ``(document, unordered gene pair)``
    of its relations."""
    import xml.etree.ElementTree as ET
    with gzip.open(path) as handle:
        root = ET.parse(handle).getroot()
    placed, locations, pairs = [], [], set()
    for doc in root.iter("document"):
        for passage in doc.iter("passage"):
            offset, text = int(passage.findtext("offset")), passage.findtext("text") or ""
            for ann in passage.iter("annotation"):
                locs = ann.findall("location")
                start = int(locs[0].get("offset")) - offset
                placed.append(len(locs) == 1 and text[start:start + int(locs[0].get(
                    "length"))] == ann.findtext("text"))
                locations.append(len(locs))
        for rel in doc.iter("relation"):
            genes = {i.get("key"): i.text for i in rel.iter("infon")}
            pairs.add((doc.findtext("id"), frozenset((genes["Gene1"], genes["Gene2"]))))
    return len(root.findall("document")), placed, locations, pairs


def test_real_bc6_bioc_and_pubtator_agree(data_dir, tmp_path):
    """Invariants of the real BC6 PPIm training set, each counted here from the raw file
    without :mod:`corpora` (no count is copied from the documentation)."""
    from corpora.bioc import read_bioc_relations
    from corpora.text_input import write_pubtator
    pub_path, xml_path = _bc6(data_dir, "pubtator"), _bc6(data_dir, "bioc.xml")
    texts, raw_pub = _raw_pubtator(pub_path)
    n_xml, placed, locations, raw_pairs = _raw_bioc(xml_path)
    pub_stats, bioc_stats = ReadStats(), ReadStats()
    pub = {d.id: d for d in read_pubtator(pub_path, skip_bad=True, stats=pub_stats)}
    xml = {d.id: d for d in read_documents(xml_path, "bioc-xml", skip_bad=True,
                                           stats=bioc_stats)}
    assert len(pub) == len(texts) == n_xml and pub.keys() == xml.keys() == texts.keys()
    assert pub_stats.skipped == bioc_stats.skipped == 0
    assert all(pub[k].text == texts[k] for k in pub)
    # every annotation of the file is kept, merged or counted as dropped; in BioC a
    # discontinuous annotation is one mention per location
    assert len(raw_pub) == len(placed)
    fragments = sum(n for n in locations if n > 1)
    assert bioc_stats.mentions_fragmented == sum(n > 1 for n in locations) > 0
    assert pub_stats.mentions_fragmented == 0
    # nothing in the BioC file needs --skip-bad any more: read strictly, the same mentions
    strict = {d.id: d for d in read_documents(xml_path, "bioc-xml")}
    assert all(strict[k].mentions == xml[k].mentions for k in xml)
    for s, extra in ((pub_stats, 0), (bioc_stats, fragments - bioc_stats.mentions_fragmented)):
        assert (s.mentions + s.mentions_dropped + s.mentions_identical + s.mentions_merged
                == len(raw_pub) + extra)
    # exactly the annotations whose text is not at their offsets are repaired or dropped
    misplaced_pub = sum(texts[d][s:e] != name for d, s, e, name in raw_pub)
    assert 0 < pub_stats.mentions_repaired + pub_stats.mentions_dropped == misplaced_pub
    misplaced_bioc = sum(not ok for ok, n in zip(placed, locations) if n == 1)
    assert 0 < bioc_stats.mentions_repaired + bioc_stats.mentions_dropped == misplaced_bioc
    # and afterwards every mention's offsets point at its text
    for docs in (pub, xml):
        assert all(d.text[m.start:m.end] == m.text for d in docs.values() for m in d.mentions)
    # the repaired documents, written and read back, need no repair and keep their mentions
    written = tmp_path / "repaired.pubtator"
    with open(written, "w", encoding="utf-8") as handle:
        write_pubtator(pub.values(), handle)
    again_stats = ReadStats()
    again = {d.id: d for d in read_pubtator(written, stats=again_stats)}
    assert again_stats.mentions_repaired == again_stats.mentions_dropped == 0
    assert again_stats.mentions == pub_stats.mentions
    assert all(again[k].mentions == pub[k].mentions for k in pub)
    # where the two exports have the same text, they have the same mentions
    same = [k for k in pub if pub[k].text == xml[k].text]
    assert len(same) > 550
    for k in same:
        assert ({(m.start, m.end, m.id) for m in pub[k].mentions}
                - {(m.start, m.end, m.id) for m in xml[k].mentions}) <= \
            {(m.start, m.end, m.id) for m in pub[k].mentions if "," in (m.id or "")}, k
    # the gold relations: one per document and unordered gene pair (repeats counted once)
    gold = dict(read_bioc_relations(xml_path))
    assert gold.keys() == pub.keys() and all(gold.values())
    assert sum(len(p) for p in gold.values()) == len(raw_pairs)


def test_mentions_without_id_are_kept_and_counted(tmp_path):
    path = _write(tmp_path / "n.xml", _collection(_document("100", _ann("N0", None, SPOIIE, 6,
                                                                        "SpoIIE"))))
    stats = ReadStats()
    [doc] = read_documents(path, "bioc-xml", stats=stats)
    assert [(m.text, m.id) for m in doc.mentions] == [("KinC", "111"), ("KinD", "222"),
                                                      ("SpoIIE", None)]
    assert stats.mentions_without_id == 1 and stats.mentions == 3
