"""What ``python -m corpora`` checks before a subcommand runs (:class:`kernelrank.cli.Checks`):
``list`` and ``verify`` only read the data folder; ``fetch`` writes into it (its output) and
reads nothing of the user's."""

from kernelrank.cli import Checks
from kernelrank.datadir import resolve_data_dir
from kernelrank.paths import PathSpec


def _reads(args):
    return PathSpec().input("--data-dir", resolve_data_dir(args.data_dir))


def _fetch(args):
    return PathSpec().output("--data-dir", resolve_data_dir(args.data_dir), "folder")


CHECKS = {"list": Checks(_reads), "verify": Checks(_reads), "fetch": Checks(_fetch)}
