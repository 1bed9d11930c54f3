"""The one command-line convention of the five kernelrank commands (``learners letor``,
``corpora``, ``ppi``, ``homology``, ``parse_ranking``).

Shared options — added to a subcommand's parser by :func:`add_common` (or one helper each),
never re-declared by a command; every subcommand accepts the first six
(:data:`COMMON_OPTIONS`): where one means nothing, :func:`complete_common` adds it as a
documented no-op ("accepted for a uniform command line; has no effect here"), so a script
can pass the same options to every subcommand:

* ``--data-dir D`` — where data sets are read (else ``$KERNELRANK_DATA``, else the cache);
* ``--output-dir O`` — where ``results.json`` + ``results.md`` (+ the PNGs it embeds) are
  written; default ``results/<command>-<subcommand>``;
* ``--seed N`` — the random seed (default 0); where nothing is random, its help says so;
* ``--quiet`` — no progress bars (stage lines and the final summary are still printed);
* ``--threads N`` — BLAS threads; ``--jobs N`` — parallel (Dask) workers;
* ``--alphas GRID`` — a λ grid, one syntax everywhere (:func:`parse_grid`).

Running (:func:`run_subcommand`): complete the parser (:func:`command_parser`: ``--version``
and the common options of every subcommand); parse the
arguments; with no subcommand print the help; run the handler with stage lines (``logging``
INFO records of our packages) on stdout; a handler returns a :class:`Summary` — the files it
wrote and its headline numbers — which :func:`print_summary` prints last, with the wall time
and the peak memory. A typed :class:`~kernelrank.errors.KernelrankError` (bad input, missing
data, wrong checksum) becomes ``error: <message>`` on stderr and exit code 2 instead of a
traceback; so does an :class:`OSError` that names a file (disk full, permission denied, a
directory where a file is written: ``error: <path>: <reason>``) — other exceptions are
programming errors and keep their traceback. Ctrl-C ends with one line, ``interrupted`` (for
a command that resumes — its parser sets ``resumes=True`` with ``set_defaults`` —
``interrupted; rerun the same command to resume …``), and exit code 130; the command's locks
and temporary files are released on the way out. An ``--output-dir`` naming an existing file
is refused before the command starts.

Checks before any work (:class:`Checks`, one per subcommand, given to
:func:`run_subcommand`): every number of the command line within its bounds
(:func:`check_numbers`: finite, in range, a list at most :data:`MAX_GRID` long — a value far
beyond what the work needs is refused instead of sizing memory or time by it), and no output
naming an input (:mod:`kernelrank.paths`: the command's declared inputs are then protected
from every atomic writer while it runs).

Nothing here imports NumPy or any other heavy package: building a parser stays cheap, so
``--help`` answers at once.
"""

import contextlib
import errno
import logging
import math
import os
import re
import resource
import shlex
import signal
import sys
import threading
import time
from dataclasses import dataclass, field

from kernelrank.errors import InvalidParameterError, KernelrankError
from kernelrank.paths import PathSpec, protected, refuse_overwriting_inputs
from kernelrank.report import format_duration

__all__ = ["add_common", "add_data_dir", "add_output_dir", "add_seed", "add_quiet",
           "add_threads", "add_jobs", "add_alphas", "parse_grid", "thread_limit", "Summary",
           "print_summary", "peak_memory", "run_subcommand", "exit_code", "check_output_dir",
           "add_version", "Checks", "check_numbers", "subcommand_parsers", "MAX_GRID",
           "COMMON_BOUNDS", "COMMON_OPTIONS", "complete_common", "command_parser"]

#: packages whose INFO log records are the stage lines printed on stdout while a command runs
STAGE_LOGGERS = ("kernelrank", "learners", "corpora", "ppi", "homology", "parse_ranking",
                 "letor")

GRID_SYNTAX = ("comma-separated positive numbers: 0.5, 1e-3, powers 2^-10, ranges of powers "
               "2^-10..2^10 (every power) or 2^-8..2^16:2 (every second one)")


# ----------------------------------------------------------------------------- options
def add_data_dir(parser, what="the data sets"):
    """``--data-dir``: the data folder (else ``$KERNELRANK_DATA``, else the user cache)."""
    parser.add_argument("--data-dir", default=None, metavar="DIR",
                        help=f"folder holding {what} (default: $KERNELRANK_DATA, else the "
                             "user cache where `python -m corpora fetch` puts them)")


def add_output_dir(parser, default=None, help=None):
    """``--output-dir``, by default ``results/<prog>-<subcommand>`` (e.g. ``results/ppi-cv``);
    ``help`` replaces the standard help text (for a command whose default differs)."""
    default = "results/" + "-".join(parser.prog.split()) if default is None else default
    parser.add_argument("--output-dir", default=default, metavar="DIR",
                        help=help or "where results.json and results.md (with its PNG plots) "
                                     "are written (default: %(default)s)")


def add_seed(parser, random=True):
    """``--seed`` (default 0); ``random``: True, a string saying what the seed controls, or
    False (its help says that nothing is random)."""
    parser.add_argument("--seed", type=int, default=0,
                        help="random seed (default 0)" if random is True else
                        f"random seed (default 0): {random}" if random else
                        "accepted for uniformity; nothing in this command is random")


def add_quiet(parser):
    """``--quiet``: no progress bars (the stage lines and the final summary still print)."""
    parser.add_argument("--quiet", action="store_true",
                        help="no progress bars (stage lines and the final summary still print)")


def add_threads(parser, default=None, per_job=False):
    """``--threads``: BLAS threads (default ``None``: BLAS's own, the machine's cores —
    divided by ``--jobs`` when ``per_job``, see :func:`thread_limit`)."""
    parser.add_argument("--threads", type=int, default=default, metavar="N",
                        help="BLAS threads (default: " + (
                            str(default) if default is not None else "the machine's cores"
                            + (" divided by --jobs" if per_job else "")) + ")")


def add_jobs(parser, default=1, help=None):
    """``--jobs``: parallel workers; ``help`` replaces the standard text (other semantics)."""
    parser.add_argument("--jobs", type=int, default=default, metavar="N",
                        help=help or "parallel workers, a local Dask cluster when > 1 "
                                     "(default: %(default)s)")


def add_alphas(parser, default="the command's own grid", flag="--alphas", what="λ grid"):
    """A grid option (``--alphas`` unless ``flag``) in the :func:`parse_grid` syntax; the
    value stays a string until the handler parses it (so a bad grid is a typed error)."""
    parser.add_argument(flag, default=None, metavar="GRID",
                        help=f"{what}: {GRID_SYNTAX} (default: {default})")


def add_common(parser, *, data_dir=False, output_dir=False, seed=True, quiet=True,
               threads=False, jobs=False):
    """Add the shared options a subcommand has.

    Parameters
    ----------
    data_dir : bool or str         True, or what the data folder holds (for the help)
    output_dir : bool or str       True, or the default folder
    seed : bool or str             True: random; False: nothing is random; a string: what
                                   the seed controls
    quiet, threads, jobs : bool, or the default value for threads / jobs (an int)
    """
    if data_dir:
        add_data_dir(parser, *([data_dir] if isinstance(data_dir, str) else []))
    if output_dir:
        add_output_dir(parser, output_dir if isinstance(output_dir, str) else None)
    add_seed(parser, seed)
    if quiet:
        add_quiet(parser)
    if jobs is not False:
        add_jobs(parser, *([jobs] if jobs is not True else []))
    if threads is not False:
        add_threads(parser, None if threads is True else threads, per_job=jobs is not False)


#: the options every subcommand of every command accepts (:func:`complete_common`)
COMMON_OPTIONS = ("--data-dir", "--output-dir", "--seed", "--quiet", "--threads", "--jobs")
#: the help of a common option that means nothing to a subcommand
NO_EFFECT = "accepted for a uniform command line; has no effect here"
#: how :func:`complete_common` declares each no-op option (the defaults the handlers assume
#: when the option is absent: no data folder, no output folder, seed 0, not quiet, BLAS's
#: own threads, one job)
_NO_OP = {"--data-dir": {"default": None, "metavar": "DIR"},
          "--output-dir": {"default": None, "metavar": "DIR"},
          "--seed": {"type": int, "default": 0},
          "--quiet": {"action": "store_true"},
          "--threads": {"type": int, "default": None, "metavar": "N"},
          "--jobs": {"type": int, "default": 1, "metavar": "N"}}


def complete_common(parser):
    """Give every subcommand of ``parser`` (at any depth) each option of
    :data:`COMMON_OPTIONS` it lacks, as a no-op documented in its ``--help``
    (:data:`NO_EFFECT`); returns ``parser``. Idempotent; O(options of the subcommands).

    This is the one place the common options reach every subcommand
    (:func:`run_subcommand` calls it through :func:`command_parser`), so a subcommand
    cannot forget one: ``ppi predict --quiet`` is accepted like ``ppi cv --quiet``."""
    for sub in subcommand_parsers(parser).values():
        for option in COMMON_OPTIONS:
            if option not in sub._option_string_actions:
                sub.add_argument(option, help=NO_EFFECT, **_NO_OP[option])
        complete_common(sub)
    return parser


def command_parser(parser):
    """``parser`` (a command's top-level parser) as :func:`run_subcommand` runs it:
    with ``--version`` (:func:`add_version`) and the common options on every subcommand
    (:func:`complete_common`)."""
    return complete_common(add_version(parser))


# ----------------------------------------------------------------------------- values
_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?"
_POWER = re.compile(rf"({_NUMBER})\^([+-]?[0-9]+)")


def _power(token, text, option):
    m = _POWER.fullmatch(token)
    if m is None:
        raise InvalidParameterError(f"{option} {text!r}: {token!r} is not a power such as "
                                    "2^-10")
    if len(m.group(2).lstrip("+-")) > 6:          # far beyond any float's range
        raise InvalidParameterError(f"{option} {text!r}: the exponent of {token!r} is out "
                                    "of range (a grid value is a finite positive number)")
    return float(m.group(1)), int(m.group(2))


#: the most values a grid (or any list-valued number option) may hold: every value costs at
#: least one fit or one solve, and 1,000 already exceeds any published grid a hundredfold
MAX_GRID = 1000


def _pow(base, exp, text, option):
    try:
        return base ** exp
    except (OverflowError, ZeroDivisionError):
        raise InvalidParameterError(f"{option} {text!r}: {base:g}^{exp} is not a finite "
                                    f"positive number ({GRID_SYNTAX})") from None


def parse_grid(text, option="--alphas", *, allow_zero=False):
    """A grid of regularization parameters from its command-line text.

    Syntax: comma-separated items, each a number (``0.5``, ``1e-3``), a power ``B^E``
    (``2^-10``), or a range of powers ``B^a..B^b`` (every power from a to b) or
    ``B^a..B^b:s`` (every s-th): ``2^-8..2^16:2`` = 2^-8, 2^-6, …, 2^16 — exactly
    ``2.0 ** numpy.arange(-8, 17, 2)``.

    Returns a tuple of floats in the order given. Raises
    :class:`~kernelrank.errors.InvalidParameterError` (naming ``option``) on anything else,
    on an empty grid, on a grid of more than :data:`MAX_GRID` values (counted before any is
    built: ``2^-100000..2^100000`` is refused at once), and on values that are not positive
    and finite (zero allowed with ``allow_zero``, e.g. for a co-regularisation weight μ) —
    a power that overflows or divides by zero included.
    """
    values = []
    items = [item.replace(" ", "") for item in str(text).split(",")]
    if len(items) > MAX_GRID:
        raise InvalidParameterError(f"{option}: {len(items)} values; a grid holds at most "
                                    f"{MAX_GRID}")
    for item in items:
        if not item:
            continue
        if ".." in item:
            lo, _, rest = item.partition("..")
            hi, _, step = rest.partition(":")
            (b1, e1), (b2, e2) = _power(lo, text, option), _power(hi, text, option)
            if b1 != b2 or e2 < e1 or (step and (not step.isdigit() or int(step) < 1)):
                raise InvalidParameterError(
                    f"{option} {text!r}: a range is B^a..B^b[:step] with one base B, a <= b "
                    "and a positive integer step")
            count = (e2 - e1) // int(step or 1) + 1
            if len(values) + count > MAX_GRID:
                raise InvalidParameterError(
                    f"{option} {text!r}: the range {item} holds {count:,} values; a grid "
                    f"holds at most {MAX_GRID} (use a step, B^a..B^b:s)")
            values += [_pow(b1, e, text, option) for e in range(e1, e2 + 1, int(step or 1))]
        elif "^" in item:
            base, exp = _power(item, text, option)
            values.append(_pow(base, exp, text, option))
        else:
            try:
                values.append(float(item))
            except ValueError:
                raise InvalidParameterError(
                    f"{option} {text!r}: {item!r} is not a number ({GRID_SYNTAX})") from None
    low_ok = (lambda v: v >= 0) if allow_zero else (lambda v: v > 0)
    if not values or not all(math.isfinite(v) and low_ok(v) for v in values):
        raise InvalidParameterError(
            f"{option} must be {'non-negative' if allow_zero else 'positive'} finite "
            f"numbers, got {text!r} ({GRID_SYNTAX})")
    return tuple(values)


@contextlib.contextmanager
def thread_limit(threads=None, jobs=1):
    """Limit BLAS to ``threads`` threads for the block; ``threads=None``: the machine's cores
    divided by ``jobs`` when ``jobs > 1``, else no limit."""
    if threads is None and (jobs or 1) <= 1:
        yield
        return
    if threads is not None and threads < 1:
        raise InvalidParameterError(f"--threads must be >= 1, got {threads}")
    from threadpoolctl import threadpool_limits

    from kernelrank.parallel import default_blas_threads

    with threadpool_limits(threads or default_blas_threads(jobs)):
        yield


# ----------------------------------------------------------------------------- summary
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


# ----------------------------------------------------------------------------- checks
@dataclass(frozen=True)
class Checks:
    """What :func:`run_subcommand` checks before a subcommand does any work.

    ``paths``: ``paths(args)`` → :class:`kernelrank.paths.PathSpec`, the files and folders
    the subcommand reads and writes (an output naming an input is refused; the inputs are
    protected while it runs). ``bounds``: option destination → ``(low, high)`` or ``(low,
    high, "open")`` (low itself excluded); None for no limit on that side
    (:func:`check_numbers`).
    """

    paths: object = None
    bounds: dict = field(default_factory=dict)


#: bounds of the options :func:`add_common` adds (every command has some of them)
COMMON_BOUNDS = {"seed": (0, 2 ** 32 - 1), "jobs": (0, 1024), "threads": (1, 1024)}


def subcommand_parsers(parser):
    """``{name: parser}`` of the subcommands of ``parser``."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _numbers(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [] if value is None else [value]


def check_numbers(parser, args, bounds):
    """Refuse, before any work, a number on the command line that no run can use: each int
    or float option of ``parser`` (the subcommand's) must be finite and within ``bounds``
    (or :data:`COMMON_BOUNDS`); an option without a bound must at least fit in a 64-bit
    integer; a list-valued one holds at most :data:`MAX_GRID` values. Raises
    :class:`~kernelrank.errors.InvalidParameterError` naming the option and its range."""
    for action in parser._actions:
        if action.type not in (int, float) or not action.option_strings:
            continue
        option = action.option_strings[-1]
        values = _numbers(getattr(args, action.dest, None))
        if len(values) > MAX_GRID:
            raise InvalidParameterError(f"{option}: {len(values)} values; at most {MAX_GRID}")
        bound = bounds.get(action.dest, COMMON_BOUNDS.get(action.dest))
        low, high, open_low = (None, None, False) if bound is None else (
            bound[0], bound[1], len(bound) > 2 and bound[2] == "open")
        for v in values:
            bad = not math.isfinite(v) if isinstance(v, float) else abs(v) >= 2 ** 63
            if not bad and low is not None:
                bad = v <= low if open_low else v < low
            if not bad and high is not None:
                bad = v > high
            if bad:
                if low is None and high is None:
                    what = "a finite number" if action.type is float else "a 64-bit integer"
                else:
                    what = ("a number" if action.type is float else "an integer") + \
                        (f" > {low:,}" if open_low else f" >= {low:,}" if low is not None
                         else "") + (" and" if low is not None and high is not None else "") \
                        + (f" <= {high:,}" if high is not None else "")
                raise InvalidParameterError(f"{option} {v!r}: give {what}")


# ----------------------------------------------------------------------------- running
def run_subcommand(parser, argv, run, checks=None):
    """Parse ``argv`` with ``parser`` and call ``run(args)``; return the process exit code.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        With subparsers whose destination is ``command``.
    argv : list of str or None
        None means ``sys.argv[1:]``.
    run : callable
        ``run(args)`` executes the chosen subcommand and returns a :class:`Summary` (printed
        last, see :func:`print_summary`), an exit code or None (= 0). ``args.command_line``
        holds the command as typed (``python -m <prog> …``), for reports.
    checks : dict of subcommand name → :class:`Checks`, optional
        What is checked before the subcommand runs (the numbers of every subcommand are
        checked against :data:`COMMON_BOUNDS` and the 64-bit range in any case).
    """
    command_parser(parser)
    args = parser.parse_args(argv)
    if getattr(args, "command", None) is None:
        parser.print_help()
        return 0
    args.command_line = f"python -m {parser.prog} " + shlex.join(
        sys.argv[1:] if argv is None else [str(a) for a in argv])
    check = (checks or {}).get(args.command) or Checks()

    def checked(args):
        check_output_dir(getattr(args, "output_dir", None))
        sub = subcommand_parsers(parser).get(args.command)
        if sub is not None:
            check_numbers(sub, args, check.bounds)
        spec = check.paths(args) if check.paths is not None else PathSpec()
        refuse_overwriting_inputs(spec)
        with protected(spec.inputs):
            return run(args)

    return exit_code(checked, args, name=f"{parser.prog} {args.command}",
                     resumes=bool(getattr(args, "resumes", False)))


def add_version(parser):
    """``--version`` on a command's top-level parser: ``<prog> (kernelrank) <version>``, exit
    code 0 (:func:`run_subcommand` adds it, so every console command has it)."""
    from kernelrank import __version__

    if "--version" not in parser._option_string_actions:
        parser.add_argument("--version", action="version",
                            version=f"%(prog)s (kernelrank) {__version__}")
    return parser


def check_output_dir(path, option="--output-dir"):
    """Refuse an output folder that exists as something other than a folder (a file): the
    command would fail only after its work, when it writes its report."""
    if path and os.path.exists(path) and not os.path.isdir(path):
        raise InvalidParameterError(f"{option} {path} is an existing file, not a folder; "
                                    "give a folder (it is created if absent)")


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
    :func:`_redeliver_swallowed_interrupts`; ``resumes``: the line says how to resume). Also
    for scripts without subcommands.
    """
    start = time.perf_counter()
    try:
        with _stage_lines(), _redeliver_swallowed_interrupts():
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
