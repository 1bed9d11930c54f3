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
"""

from __future__ import annotations

import gzip
import io
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from corpora.lines import open_binary, reading
from kernelrank.atomic import atomic_open
from kernelrank.errors import CorpusFormatError, InvalidParameterError

__all__ = [
    "Token", "Dependency", "Tokenization", "Parse", "Entity", "Pair", "Sentence", "Document",
    "Corpus", "PARSE_ALIASES", "iter_documents", "read_corpus", "write_corpus",
    "parse_offsets", "format_offsets", "corpus_statistics",
]

#: Names accepted for the analysis to use → the ``parser`` attribute of the parse.
PARSE_ALIASES = {"split_parse": "split_parse", "split": "split_parse",
                 "Charniak-Lease": "Charniak-Lease", "charniak-lease": "Charniak-Lease"}

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
        """``(tokens, dependencies)`` of the named parse (``split_parse``/``split`` or
        ``Charniak-Lease``) and the tokenization it refers to."""
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
            start, end = int(a), int(b)
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


def _read_sentence(elem, variant, path):
    sid = elem.get("id")
    if sid is None:
        raise CorpusFormatError("<sentence> without an id", path=path)
    text = _need(elem, "text", path, sid)
    s = Sentence(id=sid, text=text, attrs=_rest(elem.attrib, ("id", "text")))
    for child in elem:
        if child.tag == "entity":
            eid = _need(child, "id", path, sid)
            offsets = parse_offsets(_need(child, "charOffset", path, eid), variant,
                                    path=path, record=eid)
            if offsets[-1][1] >= len(text) + (1 if variant == "interaction" else 0):
                raise CorpusFormatError(f"charOffset {child.get('charOffset')} lies outside "
                                        f"the sentence (length {len(text)})",
                                        path=path, record=eid)
            s.entities.append(Entity(eid, offsets, child.get("text", ""), child.get("type"),
                                     _rest(child.attrib, ("id", "charOffset", "text", "type"))))
        elif child.tag in ("pair", "interaction"):
            pid = child.get("id") or f"{sid}.{child.tag}{len(s.pairs)}"
            e1, e2 = _need(child, "e1", path, pid), _need(child, "e2", path, pid)
            if child.tag == "pair":
                flag = _need(child, "interaction", path, pid)
                if flag not in ("True", "False"):
                    raise CorpusFormatError(f"interaction={flag!r}, expected True or False",
                                            path=path, record=pid)
                s.pairs.append(Pair(pid, e1, e2, flag == "True",
                                    _rest(child.attrib, ("id", "e1", "e2", "interaction"))))
            else:
                s.pairs.append(Pair(pid, e1, e2, True,
                                    (("_element", "interaction"),)
                                    + _rest(child.attrib, ("id", "e1", "e2"))))
        elif child.tag == "sentenceanalyses":
            _read_analyses(child, s, path)
        else:
            raise CorpusFormatError(f"unexpected element <{child.tag}> in a sentence",
                                    path=path, record=sid)
    ids = {e.id for e in s.entities}
    for p in s.pairs:
        for e in (p.e1, p.e2):
            if e not in ids:
                raise CorpusFormatError(f"pair refers to entity {e!r}, which is not in the "
                                        "sentence", path=path, record=p.id)
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
                    doc = Document(did, attrs=_rest(elem.attrib, ("id",)))
                    for child in elem:
                        if child.tag != "sentence":
                            raise CorpusFormatError(f"unexpected element <{child.tag}> in a "
                                                    "document", path=path, record=did)
                        doc.sentences.append(_read_sentence(child, v, path))
                    elem.clear()
                    yield root_attrib, v, doc
        except ET.ParseError as exc:
            raise CorpusFormatError(f"not well-formed XML: {exc}", path=path,
                                    line=exc.position[0]) from None


def read_corpus(path, variant="auto"):
    """Read a whole corpus file into a :class:`Corpus` (see :func:`iter_documents`)."""
    docs, attrib, seen = [], {}, set()
    for attrib, _, doc in iter_documents(path, variant):
        if doc.id in seen:
            raise CorpusFormatError("duplicate document id", path=path, record=doc.id)
        seen.add(doc.id)
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
