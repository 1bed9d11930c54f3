"""Inconsistent records are refused by name, consistent real ones are read unchanged.

The learning-format reader refuses an entity whose ``text`` contradicts its ``charOffset``
(accepted, it would move the pair's score), duplicate entity, pair, sentence and document
ids, and a pair of an entity with itself; a PMID repeated in PubTator input is refused, as
it would give two records with the same ``(doc_id, pair_id)``. Each case is built
here by one edit of a small valid file the test writes; the expected line is the line of
the edited element in that file, found by the test itself.
"""

import collections
import gzip

import pytest

from corpora.ppi_xml import iter_documents, read_corpus
from corpora.text_input import ReadStats, read_learning_xml, read_pubmed_xml, read_pubtator
from kernelrank.errors import CorpusFormatError

TOY = """<?xml version="1.0" encoding="UTF-8"?>
<corpus source="TOY">
  <document id="TOY.d0">
    <sentence id="TOY.d0.s0" text="KinC binds Spo0A-P and KinD.">
      <entity charOffset="0-3" id="TOY.d0.s0.e0" text="KinC" type="protein" />
      <entity charOffset="11-15,17-17" id="TOY.d0.s0.e1" text="Spo0A P" type="protein" />
      <entity charOffset="23-26" id="TOY.d0.s0.e2" text="KinD" type="protein" />
      <pair e1="TOY.d0.s0.e0" e2="TOY.d0.s0.e1" id="TOY.d0.s0.p0" interaction="True" />
      <pair e1="TOY.d0.s0.e0" e2="TOY.d0.s0.e2" id="TOY.d0.s0.p1" interaction="False" />
    </sentence>
  </document>
  <document id="TOY.d1">
    <sentence id="TOY.d1.s0" text="A binds B.">
      <entity charOffset="0-0" id="TOY.d1.s0.e0" text="A" type="protein" />
      <entity charOffset="8-8" id="TOY.d1.s0.e1" text="B" type="protein" />
      <pair e1="TOY.d1.s0.e0" e2="TOY.d1.s0.e1" id="TOY.d1.s0.p0" interaction="True" />
    </sentence>
  </document>
</corpus>
"""


def _write(tmp_path, text, name="toy.xml.gz"):
    path = tmp_path / name
    with gzip.open(path, "wt", encoding="utf-8") as handle:
        handle.write(text)
    return path


def _line_of(text, fragment, nth=1):
    """1-based line of the ``nth`` line of ``text`` that contains ``fragment``."""
    hits = [i for i, line in enumerate(text.splitlines(), 1) if fragment in line]
    return hits[nth - 1]


def test_toy_corpus_is_valid(tmp_path):
    corpus = read_corpus(_write(tmp_path, TOY))
    assert [len(d.sentences) for d in corpus.documents] == [1, 1]


# (edit of TOY: old, new), message fragment, record id, (fragment, nth) of the reported line
BAD = {
    "entity text contradicts its offsets": (
        ('text="KinD" type', 'text="KinC" type'),
        "has text 'KinC' but its charOffset 23-26 reads 'KinD'", "TOY.d0.s0.e2",
        ('id="TOY.d0.s0.e2"', 1)),
    "offsets moved off the entity": (
        ('charOffset="23-26"', 'charOffset="22-25"'),
        "reads ' Kin'", "TOY.d0.s0.e2", ('id="TOY.d0.s0.e2"', 1)),
    "discontinuous entity with the wrong fragments": (
        ('charOffset="11-15,17-17"', 'charOffset="11-14,17-17"'),
        "reads 'Spo0 P'", "TOY.d0.s0.e1", ('id="TOY.d0.s0.e1"', 1)),
    "offset beyond the sentence": (
        ('charOffset="8-8"', 'charOffset="8-10"'),
        "lies outside its sentence", "TOY.d1.s0.e1", ('id="TOY.d1.s0.e1"', 1)),
    "fragments out of order": (
        ('charOffset="11-15,17-17" id="TOY.d0.s0.e1" text="Spo0A P"',
         'charOffset="17-17,11-15" id="TOY.d0.s0.e1" text="P Spo0A"'),
        "increasing order without overlap", "TOY.d0.s0.e1", ('id="TOY.d0.s0.e1"', 1)),
    "duplicate entity id": (
        ('id="TOY.d0.s0.e2"', 'id="TOY.d0.s0.e1"'),
        "duplicate entity id 'TOY.d0.s0.e1' (first at line 6)", "TOY.d0.s0.e1",
        ('id="TOY.d0.s0.e1"', 2)),
    "duplicate pair id with the opposite label": (
        ('id="TOY.d0.s0.p1" interaction="False"', 'id="TOY.d0.s0.p0" interaction="False"'),
        "duplicate pair id 'TOY.d0.s0.p0' (first at line 8)", "TOY.d0.s0.p0",
        ('id="TOY.d0.s0.p0"', 2)),
    "pair of an entity with itself": (
        ('e1="TOY.d1.s0.e0" e2="TOY.d1.s0.e1"', 'e1="TOY.d1.s0.e1" e2="TOY.d1.s0.e1"'),
        "pairs entity TOY.d1.s0.e1 with itself", "TOY.d1.s0.p0", ('id="TOY.d1.s0.p0"', 1)),
    "the same two entities paired twice": (
        ('e1="TOY.d0.s0.e0" e2="TOY.d0.s0.e2"', 'e1="TOY.d0.s0.e1" e2="TOY.d0.s0.e0"'),
        "already pair TOY.d0.s0.p0", "TOY.d0.s0.p1", ('id="TOY.d0.s0.p1"', 1)),
    "pair naming an entity of another sentence": (
        ('e2="TOY.d1.s0.e1"', 'e2="TOY.d0.s0.e1"'),
        "refers to entity 'TOY.d0.s0.e1', which is not in sentence TOY.d1.s0",
        "TOY.d1.s0.p0", ('id="TOY.d1.s0.p0"', 1)),
    "duplicate sentence id": (
        ('<sentence id="TOY.d1.s0"', '<sentence id="TOY.d0.s0"'),
        "duplicate sentence id 'TOY.d0.s0' (first at line 4)", "TOY.d0.s0",
        ('<sentence id="TOY.d0.s0"', 2)),
    "duplicate document id": (
        ('<document id="TOY.d1">', '<document id="TOY.d0">'),
        "duplicate document id 'TOY.d0' (first at line 3)", "TOY.d0",
        ('<document id="TOY.d0"', 2)),
}


@pytest.mark.parametrize("case", BAD)
def test_inconsistent_learning_format_record_is_named(tmp_path, case):
    (old, new), message, record, (fragment, nth) = BAD[case]
    assert TOY.count(old) == 1
    text = TOY.replace(old, new)
    path = _write(tmp_path, text, "bad.xml.gz")
    with pytest.raises(CorpusFormatError) as info:
        read_corpus(path)
    err = info.value
    assert message in str(err)
    assert err.path == path and str(path) in str(err)
    assert err.record == record
    assert err.line == _line_of(text, fragment, nth)


@pytest.mark.parametrize("case", ["duplicate document id", "duplicate sentence id",
                                  "pair of an entity with itself"])
def test_streaming_readers_refuse_too(tmp_path, case):
    # ppi extract reads learning-format XML through iter_documents, not read_corpus
    (old, new), message, _, _ = BAD[case]
    path = _write(tmp_path, TOY.replace(old, new), "bad.xml.gz")
    with pytest.raises(CorpusFormatError, match=message.split(" (")[0]):
        list(iter_documents(path))
    with pytest.raises(CorpusFormatError, match=message.split(" (")[0]):
        list(read_learning_xml(path))


@pytest.mark.parametrize("old, new", [
    # attribute normalisation of XML: a tab or line break in both texts reads as a space
    ('text="A binds B."', 'text="A&#10;binds B."'),
    # fragments of a discontinuous entity joined by whitespace other than one space
    ('text="Spo0A P"', 'text="Spo0A  P"'),
])
def test_whitespace_variants_of_a_matching_text_are_accepted(tmp_path, old, new):
    corpus = read_corpus(_write(tmp_path, TOY.replace(old, new)))
    assert sum(len(s.entities) for s in corpus.sentences()) == 5


def test_missing_entity_text_is_taken_from_the_offsets(tmp_path):
    corpus = read_corpus(_write(tmp_path, TOY.replace(' text="Spo0A P"', "")))
    entity = corpus.documents[0].sentences[0].entities[1]
    assert entity.text == "Spo0A P"


def test_interaction_variant_end_is_exclusive_and_checked(tmp_path):
    raw = ('<corpus source="X" variant="interaction"><document id="d"><sentence id="d.s0" '
           'text="A binds B"><entity id="d.s0.e0" charOffset="0-1" text="A"/>'
           '<entity id="d.s0.e1" charOffset="8-{end}" text="B"/>'
           '<interaction id="d.s0.i0" e1="d.s0.e0" e2="d.s0.e1"/></sentence></document>'
           '</corpus>')
    assert read_corpus(_write(tmp_path, raw.format(end=9))).documents[0].sentences[0].pairs
    # one character past the end of the sentence (9 characters)
    with pytest.raises(CorpusFormatError, match="lies outside its sentence"):
        read_corpus(_write(tmp_path, raw.format(end=10), "past.xml.gz"))


CORPORA = ("AIMed", "BioInfer", "HPRD50", "IEPA", "LLL")


@pytest.mark.parametrize("name", CORPORA)
@pytest.mark.slow
def test_real_corpora_are_consistent(data_dir, name):
    path = data_dir / "ppi" / f"{name}-learning-format.xml.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    corpus = read_corpus(path)
    ids = collections.Counter()
    for doc in corpus.documents:
        ids[doc.id] += 1
        for s in doc.sentences:
            ids[s.id] += 1
            for e in s.entities:
                ids[e.id] += 1
                # the rule of the reader, restated: fragments joined by one space (exactly,
                # in all five corpora)
                assert e.text == " ".join(s.text[a:b + 1] for a, b in e.offsets)
            names = {e.id for e in s.entities}
            for p in s.pairs:
                ids[p.id] += 1
                assert p.e1 != p.e2 and {p.e1, p.e2} <= names
            assert len({frozenset((p.e1, p.e2)) for p in s.pairs}) == len(s.pairs)
    assert max(ids.values()) == 1


# ----------------------------------------------------------------------------- PubTator
PUBTATOR = ("100|t|KinC binds KinD.\n100|a|Nothing else.\n100\t0\t4\tKinC\tGene\n\n"
            "200|t|A binds B.\n200\t0\t1\tA\tGene\n\n"
            "100|t|KinC binds KinD again.\n100\t11\t15\tKinD\tGene\n")


def test_repeated_pmid_in_pubtator_names_both_records(tmp_path):
    path = tmp_path / "dup.pubtator"
    path.write_text(PUBTATOR)
    with pytest.raises(CorpusFormatError, match="already the record at line 1") as info:
        list(read_pubtator(path))
    assert info.value.line == 8 and info.value.record == "100"
    stats = ReadStats()
    docs = list(read_pubtator(path, skip_bad=True, stats=stats))
    assert [d.id for d in docs] == ["100", "200"] and docs[0].text.endswith("Nothing else.")
    assert stats.skipped == 1 and "line 8" in stats.errors[0]


def test_real_pubtator_pmids_are_distinct(data_dir):
    path = data_dir / "text" / "PMtask_Relations_TrainingSet.pubtator.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    stats = ReadStats()
    ids = [d.id for d in read_pubtator(path, skip_bad=True, stats=stats)]
    with gzip.open(path, "rt", encoding="utf-8") as handle:      # title lines of the file
        titles = sum("|t|" in line.split("\t", 1)[0] for line in handle)
    assert len(ids) == len(set(ids)) and len(ids) + stats.skipped == titles > 0


# ----------------------------------------------------------------------------- PubMed
def _article(pmid, title, version=None):
    v = f' Version="{version}"' if version else ""
    return (f"<PubmedArticle>\n<MedlineCitation>\n<PMID{v}>{pmid}</PMID>\n<Article>\n"
            f"<ArticleTitle>{title}</ArticleTitle>\n</Article>\n</MedlineCitation>\n"
            "</PubmedArticle>\n")


def test_repeated_pmid_in_pubmed_xml_names_both_articles(tmp_path):
    body = _article(1, "One") + _article(2, "Two") + _article(1, "One again")
    path = tmp_path / "dup.xml"
    path.write_text(f"<PubmedArticleSet>\n{body}</PubmedArticleSet>\n")
    with pytest.raises(CorpusFormatError, match=r"already article #1, line 2.*article #3") \
            as info:
        list(read_pubmed_xml(path))
    assert info.value.line == 2 + 2 * 8 and info.value.record == "1"
    stats = ReadStats()
    assert [d.text for d in read_pubmed_xml(path, skip_bad=True, stats=stats)] == \
        ["One", "Two"]
    assert stats.skipped == 1


def test_versions_of_a_pubmed_citation_are_distinct_documents(tmp_path):
    body = _article(7, "First", 1) + _article(7, "Second", 2) + _article(8, "Other")
    path = tmp_path / "versions.xml"
    path.write_text(f"<PubmedArticleSet>\n{body}</PubmedArticleSet>\n")
    assert [d.id for d in read_pubmed_xml(path)] == ["7", "7.2", "8"]


@pytest.mark.slow
def test_real_pubmed_ids_are_distinct(data_dir):
    path = data_dir / "text" / "pubmed20n1015.xml.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    ids = [d.id for d in read_pubmed_xml(path)]
    with gzip.open(path, "rt", encoding="utf-8") as handle:      # records of the file
        records = handle.read().count("<PubmedArticle>")
    assert len(ids) == len(set(ids)) == records > 0
    assert [i for i in ids if i.startswith("31828225")] == \
        ["31828225.2", "31828225.3", "31828225.4"]
