"""How a command ends: its summary, its exit code, Ctrl-C and a closed pipe.

:func:`exit_code` runs a command's work with stage lines (``logging`` INFO records of our
packages, :data:`STAGE_LOGGERS`) on stdout and turns its end into an exit code: a
:class:`Summary` — the files it wrote and its headline numbers — which :func:`print_summary`
prints last, with the wall time and the peak memory; ``error: <message>`` on stderr and exit
code 2 for a typed :class:`~kernelrank.errors.KernelrankError` (bad input, missing data,
wrong checksum) or an :class:`OSError` that names a file (disk full, permission denied, a
directory where a file is written: ``error: <path>: <reason>``, :func:`os_error_message`)
— other exceptions are programming errors and keep their traceback; one line,
:data:`INTERRUPTED` (for a command that resumes, :data:`INTERRUPTED_RESUMABLE`), and exit
code 130 for Ctrl-C, also one Python swallowed in a finalizer — and for SIGTERM (``kill
PID``, a service manager stopping the command, a batch system's time limit), which stops the
command exactly as Ctrl-C does (:class:`Terminated`, :func:`_terminate_like_ctrl_c`: the same
line, the same exit code, its locks released and its worker processes shut down); and
:data:`CLOSED_PIPE` without a traceback when the reader of its output went away (``| head``).
"""

import contextlib
import errno
import logging
import os
import resource
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

from kernelrank.errors import KernelrankError
from kernelrank.report import format_duration

__all__ = ["exit_code", "Summary", "print_summary", "peak_memory", "os_error_message",
           "Terminated", "STAGE_LOGGERS", "INTERRUPTED", "INTERRUPTED_RESUMABLE",
           "CLOSED_PIPE"]

#: packages whose INFO log records are the stage lines printed on stdout while a command runs
STAGE_LOGGERS = ("kernelrank", "learners", "corpora", "ppi", "homology", "parse_ranking",
                 "letor")


@dataclass
class Summary:
    """What a subcommand's handler returns: the files it wrote and its headline numbers.

    ``stream="stderr"`` for a command whose stdout is its data (the summary must not mix
    into it); ``code``: the exit code.
    """

    written: list = field(default_factory=list)
    headline: list = field(default_factory=list)
    code: int = 0
    stream: str = "stdout"


def peak_memory():
    """Peak resident memory in bytes of this process and of its largest finished child
    (``resource.getrusage`` RUSAGE_SELF / RUSAGE_CHILDREN ``ru_maxrss``)."""
    unit = 1 if sys.platform == "darwin" else 1024           # bytes on macOS, KiB elsewhere
    return (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * unit,
            resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * unit)


def _megabytes(n):
    return f"{n / 2 ** 20:,.0f} MB"


def print_summary(command, summary, seconds, file=None):
    """The final lines of every command: the files written, the headline numbers, then wall
    time and peak memory (this process; its largest child process)."""
    file = file or (sys.stderr if summary.stream == "stderr" else sys.stdout)
    me, children = peak_memory()
    lines = [f"wrote {p}" for p in summary.written]
    lines += [str(h) for h in summary.headline]
    status = "done" if summary.code == 0 else f"finished with exit code {summary.code}"
    lines.append(f"{command}: {status} in {format_duration(seconds)}, peak memory "
                 f"{_megabytes(me)} (child processes {_megabytes(children)})")
    print("\n".join(lines), file=file, flush=True)


class _Stdout(logging.StreamHandler):
    """Writes to whatever ``sys.stdout`` is when a record is emitted (pytest swaps it)."""

    def __init__(self):
        super().__init__(sys.stdout)
        self.setFormatter(logging.Formatter("%(message)s"))

    def emit(self, record):
        self.setStream(sys.stdout)
        super().emit(record)


@contextlib.contextmanager
def _stage_lines():
    """While a command runs, the INFO records of our packages are printed on stdout."""
    handler, saved = _Stdout(), []
    for name in STAGE_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, logger.level))
        logger.setLevel(logging.INFO)
        logger.addHandler(handler)
    try:
        yield
    finally:
        for logger, level in saved:
            logger.removeHandler(handler)
            logger.setLevel(level)


#: the last line of a command interrupted by Ctrl-C
INTERRUPTED = "interrupted"
INTERRUPTED_RESUMABLE = ("interrupted; rerun the same command to resume (completed chunks "
                         "are kept)")


def os_error_message(exc, resumes=False):
    """The one-line message of an :class:`OSError` naming a file: the path, the reason and
    what to do when the disk is full."""
    text = f"{exc.filename}: {exc.strerror or exc}"
    if exc.filename2 is not None:
        text = f"{exc.filename} → {exc.filename2}: {exc.strerror or exc}"
    if exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        text += "; free some disk space, then rerun the same command" + (
            " to resume (completed chunks are kept)" if resumes else "")
    return text


@contextlib.contextmanager
def _redeliver_swallowed_interrupts():
    """Re-raise a Ctrl-C that Python swallowed.

    A ``KeyboardInterrupt`` raised while Python runs a finalizer (a ``__del__``, a ``gc``
    callback — Dask's futures and its GC diagnostics have both) cannot propagate: Python prints
    "Exception ignored in …" through :data:`sys.unraisablehook` and goes on, so the run
    would ignore the user's Ctrl-C. While the block runs, such an interrupt is not printed but
    sent again to the main thread 50 ms later from a timer thread (``signal.pthread_kill``): its handler
    raises it in ordinary code, where it stops the run like any other Ctrl-C (should it land
    in a finalizer again, it is sent again). Other unraisable
    exceptions go to the previous hook unchanged.
    """
    previous = sys.unraisablehook

    def hook(unraisable):
        if isinstance(unraisable.exc_value, KeyboardInterrupt):
            # sent again from another thread: by the time it runs, the main thread has left
            # the finalizer (raising it here would be swallowed again); a real signal also
            # interrupts a blocking wait, as the user's Ctrl-C did
            resend = threading.Timer(0.05, signal.pthread_kill,
                                     (threading.main_thread().ident, signal.SIGINT))
            resend.daemon = True
            pending.append(resend)
            resend.start()
            return
        previous(unraisable)

    pending = []
    sys.unraisablehook = hook
    try:
        yield
        if pending:                  # the block ended before the interrupt came back
            raise KeyboardInterrupt
    finally:
        sys.unraisablehook = previous
        for resend in pending:
            resend.cancel()


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread while a command runs
    (:func:`_terminate_like_ctrl_c`): a :class:`KeyboardInterrupt`, so that everything that
    cleans up after Ctrl-C — locks, temporary files, a local Dask cluster and its worker
    processes — does so after SIGTERM too."""


@contextlib.contextmanager
def _terminate_like_ctrl_c():
    """While the block runs in the main thread, SIGTERM raises :class:`Terminated` there.

    Without it SIGTERM ends the process at once: no "interrupted; rerun …" line, the lock of
    a resumable run left for the next run to take over, the worker processes of a local
    Dask cluster killed with their semaphores (the ``resource_tracker`` warns of leaked
    ones). The first SIGTERM raises; any further one while the command cleans up is ignored
    (a service manager that insists sends SIGKILL). A SIGTERM disposition other than the
    default — ignored by the parent, or handled by a program embedding the command — is
    left as it is; the previous one is restored when the block ends.
    """
    if (threading.current_thread() is not threading.main_thread()
            or signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL):
        yield
        return
    raised = []

    def handler(signum, frame):
        if not raised:
            raised.append(signum)
            raise Terminated
    signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def _quiet_exit_after_interrupt():
    """After a Ctrl-C, keep the exit to the one line already printed: drop the error
    CPython 3.11 may report while the interpreter shuts down when a
    :class:`concurrent.futures.ProcessPoolExecutor` was left by ``shutdown(wait=False)``
    (``parse_ranking build --jobs N``): its exit hook, run from ``threading._shutdown``,
    writes to the executor's wake-up pipe its manager thread has already closed —
    ``OSError: [Errno 9] Bad file descriptor``, printed as "Exception ignored in: <module
    'threading'>" (a race of the standard library, python/cpython#125451's family;
    nothing of the run is lost). Every other unraisable exception still goes to the
    previous hook."""
    previous = sys.unraisablehook

    def hook(unraisable):
        exc = unraisable.exc_value
        if (isinstance(exc, OSError) and exc.errno == errno.EBADF
                and getattr(unraisable.object, "__name__", None) == "threading"):
            return
        previous(unraisable)

    sys.unraisablehook = hook


def exit_code(run, *args, name=None, resumes=False):
    """Call ``run(*args)`` and return a process exit code.

    Its return value (None = 0; a :class:`Summary` is printed and gives its ``code``); or 2
    after printing ``error: <message>`` to stderr when it raises a
    :class:`~kernelrank.errors.KernelrankError` or an :class:`OSError` naming a file (other
    exceptions propagate with their traceback); or 130 after printing one line when it is
    interrupted (Ctrl-C, also one that arrives inside a finalizer:
    :func:`_redeliver_swallowed_interrupts`, or SIGTERM: :func:`_terminate_like_ctrl_c`;
    ``resumes``: the line says how to resume). Also for scripts without subcommands.
    """
    start = time.perf_counter()
    try:
        with _terminate_like_ctrl_c(), _stage_lines(), _redeliver_swallowed_interrupts():
            result = run(*args)
    except BrokenPipeError:
        return _closed_pipe()
    except KernelrankError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        if exc.filename is None:
            raise
        print(f"error: {os_error_message(exc, resumes)}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print(INTERRUPTED_RESUMABLE if resumes else INTERRUPTED, file=sys.stderr, flush=True)
        _quiet_exit_after_interrupt()
        return 130
    if isinstance(result, Summary):
        try:
            print_summary(name or os.path.basename(sys.argv[0]), result,
                          time.perf_counter() - start)
        except BrokenPipeError:
            return _closed_pipe()
        return int(result.code)
    return 0 if result is None else int(result)


#: the exit code of a command whose output pipe was closed by its reader (``| head``):
#: 128 + SIGPIPE, what the shell reports for a program SIGPIPE ends
CLOSED_PIPE = 141


def _closed_pipe():
    """After a write to a pipe its reader has closed (``ppi … | head -1``): no traceback.
    The rest of the output goes to ``/dev/null``, so that the interpreter's own flush at exit
    does not fail again (the recipe of Python's :mod:`signal` documentation, "Note on
    SIGPIPE"); returns :data:`CLOSED_PIPE`.  Files the command wrote are complete: they are
    written atomically, before the summary."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    for stream in (sys.stdout, sys.stderr):
        try:
            os.dup2(devnull, stream.fileno())
        except (OSError, ValueError):       # not a real file (pytest's capture)
            pass
    os.close(devnull)
    return CLOSED_PIPE
