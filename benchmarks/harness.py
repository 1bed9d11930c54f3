"""What every benchmark script shares: its command line, its log, the machine's load average,
peak memory, timers and its JSON output.

The machine is usually shared, so a benchmark prints ratios measured in one run with the load
average at start and end (CONTRIBUTING.md). A script::

    from benchmarks import harness

    def main(argv=None):
        p = harness.parser(__doc__)            # its docstring as --help, and --quiet
        harness.add_data_dir(p)                # the shared options it takes
        harness.add_seed(p)
        harness.add_output(p)
        args = harness.parse_args(p, argv)     # parsed; logging set up
        start = harness.print_load("start")
        ...
        harness.save_json(args.output, results)

Reports of a folder (``<name>.json`` + ``<name>.md``) are written with
:func:`kernelrank.report.write_report`, their tables with
:func:`kernelrank.report.markdown_table`. Nothing here imports NumPy: ``--help`` answers at
once.
"""

import argparse
import logging
import math
import os
import time
from pathlib import Path

from kernelrank import cli
from kernelrank.atomic import write_json

__all__ = ["REPOSITORY", "log", "parser", "add_data_dir", "add_seed", "add_output",
           "add_output_dir", "parse_args", "load_average", "load_1min", "format_load",
           "print_load", "peak_rss", "timed", "best_time", "save_json"]

#: the repository root (what a child process or a Dask worker needs on its ``PYTHONPATH``)
REPOSITORY = Path(__file__).resolve().parents[1]

#: the benchmarks' own log (progress lines; hidden by ``--quiet``)
log = logging.getLogger("benchmarks")

#: bytes per unit of :func:`peak_rss`
_RSS_UNITS = {"KiB": 2 ** 10, "MiB": 2 ** 20, "GiB": 2 ** 30}


# ----------------------------------------------------------------------------- command line
def parser(doc, *, full=False):
    """The argument parser of a script described by its module docstring ``doc``.

    Parameters
    ----------
    doc : str
        The script's ``__doc__``.
    full : bool
        ``--help`` shows the whole docstring as written (for scripts whose docstring lists
        their modes or outputs); by default its first paragraph.

    Returns
    -------
    argparse.ArgumentParser
        With ``--quiet``: no log lines below WARNING and no progress bars (the results and
        the load average still print).
    """
    if full:
        p = argparse.ArgumentParser(description=doc,
                                    formatter_class=argparse.RawDescriptionHelpFormatter)
    else:
        p = argparse.ArgumentParser(description=doc.strip().split("\n\n")[0])
    p.add_argument("--quiet", action="store_true",
                   help="no progress: no log lines below WARNING, no progress bars (the "
                        "results and the load average still print)")
    return p


def add_data_dir(parser):
    """``--data-dir DIR`` (default: ``$KERNELRANK_DATA``, else the user cache), as every
    command of the packages (:func:`kernelrank.cli.add_data_dir`)."""
    cli.add_data_dir(parser)


def add_seed(parser):
    """``--seed N``, default 0 (:func:`kernelrank.cli.add_seed`)."""
    cli.add_seed(parser)


def add_output(parser, help="JSON file for the results (default: none)"):
    """``--output FILE``: where the results are written as JSON (:func:`save_json`);
    default None."""
    parser.add_argument("--output", default=None, metavar="FILE", help=help)


def add_output_dir(parser, default=None, help=None, report=None):
    """``--output-dir DIR``: the folder of the script's report; ``default`` None writes no
    report unless one is asked for. ``report``: the report's name, for the help
    (``<report>.json`` and ``<report>.md``, :func:`kernelrank.report.write_report`);
    ``help`` replaces the help text."""
    files = f"{report}.json and {report}.md" if report else "the report (JSON and Markdown)"
    if default is None:
        parser.add_argument("--output-dir", default=None, metavar="DIR",
                            help=help or f"write {files} here (default: none)")
    else:
        cli.add_output_dir(parser, default,
                           help or (f"where {files} are written (default: %(default)s)"
                                    if report else None))


def parse_args(parser, argv=None):
    """``parser.parse_args(argv)``, then logging: INFO records (the progress of the scripts
    and of the packages) on stderr with their time, only WARNING and above with
    ``--quiet``."""
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING if getattr(args, "quiet", False) else logging.INFO,
                        format="%(asctime)s %(message)s")
    return args


# ----------------------------------------------------------------------------- the machine
def load_average():
    """The 1-, 5- and 15-minute load averages (:func:`os.getloadavg`), or None where the
    system has none."""
    try:
        return os.getloadavg()
    except OSError:
        return None


def load_1min():
    """The 1-minute load average, or None where the system has none."""
    load = load_average()
    return None if load is None else load[0]


def format_load(load):
    """``0.52 0.61 0.70`` (two decimals each), or ``unavailable`` for None."""
    return "unavailable" if load is None else " ".join(f"{x:.2f}" for x in load)


def print_load(when):
    """Print ``load average at <when>: 0.52 0.61 0.70`` and return the three numbers (None
    where the system has none)."""
    load = load_average()
    print(f"load average at {when}: {format_load(load)}", flush=True)
    return load


def peak_rss(unit="MiB"):
    """Peak resident memory of this process (``ru_maxrss``, :func:`kernelrank.cli.
    peak_memory`) in ``unit``: ``"KiB"``, ``"MiB"`` or ``"GiB"``."""
    return cli.peak_memory()[0] / _RSS_UNITS[unit]


# ----------------------------------------------------------------------------- timers
def timed(fn, *args, **kwargs):
    """``(fn(*args, **kwargs), wall seconds)``."""
    start = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - start


def best_time(fn, repeat=1, clock=time.perf_counter):
    """``(best seconds of repeat calls of fn(), the result of the last call)``.

    ``clock`` is ``time.perf_counter`` (wall time, what a user waits) or
    ``time.process_time`` (CPU time of the process, all threads summed: far less sensitive to
    other jobs on a shared machine)."""
    best, out = math.inf, None
    for _ in range(repeat):
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return best, out


# ----------------------------------------------------------------------------- output
def save_json(path, results):
    """Write ``results`` as strict JSON to ``path`` (atomically,
    :func:`kernelrank.atomic.write_json`); nothing when ``path`` is None. Returns ``path``."""
    if path:
        write_json(path, results)
    return path


#: the offset between the document ids of two copies
ID_OFFSET = 10 ** 9


def write_copies(src, copies, out):
    """Write ``copies`` copies of the PubTator file ``src`` to ``out`` under new document
    ids (copy ``c`` of PMID ``p`` is ``p + c·ID_OFFSET``; mentions, relations and text
    unchanged — every copy is an abstract of its own, nothing is deduplicated); returns
    ``out``."""
    import gzip

    from kernelrank.atomic import atomic_open

    opener = gzip.open if str(src).endswith(".gz") else open
    with opener(src, "rt", encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    with atomic_open(out, "w", encoding="utf-8") as fh:
        for c in range(copies):
            for line in lines:
                if not line.strip():
                    fh.write("\n")
                    continue
                head = line.split("\t", 1)[0]
                sep = "|" if "|" in head else "\t"
                pmid, rest = line.split(sep, 1)
                fh.write(f"{int(pmid) + c * ID_OFFSET}{sep}{rest}\n")
    return out
