"""Command-line entry point: `python -m learners --help`.

Commands:

    letor   LETOR 3.0 benchmark on the standard 5 folds (rankrls / rls / ranksvm / all)

Each command lives in its own module and registers itself with an ``add_<name>_parser``
function listed in ``COMMANDS``; the parsed arguments' ``handler`` runs it.
"""

import argparse
import shlex
import sys

from learners.errors import KernelrankError
from learners.letor import add_letor_parser

# (module-level registration functions; add new subcommands here)
COMMANDS = [add_letor_parser]


def build_parser():
    parser = argparse.ArgumentParser(prog="learners", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for register in COMMANDS:
        register(subparsers)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    argv_text = "python -m learners " + shlex.join(sys.argv[1:] if argv is None else argv)
    try:
        return args.handler(args, argv_text)
    except KernelrankError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
