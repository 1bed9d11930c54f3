"""``python -m ppi extract``: score every candidate protein pair of raw text with a saved model.

Pipeline per chunk of documents: read (:mod:`corpora.text_input`, streamed) → mentions
(:mod:`ppi.extraction.mentions`: given annotations, else the lexicon tagger) → spaCy sentences, tokens,
POS, dependencies (:mod:`ppi.parsing.spacy_parse`) → the learning-format sentence structure →
pair graphs and all-paths features (:mod:`ppi.representation.graphs`, :mod:`ppi.representation.features`) → score
``f(x) = x·w`` and decision ``f(x) > threshold`` of the saved model (:mod:`ppi.models.classes`).

Parses: a model reads one or more dependency analyses (:attr:`ppi.models.classes.PPIModel.parses`:
``split_parse`` for Paper V's system; ``split_parse`` and ``Charniak-Lease`` for the
``multiview`` system, whose all-paths and shortest-path views read both parses and whose
bag of words reads the ``split`` tokens).  On raw text spaCy's parse is the **only** parse:
its analysis is stored under **every** parse name the model needs (and their tokenization
names, ``split`` and ``Charniak-Lease``), so a multi-view model's two parse views then see
the same spaCy graph (``README.md`` measures what this parser shift costs).

Learning-format input (``--format learning-xml``) already carries sentences, entities,
pairs and parses: by default its **own analyses** — the ones the model was trained on
(every parse of :attr:`~ppi.models.classes.PPIModel.parses`) — are scored as they are, without
spaCy, so the scores are exactly those of ``python -m ppi predict`` on the same file and
model.  ``--reparse`` replaces the file's analyses by spaCy's, stored under every parse name
as for raw text (the parser-shift setting).  A sentence without one of the model's parses
stops the run with an error naming it and suggesting ``--reparse``.

Output
------
One record per candidate pair (every unordered pair of distinct mentions of a sentence; for
learning-format input, the file's pairs), in input order.  JSONL (default, or ``--output``
ending in ``.jsonl``)::

    {"doc_id", "sentence_id", "pair_id", "sentence", "sentence_start", "e1", "e2",
     "score", "interaction"[, "label"]}

``e1``/``e2`` are ``{"id", "text", "type", "start", "end", "concept_id"}`` with
``start``/``end`` character offsets into ``sentence`` (0-based, **exclusive** end:
``sentence[start:end] == text``), ``"spans"`` for discontinuous entities, and
``doc_start``/``doc_end`` (offsets into the document text = title + " " + abstract) when
known.  ``id`` is the mention's id in the output (``<sentence_id>.e<n>``, or the file's entity
id); ``concept_id`` is the mention's normalized id from the input — the NCBI Gene id of a
PubTator (6th column) or BioC (``identifier`` / ``NCBI GENE`` infon) annotation, several
ids comma-separated as the input gives them (``"877855,877852"``) — and null when the input
has none (lexicon-tagged text, learning-format XML).  ``pair_id`` is the file's pair id
(learning-format input) or ``<sentence_id>.p<n>`` (raw text).  ``sentence_start`` is the
sentence's offset in the document (None for pre-split learning-format input), ``label`` the
gold label of learning-format input.  TSV (``--output`` ending in ``.tsv`` or
``--output-format tsv``) has a header line and the columns of :data:`TSV_COLUMNS` (the
concept ids and ``level`` last, empty when null); tabs and line breaks inside the sentence
are written as spaces.

A model of the ``documents`` system (:class:`ppi.models.classes.DocumentModel`, ``ppi train
--relations-from``) adds, after each document's mention-pair records, one **document
record** per candidate concept pair of the document (every unordered pair of two distinct
concept ids with a mention, :mod:`ppi.documents.relations` — also pairs that never share a
sentence)::

    {"doc_id", "level": "document", "sentence_id": null,
     "e1": {"text", "concept_id"}, "e2": {"text", "concept_id"},
     "score", "interaction", "mention_pairs"}

scored by the model's document stage (``interaction``: score > the model's threshold; the
mention-pair records use the model's mention-pair threshold, ``pair_threshold``); ``text``
is the concept's most frequent mention text.  ``ppi aggregate`` takes a pair's score from
its document record.  In TSV a document record has ``level`` ``document`` and only
``doc_id``, the texts, the concept ids, ``score`` and ``interaction``.  Without
``--mention-types`` such a model pairs the mentions of its own entity types (its
``entity_types``, e.g. ``Gene`` and ``GeneOrGeneProduct``).

Mentions of PubTator and BioC input are aligned and merged by :mod:`corpora.standoff`
(misaligned ones repaired or, with ``--skip-bad``, dropped; identical ones merged); the run
summary counts what was repaired, dropped, merged and overlapping.  ``--mention-types Gene``
pairs only the annotated mentions of those types (PubTator Central also annotates chemicals,
diseases, species, mutations, …; by default every annotated mention is a candidate).  ``--format`` may be left
out when :func:`corpora.text_input.detect_format` can tell it from the file name (or the
root element of an ``.xml`` file).

Chunks, atomic output, resume
-----------------------------
Documents are grouped in chunks of ``--chunk-size`` (chunk *k* = documents
``k·size … (k+1)·size − 1`` of the input, so the grouping is the same on every run).  Each
finished chunk is written atomically to ``OUT.parts/chunk-<k>.<ext>`` (after its counts,
``chunk-<k>.counts.json``); ``OUT.parts/run.json`` records the input, model and settings.
When every chunk is done, ``OUT`` is assembled atomically from the chunks in order and
``OUT.parts`` is removed.  A killed run leaves complete chunk files plus at most some
temporary files; the rerun (same command) deletes the temporaries, skips the complete
chunks and computes the others, so no record is lost or written twice.  A rerun with a
different input, model or setting stops with an error (``--overwrite`` starts afresh), and
so does an unreadable ``run.json``: the run's identity holds a hash of the **content** of the
input (every ``*.txt`` file of a directory), of the model and of the lexicon, so an input
edited in place — even keeping its size and modification time — is never resumed from the
chunks of its old content.

One run per output: the run holds the lock ``OUT.lock`` (:mod:`kernelrank.lock`) from
before it touches ``OUT`` or ``OUT.parts`` until it ends, so a second run on the same output
stops at once with an error naming the first one's PID and start time instead of
interleaving with it; the lock of a killed run is taken over by the next run.

Scale-out
---------
``--scheduler`` absent: a local Dask cluster of ``--jobs`` processes (default: the
machine's CPU count; ``--jobs 0`` runs in this process without Dask).
``--scheduler tcp://host:port``: an existing Dask cluster (its workers need kernelrank,
spaCy and the spaCy model installed).  The model and tagger are broadcast once to every
worker (``client.scatter(..., broadcast=True)``); chunks are submitted as tasks, at most
``2 × workers`` in flight so memory stays flat however long the input.  The driver reads
the input and writes the output.  A tqdm bar shows documents/s with sentences/s and
pairs/s.  The local cluster and its dashboard listen on 127.0.0.1 only.  A malformed
``--scheduler`` address is refused at once, an unreachable one after
``--scheduler-timeout`` seconds, before the output's parts directory is made; the
scheduler or the last worker lost in the middle of the run stops it with an error — the
completed chunks are kept and the same command resumes.
"""

from __future__ import annotations

import contextlib
import dataclasses
import gc
import json
import logging
import os
import shutil
import sys
import time
from pathlib import Path

from kernelrank.atomic import atomic_open, write_json
from kernelrank.checksum import files_sha256
from corpora.text_input import FORMATS, ReadStats, detect_format, read_documents
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from kernelrank.lock import output_lock
from corpora.standoff import split_concept_ids
from ppi.names import DEFAULT_SPACY_MODEL
from ppi.extraction.records import (RECORD_VERSION, TSV_COLUMNS, document_record, format_records,
                         output_fields, pair_definition, pair_records)

__all__ = ["extract", "process_chunk", "score_sentences", "write_summary_report",
           "TSV_COLUMNS", "OUTPUT_FORMATS", "ExtractionResources", "freeze_resident_objects"]

OUTPUT_FORMATS = ("jsonl", "tsv")
log = logging.getLogger(__name__)


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


# ----------------------------------------------------------------------------- one chunk
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

    scores = [np.zeros(0)]
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
    ``resources.reparse`` (module docstring).
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
    with_pairs = [p for p in parsed if p.sentence.pairs]
    scores = score_sentences(resources.model, with_pairs)
    records = pair_records(with_pairs, scores, resources.model.pair_threshold, bool(presplit))
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
    cands = build_candidates(groups, [d.title_end for d in raw], None,
                             [len(d.text) for d in raw], [d.id for d in raw])
    # the raw documents' pairs come first in the chunk's scores (document order)
    n_raw = sum(len(p.sentence.pairs) for g in groups for p in g)
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
        extra[raw[d].id].append(document_record(
            raw[d].id, (names[d].get(g1), g1), (names[d].get(g2), g2), score,
            model.threshold, int(cands.bag_sizes[k])))
    by_doc = {}
    for r in records:
        by_doc.setdefault(r["doc_id"], []).append(r)
    out = [r for d in docs for r in by_doc.get(d.id, []) + extra.get(d.id, [])]
    n = {"candidates": len(cands),
         "predicted_candidates": sum(r["interaction"] for v in extra.values() for r in v)}
    return out, n


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


# ----------------------------------------------------------------------------- driver
def _batched(iterable, n):
    batch = []
    for x in iterable:
        batch.append(x)
        if len(batch) == n:
            yield batch
            batch = []
    if batch:
        yield batch


class _Parts:
    """The ``OUT.parts`` directory of complete chunks (module docstring)."""

    def __init__(self, output, ext):
        self.output = Path(output)
        self.dir = self.output.with_name(self.output.name + ".parts")
        self.ext = ext

    def chunk(self, k):
        return self.dir / f"chunk-{k:06d}.{self.ext}"

    def counts(self, k):
        return self.dir / f"chunk-{k:06d}.counts.json"

    def start(self, fingerprint, overwrite):
        if overwrite:
            shutil.rmtree(self.dir, ignore_errors=True)
            if self.output.exists():
                self.output.unlink()
        elif self.output.exists() and not self.dir.exists():
            raise InvalidParameterError(f"{self.output} exists (a finished run); pass "
                                        "--overwrite to replace it")
        run = self.dir / "run.json"
        if run.exists():
            old = self._read_run(run, fingerprint)
            if old != fingerprint:
                diff = sorted(k for k in set(old) | set(fingerprint)
                              if old.get(k) != fingerprint.get(k))
                raise InvalidParameterError(
                    f"{self.dir} holds chunks of a different run (differs in {', '.join(diff)});"
                    " rerun the same command to resume, or pass --overwrite to start afresh")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.remove_temporary()                      # left by a killed run
        write_json(run, fingerprint)
        return {int(p.name[6:12]) for p in self.dir.glob(f"chunk-*.{self.ext}")}

    def remove_temporary(self):
        """Remove the temporary files of unfinished chunk writes (``.*.tmp``): a killed run's,
        or one an interrupt left — Ctrl-C can land inside :func:`tempfile.mkstemp`, after the
        file exists and before :func:`kernelrank.atomic.atomic_open` can clean it up."""
        for tmp in self.dir.glob(".*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def _read_run(self, run, fingerprint):
        """The fingerprint stored in ``run.json``; a CorpusFormatError naming it when it is
        not a JSON object with the fingerprint's keys (truncated, edited, another file)."""
        try:
            old = json.loads(run.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            problem = f"not JSON ({exc.__class__.__name__}: {exc})"
        else:
            missing = (sorted(set(fingerprint) - set(old)) if isinstance(old, dict) else None)
            if missing is None:
                problem = f"a JSON {type(old).__name__}, not an object"
            elif missing:
                problem = f"lacks {', '.join(missing)}"
            else:
                return old
        raise CorpusFormatError(f"the record of an unfinished run is unreadable: {problem}; "
                                f"pass --overwrite to start afresh (discards the chunks in "
                                f"{self.dir})", path=run)

    def write(self, k, text, counts):
        write_json(self.counts(k), counts)
        with atomic_open(self.chunk(k)) as handle:
            handle.write(text)

    def assemble(self, n_chunks, header):
        total = {}
        with atomic_open(self.output) as out:
            if header:
                out.write(header)
            for k in range(n_chunks):
                with open(self.chunk(k), encoding="utf-8") as handle:
                    shutil.copyfileobj(handle, out, 1 << 20)
                c = json.loads(self.counts(k).read_text(encoding="utf-8"))
                for key, v in c.items():
                    total[key] = total.get(key, 0) + v
        shutil.rmtree(self.dir)
        return total


def _fingerprint(input, format, model_dir, lexicon, chunk_size, spacy_model, collapse,
                 output_format, skip_bad, one_document, reparse, mention_types=None):
    """The identity of a run: its settings and the **content** of what it reads — a hash of
    the input (of every ``*.txt`` file of a directory), of the model's two files and of the
    lexicon, streamed (O(size), memory O(1)) — so an input edited in place between a kill
    and the resume (same size, same time) is never resumed from stale chunks."""
    input = Path(input)
    return {"input": str(input.resolve()),
            "input_sha256": files_sha256(input, "*.txt"), "format": format,
            "model": str(Path(model_dir).resolve()),
            "model_sha256": files_sha256(model_dir),
            "lexicon_sha256": files_sha256(lexicon), "chunk_size": chunk_size,
            "spacy_model": spacy_model, "collapse": collapse, "output_format": output_format,
            "skip_bad": skip_bad, "one_document": one_document, "reparse": reparse,
            "record_version": RECORD_VERSION,
            "mention_types": None if mention_types is None else sorted(
                {t.lower() for t in mention_types})}


def run_paths(input, model, output, lexicon=None):
    """The :class:`kernelrank.paths.PathSpec` of a run: its inputs, and ``OUT``, ``OUT.parts``
    (removed as a whole when the run ends or starts ``--overwrite``) and ``OUT.lock``."""
    from kernelrank.paths import PathSpec

    out = Path(output)
    return (PathSpec().input("--input", input).input("--model", model)
            .input("--lexicon", lexicon).output("--output", out)
            .output("--output", f"{out}.parts", "tree").output("--output", f"{out}.lock"))


def _output_format(output, output_format):
    if output_format is None:
        output_format = "tsv" if str(output).endswith(".tsv") else "jsonl"
    if output_format not in OUTPUT_FORMATS:
        raise InvalidParameterError(f"output format {output_format!r}; choose jsonl or tsv")
    return output_format


def extract(input, model, output, format, *, lexicon=None, spacy_model=None,
            collapse=True, chunk_size=100, output_format=None, skip_bad=False,
            one_document=False, workers=None, scheduler=None, overwrite=False, progress=True,
            max_chunks=None, reparse=False, connect_timeout=None, command=None,
            mention_types=None):
    """Run the extraction (module docstring); returns the summary dict.

    ``spacy_model``: the spaCy pipeline that parses (name or folder); None: the one the
    model was trained on (:attr:`ppi.models.classes.PPIModel.spacy_model`) — another one is a
    parser shift, said in a warning.
    ``reparse`` (learning-xml input only): parse the file's sentences with spaCy instead of
    using their own analysis.  ``max_chunks`` stops after that many newly computed chunks
    without assembling the output (to test and demonstrate resuming).
    ``mention_types``: keep only annotated mentions of these types (PubTator Central exports
    annotate genes, chemicals, diseases, species, …: ``["Gene"]`` pairs the genes only).
    ``connect_timeout``: seconds to wait for ``scheduler`` (default
    :data:`kernelrank.parallel.CONNECT_TIMEOUT`).  ``command``: the command line recorded in
    the lock ``OUT.lock`` (default ``sys.argv``).
    """
    from kernelrank.parallel import check_scheduler_address
    from kernelrank.paths import refuse_overwriting_inputs

    refuse_overwriting_inputs(run_paths(input, model, output, lexicon))
    if chunk_size < 1:
        raise InvalidParameterError(f"--chunk-size {chunk_size}; must be ≥ 1")
    if workers is not None and workers < 0:
        raise InvalidParameterError(f"--jobs {workers}; give the number of local Dask worker "
                                    "processes (≥ 1), or 0 to run in this process")
    if scheduler is not None:
        check_scheduler_address(scheduler)
    if Path(output).is_dir():
        raise InvalidParameterError(f"--output {output} is a directory; give the output "
                                    f"file, e.g. {Path(output) / 'pairs.jsonl'}")
    with output_lock(output, command):
        return _extract(input, model, output, format, lexicon=lexicon,
                        spacy_model=spacy_model, collapse=collapse, chunk_size=chunk_size,
                        output_format=output_format, skip_bad=skip_bad,
                        one_document=one_document, workers=workers, scheduler=scheduler,
                        overwrite=overwrite, progress=progress, max_chunks=max_chunks,
                        reparse=reparse, connect_timeout=connect_timeout,
                        mention_types=mention_types)


def _parser_of(m, model_dir, spacy_model, uses_spacy):
    """The spaCy pipeline of the run: ``spacy_model``, else the model's own; a warning
    when a model trained on spaCy's analyses is given another pipeline's."""
    if spacy_model is None:
        return m.spacy_model
    if uses_spacy and "spacy_model" in m.training and spacy_model != m.spacy_model:
        log.warning("the model %s was trained on the parse of the spaCy pipeline %s; "
                    "parsing with %s is a parser shift (leave --spacy-model out to parse "
                    "with the model's own)", model_dir, m.spacy_model, spacy_model)
    return spacy_model


def _extract(input, model, output, format, *, lexicon, spacy_model, collapse, chunk_size,
             output_format, skip_bad, one_document, workers, scheduler, overwrite, progress,
             max_chunks, reparse, connect_timeout, mention_types=None):
    """:func:`extract` while holding the output's lock."""
    from ppi.extraction.mentions import DictionaryTagger
    from ppi.models.classes import PPIModel
    from ppi.parsing.spacy_parse import load_spacy

    t0 = time.perf_counter()
    if format is None:
        format = detect_format(input)
    if format not in FORMATS:
        raise InvalidParameterError(f"unknown input format {format!r}; choose one of "
                                    f"{', '.join(FORMATS)}")
    output_format = _output_format(output, output_format)
    if format in ("text", "pubmed-xml") and lexicon is None:
        raise InvalidParameterError(f"--format {format} carries no protein annotations; give "
                                    "--lexicon (build one with `python -m ppi mentions`) or "
                                    "use PubTator input with your tagger's annotations")
    if reparse and format != "learning-xml":
        raise InvalidParameterError(f"--reparse applies to --format learning-xml only (the "
                                    f"{format} input is always parsed with spaCy)")
    m = PPIModel.load(model)
    tagger = DictionaryTagger(lexicon=lexicon) if lexicon is not None else None
    uses_spacy = format != "learning-xml" or reparse
    spacy_model = _parser_of(m, model, spacy_model, uses_spacy)
    if uses_spacy:
        load_spacy(spacy_model)                  # fail early, here, if it is not installed
    if mention_types is not None and format in ("text", "pubmed-xml", "learning-xml"):
        raise InvalidParameterError(f"--mention-types applies to input with typed mention "
                                    f"annotations (pubtator, bioc-xml, bioc-json), not {format}")
    resources = ExtractionResources(m, tagger, spacy_model, collapse, reparse, mention_types)
    parts = _Parts(output, output_format)
    stats = ReadStats()
    docs = read_documents(input, format, skip_bad=skip_bad, stats=stats,
                          **({"one_document": True} if one_document else {}))
    n_chunks = 0
    new = 0
    resumed = 0
    bar = None
    client = cluster = restore_logs = None
    try:
        if scheduler is not None:         # before the output's parts: a scheduler that does
            from kernelrank.parallel import connect      # not answer leaves nothing behind
            client = connect(scheduler, connect_timeout)
        # the spaCy model is part of the run's identity only when it parses something
        done = parts.start(_fingerprint(input, format, model, lexicon, chunk_size,
                                        spacy_model if uses_spacy else None,
                                        resources.collapse,
                                        output_format, skip_bad, one_document, reparse,
                                        mention_types),
                           overwrite)
        bar = _Progress(progress)

        def finish(k, result):
            text, counts = result
            parts.write(k, text, counts)
            bar.update(counts)

        if workers == 0 and scheduler is None:       # this process, one chunk at a time
            def submit(k, batch):
                finish(k, process_chunk(batch, resources, output_format))

            def drain(block_until):
                pass
        else:
            from distributed import Client, wait

            from kernelrank.parallel import cluster_failures, local_cluster
            if scheduler is None:
                n = workers or os.cpu_count() or 1
                cluster = local_cluster(n, 1, processes=True)
                client = Client(cluster)
            where = scheduler or f"local cluster {cluster.scheduler_address}"

            def failures():
                return cluster_failures(where, f"the completed chunks are kept in "
                                               f"{parts.dir}; rerun the same command to resume")
            with failures():
                n_workers = max(1, len(client.scheduler_info()["workers"]))
                shared = client.scatter(resources, broadcast=True)
            inflight = {}

            def drain(block_until):
                with failures():
                    while len(inflight) > block_until:
                        finished, _ = wait(list(inflight), return_when="FIRST_COMPLETED")
                        for f in finished:
                            finish(inflight.pop(f), f.result())

            def submit(k, batch):
                f = client.submit(process_chunk, batch, shared, output_format, pure=False,
                                  key=f"extract-chunk-{k}-{os.getpid()}-{time.time_ns()}")
                inflight[f] = k
                drain(2 * n_workers - 1)

        for k, batch in enumerate(_batched(docs, chunk_size)):
            n_chunks = k + 1
            if k in done:
                resumed += 1
                continue
            if max_chunks is not None and new >= max_chunks:
                drain(0)
                return {"stopped_after_chunks": new, "resumed_chunks": resumed}
            submit(k, batch)
            new += 1
        drain(0)
    except KeyboardInterrupt:
        parts.remove_temporary()                 # completed chunks stay; no half-written one
        if cluster is not None:                  # our own workers: a quiet shutdown
            from kernelrank.parallel import quiet_workers
            restore_logs = quiet_workers(client)
        raise
    finally:
        if bar is not None:
            bar.close()
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        if restore_logs is not None:
            restore_logs()
    header = "\t".join(TSV_COLUMNS) + "\n" if output_format == "tsv" else ""
    totals = parts.assemble(n_chunks, header)
    seconds = time.perf_counter() - t0
    summary = {"input": str(input), "format": format, "model": str(model),
               **output_fields(output), "output_format": output_format, "chunks": n_chunks,
               "resumed_chunks": resumed, "computed_chunks": new,
               "documents": stats.documents, "skipped_records": stats.skipped,
               "skipped_examples": stats.errors[:10], **stats.mention_counts(),
               "repair_examples": stats.repair_examples[:10],
               "dropped_mention_examples": stats.mention_errors[:10],
               "sentences": totals.get("sentences", 0),
               "pairs": totals.get("pairs", 0),
               "predicted_positive": totals.get("predicted_positive", 0),
               "threshold": m.pair_threshold, **pair_definition(m.training),
               **({"candidate_pairs": totals.get("candidates", 0),
                   "predicted_candidate_pairs": totals.get("predicted_candidates", 0),
                   "candidate_threshold": m.threshold}
                  if getattr(m, "stage", False) is not False else {}),
               "parser": (f"spaCy {spacy_model}" if uses_spacy
                          else "the input's own parse"
                          f"{'s' if len(m.parses) > 1 else ''} "
                          f"{', '.join(repr(p) for p in m.parses)}"),
               "spacy_model": spacy_model if uses_spacy else None,
               "collapse": resources.collapse,
               "mention_types": None if mention_types is None else sorted(mention_types),
               "scheduler": scheduler or ("in-process" if workers == 0 else
                                          f"local cluster, {workers or os.cpu_count()} workers"),
               "seconds": seconds}
    return summary


class _Progress:
    def __init__(self, enabled):
        from tqdm.auto import tqdm
        self.bar = tqdm(desc="extract", unit="doc", disable=not enabled, file=sys.stderr)
        self.t0 = time.perf_counter()
        self.sentences = self.pairs = 0

    def update(self, counts):
        self.sentences += counts["sentences"]
        self.pairs += counts["pairs"]
        dt = max(time.perf_counter() - self.t0, 1e-9)
        self.bar.update(counts["documents"])
        self.bar.set_postfix(sent_per_s=f"{self.sentences / dt:.1f}",
                             pairs_per_s=f"{self.pairs / dt:.1f}", refresh=False)

    def close(self):
        self.bar.close()


# ----------------------------------------------------------------------------- report
def write_summary_report(summary, report_dir=None):
    """``<OUT>.summary.json`` + ``<OUT>.summary.md`` of a finished :func:`extract` run in
    ``report_dir`` (default: the output's folder); returns the two paths."""
    from kernelrank.report import write_report

    out = Path(summary["output"])
    report_dir = Path(report_dir) if report_dir else out.parent
    md = ["# PPI extraction", "",
          f"`{summary['input']}` ({summary['format']}) → `{summary['output']}` with model "
          f"`{summary['model']}` (threshold {summary['threshold']:.4g}), parsed with "
          f"{summary['parser']}, {summary['scheduler']}.", "",
          f"- documents: {summary['documents']} (skipped malformed records: "
          f"{summary['skipped_records']})",
          f"- mentions (PubTator/BioC input): {summary['mentions']} kept; "
          f"{summary['mentions_repaired']} misaligned ones repaired, "
          f"{summary['mentions_dropped']} that could not be placed dropped (--skip-bad), "
          f"{summary['mentions_identical']} identical and {summary['mentions_merged']} "
          f"same-span ones merged, {summary['mentions_overlapping']} overlapping another, "
          f"{summary['mentions_without_id']} without a concept id, "
          f"{summary['mentions_fragmented']} discontinuous (BioC) read as one mention "
          "per location",
          f"- sentences: {summary['sentences']}", f"- candidate pairs: {summary['pairs']}",
          f"- predicted interactions: {summary['predicted_positive']}",
          *([f"- candidate gene pairs (documents model): {summary['candidate_pairs']}, "
             f"{summary['predicted_candidate_pairs']} predicted related (threshold "
             f"{summary['candidate_threshold']:.4g})"] if "candidate_pairs" in summary
            else []),
          f"- chunks: {summary['chunks']} ({summary['resumed_chunks']} resumed from an "
          "earlier run)", f"- time: {summary['seconds']:.1f} s", ""]
    if summary["skipped_examples"]:
        md += ["Skipped records (first 10):", ""] + [f"- {e}" for e in
                                                     summary["skipped_examples"]] + [""]
    for key, title in (("repair_examples", "Repaired mentions"),
                       ("dropped_mention_examples", "Dropped mentions")):
        if summary.get(key):
            md += [f"{title} (first 10):", ""] + [f"- {e}" for e in summary[key]] + [""]
    return write_report(report_dir, out.name + ".summary", summary, "\n".join(md))
