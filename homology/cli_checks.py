"""What ``python -m homology`` checks before a subcommand does any work
(:class:`kernelrank.cli.Checks`): the files each one reads and writes — an output naming an
input is refused (:mod:`kernelrank.paths`: ``predict --input F.fa --output F.fa`` would
overwrite the FASTA with its scores) — and the bounds of its numbers."""

from kernelrank.cli import Checks
from kernelrank.datadir import resolve_data_dir
from kernelrank.paths import PathSpec

#: the kernel options (``k`` ≤ 14: 20^k k-mer codes fit in 63 bits; ``m`` ≤ 4 mismatches:
#: C(k, m) wildcard blocks of every k-mer are held in memory; the local alignment's β
#: above what its scaled programme holds is refused by the kernel, before any alignment;
#: ``--weight``, a list, is read by ``homology.__main__._weights``)
_KERNEL_BOUNDS = {"k": (1, 14), "m": (0, 4), "half_width": (0, 1000),
                  "theta": (0, None, "open"), "gamma": (0, None, "open"),
                  "beta": (0, None, "open"), "gap_open": (0, None), "gap_extend": (0, None)}

_SCOP_OUTPUTS = ("results.json", "results.md", "roc50_families.png", "roc_families.png")


def _evaluation(args):
    """The benchmark's folder is the input (the local-alignment Gram matrices are cached
    beside it, in ``<data dir>/cache``)."""
    return PathSpec().input("--data-dir", resolve_data_dir(args.data_dir) / "scop153").folder(
        "--output-dir", args.output_dir, *_SCOP_OUTPUTS)


def _train(args):
    from homology.training import train_paths

    return train_paths(args.positives, args.negatives, args.model)


def _predict(args):
    from homology.training import predict_paths

    return predict_paths(args.model, args.input, args.output)


CHECKS = {"scop": Checks(_evaluation, _KERNEL_BOUNDS),
          "benchmark": Checks(_evaluation),
          "train": Checks(_train, _KERNEL_BOUNDS),
          "predict": Checks(_predict)}
