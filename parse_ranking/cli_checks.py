"""What ``python -m parse_ranking`` checks before a subcommand does any work
(:class:`kernelrank.cli.Checks`): the files and folders each one reads and writes — an
output naming an input is refused (:mod:`kernelrank.paths`) — and the bounds of its numbers."""

from pathlib import Path

from kernelrank.cli import Checks
from kernelrank.datadir import resolve_data_dir
from kernelrank.paths import PathSpec

_LEARNING = {"max_parses": (1, 10 ** 6), "max_sentences": (1, 10 ** 9), "window": (0, 1000),
             "theta": (0, None, "open")}
_COREG = {"coreg_basis": (0, 10 ** 7), "coreg_inner_folds": (2, 1000)}


def _build(args):
    out = Path(args.output)
    spec = PathSpec().input("--treebank", args.treebank)
    if args.treebank is None:                    # the data folder's trees
        spec.input("--data-dir", resolve_data_dir(args.data_dir) / "craft" / "conllu")
    return (spec.output("--output", out).output("--output", f"{out}.meta.json")
            .output("--output", f"{out}.lock"))


def _cv(args):
    return PathSpec().input("--data", args.data).folder(
        "--output-dir", args.output_dir, "results.json", "results.md", "results.png")


def _train(args):
    stem = Path(args.output_model)
    return (PathSpec().input("--data", args.data)
            .output("--output-model", stem.with_suffix(".json"))
            .output("--output-model", stem.with_suffix(".npz")))


def _rank(args):
    stem = Path(args.model)
    return PathSpec().input("--model", stem.with_suffix(".json"), stem.with_suffix(".npz"))


def _benchmark(args):
    return (PathSpec().input("--treebank", args.treebank).input("--data", args.data)
            .folder("--output-dir", args.output_dir, "results.json", "results.md"))


CHECKS = {
    "build": Checks(_build, {"max_parses": (1, 10 ** 6), "linkage_limit": (1, 10 ** 7),
                             "max_sentences": (1, 10 ** 9), "min_length": (1, 10_000),
                             "max_length": (1, 10_000), "timeout": (1, 86_400),
                             "chunk_size": (1, 10 ** 7)}),
    "cv": Checks(_cv, {**_LEARNING, **_COREG, "folds": (2, 10_000), "noise": (0, None),
                       "max_pairs": (1, 2 ** 40), "labelled_fraction": (0, 1, "open")}),
    "train": Checks(_train, {**_LEARNING, **_COREG}),
    "rank": Checks(_rank, {"max_parses": (1, 10 ** 6), "top": (1, 10 ** 6)}),
    "benchmark": Checks(_benchmark, {**_COREG, "sentences": (1, 10 ** 9),
                                     "gram_parses": (1, 10 ** 8), "folds": (2, 10_000),
                                     "max_parses": (1, 10 ** 6),
                                     "max_sentences": (1, 10 ** 9)}),
}
