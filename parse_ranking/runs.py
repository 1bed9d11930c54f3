"""Parse ranking runs on a built data set (:mod:`parse_ranking.dataset`), end to end.

* :func:`run_cv` — article-level CV of the rankers
  (:func:`parse_ranking.evaluation.cross_validate`) → ``results.json`` + ``results.md``;
* :func:`run_train` — fit one ranker and save it (:func:`parse_ranking.model.train_model`);
* :func:`run_benchmark` — timings (:func:`parse_ranking.benchmark.run_benchmark`) →
  ``results.json`` + ``results.md``, the timed CV's report in ``cv/``;
* :func:`coreg_options` — the options of the co-regularized ranker ``corankrls``.

Each run reads the records, keeps a seeded subset (``max_sentences``,
:func:`parse_ranking.dataset.subsample`) and returns ``(results, written)``.
"""

import logging
import time
from pathlib import Path

from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration

__all__ = ["coreg_options", "run_cv", "run_train", "run_benchmark"]

log = logging.getLogger(__name__)


def coreg_options(*, views=None, alphas=None, mus=None, n_basis=None, n_inner=None,
                  extra_parses=True):
    """The ``coreg`` dictionary of :func:`~parse_ranking.evaluation.cross_validate` and
    :func:`~parse_ranking.model.train_model`; None leaves an option at its default
    (:mod:`parse_ranking.coreg`). ``n_basis=0``: every row is a basis vector (exact)."""
    if n_basis is not None and n_basis < 0 or n_inner is not None and n_inner < 2:
        raise InvalidParameterError("--coreg-basis must be >= 0 and --coreg-inner-folds >= 2")
    out = {"extra_parses": bool(extra_parses)}
    if views is not None:
        out["views"] = tuple(views)
    if alphas is not None:
        out["alphas"] = alphas
    if mus is not None:
        out["mus"] = mus
    if n_basis is not None:
        out["n_basis"] = n_basis or None
    if n_inner is not None:
        out["n_inner"] = n_inner
    return out


def _records(data, max_sentences, seed, max_parses=None):
    """The records of ``data`` (a seeded subset of ``max_sentences``); ``max_parses`` cuts
    each record to LG's first k parses while reading (bounded memory on large sets)."""
    from parse_ranking.dataset import load_dataset, subsample

    return subsample(load_dataset(data, max_parses=max_parses), max_sentences, seed)


def _given(options):
    """Keyword options without the ones left at None (= the callee's default)."""
    return {k: v for k, v in options.items() if v is not None}


def run_cv(data, output_dir, *, max_sentences=None, seed=0, command=None, **options):
    """Article-level CV of the rankers on the built JSONL ``data`` (``options``: keyword
    arguments of :func:`parse_ranking.evaluation.cross_validate`; None = its default);
    ``command`` is quoted in the report. Returns ``(results, written)``."""
    from parse_ranking.evaluation import cross_validate
    from parse_ranking.report import write_cv_report

    t0 = time.perf_counter()
    # the parses beyond --max-parses are only read by corankrls (its unlabelled data)
    rankers = options.get("rankers") or ()
    cut = None if "corankrls" in rankers else options.get("max_parses")
    # an iterator, so that cross_validate holds the last reference to the records and
    # frees them once the parses are featurized
    results = cross_validate(iter(_records(data, max_sentences, seed, cut)), seed=seed,
                             **_given(options))
    results["data"]["command"] = command
    d = results["data"]
    log.info("cv: %d folds over %d sentences, %d parses (%s)", d["folds"], d["sentences"],
             d["parses"], format_duration(time.perf_counter() - t0))
    return results, write_cv_report(output_dir, results)


def run_train(data, model, *, max_sentences=None, seed=0, **options):
    """Fit one ranker on the built JSONL ``data`` and save it at the path stem ``model``
    (``options``: keyword arguments of :func:`parse_ranking.model.train_model`; None = its
    default). Returns ``(metadata, written)``."""
    from parse_ranking.model import train_model

    cut = None if options.get("ranker") == "corankrls" else options.get("max_parses")
    meta = train_model(_records(data, max_sentences, seed, cut), model, seed=seed,
                       **_given(options))
    model = Path(model)
    return meta, [model.with_suffix(".json"), model.with_suffix(".npz")]


def run_benchmark(output_dir, *, command=None, **options):
    """Timings of :func:`parse_ranking.benchmark.run_benchmark` (``options``: its keyword
    arguments; None = its default) → ``results.json`` + ``results.md``; with ``rankers``,
    the timed CV's full report in ``<output_dir>/cv/``. Returns ``(timings, written)``."""
    from parse_ranking.benchmark import run_benchmark as time_steps
    from parse_ranking.report import write_benchmark_report, write_cv_report

    out = time_steps(**_given(options))
    results = out.pop("cv_results", None)
    cv_written = []
    if results is not None:
        results["data"]["command"] = command
        cv_written = write_cv_report(Path(output_dir) / "cv", results)
    return out, [*write_benchmark_report(output_dir, out, cv_written), *cv_written]
