"""``ppi extract`` at scale, measured in ONE run: throughput with 1 and 2 local Dask workers,
peak memory on 1× and 10× the input, and (``shift``) the parser-shift study.

``throughput``
    The benchmark sentences (by default all five corpora: 3,763 sentences) as PubTator
    abstracts — each benchmark document's sentences joined by one space, gold entities as
    the annotations (:func:`corpora.text_input.learning_to_text_document`; PubTator has no
    discontinuous spans, so BioInfer's 122 discontinuous entities are left out and
    reported with the 747 gold pairs, 97 positive, that raw-text extraction therefore
    cannot produce) — extracted with a model trained by ``python -m ppi train`` (LLL) on a
    local Dask cluster of 1 and of 2 workers.  Reports sentences/s and pairs/s of each and
    the ratio (2 workers / 1 worker).  Wall-clock on a shared machine: read the ratio, not
    the absolute numbers, and rerun when the machine is quiet.
``memory``
    Peak RSS (``getrusage`` of a fresh child process running ``ppi extract --jobs 0``,
    i.e. reader + parser + scorer + writer in one process) on 1× and 10× the input (the
    10× input repeats the documents with new ids).  Flat memory = streaming works.
``shift``
    Re-parse the benchmark corpora with spaCy (gold entities and pair labels kept; written in
    learning format with :func:`corpora.ppi_xml.write_corpus`), rerun ``python -m ppi cv``
    (10-fold document-level CV) on them and on the provided Charniak–Lease/split parses;
    AUC and F side by side.
``model-shift``
    The parser shift of saved models (``--models``, e.g. one trained with the ``multiview``
    system and one with ``paper-v`` on AIMed): ``python -m ppi extract --format
    learning-xml --jobs 0`` on each test corpus scores the file's own parses (every parse
    the model reads) and, with ``--reparse``, spaCy's one analysis stored under each of
    those names; AUC and F (at the model's threshold) from the gold labels, side by side.
    A model is not scored on a corpus it learned from (its training corpus or a source of
    its transfer prior, :func:`ppi.models.classes.learned_from`): by default those corpora are left
    out, and naming one in ``--corpora`` is refused.

Usage::

    python -m benchmarks.timings.bench_ppi_extract throughput [--corpora ...] [--jobs 1 2]
        [--workdir W]
    python -m benchmarks.timings.bench_ppi_extract memory [--corpora LLL HPRD50]
    python -m benchmarks.timings.bench_ppi_extract shift [--corpora LLL HPRD50 IEPA]
    python -m benchmarks.timings.bench_ppi_extract model-shift --models M1 M2 [--corpora ...]
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.timings._ppi_extract import run_extract, train_model
from kernelrank.atomic import atomic_open
from kernelrank.datadir import resolve_data_dir
from corpora.ppi_xml import iter_documents
from corpora.text_input import ConversionStats, learning_to_text_document, write_pubtator

ALL = ("AIMed", "BioInfer", "HPRD50", "IEPA", "LLL")


def corpus_file(data_dir, name):
    return Path(data_dir) / "ppi" / f"{name}-learning-format.xml.gz"


def abstracts(data_dir, names, copies=1, stats=None):
    """Benchmark documents as PubTator abstracts (streamed), ``copies`` times.

    Discontinuous entities are dropped and counted in ``stats`` (a
    :class:`corpora.text_input.ConversionStats`), never silently.
    """
    import dataclasses
    for c in range(copies):
        for name in names:
            for _, _, doc in iter_documents(corpus_file(data_dir, name)):
                d = learning_to_text_document(doc, discontinuous="drop", stats=stats)
                if not d.text.strip():
                    continue
                did = doc.id if copies == 1 else f"{doc.id}.copy{c}"
                # PubTator ids cannot hold "|", text lines no line break (same offsets)
                yield dataclasses.replace(d, id=did.replace("|", "_"),
                                          text=d.text.replace("\n", " ").replace("\r", " "))


def write_input(data_dir, names, path, copies=1):
    """Write the PubTator input; ``(documents, benchmark sentences, ConversionStats)``."""
    n_docs = n_sent = 0
    stats = ConversionStats()
    with atomic_open(path) as handle:
        for d in abstracts(data_dir, names, copies, stats):
            write_pubtator([d], handle)
            n_docs += 1
    for c in range(copies):
        for name in names:
            for _, _, doc in iter_documents(corpus_file(data_dir, name)):
                n_sent += len(doc.sentences)
    return n_docs, n_sent, stats


def _report_conversion(stats):
    print(f"PubTator input: {stats.mentions} mentions from {stats.entities} gold entities; "
          f"{stats.discontinuous} discontinuous entities left out (PubTator has no "
          f"discontinuous spans), {stats.merged} same-span entities merged; "
          f"{stats.pairs_lost} of {stats.pairs} gold pairs ({stats.positive_pairs_lost} "
          "positive) cannot be produced from this input")
    return stats.as_dict()


def throughput(args, data_dir, workdir):
    model = train_model(data_dir, workdir)
    src = workdir / "bench.pubtator"
    n_docs, n_sent, conv = write_input(data_dir, args.corpora, src)
    print(f"input: {n_docs} documents, {n_sent} benchmark sentences ({', '.join(args.corpora)})")
    conversion = _report_conversion(conv)
    rows = []
    for w in args.jobs:
        s, wall, _ = run_extract(model, src, workdir / f"out-{w}w.jsonl", w,
                                 ("--chunk-size", str(args.chunk_size)))
        row = {"workers": w, "documents": s["documents"], "sentences": s["sentences"],
               "pairs": s["pairs"], "extract_seconds": s["seconds"], "wall_seconds": wall,
               "sentences_per_second": s["sentences"] / s["seconds"],
               "pairs_per_second": s["pairs"] / s["seconds"]}
        rows.append(row)
        print(f"{w} worker(s): {s['sentences']} spaCy sentences, {s['pairs']} pairs in "
              f"{s['seconds']:.1f} s (process wall {wall:.1f} s) → "
              f"{row['sentences_per_second']:.1f} sentences/s, "
              f"{row['pairs_per_second']:.1f} pairs/s")
    res = {"rows": rows, "corpora": args.corpora, "conversion": conversion,
           "cpu_count": os.cpu_count(),
           "load_average": harness.load_average()}
    if len(rows) >= 2:
        res["ratio_pairs_per_second"] = rows[-1]["pairs_per_second"] / rows[0]["pairs_per_second"]
        print(f"ratio {rows[-1]['workers']} / {rows[0]['workers']} workers: "
              f"{res['ratio_pairs_per_second']:.2f}× (load average {harness.load_1min():.1f})")
    return res


def memory(args, data_dir, workdir):
    model = train_model(data_dir, workdir)
    rows = []
    for copies in (1, 10):
        src = workdir / f"mem-{copies}x.pubtator"
        n_docs, n_sent, conv = write_input(data_dir, args.corpora, src, copies)
        if copies == 1:
            conversion = _report_conversion(conv)
        s, wall, peak = run_extract(model, src, workdir / f"mem-{copies}x.jsonl", 0,
                                    ("--chunk-size", str(args.chunk_size)))
        rows.append({"copies": copies, "documents": n_docs, "benchmark_sentences": n_sent,
                     "pairs": s["pairs"], "input_mib": src.stat().st_size / 2**20,
                     "output_mib": (workdir / f"mem-{copies}x.jsonl").stat().st_size / 2**20,
                     "peak_rss_mib": peak, "seconds": s["seconds"]})
        print(f"{copies:>2}× input: {n_docs} documents, {s['pairs']} pairs, input "
              f"{rows[-1]['input_mib']:.1f} MiB → peak RSS {peak:.0f} MiB ({s['seconds']:.0f} s)")
    return {"rows": rows, "corpora": args.corpora, "conversion_1x": conversion,
            "rss_ratio_10x_over_1x": rows[1]["peak_rss_mib"] / rows[0]["peak_rss_mib"]}


def shift(args, data_dir, workdir):
    from corpora.ppi_xml import read_corpus, write_corpus
    from ppi.parsing.spacy_parse import load_spacy, reparse_corpus
    nlp = load_spacy(args.spacy_model or "en_core_web_sm")
    collapse = not args.no_collapse
    reparsed = workdir / ("spacy-data" if collapse else "spacy-data-nocollapse")
    rows = []
    for name in args.corpora:
        target = corpus_file(reparsed, name)
        if not target.exists():
            t0 = time.perf_counter()
            write_corpus(reparse_corpus(read_corpus(corpus_file(data_dir, name)), nlp,
                                        collapse=collapse), target)
            print(f"{name}: re-parsed with spaCy in {time.perf_counter() - t0:.0f} s")
        row = {"corpus": name}
        for label, ddir in (("provided", data_dir), ("spacy", reparsed)):
            out = workdir / "shift" / f"{name}-{label}" if label == "provided" else \
                reparsed.with_name(reparsed.name + "-cv") / name
            subprocess.run([sys.executable, "-m", "ppi", "cv", "--corpus", name, "--data-dir",
                            str(ddir), "--output-dir", str(out), "--order", args.order,
                            "--quiet"], check=True)
            r = json.loads((out / "results.json").read_text())
            row[f"{label}_auc"], row[f"{label}_f1"] = _auc_f(r)
        rows.append(row)
        print(f"{name}: provided split parse AUC {row['provided_auc']:.3f} F "
              f"{row['provided_f1']:.3f} | spaCy AUC {row['spacy_auc']:.3f} F "
              f"{row['spacy_f1']:.3f}")
    return {"rows": rows, "spacy_model": args.spacy_model, "collapse": collapse,
            "order": args.order}


def model_shift(args, data_dir, workdir):
    import numpy as np

    from learners.measures import auc, precision_recall_f1
    from kernelrank.errors import InvalidParameterError
    from ppi.models.training_record import check_not_learned_from

    try:
        check_not_learned_from(args.models, args.corpora)
    except InvalidParameterError as exc:
        raise SystemExit(f"error: {exc}") from None
    rows = []
    for model in args.models:
        for name in args.corpora:
            row = {"model": str(model), "corpus": name}
            parses = json.loads((Path(model) / "model.json").read_text()).get("parses", [])
            # a model of spaCy's parse (``text``) reads no parse the files carry
            labels = ((("provided", ()),) if parses != ["spacy"] else ()) + \
                (("spacy", ("--reparse",)),)
            for label, extra in labels:
                out = workdir / "model-shift" / Path(model).name / f"{name}-{label}.jsonl"
                t0 = time.perf_counter()
                subprocess.run([sys.executable, "-m", "ppi", "extract", "--model", str(model),
                                "--input", str(corpus_file(data_dir, name)), "--format",
                                "learning-xml", "--output", str(out), "--jobs", "0",
                                "--overwrite", "--quiet",
                                *(("--spacy-model", args.spacy_model) if args.spacy_model
                                  else ()),
                                *extra, *(("--no-collapse",) if args.no_collapse else ())],
                               check=True)
                recs = [json.loads(x) for x in out.read_text().splitlines()]
                y = np.array([1.0 if r["label"] else -1.0 for r in recs])
                s = np.array([r["score"] for r in recs])
                threshold = float(json.loads((Path(model) / "model.json").read_text())
                                  ["threshold"])
                row[f"{label}_auc"] = float(auc(y, s))
                row[f"{label}_f1"] = float(precision_recall_f1(y, s, threshold).f1)
                row[f"{label}_seconds"] = time.perf_counter() - t0
                row["pairs"] = len(recs)
            rows.append(row)
            provided = (f"provided AUC {row['provided_auc']:.3f} F {row['provided_f1']:.3f}"
                        if "provided_auc" in row else "provided: - (a spaCy-parse model)")
            print(f"{Path(model).name} → {name}: {provided} | spaCy AUC "
                  f"{row['spacy_auc']:.3f} F {row['spacy_f1']:.3f}", flush=True)
    return {"rows": rows, "spacy_model": args.spacy_model, "collapse": not args.no_collapse,
            "load_average": harness.load_average()}


def _auc_f(r):
    """(AUC, F) of a ``ppi cv`` results.json: the means over the folds."""
    return float(r["auc"]), float(r["f1"])


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    p.add_argument("mode", choices=("throughput", "memory", "shift", "model-shift"))
    p.add_argument("--models", nargs="+", default=[],
                   help="model-shift: saved model directories (from `ppi train`)")
    harness.add_data_dir(p)
    p.add_argument("--workdir", default="bench-ppi-extract")
    p.add_argument("--corpora", nargs="+", default=None)
    p.add_argument("--jobs", nargs="+", type=int, default=[1, 2],
                   help="throughput: the local Dask cluster sizes to measure")
    p.add_argument("--chunk-size", type=int, default=50)
    p.add_argument("--spacy-model", default=None,
                   help="spaCy pipeline that parses (default: each model's own, as `ppi "
                        "extract`; en_core_web_sm for the reparse of `shift`)")
    p.add_argument("--order", choices=("text", "pair"), default="text",
                   help="shift: pair orientation passed to `ppi cv` (same for both parses)")
    p.add_argument("--no-collapse", action="store_true",
                   help="shift: keep spaCy's labels (no collapsed-Stanford rewriting)")
    harness.add_output(p, "JSON results (default: workdir/MODE.json)")
    args = harness.parse_args(p, argv)
    data_dir = resolve_data_dir(args.data_dir)
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    if args.corpora is None:
        args.corpora = {"throughput": list(ALL), "memory": ["LLL", "HPRD50"],
                        "shift": ["LLL", "HPRD50"],
                        "model-shift": ["BioInfer", "HPRD50", "IEPA", "LLL"]}[args.mode]
        if args.mode == "model-shift":        # by default only the corpora that test them
            from ppi.models.training_record import learned_from, read_training

            learned = set().union(*(learned_from(read_training(m)) for m in args.models))
            if learned & set(args.corpora):
                print(f"not tested on {', '.join(sorted(learned & set(args.corpora)))}: "
                      "learned from")
            args.corpora = [c for c in args.corpora if c not in learned]
    res = {"throughput": throughput, "memory": memory, "shift": shift,
           "model-shift": model_shift}[args.mode](args, data_dir, workdir)
    res["command"] = " ".join(sys.argv)
    suffix = "-nocollapse" if args.mode == "shift" and args.no_collapse else ""
    default = workdir / f"{args.mode}{suffix}-{'-'.join(args.corpora)}.json"
    harness.save_json(args.output or default, res)


if __name__ == "__main__":
    main()
