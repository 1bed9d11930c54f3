"""What ``python -m ppi`` checks before a subcommand does any work
(:class:`kernelrank.cli.Checks`): the files and folders each one reads and writes — an
output naming an input is refused (:mod:`kernelrank.paths`) — and the bounds of its numbers.

Every subcommand of :func:`ppi.__main__.build_parser` has an entry; every path option is
declared here as an input or an output, every number option has a bound
(``tests/project/test_trust_probes.py`` checks both, so a new option cannot slip through).
"""

from pathlib import Path

from kernelrank.cli import Checks
from kernelrank.datadir import resolve_data_dir
from kernelrank.paths import PathSpec
from ppi.names import MAX_HASH_FEATURES, MAX_TOP_EDGES

#: bounds of the options of the evaluation and training commands (:func:`_model_options`)
_MODEL_BOUNDS = {"n_basis": (1, 2 ** 31 - 1), "gamma": (0, None),
                 "alphas": (0, None, "open"), "hash_features": (1, MAX_HASH_FEATURES)}

_REPORT = ("results.json", "results.md")


def _data_dir(args, spec):
    """The corpora folder of the data folder (``<data dir>/ppi``: what the commands read;
    the transfer's cache of source models is written beside it, in ``<data dir>/cache``)."""
    return spec.input("--data-dir", resolve_data_dir(getattr(args, "data_dir", None)) / "ppi")


def _relations(spec, args, option, value):
    """``--relations-from`` / ``--select-on`` / ``--gold``: a file, or a relation set of the
    data folder by name (:data:`ppi.names.RELATION_SETS`) — whose folders are inputs in any
    case."""
    from ppi.names import RELATION_SETS

    data = resolve_data_dir(getattr(args, "data_dir", None))
    spec.input("--data-dir", *dict.fromkeys(data / Path(rel).parent
                                            for rel, _ in RELATION_SETS.values()))
    if value in RELATION_SETS and not Path(value).exists():
        return spec.input(option, data / RELATION_SETS[value][0])
    return spec.input(option, value)


def _experiment(*names):
    def paths(args):
        spec = _data_dir(args, PathSpec()).input("--spacy-model",
                                                 _spacy_path(args.spacy_model))
        if hasattr(args, "relations_from"):
            _relations(spec, args, "--relations-from", args.relations_from)
        return spec.folder("--output-dir", args.output_dir, *_REPORT, *names)
    return paths


def _train(args):
    spec = _data_dir(args, PathSpec().input("--input", args.input))
    spec.input("--spacy-model", _spacy_path(args.spacy_model))
    _relations(spec, args, "--relations-from", args.relations_from)
    if args.select_on not in (None, "inner"):
        _relations(spec, args, "--select-on", args.select_on)
    return spec.output("--model", args.model, "tree").folder("--output-dir", args.output_dir,
                                                             *_REPORT)


def _tune_parser(args):
    spec = PathSpec().input("--data-dir" if args.craft_dir is None else "--craft-dir",
                            craft_dir(args))
    spec.input("--base-model", _spacy_path(args.base_model))
    return spec.folder("--output-dir", args.output_dir, "pipeline", *_REPORT)


def craft_dir(args):
    """``--craft-dir``, else the data folder's ``craft/conllu``."""
    if args.craft_dir is not None:
        return Path(args.craft_dir)
    return resolve_data_dir(getattr(args, "data_dir", None)) / "craft" / "conllu"


def _predict(args):
    return PathSpec().input("--input", args.input).input("--model", args.model).folder(
        "--output-dir", args.output_dir, "predictions.tsv", *_REPORT)


def _spacy_path(name):
    """``--spacy-model`` when it names a folder (a model on disk), else None."""
    return name if name and Path(name).exists() else None


def _extract(args):
    from ppi.extraction.extract import run_paths

    out = Path(args.output)
    spec = run_paths(args.input, args.model, out, args.lexicon)
    spec.input("--spacy-model", _spacy_path(args.spacy_model))
    return spec.folder("--output-dir", args.output_dir or out.parent,
                       f"{out.name}.summary.json", f"{out.name}.summary.md")


def _aggregate(args):
    out = Path(args.output)
    return PathSpec().input("--input", args.input).output("--output", out).folder(
        "--output-dir", args.output_dir or out.parent, f"{out.name}.summary.json",
        f"{out.name}.summary.md", f"{out.name}.scores.png")


def _network(args):
    return PathSpec().input("--input", args.input).folder(
        "--output-dir", args.output_dir, "network.tsv", "network.graphml", "network.png",
        *_REPORT)


def _evaluate_documents(args):
    spec = _relations(PathSpec().input("--input", args.input).input("--model", args.model),
                      args, "--gold", args.gold)
    return spec.folder("--output-dir", args.output_dir, *_REPORT)


def _mentions(args):
    spec = _data_dir(args, PathSpec().input("--input", *args.input))
    return spec.output("--output", args.output)


CHECKS = {
    "cv": Checks(_experiment("predictions.tsv", "roc.png"),
                 {**_MODEL_BOUNDS, "folds": (2, 100_000)}),
    "cross-corpus": Checks(_experiment("cross_corpus_auc.png"), _MODEL_BOUNDS),
    "learning-curve": Checks(_experiment("learning_curves.png"),
                             {**_MODEL_BOUNDS, "points": (1, 1000)}),
    "benchmark": Checks(_experiment("roc.png"), _MODEL_BOUNDS),
    "ablation": Checks(_experiment(), {**_MODEL_BOUNDS, "seeds": (0, 2 ** 32 - 1),
                                       "big_seeds": (0, 2 ** 32 - 1)}),
    "train": Checks(_train, _MODEL_BOUNDS),
    "predict": Checks(_predict),
    "extract": Checks(_extract, {"chunk_size": (1, 10 ** 7),
                                 "scheduler_timeout": (0, 86_400, "open")}),
    "aggregate": Checks(_aggregate, {"evidence": (0, 10 ** 6)}),
    "network": Checks(_network, {"top_edges": (1, MAX_TOP_EDGES)}),
    "evaluate-documents": Checks(_evaluate_documents),
    "mentions": Checks(_mentions, {"min_length": (1, 10_000)}),
    "tune-parser": Checks(_tune_parser, {"max_steps": (1, 10 ** 7),
                                         "eval_every": (1, 10 ** 7)}),
}
