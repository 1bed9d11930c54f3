"""The frame of the PPI experiments on the benchmark corpora (document-level 10-fold CV over
fold seeds): their command line, and their run between two load averages with the rows
written as JSON.

Shared by :mod:`~benchmarks.experiments.ppi.exp_ppi_factors`,
:mod:`~benchmarks.experiments.ppi.exp_ppi_spacy`,
:mod:`~benchmarks.experiments.ppi.exp_ppi_transfer` and
:mod:`~benchmarks.experiments.ppi.exp_ppi_view_weights`.
"""

from benchmarks import harness
from ppi.names import CORPORA

__all__ = ["experiment_parser", "logged_run"]


def experiment_parser(doc, corpora=CORPORA, default=None, seeds=(0,)):
    """The parser of an experiment on the benchmark corpora (:func:`benchmarks.harness.
    parser` of ``doc``) with the options every one takes: ``--corpora`` (of ``corpora``;
    default ``default``, else all of them), ``--seeds`` (default ``seeds``), ``--data-dir``
    and ``--output``."""
    p = harness.parser(doc)
    p.add_argument("--corpora", nargs="+", choices=corpora,
                   default=list(corpora if default is None else default))
    p.add_argument("--seeds", nargs="+", type=int, default=list(seeds))
    harness.add_data_dir(p)
    harness.add_output(p, "JSON file to write (default: none)")
    return p


def logged_run(compute, output):
    """``compute()`` between two prints of the load average; its rows written as JSON to
    ``output`` (if given) with the 1-minute load at start and end. Returns the rows."""
    load = harness.print_load("start")
    rows = compute()
    end = harness.print_load("end")
    harness.save_json(output, {"rows": rows, "load_start": load[0], "load_end": end[0]})
    return rows
