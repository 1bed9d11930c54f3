"""kernelrank.parallel.map_tasks: same results, same order, in-process and on Dask."""

import numpy as np
import pytest
from threadpoolctl import threadpool_info

from kernelrank.errors import InvalidParameterError
from kernelrank.parallel import default_blas_threads, map_tasks

pytestmark = pytest.mark.slow      # jobs=2: every test starts a Dask cluster


def _square_sum(a):
    return float((a ** 2).sum())


def _blas_threads(_):
    return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]


def test_in_process_and_dask_threads_agree_in_order(rng):
    items = [rng.standard_normal((20, 3)) for _ in range(7)]
    expected = [_square_sum(a) for a in items]
    assert map_tasks(_square_sum, items, progress=False) == expected
    assert map_tasks(_square_sum, items, jobs=2, progress=False) == expected


def test_dask_processes_agree(rng):
    items = list(range(5))
    assert map_tasks(abs, [-i for i in items], jobs=2, processes=True, progress=False) == items


def test_parallel_tasks_get_a_share_of_the_blas_threads():
    got = map_tasks(_blas_threads, [0, 1], jobs=2, progress=False)
    for threads in got:
        assert all(t == default_blas_threads(2) for t in threads)
    got = map_tasks(_blas_threads, [0], blas_threads=1, progress=False)
    assert all(t == 1 for t in got[0])


def test_task_errors_propagate_and_bad_jobs_are_rejected():
    def boom(x):
        raise ValueError(f"bad item {x}")
    with pytest.raises(ValueError, match="bad item 3"):
        map_tasks(boom, [3], progress=False)
    with pytest.raises(ValueError, match="bad item"):
        map_tasks(boom, [1, 2], jobs=2, progress=False)
    with pytest.raises(InvalidParameterError):
        map_tasks(abs, [1], jobs=0, progress=False)
    assert np.isclose(default_blas_threads(10 ** 6), 1)


def test_quiet_workers_silences_this_process_and_gives_the_level_back():
    """After Ctrl-C the local cluster's nannies (in this process) must not log "Worker
    process still alive … killing" under the one-line message; the logger's level comes
    back once the cluster is closed."""
    import logging

    from kernelrank.parallel import quiet_workers

    class NoWorkers:
        def run(self, fn, on_error):
            raise RuntimeError("no workers to reach")

    logger = logging.getLogger("distributed")
    before = logger.level
    logger.setLevel(logging.INFO)
    try:
        restore = quiet_workers(NoWorkers())
        assert logger.level == logging.ERROR
        restore()
        assert logger.level == logging.INFO
    finally:
        logger.setLevel(before)
