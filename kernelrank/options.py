"""The shared options of every subcommand of the five kernelrank commands.

Added to a subcommand's parser by :func:`add_common` (or one helper each), never
re-declared by a command; every subcommand accepts the first six (:data:`COMMON_OPTIONS`):
where one means nothing, :func:`complete_common` adds it as a documented no-op ("accepted
for a uniform command line; has no effect here"), so a script can pass the same options to
every subcommand:

* ``--data-dir D`` — where data sets are read (else ``$KERNELRANK_DATA``, else the cache);
* ``--output-dir O`` — where ``results.json`` + ``results.md`` (+ the PNGs it embeds) are
  written; default ``results/<command>-<subcommand>``;
* ``--seed N`` — the random seed (default 0); where nothing is random, its help says so;
* ``--quiet`` — no progress bars (stage lines and the final summary are still printed);
* ``--threads N`` — BLAS threads (:func:`thread_limit`); ``--jobs N`` — parallel (Dask)
  workers;
* ``--alphas GRID`` — a λ grid, one syntax everywhere (:func:`kernelrank.grid.parse_grid`).

:func:`command_parser` completes a command's parser as :func:`kernelrank.cli.run_subcommand`
runs it (``--version``, :func:`add_version`, and the common options of every subcommand).
Nothing here imports NumPy or any other heavy package: building a parser stays cheap, so
``--help`` answers at once.
"""

import contextlib

from kernelrank.errors import InvalidParameterError
from kernelrank.grid import GRID_SYNTAX

__all__ = ["add_common", "add_data_dir", "add_output_dir", "add_seed", "add_quiet",
           "add_threads", "add_jobs", "add_alphas", "add_version", "complete_common",
           "command_parser", "subcommand_parsers", "thread_limit", "COMMON_OPTIONS",
           "NO_EFFECT"]


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
    """A grid option (``--alphas`` unless ``flag``) in the :func:`~kernelrank.grid.parse_grid` syntax; the
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
    (:func:`kernelrank.cli.run_subcommand` calls it through :func:`command_parser`), so a subcommand
    cannot forget one: ``ppi predict --quiet`` is accepted like ``ppi cv --quiet``."""
    for sub in subcommand_parsers(parser).values():
        for option in COMMON_OPTIONS:
            if option not in sub._option_string_actions:
                sub.add_argument(option, help=NO_EFFECT, **_NO_OP[option])
        complete_common(sub)
    return parser


def command_parser(parser):
    """``parser`` (a command's top-level parser) as :func:`kernelrank.cli.run_subcommand` runs it:
    with ``--version`` (:func:`add_version`) and the common options on every subcommand
    (:func:`complete_common`)."""
    return complete_common(add_version(parser))


def subcommand_parsers(parser):
    """``{name: parser}`` of the subcommands of ``parser``."""
    import argparse

    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def add_version(parser):
    """``--version`` on a command's top-level parser: ``<prog> (kernelrank) <version>``, exit
    code 0 (:func:`kernelrank.cli.run_subcommand` adds it, so every console command has it)."""
    from kernelrank import __version__

    if "--version" not in parser._option_string_actions:
        parser.add_argument("--version", action="version",
                            version=f"%(prog)s (kernelrank) {__version__}")
    return parser


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
