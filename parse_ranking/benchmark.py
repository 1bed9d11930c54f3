"""Timings of the parse ranking pipeline (targets: building 1,000 sentences in under 10
minutes on 2 cores; the locality Gram matrix of 20,000 parses in under 2 minutes), and
optionally one timed article-level CV of chosen rankers (``rankers``, e.g. including the
co-regularized ``corankrls``) with its measures and per-ranker seconds.

Timings are printed and written as JSON; nothing here asserts a time (tests never do).
"""

import logging
import tempfile
import time
from pathlib import Path

import numpy as np

from kernelrank.report import format_duration
from learners.kernels import gram_matrix
from parse_ranking.dataset import build_dataset, load_dataset, subsample
from parse_ranking.representations import ParseRepresentation

__all__ = ["run_benchmark"]

log = logging.getLogger(__name__)


def _gram_blocks(X, block=2000, dtype=np.float32):
    """Full Gram matrix ``X Xᵀ`` computed in row blocks into one preallocated array."""
    K = np.empty((X.shape[0], X.shape[0]), dtype=dtype)
    for start in range(0, X.shape[0], block):
        K[start:start + block] = gram_matrix(X[start:start + block], X)
    return K


def run_benchmark(treebank=None, data=None, *, sentences=1000, jobs=2, gram_parses=20000,
                  kernels=("locality",), seed=0, threads=2, rankers=None,
                  cv_kernels=("locality",), folds=3, max_parses=5, max_sentences=None,
                  coreg=None):
    """Time the build of ``sentences`` sentences and the Gram matrix of ``gram_parses``.

    With ``rankers`` (and ``data``): also one :func:`parse_ranking.evaluation.cross_validate`
    run over ``cv_kernels``; ``out["cv"]`` holds wall and CPU seconds, per-ranker seconds
    and measures, and ``out["cv_results"]`` the full results (for ``write_cv_report``).
    """
    from threadpoolctl import threadpool_limits

    out = {}
    if rankers and data is not None:
        from parse_ranking.evaluation import cross_validate
        records = subsample(load_dataset(data), max_sentences, seed)
        t0, c0 = time.perf_counter(), time.process_time()
        res = cross_validate(records, kernels=tuple(cv_kernels), rankers=tuple(rankers),
                             n_folds=folds, seed=seed, max_parses=max_parses, progress=False,
                             threads=threads, coreg=coreg)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        keys = ("kendall_tau_b", "disagreement", "top1_f", "oracle_f", "lg_first_f")
        out["cv"] = {"folds": folds, "max_parses": max_parses,
                     "sentences": res["data"]["sentences"], "parses": res["data"]["parses"],
                     "wall_seconds": round(wall, 2), "cpu_seconds": round(cpu, 2),
                     "seconds_by_step": res["timings_seconds"],
                     "rankers": {name: {k: r[k] for k in keys if k in r}
                                 for name, r in res["rankers"].items()}}
        out["cv_results"] = res
        log.info("cv of %s on %d sentences (%s)", ", ".join(rankers), out["cv"]["sentences"],
                 format_duration(wall))
    if treebank is not None:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.perf_counter()
            summary = build_dataset(treebank, Path(tmp) / "bench.jsonl",
                                    max_sentences=sentences, jobs=jobs, seed=seed,
                                    progress=False)
            out["build"] = {"sentences": sentences, "jobs": jobs,
                            "wall_seconds": round(time.perf_counter() - t0, 2),
                            "parses_kept": summary["parses_kept"],
                            "sentences_kept": summary["sentences_kept"]}
        log.info("build of %d sentences (%s)", sentences,
                 format_duration(out["build"]["wall_seconds"]))
    if data is not None:
        records = load_dataset(data)
        items = [(p, r["text"]) for r in records for p in r["parses"]]
        reps = int(np.ceil(gram_parses / len(items)))
        items = (items * reps)[:gram_parses]
        for kind in kernels:
            with threadpool_limits(limits=int(threads)):
                t0, c0 = time.perf_counter(), time.process_time()
                X = ParseRepresentation(kind).fit_transform(items)
                t1 = time.perf_counter()
                K = _gram_blocks(X)
                t2, c2 = time.perf_counter(), time.process_time()
            out[f"gram[{kind}]"] = {
                "parses": len(items), "distinct_parses_repeated": reps > 1,
                "features": int(X.shape[1]), "nnz": int(X.nnz),
                "features_seconds": round(t1 - t0, 2), "gram_seconds": round(t2 - t1, 2),
                "total_seconds": round(t2 - t0, 2),
                "total_cpu_seconds": round(c2 - c0, 2), "gram_dtype": str(K.dtype),
                "threads": threads}
            log.info("gram[%s] of %d parses (%s)", kind, len(items), format_duration(t2 - t0))
            del K
    return out
