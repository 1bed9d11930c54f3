"""One run per output: an exclusive lock on every output a run appends to or resumes.

``ppi extract`` (its ``OUT`` and ``OUT.parts``) and ``parse_ranking build`` (its ``.jsonl``)
write an output across many steps and resume it after a crash. Two runs on the same output
would interleave: records written twice, a chunk deleted under the other run's feet. Such a
run therefore holds :func:`output_lock` on its output for its whole duration:

* the lock is the file ``<output>.lock``, locked with ``fcntl.flock`` (exclusive,
  non-blocking) and holding a JSON line with the holder's PID, host, start time and command
  line — for the message of a second run, and for a person looking at the folder;
* a second run on the same output refuses **at once** with
  :class:`~kernelrank.errors.OutputLockedError` naming the holder (it does not wait);
* the operating system releases a ``flock`` when its process ends, however it ends (also
  ``kill -9``), so a lock file left behind by a dead run is not locked: the next run takes
  it over and logs a message naming the dead holder;
* the lock is released (file removed, then unlocked) when the block ends — on success, on
  an error and on Ctrl-C.

``flock`` locks an open file, not a name: after acquiring it the holder checks that the file
it locked is still the one at ``<output>.lock`` (a run that ended may have removed it in
between) and tries again otherwise, so two runs can never both believe they hold it.
"""

import contextlib
import fcntl
import json
import logging
import os
import socket
import sys
import time
from pathlib import Path

from kernelrank.errors import OutputLockedError

__all__ = ["output_lock", "lock_path", "read_holder"]

log = logging.getLogger(__name__)


def lock_path(output):
    """The lock file of ``output``: ``<output>.lock`` beside it."""
    output = Path(output)
    return output.with_name(output.name + ".lock")


def read_holder(path):
    """The holder record (dict) in the lock file ``path``; ``{}`` when absent or unreadable
    (a lock file is only informative — the ``flock`` decides)."""
    try:
        holder = json.loads(Path(path).read_text(encoding="utf-8") or "{}")
    except (OSError, ValueError):
        return {}
    return holder if isinstance(holder, dict) else {}


def _describe(holder):
    if not holder:
        return "a run whose details are unknown"
    text = f"PID {holder.get('pid', '?')} on host {holder.get('host', '?')}, started " \
           f"{holder.get('started', '?')}"
    if holder.get("command"):
        text += f" ({holder['command']})"
    return text


def _acquire(path):
    """Open, lock and verify ``path``; return the file descriptor, or None when another live
    process holds the lock."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                current = os.path.samestat(os.fstat(fd), os.stat(path))
            except FileNotFoundError:
                current = False
            os.close(fd)
            if current:
                return None
            continue                 # its holder is just removing it: try again
        except BaseException:
            os.close(fd)
            raise
        try:
            same = os.path.samestat(os.fstat(fd), os.stat(path))
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)                 # the previous holder removed it meanwhile: try again


@contextlib.contextmanager
def output_lock(output, command=None):
    """Hold the exclusive lock of ``output`` for the block (module docstring).

    Parameters
    ----------
    output : str or path-like
        The output a run writes; the lock is ``<output>.lock``.
    command : str, optional
        The command line to record (default: this process's ``sys.argv``).

    Yields
    ------
    pathlib.Path — the lock file.

    Raises
    ------
    OutputLockedError
        At once, when another live run holds the lock; the message names its PID, host,
        start time and command line.
    """
    path = lock_path(output)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = _acquire(path)
    if fd is None:
        holder = read_holder(path)
        raise OutputLockedError(
            f"{output} is being written by another run: {_describe(holder)}; wait for it to "
            f"end or stop it, then rerun (a run that was killed releases the lock {path} by "
            "itself)")
    try:
        previous = read_holder(path)
        if previous:
            log.warning("taking over the stale lock %s of a run that has ended (%s)", path,
                        _describe(previous))
        record = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                  "command": command if command is not None else " ".join(sys.argv)}
        os.ftruncate(fd, 0)
        os.pwrite(fd, (json.dumps(record) + "\n").encode("utf-8"), 0)
        yield path
    finally:
        # remove while still locked, then unlock: a waiter that opened the old file sees by
        # the stat check that it is gone and retries on a fresh one
        with contextlib.suppress(FileNotFoundError):
            os.unlink(path)
        os.close(fd)
