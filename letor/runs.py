"""The LETOR benchmark run: several learners on the same standard folds, one report.

:func:`run_benchmark` reads the parts once, runs :func:`letor.protocol.run_letor` for each
learner and writes the report (:func:`letor.report.write_letor_report`); each finished
learner is logged on the ``letor`` logger (the command line prints it).
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
    return (f"{name:8s} MAP {mean['MAP']:.4f}  NDCG@1 {mean['NDCG@1']:.4f}  "
            f"NDCG@3 {mean['NDCG@3']:.4f}  NDCG@5 {mean['NDCG@5']:.4f}  "
            f"NDCG@10 {mean['NDCG@10']:.4f}  disagreement {mean['disagreement']:.4f}")


def run_benchmark(output_dir, learners=LEARNERS, *, data_dir=None, dataset="OHSUMED",
                  folds=None, alphas=None, Cs=None, seed=0, progress=True, command=None):
    """Run every learner of ``learners`` on the standard folds of ``dataset`` (see
    :func:`letor.protocol.run_letor` for the other parameters) and write ``results.json`` +
    ``results.md`` to ``output_dir`` (``command`` is quoted in the report). Returns
    ``(results by learner, written)``."""
    from letor.protocol import load_parts, run_letor
    from letor.report import write_letor_report

    parts = load_parts(data_dir, dataset)
    results = {}
    for name in learners:
        t0 = time.perf_counter()
        results[name] = run_letor(data_dir, dataset, name, folds=folds, alphas=alphas, Cs=Cs,
                                  seed=seed, progress=progress, parts=parts)
        log.info("%s (%s)", mean_line(name, results[name]),
                 format_duration(time.perf_counter() - t0))
    return results, write_letor_report(output_dir, results, dataset, command)
