"""``ppi extract --scheduler`` on an external local Dask cluster: 1 worker vs 2, measured in ONE
run.

For each worker count a fresh cluster of separate processes is started the way a user
starts one (:func:`kernelrank.parallel.process_cluster`: ``dask scheduler`` and ``dask
worker --nworkers 1 --nthreads 1`` on 127.0.0.1, no dashboard; the workers import this
checkout through ``PYTHONPATH``), then ``python -m ppi extract --scheduler ADDRESS`` runs
in a fresh child process on a real input — by default the BioCreative VI PPIm training set
as PubTator (597 abstracts, 8,833 gene mentions) — with a model trained by ``python -m ppi
train`` (LLL unless ``--model``); mentions that cannot be placed are left out and counted
(``--skip-bad``: the BC6 file has a few, see :mod:`corpora.standoff`).  Printed per worker
count: wall time of the extract process, documents/s and sentences/s, peak RSS of the client
(the extract process: reader, scheduling, writer) and of the workers (sum over the worker
processes and their children, sampled every 0.2 s with psutil) and their summed CPU time,
peak RSS of the scheduler, and the load average before and after; then the speed-up (wall 1
worker / wall 2 workers) and whether the two outputs are byte-identical.  The wall times
include each worker loading spaCy and its model once (the first chunk it gets).

Usage::

    python -m benchmarks.timings.bench_ppi_dask [--input FILE.pubtator[.gz]] [--workers 1 2]
        [--chunk-size 20] [--model DIR] [--workdir bench-ppi-dask]

The machine is usually shared: read the load average printed beside each run.
"""

from __future__ import annotations

import os
import sys
import threading
import time
from pathlib import Path

from benchmarks import harness
from benchmarks.timings._ppi_extract import run_extract, train_model
from kernelrank.datadir import resolve_data_dir

BC6 = Path("text") / "PMtask_Relations_TrainingSet.pubtator.gz"


class PeakRSS:
    """Peak of the summed RSS (MiB) of some processes and their children, sampled every
    ``interval`` seconds in a thread until :meth:`stop`; ``cpu_seconds``: their summed CPU
    time (user + system) at the last sample."""

    def __init__(self, pids, interval=0.2):
        import psutil
        self._roots = [psutil.Process(p) for p in pids]
        self.peak = self.cpu_seconds = 0.0
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(interval,), daemon=True)
        self._thread.start()

    def _sample(self):
        import psutil
        rss = cpu = 0.0
        for root in self._roots:
            try:
                procs = [root] + root.children(recursive=True)
            except psutil.Error:
                continue
            for p in procs:
                try:
                    with p.oneshot():
                        rss += p.memory_info().rss
                        t = p.cpu_times()
                        cpu += t.user + t.system
                except psutil.Error:
                    pass
        self.peak = max(self.peak, rss / 2 ** 20)
        self.cpu_seconds = cpu

    def _run(self, interval):
        while not self._done.is_set():
            self._sample()
            self._done.wait(interval)

    def stop(self):
        self._done.set()
        self._thread.join()
        self._sample()
        return self.peak


def _env():
    paths = [str(harness.REPOSITORY),
             *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
    return dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys(paths)))


def measure(n_workers, model, src, workdir, chunk_size):
    """One configuration: a fresh external cluster of ``n_workers``, one extract run."""
    from kernelrank.parallel import process_cluster
    out = workdir / f"out-{n_workers}w.jsonl"
    with process_cluster(n_workers, workdir / f"cluster-{n_workers}w", env=_env()) as cluster:
        load_before = harness.load_average()
        workers = PeakRSS([w.pid for w in cluster.workers])
        scheduler = PeakRSS([cluster.scheduler.pid])
        summary, wall, client_peak = run_extract(
            model, src, out, 1, ("--chunk-size", str(chunk_size), "--skip-bad",
                                 "--scheduler", cluster.address))
        row = {"workers": n_workers, "address": cluster.address,
               "documents": summary["documents"], "sentences": summary["sentences"],
               "pairs": summary["pairs"], "wall_seconds": wall,
               "extract_seconds": summary["seconds"],
               "documents_per_second": summary["documents"] / wall,
               "sentences_per_second": summary["sentences"] / wall,
               "peak_rss_client_mib": client_peak,
               "peak_rss_workers_mib": workers.stop(),
               "workers_cpu_seconds": workers.cpu_seconds,
               "peak_rss_scheduler_mib": scheduler.stop(),
               "load_average_before": load_before, "load_average_after": harness.load_average()}
    print(f"{n_workers} worker(s): {row['documents']} documents, {row['sentences']} sentences, "
          f"{row['pairs']} pairs in {wall:.1f} s wall → {row['documents_per_second']:.2f} "
          f"documents/s, {row['sentences_per_second']:.1f} sentences/s; peak RSS client "
          f"{client_peak:.0f} MiB, workers (sum) {row['peak_rss_workers_mib']:.0f} MiB, "
          f"scheduler {row['peak_rss_scheduler_mib']:.0f} MiB; workers' CPU "
          f"{row['workers_cpu_seconds']:.0f} s; load average "
          f"{load_before[0]:.2f} → {row['load_average_after'][0]:.2f}", flush=True)
    return row, out


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    p.add_argument("--input", default=None,
                   help="PubTator input (default: the BC6 PPIm file of the data folder)")
    p.add_argument("--model", default=None, help="saved PPI model (default: train on LLL)")
    p.add_argument("--workers", nargs="+", type=int, default=[1, 2])
    p.add_argument("--chunk-size", type=int, default=20)
    p.add_argument("--workdir", default="bench-ppi-dask")
    harness.add_output(p, "JSON results (default: workdir/dask.json)")
    args = harness.parse_args(p, argv)
    data_dir = resolve_data_dir(args.data_dir)
    workdir = Path(args.workdir).resolve()
    workdir.mkdir(parents=True, exist_ok=True)
    src = Path(args.input) if args.input else data_dir / BC6
    model = Path(args.model) if args.model else train_model(data_dir, workdir)
    print(f"input {src}, model {model}, chunks of {args.chunk_size} documents, "
          f"{os.cpu_count()} cores, load average {harness.load_1min():.2f}", flush=True)
    t0 = time.perf_counter()
    rows, outputs = [], []
    for n in args.workers:
        row, out = measure(n, model, src, workdir, args.chunk_size)
        rows.append(row)
        outputs.append(out.read_bytes())
    res = {"input": str(src), "model": str(model), "chunk_size": args.chunk_size,
           "cpu_count": os.cpu_count(), "rows": rows,
           "outputs_identical": all(o == outputs[0] for o in outputs),
           "seconds": time.perf_counter() - t0, "command": " ".join(sys.argv)}
    if len(rows) >= 2:
        res["speedup"] = rows[0]["wall_seconds"] / rows[-1]["wall_seconds"]
        print(f"speed-up {rows[-1]['workers']} / {rows[0]['workers']} workers: "
              f"{res['speedup']:.2f}× (wall)")
    print(f"outputs byte-identical: {res['outputs_identical']}; load average "
          f"{harness.load_1min():.2f}")
    harness.save_json(args.output or workdir / "dask.json", res)


if __name__ == "__main__":
    main()
