"""``ppi extract`` of annotated abstracts against spaCy's parse alone: wall time and peak RSS
of the whole command beside a child process that only loads spaCy and parses the same
texts, and their ratio (the target of a typed documents model on BioRED dev: at most 1.5).

Both are whole runs in fresh child processes (interpreter start, imports, loading; wall
seconds and the child's own peak RSS by :func:`os.wait4`), each ``--repeat`` times, the best
kept:

``extract``
    ``python -m ppi extract --model M --input FILE --format pubtator --output O --jobs 0``
    (a fresh output each time: nothing resumed);
``parse``
    ``python -c`` loading spaCy as ``ppi extract`` does (:func:`ppi.parsing.spacy_parse.
    load_spacy`: tagger and parser) and piping every document's text through it in batches
    of :data:`ppi.parsing.spacy_parse.DOCUMENT_BATCH_SIZE` — the parse ``ppi extract`` cannot
    do without.

``--copies 1 3`` repeats the file under new document ids (:func:`benchmarks.harness.write_copies`) to show how both grow.

Usage::

    python -m benchmarks.timings.bench_ppi_extract_vs_parse --model M
        [--input DATA/biored/Dev.PubTator.gz] [--copies 1 3] [--repeat 2] [--output R.json]
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks import harness
from kernelrank.datadir import resolve_data_dir

PARSE_ONLY = """
import sys
from corpora.text_input import read_documents
from ppi.parsing.spacy_parse import DOCUMENT_BATCH_SIZE, load_spacy
nlp = load_spacy(sys.argv[2])
texts = [d.text for d in read_documents(sys.argv[1], "pubtator")]
n = sum(len(doc) for doc in nlp.pipe(texts, batch_size=DOCUMENT_BATCH_SIZE))
print(len(texts), "documents,", n, "tokens")
"""


def run(cmd):
    """``(wall seconds, peak RSS MiB)`` of ``cmd`` in a child process."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(harness.REPOSITORY)},
                            stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(map(str, cmd))} failed "
                         f"(exit {os.waitstatus_to_exitcode(status)})")
    return wall, usage.ru_maxrss / 1024


def best(cmd, repeat, before=None):
    """The fastest of ``repeat`` runs of ``cmd`` (``before()`` runs before each)."""
    runs = []
    for _ in range(repeat):
        if before:
            before()
        runs.append(run(cmd))
    return min(runs)


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output(p)
    p.add_argument("--model", required=True, help="the saved model `ppi extract` runs")
    p.add_argument("--input", default=None,
                   help="PubTator file (default: BioRED dev in the data directory)")
    p.add_argument("--copies", type=int, nargs="+", default=[1])
    p.add_argument("--repeat", type=int, default=2)
    args = harness.parse_args(p, argv)
    from ppi.models.classes import PPIModel

    src = Path(args.input or resolve_data_dir(args.data_dir) / "biored" / "Dev.PubTator.gz")
    spacy_model = PPIModel.load(args.model).spacy_model
    work = Path(tempfile.mkdtemp(prefix="extract-vs-parse-"))
    harness.print_load("start")
    rows = []
    for k in args.copies:
        f = harness.write_copies(src, k, work / f"input_x{k}.pubtator")
        out = work / f"out_x{k}.jsonl"

        def fresh(out=out):
            for x in out.parent.glob(out.name + "*"):
                if x.is_file():
                    x.unlink()

        ex = best([sys.executable, "-m", "ppi", "extract", "--quiet", "--model", args.model,
                   "--input", str(f), "--format", "pubtator", "--output", str(out),
                   "--jobs", "0"], args.repeat, fresh)
        pa = best([sys.executable, "-c", PARSE_ONLY, str(f), spacy_model], args.repeat)
        rows.append({"copies": k, "extract_seconds": ex[0], "extract_rss_mib": ex[1],
                     "parse_seconds": pa[0], "parse_rss_mib": pa[1],
                     "ratio": ex[0] / pa[0], "load_1min": harness.load_1min()})
        print(f"x{k}: extract {ex[0]:.1f} s ({ex[1]:.0f} MiB), spaCy parse only {pa[0]:.1f} s "
              f"({pa[1]:.0f} MiB): ratio {ex[0] / pa[0]:.2f}", flush=True)
    harness.print_load("end")
    harness.save_json(args.output, {"input": str(src), "model": args.model, "runs": rows})


if __name__ == "__main__":
    main()
