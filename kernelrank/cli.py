"""The one way every kernelrank command line runs a subcommand.

Parse the arguments; with no subcommand print the help; run the subcommand; a typed
:class:`~kernelrank.errors.KernelrankError` (bad input, missing data, wrong checksum) becomes
``error: <message>`` on stderr and exit code 2 instead of a traceback.
"""

import sys

from kernelrank.errors import KernelrankError


def run_subcommand(parser, argv, run):
    """Parse ``argv`` with ``parser`` and call ``run(args)``; return the process exit code.

    Parameters
    ----------
    parser : argparse.ArgumentParser
        With subparsers whose destination is ``command``.
    argv : list of str or None
        None means ``sys.argv[1:]``.
    run : callable
        ``run(args)`` executes the chosen subcommand; it may return an exit code (None = 0).
    """
    args = parser.parse_args(argv)
    if getattr(args, "command", None) is None:
        parser.print_help()
        return 0
    return exit_code(run, args)


def exit_code(run, *args):
    """Call ``run(*args)`` and return a process exit code: its return value (None = 0), or 2
    after printing ``error: <message>`` to stderr when it raises a
    :class:`~kernelrank.errors.KernelrankError`. For scripts without subcommands."""
    try:
        code = run(*args)
    except KernelrankError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0 if code is None else int(code)
