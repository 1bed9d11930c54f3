"""Reader and writer of the PPI corpora in the unified "learning format" XML (Paper V, l.2804).

Two variants of the same document → sentence → entity/pair structure are understood:

* ``learning`` — the format of the five corpora in ``<data>/ppi/``: character offsets are
  0-based with an **inclusive** end ("KinC" = ``170-173``), may be a comma-separated list of
  spans (discontinuous entities), and every sentence carries ``sentenceanalyses`` with one
  or more tokenizations and dependency parses (``shared/data/ppi/xml_format.txt``).
* ``interaction`` — the interaction-XML variant: the same elements without analyses, with
  **exclusive** offset ends (``170-174``).  Positive pairs may also be given as
  ``<interaction e1= e2=>`` elements.

In memory every offset is a tuple of ``(start, end)`` spans with an *inclusive* end, whatever
the file variant.  Files are streamed with :func:`xml.etree.ElementTree.iterparse`, one
``document`` at a time (:func:`iter_documents`).  Malformed input raises
:class:`kernelrank.errors.CorpusFormatError` naming the file and the document/sentence id.
:func:`write_corpus` writes either variant; reading what it wrote gives an equal corpus.

Consistency of the records — each of these is a
:class:`~kernelrank.errors.CorpusFormatError` naming the file, the line of the offending
element and its id, and saying what to fix; none is repaired, because none occurs in the
five real corpora (checked: 0 of 4,236 / 4,421 / 405 / 1,117 / 239 entities of AIMed /
BioInfer / HPRD50 / IEPA / LLL mismatch, 0 duplicate ids of any kind, 0 self-pairs, 0
entity pairs given twice):

* an entity whose ``text`` is not the sentence text at its ``charOffset``
  (:func:`entity_text_matches`: fragments of a discontinuous entity — BioInfer's 122 —
  are joined by one space, as in the real files; runs of whitespace compare equal). A
  missing ``text`` attribute is taken from the offsets. Spans outside the sentence, or
  spans of a discontinuous entity out of order or overlapping, are errors too;
* a document, sentence, entity or pair id met twice in the file (the message gives the
  line of the first); ids are remembered per file, O(number of ids) memory;
* a pair of an entity with itself (``e1 == e2``), a pair naming an entity not in its
  sentence, and a second pair (``pair`` or ``interaction``) over the same two entities,
  in either order — whatever its label.

``iterparse`` reports no line per element, so the line is found by a second pass over the
file when an error is raised (:func:`corpora.lines.find_lines`); reading valid files costs
the same as before.  Token texts are not compared with their offsets: BioInfer has 12
tokens (in each tokenization) whose offsets are shifted by one character, real data that
no check of ours may reject.
"""

from __future__ import annotations

import gzip
import io
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from xml.sax.saxutils import escape as xml_escape

from corpora.lines import find_lines, open_binary, reading, strict_int, xml_error
from kernelrank.atomic import atomic_open
from kernelrank.errors import CorpusFormatError, InvalidParameterError

__all__ = [
    "Token", "Dependency", "Tokenization", "Parse", "Entity", "Pair", "Sentence", "Document",
    "Corpus", "PARSE_ALIASES", "iter_documents", "read_corpus", "write_corpus",
    "parse_offsets", "format_offsets", "corpus_statistics", "entity_text_matches",
]

#: Names accepted for the analysis to use → the ``parser`` attribute of the parse.
#: ``spacy`` is not in the files: :func:`ppi.parsing.spacy_analyses.add_spacy_analyses` adds it.
PARSE_ALIASES = {"split_parse": "split_parse", "split": "split_parse",
                 "Charniak-Lease": "Charniak-Lease", "charniak-lease": "Charniak-Lease",
                 "spacy": "spacy"}

VARIANTS = ("learning", "interaction")


@dataclass(frozen=True)
class Token:
    id: str
    text: str
    pos: str
    offsets: tuple          # ((start, end_inclusive), ...)
    attrs: tuple = ()       # other XML attributes, sorted (key, value) pairs


@dataclass(frozen=True)
class Dependency:
    id: str | None          # absent on the "hyphen" dependencies of the split parse
    t1: str                 # governor token id
    t2: str                 # dependent token id
    type: str
    attrs: tuple = ()


@dataclass
class Tokenization:
    tokenizer: str
    tokens: list
    attrs: tuple = ()


@dataclass
class Parse:
    parser: str
    tokenizer: str
    dependencies: list
    attrs: tuple = ()


@dataclass(frozen=True)
class Entity:
    id: str
    offsets: tuple
    text: str
    type: str | None = None
    attrs: tuple = ()       # origId / origID and anything else, kept for round trips


@dataclass(frozen=True)
class Pair:
    id: str
    e1: str
    e2: str
    interaction: bool
    attrs: tuple = ()


@dataclass
class Sentence:
    id: str
    text: str
    entities: list = field(default_factory=list)
    pairs: list = field(default_factory=list)
    tokenizations: dict = field(default_factory=dict)   # tokenizer name → Tokenization
    parses: dict = field(default_factory=dict)          # parser name → Parse
    attrs: tuple = ()

    def analysis(self, parse="split_parse"):
        """``(tokens, dependencies)`` of the named parse (``split_parse``/``split``,
        ``Charniak-Lease`` or, once added, ``spacy``) and the tokenization it refers to."""
        name = resolve_parse_name(parse)
        if name not in self.parses:
            raise CorpusFormatError(
                f"no parse {name!r} (has {sorted(self.parses) or 'none'}); choose another "
                "--parse or use a file with sentence analyses", record=self.id)
        p = self.parses[name]
        if p.tokenizer not in self.tokenizations:
            raise CorpusFormatError(f"parse {name!r} refers to tokenization {p.tokenizer!r}, "
                                    "which is absent", record=self.id)
        return self.tokenizations[p.tokenizer].tokens, p.dependencies


@dataclass
class Document:
    id: str
    sentences: list = field(default_factory=list)
    attrs: tuple = ()


@dataclass
class Corpus:
    source: str
    documents: list
    attrs: tuple = ()

    def sentences(self):
        for d in self.documents:
            yield from d.sentences


def resolve_parse_name(parse):
    try:
        return PARSE_ALIASES[parse]
    except (KeyError, TypeError):
        raise InvalidParameterError(
            f"unknown parse {parse!r}; choose one of {sorted(set(PARSE_ALIASES))}") from None


# ----------------------------------------------------------------------------- offsets
def parse_offsets(text, variant="learning", *, path=None, record=None):
    """``"21-24,26-29"`` → ``((21, 24), (26, 29))`` with inclusive ends.

    For the ``interaction`` variant the file's ends are exclusive and are converted.
    """
    spans = []
    try:
        for part in text.split(","):
            a, b = part.strip().split("-")
            start, end = strict_int(a), strict_int(b)
            if variant == "interaction":
                end -= 1
            if start < 0 or end < start:
                raise ValueError
            spans.append((start, end))
    except (ValueError, AttributeError):
        raise CorpusFormatError(f"bad charOffset {text!r} (expected 'start-end[,start-end]')",
                                path=path, record=record) from None
    return tuple(spans)


def format_offsets(spans, variant="learning"):
    """Inverse of :func:`parse_offsets`."""
    shift = 1 if variant == "interaction" else 0
    return ",".join(f"{a}-{b + shift}" for a, b in spans)


# ----------------------------------------------------------------------------- reading
def _rest(attrib, known):
    return tuple(sorted((k, v) for k, v in attrib.items() if k not in known))


def _need(elem, name, path, record):
    value = elem.get(name)
    if value is None:
        raise CorpusFormatError(f"<{elem.tag}> lacks the required attribute {name!r}",
                                path=path, record=record)
    return value


def _element_line(path, tag, ident, nth=1):
    """Line of the ``nth`` ``<tag ... id="ident">`` start tag of ``path``, or None.

    ``iterparse`` gives no line per element, so the line of a record is looked up by a
    second pass over the file (:func:`corpora.lines.find_lines`), paid only when an
    error is raised.
    """
    if path is None or ident is None:
        return None
    value = re.escape(xml_escape(ident, {'"': "&quot;", "\n": "&#10;"}).encode("utf-8"))
    attr = rb"\sid\s*=\s*(?:\"" + value + rb"\"|'" + value + rb"')"
    pattern = re.compile(rb"<" + tag.encode() + rb"(?:\s[^<]*?)?" + attr)
    lines = find_lines(path, pattern, limit=nth)
    return lines[nth - 1] if len(lines) >= nth else None


def _record_error(message, path, tag, ident, record=None, nth=1):
    """A :class:`CorpusFormatError` naming the file, the line of element ``<tag id=ident>``
    (the ``nth`` one) and the record (``ident`` unless ``record`` is given)."""
    return CorpusFormatError(message, path=path, line=_element_line(path, tag, ident, nth),
                             record=ident if record is None else record)


class _SeenIds:
    """Ids met so far in one file, per kind (document, sentence, entity, pair): O(ids)."""

    def __init__(self, path):
        self.path = path
        self.seen = {kind: {} for kind in ("document", "sentence", "entity", "pair")}

    def add(self, kind, ident, tag=None, advice=""):
        counts = self.seen[kind]
        n = counts.get(ident, 0) + 1
        counts[ident] = n
        if n > 1:
            tag = tag or kind
            first = _element_line(self.path, tag, ident)
            where = f"line {first}" if first is not None else "earlier in the file"
            raise _record_error(f"duplicate {kind} id {ident!r} (first at {where}); ids "
                                f"must be unique in a file{advice}", self.path, tag, ident,
                                nth=n)


def entity_text_matches(stated, sentence_text, spans):
    """Whether an entity's ``text`` attribute is the sentence text at its ``spans``.

    ``spans`` are ``(start, end_inclusive)`` pairs. The fragments of a discontinuous entity
    are joined by one space (the convention of the five corpora: BioInfer's "muscle ...
    actin" has text "muscle actin"); runs of whitespace compare equal to one space (XML
    attribute normalisation turns line breaks and tabs into spaces).
    """
    fragments = [sentence_text[a:b + 1] for a, b in spans]
    joined = " ".join(fragments)
    return stated == joined or stated.split() == joined.split()


def _read_entity(child, s, variant, path):
    eid = _need(child, "id", path, s.id)
    offsets = parse_offsets(_need(child, "charOffset", path, eid), variant,
                            path=path, record=eid)
    text = s.text
    off = child.get("charOffset")
    if max(b for _, b in offsets) >= len(text):
        raise _record_error(f"charOffset {off} of entity {eid} lies outside its sentence "
                            f"{s.id} (length {len(text)}); correct the charOffset",
                            path, "entity", eid)
    if any(b >= c for (_, b), (c, _) in zip(offsets, offsets[1:])):
        raise _record_error(f"charOffset {off} of entity {eid}: the spans of a "
                            "discontinuous entity must be in increasing order without "
                            "overlap", path, "entity", eid)
    stated = child.get("text")
    if stated is None:      # no text attribute: nothing to contradict, take the offsets'
        stated = " ".join(text[a:b + 1] for a, b in offsets)
    elif not entity_text_matches(stated, text, offsets):
        actual = " ".join(text[a:b + 1] for a, b in offsets)
        raise _record_error(f"entity {eid} has text {stated!r} but its charOffset {off} "
                            f"reads {actual!r} in sentence {s.id}; correct the entity's "
                            "text or charOffset (offsets are 0-based with an inclusive "
                            "end in the learning format, exclusive in interaction XML)",
                            path, "entity", eid)
    return Entity(eid, offsets, stated, child.get("type"),
                  _rest(child.attrib, ("id", "charOffset", "text", "type")))


def _read_sentence(elem, variant, path, ids=None):
    sid = elem.get("id")
    if sid is None:
        raise CorpusFormatError("<sentence> without an id", path=path)
    ids = ids if ids is not None else _SeenIds(path)
    ids.add("sentence", sid)
    text = _need(elem, "text", path, sid)
    s = Sentence(id=sid, text=text, attrs=_rest(elem.attrib, ("id", "text")))
    pairs = []
    for child in elem:
        if child.tag == "entity":
            entity = _read_entity(child, s, variant, path)
            ids.add("entity", entity.id)
            s.entities.append(entity)
        elif child.tag in ("pair", "interaction"):
            pid = child.get("id") or f"{sid}.{child.tag}{len(pairs)}"
            e1, e2 = _need(child, "e1", path, pid), _need(child, "e2", path, pid)
            if child.tag == "pair":
                flag = _need(child, "interaction", path, pid)
                if flag not in ("True", "False"):
                    raise CorpusFormatError(f"interaction={flag!r}, expected True or False",
                                            path=path, record=pid)
                pair = Pair(pid, e1, e2, flag == "True",
                            _rest(child.attrib, ("id", "e1", "e2", "interaction")))
            else:
                pair = Pair(pid, e1, e2, True, (("_element", "interaction"),)
                            + _rest(child.attrib, ("id", "e1", "e2")))
            if child.get("id") is not None:
                ids.add("pair", pid, tag=child.tag, advice=" (a pair id names one "
                        "labelled candidate; give the other pair a new id or remove it)")
            pairs.append((pair, child.tag, child.get("id")))
        elif child.tag == "sentenceanalyses":
            _read_analyses(child, s, path)
        else:
            raise CorpusFormatError(f"unexpected element <{child.tag}> in a sentence",
                                    path=path, record=sid)
    entity_ids, pair_keys = {e.id for e in s.entities}, {}
    for pair, tag, given_id in pairs:
        pid, e1, e2 = pair.id, pair.e1, pair.e2
        for e in (e1, e2):
            if e not in entity_ids:
                raise _record_error(f"{tag} {pid} refers to entity {e!r}, which is not in "
                                    f"sentence {sid}; correct e1/e2 or add the entity",
                                    path, tag, given_id, record=pid)
        if e1 == e2:
            raise _record_error(f"{tag} {pid} pairs entity {e1} with itself; a candidate "
                                "pair needs two entities — remove it", path, tag, given_id,
                                record=pid)
        key = frozenset((e1, e2))
        if key in pair_keys:
            raise _record_error(f"{tag} {pid} pairs entities {e1} and {e2} again (already "
                                f"pair {pair_keys[key]} of sentence {sid}); keep one pair "
                                "per entity pair", path, tag, given_id, record=pid)
        pair_keys[key] = pid
        s.pairs.append(pair)
    return s


def _read_analyses(elem, s, path):
    for group in elem:
        for item in group:
            if item.tag == "tokenization":
                name = _need(item, "tokenizer", path, s.id)
                tokens = []
                for t in item:
                    tid = _need(t, "id", path, s.id)
                    tokens.append(Token(tid, _need(t, "text", path, tid), _need(t, "POS", path, tid),
                                        parse_offsets(_need(t, "charOffset", path, tid),
                                                      path=path, record=tid),
                                        _rest(t.attrib, ("id", "text", "POS", "charOffset"))))
                s.tokenizations[name] = Tokenization(name, tokens, _rest(item.attrib, ("tokenizer",)))
            elif item.tag == "parse":
                name = _need(item, "parser", path, s.id)
                deps = [Dependency(d.get("id"), _need(d, "t1", path, s.id),
                                   _need(d, "t2", path, s.id), _need(d, "type", path, s.id),
                                   _rest(d.attrib, ("id", "t1", "t2", "type"))) for d in item]
                s.parses[name] = Parse(name, _need(item, "tokenizer", path, s.id), deps,
                                       _rest(item.attrib, ("parser", "tokenizer")))
            else:
                raise CorpusFormatError(f"unexpected element <{item.tag}> in sentence analyses",
                                        path=path, record=s.id)
    for p in s.parses.values():
        tok = s.tokenizations.get(p.tokenizer)
        if tok is None:
            continue
        ids = {t.id for t in tok.tokens}
        for d in p.dependencies:
            if d.t1 not in ids or d.t2 not in ids:
                raise CorpusFormatError(f"dependency {d.id} of parse {p.parser!r} refers to a "
                                        f"token not in tokenization {p.tokenizer!r}",
                                        path=path, record=s.id)


def iter_documents(path, variant="auto"):
    """Stream the :class:`Document` objects of a corpus file (gzip or plain XML).

    Parameters
    ----------
    path : path-like
    variant : {"auto", "learning", "interaction"}
        ``auto`` reads a ``variant`` attribute on ``<corpus>`` if present, else
        ``learning``.

    Yields
    ------
    (corpus_attributes, variant, Document)
    """
    if variant not in ("auto",) + VARIANTS:
        raise InvalidParameterError(f"variant={variant!r}; choose auto, learning or interaction")
    path = Path(path)
    with open_binary(path, "PPI corpus file") as handle, reading(path):
        root_attrib, v = None, variant
        ids = _SeenIds(path)
        try:
            for event, elem in ET.iterparse(handle, events=("start", "end")):
                if event == "start":
                    if root_attrib is None:
                        if elem.tag != "corpus":
                            raise CorpusFormatError(f"root element is <{elem.tag}>, expected "
                                                    "<corpus>", path=path)
                        root_attrib = dict(elem.attrib)
                        if v == "auto":
                            v = root_attrib.get("variant", "learning")
                            if v not in VARIANTS:
                                raise CorpusFormatError(f"unknown variant {v!r}", path=path)
                    continue
                if elem.tag == "document":
                    did = elem.get("id")
                    if did is None:
                        raise CorpusFormatError("<document> without an id", path=path)
                    ids.add("document", did)
                    doc = Document(did, attrs=_rest(elem.attrib, ("id",)))
                    for child in elem:
                        if child.tag != "sentence":
                            raise CorpusFormatError(f"unexpected element <{child.tag}> in a "
                                                    "document", path=path, record=did)
                        doc.sentences.append(_read_sentence(child, v, path, ids))
                    elem.clear()
                    yield root_attrib, v, doc
        except (ET.ParseError, LookupError) as exc:
            raise xml_error(path, exc) from None


def read_corpus(path, variant="auto"):
    """Read a whole corpus file into a :class:`Corpus` (see :func:`iter_documents`)."""
    docs, attrib = [], {}
    for attrib, _, doc in iter_documents(path, variant):
        docs.append(doc)
    if not docs:
        raise CorpusFormatError("no <document> elements", path=path)
    return Corpus(attrib.get("source", Path(path).name), docs,
                  _rest(attrib, ("source", "variant")))


# ----------------------------------------------------------------------------- writing
def _el(tag, attrs, *rest):
    e = ET.Element(tag)
    for k, v in attrs:
        if v is not None:
            e.set(k, v)
    for k, v in rest:
        e.set(k, v)
    return e


def write_corpus(corpus, path, variant="learning"):
    """Write ``corpus`` as XML (gzip when ``path`` ends with ``.gz``), atomically.

    ``variant="interaction"`` writes exclusive offset ends and no sentence analyses.
    """
    if variant not in VARIANTS:
        raise InvalidParameterError(f"variant={variant!r}; choose learning or interaction")
    root = _el("corpus", [("source", corpus.source)], *corpus.attrs)
    if variant == "interaction":
        root.set("variant", "interaction")
    for doc in corpus.documents:
        d = ET.SubElement(root, "document")
        d.set("id", doc.id)
        for k, v in doc.attrs:
            d.set(k, v)
        for s in doc.sentences:
            se = _el("sentence", [("id", s.id), ("text", s.text)], *s.attrs)
            d.append(se)
            for e in s.entities:
                se.append(_el("entity", [("id", e.id),
                                         ("charOffset", format_offsets(e.offsets, variant)),
                                         ("text", e.text), ("type", e.type)], *e.attrs))
            for p in s.pairs:
                rest = dict(p.attrs)
                if rest.pop("_element", None) == "interaction":
                    se.append(_el("interaction", [("id", p.id), ("e1", p.e1), ("e2", p.e2)],
                                  *sorted(rest.items())))
                else:
                    se.append(_el("pair", [("id", p.id), ("e1", p.e1), ("e2", p.e2),
                                           ("interaction", str(bool(p.interaction)))],
                                  *sorted(rest.items())))
            if variant == "learning" and (s.parses or s.tokenizations):
                sa = ET.SubElement(se, "sentenceanalyses")
                ps = ET.SubElement(sa, "parses")
                for p in s.parses.values():
                    pe = _el("parse", [("parser", p.parser), ("tokenizer", p.tokenizer)], *p.attrs)
                    ps.append(pe)
                    for dep in p.dependencies:
                        pe.append(_el("dependency", [("id", dep.id), ("t1", dep.t1),
                                                     ("t2", dep.t2), ("type", dep.type)], *dep.attrs))
                ts = ET.SubElement(sa, "tokenizations")
                for t in s.tokenizations.values():
                    te = _el("tokenization", [("tokenizer", t.tokenizer)], *t.attrs)
                    ts.append(te)
                    for tok in t.tokens:
                        te.append(_el("token", [("id", tok.id), ("text", tok.text),
                                                ("POS", tok.pos),
                                                ("charOffset", format_offsets(tok.offsets))],
                                      *tok.attrs))
    ET.indent(root)
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    path = Path(path)
    if path.suffix == ".gz":
        buf = io.BytesIO()
        with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as gz:
            gz.write(data)
        data = buf.getvalue()
    with atomic_open(path, "wb") as handle:
        handle.write(data)
    return path


def corpus_statistics(corpus):
    """Counts of the data README table: documents, sentences, entities, pairs, pos, neg."""
    n_s = n_e = n_p = n_pos = 0
    for s in corpus.sentences():
        n_s += 1
        n_e += len(s.entities)
        n_p += len(s.pairs)
        n_pos += sum(p.interaction for p in s.pairs)
    return {"documents": len(corpus.documents), "sentences": n_s, "entities": n_e,
            "pairs": n_p, "positive": n_pos, "negative": n_p - n_pos}
