"""Command-line entry point: `python -m learners --help`.

Commands:

    letor   LETOR 3.0 benchmark on the standard 5 folds (rankrls / rls / ranksvm / all)

Each command lives in its own module (imported when the parser is built; it loads no NumPy
until the command runs) and registers itself with an ``add_<name>_parser`` function; the
parsed arguments' ``handler`` runs it.
"""

import argparse
import importlib
import sys

from kernelrank.cli import run_subcommand

# (module, registration function) of every subcommand; add new subcommands here
COMMANDS = [("letor.cli", "add_letor_parser")]


def build_parser():
    parser = argparse.ArgumentParser(prog="learners", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module, register in COMMANDS:
        getattr(importlib.import_module(module), register)(subparsers)
    return parser


def main(argv=None):
    checks = {}
    for module, _ in COMMANDS:         # each subcommand's own checks (kernelrank.cli.Checks)
        checks.update(getattr(importlib.import_module(module), "_checks", dict)())
    return run_subcommand(build_parser(), argv, lambda args: args.handler(args),
                          checks=checks)


if __name__ == "__main__":
    sys.exit(main())
