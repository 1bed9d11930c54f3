"""Command-line entry point: `python -m corpora --help`."""

import argparse
import sys


def build_parser():
    parser = argparse.ArgumentParser(prog="corpora", description=__doc__)
    parser.add_subparsers(dest="command", metavar="COMMAND")
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
