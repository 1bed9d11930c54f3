"""Run independent tasks (CV folds, corpora, families) in parallel through Dask.

One entry point, :func:`map_tasks`, for every package: in this process when ``jobs <= 1``
and no scheduler is given (no Dask start-up cost, exceptions as raised); otherwise on a
local Dask cluster of ``jobs`` workers — threads by default, which suits NumPy/LAPACK-bound
tasks that release the GIL and share large read-only arrays without copying — or processes
(``processes=True``) for GIL-bound Python work, or on an existing cluster at ``scheduler``
(``tcp://host:port``). Results come back in input order; a progress bar advances as tasks
finish. Each task runs with ``blas_threads`` BLAS threads (default: unchanged when the
tasks run in this process, else the machine's cores divided by the number of workers, so
parallel tasks do not oversubscribe the cores).
"""

from __future__ import annotations

import os

from tqdm.auto import tqdm

from kernelrank.errors import InvalidParameterError

__all__ = ["map_tasks", "default_blas_threads"]


def default_blas_threads(jobs=1):
    """BLAS threads per task when ``jobs`` tasks run at once: cores // jobs, at least 1."""
    return max(1, (os.cpu_count() or 1) // max(1, int(jobs or 1)))


def _limited(fn, blas_threads):
    def run(item):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(blas_threads):
            return fn(item)
    return run


def _gather(client, task, items, bar):
    from dask.distributed import as_completed

    futures = [client.submit(task, it, pure=False) for it in items]
    for _ in as_completed(futures):
        bar.update()
    return [f.result() for f in futures]


def map_tasks(fn, items, *, jobs=1, scheduler=None, processes=False, blas_threads=None,
              desc=None, progress=True):
    """``[fn(item) for item in items]``, in parallel when ``jobs > 1`` or ``scheduler``.

    Parameters
    ----------
    fn : callable            one task; must be picklable when ``processes`` or ``scheduler``
    items : iterable
    jobs : int               local workers (ignored with ``scheduler``)
    scheduler : str or None  address of an existing Dask scheduler
    processes : bool         local worker processes instead of threads
    blas_threads : int or None
    desc : str               progress-bar label
    progress : bool

    Returns
    -------
    list — results in the order of ``items``.
    """
    items = list(items)
    if jobs is None or int(jobs) < 1:
        raise InvalidParameterError(f"jobs must be ≥ 1, got {jobs!r}")
    bar = tqdm(total=len(items), desc=desc, leave=False, disable=not progress)
    try:
        if scheduler is None and jobs <= 1:
            task = fn if blas_threads is None else _limited(fn, blas_threads)
            out = []
            for it in items:
                out.append(task(it))
                bar.update()
            return out
        from dask.distributed import Client, LocalCluster

        cluster = None
        if scheduler is None:
            if processes:
                cluster = LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True,
                                       dashboard_address=None)
            else:
                cluster = LocalCluster(n_workers=1, threads_per_worker=jobs, processes=False,
                                       dashboard_address=None)
        try:
            with Client(cluster if cluster is not None else scheduler) as client:
                n = jobs if scheduler is None else max(
                    1, sum(w.get("nthreads", 1) for w in
                           client.scheduler_info()["workers"].values()))
                threads = blas_threads or default_blas_threads(n)
                if scheduler is None and not processes:
                    # worker threads share this process's BLAS: limit it once for the whole
                    # run (a per-task limit would be undone by whichever task ends first)
                    from threadpoolctl import threadpool_limits
                    with threadpool_limits(threads):
                        return _gather(client, fn, items, bar)
                return _gather(client, _limited(fn, threads), items, bar)
        finally:
            if cluster is not None:
                cluster.close()
    finally:
        bar.close()
