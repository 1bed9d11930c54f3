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

The Dask plumbing shared with :mod:`kernelrank.chunks` (the resumable chunk map of
``ppi extract``):

* :func:`local_cluster` — a local cluster whose scheduler and dashboard listen on
  127.0.0.1 only (never on every interface of the machine);
* :func:`connect` — a client of an existing scheduler: a malformed address is refused at
  once (:func:`check_scheduler_address`), an unreachable one after ``connect_timeout``
  seconds (default :data:`CONNECT_TIMEOUT`), both as
  :class:`~kernelrank.errors.ClusterError` naming the address;
* :func:`cluster_failures` — turns the cluster dying in the middle of a run (the scheduler
  or the last worker lost: ``FuturesCancelledError``, ``CommClosedError``, ``KilledWorker``)
  into a :class:`~kernelrank.errors.ClusterError` saying what is kept and how to resume;
* :func:`process_cluster` — a cluster of separate processes started the way a user starts
  one on the command line (``dask scheduler``, ``dask worker``), on 127.0.0.1: what the
  scale-out test and benchmark of ``ppi extract --scheduler`` run against.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re

from tqdm.auto import tqdm

from kernelrank.errors import ClusterError, InvalidParameterError

__all__ = ["map_tasks", "default_blas_threads", "local_cluster", "connect",
           "check_scheduler_address", "cluster_failures", "quiet_workers", "process_cluster",
           "ProcessCluster", "CONNECT_TIMEOUT"]

#: seconds to wait for an existing scheduler to answer (Dask's own default is 30 s, and it
#: retries beyond it)
CONNECT_TIMEOUT = 10.0

#: the scheme://host:port of a scheduler (tcp, tls, ws, wss, ucx; host a name, IPv4 or
#: [IPv6]); a bare host:port means tcp
_ADDRESS = re.compile(r"(?:(tcp|tls|ws|wss|ucx)://)?(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9_.-]+)"
                      r":([0-9]{1,5})")
#: the address of a cluster in this process (``LocalCluster(processes=False)``)
_INPROC = re.compile(r"inproc://[^/\s]+/[0-9]+/[0-9]+")


def check_scheduler_address(address, option="--scheduler"):
    """``address`` if it is a Dask scheduler address (``tcp://host:port``, also ``tls://``,
    ``ws://``, ``wss://``, ``ucx://``, a bare ``host:port``, or the ``inproc://`` address of
    a cluster in this process); else
    :class:`~kernelrank.errors.ClusterError` at once, naming it and the expected form."""
    if _INPROC.fullmatch(str(address).strip()):
        return str(address).strip()
    m = _ADDRESS.fullmatch(str(address).strip())
    if m is None or not 0 < int(m.group(3)) < 65536:
        raise ClusterError(f"{option} {address!r} is not a Dask scheduler address; give "
                           "tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786 (the address "
                           "`dask scheduler` prints)")
    return str(address).strip()


def local_cluster(n_workers, threads_per_worker=1, processes=True):
    """A ``distributed.LocalCluster`` listening on 127.0.0.1 only: the scheduler (worker
    processes; threads in this process talk in-process), and its HTTP server (dashboard)
    on a free port. Dask starts that HTTP server even with ``dashboard_address=None``, then
    on every interface at port 8787 — hence the explicit loopback address."""
    from dask.distributed import LocalCluster

    with _workers_ignore_ctrl_c(processes):
        return LocalCluster(n_workers=n_workers, threads_per_worker=threads_per_worker,
                            processes=processes, **({"host": "127.0.0.1"} if processes else {}),
                            dashboard_address="127.0.0.1:0", worker_dashboard_address=None)


@contextlib.contextmanager
def _workers_ignore_ctrl_c(processes):
    """Worker processes started in the block ignore SIGINT and SIGTERM (they inherit the
    ignored signals): Ctrl-C in a terminal reaches the whole process group, and so does
    ``kill -TERM -PGID`` (a service manager stopping the command); each worker would print
    its own ``KeyboardInterrupt`` traceback, or die leaving its semaphores, while this
    process — which takes both signals as Ctrl-C (:mod:`kernelrank.exits`) — shuts them
    down."""
    import signal
    import threading

    if not processes or threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = {s: signal.signal(s, signal.SIG_IGN) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


def connect(scheduler, connect_timeout=None, option="--scheduler"):
    """A ``distributed.Client`` of the scheduler at ``scheduler``; a malformed address or
    one that does not answer within ``connect_timeout`` seconds (default
    :data:`CONNECT_TIMEOUT`) is a :class:`~kernelrank.errors.ClusterError`."""
    import dask
    from dask.distributed import Client

    address = check_scheduler_address(scheduler, option)
    timeout = CONNECT_TIMEOUT if connect_timeout is None else float(connect_timeout)
    if not timeout > 0:
        raise InvalidParameterError(f"{option}-timeout must be > 0 seconds, got "
                                    f"{connect_timeout!r}")
    try:
        # the comm timeout bounds each attempt; Client's timeout bounds the whole wait
        with dask.config.set({"distributed.comm.timeouts.connect": f"{timeout}s"}):
            return Client(address, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as exc:
        raise ClusterError(f"cannot reach the Dask scheduler at {option} {address} within "
                           f"{timeout:g} s ({exc.__class__.__name__}: {exc}); check the "
                           "address and that the scheduler is running") from None


def _silence_distributed_logs():
    import logging
    logger = logging.getLogger("distributed")
    previous = logger.level
    logger.setLevel(logging.ERROR)
    return previous


def quiet_workers(client):
    """Silence the warnings of ``client``'s workers before an interrupted run closes them
    (each would log the cancelled task), and of this process, where a local cluster's
    nannies live (a worker slow to stop under load logs "Worker process still alive after
    … seconds, killing"); best effort.  Returns a function that gives this process's
    ``distributed`` logger its level back — call it once the cluster is closed."""
    import logging

    previous = _silence_distributed_logs()
    with contextlib.suppress(Exception):
        client.run(_silence_distributed_logs, on_error="ignore")
    return lambda: logging.getLogger("distributed").setLevel(previous)


def _cluster_failure_types():
    from distributed import CancelledError
    from distributed.comm import CommClosedError
    from distributed.scheduler import KilledWorker
    return (CancelledError, CommClosedError, KilledWorker)


@contextlib.contextmanager
def cluster_failures(where, kept=None):
    """Turn the Dask cluster failing in the block (scheduler or last worker lost) into a
    :class:`~kernelrank.errors.ClusterError`.

    Parameters
    ----------
    where : str          the cluster, for the message (e.g. its address)
    kept : str or None   what survives and how to resume (e.g. "the completed chunks are
                         kept in OUT.parts; rerun the same command to resume")

    Errors raised by the tasks themselves pass unchanged.
    """
    failures = _cluster_failure_types()
    try:
        yield
    except failures as exc:
        detail = " ".join(str(exc).split())[:300] or "-"      # one line, bounded
        raise ClusterError(f"the Dask cluster ({where}) failed in the middle of the run: "
                           f"{exc.__class__.__name__}: {detail}"
                           + (f"; {kept}" if kept else "")) from None


@dataclasses.dataclass
class ProcessCluster:
    """A running :func:`process_cluster`: the scheduler's address, its process and the
    worker processes (``subprocess.Popen``; with Dask's nanny, each worker process is a
    child of its entry here)."""

    address: str
    scheduler: object
    workers: list


@contextlib.contextmanager
def process_cluster(n_workers, directory, *, threads=1, env=None, timeout=120.0):
    """A Dask cluster of separate processes, as started on the command line: one
    ``dask scheduler`` and ``n_workers`` ``dask worker --nworkers 1 --nthreads threads``,
    all listening on 127.0.0.1 at free ports, without dashboards.

    Parameters
    ----------
    n_workers : int
    directory : path     where the processes' logs (``scheduler.log``, ``worker-<k>.log``),
                         the scheduler file and the workers' scratch space go
    threads : int        threads per worker
    env : dict or None   the processes' environment (e.g. ``PYTHONPATH`` so that workers
                         import this checkout); default: this process's
    timeout : float      seconds to wait for the scheduler and for every worker to connect

    Yields
    ------
    ProcessCluster

    Each process runs in a process group of its own; leaving the block, also by an
    exception, sends each group SIGTERM, then SIGKILL to what is left after 10 s.  A process
    that exits early or a cluster not complete within ``timeout`` is a
    :class:`~kernelrank.errors.ClusterError` carrying the end of the processes' logs.
    """
    import json
    import subprocess
    import sys
    import time
    from pathlib import Path

    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    info = directory / "scheduler.json"
    info.unlink(missing_ok=True)
    loopback = ["--host", "127.0.0.1", "--no-dashboard", "--dashboard-address", "127.0.0.1:0"]
    commands = [("scheduler", ["scheduler", "--port", "0", "--scheduler-file", str(info)])]
    commands += [(f"worker-{k}", ["worker", "--scheduler-file", str(info), "--nworkers", "1",
                                  "--nthreads", str(threads), "--local-directory",
                                  str(directory / f"worker-{k}"), "--death-timeout", "60"])
                 for k in range(n_workers)]
    procs, logs = [], []

    def start(name, args):
        log = directory / f"{name}.log"
        logs.append(log)
        with open(log, "wb") as handle:
            procs.append(subprocess.Popen([sys.executable, "-m", "dask", *args, *loopback],
                                          stdout=handle, stderr=subprocess.STDOUT, env=env,
                                          stdin=subprocess.DEVNULL, start_new_session=True))

    def failed(what):
        tails = "; ".join(f"{log.name}: " + " | ".join(
            log.read_text(errors="replace").strip().splitlines()[-3:]) for log in logs)
        return ClusterError(f"the Dask processes in {directory} did not start: {what} "
                            f"({tails})")

    try:
        start(*commands[0])
        deadline = time.monotonic() + timeout
        while not info.exists() or not info.stat().st_size:
            if procs[0].poll() is not None or time.monotonic() > deadline:
                raise failed("no scheduler address")
            time.sleep(0.1)
        time.sleep(0.2)                     # the scheduler writes the file in one go
        address = json.loads(info.read_text())["address"]
        for name, args in commands[1:]:
            start(name, args)
        client = connect(address, max(1.0, deadline - time.monotonic()))
        try:
            while len(client.scheduler_info()["workers"]) < n_workers:
                if any(p.poll() is not None for p in procs) or time.monotonic() > deadline:
                    raise failed(f"{len(client.scheduler_info()['workers'])} of {n_workers} "
                                 "workers connected")
                time.sleep(0.2)
        finally:
            client.close()
        yield ProcessCluster(address, procs[0], procs[1:])
    finally:
        _stop_process_groups(procs[::-1])


def _stop_process_groups(procs, grace=10.0):
    """SIGTERM to each process's group (started with ``start_new_session``: the process and
    its children, e.g. a nanny's worker), then SIGKILL to a group whose leader is still
    alive after ``grace`` seconds."""
    import signal
    import subprocess
    import time

    for p in procs:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(p.pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    for p in procs:
        try:
            p.wait(max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    # the leaders are gone; their groups' other members (a nanny's worker, multiprocessing
    # helpers) may still be exiting: wait for the groups to empty, SIGKILL what remains
    for p in procs:
        while _group_alive(p.pid):
            if time.monotonic() > deadline:
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(p.pid, signal.SIGKILL)
                deadline = time.monotonic() + grace
            time.sleep(0.05)


def _group_alive(pgid):
    """Whether any process of group ``pgid`` still exists (zombies of our own children are
    reaped by ``wait``; others are reaped by init)."""
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def default_blas_threads(jobs=1):
    """BLAS threads per task when ``jobs`` tasks run at once: cores // jobs, at least 1."""
    return max(1, (os.cpu_count() or 1) // max(1, int(jobs or 1)))


def _limited(fn, blas_threads):
    def run(item):
        from threadpoolctl import threadpool_limits

        with threadpool_limits(blas_threads):
            return fn(item)
    return run


def _gather(client, task, items, bar, on_result=None):
    from dask.distributed import as_completed

    futures = [client.submit(task, it, pure=False) for it in items]
    index = {f.key: i for i, f in enumerate(futures)}
    for done in as_completed(futures):
        if on_result is not None:
            on_result(index[done.key], done.result())
        bar.update()
    return [f.result() for f in futures]


def map_tasks(fn, items, *, jobs=1, scheduler=None, processes=False, blas_threads=None,
              desc=None, progress=True, connect_timeout=None, on_result=None):
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
    connect_timeout : float  seconds to wait for ``scheduler`` (default
                             :data:`CONNECT_TIMEOUT`)
    on_result : callable or None
                             ``on_result(i, result)`` is called in this process as soon as
                             the task of ``items[i]`` has finished (in order of completion), so
                             that a long run can keep its finished work (e.g. write it to
                             disk) before the last task ends

    Returns
    -------
    list — results in the order of ``items``.
    """
    items = list(items)
    if jobs is None or int(jobs) < 1:
        raise InvalidParameterError(f"jobs (--jobs) must be ≥ 1, got {jobs!r}")
    bar = tqdm(total=len(items), desc=desc, leave=False, disable=not progress)
    try:
        if scheduler is None and jobs <= 1:
            task = fn if blas_threads is None else _limited(fn, blas_threads)
            out = []
            for i, it in enumerate(items):
                out.append(task(it))
                if on_result is not None:
                    on_result(i, out[-1])
                bar.update()
            return out
        from dask.distributed import Client

        cluster = None
        if scheduler is None:
            if processes:
                cluster = local_cluster(jobs, 1, processes=True)
            else:
                cluster = local_cluster(1, jobs, processes=False)
        try:
            client = (Client(cluster) if cluster is not None
                      else connect(scheduler, connect_timeout))
            with client, cluster_failures(scheduler or "local cluster"):
                n = jobs if scheduler is None else max(
                    1, sum(w.get("nthreads", 1) for w in
                           client.scheduler_info()["workers"].values()))
                threads = blas_threads or default_blas_threads(n)
                if scheduler is None and not processes:
                    # worker threads share this process's BLAS: limit it once for the whole
                    # run (a per-task limit would be undone by whichever task ends first)
                    from threadpoolctl import threadpool_limits
                    with threadpool_limits(threads):
                        return _gather(client, fn, items, bar, on_result)
                return _gather(client, _limited(fn, threads), items, bar, on_result)
        finally:
            if cluster is not None:
                cluster.close()
    finally:
        bar.close()
