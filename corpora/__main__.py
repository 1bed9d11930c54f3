"""Manage kernelrank's data sets: list them, download missing ones, verify checksums.

Examples::

    python -m corpora list
    python -m corpora fetch ppi letor            # into --data-dir / $KERNELRANK_DATA / cache
    python -m corpora verify all --data-dir ../shared/data
"""

import argparse
import sys

from kernelrank.cli import Summary, add_common, run_subcommand


def build_parser():
    parser = argparse.ArgumentParser(
        prog="corpora", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    p = sub.add_parser("list", help="list the known data sets and where they would be stored")
    add_common(p, data_dir=True, seed=False, quiet=False)
    for name, helptext in (("fetch", "download missing files, checksum-verified"),
                           ("verify", "check the checksums of the stored files")):
        p = sub.add_parser(name, help=helptext)
        p.add_argument("datasets", nargs="*", default=["all"],
                       help="data set names (default: all)")
        if name == "fetch":
            p.add_argument("--force", action="store_true",
                           help="download again even if the file exists")
        add_common(p, data_dir=True, seed=False, quiet=name == "fetch")
    return parser


def _list(args):
    from corpora.fetch import load_manifest
    from kernelrank.datadir import resolve_data_dir

    for name, entry in load_manifest().items():
        print(f"{name:10s} {len(entry['files']):3d} files  {entry['description']}"
              f"  [{entry['licence']}]")
    return Summary(headline=[f"data directory: {resolve_data_dir(args.data_dir)}"])


def _fetch(args):
    from corpora.fetch import fetch_many
    from kernelrank.datadir import resolve_data_dir

    got = fetch_many(args.datasets, args.data_dir, force=args.force, progress=not args.quiet)
    root = resolve_data_dir(args.data_dir)
    return Summary([root / f for files in got.values() for f in files],
                   [f"{name}: downloaded {len(files)} file(s); all verified"
                    for name, files in got.items()])


def _verify(args):
    from corpora.fetch import verify_many

    lines, bad = [], 0
    for name, status in verify_many(args.datasets, args.data_dir).items():
        for store, state in status.items():
            if state != "ok":
                bad += 1
                print(f"{state:8s} {store}")
        ok = sum(s == "ok" for s in status.values())
        lines.append(f"{name}: {ok}/{len(status)} files ok")
    return Summary(headline=lines, code=1 if bad else 0)


COMMANDS = {"list": _list, "fetch": _fetch, "verify": _verify}


def main(argv=None):
    from corpora.cli_checks import CHECKS

    return run_subcommand(build_parser(), argv, lambda args: COMMANDS[args.command](args),
                          checks=CHECKS)


if __name__ == "__main__":
    sys.exit(main())
