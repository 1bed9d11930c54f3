"""Timings of the parse ranking pipeline (targets: building 1,000 sentences in under 10
minutes on 2 cores; the locality Gram matrix of 20,000 parses in under 2 minutes).

Timings are printed and written as JSON; nothing here asserts a time (tests never do).
"""

import tempfile
import time
from pathlib import Path

import numpy as np

from learners.all_paths import gram_matrix
from parse_ranking.dataset import build_dataset, load_dataset
from parse_ranking.representations import ParseRepresentation

__all__ = ["run_benchmark"]


def _gram_blocks(X, block=2000, dtype=np.float32):
    """Full Gram matrix ``X Xᵀ`` computed in row blocks into one preallocated array."""
    K = np.empty((X.shape[0], X.shape[0]), dtype=dtype)
    for start in range(0, X.shape[0], block):
        K[start:start + block] = gram_matrix(X[start:start + block], X)
    return K


def run_benchmark(treebank=None, data=None, *, sentences=1000, jobs=2, gram_parses=20000,
                  kernels=("locality",), seed=0, threads=2):
    """Time the build of ``sentences`` sentences and the Gram matrix of ``gram_parses``."""
    from threadpoolctl import threadpool_limits

    out = {}
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
            del K
    return out
