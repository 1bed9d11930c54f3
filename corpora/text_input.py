"""Raw biomedical text for PPI extraction (``python -m ppi extract``): one door to the readers.

:func:`read_documents` streams the :class:`TextDocument` objects of a file in any of the
formats below, and :func:`detect_format` tells the format from the file's name (and an XML
file's root element). Every reader yields documents one at a time; no reader holds more than
one record in memory. Files may be gzip-compressed (detected by content). Each format has its
module:

Formats (``FORMATS``)
---------------------
``text``
    Plain text, :mod:`corpora.plain_text`: one document per blank-line-separated block of a
    file, or per ``*.txt`` file of a directory (``one_document=True``: a whole file). No
    mention annotations (use a lexicon, :mod:`ppi.extraction.mentions`).
``pubmed-xml``
    PubMed/MEDLINE XML, :mod:`corpora.pubmed_xml`: title and abstract (the PubTator
    convention, so offsets of both formats agree); id the PMID (``PMID.N`` for version N > 1
    of a versioned citation).
``pubtator``
    PubTator, :mod:`corpora.pubtator`: title and abstract lines, standoff mention annotations
    (repaired or dropped, and merged, by :mod:`corpora.standoff`) and document-level relation
    lines.
``bioc-xml``, ``bioc-json``
    BioC (PubTator Central's export formats), read by :mod:`corpora.bioc`: passages placed at
    their offsets, annotations with their concept ids, mentions as for PubTator.
``learning-xml``
    The learning-format XML of :mod:`corpora.ppi_xml`, read by :mod:`corpora.learning_text`;
    documents keep their sentences, gold entities and candidate pairs
    (``TextDocument.sentences``).

Writers: :func:`corpora.pubtator.write_pubtator` and
:func:`corpora.pubmed_xml.write_pubmed_xml`; benchmark (learning-format) documents become
:class:`TextDocument` objects with :func:`corpora.learning_text.learning_to_text_document`,
which deals explicitly with what PubTator cannot express (discontinuous entities, see there).
Every reader and writer is importable from this module too.

Document ids are unique within a file (the extraction output is keyed by
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
from pathlib import Path

from corpora.documents import Mention, ReadStats, Relation, TextDocument
from corpora.learning_text import (  # noqa: F401 (re-exported: the readers' old home)
    DISCONTINUOUS_POLICIES, ConversionStats, learning_to_text_document, read_learning_xml)
from corpora.lines import open_binary, reading
from corpora.plain_text import read_text
from corpora.pubmed_xml import read_pubmed_xml, write_pubmed_xml  # noqa: F401 (re-exported)
from corpora.pubtator import read_pubtator, write_pubtator  # noqa: F401 (re-exported)
from kernelrank.errors import DataNotFoundError, InvalidParameterError

# the document model is re-exported (and documented here) as before; the readers and writers
# of each format are documented in their own modules and importable from here too
__all__ = ["Mention", "Relation", "TextDocument", "ReadStats", "FORMATS", "read_documents",
           "detect_format"]

FORMATS = ("text", "pubmed-xml", "pubtator", "learning-xml", "bioc-xml", "bioc-json")


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
