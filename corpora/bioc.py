"""BioC XML and BioC JSON (PubTator Central's export formats) as documents with gene mentions.

BioC (Comeau et al. 2013, *Database* bat064) holds a ``collection`` of ``document``\\ s, each
with ``passage``\\ s (title, abstract, …) at character ``offset``\\ s of the document, and
``annotation``\\ s with ``infon``\\ s (``type``, the concept id) and ``location``\\ s in document
coordinates; document-level ``relation``\\ s carry gold interactions (BioCreative VI PPIm:
infons ``Gene1``, ``Gene2``).  The data model is the ``bioc`` package's
(:class:`bioc.BioCDocument`; BioC JSON documents are decoded by ``bioc.biocjson``).

Streaming
---------
BioC XML is read with :func:`xml.etree.ElementTree.iterparse`; each ``document`` element is
turned into a :class:`bioc.BioCDocument` and the tree is cleared, so memory does not grow
with the file.  (``bioc.biocxml.iterparse`` is not used: it keeps every element of the file
in its lxml tree.)  BioC JSON is streamed when it has one document per line (JSON lines:
PubTator Central's ``biocjson`` export, or ``bioc.biocjson.iterwriter`` output); a file
holding one JSON value — a collection ``{"documents": [...]}``, ``{"PubTator3": [...]}`` or a
list of documents — is parsed whole (the standard library has no streaming JSON parser).

Documents
---------
The text is every passage's text placed at its offset, gaps filled with spaces (PubTator's
``title + " " + abstract`` for a title at 0 and an abstract at ``len(title) + 1``); a
passage without text is built from its sentences the same way.  Passages that overlap, or
leave a gap of more than :data:`MAX_GAP` characters, are an error.  ``title_end`` is the end of a first passage of type ``title`` (or ``front``).
Annotations of the document, its passages and sentences are the mentions (:class:`Mention`
with ``type`` = the ``type`` infon and ``id`` = the first of :data:`ID_INFONS` present),
aligned, repaired and merged by :func:`corpora.standoff.align_mentions` exactly as PubTator
mentions are.  An annotation with several locations is a *discontinuous* mention, e.g. BioCreative
VI PPIm's "glutamate receptors type 5a, and 5b" (locations "glutamate receptors type" and
"5b"): a :class:`Mention` is one span, so each location becomes a mention of the
annotation's type and concept id, its text the document's text there (the BioC sense of a
location: a stretch of text of the annotation; at document level, where relations name
concept ids and not mentions, nothing is invented — the concept is mentioned at each
fragment; a shared head like "glutamate receptors type" then merges with the other
annotations of that span into one mention of several ids, as PubTator writes a mention of
two genes).  Counted as ``mentions_fragmented`` (annotations read so); BC6 PPIm's BioC file
has 21 of 8,833.  PubTator cannot express fragments: its export of the same corpus keeps the
first location only.  An annotation without a location is an error, or with ``skip_bad``
left out and counted as ``mentions_dropped``.

Bad input
---------
A file that is not BioC (another root element, a JSON value without documents) or not
well-formed is a :class:`~kernelrank.errors.CorpusFormatError` naming the file; a malformed
document (no id, overlapping passages) names the file, its line (XML: found by a second
pass, only on error; JSON lines: the line) and the document, and is skipped and counted
with ``skip_bad``.  A document id repeated in a file is an error naming both documents;
with ``skip_bad`` the later one is skipped and counted (the first is kept, nothing is
merged), as for PubTator.

:func:`read_bioc_relations` reads the gold gene pairs of each document.
"""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET

from corpora.lines import find_lines, open_binary, reading, strict_int, xml_error
from corpora.standoff import align_mentions, check_relations, split_concept_ids
from corpora.documents import Mention, ReadStats, Relation, TextDocument, type_set
from kernelrank.errors import CorpusFormatError, DataNotFoundError

__all__ = ["ID_INFONS", "read_bioc_xml", "read_bioc_json", "read_bioc_relations",
           "iter_bioc"]

#: infon keys holding an annotation's concept id, in order of preference (PubTator Central:
#: ``identifier``; BioCreative VI PPIm: ``NCBI GENE``); compared case-insensitively
ID_INFONS = ("identifier", "ncbi gene", "ncbigene", "ncbi_gene", "gene_id")
_TITLE_TYPES = ("title", "front")
#: the largest gap between passages filled with spaces (a larger one is a wrong offset, and
#: would otherwise cost its size in memory)
MAX_GAP = 100_000
_DOCUMENT_TAG = re.compile(rb"<document[\s>/]")


def _bioc():
    """The ``bioc`` package, or a DataNotFoundError saying how to install it."""
    try:
        import bioc
        import bioc.biocjson.decoder  # noqa: F401
    except ImportError:
        raise DataNotFoundError("reading BioC needs the bioc package; install it with "
                                "`pip install 'kernelrank[text]'` (or `pip install bioc`)"
                                ) from None
    return bioc


class _BadDocument(Exception):
    def __init__(self, message, record=None):
        super().__init__(message)
        self.message, self.record = message, record


# ----------------------------------------------------------------------------- XML → bioc
def _infons(elem):
    return {i.get("key"): i.text for i in elem.findall("infon")}


def _xml_annotation(elem):
    bioc = _bioc()
    ann = bioc.BioCAnnotation()
    ann.id = elem.get("id")
    ann.infons = _infons(elem)
    ann.text = elem.findtext("text")
    for loc in elem.findall("location"):
        try:
            ann.add_location(bioc.BioCLocation(strict_int(loc.get("offset")),
                                               strict_int(loc.get("length"))))
        except (TypeError, ValueError):
            raise _BadDocument(f"annotation {ann.id}: location offset={loc.get('offset')!r} "
                               f"length={loc.get('length')!r} is not two integers") from None
    return ann


def _xml_relation(elem):
    bioc = _bioc()
    rel = bioc.BioCRelation()
    rel.id = elem.get("id")
    rel.infons = _infons(elem)
    for node in elem.findall("node"):
        rel.add_node(bioc.BioCNode(node.get("refid"), node.get("role")))
    return rel


def _offset(elem, what):
    text = elem.findtext("offset")
    try:
        return strict_int(text)
    except (TypeError, ValueError):
        raise _BadDocument(f"{what} offset {text!r} is not an integer") from None


def _xml_document(elem):
    """A :class:`bioc.BioCDocument` of a ``document`` element."""
    bioc = _bioc()
    doc = bioc.BioCDocument()
    doc.id = (elem.findtext("id") or "").strip()
    doc.infons = _infons(elem)
    for p in elem.findall("passage"):
        passage = bioc.BioCPassage()
        passage.offset = _offset(p, "passage")
        passage.infons = _infons(p)
        passage.text = p.findtext("text")
        for s in p.findall("sentence"):
            sentence = bioc.BioCSentence()
            sentence.offset = _offset(s, "sentence")
            sentence.text = s.findtext("text")
            sentence.infons = _infons(s)
            for a in s.findall("annotation"):
                sentence.add_annotation(_xml_annotation(a))
            passage.add_sentence(sentence)
        for a in p.findall("annotation"):
            passage.add_annotation(_xml_annotation(a))
        for r in p.findall("relation"):
            passage.add_relation(_xml_relation(r))
        doc.add_passage(passage)
    for a in elem.findall("annotation"):
        doc.add_annotation(_xml_annotation(a))
    for r in elem.findall("relation"):
        doc.add_relation(_xml_relation(r))
    return doc


def _xml_documents(path):
    """``(number, BioCDocument or _BadDocument)`` of a BioC XML file, streamed."""
    root, number = None, 0
    with open_binary(path, "BioC XML file") as handle, reading(path):
        try:
            for event, elem in ET.iterparse(handle, events=("start", "end")):
                if root is None:
                    root = elem
                    if elem.tag != "collection":
                        raise CorpusFormatError(f"not BioC XML: the root element is "
                                                f"<{elem.tag}>, not <collection>", path=path,
                                                line=1)
                if event != "end" or elem.tag != "document":
                    continue
                number += 1
                try:
                    result = _xml_document(elem)
                except _BadDocument as bad:
                    result = bad
                root.clear()                   # drop the finished document: memory stays flat
                yield number, result
        except (ET.ParseError, LookupError) as exc:
            raise xml_error(path, exc) from None


# ----------------------------------------------------------------------------- JSON → bioc
def _check_int(value, what, number):
    if isinstance(value, bool) or not isinstance(value, int):
        raise _BadDocument(f"JSON value #{number}: {what} {value!r} is not an integer")


def _check_text(value, what, number):
    if value is not None and not isinstance(value, str):
        raise _BadDocument(f"JSON value #{number}: {what} {value!r} is not a string")


def _complete(obj, number):
    """``obj`` with the optional BioC JSON keys ``bioc.biocjson`` expects filled in, and the
    types of the fields read here checked (offsets and lengths integers, texts strings)."""
    if not isinstance(obj, dict) or "passages" not in obj:
        raise _BadDocument(f"JSON value #{number} is not a BioC document (an object with "
                           "\"passages\")")
    if obj.get("bioctype", "BioCDocument") != "BioCDocument":
        raise _BadDocument(f"JSON value #{number} is a {obj['bioctype']}, not a BioCDocument")

    def annotations(x):
        if not isinstance(x.setdefault("annotations", []), list) or not isinstance(
                x.setdefault("relations", []), list):
            raise _BadDocument(f"JSON value #{number}: annotations and relations must be "
                               "lists")
        for a in x["annotations"]:
            if not isinstance(a, dict):
                raise _BadDocument(f"JSON value #{number}: an annotation is not an object")
            a.setdefault("infons", {})
            a.setdefault("id", None)
            a.setdefault("text", None)
            _check_text(a["text"], "annotation text", number)
            if not isinstance(a["infons"], dict) or not isinstance(
                    a.setdefault("locations", []), list):
                raise _BadDocument(f"JSON value #{number}: annotation {a['id']}: infons must "
                                   "be an object and locations a list")
            for loc in a["locations"]:
                if not isinstance(loc, dict):
                    raise _BadDocument(f"JSON value #{number}: a location is not an object")
                _check_int(loc.get("offset"), "location offset", number)
                _check_int(loc.get("length"), "location length", number)
        for r in x["relations"]:
            if not isinstance(r, dict):
                raise _BadDocument(f"JSON value #{number}: a relation is not an object")
            r.setdefault("infons", {})
            r.setdefault("id", None)
            r.setdefault("nodes", [])
    obj = dict(obj)
    obj["id"] = str(obj.get("id", "") or "").strip()
    obj.setdefault("infons", {})
    annotations(obj)
    if not isinstance(obj["passages"], list):
        raise _BadDocument(f"JSON value #{number}: passages must be a list")
    for p in obj["passages"]:
        if not isinstance(p, dict):
            raise _BadDocument(f"JSON value #{number}: a passage is not an object")
        p.setdefault("infons", {})
        _check_int(p.setdefault("offset", 0), "passage offset", number)
        _check_text(p.get("text"), "passage text", number)
        annotations(p)
        if not isinstance(p.setdefault("sentences", []), list):
            raise _BadDocument(f"JSON value #{number}: sentences must be a list")
        for s in p["sentences"]:
            if not isinstance(s, dict):
                raise _BadDocument(f"JSON value #{number}: a sentence is not an object")
            s.setdefault("infons", {})
            s.setdefault("text", None)
            _check_text(s["text"], "sentence text", number)
            _check_int(s.setdefault("offset", 0), "sentence offset", number)
            annotations(s)
    return obj


def _json_document(obj, number):
    parse_doc = _bioc().biocjson.decoder.parse_doc
    obj = _complete(obj, number)
    try:
        return parse_doc(obj)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise _BadDocument(f"JSON value #{number} is not a BioC document "
                           f"({type(exc).__name__}: {exc})") from None


def _json_documents(path):
    """``(line or number, BioCDocument or _BadDocument)`` of a BioC JSON file (module
    docstring: JSON lines stream, one JSON value is parsed whole)."""
    with open_binary(path, "BioC JSON file") as handle, reading(path):
        first_line, lines = None, []
        for lineno, raw in enumerate(handle, 1):
            line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8").strip()
            if not line:
                continue
            if first_line is None:
                first_line = lineno
                try:
                    obj = json.loads(line)
                except ValueError:
                    obj = None
                if not (isinstance(obj, dict) and "passages" in obj):
                    lines.append(line)              # one JSON value over the whole file
                    break
            else:
                try:
                    obj = json.loads(line)
                except ValueError as exc:
                    raise CorpusFormatError(f"not a JSON line: {exc}", path=path,
                                            line=lineno) from None
            try:
                yield lineno, _json_document(obj, lineno)
            except _BadDocument as bad:
                yield lineno, bad
        if not lines:
            return
        rest = lines[0] + "\n" + b"".join(handle).decode("utf-8")
    try:
        value = json.loads(rest)
    except ValueError as exc:
        raise CorpusFormatError(f"not JSON: {exc}", path=path) from None
    if isinstance(value, dict) and "documents" in value:
        docs = value["documents"]
    elif isinstance(value, dict) and "PubTator3" in value:
        docs = value["PubTator3"]
    elif isinstance(value, dict) and "passages" in value:
        docs = [value]
    else:
        docs = value
    if not isinstance(docs, list):
        raise CorpusFormatError("not BioC JSON: expected a collection {\"documents\": [...]}, "
                                "a list of documents or one document per line", path=path,
                                line=first_line)
    for number, obj in enumerate(docs, 1):
        try:
            yield number, _json_document(obj, number)
        except _BadDocument as bad:
            yield number, bad


# ----------------------------------------------------------------------------- bioc → text
def _place(parts, offset, text, what):
    """Append ``text`` at ``offset`` of the document being built in ``parts``."""
    length = sum(len(p) for p in parts)
    if offset < length:
        raise _BadDocument(f"{what} at offset {offset} overlaps the text before it (which "
                           f"ends at {length})")
    if offset - length > MAX_GAP:
        raise _BadDocument(f"{what} at offset {offset} leaves a gap of {offset - length:,} "
                           f"characters after the text before it (more than {MAX_GAP:,}: a "
                           "wrong offset?)")
    parts.append(" " * (offset - length))
    parts.append(text)


def _concept_id(infons):
    lower = {str(k).lower(): v for k, v in infons.items()}
    for key in ID_INFONS:
        value = lower.get(key)
        if value is not None and str(value).strip():
            return str(value).strip()
    return None


def _annotations(bdoc):
    for a in bdoc.annotations:
        yield a
    for p in bdoc.passages:
        yield from p.annotations
        for s in p.sentences:
            yield from s.annotations


def _text_document(bdoc, where, path, skip_bad, stats, mentions=True):
    """The :class:`TextDocument` of a :class:`bioc.BioCDocument` (module docstring);
    ``mentions=False``: without mentions (``None``), annotations not looked at."""
    if not bdoc.id:
        raise _BadDocument("document without an id")
    parts, title_end = [], None
    for k, p in enumerate(sorted(bdoc.passages, key=lambda p: p.offset)):
        kind = str(p.infons.get("type", "")).lower()
        if p.text is not None:
            _place(parts, p.offset, p.text, f"passage {k + 1} ({kind or 'no type'})")
        else:
            for s in p.sentences:
                if s.text is not None:
                    _place(parts, s.offset, s.text, f"a sentence of passage {k + 1}")
        if k == 0 and kind in _TITLE_TYPES and p.offset == 0:
            title_end = sum(len(x) for x in parts)
    text = "".join(parts)
    if not mentions:
        return TextDocument(bdoc.id, text, None, position=f"{path}:{where}",
                            title_end=title_end)
    located = []
    for a in _annotations(bdoc):
        loc = {"record": f"{bdoc.id}/annotation {a.id}"}
        if not a.locations:
            exc = CorpusFormatError(f"annotation {a.id} {a.text!r} has no location" + (
                "; left out (--skip-bad)" if skip_bad else
                "; pass --skip-bad to leave it out (counted)"), path=path, **loc)
            if not skip_bad:
                raise exc
            stats.mentions_dropped += 1
            if len(stats.mention_errors) < 100:
                stats.mention_errors.append(str(exc))
            continue
        kind = a.infons.get("type")
        kind = str(kind) if kind else None
        concept = _concept_id(a.infons)
        if len(a.locations) == 1:
            start = a.locations[0].offset
            located.append((loc, Mention(start, start + a.locations[0].length, a.text or "",
                                         kind, concept)))
            continue
        stats.mentions_fragmented += 1          # one mention per location (module docstring)
        for k, place in enumerate(a.locations, 1):
            start, end = place.offset, place.offset + place.length
            located.append(({"record": f"{bdoc.id}/annotation {a.id} location {k}"},
                            Mention(start, end, text[start:end], kind, concept)))
    mentions = align_mentions(text, located, stats, path=path, record=bdoc.id,
                              skip_bad=skip_bad)
    return TextDocument(bdoc.id, text, mentions, position=f"{path}:{where}",
                        title_end=title_end,
                        relations=_document_relations(bdoc, path, skip_bad, stats))


def _all_relations(bdoc):
    yield from bdoc.relations
    for p in bdoc.passages:
        yield from p.relations


def _document_relations(bdoc, path, skip_bad, stats):
    """The :class:`Relation` objects of a BioC document (of the document and of its
    passages), its two concept ids told by :func:`_relation_genes`, its type from the infon
    ``type`` or ``relation``, the other infons kept as ``attrs``; checked by
    :func:`corpora.standoff.check_relations` against the ids its annotations carry — a
    relation without two ids is an error naming it, or left out and counted with
    ``skip_bad``.  The one reading of relations for training and for the gold of
    :func:`read_bioc_relations`."""
    ids = {a.id: _concept_id(a.infons) for a in _annotations(bdoc)}
    located = []
    for rel in _all_relations(bdoc):
        genes = _relation_genes(rel, ids)
        lower = {str(k).lower(): str(v) for k, v in rel.infons.items()}
        attrs = tuple(sorted((k, v) for k, v in lower.items() if k not in (
            "type", "relation", *(x for pair in _ID_PAIR_INFONS for x in pair))))
        located.append(({"record": f"{bdoc.id}/relation {rel.id}"},
                        Relation(_relation_type(rel), genes[0], genes[1], attrs)))
    return check_relations(located, ids.values(), stats, path=path, record=bdoc.id,
                           skip_bad=skip_bad)


def _relation_type(rel):
    """A BioC relation's type: its infon ``type`` or ``relation`` (any case), else
    ``relation``."""
    lower = {str(k).lower(): str(v) for k, v in rel.infons.items()}
    return lower.get("type") or lower.get("relation") or "relation"


def _document_line(path, number):
    found = find_lines(path, _DOCUMENT_TAG, limit=number)
    return found[number - 1] if len(found) >= number else None


def iter_bioc(path, format="bioc-xml", *, skip_bad=False, stats=None, mentions=True):
    """``(TextDocument, bioc.BioCDocument)`` of each document of a BioC file, streamed.

    ``format``: ``bioc-xml`` or ``bioc-json``.  Errors and ``skip_bad`` as in the module
    docstring; ``stats`` (:class:`corpora.text_input.ReadStats`) is updated.
    ``mentions=False``: the documents' ``mentions`` are None (annotations are not read —
    for a caller that wants only the relations).
    """
    stats = stats if stats is not None else ReadStats()
    _bioc()                                     # fail at once when it is not installed
    xml = format == "bioc-xml"
    source = _xml_documents(path) if xml else _json_documents(path)
    seen = {}
    for number, bdoc in source:
        where = f"document #{number}" if xml else (f"line {number}")

        def error(message, record, locate=True):
            line = (_document_line(path, number) if locate else None) if xml else number
            return CorpusFormatError(f"{message} ({where})" if xml else message, path=path,
                                     line=line, record=record)
        try:
            if isinstance(bdoc, _BadDocument):
                raise bdoc
            doc = _text_document(bdoc, where, path, skip_bad, stats, mentions)
            if doc.id in seen:
                first = seen[doc.id]
                where_first = (f"document #{first}, line {_document_line(path, first)}"
                               if xml else f"line {first}")
                stats.mentions -= len(doc.mentions or ())
                stats.relations -= len(doc.relations or ())
                raise _BadDocument(
                    f"document {doc.id} again: it is already {where_first}; a document id "
                    "may appear once per file (the output is keyed by document and pair "
                    "id) — remove one (--skip-bad keeps the first)", doc.id)
        except _BadDocument as bad:
            record = bad.record or getattr(bdoc, "id", None) or where
            if not skip_bad:
                raise error(bad.message, record) from None
            stats.skip(error(bad.message, record, locate=len(stats.errors) < 100))
            continue
        seen[doc.id] = number
        stats.documents += 1
        yield doc, bdoc


def read_bioc_xml(path, *, skip_bad=False, stats=None):
    """:class:`TextDocument` objects of a BioC XML file (module docstring)."""
    for doc, _ in iter_bioc(path, "bioc-xml", skip_bad=skip_bad, stats=stats):
        yield doc


def read_bioc_json(path, *, skip_bad=False, stats=None):
    """:class:`TextDocument` objects of a BioC JSON file (module docstring)."""
    for doc, _ in iter_bioc(path, "bioc-json", skip_bad=skip_bad, stats=stats):
        yield doc


#: infon pairs naming a relation's two concept ids: BioCreative VI PPIm's, BioRED's
_ID_PAIR_INFONS = (("gene1", "gene2"), ("entity1", "entity2"))


def _relation_genes(rel, annotations):
    """The two concept ids of a relation: infons ``Gene1``/``Gene2`` (BioCreative VI PPIm) or
    ``entity1``/``entity2`` (BioRED's BioC), or its first two nodes' annotations' concept
    ids; where it has neither, what it has, ``""`` in the place of a missing id (an empty
    ``Gene2``: :func:`corpora.standoff.check_relations` refuses it)."""
    lower = {str(k).lower(): v for k, v in rel.infons.items()}
    for a, b in _ID_PAIR_INFONS:
        if lower.get(a) and lower.get(b):
            return str(lower[a]).strip(), str(lower[b]).strip()
    ids = [annotations.get(n.refid) for n in rel.nodes]
    ids = [i for i in ids if i]
    if len(ids) >= 2:
        return ids[0], ids[1]
    for a, b in _ID_PAIR_INFONS:
        if a in lower or b in lower:
            return str(lower.get(a) or "").strip(), str(lower.get(b) or "").strip()
    return (ids + ["", ""])[0], (ids + ["", ""])[1]


def read_bioc_relations(path, format="bioc-xml", *, skip_bad=False, stats=None,
                        relation_types=None):
    """``(doc_id, set of gene-id pairs)`` of each document: its gold relations (those of the
    document and of its passages, as :func:`read_bioc_xml` reads them) as unordered pairs
    ``tuple(sorted((g1, g2)))`` (a gene with itself is ``(g, g)``); with ``relation_types``,
    only the relations of those types (compared ignoring case).  The relations are read as
    for training (:func:`_document_relations`): one that names no two genes (no
    ``Gene1``/``Gene2`` infons, no two nodes with concept ids, an empty one) is a
    CorpusFormatError naming it, or with ``skip_bad`` left out and counted in
    ``stats.relations_dropped``.  Mentions are not read (a discontinuous annotation does not
    matter here)."""
    stats = stats if stats is not None else ReadStats()
    types = (None if relation_types is None else
             type_set(relation_types, "relation types", "Bind Association"))
    for doc, bdoc in iter_bioc(path, format, skip_bad=skip_bad, stats=stats, mentions=False):
        pairs = set()
        for r in _document_relations(bdoc, path, skip_bad, stats):
            if types is not None and r.type.lower() not in types:
                continue
            for g1 in split_concept_ids(r.id1):
                for g2 in split_concept_ids(r.id2):
                    pairs.add(tuple(sorted((g1, g2))))
        yield doc.id, pairs
