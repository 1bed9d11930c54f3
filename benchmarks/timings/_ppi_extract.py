"""``ppi extract`` as the extraction timings run it: in a fresh child process, with a model
that ``ppi train`` fitted on LLL, measured by wall time and the child's own peak RSS.

Shared by :mod:`benchmarks.timings.bench_ppi_extract` (local Dask workers, memory) and
:mod:`benchmarks.timings.bench_ppi_dask` (an external cluster).
"""

import json
import subprocess
import sys
import time
from pathlib import Path

__all__ = ["train_model", "run_extract"]


def train_model(data_dir, workdir):
    """The directory of a model trained by ``python -m ppi train --corpus LLL`` in
    ``workdir`` (trained once, in a child process; reused when it exists)."""
    model = workdir / "model-LLL"
    if not (model / "model.json").exists():
        subprocess.run([sys.executable, "-m", "ppi", "train", "--corpus", "LLL", "--data-dir",
                        str(data_dir), "--model", str(model), "--output-dir",
                        str(workdir / "train-report"), "--quiet"], check=True)
    return model


#: the child: ``ppi``'s command line, then its own peak RSS (KiB) on a line of stdout
_CHILD = ("import resource, sys\n"
          "from ppi.__main__ import main\n"
          "rc = main(sys.argv[1:])\n"
          "print('PEAK_RSS_KIB', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)\n"
          "sys.exit(rc)\n")


def run_extract(model, src, out, workers, extra=()):
    """Run ``ppi extract`` of the PubTator file ``src`` into ``out`` in a fresh child
    process, ``--jobs workers`` and the options ``extra``.

    Returns
    -------
    tuple
        ``(summary, wall seconds, peak RSS MiB)``: the run's ``<out>.summary.json``, and the
        peak RSS of the child process itself — the whole pipeline when ``workers == 0``.
    """
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _CHILD, "extract", "--quiet", "--model",
                           str(model), "--input", str(src), "--format", "pubtator", "--output",
                           str(out), "--jobs", str(workers), "--overwrite", *extra],
                          check=True, stdout=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    peak = [int(line.split()[1]) for line in proc.stdout.splitlines()
            if line.startswith("PEAK_RSS_KIB")][0] / 1024.0
    summary = json.loads(Path(str(out) + ".summary.json").read_text())
    return summary, wall, peak
