"""ppi on raw text: lexicon tagger (vs brute force), spaCy parsing into the learning-format
sentence structure, and ``python -m ppi extract`` end to end on real LLL sentences written
out as PubTator and PubMed XML (one record per candidate pair, offsets, Dask, resume after
a kill)."""

import itertools
import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest
from tests.conftest import lll_abstracts as _abstracts
from tests.conftest import lll_path as _lll
from tests.conftest import write_pubtator_file as _write_pubtator

from corpora.text_input import Mention, TextDocument, write_pubmed_xml
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from ppi.extraction.mentions import DictionaryTagger, build_lexicon, document_mentions, normalize_name


# ----------------------------------------------------------------------------- tagger
def _brute_force_tag(names, text, min_length=2):
    """Every (start, end) on word boundaries whose normalized text is a name written in a
    way the name's spellings allow (no space where no spelling has a separator, unless
    between a letter and a digit; a short name in lower case only if a spelling is); then
    left-to-right longest non-overlapping choice."""
    hyphens = set("-\u2010\u2011\u2012\u2013\u2014\u2212")
    ignored = hyphens | set(" \t\n\r\u00a0")

    def cuts(name, marks):            # positions among the kept characters after a mark
        kept = [c for c in name if c not in ignored]
        return {len([c for c in name[:j] if c not in ignored]) for j, c in enumerate(name)
                if c in marks} - {0, len(kept)}

    spellings = {}
    for n in names:
        if len(normalize_name(n)) >= min_length:
            spellings.setdefault(normalize_name(n), []).append(n)

    def allowed(occurrence):
        key = normalize_name(occurrence)
        seps = set().union(*(cuts(n, ignored) for n in spellings[key]))
        for k in cuts(occurrence, ignored - hyphens):
            if k not in seps and key[k - 1].isdigit() == key[k].isdigit():
                return False
        return (len(key) > 3 or occurrence != occurrence.lower()
                or any(n == n.lower() for n in spellings[key]))

    out, i = [], 0
    while i < len(text):
        best = -1
        if text[i] not in ignored and (i == 0 or not text[i - 1].isalnum()):
            for end in range(i + 1, len(text) + 1):
                if text[end - 1] in ignored or (end < len(text) and text[end].isalnum()):
                    continue
                if normalize_name(text[i:end]) in spellings and allowed(text[i:end]):
                    best = end
        if best > 0:
            out.append((i, best))
            i = best
        else:
            i += 1
    return out


def test_tagger_normalization_examples():
    t = DictionaryTagger(["IL-2", "IL-2 receptor", "p53"])
    text = "IL2, IL 2 and Il\u20112 bind the IL-2-receptor; IL-22 and p53s do not; xp53 neither."
    got = [(m.text, m.start) for m in t.tag(text)]
    assert got == [("IL2", 0), ("IL 2", 5), ("Il\u20112", 14), ("IL-2-receptor", 28)]


def test_tagger_keeps_ordinary_words_out():
    """The two rules of ppi.extraction.mentions: a space only where a spelling has a separator (or
    between a letter and a digit), and a short name all in lower case only when a spelling
    is — the false genes of a PubMed file tagged with BioRED's lexicon."""
    t = DictionaryTagger([("UP", "7380"), ("EPOR", "2057"), ("SOCS3", "9021"),
                          ("PRLR", "5618"), ("AT", "1"), ("PTPN22", "26191"),
                          ("p53", "7157"), ("TNF receptor", "7132"), ("Bad", "572")])
    text = ("HPV up-regulated GLUT1; e por EPOR; SOCS-3 and SOCS 3 and PRL-R; a T; "
            "ptpn22 and Ptpn22; p53 and P53; TNF-receptor; bad news; BAD binds; "
            "UP is uroplakin")
    got = [m.text for m in t.tag(text)]
    assert got == ["EPOR", "SOCS-3", "SOCS 3", "PRL-R", "ptpn22", "Ptpn22", "p53", "P53",
                   "TNF-receptor", "BAD", "UP"]


def test_tagger_equals_brute_force(rng):
    alphabet = list("aAb1-  .")
    for _ in range(200):
        names = ["".join(rng.choice(alphabet[:4], size=rng.integers(1, 5)))
                 for _ in range(rng.integers(1, 6))]
        if all(len(normalize_name(n)) < 2 for n in names):
            continue
        text = "".join(rng.choice(alphabet, size=rng.integers(0, 40)))
        got = [(m.start, m.end) for m in DictionaryTagger(names).tag(text)]
        assert got == _brute_force_tag(names, text), (names, text)


def test_tagger_errors_and_given_annotations(tmp_path):
    with pytest.raises(InvalidParameterError):
        DictionaryTagger(["a", "-"])
    doc = TextDocument("d", "KinC", [Mention(0, 4, "KinC")])
    assert document_mentions(doc) == doc.mentions
    with pytest.raises(CorpusFormatError, match="lexicon"):
        document_mentions(TextDocument("d", "KinC"))
    lex = tmp_path / "lex.txt"
    lex.write_text("# comment\nKinC\n\n", encoding="utf-8")
    assert [m.text for m in DictionaryTagger(lexicon=lex).tag("a KinC b")] == ["KinC"]


def test_tagger_gives_each_name_its_lexicon_id():
    tagger = DictionaryTagger([("IL-2", "3558"), ("p53", None), ("P-53", "7157"),
                               ("TNF", "7124"), ("tnf", "21926"), "KinA"])
    got = [(m.text, m.id) for m in tagger.tag("IL2 binds p53, TNF and kinA; IL 2 too")]
    # a name-only entry takes a later entry's id; otherwise the first entry of a name wins
    assert got == [("IL2", "3558"), ("p53", "7157"), ("TNF", "7124"), ("kinA", None),
                   ("IL 2", "3558")]


@pytest.mark.parametrize("line, fields", [("a\tb\tc", "3 tab-separated fields"),
                                          ("\t123", "and no name")])
def test_lexicon_line_errors_name_the_line(tmp_path, line, fields):
    from ppi.extraction.mentions import read_lexicon_entries
    lex = tmp_path / "lex.txt"
    lex.write_text(f"# comment\nKinA\t1\n\n{line}\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match=f"lex.txt, line 4: .*{fields}"):
        read_lexicon_entries(lex)
    lex.write_text("KinA\t 1 \nSpo0A\t\n", encoding="utf-8")
    assert read_lexicon_entries(lex) == [("KinA", "1"), ("Spo0A", None)]


def _annotated(doc_id, names):
    """A document naming ``names`` (``(text, type, id)``), one sentence each."""
    text, mentions = "", []
    for name, kind, concept_id in names:
        start = len(text) + 4
        text += f"The {name} acts. "
        mentions.append(Mention(start, start + len(name), name, kind, concept_id))
    return TextDocument(doc_id, text, mentions)


def test_lexicon_from_pubtator_keeps_each_names_majority_id(tmp_path):
    from ppi.extraction.mentions import read_lexicon_entries
    docs = [
        # "p53" is 7157 in two documents, 22059 in one (named twice there: still one)
        _annotated("1", [("p53", "Gene", "7157"), ("MDM2", "Gene", "4193")]),
        _annotated("2", [("p53", "GeneOrGeneProduct", "7157"), ("P-53", "Gene", "7157")]),
        _annotated("3", [("p53", "Gene", "22059"), ("p53", "Gene", "22059")]),
        # a tie between 10 and 9: the smaller id as a number
        _annotated("4", [("Akt", "Gene", "10"), ("aspirin", "Chemical", "D001241")]),
        _annotated("5", [("AKT", "Gene", "9"), ("ERK", "Gene", "-")]),
    ]
    src = _write_pubtator(docs, tmp_path / "in.pubtator")
    lexicon = build_lexicon([src, _lll_like_xml(tmp_path)], tmp_path / "lex.txt")
    entries = dict(lexicon.entries)
    assert entries == {"p53": "7157", "P-53": "7157", "MDM2": "4193", "Akt": "9",
                       "AKT": "9", "ERK": None, "KinA": None}      # no Chemical
    assert lexicon.ambiguous == 2
    assert dict(read_lexicon_entries(tmp_path / "lex.txt")) == entries
    from ppi.__main__ import main
    assert main(["mentions", "--input", str(src), "--entity-types", "Chemical",
                 "--output", str(tmp_path / "chem.txt")]) == 0
    assert (tmp_path / "chem.txt").read_text(encoding="utf-8") == "aspirin\tD001241\n"


def _lll_like_xml(tmp_path):
    """A learning-format corpus naming KinA (no ids)."""
    path = tmp_path / "tiny.xml"
    path.write_text('<corpus source="t"><document id="d0"><sentence id="d0.s0" '
                    'text="KinA binds."><entity id="d0.s0.e0" charOffset="0-3" '
                    'type="protein" text="KinA"/></sentence></document></corpus>',
                    encoding="utf-8")
    return path


def test_lexicon_from_training_corpus_finds_gold_entities(data_dir, tmp_path):
    from corpora.ppi_xml import read_corpus
    path = _lll(data_dir)
    names = build_lexicon([path], tmp_path / "lexicon.txt").names
    assert (tmp_path / "lexicon.txt").read_text(encoding="utf-8").split("\n")[:-1] == names
    from ppi.__main__ import main
    assert main(["mentions", "--data-dir", str(data_dir), "--corpora", "LLL", "--output",
                 str(tmp_path / "cli.txt")]) == 0
    assert (tmp_path / "cli.txt").read_bytes() == (tmp_path / "lexicon.txt").read_bytes()
    assert main(["mentions", "--output", str(tmp_path / "none.txt")]) == 2
    tagger = DictionaryTagger(lexicon=tmp_path / "lexicon.txt")
    n = missed = 0
    for s in read_corpus(path).sentences():
        found = tagger.tag(s.text)
        for e in s.entities:
            if len(e.offsets) != 1:
                continue
            n += 1
            a, b = e.offsets[0]
            missed += not any(m.start <= a and b < m.end for m in found)
    # a gold name is missed only where a longer lexicon name overlaps it or it is glued to
    # a letter/digit (no word boundary)
    assert n > 200 and missed / n < 0.05


# ----------------------------------------------------------------------------- spaCy
def test_missing_model_error_names_it():
    pytest.importorskip("spacy")
    from ppi.parsing.spacy_parse import SpacyModelError, load_spacy
    with pytest.raises(SpacyModelError, match="no_such_model_xyz.*spacy download"):
        load_spacy("no_such_model_xyz")


def test_extraction_parses_with_the_models_own_spacy_pipeline(caplog):
    """No --spacy-model: the model's own pipeline (parser-matched); another one is used as
    asked, with a warning naming the shift — for a model that recorded its pipeline."""
    import logging
    from types import SimpleNamespace

    from ppi.extraction.extract import _parser_of
    trained = SimpleNamespace(training={"spacy_model": "/p/bio"}, spacy_model="/p/bio")
    legacy = SimpleNamespace(training={}, spacy_model="en_core_web_sm")
    with caplog.at_level(logging.WARNING, logger="ppi.extraction.extract"):
        assert _parser_of(trained, "M", None, True) == "/p/bio"
        assert _parser_of(legacy, "M", None, True) == "en_core_web_sm"
        assert _parser_of(trained, "M", "/p/bio", True) == "/p/bio"
        assert _parser_of(legacy, "M", "other", True) == "other"
        assert not caplog.records
        assert _parser_of(trained, "M", "en_core_web_sm", True) == "en_core_web_sm"
    (rec,) = caplog.records
    assert "/p/bio" in rec.getMessage() and "parser shift" in rec.getMessage()


def test_a_pipeline_folder_is_recorded_by_its_absolute_path(tmp_path, monkeypatch):
    from ppi.parsing.spacy_parse import pipeline_reference
    (tmp_path / "bio").mkdir()
    monkeypatch.chdir(tmp_path)
    assert pipeline_reference("bio") == str((tmp_path / "bio").resolve())
    assert pipeline_reference("en_core_web_sm") == "en_core_web_sm"


@pytest.mark.slow
def test_spacy_analysis_is_stored_under_every_parse_a_model_reads(nlp):
    """A multiview model reads split_parse and Charniak-Lease: raw text and --reparse store
    spaCy's one analysis under both names (and their tokenizations)."""
    from ppi.parsing.spacy_parse import parse_documents, reparse_sentences
    text = "KinC phosphorylates Spo0A in vitro."
    ms = [Mention(0, 4, "KinC"), Mention(20, 25, "Spo0A")]
    parses = ("split_parse", "Charniak-Lease")
    (p,) = parse_documents(nlp, [TextDocument("d", text, ms)], lambda d: d.mentions, parses)
    (again,) = reparse_sentences(nlp, [p.sentence], parses)
    for s in (p.sentence, again):
        assert sorted(s.parses) == sorted(parses)
        assert sorted(s.tokenizations) == ["Charniak-Lease", "split"]
        a, b = s.analysis("split_parse"), s.analysis("Charniak-Lease")
        assert [t.text for t in a[0]] == [t.text for t in b[0]]
        assert [(d.t1, d.t2, d.type) for d in a[1]] == [(d.t1, d.t2, d.type) for d in b[1]]

def test_parse_documents_structure(nlp):
    from ppi.representation.graphs import entity_tokens, sentence_graphs
    from ppi.parsing.spacy_parse import parse_documents
    text = ("KinC and KinD were responsible for Spo0A~P production in  the\ncell. "
            "The KinC-dependent IL-2R. binding of X. Y.")
    spots = [("KinC", 0), ("KinD", 0), ("Spo0A~P", 0), ("KinC", 10), ("IL-2R.", 0)]
    ms = [Mention(text.index(n, at), text.index(n, at) + len(n), n) for n, at in spots]
    # "IL-2R." ends where spaCy ends a sentence: the sentence must stay whole
    assert [text[m.start:m.end] for m in ms] == [m.text for m in ms]
    parsed = parse_documents(nlp, [TextDocument("d", text, ms)], lambda d: d.mentions)
    covered = []
    for p in parsed:
        s = p.sentence
        assert text[p.doc_start:p.doc_start + len(s.text)] == s.text
        tokens, deps = s.analysis("split_parse")
        for t in tokens:
            (a, b), = t.offsets
            assert s.text[a:b + 1] == t.text and t.text.strip() == t.text and t.pos
        ids = {t.id for t in tokens}
        assert all(d.t1 in ids and d.t2 in ids and d.t1 != d.t2 for d in deps)
        # every mention is exactly a run of whole tokens (tokens split at mention edges)
        for e, toks in entity_tokens(tokens, s.entities).items():
            ent = next(x for x in s.entities if x.id == e)
            (a, b), = ent.offsets
            assert toks and tokens[toks[0]].offsets[0][0] == a
            assert tokens[toks[-1]].offsets[0][1] == b
            covered.append((p.doc_start + a, p.doc_start + b + 1))
        k = len(s.entities)
        assert len(s.pairs) == k * (k - 1) // 2
        assert len(sentence_graphs(s)) == len(s.pairs)
    assert sorted(covered) == [(m.start, m.end) for m in ms]
    # the mention crossing a sentence break kept its sentence whole
    assert any("IL-2R. binding" in p.sentence.text for p in parsed)


def test_reparse_round_trips_through_learning_xml(nlp, data_dir, tmp_path):
    from corpora.ppi_xml import Corpus, read_corpus, write_corpus
    from ppi.parsing.spacy_parse import reparse_corpus
    corpus = read_corpus(_lll(data_dir))
    small = Corpus(corpus.source, corpus.documents[:5], corpus.attrs)
    new = reparse_corpus(small, nlp)
    write_corpus(new, tmp_path / "x.xml.gz")
    back = read_corpus(tmp_path / "x.xml.gz")
    for s0, s1, s2 in zip(small.sentences(), new.sentences(), back.sentences()):
        assert (s0.id, s0.text, s0.entities, s0.pairs) == (s2.id, s2.text, s2.entities, s2.pairs)
        t1, d1 = s1.analysis("split_parse")
        t2, d2 = s2.analysis("split_parse")
        assert t1 == t2 and d1 == d2


# ----------------------------------------------------------------------------- end to end
def _records(path):
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _extract(*args):
    from ppi.__main__ import main
    return main(["extract", "--quiet", *map(str, args)])


@pytest.mark.slow
def test_extract_pubtator_one_record_per_pair(nlp, data_dir, lll_model, tmp_path):
    docs = _abstracts(data_dir)
    src = _write_pubtator(docs, tmp_path / "in.pubtator")
    out = tmp_path / "out.jsonl"
    assert _extract("--model", lll_model, "--input", src, "--format", "pubtator", "--output",
                    out, "--jobs", 0, "--chunk-size", 2) == 0
    recs = _records(out)
    by_doc = {d.id: d for d in docs}
    seen = set()
    per_sentence = {}
    for r in recs:
        assert {"doc_id", "sentence", "e1", "e2", "score", "interaction"} <= set(r)
        d = by_doc[r["doc_id"]]
        s0 = r["sentence_start"]
        assert d.text[s0:s0 + len(r["sentence"])] == r["sentence"]
        for e in (r["e1"], r["e2"]):
            assert r["sentence"][e["start"]:e["end"]] == e["text"]
            assert d.text[e["doc_start"]:e["doc_end"]] == e["text"]
        key = (r["doc_id"], r["e1"]["doc_start"], r["e1"]["doc_end"], r["e2"]["doc_start"],
               r["e2"]["doc_end"])
        assert key not in seen
        seen.add(key)
        assert r["interaction"] == (r["score"] > json.loads(
            (lll_model / "model.json").read_text())["threshold"])
        per_sentence.setdefault((r["doc_id"], r["sentence_id"]), (s0, len(r["sentence"])))
    # exactly the pairs of the given mentions that share an output sentence
    expected = set()
    for (doc_id, _), (s0, n) in per_sentence.items():
        inside = [m for m in by_doc[doc_id].mentions if s0 <= m.start and m.end <= s0 + n]
        for m1, m2 in itertools.combinations(inside, 2):
            expected.add((doc_id, m1.start, m1.end, m2.start, m2.end))
    assert seen == expected
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text())
    assert summary["pairs"] == len(recs) and summary["documents"] == len(docs)
    assert len(recs) >= 10


def test_extract_pubmed_xml_with_lexicon_and_tsv(nlp, data_dir, lll_model, tmp_path):
    docs = _abstracts(data_dir, n_docs=4)
    src = tmp_path / "in.xml"
    with open(src, "wb") as handle:
        write_pubmed_xml(docs, handle)
    lex = tmp_path / "lex.txt"
    build_lexicon([_lll(data_dir)], lex)
    out = tmp_path / "out.tsv"
    assert _extract("--model", lll_model, "--input", src, "--format", "pubmed-xml",
                    "--output", out, "--lexicon", lex, "--jobs", 0) == 0
    lines = out.read_text(encoding="utf-8").splitlines()
    from ppi.extraction.extract import TSV_COLUMNS
    assert lines[0].split("\t") == list(TSV_COLUMNS)
    texts = {d.id: d.text for d in docs}
    tagged = set()
    for line in lines[1:]:
        row = dict(zip(TSV_COLUMNS, line.split("\t")))
        s0 = int(row["sentence_start"])
        for e in ("e1", "e2"):
            a, b = s0 + int(row[f"{e}_start"]), s0 + int(row[f"{e}_end"])
            assert texts[row["doc_id"]][a:b] == row[f"{e}_text"]
            tagged.add((row["doc_id"], a, b))
    gold = {(d.id, m.start, m.end) for d in docs for m in d.mentions}
    assert len(gold & tagged) > 0.8 * len(gold)


def _concept_ids(docs):
    """A made-up concept id per distinct mention text (case-folded), like a gene id."""
    names = sorted({m.text.lower() for d in docs for m in d.mentions})
    return {n: str(1000 + k) for k, n in enumerate(names)}


def _write_bioc(docs, ids, path, shift_first=0):
    """Documents as BioC XML (one passage: the whole text at offset 0), with the concept
    ids ``ids[text.lower()]``; the first mention of each document stated ``shift_first``
    characters off (a misaligned export)."""
    from xml.sax.saxutils import escape
    parts = ['<?xml version="1.0" encoding="UTF-8"?><collection><source>t</source>'
             "<date>d</date><key>k</key>"]
    for d in docs:
        parts.append(f"<document><id>{d.id}</id><passage><offset>0</offset>"
                     f"<text>{escape(d.text)}</text>")
        for k, m in enumerate(d.mentions):
            start = m.start + (shift_first if k == 0 else 0)
            parts.append(f'<annotation id="a{k}"><infon key="identifier">{ids[m.text.lower()]}'
                         f'</infon><infon key="type">{m.type}</infon><location offset="{start}" '
                         f'length="{m.end - m.start}"/><text>{escape(m.text)}</text>'
                         "</annotation>")
        parts.append("</passage></document>")
    parts.append("</collection>")
    path.write_text("".join(parts), encoding="utf-8")
    return path


@pytest.mark.slow
def test_extract_bioc_carries_concept_ids_jsonl_and_tsv(nlp, data_dir, lll_model, tmp_path):
    from ppi.extraction.extract import TSV_COLUMNS
    docs = _abstracts(data_dir, n_docs=4)
    ids = _concept_ids(docs)
    src = _write_bioc(docs, ids, tmp_path / "in.bioc.xml", shift_first=2)
    out = tmp_path / "out.jsonl"
    # --format left out: told from the name
    assert _extract("--model", lll_model, "--input", src, "--output", out, "--jobs", 0) == 0
    recs = _records(out)
    assert len(recs) >= 10
    by_doc = {d.id: d for d in docs}
    for r in recs:
        for e in (r["e1"], r["e2"]):
            assert e["concept_id"] == ids[e["text"].lower()]
            assert by_doc[r["doc_id"]].text[e["doc_start"]:e["doc_end"]] == e["text"]
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text())
    assert summary["format"] == "bioc-xml"
    assert summary["mentions_repaired"] == len(docs) and summary["mentions_dropped"] == 0
    assert summary["mentions"] == sum(len(d.mentions) for d in docs)
    # the same pairs as the PubTator export of the same documents (mentions aligned there)
    ref = tmp_path / "ref.jsonl"
    assert _extract("--model", lll_model, "--input", _write_pubtator(docs, tmp_path / "in.pubtator"),
                    "--output", ref, "--jobs", 0) == 0
    strip = [{**r, "e1": {**r["e1"], "concept_id": None}, "e2": {**r["e2"], "concept_id": None}}
             for r in recs]
    assert strip == _records(ref)
    tsv = tmp_path / "out.tsv"
    assert _extract("--model", lll_model, "--input", src, "--format", "bioc-xml", "--output",
                    tsv, "--jobs", 0) == 0
    lines = tsv.read_text(encoding="utf-8").splitlines()
    header = lines[0].split("\t")
    assert header[header.index("e1_concept_id"):header.index("level") + 1] == [
        "e1_concept_id", "e2_concept_id", "level"]
    rows = [dict(zip(TSV_COLUMNS, line.split("\t"))) for line in lines[1:]]
    assert [(row["e1_concept_id"], row["e2_concept_id"]) for row in rows] == \
        [(r["e1"]["concept_id"], r["e2"]["concept_id"]) for r in recs]


def test_extract_without_ids_writes_null(nlp, data_dir, lll_model, tmp_path):
    src = _write_pubtator(_abstracts(data_dir, n_docs=2), tmp_path / "in.pubtator")
    out = tmp_path / "out.jsonl"
    assert _extract("--model", lll_model, "--input", src, "--output", out, "--jobs", 0) == 0
    recs = _records(out)
    assert recs and all(r["e1"]["concept_id"] is None and r["e2"]["concept_id"] is None
                        for r in recs)


@pytest.mark.slow
def test_extract_dask_local_cluster_equals_in_process(nlp, data_dir, lll_model, tmp_path):
    pytest.importorskip("distributed")
    src = _write_pubtator(_abstracts(data_dir, n_docs=4), tmp_path / "in.pubtator")
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    assert _extract("--model", lll_model, "--input", src, "--format", "pubtator", "--output",
                    a, "--jobs", 0, "--chunk-size", 1) == 0
    assert _extract("--model", lll_model, "--input", src, "--format", "pubtator", "--output",
                    b, "--jobs", 1, "--chunk-size", 1) == 0
    assert a.read_bytes() == b.read_bytes()
    # an existing cluster given by its address (--scheduler)
    from distributed import LocalCluster
    from ppi.extraction.extract import extract
    c = tmp_path / "c.jsonl"
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                      dashboard_address=":0") as cluster:
        summary = extract(src, lll_model, c, "pubtator", chunk_size=1,
                          scheduler=cluster.scheduler_address, progress=False)
    assert summary["scheduler"] == cluster.scheduler_address
    assert a.read_bytes() == c.read_bytes()


@pytest.mark.slow
def test_extract_learning_xml_uses_the_files_parse_like_ppi_predict(data_dir, lll_model,
                                                                    tmp_path):
    """learning-xml input without --reparse: the file's own parse is scored (no spaCy — a
    missing spaCy model does not matter), pair for pair the scores of `ppi predict`."""
    from corpora.ppi_xml import read_corpus
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel
    out = tmp_path / "out.jsonl"
    assert _extract("--model", lll_model, "--input", _lll(data_dir), "--format", "learning-xml",
                    "--output", out, "--jobs", 0, "--chunk-size", 7, "--spacy-model",
                    "no_such_model_xyz") == 0
    recs = _records(out)
    summary = json.loads((tmp_path / "out.jsonl.summary.json").read_text())
    assert summary["spacy_model"] is None and "split_parse" in summary["parser"]
    assert main(["predict", "--input", str(_lll(data_dir)), "--model", str(lll_model),
                 "--output-dir", str(tmp_path / "pred")]) == 0
    rows = [line.split("\t") for line in
            (tmp_path / "pred" / "predictions.tsv").read_text().splitlines()[1:]]
    # the CLI's predictions.tsv (scores printed to 6 significant digits), by pair id
    assert [r["pair_id"] for r in recs] == [r[0] for r in rows]
    np.testing.assert_allclose([r["score"] for r in recs], [float(r[4]) for r in rows],
                               rtol=1e-5, atol=1e-9)
    assert [r["label"] for r in recs] == [r[3] == "1" for r in rows]
    # and the same decision function in full precision
    corpus = read_corpus(_lll(data_dir))
    data, s = PPIModel.load(lll_model).decision_function(corpus)
    assert list(data.pair_ids) == [r["pair_id"] for r in recs]
    assert len(recs) == sum(len(x.pairs) for x in corpus.sentences())
    np.testing.assert_allclose([r["score"] for r in recs], s, rtol=1e-12, atol=1e-12)
    threshold = PPIModel.load(lll_model).threshold
    assert [r["interaction"] for r in recs] == list(s > threshold)
    for r in recs:
        for e in (r["e1"], r["e2"]):
            if "spans" not in e:
                assert r["sentence"][e["start"]:e["end"]] == e["text"]


def test_extract_learning_xml_without_the_models_parse_stops(data_dir, lll_model, tmp_path,
                                                             capsys):
    """A sentence lacking the model's parse is an error naming it and --reparse; --reparse
    is refused for raw-text formats."""
    from corpora.ppi_xml import Corpus, iter_documents, write_corpus
    docs = []
    for _, _, doc in iter_documents(_lll(data_dir)):
        docs.append(doc)
        if len(docs) == 3:
            break
    bad = docs[1].sentences[0]
    assert bad.pairs
    docs[1].sentences[0] = type(bad)(bad.id, bad.text, bad.entities, bad.pairs, {}, {}, bad.attrs)
    write_corpus(Corpus("LLL", docs), tmp_path / "noparse.xml")
    code = _extract("--model", lll_model, "--input", tmp_path / "noparse.xml", "--format",
                    "learning-xml", "--output", tmp_path / "o.jsonl", "--jobs", 0)
    err = capsys.readouterr().err
    assert code == 2 and bad.id in err and "--reparse" in err and "noparse.xml" in err
    src = tmp_path / "a.txt"
    src.write_text("KinC binds KinD.", encoding="utf-8")
    assert _extract("--model", lll_model, "--input", src, "--format", "text", "--lexicon",
                    src, "--output", tmp_path / "t.jsonl", "--jobs", 0, "--reparse") == 2
    assert "--reparse" in capsys.readouterr().err


@pytest.mark.slow
def test_extract_learning_xml_reparse_scores_match_model_on_same_structure(
        nlp, data_dir, lll_model, tmp_path):
    """learning-xml input with --reparse: the file's pairs with gold labels; scores equal
    the saved model's decision function on the same spaCy-reparsed corpus (no hidden state
    in extract)."""
    from corpora.ppi_xml import read_corpus
    from ppi.models.classes import PPIModel
    from ppi.parsing.spacy_parse import reparse_corpus
    out = tmp_path / "out.jsonl"
    assert _extract("--model", lll_model, "--input", _lll(data_dir), "--format", "learning-xml",
                    "--output", out, "--jobs", 0, "--chunk-size", 7, "--reparse") == 0
    recs = _records(out)
    model = PPIModel.load(lll_model)
    # spaCy's one analysis under every parse the (multiview) model reads
    assert model.parses == ("split_parse", "Charniak-Lease")
    corpus = reparse_corpus(read_corpus(_lll(data_dir)), nlp, model.parses)
    data, s = model.decision_function(corpus)
    assert len(recs) == len(data) == sum(len(x.pairs) for x in corpus.sentences())
    ref = dict(zip(data.pair_ids, s))
    labels = {p.id: p.interaction for x in corpus.sentences() for p in x.pairs}
    ids = [(r["sentence_id"], r["e1"]["id"], r["e2"]["id"]) for r in recs]
    pair_of = {(x.id, p.e1, p.e2): p.id for x in corpus.sentences() for p in x.pairs}
    got = np.array([r["score"] for r in recs])
    want = np.array([ref[pair_of[i]] for i in ids])
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    assert [r["label"] for r in recs] == [labels[pair_of[i]] for i in ids]


@pytest.mark.slow
def test_resume_after_partial_run_no_loss_no_duplicates(nlp, data_dir, lll_model, tmp_path):
    from ppi.extraction.extract import extract
    src = _write_pubtator(_abstracts(data_dir, n_docs=5), tmp_path / "in.pubtator")
    ref = tmp_path / "ref.jsonl"
    extract(src, lll_model, ref, "pubtator", chunk_size=1, workers=0, progress=False)
    out = tmp_path / "out.jsonl"
    part = extract(src, lll_model, out, "pubtator", chunk_size=1, workers=0, progress=False,
                   max_chunks=2)
    assert part["stopped_after_chunks"] == 2 and not out.exists()
    parts = tmp_path / "out.jsonl.parts"
    # what a kill in the middle of chunk 2 leaves: its counts, a half-written temp file
    (parts / "chunk-000002.counts.json").write_text('{"documents": 1}')
    (parts / ".chunk-000002.jsonl.abc.tmp").write_text('{"doc_id": "half')
    with pytest.raises(InvalidParameterError, match="chunk_size"):
        extract(src, lll_model, out, "pubtator", chunk_size=2, workers=0, progress=False)
    summary = extract(src, lll_model, out, "pubtator", chunk_size=1, workers=0, progress=False)
    assert summary["resumed_chunks"] == 2 and summary["computed_chunks"] == 3
    assert out.read_bytes() == ref.read_bytes() and not parts.exists()
    assert summary["pairs"] == len(_records(ref))
    with pytest.raises(InvalidParameterError, match="overwrite"):
        extract(src, lll_model, out, "pubtator", chunk_size=1, workers=0, progress=False)


@pytest.mark.slow
def test_learning_xml_resume_ignores_the_unused_spacy_model(data_dir, lll_model, tmp_path):
    """Without --reparse a learning-xml run never parses, so resuming it with another
    --spacy-model continues the same run (with --reparse the model is part of its identity)."""
    from ppi.extraction.extract import extract
    ref = tmp_path / "ref.jsonl"
    extract(_lll(data_dir), lll_model, ref, "learning-xml", chunk_size=20, workers=0,
            progress=False)
    out = tmp_path / "out.jsonl"
    part = extract(_lll(data_dir), lll_model, out, "learning-xml", chunk_size=20, workers=0,
                   progress=False, max_chunks=1)
    assert part["stopped_after_chunks"] == 1
    summary = extract(_lll(data_dir), lll_model, out, "learning-xml", chunk_size=20,
                      workers=0, progress=False, spacy_model="another_model")
    assert summary["resumed_chunks"] == 1 and out.read_bytes() == ref.read_bytes()


@pytest.mark.slow
def test_resume_after_sigkill(nlp, data_dir, lll_model, tmp_path):
    docs = _abstracts(data_dir, n_docs=6, copies=2)
    src = _write_pubtator(docs, tmp_path / "in.pubtator")
    out = tmp_path / "out.jsonl"
    cmd = [sys.executable, "-m", "ppi", "extract", "--quiet", "--model", str(lll_model),
           "--input", str(src), "--format", "pubtator", "--output", str(out),
           "--jobs", "0", "--chunk-size", "1"]
    proc = subprocess.Popen(cmd, cwd=tmp_path)
    parts = tmp_path / "out.jsonl.parts"
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None:
        if len(list(parts.glob("chunk-*.jsonl"))) >= 2:
            break
        time.sleep(0.02)
    assert proc.poll() is None, "the run finished before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert not out.exists() and parts.is_dir()
    assert 2 <= len(list(parts.glob("chunk-*.jsonl"))) < len(docs)
    assert subprocess.run(cmd, cwd=tmp_path).returncode == 0
    from ppi.extraction.extract import extract
    ref = tmp_path / "ref.jsonl"
    extract(src, lll_model, ref, "pubtator", chunk_size=1, workers=0, progress=False)
    assert out.read_bytes() == ref.read_bytes()
    recs = _records(out)
    keys = [(r["doc_id"], r["e1"]["id"], r["e2"]["id"]) for r in recs]
    assert len(keys) == len(set(keys)) and {r["doc_id"] for r in recs} <= {d.id for d in docs}


def test_cli_missing_spacy_model_is_a_clean_error(nlp, lll_model, tmp_path, capsys):
    src = tmp_path / "a.txt"
    src.write_text("KinC binds KinD.", encoding="utf-8")
    lex = tmp_path / "lex.txt"
    lex.write_text("KinC\nKinD\n", encoding="utf-8")
    code = _extract("--model", lll_model, "--input", src, "--format", "text", "--output",
                    tmp_path / "o.jsonl", "--lexicon", lex, "--jobs", 0, "--spacy-model",
                    "no_such_model_xyz")
    assert code == 2 and "no_such_model_xyz" in capsys.readouterr().err
    assert _extract("--model", lll_model, "--input", src, "--format", "text", "--output",
                    tmp_path / "o.jsonl", "--jobs", 0) == 2
    assert "--lexicon" in capsys.readouterr().err
    assert _extract("--model", lll_model, "--input", src, "--format", "text", "--output",
                    tmp_path / "o.jsonl", "--lexicon", lex, "--jobs", 0) == 0
    (r,) = _records(tmp_path / "o.jsonl")
    assert (r["e1"]["text"], r["e2"]["text"], r["doc_id"]) == ("KinC", "KinD", "a:1")


def test_repeated_document_ids_keep_their_own_scores(nlp, data_dir, lll_model):
    """process_chunk matches scores to pairs by position: two documents with one id (which
    the readers refuse, but a library caller may pass) keep their own."""
    import ppi.extraction.extract as ex
    from ppi.models.classes import PPIModel
    a, b = _abstracts(data_dir, n_docs=2)
    same = [TextDocument("1", d.text, d.mentions, title_end=d.title_end) for d in (a, b)]
    res = ex.ExtractionResources(PPIModel.load(lll_model))
    both, _ = ex.process_chunk(same, res)
    alone = []
    for d in same:
        text, _ = ex.process_chunk([d], res)
        alone += [json.loads(x) for x in text.splitlines()]
    got = [json.loads(x) for x in both.splitlines()]
    assert len(got) == len(alone) > 0
    assert [(r["sentence"], r["e1"], r["e2"]) for r in got] == \
        [(r["sentence"], r["e1"], r["e2"]) for r in alone]
    np.testing.assert_allclose([r["score"] for r in got], [r["score"] for r in alone],
                               rtol=1e-12, atol=1e-12)


def test_a_repeated_pmid_in_the_input_is_refused_naming_both_lines(nlp, data_dir, lll_model,
                                                                    tmp_path):
    from ppi.extraction.extract import extract
    a, b = _abstracts(data_dir, n_docs=2)
    same = [TextDocument("1", d.text, d.mentions, title_end=d.title_end) for d in (a, b)]
    both = _write_pubtator(same, tmp_path / "both.pubtator")
    with pytest.raises(CorpusFormatError, match=r"PMID 1 again.*line 1"):
        extract(both, lll_model, tmp_path / "both.jsonl", "pubtator", chunk_size=2,
                workers=0, progress=False)
    assert not (tmp_path / "both.jsonl").exists()


def test_scores_do_not_depend_on_the_featurization_batches(nlp, data_dir, lll_model,
                                                           monkeypatch):
    """Long sentences' pairs are split over batches (SCORE_BUDGET): same scores as one
    batch per chunk."""
    import ppi.extraction.scoring as scoring
    from ppi.models.classes import PPIModel
    docs = _abstracts(data_dir, n_docs=6)
    res = scoring.ExtractionResources(PPIModel.load(lll_model))
    monkeypatch.setattr(scoring, "SCORE_BUDGET", 10 ** 12)
    whole, _ = scoring.process_chunk(docs, res)
    monkeypatch.setattr(scoring, "SCORE_BUDGET", 1)         # one pair per batch
    single, counts = scoring.process_chunk(docs, res)
    a = [json.loads(x) for x in whole.splitlines()]
    b = [json.loads(x) for x in single.splitlines()]
    assert len(a) == len(b) == counts["pairs"] > 0
    assert [(r["sentence_id"], r["e1"], r["e2"]) for r in a] == \
        [(r["sentence_id"], r["e1"], r["e2"]) for r in b]
    np.testing.assert_allclose([r["score"] for r in a], [r["score"] for r in b], rtol=1e-12,
                               atol=1e-12)


@pytest.mark.slow
def test_bc6_bioc_slice_extract_aggregate_network_evaluate(nlp, data_dir, lll_model, tmp_path):
    """Real BioC input end to end: five BioCreative VI PPIm abstracts → extract → aggregate
    → network → evaluate-documents against their own gold relations."""
    import gzip

    import networkx as nx
    path = data_dir / "text" / "PMtask_Relations_TrainingSet.bioc.xml.gz"
    if not path.exists():
        pytest.skip(f"{path} is absent")
    text = gzip.open(path, "rt", encoding="utf-8").read()
    head, *docs = text.split("<document>")
    src = tmp_path / "bc6.bioc.xml"
    src.write_text(head + "".join("<document>" + d.split("</document>")[0] + "</document>"
                                  for d in docs[:5]) + "</collection>", encoding="utf-8")
    pairs, agg, net, ev = (tmp_path / "pairs.jsonl", tmp_path / "docs.jsonl",
                           tmp_path / "net", tmp_path / "eval")
    assert _extract("--model", lll_model, "--input", src, "--output", pairs, "--jobs", 0) == 0
    recs = _records(pairs)
    assert recs and all(r["e1"]["concept_id"] and r["e2"]["concept_id"] for r in recs)
    from ppi.__main__ import main
    assert main(["aggregate", "--quiet", "--input", str(pairs), "--output", str(agg)]) == 0
    doc_pairs = _records(agg)
    # every mention pair's gene pair is one document pair, each document pair once
    keys = [(x["doc_id"], x["gene1"], x["gene2"]) for x in doc_pairs]
    assert len(keys) == len(set(keys))
    left_out = json.loads((tmp_path / "docs.jsonl.summary.json").read_text())[
        "self_pairs_left_out"]
    assert sum(x["mention_pairs"] for x in doc_pairs) + left_out >= len(recs)
    assert not any(x["self_pair"] for x in doc_pairs)
    for x in doc_pairs:
        mine = [r["score"] for r in recs if r["doc_id"] == x["doc_id"] and any(
                {a, b} == {x["gene1"], x["gene2"]}
                for a in r["e1"]["concept_id"].split(",")
                for b in r["e2"]["concept_id"].split(","))]
        assert x["score"] == max(mine)
    assert main(["network", "--quiet", "--input", str(agg), "--output-dir", str(net)]) == 0
    g = nx.read_graphml(net / "network.graphml")
    positive = {frozenset((x["gene1"], x["gene2"])) for x in doc_pairs if x["interaction"]}
    assert {frozenset(e) for e in g.edges} == positive
    assert main(["evaluate-documents", "--quiet", "--input", str(agg), "--gold", str(src),
                 "--output-dir", str(ev)]) == 0
    r = json.loads((ev / "results.json").read_text())
    assert r["gold_documents"] == 5 and r["gold_pairs"] >= 5
    assert r["cooccurrence"]["recall"] == pytest.approx(r["recall_ceiling"])
    assert r["model"]["recall"] <= r["cooccurrence"]["recall"] + 1e-12


def test_extract_mention_types_keeps_only_those(nlp, data_dir, lll_model, tmp_path):
    """PubTator Central exports annotate diseases, chemicals, ... too: --mention-types pairs
    only the given types, exactly as if the others were not annotated."""
    docs = _abstracts(data_dir, n_docs=3)
    types = sorted({m.type for d in docs for m in d.mentions})      # LLL: agent, target
    assert "Disease" not in types
    with_disease = []
    for d in docs:
        taken = [(m.start, m.end) for m in d.mentions]
        extra = []
        for k, word in enumerate(d.text.split(" ")):
            start = len(" ".join(d.text.split(" ")[:k])) + (1 if k else 0)
            end = start + len(word)
            if word.isalpha() and len(word) > 3 and not any(a < end and start < b
                                                            for a, b in taken):
                extra.append(Mention(start, end, word, "Disease", "MESH:D1"))
            if len(extra) == 3:
                break
        with_disease.append(TextDocument(d.id, d.text, sorted(d.mentions + extra,
                                                              key=lambda m: m.start),
                                         title_end=d.title_end))
    ref, out, both = tmp_path / "ref.jsonl", tmp_path / "out.jsonl", tmp_path / "both.jsonl"
    assert _extract("--model", lll_model, "--input", _write_pubtator(docs, tmp_path / "a.pubtator"),
                    "--output", ref, "--jobs", 0) == 0
    src = _write_pubtator(with_disease, tmp_path / "b.pubtator")
    assert _extract("--model", lll_model, "--input", src, "--output", out, "--jobs", 0,
                    "--mention-types", *[t.upper() for t in types]) == 0
    assert _records(out) == _records(ref)
    assert _extract("--model", lll_model, "--input", src, "--output", both, "--jobs", 0) == 0
    assert any(r["e1"]["type"] == "Disease" or r["e2"]["type"] == "Disease"
               for r in _records(both))
