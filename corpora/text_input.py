"""Streaming readers of raw biomedical text for PPI extraction (``python -m ppi extract``).

Every reader yields :class:`TextDocument` objects one at a time; no reader holds more than
one record in memory (PubMed XML is read with :func:`xml.etree.ElementTree.iterparse` and
each article is cleared after use).  Files may be gzip-compressed (detected by content).

Formats (``FORMATS``)
---------------------
``text``
    A file: one document per **blank-line-separated block** (id ``<file stem>:<line of the
    block's first line>``); a directory: one document per ``*.txt`` file (sorted by name, id
    = the file stem).  ``one_document=True`` makes a whole file one document.  No mention
    annotations (use a lexicon, :mod:`ppi.mentions`).
``pubmed-xml``
    PubMed/MEDLINE XML (``PubmedArticle`` or ``MedlineCitation`` records).  The document
    text is the title, one space, then the ``AbstractText`` sections joined by one space —
    the PubTator convention, so offsets of both formats agree.  Id: the PMID.
``pubtator``
    ``PMID|t|title`` and ``PMID|a|abstract`` lines, then standoff annotation lines
    ``PMID<TAB>start<TAB>end<TAB>text<TAB>type[<TAB>concept id]`` (0-based, exclusive end, over
    ``title + " " + abstract``), records separated by blank lines.  Relation lines
    ``PMID<TAB>type<TAB>id1<TAB>id2[<TAB>more]`` (the type a word such as BioRED's ``Bind`` or
    BioCreative V CDR's ``CID``: ``PMID  Bind  5468  7132  Novel``, ``PMID  CID  D1  D2``) are
    the document's :class:`~corpora.documents.Relation` objects (``TextDocument.relations``;
    the fields after the ids kept as ``attrs`` ``field5``, …, BioRED's fifth as ``novelty``);
    a relation line with fewer than four fields is an error, and so is a line that is neither
    an annotation (offsets in plain decimal digits) nor a relation (an offset ``21a`` or
    `` 21`` is not taken for a relation type).  An annotation
    whose text is not at its offsets is repaired, or dropped with ``skip_bad``; identical
    annotations are merged (:mod:`corpora.standoff`, counted in :class:`ReadStats`).
``bioc-xml``, ``bioc-json``
    BioC (PubTator Central's export formats), read by :mod:`corpora.bioc`: passages placed at
    their offsets, annotations with their concept ids, mentions as for PubTator.
``learning-xml``
    The learning-format XML of :mod:`corpora.ppi_xml`; documents keep their sentences, gold
    entities and candidate pairs (``TextDocument.sentences``).

Writers: :func:`write_pubtator` and :func:`write_pubmed_xml`; benchmark (learning-format)
documents become :class:`TextDocument` objects with :func:`learning_to_text_document`,
which deals explicitly with what PubTator cannot express (discontinuous entities, see there).

Document ids are unique within a file (issue 16, case 4: the extraction output is keyed by
``(doc_id, pair_id)``, so a repeated id would give two records with the same key).  A PMID
repeated in a PubTator file, or a PMID (with the same version) repeated in a PubMed XML file,
is a :class:`~kernelrank.errors.CorpusFormatError` naming the lines of both records (PubMed:
also the article numbers); with ``skip_bad=True`` the later record is skipped and counted in
:class:`ReadStats` (``skipped``, shown in the run summary of ``ppi extract``).  Nothing is
merged: two records with one PMID may differ in text and annotations, and no rule tells
which is right.  PubMed keeps each version of a *versioned citation* as a separate record with
the same PMID and ``<PMID Version="N">``; such a record's id is ``PMID.N`` when N > 1 (NLM's
``PMID.version`` identifier; version 1 keeps the plain PMID).  Real data checked: the BC6
PPIm PubTator file has 597 records with 597 distinct PMIDs; the PubMed slice has 756 records,
754 distinct PMIDs — PMID 31828225 in versions 2, 3 and 4 (two with the same text), read as
``31828225.2``, ``.3`` and ``.4``.  Plain-text ids (``<stem>:<line>``, or the file stem in
a directory of ``*.txt``) are unique by construction; learning-format XML ids are checked by
:mod:`corpora.ppi_xml`; BioC document ids like PubTator's (:mod:`corpora.bioc`).  The memory
for the ids seen is O(documents in the file).

Malformed records raise :class:`kernelrank.errors.CorpusFormatError` naming the file, the
line (or record number) and the record id.  With ``skip_bad=True`` a malformed record is
skipped and counted in a :class:`ReadStats` instead (text, PubTator, PubMed records;
XML that is not well-formed, and any error in learning-format XML, always stops the run
because the stream cannot be resynchronised).
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from corpora.lines import READ_ERRORS, open_binary, reading, strict_int, xml_error
from corpora.documents import Mention, ReadStats, Relation, TextDocument
from corpora.standoff import align_mentions
from kernelrank.errors import (CorpusFormatError, DataNotFoundError, InvalidParameterError,
                               KernelrankError)

__all__ = ["Mention", "Relation", "TextDocument", "ReadStats", "FORMATS", "read_documents", "detect_format",
           "read_text", "read_pubmed_xml", "read_pubtator", "read_learning_xml",
           "write_pubtator", "write_pubmed_xml", "ConversionStats",
           "learning_to_text_document", "DISCONTINUOUS_POLICIES"]

FORMATS = ("text", "pubmed-xml", "pubtator", "learning-xml", "bioc-xml", "bioc-json")


def _open_text(path):
    """Binary handle (gzip detected); :func:`_lines` decodes it line by line."""
    return open_binary(path, "input file")


def _lines(handle, path):
    """``(line number, decoded line)`` pairs; undecodable bytes, a truncated or damaged gzip
    stream → CorpusFormatError with the line."""
    with reading(path):
        for lineno, raw in enumerate(handle, 1):
            try:
                # a UTF-8 byte order mark opening the file is not text
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise CorpusFormatError(f"not UTF-8 text ({exc.reason})", path=path,
                                        line=lineno) from None
            yield lineno, line


# ----------------------------------------------------------------------------- text
def read_text(path, *, one_document=False, skip_bad=False, stats=None):
    """Documents of a plain-text file (blank-line-separated blocks) or directory of ``*.txt``."""
    stats = stats if stats is not None else ReadStats()
    path = Path(path)
    if path.is_dir():
        for f in sorted(path.glob("*.txt")):
            with _open_text(f) as handle:
                text = "".join(line for _, line in _lines(handle, f))
            stats.documents += 1
            yield TextDocument(f.stem, text, position=f"{f}")
        return
    with _open_text(path) as handle:
        if one_document:
            stats.documents += 1
            yield TextDocument(path.name.split(".")[0],
                               "".join(line for _, line in _lines(handle, path)),
                               position=f"{path}")
            return
        block, first = [], None
        stem = path.name.split(".")[0]
        for lineno, line in _lines(handle, path):
            if line.strip():
                if first is None:
                    first = lineno
                block.append(line.rstrip("\r\n"))
            elif block:
                stats.documents += 1
                yield TextDocument(f"{stem}:{first}", "\n".join(block),
                                   position=f"{path}:{first}")
                block, first = [], None
        if block:
            stats.documents += 1
            yield TextDocument(f"{stem}:{first}", "\n".join(block), position=f"{path}:{first}")


# ----------------------------------------------------------------------------- PubTator
_TEXT_LINE = re.compile(r"^([^\t|]+)\|([a-z])\|(.*)$")


#: a relation type of a PubTator relation line (``CID``, ``Association``, ``Bind``, …)
_RELATION_TYPE = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")


def _pubtator_line_kind(fields):
    """``"annotation"`` (decimal start and end offsets), ``"relation"`` (a relation type: a
    word opening with a letter; :func:`_relation` checks the rest) or None — a line that is
    neither (an offset ``21a`` or `` 21`` is not taken for a relation)."""
    try:
        strict_int(fields[1]), strict_int(fields[2])
        return "annotation"
    except (IndexError, ValueError):
        pass
    if len(fields) >= 2 and _RELATION_TYPE.fullmatch(fields[1].strip()):
        return "relation"
    return None


def _pubtator_record(lines, path, skip_bad, stats):
    """``lines``: [(lineno, line)] of one record → TextDocument or None (skipped)."""
    first = lines[0][0]
    pmid = None
    try:
        title = abstract = None
        mentions, relations = [], []
        for lineno, line in lines:
            text_line = _TEXT_LINE.match(line)
            if text_line:
                pid, kind, rest = text_line.groups()
                if pmid is None:
                    pmid = pid
                elif pid != pmid:
                    raise CorpusFormatError(f"PMID {pid!r} inside the record of {pmid!r} "
                                            "(records must be separated by a blank line)",
                                            path=path, line=lineno, record=pmid)
                if kind == "t":
                    title = rest
                elif kind == "a":
                    abstract = rest
                else:
                    raise CorpusFormatError(f"unknown text line kind {kind!r} (expected t or a)",
                                            path=path, line=lineno, record=pid)
                continue
            fields = line.split("\t")
            if pmid is None:
                raise CorpusFormatError("annotation line before the title line", path=path,
                                        line=lineno, record=fields[0])
            if fields[0] != pmid:
                raise CorpusFormatError(f"annotation of PMID {fields[0]!r} inside the record of "
                                        f"{pmid!r}", path=path, line=lineno, record=pmid)
            kind = _pubtator_line_kind(fields)
            if kind == "relation":
                relations.append(_relation(fields, path, lineno, pmid))
                continue
            if kind is None:
                raise CorpusFormatError(
                    f"neither an annotation (PMID, start, end, text, type[, id]: start and end "
                    f"decimal offsets) nor a relation (PMID, relation type, id, id, ...): "
                    f"fields {fields[1:3]!r}", path=path, line=lineno, record=pmid)
            if len(fields) < 5:
                raise CorpusFormatError(f"annotation line has {len(fields)} tab-separated fields, "
                                        "expected PMID, start, end, text, type[, id]",
                                        path=path, line=lineno, record=pmid)
            start, end = strict_int(fields[1]), strict_int(fields[2])
            m = Mention(start, end, fields[3], fields[4] or None,
                        fields[5] if len(fields) > 5 and fields[5] else None)
            mentions.append((lineno, m))
        if title is None:
            raise CorpusFormatError("record without a title line (PMID|t|...)", path=path,
                                    line=first, record=pmid)
        text = title if abstract is None else f"{title} {abstract}"
        aligned = align_mentions(text, [({"line": lineno}, m) for lineno, m in mentions],
                                 stats, path=path, record=pmid, skip_bad=skip_bad)
        return TextDocument(pmid, text, aligned, position=f"{path}:{first}",
                            title_end=len(title), relations=relations)
    except CorpusFormatError as exc:
        if not skip_bad:
            raise
        stats.skip(exc)
        return None


def _relation(fields, path, lineno, pmid):
    """The :class:`Relation` of a PubTator relation line (its tab-separated ``fields``)."""
    if len(fields) < 4 or not fields[1].strip() or not fields[2].strip() or \
            not fields[3].strip():
        raise CorpusFormatError(f"relation line has {len(fields)} tab-separated fields, "
                                "expected PMID, type, id1, id2[, more] with none empty",
                                path=path, line=lineno, record=pmid)
    names = ["novelty"] + [f"field{k}" for k in range(6, len(fields) + 1)]
    return Relation(fields[1].strip(), fields[2].strip(), fields[3].strip(),
                    tuple(zip(names, fields[4:])))


def _unique(doc, first_line, seen, path, skip_bad, stats, what):
    """``doc`` if its id is new in this file, else a CorpusFormatError (or a counted skip)."""
    if doc is None:
        return None
    if doc.id in seen:
        exc = CorpusFormatError(
            f"{what} {doc.id} again: it is already the record at line {seen[doc.id]}; a "
            "document id may appear once per file (the output is keyed by document and pair "
            "id) — merge the two records or remove one (--skip-bad keeps the first)",
            path=path, line=first_line, record=doc.id)
        if not skip_bad:
            raise exc
        stats.skip(exc)
        stats.mentions -= len(doc.mentions or ())      # counted when the record was read
        return None
    seen[doc.id] = first_line
    return doc


def read_pubtator(path, *, skip_bad=False, stats=None):
    """Documents (with their annotations) of a PubTator file.

    A PMID may appear in one record only (:class:`CorpusFormatError` naming the lines of
    both records; with ``skip_bad`` the later one is skipped and counted).
    """
    stats = stats if stats is not None else ReadStats()
    seen = {}                                   # PMID → line of its record
    with _open_text(path) as handle:
        lines = []
        for lineno, line in _lines(handle, path):
            line = line.rstrip("\r\n")
            if line.strip():
                lines.append((lineno, line))
                continue
            if lines:
                doc = _unique(_pubtator_record(lines, path, skip_bad, stats), lines[0][0],
                              seen, path, skip_bad, stats, "PMID")
                lines = []
                if doc is not None:
                    stats.documents += 1
                    yield doc
        if lines:
            doc = _unique(_pubtator_record(lines, path, skip_bad, stats), lines[0][0], seen,
                          path, skip_bad, stats, "PMID")
            if doc is not None:
                stats.documents += 1
                yield doc


def _check_writable(d):
    """What a PubTator record cannot hold raises InvalidParameterError (never a broken file)."""
    if not d.id or any(c in d.id for c in "|\t\n\r"):
        raise InvalidParameterError(f"document id {d.id!r}: a PubTator id must be non-empty "
                                    "without '|', tabs or line breaks")
    if "\n" in d.text or "\r" in d.text:
        raise InvalidParameterError(f"document {d.id}: the text contains a line break, which a "
                                    "PubTator text line cannot hold; replace it by a space")
    for m in d.mentions or ():
        if not (0 <= m.start < m.end <= len(d.text)) or d.text[m.start:m.end] != m.text:
            raise InvalidParameterError(f"document {d.id}: mention {m.start}-{m.end} {m.text!r} "
                                        "does not match the text at its offsets")
        for field_ in (m.text, m.type or "", m.id or ""):
            if any(c in field_ for c in "\t\n\r"):
                raise InvalidParameterError(f"document {d.id}: mention {m.start}-{m.end} has a "
                                            f"tab or line break in {field_!r}")
    for r in d.relations or ():
        fields = [r.type, r.id1, r.id2, *(v for _, v in r.attrs)]
        if not all(fields[:3]) or any(c in f for f in fields for c in "\t\n\r") or \
                r.type.lstrip("-").isdigit():
            raise InvalidParameterError(f"document {d.id}: relation {fields} cannot be a "
                                        "PubTator relation line (empty type or id, a tab or "
                                        "line break, or a numeric type)")


def write_pubtator(docs, handle):
    """Write :class:`TextDocument` objects (text = title + " " + abstract) as PubTator.

    The title is ``text[:title_end]`` (the whole text when ``title_end`` is None); the
    character after it must be the one space that separates it from the abstract.  What a
    PubTator record cannot hold — an id with ``|``, tab or line break, a line break in the
    text, a mention that does not match the text — raises
    :class:`kernelrank.errors.InvalidParameterError` before anything of that document is
    written.  (A :class:`Mention` is one contiguous span; for discontinuous benchmark
    entities see :func:`learning_to_text_document`.)
    """
    for d in docs:
        _check_writable(d)
        n = _title_length(d)
        handle.write(f"{d.id}|t|{d.text[:n]}\n")
        if n < len(d.text):
            handle.write(f"{d.id}|a|{d.text[n + 1:]}\n")
        for m in d.mentions or ():
            handle.write(f"{d.id}\t{m.start}\t{m.end}\t{m.text}\t{m.type or 'Gene'}"
                         + (f"\t{m.id}" if m.id else "") + "\n")
        for r in d.relations or ():
            handle.write("\t".join([d.id, r.type, r.id1, r.id2, *(v for _, v in r.attrs)])
                         + "\n")
        handle.write("\n")


def _title_length(d):
    n = len(d.text) if d.title_end is None else d.title_end
    if n < len(d.text) and d.text[n] != " ":
        raise InvalidParameterError(f"document {d.id}: the title must be followed by one space")
    return n


# ----------------------------------------------------------------------------- PubMed XML
_RECORD_TAG = re.compile(rb"<(/?)(PubmedArticle|MedlineCitation)[\s>/]")


def _article_line(path, number):
    """Line where record ``number`` (1-based, counted as :func:`read_pubmed_xml` does)
    starts, or None: a second pass over the file, paid only when an error is reported."""
    count = inside = 0
    try:
        with open_binary(path) as handle:
            for lineno, raw in enumerate(handle, 1):
                for m in _RECORD_TAG.finditer(raw):
                    closing, tag = m.group(1), m.group(2)
                    if tag == b"PubmedArticle":
                        inside += -1 if closing else 1
                        count += not closing
                    elif not closing and inside == 0:
                        count += 1
                    if count == number:
                        return lineno
    except (OSError, *READ_ERRORS, KernelrankError):
        pass                           # only a location for an error being raised anyway
    return None


class _BadArticle(Exception):
    """A malformed PubMed record (internal: :func:`read_pubmed_xml` turns it into a located
    :class:`CorpusFormatError`, the line being looked up only when the error is shown)."""

    def __init__(self, message, record, first=None):
        super().__init__(message)
        self.message, self.record, self.first = message, record, first

    def error(self, path, number, locate=True):
        """The error of record ``number``; ``locate``: look up its line (and that of the
        ``first`` record it repeats)."""
        line = _article_line(path, number) if locate else None
        message = self.message
        if self.first is not None:
            where = f", line {_article_line(path, self.first)}" if locate else ""
            message = message.format(first=f"article #{self.first}{where}")
        return CorpusFormatError(f"{message} (article #{number})", path=path, line=line,
                                 record=self.record)


def _pubmed_id(pmid_el):
    """The document id of a record: the PMID, or ``PMID.version`` for a versioned citation.

    PubMed keeps every version of a versioned citation as its own record with the same
    PMID and ``<PMID Version="N">`` (NLM: "the combination of PMID and version number in
    the format PMID.version will be a unique identifier; all citations not versioned will
    be considered version 1").
    """
    pmid = pmid_el.text.strip()
    version = (pmid_el.get("Version") or "1").strip()
    return pmid if version == "1" else f"{pmid}.{version}"


def _pubmed_record(elem, number, path):
    pmid_el = elem.find(".//PMID")
    if pmid_el is None or not (pmid_el.text or "").strip():
        raise _BadArticle("article without a PMID", f"article #{number}")
    pmid = _pubmed_id(pmid_el)
    title_el = elem.find(".//ArticleTitle")
    title = " ".join("".join(title_el.itertext()).split()) if title_el is not None else ""
    parts = [" ".join("".join(a.itertext()).split()) for a in elem.iterfind(".//AbstractText")]
    parts = [p for p in parts if p]
    if not title and not parts:
        raise _BadArticle("article has neither a title nor an abstract", pmid)
    text = " ".join([title] + parts) if parts else title
    return TextDocument(pmid, text, position=f"{path}:article #{number}", title_end=len(title))


def read_pubmed_xml(path, *, skip_bad=False, stats=None):
    """Documents (PMID, title + abstract) of a PubMed/MEDLINE XML file, streamed.

    A record is a ``PubmedArticle``, or a ``MedlineCitation`` outside one (MEDLINE
    ``MedlineCitationSet`` files).  Records are numbered from 1 in error messages.
    """
    stats = stats if stats is not None else ReadStats()
    number = inside = 0
    root, seen = None, {}                       # document id → number of its article
    with open_binary(path, "PubMed XML file") as handle, reading(path):
        try:
            for event, elem in ET.iterparse(handle, events=("start", "end")):
                if root is None:
                    root = elem
                if event == "start":
                    inside += elem.tag == "PubmedArticle"
                    continue
                if elem.tag == "PubmedArticle":
                    inside -= 1
                elif not (elem.tag == "MedlineCitation" and inside == 0):
                    continue
                number += 1
                try:
                    doc = _pubmed_record(elem, number, path)
                    if doc.id in seen:
                        raise _BadArticle(
                            f"PMID {doc.id} again: it is already {{first}}; a document id "
                            "may appear once per file (the output is keyed by document and "
                            "pair id) — remove one (--skip-bad keeps the first)", doc.id,
                            first=seen[doc.id])
                    seen[doc.id] = number
                except _BadArticle as bad:
                    if not skip_bad:
                        raise bad.error(path, number) from None
                    stats.skip(bad.error(path, number, locate=len(stats.errors) < 100))
                    doc = None
                root.clear()                  # drop the finished record: memory stays flat
                if doc is not None:
                    stats.documents += 1
                    yield doc
        except (ET.ParseError, LookupError) as exc:
            raise xml_error(path, exc) from None


def write_pubmed_xml(docs, handle):
    """Write :class:`TextDocument` objects as a minimal ``PubmedArticleSet`` (binary handle).

    Title/abstract split as in :func:`write_pubtator`.
    """
    root = ET.Element("PubmedArticleSet")
    for d in docs:
        n = _title_length(d)
        art = ET.SubElement(root, "PubmedArticle")
        cit = ET.SubElement(art, "MedlineCitation")
        ET.SubElement(cit, "PMID").text = d.id
        a = ET.SubElement(cit, "Article")
        ET.SubElement(a, "ArticleTitle").text = d.text[:n]
        if n < len(d.text):
            ET.SubElement(ET.SubElement(a, "Abstract"), "AbstractText").text = d.text[n + 1:]
    ET.indent(root)
    handle.write(ET.tostring(root, encoding="utf-8", xml_declaration=True))


# ----------------------------------------------------------------------------- learning XML
#: what :func:`learning_to_text_document` does with a discontinuous entity
DISCONTINUOUS_POLICIES = ("error", "drop")


@dataclass
class ConversionStats:
    """Counts of :func:`learning_to_text_document` calls: what PubTator could not carry.

    ``discontinuous``: entities dropped (policy ``drop``); ``merged``: entities with the same
    single span as an earlier entity of their sentence, written as that one mention;
    ``pairs_lost`` / ``positive_pairs_lost``: gold candidate pairs that raw-text extraction
    cannot produce from the output (an entity dropped, or both entities merged into one
    mention); ``examples``: the first 10 dropped entities.
    """

    documents: int = 0
    entities: int = 0
    mentions: int = 0
    discontinuous: int = 0
    merged: int = 0
    pairs: int = 0
    pairs_lost: int = 0
    positive_pairs_lost: int = 0
    examples: list = field(default_factory=list)

    def as_dict(self):
        return {k: getattr(self, k) for k in ("documents", "entities", "mentions",
                                              "discontinuous", "merged", "pairs", "pairs_lost",
                                              "positive_pairs_lost", "examples")}


def learning_to_text_document(doc, *, discontinuous="error", stats=None, default_type="Gene"):
    """A learning-format :class:`corpora.ppi_xml.Document` as an abstract with mentions.

    The text is the document's sentences joined by one space (the first sentence is the
    title when there are several); every single-span entity becomes a :class:`Mention` in
    document coordinates (type: the entity's, else ``default_type``).  Entities with the
    same span become one mention (counted as ``merged``).

    PubTator (and :class:`Mention`) has **no discontinuous spans**, so an entity with
    several fragments — BioInfer has 122, e.g. "muscle … actin" in "muscle and brain
    actin" — cannot be written faithfully.  Writing each fragment as a mention would invent
    protein mentions ("muscle") and candidate pairs the gold standard never labelled, and
    the covering span would swallow other entities, so neither is offered:

    ``discontinuous="error"`` (default)
        raise :class:`kernelrank.errors.CorpusFormatError` naming the document, sentence and
        entity;
    ``discontinuous="drop"``
        leave the entity out and count it in ``stats`` (:class:`ConversionStats`), with the
        gold pairs that thereby cannot be produced — callers report these counts.

    Returns the :class:`TextDocument` (``mentions`` sorted by offsets).  O(entities + pairs).
    """
    if discontinuous not in DISCONTINUOUS_POLICIES:
        raise InvalidParameterError(f"discontinuous={discontinuous!r}; choose one of "
                                    f"{', '.join(DISCONTINUOUS_POLICIES)}")
    stats = stats if stats is not None else ConversionStats()
    parts, mentions, where, pos = [], {}, {}, 0
    for s in doc.sentences:
        for e in s.entities:
            stats.entities += 1
            if len(e.offsets) != 1:
                if discontinuous == "error":
                    raise CorpusFormatError(
                        f"entity {e.id} {e.text!r} is discontinuous (spans "
                        f"{', '.join(f'{a}-{b}' for a, b in e.offsets)}); PubTator has no "
                        "discontinuous spans — use discontinuous='drop' to leave it out "
                        "(counted)", record=f"{doc.id}/{s.id}")
                stats.discontinuous += 1
                if len(stats.examples) < 10:
                    stats.examples.append(f"{s.id}: {e.id} {e.text!r} {list(e.offsets)}")
                where[(s.id, e.id)] = None
                continue
            a, b = e.offsets[0]
            text = s.text[a:b + 1]
            if not text.strip() or b >= len(s.text):
                raise CorpusFormatError(f"entity {e.id} at {a}-{b} reads {text!r} (empty or "
                                        "outside the sentence)", record=f"{doc.id}/{s.id}")
            key = (pos + a, pos + b + 1)
            if key in mentions:
                stats.merged += 1
            else:
                mentions[key] = Mention(key[0], key[1], text, e.type or default_type)
            where[(s.id, e.id)] = key
        for p in s.pairs:
            stats.pairs += 1
            k1, k2 = where.get((s.id, p.e1)), where.get((s.id, p.e2))
            if k1 is None or k2 is None or k1 == k2:
                stats.pairs_lost += 1
                stats.positive_pairs_lost += bool(p.interaction)
        parts.append(s.text)
        pos += len(s.text) + 1
    stats.documents += 1
    stats.mentions += len(mentions)
    title_end = len(parts[0]) if len(parts) > 1 else None
    return TextDocument(doc.id, " ".join(parts), [mentions[k] for k in sorted(mentions)],
                        title_end=title_end)


def read_learning_xml(path, *, skip_bad=False, stats=None):
    """Documents of a learning-format XML file with their sentences, entities and pairs."""
    from corpora.ppi_xml import iter_documents
    stats = stats if stats is not None else ReadStats()
    for _, _, doc in iter_documents(path):
        stats.documents += 1
        yield TextDocument(doc.id, " ".join(s.text for s in doc.sentences),
                           sentences=doc.sentences, position=f"{path}")


def _read_bioc_xml(path, **kw):
    from corpora.bioc import read_bioc_xml
    return read_bioc_xml(path, **kw)


def _read_bioc_json(path, **kw):
    from corpora.bioc import read_bioc_json
    return read_bioc_json(path, **kw)


_READERS = {"text": read_text, "pubmed-xml": read_pubmed_xml, "pubtator": read_pubtator,
            "learning-xml": read_learning_xml, "bioc-xml": _read_bioc_xml,
            "bioc-json": _read_bioc_json}


_XML_ROOTS = {b"PubmedArticleSet": "pubmed-xml", b"MedlineCitationSet": "pubmed-xml",
              b"collection": "bioc-xml", b"corpus": "learning-xml"}


def detect_format(path):
    """The input format of ``path`` from its name (``.gz`` ignored) and, for ``.xml``, its
    root element.

    A directory or ``*.txt``: ``text``; ``*.pubtator``: ``pubtator``; ``*.json`` /
    ``*.jsonl``: ``bioc-json``; ``*.xml``: by the root element — ``PubmedArticleSet`` /
    ``MedlineCitationSet`` → ``pubmed-xml``, ``collection`` → ``bioc-xml``, ``corpus`` →
    ``learning-xml``.  Anything else is an :class:`InvalidParameterError` asking for
    ``--format``.
    """
    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"input {path} does not exist")
    if path.is_dir():
        return "text"
    name = path.name.lower()
    name = name[:-3] if name.endswith(".gz") else name
    suffix = name.rsplit(".", 1)[-1] if "." in name else ""
    by_suffix = {"txt": "text", "pubtator": "pubtator", "json": "bioc-json",
                 "jsonl": "bioc-json"}
    if suffix in by_suffix:
        return by_suffix[suffix]
    if suffix == "xml":
        with open_binary(path, "input file") as handle, reading(path):
            head = handle.read(1 << 16)
        for m in re.finditer(rb"<([A-Za-z][\w.-]*)[\s>/]", head):
            if m.group(1) in _XML_ROOTS:
                return _XML_ROOTS[m.group(1)]
            break                                   # the first element is the root
        raise InvalidParameterError(f"cannot tell the format of {path} from its root "
                                    "element; give --format")
    raise InvalidParameterError(f"cannot tell the format of {path} from its name; give "
                                f"--format ({', '.join(FORMATS)})")


def read_documents(path, format, *, skip_bad=False, stats=None, **options):
    """Stream the :class:`TextDocument` objects of ``path`` in the given ``format``.

    ``stats`` (a :class:`ReadStats`) is updated while reading.  ``options`` go to the
    reader (``one_document`` for ``text``).
    """
    if format not in _READERS:
        raise InvalidParameterError(f"unknown input format {format!r}; choose one of "
                                    f"{', '.join(FORMATS)}")
    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"input {path} does not exist")
    if path.is_dir() and format != "text":
        raise InvalidParameterError(f"{path} is a directory; only --format text reads "
                                    "directories (one document per *.txt file)")
    return _READERS[format](path, skip_bad=skip_bad, stats=stats, **options)
