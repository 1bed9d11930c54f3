"""The one command-line convention of the five kernelrank commands (``learners letor``,
``corpora``, ``ppi``, ``homology``, ``parse_ranking``).

Every command's ``__main__`` takes its parts from here; each part lives in a module of its
own:

* the shared options — :mod:`kernelrank.options`: ``--data-dir``, ``--output-dir``,
  ``--seed``, ``--quiet``, ``--threads``, ``--jobs`` (:data:`COMMON_OPTIONS`, on every
  subcommand: where one means nothing, :func:`complete_common` adds it as a documented
  no-op), ``--alphas`` and ``--version``;
* the grid syntax — :mod:`kernelrank.grid` (:func:`parse_grid`: ``0.5``, ``2^-10``,
  ``2^-8..2^16:2``);
* the checks before any work — :mod:`kernelrank.checks` (:class:`Checks`, one per
  subcommand: every number of the command line within its bounds, :func:`check_numbers`;
  no ``-`` for a file, :func:`~kernelrank.checks.refuse_standard_streams`; no output naming
  an input, :mod:`kernelrank.paths`);
* how a command ends — :mod:`kernelrank.exits` (:func:`exit_code`: the :class:`Summary`
  printed last by :func:`print_summary`, ``error: …`` and exit code 2, Ctrl-C or SIGTERM
  and exit code 130, a closed pipe).

Running (:func:`run_subcommand`, here): complete the parser (:func:`command_parser`:
``--version`` and the common options of every subcommand); parse the arguments; with no
subcommand print the help; refuse an ``--output-dir`` naming an existing file, a number out
of its bounds, ``-`` for an input or an output (no command streams: the one rule for both
sides) and an output naming an input; then run the handler under :func:`exit_code`,
with the command's inputs protected from every atomic writer. A typed
:class:`~kernelrank.errors.KernelrankError` (bad input, missing data, wrong checksum)
becomes ``error: <message>`` on stderr and exit code 2 instead of a traceback; so does an
:class:`OSError` that names a file. Ctrl-C — and SIGTERM, taken as Ctrl-C — ends with
one line, ``interrupted`` (for a command that resumes — its parser sets ``resumes=True``
with ``set_defaults`` — ``interrupted; rerun the same command to resume …``), and exit code
130; the command's locks, temporary files and worker processes are released on the way out.

Nothing here imports NumPy or any other heavy package: building a parser stays cheap, so
``--help`` answers at once.
"""

import shlex
import sys

from kernelrank.checks import (COMMON_BOUNDS, Checks, check_numbers, check_output_dir,
                               refuse_standard_streams)
from kernelrank.exits import (CLOSED_PIPE, INTERRUPTED, INTERRUPTED_RESUMABLE, STAGE_LOGGERS,
                              Summary, exit_code, os_error_message, peak_memory,
                              print_summary)
from kernelrank.grid import GRID_SYNTAX, MAX_GRID, parse_grid
from kernelrank.options import (COMMON_OPTIONS, NO_EFFECT, add_alphas, add_common,
                                add_data_dir, add_jobs, add_output_dir, add_quiet, add_seed,
                                add_threads, add_version, command_parser, complete_common,
                                subcommand_parsers, thread_limit)
from kernelrank.paths import PathSpec, protected, refuse_overwriting_inputs

__all__ = ["add_common", "add_data_dir", "add_output_dir", "add_seed", "add_quiet",
           "add_threads", "add_jobs", "add_alphas", "parse_grid", "thread_limit", "Summary",
           "print_summary", "peak_memory", "run_subcommand", "exit_code", "check_output_dir",
           "add_version", "Checks", "check_numbers", "subcommand_parsers", "MAX_GRID",
           "COMMON_BOUNDS", "COMMON_OPTIONS", "complete_common", "command_parser",
           "GRID_SYNTAX", "NO_EFFECT", "STAGE_LOGGERS", "INTERRUPTED", "INTERRUPTED_RESUMABLE",
           "CLOSED_PIPE", "os_error_message"]


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
        if sub is not None:
            refuse_standard_streams(sub, args, spec)
        refuse_overwriting_inputs(spec)
        with protected(spec.inputs):
            return run(args)

    return exit_code(checked, args, name=f"{parser.prog} {args.command}",
                     resumes=bool(getattr(args, "resumes", False)))
