"""Command-line entry point: `python -m learners --help`.

Commands:

    letor   LETOR 3.0 benchmark on the standard 5 folds (rankrls / rls / ranksvm / all)

Each command lives in its own module and registers itself with an ``add_<name>_parser``
function listed in ``COMMANDS``; the parsed arguments' ``handler`` runs it.
"""

import argparse
import shlex
import sys

from kernelrank.cli import run_subcommand
from letor.protocol import add_letor_parser

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
    argv_text = "python -m learners " + shlex.join(sys.argv[1:] if argv is None else argv)
    return run_subcommand(build_parser(), argv, lambda args: args.handler(args, argv_text))


if __name__ == "__main__":
    sys.exit(main())
