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
    (``PMID<TAB>relation<TAB>...``, second field not a number) are ignored.  Each
    annotation's text must equal the text at its offsets.
``learning-xml``
    The learning-format XML of :mod:`corpora.ppi_xml`; documents keep their sentences, gold
    entities and candidate pairs (``TextDocument.sentences``).

Malformed records raise :class:`learners.errors.CorpusFormatError` naming the file, the
line (or record number) and the record id.  With ``skip_bad=True`` a malformed record is
skipped and counted in a :class:`ReadStats` instead (text, PubTator, PubMed records;
XML that is not well-formed, and any error in learning-format XML, always stops the run
because the stream cannot be resynchronised).
"""

from __future__ import annotations

import gzip
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from learners.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError

__all__ = ["Mention", "TextDocument", "ReadStats", "FORMATS", "read_documents",
           "read_text", "read_pubmed_xml", "read_pubtator", "read_learning_xml",
           "write_pubtator", "write_pubmed_xml"]

FORMATS = ("text", "pubmed-xml", "pubtator", "learning-xml")


@dataclass(frozen=True)
class Mention:
    """A protein mention in document coordinates: ``text[start:end]`` (exclusive end)."""

    start: int
    end: int
    text: str
    type: str | None = None
    id: str | None = None      # concept id (PubTator 6th column) if any


@dataclass
class TextDocument:
    """One input document.

    ``mentions`` is None when the input carries no annotations (a tagger must find them);
    ``sentences`` holds pre-split :class:`corpora.ppi_xml.Sentence` objects (learning-format
    input) — then ``text`` is informational and sentence offsets are sentence-relative.
    """

    id: str
    text: str
    mentions: list | None = None
    sentences: list | None = None
    position: str = ""
    title_end: int | None = None   # text[:title_end] is the title (PubMed, PubTator)


@dataclass
class ReadStats:
    """Counts of a read: documents yielded, records skipped (``skip_bad``) and why."""

    documents: int = 0
    skipped: int = 0
    errors: list = field(default_factory=list)   # first 100 messages

    def skip(self, exc):
        self.skipped += 1
        if len(self.errors) < 100:
            self.errors.append(str(exc))


def _open_text(path):
    """Binary handle (gzip detected); :func:`_lines` decodes it line by line."""
    return _open_binary(path)


def _lines(handle, path):
    """``(line number, decoded line)`` pairs; undecodable bytes → CorpusFormatError."""
    for lineno, raw in enumerate(handle, 1):
        try:
            yield lineno, raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise CorpusFormatError(f"not UTF-8 text ({exc.reason})", path=path,
                                    line=lineno) from None


def _open_binary(path):
    path = Path(path)
    with open(path, "rb") as handle:
        magic = handle.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def _check_mentions(text, mentions, path, line, record):
    for m in mentions:
        if not (0 <= m.start < m.end <= len(text)):
            raise CorpusFormatError(f"annotation {m.start}-{m.end} {m.text!r} lies outside the "
                                    f"text (length {len(text)})", path=path, line=line,
                                    record=record)
        if text[m.start:m.end] != m.text:
            raise CorpusFormatError(f"annotation {m.start}-{m.end} reads {m.text!r} but the text "
                                    f"there is {text[m.start:m.end]!r}", path=path, line=line,
                                    record=record)
        if not m.text.strip():
            raise CorpusFormatError(f"annotation {m.start}-{m.end} is only whitespace",
                                    path=path, line=line, record=record)


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


def _pubtator_record(lines, path, skip_bad, stats):
    """``lines``: [(lineno, line)] of one record → TextDocument or None (skipped)."""
    first = lines[0][0]
    pmid = None
    try:
        title = abstract = None
        mentions = []
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
            if len(fields) >= 2 and not fields[1].lstrip("-").isdigit():
                continue                                       # relation line
            if len(fields) < 5:
                raise CorpusFormatError(f"annotation line has {len(fields)} tab-separated fields, "
                                        "expected PMID, start, end, text, type[, id]",
                                        path=path, line=lineno, record=pmid)
            try:
                start, end = int(fields[1]), int(fields[2])
            except ValueError:
                raise CorpusFormatError(f"bad offsets {fields[1]!r}-{fields[2]!r}", path=path,
                                        line=lineno, record=pmid) from None
            m = Mention(start, end, fields[3], fields[4] or None,
                        fields[5] if len(fields) > 5 and fields[5] else None)
            mentions.append((lineno, m))
        if title is None:
            raise CorpusFormatError("record without a title line (PMID|t|...)", path=path,
                                    line=first, record=pmid)
        text = title if abstract is None else f"{title} {abstract}"
        for lineno, m in mentions:
            _check_mentions(text, [m], path, lineno, pmid)
        return TextDocument(pmid, text, [m for _, m in mentions], position=f"{path}:{first}",
                            title_end=len(title))
    except CorpusFormatError as exc:
        if not skip_bad:
            raise
        stats.skip(exc)
        return None


def read_pubtator(path, *, skip_bad=False, stats=None):
    """Documents (with their annotations) of a PubTator file."""
    stats = stats if stats is not None else ReadStats()
    with _open_text(path) as handle:
        lines = []
        for lineno, line in _lines(handle, path):
            line = line.rstrip("\r\n")
            if line.strip():
                lines.append((lineno, line))
                continue
            if lines:
                doc = _pubtator_record(lines, path, skip_bad, stats)
                lines = []
                if doc is not None:
                    stats.documents += 1
                    yield doc
        if lines:
            doc = _pubtator_record(lines, path, skip_bad, stats)
            if doc is not None:
                stats.documents += 1
                yield doc


def write_pubtator(docs, handle):
    """Write :class:`TextDocument` objects (text = title + " " + abstract) as PubTator.

    The title is ``text[:title_end]`` (the whole text when ``title_end`` is None); the
    character after it must be the one space that separates it from the abstract.
    """
    for d in docs:
        n = _title_length(d)
        handle.write(f"{d.id}|t|{d.text[:n]}\n")
        if n < len(d.text):
            handle.write(f"{d.id}|a|{d.text[n + 1:]}\n")
        for m in d.mentions or ():
            handle.write(f"{d.id}\t{m.start}\t{m.end}\t{m.text}\t{m.type or 'Gene'}"
                         + (f"\t{m.id}" if m.id else "") + "\n")
        handle.write("\n")


def _title_length(d):
    n = len(d.text) if d.title_end is None else d.title_end
    if n < len(d.text) and d.text[n] != " ":
        raise InvalidParameterError(f"document {d.id}: the title must be followed by one space")
    return n


# ----------------------------------------------------------------------------- PubMed XML
def _pubmed_record(elem, number, path):
    pmid_el = elem.find(".//PMID")
    if pmid_el is None or not (pmid_el.text or "").strip():
        raise CorpusFormatError("article without a PMID", path=path, record=f"article #{number}")
    pmid = pmid_el.text.strip()
    title_el = elem.find(".//ArticleTitle")
    title = " ".join("".join(title_el.itertext()).split()) if title_el is not None else ""
    parts = [" ".join("".join(a.itertext()).split()) for a in elem.iterfind(".//AbstractText")]
    parts = [p for p in parts if p]
    if not title and not parts:
        raise CorpusFormatError("article has neither a title nor an abstract", path=path,
                                record=pmid)
    text = " ".join([title] + parts) if parts else title
    return TextDocument(pmid, text, position=f"{path}:article #{number}", title_end=len(title))


def read_pubmed_xml(path, *, skip_bad=False, stats=None):
    """Documents (PMID, title + abstract) of a PubMed/MEDLINE XML file, streamed.

    A record is a ``PubmedArticle``, or a ``MedlineCitation`` outside one (MEDLINE
    ``MedlineCitationSet`` files).  Records are numbered from 1 in error messages.
    """
    stats = stats if stats is not None else ReadStats()
    number = inside = 0
    root = None
    with _open_binary(path) as handle:
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
                except CorpusFormatError as exc:
                    if not skip_bad:
                        raise
                    stats.skip(exc)
                    doc = None
                root.clear()                  # drop the finished record: memory stays flat
                if doc is not None:
                    stats.documents += 1
                    yield doc
        except ET.ParseError as exc:
            raise CorpusFormatError(f"not well-formed XML: {exc}", path=path,
                                    line=exc.position[0]) from None


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
def read_learning_xml(path, *, skip_bad=False, stats=None):
    """Documents of a learning-format XML file with their sentences, entities and pairs."""
    from corpora.ppi_xml import iter_documents
    stats = stats if stats is not None else ReadStats()
    for _, _, doc in iter_documents(path):
        stats.documents += 1
        yield TextDocument(doc.id, " ".join(s.text for s in doc.sentences),
                           sentences=doc.sentences, position=f"{path}")


_READERS = {"text": read_text, "pubmed-xml": read_pubmed_xml, "pubtator": read_pubtator,
            "learning-xml": read_learning_xml}


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
