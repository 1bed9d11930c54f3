"""One chunk of ``python -m ppi extract``: parse, featurize and score its documents.

:func:`process_chunk` is the function :func:`kernelrank.chunks.map_chunks` maps over the
chunks of the input (:mod:`ppi.extraction.extract` runs it, in this process or on Dask
workers): mentions (:mod:`ppi.extraction.mentions`: given annotations, else the lexicon
tagger) → spaCy sentences, tokens, POS, dependencies (:mod:`ppi.parsing.spacy_parse`), or
the parses a learning-format file carries → all-paths features of every candidate pair
(:mod:`ppi.representation.features`), computed in batches of bounded cost
(:data:`SCORE_BUDGET`) → score ``f(x) = x·w`` and decision ``f(x) > threshold`` of the saved
model (:mod:`ppi.models.classes`) → the chunk's records (:mod:`ppi.extraction.records`).
What every worker needs once — the model, the tagger, the parser settings — is one
:class:`ExtractionResources`, broadcast to the workers.

Cost: one spaCy pass over the chunk's raw text and one featurization of its candidate pairs;
peak memory is bounded by the chunk and one featurization batch.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc

from corpora.standoff import split_concept_ids
from kernelrank.errors import CorpusFormatError
from ppi.extraction.records import document_record, format_records, pair_records
from ppi.names import DEFAULT_SPACY_MODEL

__all__ = ["ExtractionResources", "process_chunk", "score_sentences", "with_document_records",
           "freeze_resident_objects", "cyclic_gc_paused", "SCORE_BUDGET"]


class ExtractionResources:
    """What every worker needs, broadcast once: the model, the tagger, the parser settings.

    ``spacy_model``: the pipeline that parses (None: the model's own,
    :attr:`ppi.models.classes.PPIModel.spacy_model`; without a model the default).  ``reparse``:
    re-analyse pre-split (learning-format) sentences with spaCy instead of scoring the parse
    they carry.  ``mention_types``: keep only given mentions of these types (compared
    case-insensitively; None keeps all).
    """

    def __init__(self, model, tagger=None, spacy_model=None, collapse=True,
                 reparse=False, mention_types=None):
        self.model = model
        self.tagger = tagger
        if spacy_model is None:
            spacy_model = getattr(model, "spacy_model", DEFAULT_SPACY_MODEL)
        self.spacy_model = spacy_model
        #: the conversion of spaCy's analysis: True → the model's own
        #: (:attr:`ppi.models.classes.PPIModel.spacy_conversion`), False → spaCy's labels
        self.collapse = (getattr(model, "spacy_conversion", True) if collapse is True
                         else collapse)
        self.reparse = reparse
        if mention_types is None:                # a documents model's own entity types
            mention_types = getattr(model, "entity_types", None)
        self.mention_types = (None if mention_types is None else
                              frozenset(t.lower() for t in mention_types))

    def mentions(self, doc):
        """The mentions of a raw-text document that are candidates (given or tagged)."""
        from ppi.extraction.mentions import document_mentions
        ms = document_mentions(doc, self.tagger)
        if self.mention_types is None or doc.mentions is None:
            return ms
        return [m for m in ms if (m.type or "").lower() in self.mention_types]


#: work budget of one featurization batch, in (pair-graph vertices)² summed over its pairs:
#: the all-paths entries of a batch are held in memory together and grow with the square
#: of the graph size, so batches are cut by this budget (≈ 256 pairs of 30-token sentences;
#: a long sentence's pairs are split over several batches)
SCORE_BUDGET = 256 * 60 ** 2


def _pair_batches(parsed, budget=None):
    """Consecutive groups of sentences (copies holding a slice of the pairs when a sentence
    is too costly) whose pairs cost at most ``budget``; pairs stay in their order."""
    budget = SCORE_BUDGET if budget is None else budget
    batch, cost = [], 0
    for p in parsed:
        s = p.sentence
        n_tokens = max(len(t.tokens) for t in s.tokenizations.values())
        per_pair = (2 * n_tokens) ** 2          # tokens + dependencies ≈ 2 n vertices
        step = max(1, budget // per_pair)
        for i in range(0, len(s.pairs), step):
            part = s if step >= len(s.pairs) else \
                dataclasses.replace(s, pairs=s.pairs[i:i + step])
            c = per_pair * len(part.pairs)
            if batch and cost + c > budget:
                yield batch
                batch, cost = [], 0
            batch.append(part)
            cost += c
    if batch:
        yield batch


def score_sentences(model, parsed):
    """Scores ``f(x) = x·w`` of every candidate pair of ``parsed`` (:class:`ppi.parsing.spacy_parse.
    ParsedSentence` objects), as a float array in order: sentence by sentence, each
    sentence's pairs in their order.

    The one featurize-and-score step of raw-text extraction (``ppi extract`` and the spaCy
    component :mod:`ppi.extraction.spacy_component`).  Pairs are featurized in batches of bounded cost
    (:data:`SCORE_BUDGET`), so peak memory is bounded by the batch, not by the number of
    sentences or the longest sentence's number of pairs; the scores do not depend on the
    batches.
    """
    import numpy as np

    from corpora.ppi_xml import Corpus, Document

    q = getattr(model, "n_outputs", None)          # a typed model: q columns a pair
    scores = [np.zeros(0) if q is None else np.zeros((0, q))]
    for batch in _pair_batches(parsed):
        corpus = Corpus("extract", [Document(f"c{k}", [s]) for k, s in enumerate(batch)])
        s = model.scores(corpus)
        # the featurizer keeps corpus order: document → sentence → pair
        assert len(s) == sum(len(x.pairs) for x in batch)
        scores.append(s)
    return np.concatenate(scores)


_RESIDENT_FROZEN = []


def freeze_resident_objects():
    """Take the objects loaded once per process — the spaCy pipeline, the model and its
    vocabularies — out of the cyclic garbage collector's way (``gc.freeze``: they move to
    the permanent generation).  Every full collection otherwise walks all of them again;
    the conversion of spaCy's output allocates enough objects to trigger many, which cost
    as much as the conversion itself (measured on the BC6 PPIm abstracts).  Objects frozen
    are still freed by reference counting.  Once per process."""
    if not _RESIDENT_FROZEN:
        gc.collect()
        gc.freeze()
        _RESIDENT_FROZEN.append(True)


@contextlib.contextmanager
def cyclic_gc_paused():
    """The cyclic garbage collector off while one chunk is parsed, converted and scored.

    The chunk allocates millions of small objects (spaCy's output converted to tokens and
    dependencies, label strings, feature bags) that are freed by reference counting, not by
    the collector; yet their number triggers collection after collection, each walking every
    object still alive — the chunk's growing list of sentences among them.  Measured on the
    BC6 PPIm abstracts: the collector took about half of the conversion's CPU time even with
    the resident objects frozen (:func:`freeze_resident_objects`).  Objects in reference
    cycles made during the chunk wait for the first collection after it (the generation
    they are in is the youngest one, collected at the next allocation once the collector is
    back on), so memory stays bounded by one chunk."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def process_chunk(docs, resources, output_format="jsonl"):
    """Parse and score one chunk of :class:`corpora.text_input.TextDocument` objects.

    Returns ``(text, counts)``: the chunk's output lines and ``{"documents", "sentences",
    "pairs", "predicted_positive"}``.  Runs on a Dask worker (spaCy, when needed, is loaded
    once per worker process).  Pre-split sentences keep their own parse unless
    ``resources.reparse`` (see :mod:`ppi.extraction.extract`).
    """
    from ppi.parsing.spacy_parse import load_spacy

    parses = resources.model.parses
    raw = [d for d in docs if d.sentences is None and d.text.strip()]
    presplit = [d for d in docs if d.sentences is not None]
    nlp = load_spacy(resources.spacy_model) if raw or (presplit and resources.reparse) else None
    freeze_resident_objects()
    with cyclic_gc_paused():
        return _process_chunk(docs, raw, presplit, nlp, parses, resources, output_format)


def _process_chunk(docs, raw, presplit, nlp, parses, resources, output_format):
    from ppi.parsing.spacy_parse import ParsedSentence, parse_documents, reparse_sentences

    # spaCy's strings and lexemes of this chunk's new words are dropped again when the
    # memory zone ends (spaCy ≥ 3.8, "Memory management for persistent services"): the
    # sentences keep plain Python copies, and memory does not grow with the input
    with nlp.memory_zone() if nlp is not None else contextlib.nullcontext():
        parsed = parse_documents(nlp, raw, resources.mentions, parses, resources.collapse,
                                 analyse_pairless=False) if raw else []
        for d in presplit:
            if resources.reparse:
                sentences = reparse_sentences(nlp, d.sentences, parses, resources.collapse)
            else:
                sentences = d.sentences
                for s in sentences:
                    for parse in parses:
                        _require_parse(s, parse, d)
            for s in sentences:
                parsed.append(ParsedSentence(d.id, s, None, []))
    order = {d.id: k for k, d in enumerate(docs)}
    parsed.sort(key=lambda p: order[p.doc_id])          # stable: sentence order kept
    pair_types = getattr(resources.model, "pair_types", None)
    if pair_types is not None:           # a typed model scores the pairs of its pair types
        from ppi.documents.pair_types import keep_pair_types

        keep_pair_types(parsed, pair_types)
    with_pairs = [p for p in parsed if p.sentence.pairs]
    scores = score_sentences(resources.model, with_pairs)
    related = scores if scores.ndim == 1 else scores[:, 0]
    records = pair_records(with_pairs, related, resources.model.pair_threshold, bool(presplit))
    counts = {"documents": len(docs), "sentences": len(parsed), "pairs": len(records),
              "predicted_positive": sum(r["interaction"] for r in records)}
    if getattr(resources.model, "stage", False) is not False and raw and not presplit:
        records, n = with_document_records(records, docs, raw, parsed, scores,
                                            resources.model)
        counts.update(candidates=n["candidates"],
                      predicted_candidates=n["predicted_candidates"])
    return format_records(records, output_format), counts


def with_document_records(records, docs, raw, parsed, scores, model):
    """``records`` with, after each raw document's mention-pair records, one record per
    candidate concept pair of the document (a :class:`ppi.models.classes.DocumentModel`: every
    unordered pair of two distinct concept ids with mentions, :mod:`ppi.documents.relations`) scored
    by the model's document stage; and the counts of candidates and of those predicted."""
    from collections import Counter

    import numpy as np

    from ppi.documents.relations import build_candidates

    by_doc = {d.id: [] for d in raw}
    for p in parsed:
        if p.doc_id in by_doc:
            by_doc[p.doc_id].append(p)
    groups = [by_doc[d.id] for d in raw]
    pair_types = getattr(model, "pair_types", None)
    cands = build_candidates(groups, [d.title_end for d in raw], None,
                             [len(d.text) for d in raw], [d.id for d in raw], pair_types)
    # the raw documents' pairs come first in the chunk's scores (document order)
    n_raw = sum(len(p.sentence.pairs) for g in groups for p in g)
    typed = None
    if pair_types is not None and len(cands):
        typed = model.candidate_outputs(scores[:n_raw], cands)
        s = typed["score"]
    else:
        s = model.candidate_scores(scores[:n_raw], cands) if len(cands) else np.zeros(0)
    names = []
    for g in groups:
        c = Counter()
        for p in g:
            for m in p.mentions:
                for i in split_concept_ids(m.id):
                    c[(i, m.text)] += 1
        best = {}
        for (i, text), n in sorted(c.items(), key=lambda x: -x[1]):
            best.setdefault(i, text)
        names.append(best)
    extra = {d.id: [] for d in raw}
    for k in range(len(cands)):
        d = int(cands.doc[k])
        g1, g2 = cands.id1[k], cands.id2[k]
        if not np.isfinite(s[k]):            # no stage and no mention pair: never scored
            continue
        score = float(s[k])
        r = document_record(raw[d].id, (names[d].get(g1), g1), (names[d].get(g2), g2), score,
                            model.threshold, int(cands.bag_sizes[k]))
        if typed is not None:
            typed_fields(r, k, cands, typed, model)
        extra[raw[d].id].append(r)
    by_doc = {}
    for r in records:
        by_doc.setdefault(r["doc_id"], []).append(r)
    out = [r for d in docs for r in by_doc.get(d.id, []) + extra.get(d.id, [])]
    n = {"candidates": len(cands),
         "predicted_candidates": sum(r["interaction"] for v in extra.values() for r in v)}
    return out, n


def typed_fields(record, k, cands, typed, model):
    """Add to the document ``record`` of candidate ``k`` what a typed model says of it: the
    two concepts' entity types, the pair type, the predicted relation type and the score of
    every type its pair type takes, and novelty (:mod:`ppi.documents.typed_fit`)."""
    import math

    from ppi.documents.pair_types import pair_type_name

    t1, t2 = cands.type1[k], cands.type2[k]
    record["e1"]["type"], record["e2"]["type"] = t1, t2
    names = model.relation_types
    scores = typed["type_scores"][:, k] if len(names) else ()
    record.update(
        pair_type=pair_type_name(t1, t2),
        relation_type=names[int(typed["type"][k])] if len(names) else None,
        relation_scores={n: float(x) for n, x in zip(names, scores) if x > -math.inf},
        mention_pairs=record.pop("mention_pairs"))
    nov = typed["novelty_score"]
    if nov is not None:
        record["novel"] = bool(nov[k] > model.typed.novelty_threshold)
        record["novelty_score"] = float(nov[k])
    else:
        record["novel"] = record["novelty_score"] = None
    return record


def _require_parse(sentence, parse, doc):
    """The model's parse (and its tokenization) must be in a pre-split sentence that has
    pairs to score; else a CorpusFormatError naming the file, document and sentence."""
    from corpora.ppi_xml import resolve_parse_name
    if not sentence.pairs:
        return
    name = resolve_parse_name(parse)
    p = sentence.parses.get(name)
    if p is None:
        problem = f"no parse {name!r} (has {sorted(sentence.parses) or 'none'})"
    elif p.tokenizer not in sentence.tokenizations:
        problem = f"parse {name!r} refers to tokenization {p.tokenizer!r}, which is absent"
    else:
        return
    raise CorpusFormatError(
        f"document {doc.id!r}, sentence {sentence.id!r}: {problem}; the model was trained on "
        f"parse {name!r} — pass --reparse to parse the file with spaCy instead",
        path=doc.position or None, record=sentence.id)
