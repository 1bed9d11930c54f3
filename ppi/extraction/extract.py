"""``python -m ppi extract``: score every candidate protein pair of raw text with a saved model.

Pipeline per chunk of documents: read (:mod:`corpora.text_input`, streamed) → mentions
(:mod:`ppi.extraction.mentions`: given annotations, else the lexicon tagger) → spaCy sentences, tokens,
POS, dependencies (:mod:`ppi.parsing.spacy_parse`) → the learning-format sentence structure →
pair graphs and all-paths features (:mod:`ppi.representation.graphs`, :mod:`ppi.representation.features`) → score
``f(x) = x·w`` and decision ``f(x) > threshold`` of the saved model (:mod:`ppi.models.classes`).
One chunk is :func:`ppi.extraction.scoring.process_chunk`; this module is the run: the
options, the resumable map of that function over the chunks
(:func:`kernelrank.chunks.map_chunks`) and the summary.

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
chunks of its old content.  (The machinery, shared by every package, is
:func:`kernelrank.chunks.map_chunks`.)

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

import logging
import os
import sys
import time
from pathlib import Path

from corpora.text_input import FORMATS, ReadStats, detect_format, read_documents
from kernelrank.checksum import files_sha256
from kernelrank.chunks import chunked, map_chunks, parts_path
from kernelrank.errors import InvalidParameterError
from kernelrank.lock import lock_path, output_lock
from ppi.extraction.records import RECORD_VERSION, TSV_COLUMNS, output_fields, pair_definition
from ppi.extraction.scoring import (ExtractionResources, freeze_resident_objects, process_chunk,
                                    score_sentences)

__all__ = ["extract", "process_chunk", "score_sentences", "write_summary_report",
           "TSV_COLUMNS", "OUTPUT_FORMATS", "ExtractionResources", "freeze_resident_objects"]

OUTPUT_FORMATS = ("jsonl", "tsv")
log = logging.getLogger(__name__)


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
            .output("--output", parts_path(out), "tree").output("--output", lock_path(out)))


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
    stats = ReadStats()
    docs = read_documents(input, format, skip_bad=skip_bad, stats=stats,
                          **({"one_document": True} if one_document else {}))

    def fingerprint():           # the spaCy model is part of it only when it parses something
        return _fingerprint(input, format, model, lexicon, chunk_size,
                            spacy_model if uses_spacy else None, resources.collapse,
                            output_format, skip_bad, one_document, reparse, mention_types)

    run = map_chunks(process_chunk, chunked(docs, chunk_size), output,
                     fingerprint=fingerprint, ext=output_format, shared=resources,
                     args=(output_format,), jobs=workers, scheduler=scheduler,
                     connect_timeout=connect_timeout, overwrite=overwrite, max_new=max_chunks,
                     progress=lambda: _Progress(progress), name="extract", lock=False,
                     header="\t".join(TSV_COLUMNS) + "\n" if output_format == "tsv" else "")
    if not run.complete:
        return {"stopped_after_chunks": run.computed, "resumed_chunks": run.resumed}
    totals = run.totals
    seconds = time.perf_counter() - t0
    summary = {"input": str(input), "format": format, "model": str(model),
               **output_fields(output), "output_format": output_format, "chunks": run.chunks,
               "resumed_chunks": run.resumed, "computed_chunks": run.computed,
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
               **({"typed": True, "pair_types": m.pair_types.names,
                   "relation_types": list(m.relation_types)}
                  if getattr(m, "pair_types", None) is not None else {}),
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
          *([f"- candidate {'concept' if summary.get('typed') else 'gene'} pairs (documents "
             f"model{'; pair types ' + ', '.join(summary['pair_types']) if summary.get('typed') else ''}): "
             f"{summary['candidate_pairs']}, "
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
