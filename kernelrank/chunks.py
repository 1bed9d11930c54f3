"""A resumable map of a function over the chunks of an input, into one output file.

A long run (``ppi extract`` over millions of abstracts) must survive a kill, a Ctrl-C or a
lost cluster without losing or repeating work.  :func:`map_chunks` is that run, once for
every package:

* **chunks** — the input is a sequence of *chunks* (any picklable objects, typically lists
  of records from :func:`chunked`); chunk *k* is the *k*-th item of the iterable, so it must
  be the same on every run with the same fingerprint (a fixed chunk size over an input
  whose content the fingerprint holds);
* **the function** — ``fn(chunk, shared, *args)`` (``fn(chunk, *args)`` without ``shared``)
  returns ``(text, counts)``: the chunk's part of the output (a string) and a dict of
  numbers about it (records, pairs, …) that the run sums over the chunks;
* **parts** (:class:`ChunkParts`) — each finished chunk is written atomically to
  ``OUT.parts/chunk-<k>.<ext>`` (after its counts, ``chunk-<k>.counts.json``;
  ``<k>`` six digits or more); ``OUT.parts/run.json`` holds the run's fingerprint;
* **resume** — a chunk is done when its part exists.  A rerun with the same fingerprint
  skips the done chunks (they are still read from the iterable, which numbers them) and
  computes the others; a different fingerprint is refused, naming the keys that differ, and
  so is an unreadable ``run.json`` (not a JSON object holding every key of the fingerprint);
  ``overwrite`` (``--overwrite``) starts afresh: the parts and ``OUT`` are removed first.
  Temporary files of a killed run are deleted on the rerun;
* **the output** — when every chunk is done, ``OUT`` is written atomically: ``header``, then
  the parts in chunk order; ``OUT.parts`` is then removed.  ``OUT`` existing without
  ``OUT.parts`` is a finished run, refused unless ``--overwrite``;
* **the lock** — the run holds :func:`kernelrank.lock.output_lock` of ``OUT``, so a second
  run on the same output stops at once instead of interleaving with it;
* **where** — ``jobs=0`` without a scheduler: in this process, one chunk at a time, in
  order; else on a local Dask cluster of ``jobs`` worker processes (default: the machine's
  CPU count; :func:`kernelrank.parallel.local_cluster`, on 127.0.0.1) or on the existing
  cluster at ``scheduler`` (:func:`kernelrank.parallel.connect`: a malformed or unreachable
  address is an error before the parts directory is made).  ``shared`` is broadcast once to
  every worker; at most :data:`IN_FLIGHT_PER_WORKER` × workers chunks are in flight, so
  memory stays flat however long the input; the driver reads the chunks and writes the
  parts;
* **failures** — Ctrl-C removes the temporary files and lets the ``KeyboardInterrupt``
  through (:func:`kernelrank.cli.exit_code` with ``resumes=True`` then says how to
  resume); the cluster failing in the middle of the run (scheduler or last worker lost) is a
  :class:`~kernelrank.errors.ClusterError` saying that the completed chunks are kept and
  that the same command resumes (:func:`kernelrank.parallel.cluster_failures`).  An error
  raised by ``fn`` passes unchanged; the chunks written before it are kept.

Guarantees: a part is complete or absent, and so is ``OUT``; for a deterministic ``fn``,
``OUT`` is byte for byte the same however many times the run was interrupted and resumed, in
this process or on any cluster, whatever order the chunks finished in.

Complexity: one call of ``fn`` per chunk not yet done; the driver holds at most the chunks in
flight (one in this process); resuming lists the parts directory once, O(parts); the
assembly streams the parts (1 MiB blocks, O(output) time, O(1) memory).
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import time
from pathlib import Path

from kernelrank.atomic import atomic_open, dumps_strict, write_json
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from kernelrank.lock import output_lock

__all__ = ["map_chunks", "ChunkRun", "ChunkParts", "chunked", "parts_path",
           "IN_FLIGHT_PER_WORKER"]

#: chunks in flight per Dask worker: one computing, one waiting, so that a worker never idles
#: while the driver writes a part
IN_FLIGHT_PER_WORKER = 2


def chunked(items, size):
    """Consecutive lists of ``size`` items of the iterable ``items`` (the last one shorter),
    read lazily: chunk *k* holds items ``k·size … (k+1)·size − 1``.

    Raises :class:`~kernelrank.errors.InvalidParameterError` when ``size < 1``.
    """
    if size < 1:
        raise InvalidParameterError(f"chunk size {size}; must be ≥ 1")
    return _chunked(items, size)


def _chunked(items, size):
    chunk = []
    for x in items:
        chunk.append(x)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def parts_path(output):
    """The parts directory of ``output``: ``<output>.parts`` beside it."""
    output = Path(output)
    return output.with_name(output.name + ".parts")


@dataclasses.dataclass(frozen=True)
class ChunkRun:
    """What :func:`map_chunks` did.

    Attributes
    ----------
    chunks : int
        The chunks of the input (when not ``complete``: those read before the run stopped).
    resumed : int
        Chunks found done in the parts directory, not computed again.
    computed : int
        Chunks computed by this run.
    totals : dict
        Every ``counts`` key summed over all chunks (``{}`` when not ``complete``).
    complete : bool
        Whether the output was assembled; False when the run stopped at ``max_new``.
    """

    chunks: int
    resumed: int
    computed: int
    totals: dict
    complete: bool


class ChunkParts:
    """The parts directory ``<output>.parts`` of a chunk map (module docstring).

    Parameters
    ----------
    output : str or path-like
        The final output file.
    ext : str
        The extension of the parts (``jsonl``: ``chunk-000000.jsonl``, …).
    overwrite_option : str
        The option that starts afresh, for the messages (default ``--overwrite``).
    """

    def __init__(self, output, ext, overwrite_option="--overwrite"):
        self.output = Path(output)
        self.dir = parts_path(output)
        self.ext = ext
        self.overwrite_option = overwrite_option
        self._name = re.compile(rf"chunk-([0-9]{{6,}})\.{re.escape(ext)}")

    def part(self, k):
        """The part file of chunk ``k``."""
        return self.dir / f"chunk-{k:06d}.{self.ext}"

    def counts(self, k):
        """The counts file of chunk ``k``."""
        return self.dir / f"chunk-{k:06d}.counts.json"

    def start(self, fingerprint, overwrite=False):
        """Make the directory ready for the run ``fingerprint`` and return the set of the
        chunks already done (those whose part exists).

        ``overwrite``: remove the parts and the output first.  Otherwise an output without
        parts (a finished run) is an :class:`~kernelrank.errors.InvalidParameterError`, so is
        a ``run.json`` of another fingerprint (naming the keys that differ), and an unreadable
        one (not a JSON object holding every key of ``fingerprint``) is a
        :class:`~kernelrank.errors.CorpusFormatError`.  Removes the temporary files
        of a killed run and records ``fingerprint`` in ``run.json``.
        """
        fingerprint = json.loads(dumps_strict(fingerprint))      # as it reads back
        opt = self.overwrite_option
        if overwrite:
            shutil.rmtree(self.dir, ignore_errors=True)
            if self.output.exists():
                self.output.unlink()
        elif self.output.exists() and not self.dir.exists():
            raise InvalidParameterError(f"{self.output} exists (a finished run); pass "
                                        f"{opt} to replace it")
        run = self.dir / "run.json"
        if run.exists():
            old = self._read_run(run, fingerprint)
            if old != fingerprint:
                diff = sorted(k for k in set(old) | set(fingerprint)
                              if old.get(k) != fingerprint.get(k))
                raise InvalidParameterError(
                    f"{self.dir} holds chunks of a different run (differs in {', '.join(diff)});"
                    f" rerun the same command to resume, or pass {opt} to start afresh")
        self.dir.mkdir(parents=True, exist_ok=True)
        self.remove_temporary()                      # left by a killed run
        write_json(run, fingerprint)
        return {int(m.group(1)) for p in self.dir.iterdir()
                if (m := self._name.fullmatch(p.name))}

    def remove_temporary(self):
        """Remove the temporary files of unfinished part writes (``.*.tmp``): a killed run's,
        or one an interrupt left — Ctrl-C can land inside :func:`tempfile.mkstemp`, after the
        file exists and before :func:`kernelrank.atomic.atomic_open` can clean it up."""
        for tmp in self.dir.glob(".*.tmp"):
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def _read_run(self, run, fingerprint):
        """The fingerprint stored in ``run.json``; a CorpusFormatError naming it when it is
        not a JSON object with the fingerprint's keys (truncated, edited, another file)."""
        try:
            old = json.loads(run.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError) as exc:
            problem = f"not JSON ({exc.__class__.__name__}: {exc})"
        else:
            missing = (sorted(set(fingerprint) - set(old)) if isinstance(old, dict) else None)
            if missing is None:
                problem = f"a JSON {type(old).__name__}, not an object"
            elif missing:
                problem = f"lacks {', '.join(missing)}"
            else:
                return old
        raise CorpusFormatError(f"the record of an unfinished run is unreadable: {problem}; "
                                f"pass {self.overwrite_option} to start afresh (discards the "
                                f"chunks in {self.dir})", path=run)

    def write(self, k, text, counts):
        """Write chunk ``k``: its ``counts``, then its part ``text``, each atomically (the part
        last: when it exists, the chunk is done)."""
        write_json(self.counts(k), counts)
        with atomic_open(self.part(k)) as handle:
            handle.write(text)

    def assemble(self, n_chunks, header=""):
        """Write the output atomically — ``header``, then the parts of chunks ``0 …
        n_chunks − 1`` in order — remove the parts directory, and return the counts summed
        over the chunks."""
        total = {}
        with atomic_open(self.output) as out:
            if header:
                out.write(header)
            for k in range(n_chunks):
                with open(self.part(k), encoding="utf-8") as handle:
                    shutil.copyfileobj(handle, out, 1 << 20)
                c = json.loads(self.counts(k).read_text(encoding="utf-8"))
                for key, v in c.items():
                    total[key] = total.get(key, 0) + v
        shutil.rmtree(self.dir)
        return total


def map_chunks(fn, chunks, output, *, fingerprint, ext, shared=None, args=(), header="",
               jobs=None, scheduler=None, connect_timeout=None, overwrite=False,
               max_new=None, progress=None, name="chunk", lock=True, command=None,
               overwrite_option="--overwrite"):
    """Map ``fn`` over ``chunks`` into ``output``, resumably (module docstring).

    Parameters
    ----------
    fn : callable
        ``fn(chunk, shared, *args) -> (text, counts)`` (``fn(chunk, *args)`` when ``shared``
        is None): the chunk's part of the output and a dict of numbers about it (JSON).  Must
        be picklable (a module-level function) unless ``jobs=0``.
    chunks : iterable
        The chunks, read once, lazily, in order (e.g. :func:`chunked`); chunk *k* must be
        the same on every run of the same ``fingerprint``.
    output : str or path-like
        The output file; the parts go to ``<output>.parts`` (:class:`ChunkParts`).
    fingerprint : dict or callable
        The identity of the run (JSON data: its settings and hashes of what it reads); a
        rerun resumes only the parts of an equal fingerprint.  A callable is called once the
        scheduler has answered (so an unreachable one is said before the input is hashed).
    ext : str
        The extension of the part files.
    shared : object, optional
        Passed to every call of ``fn``; broadcast once to every Dask worker.
    args : tuple
        More arguments of every call of ``fn`` (sent with each chunk).
    header : str
        Written at the top of the output.
    jobs : int or None
        0: in this process; n ≥ 1: a local Dask cluster of n worker processes; None: of the
        machine's CPU count.  Ignored with ``scheduler``.
    scheduler : str or None
        The address of an existing Dask scheduler (``tcp://host:port``).
    connect_timeout : float or None
        Seconds to wait for ``scheduler`` (default
        :data:`kernelrank.parallel.CONNECT_TIMEOUT`).
    overwrite : bool
        Remove the parts and the output of an earlier run first.
    max_new : int or None
        Stop after computing that many chunks, without assembling the output (to test and
        demonstrate resuming).
    progress : callable or None
        ``progress()`` is called once the parts are ready and returns a reporter:
        ``reporter.update(counts)`` after each part is written, ``reporter.close()`` when
        the run ends, however it ends.
    name : str
        Names the Dask tasks (``<name>-chunk-<k>-…``).
    lock : bool
        Hold :func:`kernelrank.lock.output_lock` of ``output`` during the run; False when
        the caller holds it already (e.g. from before it loads its inputs).
    command : str or None
        The command line recorded in the lock (default ``sys.argv``).
    overwrite_option : str
        The option that sets ``overwrite``, for the messages.

    Returns
    -------
    ChunkRun

    Raises
    ------
    InvalidParameterError
        ``jobs < 0``; an output of a finished run, or parts of another fingerprint, without
        ``overwrite``.
    CorpusFormatError
        An unreadable ``run.json``.
    ClusterError
        A malformed or unreachable ``scheduler``; the cluster lost in the middle of the run
        (the message says that the completed chunks are kept and how to resume).
    OutputLockedError
        Another live run holds the output's lock.
    """
    if jobs is not None and jobs < 0:
        raise InvalidParameterError(f"jobs {jobs}; give the number of local Dask worker "
                                    "processes (≥ 1), or 0 to run in this process")
    with output_lock(output, command) if lock else contextlib.nullcontext():
        return _map_chunks(fn, chunks, ChunkParts(output, ext, overwrite_option),
                           fingerprint=fingerprint, shared=shared, args=tuple(args),
                           header=header, jobs=jobs, scheduler=scheduler,
                           connect_timeout=connect_timeout, overwrite=overwrite,
                           max_new=max_new, progress=progress, name=name)


def _map_chunks(fn, chunks, parts, *, fingerprint, shared, args, header, jobs, scheduler,
                connect_timeout, overwrite, max_new, progress, name):
    """:func:`map_chunks` while holding the output's lock."""
    call_args = args if shared is None else (shared, *args)
    n_chunks = new = resumed = 0
    reporter = client = cluster = restore_logs = None
    try:
        if scheduler is not None:         # before the parts: a scheduler that does not
            from kernelrank.parallel import connect       # answer leaves nothing behind
            client = connect(scheduler, connect_timeout)
        done = parts.start(fingerprint() if callable(fingerprint) else fingerprint, overwrite)
        reporter = progress() if progress is not None else None

        def finish(k, result):
            text, counts = result
            parts.write(k, text, counts)
            if reporter is not None:
                reporter.update(counts)

        if jobs == 0 and scheduler is None:          # this process, one chunk at a time
            def submit(k, chunk):
                finish(k, fn(chunk, *call_args))

            def drain(block_until):
                pass
        else:
            from distributed import Client, wait

            from kernelrank.parallel import cluster_failures, local_cluster
            if scheduler is None:
                cluster = local_cluster(jobs or os.cpu_count() or 1, 1, processes=True)
                client = Client(cluster)
            where = scheduler or f"local cluster {cluster.scheduler_address}"

            def failures():
                return cluster_failures(where, f"the completed chunks are kept in "
                                               f"{parts.dir}; rerun the same command to resume")
            with failures():
                n_workers = max(1, len(client.scheduler_info()["workers"]))
                if shared is not None:
                    call_args = (client.scatter(shared, broadcast=True), *args)
            inflight = {}

            def drain(block_until):
                with failures():
                    while len(inflight) > block_until:
                        finished, _ = wait(list(inflight), return_when="FIRST_COMPLETED")
                        for f in finished:
                            finish(inflight.pop(f), f.result())

            def submit(k, chunk):
                f = client.submit(fn, chunk, *call_args, pure=False,
                                  key=f"{name}-chunk-{k}-{os.getpid()}-{time.time_ns()}")
                inflight[f] = k
                drain(IN_FLIGHT_PER_WORKER * n_workers - 1)

        for k, chunk in enumerate(chunks):
            n_chunks = k + 1
            if k in done:
                resumed += 1
                continue
            if max_new is not None and new >= max_new:
                drain(0)
                return ChunkRun(n_chunks, resumed, new, {}, False)
            submit(k, chunk)
            new += 1
        drain(0)
    except KeyboardInterrupt:
        parts.remove_temporary()                 # completed chunks stay; no half-written one
        if cluster is not None:                  # our own workers: a quiet shutdown
            from kernelrank.parallel import quiet_workers
            restore_logs = quiet_workers(client)
        raise
    finally:
        if reporter is not None:
            reporter.close()
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()
        if restore_logs is not None:
            restore_logs()
    return ChunkRun(n_chunks, resumed, new, parts.assemble(n_chunks, header), True)
