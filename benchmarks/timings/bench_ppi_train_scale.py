"""``ppi train --relations-from`` as the annotations grow: wall time and peak RSS of the whole
command at 1×, 3× and 10× BioRED's training abstracts, and the growth between the sizes.

The larger corpora are BioRED train repeated under new document ids (copy ``c`` of PMID ``p``
is ``p + c·10⁹``; mentions, relations and text unchanged), so every copy is parsed, featurized
and learnt from as an abstract of its own — nothing is deduplicated — and the cost is
measured at a known multiple of the work.  Each size is trained once to warm the caches (the
spaCy parses of the file, the source models of the transfer prior; ``--warm``), then
timed in a fresh child process: wall seconds and that child's own peak RSS
(:func:`os.wait4`).  The growth exponent between two sizes is ``log(t₂ / t₁) / log(n₂ / n₁)``
(1: linear, 2: quadratic), of the time and of the memory, over the mention pairs.

Usage::

    python -m benchmarks.timings.bench_ppi_train_scale [--copies 1 3 10] [--workdir W]
        [--warm each|first|none] [--output results.json] [-- extra ppi train options]
"""

from __future__ import annotations

import itertools
import json
import math
import os
import subprocess
import sys
import time
from pathlib import Path

from benchmarks import harness
from kernelrank.datadir import resolve_data_dir

def run_train(src, model, extra=()):
    """``python -m ppi train --relations-from src --model model`` in a child process:
    ``(wall seconds, peak RSS MiB, results.json)``."""
    out_dir = Path(model).with_suffix(".report")
    cmd = [sys.executable, "-m", "ppi", "train", "--quiet", "--relations-from", str(src),
           "--model", str(model), "--output-dir", str(out_dir), *extra]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, env={**os.environ, "PYTHONPATH": str(harness.REPOSITORY)})
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(cmd)} failed (exit {os.waitstatus_to_exitcode(status)})")
    results = json.loads((out_dir / "results.json").read_text(encoding="utf-8"))
    return wall, usage.ru_maxrss / 1024, results


def exponent(a, b, key, size="mention_pairs"):
    """The growth exponent of ``key`` between the runs ``a`` and ``b``."""
    return math.log(b[key] / a[key]) / math.log(b[size] / a[size])


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output(p)
    p.add_argument("--copies", type=int, nargs="+", default=[1, 3, 10],
                   help="the sizes, as copies of BioRED train (default: 1 3 10)")
    p.add_argument("--workdir", type=Path, default=None,
                   help="where the copies and models go (default: a temporary folder)")
    p.add_argument("--warm", choices=("each", "first", "none"), default="each",
                   help="warm-up runs before the timed ones: for each size (default), for the "
                        "first only (the source models are shared by all sizes; the larger "
                        "files' parses already cached), or none (time the first runs)")
    p.add_argument("extra", nargs="*", help="options passed on to ppi train (after --)")
    args = harness.parse_args(p, argv)
    import tempfile

    src = resolve_data_dir(args.data_dir) / "biored" / "Train.PubTator.gz"
    work = args.workdir or Path(tempfile.mkdtemp(prefix="train-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    start = harness.print_load("start")
    runs = []
    for k in args.copies:
        f = harness.write_copies(src, k, work / f"train_x{k}.pubtator")
        model = work / f"model_x{k}"
        if args.warm == "each" or (args.warm == "first" and k == args.copies[0]):
            harness.log.info("x%d: warm-up run", k)
            run_train(f, model, args.extra)
        wall, rss, res = run_train(f, model, args.extra)
        data = res["data"]
        runs.append({"copies": k, "documents": data["documents"],
                     "candidates": data["candidates"], "mention_pairs": data["mention_pairs"],
                     "seconds": wall, "peak_rss_mib": rss,
                     "load_1min": harness.load_1min()})
        print(f"x{k}: {data['documents']} abstracts, {data['mention_pairs']} mention pairs: "
              f"{wall:.0f} s, {rss / 1024:.2f} GiB", flush=True)
    growth = [{"from": a["copies"], "to": b["copies"],
               "time_exponent": exponent(a, b, "seconds"),
               "memory_exponent": exponent(a, b, "peak_rss_mib")}
              for a, b in itertools.pairwise(runs)]
    for g in growth:
        print(f"growth x{g['from']} → x{g['to']}: time ^{g['time_exponent']:.2f}, "
              f"memory ^{g['memory_exponent']:.2f}")
    end = harness.print_load("end")
    harness.save_json(args.output, {"runs": runs, "growth": growth, "warm": args.warm,
                                    "extra": args.extra,
                                    "load": {"start": start, "end": end}})


if __name__ == "__main__":
    main()
