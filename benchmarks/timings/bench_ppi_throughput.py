"""Is raw-text extraction parser-bound?  spaCy's parse vs everything else, in ONE run
(the target: featurization + scoring + I/O cost at most 25 % of the parse).

For each input (the PubMed 2020 baseline slice, tagged with a lexicon of the AIMed and
BioInfer entity names, and the BioCreative VI PPIm PubTator file, its own gene mentions) the
documents are streamed in chunks of ``--chunk-size`` exactly as ``ppi extract --jobs 0``
processes them (:func:`ppi.extraction.scoring.process_chunk`: resident objects frozen, the cyclic
garbage collector paused during a chunk, spaCy's memory zone), with each step timed on its own in
**process CPU seconds** (``time.process_time``; the machine is shared, wall times measure
the other jobs):

``read``
    pulling the documents from the streaming reader (:func:`corpora.text_input.read_documents`);
``mentions``
    the candidate mentions (given annotations, or the lexicon tagger);
``parse``
    spaCy: its tokenizer (``nlp.make_doc``), then ``nlp.pipe`` in batches of
    :data:`ppi.parsing.spacy_parse.DOCUMENT_BATCH_SIZE` abstracts (as ``ppi extract``) over the
    mention-split token sequences (:func:`ppi.parsing.spacy_parse.parse_documents`; tagger, parser
    — NER, lemmatizer and senter excluded by :func:`ppi.parsing.spacy_parse.load_spacy`), once per
    chunk for all models;
``split``
    splitting the tokens that a mention boundary falls inside
    (:func:`ppi.parsing.spacy_parse.split_tokens`), once per chunk;
``convert``
    spaCy ``Doc`` → sentences, entities, candidate pairs and, for the sentences with a pair,
    the analysis under every parse name the model reads (:func:`ppi.parsing.spacy_parse.
    doc_sentences` with ``analyse_pairless=False``, as ``ppi extract``), per model;
``featurize + score``
    :func:`ppi.extraction.scoring.score_sentences` (``model.scores`` on cost-bounded batches of the
    sentences with a pair; the others never reach it), per model;
``documents``
    a ``documents`` model's document records (:func:`ppi.extraction.scoring.with_document_records`:
    the candidate gene pairs of each document, their document features and the document
    stage), per model;
``write``
    output records (:func:`ppi.extraction.records.pair_records`), JSONL text, written to a
    file, per model.

Two ratios are printed per model: ``featurize + score / parse`` (the target: ≤ 0.25, the
model's own work per pair against spaCy) and ``(read + mentions + split + convert +
featurize + score + documents + write) / parse`` — every step that is not spaCy against
spaCy.  The models are trained at the start of
the run with :func:`ppi.systems.training.train` on **LLL** (the smallest benchmark corpus, to keep
the run short; the training corpus of a linear model changes its vocabulary size, not the
work per pair — a Gaussian model's work per pair grows with its basis rows, the training
pairs: measure one trained on a larger corpus with ``ppi extract``): ``paper-v`` (the
all-paths kernel on ``split_parse``), ``multiview`` (two all-paths views, bag of words,
two shortest-path views) and ``multicorpus`` (the default: those views and the pair view,
the Gaussian of their sum, trained on LLL towards the models of the other four corpora —
one Gaussian expansion over the basis rows of all five, ≈ 10,000 rows, so its work per pair
is that of a model of ten thousand training pairs).  Training runs in a child process
so the peak RSS printed is the one of the extraction alone; the RSS after the first chunk
and at the end show whether memory grows with the input.

``--systems`` chooses which of them (default: ``text``, the default of ``ppi train``: spaCy's
parse, linear, trained on LLL towards the other four corpora — one weight vector; and
``documents``, the default of ``ppi train --relations-from``, trained on BioRED's training
abstracts without transfer: transfer changes its weights, not its work per pair); ``--models
NAME=DIR`` adds saved models (e.g. the documents model of ``ppi train --relations-from``).

Usage::

    python -m benchmarks.timings.bench_ppi_throughput [--inputs pubmed bc6] [--limit N]
        [--workdir DIR] [--profile FILE] [--gamma G] [--systems text documents paper-v ...]
        [--models NAME=DIR ...]

``--limit N``: the first N documents of each input.  ``--profile FILE``: a cProfile of the
whole extraction (both inputs) to FILE.
"""

from __future__ import annotations

import cProfile
import itertools
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from kernelrank.datadir import resolve_data_dir
from kernelrank.report import markdown_table

INPUTS = {"pubmed": ("text/pubmed20n1015.xml.gz", "pubmed-xml"),
          "bc6": ("text/PMtask_Relations_TrainingSet.pubtator.gz", "pubtator"),
          "biored-dev": ("biored/Dev.PubTator.gz", "pubtator")}
#: the inputs measured unless ``--inputs`` says
DEFAULT_INPUTS = ("pubmed", "bc6")
SYSTEMS = ("paper-v", "multiview", "multicorpus", "text", "documents")
DEFAULT_SYSTEMS = ("text", "documents")
STEPS = ("read", "mentions", "convert", "featurize+score", "documents", "write")

_TRAIN = ("import sys\n"
          "from ppi.systems import Settings\n"
          "from ppi.systems.training import train\n"
          "system, model, report, data, gamma = sys.argv[1:]\n"
          "if system == 'documents':\n"
          "    from ppi.documents.runs import train_documents\n"
          "    from ppi.documents.system import DocumentSystem\n"
          "    train_documents(model, report, DocumentSystem(transfer=False, progress=False),\n"
          "                    data + '/biored/Train.PubTator.gz', data_dir=data)\n"
          "else:\n"
          "    train(model, report, Settings.for_system(system, progress=False,\n"
          "          gamma=float(gamma) or None), corpus='LLL', data_dir=data)\n")


def train_models(data_dir, workdir, gamma=None, systems=DEFAULT_SYSTEMS):
    """``{name: model directory}``, each trained on LLL (``documents``: on BioRED's training
    abstracts) in a child process (cached in ``workdir``); with ``gamma`` also
    ``multiview-gamma<γ>``, the multiview system with the Gaussian top kernel (a version 5
    model: basis rows, no primal weights)."""
    out = {}
    plan = [(s, s, 0.0) for s in systems]
    if gamma:
        plan.append((f"multiview-gamma{gamma:g}", "multiview", gamma))
    for name, system, g in plan:
        model = Path(workdir) / f"model-{name}-LLL"
        if not (model / "model.json").exists():
            t0 = time.perf_counter()
            subprocess.run([sys.executable, "-c", _TRAIN, system, str(model),
                            str(Path(workdir) / f"report-{name}"), str(data_dir), str(g)],
                           check=True, env=dict(os.environ))
            print(f"trained {name} in {time.perf_counter() - t0:.1f} s wall")
        out[name] = model
    return out


def _rss_mib():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2 ** 20


class _Clock:
    """CPU seconds per step."""

    def __init__(self):
        self.t = {}

    def add(self, step, seconds):
        self.t[step] = self.t.get(step, 0.0) + seconds

    def timed(self, step, fn, *args):
        t0 = time.process_time()
        try:
            return fn(*args)
        finally:
            self.add(step, time.process_time() - t0)


def _timed_iter(clock, step, iterable):
    it = iter(iterable)
    while True:
        t0 = time.process_time()
        try:
            x = next(it)
        except StopIteration:
            clock.add(step, time.process_time() - t0)
            return
        clock.add(step, time.process_time() - t0)
        yield x


def run_input(name, data_dir, models, tagger, limit, chunk_size, outdir):
    """Extract one input with every model; per-step CPU seconds and counts."""
    from corpora.text_input import read_documents
    from ppi.documents.pair_types import keep_pair_types
    from ppi.extraction.scoring import (ExtractionResources, cyclic_gc_paused,
                                        freeze_resident_objects, score_sentences,
                                        with_document_records)
    from ppi.extraction.records import format_records, pair_records
    from ppi.parsing.spacy_parse import DOCUMENT_BATCH_SIZE, doc_sentences, load_spacy, split_tokens

    rel, fmt = INPUTS[name]
    nlp = load_spacy()
    freeze_resident_objects()                # as ppi extract's process_chunk
    clocks = {s: _Clock() for s in models}
    shared = _Clock()                        # read, mentions, parse: once for all models
    resources = ExtractionResources(None, tagger)
    counts = {s: {"sentences": 0, "sentences_with_pairs": 0, "pairs": 0} for s in models}
    n_docs = 0
    rss = []
    handles = {s: open(Path(outdir) / f"{name}-{s}.jsonl", "w", encoding="utf-8")
               for s in models}
    try:
        docs = _timed_iter(shared, "read", read_documents(data_dir / rel, fmt, skip_bad=True))
        if limit:
            docs = itertools.islice(docs, limit)
        while True:
            chunk = list(itertools.islice(docs, chunk_size))
            if not chunk:
                break
            with cyclic_gc_paused():          # as ppi extract's process_chunk
                raw = [d for d in chunk if d.text.strip()]
                n_docs += len(chunk)
                mentions = [shared.timed("mentions", lambda d: sorted(
                    resources.mentions(d), key=lambda m: (m.start, m.end)), d) for d in raw]
                parsed_by = {}
                with nlp.memory_zone():             # as ppi extract's process_chunk
                    split = [shared.timed("split", split_tokens, nlp,
                                          shared.timed("parse", nlp.make_doc, d.text), d.text,
                                          [x for m in ms for x in (m.start, m.end)])
                             for d, ms in zip(raw, mentions)]
                    sdocs = list(_timed_iter(shared, "parse", nlp.pipe(
                        split, batch_size=DOCUMENT_BATCH_SIZE)))
                    del split
                    for system, model in models.items():
                        parsed_by[system] = []
                        for d, ms, sdoc in zip(raw, mentions, sdocs):
                            parsed_by[system] += clocks[system].timed(
                                "convert", doc_sentences, d.id, sdoc, ms, model.parses, True,
                                False, d.text)
                    del sdocs
                for system, model in models.items():
                    c, k = clocks[system], counts[system]
                    parsed = parsed_by.pop(system)
                    if getattr(model, "pair_types", None) is not None:   # as ppi extract
                        c.timed("convert", keep_pair_types, parsed, model.pair_types)
                    with_pairs = [p for p in parsed if p.sentence.pairs]
                    scores = c.timed("featurize+score", score_sentences, model, with_pairs)
                    t0 = time.process_time()
                    records = pair_records(with_pairs, scores if scores.ndim == 1 else
                                           scores[:, 0], model.pair_threshold, False)
                    c.add("write", time.process_time() - t0)
                    k["pairs"] += len(records)
                    if getattr(model, "stage", False) is not False:
                        records, _ = c.timed("documents", with_document_records, records, raw,
                                             raw, parsed, scores, model)
                    t0 = time.process_time()
                    handles[system].write(format_records(records, "jsonl"))
                    c.add("write", time.process_time() - t0)
                    k["sentences"] += len(parsed)
                    k["sentences_with_pairs"] += len(with_pairs)
            rss.append(_rss_mib())
    finally:
        for h in handles.values():
            h.close()
    return {"documents": n_docs, "shared": shared.t,
            "models": {s: {"steps": clocks[s].t, **counts[s]} for s in models},
            "rss_first_chunk_mib": rss[0] if rss else None,
            "rss_last_chunk_mib": rss[-1] if rss else None}


#: the columns of the table :func:`report` prints
TABLE = ["model", "sentences", "with ≥2 mentions", "pairs", "convert", "featurize + score",
         "documents", "write", "featurize + score / parse", "non-parse / parse",
         "sentences/s/core", "abstracts/s/core"]


def report(name, r):
    parse = r["shared"].get("parse", 0.0)
    read, ment = r["shared"].get("read", 0.0), r["shared"].get("mentions", 0.0)
    split = r["shared"].get("split", 0.0)
    print(f"\n## {name}: {r['documents']} documents; CPU seconds (process_time)")
    print(f"parse (spaCy) {parse:.2f}   read {read:.2f}   mentions {ment:.2f}   "
          f"split {split:.2f}")
    rows = []
    for system, m in r["models"].items():
        st = m["steps"]
        other = read + ment + split + sum(st.get(s, 0.0) for s in (
            "convert", "featurize+score", "documents", "write"))
        total = parse + other
        m["ratio"] = other / parse if parse else float("nan")
        m["featurize_score_ratio"] = (st.get("featurize+score", 0.0) / parse if parse
                                      else float("nan"))
        m["sentences_per_cpu_s"] = m["sentences"] / total if total else float("nan")
        m["abstracts_per_cpu_s"] = r["documents"] / total if total else float("nan")
        rows.append(dict(zip(TABLE, (
            system, str(m["sentences"]), str(m["sentences_with_pairs"]), str(m["pairs"]),
            *(f"{st.get(s, 0.0):.2f}" for s in ("convert", "featurize+score", "documents",
                                                "write")),
            f"{m['featurize_score_ratio']:.3f}", f"{m['ratio']:.3f}",
            f"{m['sentences_per_cpu_s']:.1f}", f"{m['abstracts_per_cpu_s']:.2f}"))))
    print(markdown_table(rows, TABLE), end="")
    print(f"RSS after the first chunk {r['rss_first_chunk_mib']:.0f} MiB, after the last "
          f"{r['rss_last_chunk_mib']:.0f} MiB")


def main(argv=None):
    ap = harness.parser(__doc__)
    ap.add_argument("--inputs", nargs="+", choices=sorted(INPUTS), default=list(DEFAULT_INPUTS),
                    help="biored-dev: BioRED's dev abstracts with their annotations of every "
                         "entity type (a typed documents model's input; default: pubmed bc6)")
    ap.add_argument("--limit", type=int, default=None, help="first N documents per input")
    ap.add_argument("--chunk-size", type=int, default=100)
    harness.add_data_dir(ap)
    ap.add_argument("--workdir", default=None, help="keeps the trained models between runs")
    ap.add_argument("--profile", default=None, help="write a cProfile of the extraction")
    harness.add_output(ap)
    ap.add_argument("--gamma", type=float, default=None,
                    help="also a multiview model with the Gaussian top kernel (ppi --gamma)")
    ap.add_argument("--systems", nargs="*", choices=SYSTEMS, default=list(DEFAULT_SYSTEMS),
                    help="systems trained in the run (default: text documents)")
    ap.add_argument("--models", nargs="*", default=[], metavar="NAME=DIR",
                    help="saved models to measure too")
    args = harness.parse_args(ap, argv)

    from ppi.extraction.mentions import DictionaryTagger, build_lexicon
    from ppi.models.classes import PPIModel
    from ppi.names import corpus_path

    data_dir = Path(resolve_data_dir(args.data_dir))
    workdir = Path(args.workdir or tempfile.mkdtemp(prefix="bench_ppi_throughput-"))
    workdir.mkdir(parents=True, exist_ok=True)
    print(f"load average at start: {harness.format_load(harness.load_average())} "
          f"({os.cpu_count()} cores)")
    paths = train_models(data_dir, workdir, args.gamma, args.systems)
    paths.update(dict(x.split("=", 1) for x in args.models))
    models = {}
    for s, p in paths.items():
        t0, rss0 = time.perf_counter(), _rss_mib()
        models[s] = PPIModel.load(p)
        print(f"model {s}: loaded in {time.perf_counter() - t0:.2f} s, RSS +"
              f"{_rss_mib() - rss0:.0f} MiB")
    tagger = DictionaryTagger(build_lexicon([corpus_path(data_dir, c)
                                             for c in ("AIMed", "BioInfer")]).entries)
    profiler = cProfile.Profile() if args.profile else None
    results = {}
    t0 = time.perf_counter()
    for name in args.inputs:
        if profiler:
            profiler.enable()
        results[name] = run_input(name, data_dir, models, tagger, args.limit,
                                  args.chunk_size, workdir)
        if profiler:
            profiler.disable()
        report(name, results[name])
    wall = time.perf_counter() - t0
    peak = harness.peak_rss()
    load = harness.load_average()
    print(f"\npeak RSS {peak:.0f} MiB (extraction; models trained in a child process); "
          f"wall {wall:.1f} s{' (under load)' if max(load) > 1.5 else ''}; "
          f"load average at end: {harness.format_load(load)}")
    if profiler:
        profiler.dump_stats(args.profile)
        print(f"profile written to {args.profile}")
    harness.save_json(args.output, {"results": results, "peak_rss_mib": peak,
                                    "load_end": load})
    return 0


if __name__ == "__main__":
    sys.exit(main())
