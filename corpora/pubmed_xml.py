"""PubMed/MEDLINE XML: titles and abstracts as input documents, read (streamed) and written.

A record is a ``PubmedArticle``, or a ``MedlineCitation`` outside one (MEDLINE
``MedlineCitationSet`` files). The document text is the title, one space, then the
``AbstractText`` sections joined by one space — the PubTator convention, so offsets of both
formats agree. Id: the PMID; PubMed keeps each version of a *versioned citation* as a
separate record with the same PMID and ``<PMID Version="N">``, whose id is ``PMID.N`` when
N > 1 (NLM's ``PMID.version`` identifier; version 1 keeps the plain PMID). A PMID (with the
same version) repeated in a file is a :class:`~kernelrank.errors.CorpusFormatError` naming
the article numbers and lines of both records (with ``skip_bad=True`` the later one is
skipped and counted). XML that is not well-formed always stops the run.

Cost: :func:`xml.etree.ElementTree.iterparse`, each article cleared after use — memory flat
in the file's size, O(size) time; the line of a malformed record is looked up by a second
pass over the file, paid only when an error is reported.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from corpora.documents import ReadStats, TextDocument, title_length
from corpora.lines import READ_ERRORS, open_binary, reading, xml_error
from kernelrank.errors import CorpusFormatError, KernelrankError

__all__ = ["read_pubmed_xml", "write_pubmed_xml"]


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
    """Write :class:`~corpora.documents.TextDocument` objects as a minimal
    ``PubmedArticleSet`` (binary handle).

    Title/abstract split as in :func:`corpora.pubtator.write_pubtator`.
    """
    root = ET.Element("PubmedArticleSet")
    for d in docs:
        n = title_length(d)
        art = ET.SubElement(root, "PubmedArticle")
        cit = ET.SubElement(art, "MedlineCitation")
        ET.SubElement(cit, "PMID").text = d.id
        a = ET.SubElement(cit, "Article")
        ET.SubElement(a, "ArticleTitle").text = d.text[:n]
        if n < len(d.text):
            ET.SubElement(ET.SubElement(a, "Abstract"), "AbstractText").text = d.text[n + 1:]
    ET.indent(root)
    handle.write(ET.tostring(root, encoding="utf-8", xml_declaration=True))
