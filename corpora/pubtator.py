"""PubTator: abstracts with standoff mention and relation annotations, read and written.

A record is ``PMID|t|title`` and ``PMID|a|abstract`` lines, then standoff annotation lines
``PMID<TAB>start<TAB>end<TAB>text<TAB>type[<TAB>concept id]`` (0-based, exclusive end, over
``title + " " + abstract``); records are separated by blank lines. Relation lines
``PMID<TAB>type<TAB>id1<TAB>id2[<TAB>more]`` (the type a word such as BioRED's ``Bind`` or
BioCreative V CDR's ``CID``: ``PMID  Bind  5468  7132  Novel``, ``PMID  CID  D1  D2``) are the
document's :class:`~corpora.documents.Relation` objects (``TextDocument.relations``; the
fields after the ids kept as ``attrs`` ``field5``, …, BioRED's fifth as ``novelty``); a
relation line with fewer than four fields is an error, and so is a line that is neither an
annotation (offsets in plain decimal digits) nor a relation (an offset ``21a`` or `` 21`` is
not taken for a relation type). An annotation whose text is not at its offsets is repaired,
or dropped with ``skip_bad``; identical annotations are merged; a relation naming an id with
``|`` that no mention carries (``3175|77777777``) is an error, or left out with ``skip_bad``
(:mod:`corpora.standoff`, counted in :class:`~corpora.documents.ReadStats`).

A PMID repeated in a file is a :class:`~kernelrank.errors.CorpusFormatError` naming the lines
of both records (with ``skip_bad=True`` the later record is skipped and counted); see
:mod:`corpora.text_input` for why ids must be unique. :func:`write_pubtator` writes
:class:`~corpora.documents.TextDocument` objects back, refusing what a record cannot hold.

Cost: streamed, one record in memory at a time; O(size of the input), plus the mention
alignment of each record (:func:`corpora.standoff.align_mentions`) and O(documents) for the
ids seen.
"""

from __future__ import annotations

import re

from corpora.documents import Mention, ReadStats, Relation, TextDocument, title_length
from corpora.lines import decoded_lines, open_binary, strict_int
from corpora.standoff import align_mentions, check_relations
from kernelrank.errors import CorpusFormatError, InvalidParameterError

__all__ = ["read_pubtator", "write_pubtator"]


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
                relations.append(({"line": lineno}, _relation(fields, path, lineno, pmid)))
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
        relations = check_relations(relations, [m.id for m in aligned], stats, path=path,
                                    record=pmid, skip_bad=skip_bad)
        return TextDocument(pmid, text, aligned, position=f"{path}:{first}",
                            title_end=len(title), relations=relations)
    except CorpusFormatError as exc:
        if not skip_bad:
            raise
        stats.skip(exc)
        return None


def _relation(fields, path, lineno, pmid):
    """The :class:`~corpora.documents.Relation` of a PubTator relation line (its
    tab-separated ``fields``)."""
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
        stats.relations -= len(doc.relations or ())
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
    with open_binary(path, "input file") as handle:
        lines = []
        for lineno, line in decoded_lines(handle, path):
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
    """Write :class:`~corpora.documents.TextDocument` objects (text = title + " " +
    abstract) as PubTator.

    The title is ``text[:title_end]`` (the whole text when ``title_end`` is None); the
    character after it must be the one space that separates it from the abstract.  What a
    PubTator record cannot hold — an id with ``|``, tab or line break, a line break in the
    text, a mention that does not match the text — raises
    :class:`kernelrank.errors.InvalidParameterError` before anything of that document is
    written.  (A :class:`~corpora.documents.Mention` is one contiguous span; for discontinuous
    benchmark entities see :func:`corpora.learning_text.learning_to_text_document`.)
    """
    for d in docs:
        _check_writable(d)
        n = title_length(d)
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
