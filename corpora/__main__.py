"""Manage kernelrank's data sets: list them, download missing ones, verify checksums.

Examples::

    python -m corpora list
    python -m corpora fetch ppi letor            # into --data-dir / $KERNELRANK_DATA / cache
    python -m corpora verify all --data-dir ../shared/data
"""

import argparse
import sys

from kernelrank.datadir import ENV_VAR, resolve_data_dir
from corpora.fetch import fetch, load_manifest, verify
from kernelrank.cli import run_subcommand


def build_parser():
    parser = argparse.ArgumentParser(
        prog="corpora", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.add_parser("list", help="list the known data sets and where they would be stored")
    for name, helptext in (("fetch", "download missing files, checksum-verified"),
                           ("verify", "check the checksums of the stored files")):
        cmd = sub.add_parser(name, help=helptext)
        cmd.add_argument("datasets", nargs="*", default=["all"],
                         help="data set names (default: all)")
        cmd.add_argument("--data-dir", help=f"data directory (default: ${ENV_VAR}, else the "
                                            "user cache directory)")
        if name == "fetch":
            cmd.add_argument("--force", action="store_true",
                             help="download again even if the file exists")
            cmd.add_argument("--no-progress", action="store_true", help="no progress bar")
    return parser


def main(argv=None):
    return run_subcommand(build_parser(), argv, _run)


def _run(args):
    manifest = load_manifest()
    if args.command == "list":
        root = resolve_data_dir()
        for name, entry in manifest.items():
            print(f"{name:10s} {len(entry['files']):3d} files  {entry['description']}"
                  f"  [{entry['licence']}]")
        print(f"data directory: {root}")
        return 0
    names = sorted(manifest) if "all" in args.datasets else args.datasets
    bad = 0
    for name in names:
        if args.command == "fetch":
            got = fetch(name, args.data_dir, force=args.force, manifest=manifest,
                        progress=not args.no_progress)
            print(f"{name}: downloaded {len(got)} file(s); all verified")
        else:
            status = verify(name, args.data_dir, manifest=manifest)
            for store, state in status.items():
                if state != "ok":
                    bad += 1
                    print(f"{state:8s} {store}")
            ok = sum(s == "ok" for s in status.values())
            print(f"{name}: {ok}/{len(status)} files ok")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
