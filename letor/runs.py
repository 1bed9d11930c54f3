"""The LETOR benchmark run: several learners on the same folds, one report.

:func:`run_benchmark` opens the data set (a preset or a ``--data`` folder,
:func:`letor.layouts.open_letor`), runs every learner fold by fold
(:func:`letor.protocol.run_letors`) and writes the report
(:func:`letor.report.write_letor_report`); each learner's means are logged on the ``letor``
logger (the command line prints them).
"""

import logging
import time

from kernelrank.report import format_duration
from letor.names import LEARNERS

__all__ = ["run_benchmark", "mean_line"]

log = logging.getLogger(__name__)


def mean_line(name, res):
    """``rankrls  MAP 0.4480  NDCG@1 …  disagreement 0.3870`` — a learner's fold means."""
    mean = res["mean"]
    partial = (f"  (partial: folds {', '.join(map(str, res['folds_run']))} of "
               f"{res['n_folds']})" if res.get("partial") else "")
    return (f"{name:8s} MAP {mean['MAP']:.4f}  NDCG@1 {mean['NDCG@1']:.4f}  "
            f"NDCG@3 {mean['NDCG@3']:.4f}  NDCG@5 {mean['NDCG@5']:.4f}  "
            f"NDCG@10 {mean['NDCG@10']:.4f}  disagreement {mean['disagreement']:.4f}{partial}")


def run_benchmark(output_dir, learners=LEARNERS, *, data_dir=None, dataset=None, data=None,
                  n_features=None, convention=None, folds=None, alphas=None, Cs=None, seed=0,
                  threads=None, progress=True, command=None):
    """Run every learner of ``learners`` on the folds of the preset ``dataset`` (default
    OHSUMED) or of the folder ``data`` (see :func:`letor.layouts.open_letor` and
    :func:`letor.protocol.run_letor` for the other parameters) and write ``results.json`` +
    ``results.md`` to ``output_dir`` (``command`` is quoted in the report). Returns
    ``(results by learner, written)``."""
    from letor.layouts import open_letor
    from letor.protocol import run_letors
    from letor.report import write_letor_report

    source = open_letor(data, dataset, data_dir, n_features)
    t0 = time.perf_counter()
    results = run_letors(source, list(learners), folds=folds, alphas=alphas, Cs=Cs, seed=seed,
                         progress=progress, convention=convention, threads=threads)
    for name, res in results.items():
        log.info("%s (fit and selection %s)", mean_line(name, res), format_duration(
            sum(f["train_seconds"] for f in res["folds"])))
    log.info("all learners: %s", format_duration(time.perf_counter() - t0))
    return results, write_letor_report(output_dir, results, source.name, command)
