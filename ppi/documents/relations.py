"""Document-level relations: candidate concept pairs of a document and their bags of mention
pairs (the data of the ``documents`` system, :mod:`ppi.documents.system`).

Users' corpora (BioRED, BioCreative VI PPIm, PubTator / BioC exports of their curators) say
"the genes with ids A and B are related in document D" — not which two mentions in which
sentence.  This module turns such a document into what the learners need:

**Candidates** (the definition of ``ppi evaluate-documents``, :mod:`ppi.aggregation.evaluation`):
in a document, every unordered pair of two *distinct* concept ids that both have a mention
of the entity types (default :data:`DEFAULT_ENTITY_TYPES`: NCBI genes / gene products) is a
candidate; a mention with several ids ``a,b`` counts for each, and mentions without an id
(``-``, empty) name none (:func:`corpora.standoff.split_concept_ids`).  A candidate is
**positive** when a relation of the document names the two ids (any relation type; a
relation's ids split as a mention's).

**Bags** (multiple-instance learning; Dietterich, Lathrop & Lozano-Pérez 1997; for relation
extraction Bunescu & Mooney 2007, Riedel, Yao & McCallum 2010): a candidate's instances are
its *mention pairs* — every pair of two mentions in one sentence whose ids give the
candidate.  A mention pair whose ids give several candidates (a mention ``a,b``) is an
instance of each; a mention pair of one id twice is an instance of none (it is scored, as
``ppi extract`` scores it, but no candidate reads it).  About 4–12 % of BioRED's related gene
pairs never share a sentence: their bag is empty (a *cross-sentence* candidate), and only the
document-level features of :mod:`ppi.documents.stage` can score them.

The sentences are spaCy's (:func:`ppi.parsing.spacy_parse.parse_documents`, the very function
``ppi extract`` parses raw text with: tokens split at mention boundaries, sentences merged
where a mention crosses a boundary, every pair of two mentions of a sentence a candidate
pair), so a model trained here sees the parse it will score.  The parses of a file are cached
(:func:`parsed_documents`; key: the documents' ids, texts and mention spans, the spaCy and
model versions, the parse names).

Complexity: parsing dominates (spaCy, O(tokens) a sentence); the candidates of a document with
``g`` distinct ids and ``p`` mention pairs cost O(g² + p · ids per mention²).
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from corpora.standoff import concept_order, concept_pair, split_concept_ids
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from ppi.names import DEFAULT_ENTITY_TYPES

__all__ = ["DEFAULT_ENTITY_TYPES", "Candidates", "RelationCorpus", "DocumentMentions",
           "candidate_mentions", "document_candidates", "build_candidates",
           "read_relation_documents", "keep_relation_types",
           "parsed_documents", "relation_corpus", "bag_max"]

log = logging.getLogger(__name__)

#: Version of the cached parses' layout (part of the cache key).
_CACHE_FORMAT = 1


def _type_set(entity_types):
    from corpora.documents import type_set

    return type_set(DEFAULT_ENTITY_TYPES if entity_types is None else entity_types,
                    "entity types", "Gene GeneOrGeneProduct")


def candidate_mentions(doc, entity_types=None):
    """The mentions of ``doc`` (a :class:`corpora.documents.TextDocument` with annotations)
    whose type is one of ``entity_types`` (default :data:`DEFAULT_ENTITY_TYPES`, ignoring
    case), in text order."""
    if doc.mentions is None:
        raise CorpusFormatError("the document has no mention annotations; document-level "
                                "relations are learned from annotated PubTator / BioC input",
                                path=doc.position or None, record=doc.id)
    types = _type_set(entity_types)
    return sorted((m for m in doc.mentions if (m.type or "").lower() in types),
                  key=lambda m: (m.start, m.end))


@dataclass
class DocumentMentions:
    """Where the candidate ids of one parsed document are mentioned — what the
    document-level features read (:mod:`ppi.documents.stage`).

    ``sentence_of`` / ``ids_of`` / ``in_title`` / ``start`` are per mention (document order);
    ``n_sentences`` counts the document's sentences."""

    sentence_of: np.ndarray
    ids_of: list
    in_title: np.ndarray
    start: np.ndarray
    n_sentences: int
    length: int


@dataclass
class Candidates:
    """The candidates of a set of documents and their bags (module docstring).

    Attributes
    ----------
    doc : ndarray of int (n,)       document number (position in ``doc_ids``)
    id1, id2 : ndarray of str (n,)  the two concept ids, ``id1 < id2`` as
                                    :func:`ppi.aggregation.aggregate.gene_pair` orders them
    y : ndarray (n,) or None        +1 related, −1 not (None: no relations given)
    bag_ptr : ndarray of int (n+1,) candidate ``c``'s mention-pair rows are
    bag_rows : ndarray of int       ``bag_rows[bag_ptr[c]:bag_ptr[c+1]]`` (corpus order)
    doc_ids : list of str
    mentions : list of DocumentMentions, one per document
    relation_types : list of frozenset or None — the related candidates' relation types
    type1, type2 : ndarray of str (n,) or None   a typed model's concepts' entity types
    pair_type : ndarray of int (n,) or None      the number of the pair type
                                                 (:class:`ppi.documents.pair_types.PairTypes`)
    novel : ndarray (n,) or None                 +1 a relation of the pair is marked novel,
                                                 −1 marked not novel, 0 unmarked or unrelated
    """

    doc: np.ndarray
    id1: np.ndarray
    id2: np.ndarray
    y: np.ndarray | None
    bag_ptr: np.ndarray
    bag_rows: np.ndarray
    doc_ids: list
    mentions: list
    relation_types: list | None = None
    type1: np.ndarray | None = None
    type2: np.ndarray | None = None
    pair_type: np.ndarray | None = None
    novel: np.ndarray | None = None

    def __len__(self):
        return len(self.doc)

    @property
    def bag_sizes(self):
        return np.diff(self.bag_ptr)

    def subset(self, index):
        """The candidates ``index`` (with their bags; row numbers unchanged)."""
        index = np.asarray(index, dtype=np.int64)
        sizes = self.bag_sizes[index]
        ptr = np.concatenate([[0], np.cumsum(sizes)])
        rows = np.concatenate([self.bag_rows[self.bag_ptr[c]:self.bag_ptr[c + 1]]
                               for c in index]) if len(index) else np.zeros(0, np.int64)
        return Candidates(self.doc[index], self.id1[index], self.id2[index],
                          None if self.y is None else self.y[index], ptr,
                          rows.astype(np.int64), self.doc_ids, self.mentions,
                          None if self.relation_types is None else
                          [self.relation_types[c] for c in index],
                          *(None if a is None else a[index]
                            for a in (self.type1, self.type2, self.pair_type, self.novel)))


def bag_max(scores, candidates, empty=-np.inf):
    """Each candidate's score: the maximum of its mention pairs' ``scores`` (rows in corpus
    order; a 1-D array, or 2-D with the rows on the last axis for several models at once),
    ``empty`` for a candidate without mention pairs.  O(rows of all bags)."""
    scores = np.asarray(scores, dtype=float)
    sizes = candidates.bag_sizes
    out = np.full(scores.shape[:-1] + (len(sizes),), float(empty))
    filled = np.flatnonzero(sizes > 0)
    if len(filled):
        gathered = scores[..., candidates.bag_rows]
        out[..., filled] = np.maximum.reduceat(gathered, candidates.bag_ptr[filled], axis=-1)
    return out


def _ids(mention):
    return split_concept_ids(mention.id)


def document_candidates(parsed, title_end=None, relations=None, doc_length=None,
                        pair_types=None):
    """Candidates of one parsed document and the bag of each, from its
    :class:`ppi.parsing.spacy_parse.ParsedSentence` objects (document order; each sentence's
    ``mentions[j]`` is entity ``j``'s mention).

    Returns ``(keys, bags, labels, types, mentions, typed)``: the candidate id pairs in
    canonical order (sorted), for each the positions of its mention pairs among the
    document's pairs (sentence by sentence, each sentence's pairs in order — the order of
    the featurizers and of ``ppi extract``'s records), the labels (+1/−1; None without
    ``relations``), the relation types of each positive, the :class:`DocumentMentions`, and
    with ``pair_types`` (:class:`ppi.documents.pair_types.PairTypes`) the candidates' typed
    fields (:func:`_typed_fields`; else None): only pairs of two concepts whose entity
    types (:func:`ppi.documents.pair_types.concept_types`) make one of the pair types are
    candidates."""
    sentence_of, ids_of, starts = [], [], []
    for k, p in enumerate(parsed):
        for m in p.mentions:
            sentence_of.append(k)
            ids_of.append(_ids(m))
            starts.append(m.start)
    ids = sorted({i for x in ids_of for i in x}, key=concept_order)
    keys = [(a, b) for a, b in itertools.combinations(ids, 2)]
    concept_type = None
    if pair_types is not None:
        from ppi.documents.pair_types import concept_types

        concept_type = concept_types([m for p in parsed for m in p.mentions])
        keys = [(a, b) for a, b in keys
                if pair_types.index(concept_type[a], concept_type[b]) >= 0]
    index = {k: n for n, k in enumerate(keys)}
    bags = [[] for _ in keys]
    row = 0
    for p in parsed:
        ents = {e.id: j for j, e in enumerate(p.sentence.entities)}
        for pair in p.sentence.pairs:
            i1 = _ids(p.mentions[ents[pair.e1]])
            i2 = _ids(p.mentions[ents[pair.e2]])
            seen = set()
            for a in i1:
                for b in i2:
                    if a == b:
                        continue
                    key = concept_pair(a, b)
                    if key not in seen and key in index:
                        seen.add(key)
                        bags[index[key]].append(row)
            row += 1
    labels = types = None
    novelty = {}
    if relations is not None:
        related = {}
        for r in relations:
            for a in split_concept_ids(r.id1):
                for b in split_concept_ids(r.id2):
                    key = concept_pair(a, b)
                    related.setdefault(key, set()).add(r.type)
                    value = dict(r.attrs).get("novelty")
                    if value is not None:
                        novelty.setdefault(key, set()).add(str(value).strip().lower())
        labels = np.array([1.0 if k in related else -1.0 for k in keys])
        types = [frozenset(related.get(k, ())) for k in keys]
    title = title_end if title_end is not None else -1
    mentions = DocumentMentions(np.array(sentence_of, dtype=np.int64), ids_of,
                                np.array([s < title for s in starts], dtype=bool),
                                np.array(starts, dtype=np.int64), len(parsed),
                                int(doc_length or (max(starts) + 1 if starts else 1)))
    typed = None if concept_type is None else _typed_fields(keys, concept_type, pair_types,
                                                             novelty if relations is not None
                                                             else None)
    return keys, bags, labels, types, mentions, typed


def _typed_fields(keys, concept_type, pair_types, novelty):
    """The typed fields of candidates ``keys``: each concept's entity type, the pair type's
    number and (with ``novelty``, the novelty values of the related keys) +1 when a relation
    of the pair is marked ``Novel``, −1 when it is marked otherwise (``No``), 0 when none
    says (an unrelated pair, or a file without novelty)."""
    t1 = [concept_type[a] for a, _ in keys]
    t2 = [concept_type[b] for _, b in keys]
    novel = None
    if novelty is not None:
        novel = [0.0 if k not in novelty else (1.0 if "novel" in novelty[k] else -1.0)
                 for k in keys]
    return {"type1": t1, "type2": t2,
            "pair_type": [pair_types.index(a, b) for a, b in zip(t1, t2)], "novel": novel}


def read_relation_documents(path, format=None, *, skip_bad=False, stats=None,
                            relation_types=None):
    """The documents of a PubTator or BioC file with document-level relations, as a list
    (:func:`corpora.text_input.read_documents`; a relation the reader cannot read is an
    error, or with ``skip_bad`` left out and counted in ``stats``,
    :func:`corpora.standoff.check_relations`); with ``relation_types``, only the relations
    of those types (:func:`keep_relation_types`).  A file without any relation is an error:
    there is nothing to learn from (or to evaluate against).  What becomes of each relation
    is counted by :func:`ppi.documents.relation_counts.account_relations`."""
    from corpora.text_input import detect_format, read_documents

    fmt = format or detect_format(path)
    if fmt not in ("pubtator", "bioc-xml", "bioc-json"):
        raise InvalidParameterError(f"{path}: document-level relations are read from PubTator "
                                    f"or BioC files, not {fmt!r} (--format pubtator, bioc-xml "
                                    "or bioc-json)")
    docs = list(read_documents(path, fmt, skip_bad=skip_bad, stats=stats))
    if not any(d.relations for d in docs):
        dropped = stats.relations_dropped if stats is not None else 0
        raise CorpusFormatError(f"no document-level relation in {len(docs)} documents (PubTator "
                                "relation lines PMID<TAB>type<TAB>id1<TAB>id2, or BioC "
                                "relations with two concept ids)"
                                + (f"; --skip-bad left out all {dropped} as unreadable, e.g. "
                                   f"{stats.relation_errors[0]}" if dropped else ""), path=path)
    return keep_relation_types(docs, relation_types, path)


def keep_relation_types(docs, relation_types, path=None):
    """``docs`` with only their relations of ``relation_types`` (compared ignoring case; None
    keeps all): a user's relation definition, e.g. BioRED's ``Bind`` alone.  The other
    related candidates become unrelated ones.  O(relations).

    Raises
    ------
    InvalidParameterError
        When no relation of those types is left; the message lists the file's types with
        their counts.
    """
    import dataclasses
    from collections import Counter

    from corpora.documents import type_set

    if relation_types is None:
        return docs
    types = type_set(relation_types, "relation types", "Bind Association")
    out = [dataclasses.replace(d, relations=[r for r in d.relations or ()
                                             if r.type.lower() in types])
           for d in docs]
    if not any(d.relations for d in out):
        found = Counter(r.type for d in docs for r in d.relations or ())
        raise InvalidParameterError(
            f"{path or 'the documents'}: no relation of type {', '.join(relation_types)}; its "
            "types are " + (", ".join(f"{t} ({n})" for t, n in found.most_common()) or "none"))
    return out


# ----------------------------------------------------------------------------- parsing
def _documents_key(docs, mention_lists):
    h = hashlib.sha256()
    for d, ms in zip(docs, mention_lists):
        h.update(json.dumps([d.id, d.text, d.title_end,
                             [(m.start, m.end, m.type, m.id) for m in ms]]).encode("utf-8"))
        h.update(b"\n")
    return h.hexdigest()


def _encode_sentence(p):
    from ppi.parsing.spacy_analyses import encode_analysis

    s = p.sentence
    return {"doc": p.doc_id, "id": s.id, "text": s.text, "start": p.doc_start,
            "mentions": [[m.start, m.end, m.text, m.type, m.id] for m in p.mentions],
            "entities": [[e.id, [list(o) for o in e.offsets], e.text, e.type]
                         for e in s.entities],
            "pairs": [[q.id, q.e1, q.e2] for q in s.pairs],
            "analyses": {name: encode_analysis(s.tokenizations[s.parses[name].tokenizer],
                                       s.parses[name]) for name in s.parses}}


def _decode_sentence(r):
    from corpora.documents import Mention
    from corpora.ppi_xml import Entity, Pair, Parse, Sentence, Tokenization
    from ppi.parsing.spacy_analyses import decode_analysis
    from ppi.parsing.spacy_parse import TOKENIZER_OF, ParsedSentence

    tokenizations, parses = {}, {}
    for name, rec in r["analyses"].items():
        tok, par = decode_analysis(rec)
        tname = TOKENIZER_OF.get(name, name)
        tokenizations[tname] = Tokenization(tname, tok.tokens)
        parses[name] = Parse(name, tname, par.dependencies, par.attrs)
    s = Sentence(r["id"], r["text"],
                 [Entity(i, tuple(tuple(o) for o in offs), text, typ)
                  for i, offs, text, typ in r["entities"]],
                 [Pair(i, e1, e2, False) for i, e1, e2 in r["pairs"]], tokenizations, parses)
    return ParsedSentence(r["doc"], s, r["start"],
                          [Mention(a, b, t, ty, i) for a, b, t, ty, i in r["mentions"]])


def parsed_documents(docs, entity_types=None, *, parses=("spacy",), spacy_model="en_core_web_sm",
                     collapse=True, cache=True, cache_dir=None, progress=False):
    """spaCy's sentences of ``docs`` with their candidate mention pairs, exactly as ``ppi
    extract`` parses them (module docstring), as one list of
    :class:`ppi.parsing.spacy_parse.ParsedSentence` objects per document.

    Parameters
    ----------
    docs : list of corpora.documents.TextDocument
    entity_types : sequence of str or None
        The mention types that are candidates (:func:`candidate_mentions`).
    parses : sequence of str
        The parse names the analysis is stored under (a model's :attr:`ppi.models.classes.PPIModel.
        parses`; ``spacy`` for the models of :mod:`ppi.documents.system`).
    cache, cache_dir
        The parses are cached as gzipped JSON in ``cache_dir`` (default
        :func:`ppi.parsing.spacy_analyses.default_cache_dir`), keyed by the documents, mention spans,
        entity types, parse names, ``collapse`` and the spaCy and model versions.

    Returns
    -------
    list of list of ParsedSentence
    """
    from ppi.parsing.spacy_analyses import default_cache_dir, read_cache, spacy_identity, write_cache
    from ppi.parsing.spacy_parse import conversion_version, load_spacy, parse_documents

    parses = tuple(parses)
    mentions = [candidate_mentions(d, entity_types) for d in docs]
    path = key = None
    if cache:
        key = {"format": _CACHE_FORMAT, "documents": _documents_key(docs, mentions),
               "parses": list(parses), "collapse": conversion_version(collapse),
               **spacy_identity(spacy_model)}
        digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:20]
        path = Path(cache_dir if cache_dir is not None else default_cache_dir()) / \
            f"documents-{digest}.json.gz"
        records = read_cache(path, key, "spaCy parses")
        if records is not None:
            log.info("spaCy parses of %d documents read from %s", len(docs), path)
            return _group(docs, [_decode_sentence(r) for r in records])
    nlp = load_spacy(spacy_model)
    by_doc = dict(zip((d.id for d in docs), mentions))
    from tqdm.auto import tqdm

    out = []
    step = 50
    bar = tqdm(total=len(docs), desc="spaCy parse", unit="doc", disable=not progress,
               leave=False)
    for k in range(0, len(docs), step):
        chunk = docs[k:k + step]
        with nlp.memory_zone():
            out += parse_documents(nlp, chunk, lambda d: by_doc[d.id], parses, collapse,
                                   analyse_pairless=False)
        bar.update(len(chunk))
    bar.close()
    if cache and write_cache(path, key, [_encode_sentence(p) for p in out], "spaCy parses"):
        log.info("spaCy parses of %d documents cached in %s", len(docs), path)
    return _group(docs, out)


def _group(docs, parsed):
    groups = {d.id: [] for d in docs}
    for p in parsed:
        groups[p.doc_id].append(p)
    return [groups[d.id] for d in docs]


# ----------------------------------------------------------------------------- corpus
@dataclass
class RelationCorpus:
    """Documents with document-level relations, parsed, as the featurizers read them.

    ``corpus``: a :class:`corpora.ppi_xml.Corpus` (one document per input document, its
    spaCy sentences, every candidate mention pair labelled +1 when any of its candidates is
    related — the single-instance labels); ``candidates``: :class:`Candidates` over its
    mention-pair rows (corpus order); ``parsed``: the parsed sentences per document."""

    corpus: object
    candidates: Candidates
    parsed: list = field(repr=False)
    source: str = ""
    #: what the reader counted (:class:`corpora.documents.ReadStats`) and what became of the
    #: relations (:class:`ppi.documents.relation_counts.RelationCounts`); None for a subset
    read_stats: object = field(default=None, repr=False)
    relation_counts: object = field(default=None, repr=False)
    #: a typed corpus' :class:`ppi.documents.pair_types.PairTypes` (None: one untyped set of
    #: entity types paired with itself)
    pair_types: object = None

    @property
    def n_pairs(self):
        return int(sum(len(s.pairs) for s in self.corpus.sentences()))

    def instance_labels(self):
        """+1 for a mention pair in the bag of a related candidate, else −1 (single-instance
        learning's labels: every instance of a positive bag positive)."""
        y = -np.ones(self.n_pairs)
        c = self.candidates
        pos = np.flatnonzero(c.y > 0)
        for k in pos:
            y[c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]]] = 1.0
        return y

    def documents_of_pairs(self):
        """The document number of every mention-pair row."""
        out = []
        for k, d in enumerate(self.corpus.documents):
            out += [k] * sum(len(s.pairs) for s in d.sentences)
        return np.array(out, dtype=np.int64)

    def row_pair_types(self):
        """The number of every mention-pair row's pair type (a typed corpus;
        :func:`ppi.documents.pair_types.row_pair_types`)."""
        from ppi.documents.pair_types import row_pair_types

        return row_pair_types(self.corpus.sentences(), self.pair_types)

    def subset(self, doc_index):
        """The documents ``doc_index`` (positions) as a RelationCorpus of their own."""
        from corpora.ppi_xml import Corpus

        doc_index = list(doc_index)
        docs = [self.corpus.documents[k] for k in doc_index]
        return _assemble(Corpus(self.corpus.source, docs), [self.parsed[k] for k in doc_index],
                         [self._titles[k] for k in doc_index],
                         [self._relations[k] for k in doc_index],
                         [self._lengths[k] for k in doc_index], self.source,
                         self.pair_types)


def relation_corpus(docs, entity_types=None, *, source="documents", parses=("spacy",),
                    spacy_model="en_core_web_sm", collapse=True, cache=True, cache_dir=None,
                    progress=False, pair_types=None):
    """A :class:`RelationCorpus` of ``docs`` (:class:`corpora.documents.TextDocument` with
    mentions and ``relations``; a document without relations has only negative candidates):
    parsed (:func:`parsed_documents`), the candidates and bags of every document.  With
    ``pair_types`` (:class:`ppi.documents.pair_types.PairTypes`; ``entity_types`` is then
    theirs) the mentions of every entity type of a pair type are parsed, the mention pairs
    and candidates are those of the pair types only, and the candidates are typed."""
    if pair_types is not None:
        from ppi.documents.pair_types import keep_pair_types

        entity_types = pair_types.entity_types
    parsed = parsed_documents(docs, entity_types, parses=parses, spacy_model=spacy_model,
                              collapse=collapse, cache=cache, cache_dir=cache_dir,
                              progress=progress)
    if pair_types is not None:
        for ps in parsed:
            keep_pair_types(ps, pair_types)
    from corpora.ppi_xml import Corpus, Document

    corpus = Corpus(source, [Document(d.id, [p.sentence for p in ps])
                             for d, ps in zip(docs, parsed)])
    return _assemble(corpus, parsed, [d.title_end for d in docs],
                     [d.relations or [] for d in docs], [len(d.text) for d in docs], source,
                     pair_types)


def build_candidates(parsed, titles, relations=None, lengths=None, doc_ids=None,
                     pair_types=None):
    """:class:`Candidates` of several parsed documents (``parsed``: one list of
    :class:`ppi.parsing.spacy_parse.ParsedSentence` per document; ``titles``: each document's
    ``title_end``; ``relations``: each one's relations, or None; ``lengths``: each text's
    length), their bags indexing the mention pairs of all documents in order — the order of
    the featurizers' rows and of ``ppi extract``'s records; with ``pair_types`` the typed
    candidates of :func:`document_candidates`."""
    n_docs = len(parsed)
    relations = relations if relations is not None else [None] * n_docs
    lengths = lengths if lengths is not None else [None] * n_docs
    doc, id1, id2, y, ptr, rows, mentions, types = [], [], [], [], [0], [], [], []
    typed = {"type1": [], "type2": [], "pair_type": [], "novel": []}
    offset = 0
    for k, (ps, title, rels, length) in enumerate(zip(parsed, titles, relations, lengths)):
        keys, bags, labels, tys, dm, tf = document_candidates(ps, title, rels, length,
                                                              pair_types)
        mentions.append(dm)
        if tf is not None:
            for name in typed:
                typed[name].extend(tf[name] if tf[name] is not None else [0.0] * len(keys))
        for j, (key, bag) in enumerate(zip(keys, bags)):
            doc.append(k)
            id1.append(key[0])
            id2.append(key[1])
            if labels is not None:
                y.append(labels[j])
                types.append(tys[j])
            rows.extend(offset + r for r in bag)
            ptr.append(len(rows))
        offset += sum(len(p.sentence.pairs) for p in ps)
    labelled = len(y) == len(doc) and all(r is not None for r in relations)
    if doc_ids is None:
        doc_ids = [ps[0].doc_id if ps else str(k) for k, ps in enumerate(parsed)]
    extra = {}
    if pair_types is not None:
        extra = {"type1": np.array(typed["type1"], dtype=object),
                 "type2": np.array(typed["type2"], dtype=object),
                 "pair_type": np.array(typed["pair_type"], dtype=np.int64),
                 "novel": np.array(typed["novel"], dtype=float) if labelled else None}
    return Candidates(np.array(doc, dtype=np.int64), np.array(id1, dtype=object),
                      np.array(id2, dtype=object),
                      np.array(y, dtype=float) if labelled else None,
                      np.array(ptr, dtype=np.int64), np.array(rows, dtype=np.int64),
                      list(doc_ids), mentions, types if labelled else None, **extra)


def _assemble(corpus, parsed, titles, relations, lengths, source, pair_types=None):
    from corpora.ppi_xml import Pair

    cands = build_candidates(parsed, titles, relations, lengths,
                             [d.id for d in corpus.documents], pair_types)
    rc = RelationCorpus(corpus, cands, parsed, source, pair_types=pair_types)
    rc._titles, rc._relations, rc._lengths = titles, relations, lengths
    # the single-instance labels on the pairs (what a featurizer reports as y)
    y_inst = rc.instance_labels()
    row = 0
    for s in corpus.sentences():
        s.pairs = [Pair(p.id, p.e1, p.e2, bool(y_inst[row + j] > 0), p.attrs)
                   for j, p in enumerate(s.pairs)]
        row += len(s.pairs)
    return rc
