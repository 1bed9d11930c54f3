"""A homology detector for your own family: train it from FASTA files and save it
(:func:`train_from_fasta`), score the sequences of a FASTA file with it (:func:`score_fasta`).

The model and its file format are :mod:`homology.model`'s; λ is chosen by leave-one-out ROC
(or ROC50) on the training sequences.
"""

from pathlib import Path

from homology.runs import default_alphas
from kernelrank.errors import InvalidParameterError

__all__ = ["train_from_fasta", "score_fasta", "train_paths", "predict_paths"]


def train_paths(positives, negatives, model_path):
    """What :func:`train_from_fasta` reads and writes (:class:`kernelrank.paths.PathSpec`)."""
    from kernelrank.paths import PathSpec

    return (PathSpec().input("--positives", positives).input("--negatives", negatives)
            .output("--model", model_path))


def predict_paths(model_path, input, output):
    """What :func:`score_fasta` reads and writes (:class:`kernelrank.paths.PathSpec`)."""
    from kernelrank.paths import PathSpec

    return PathSpec().input("--model", model_path).input("--input", input).output(
        "--output", output)


def _output_file(path, option):
    """Refuse at once an output ``path`` that is a directory (it would fail only at the
    end, after the work, with an ``IsADirectoryError``)."""
    if Path(path).is_dir():
        raise InvalidParameterError(f"{option} {path} is a directory; give a file name")


def train_from_fasta(positives, negatives, model_path, kernel, options, *, alphas=None,
                     learner="l2svm", select="roc"):
    """Fit ``learner`` on the sequences of the FASTA files ``positives`` (family members)
    and ``negatives`` with ``kernel`` (``options`` as :func:`homology.runs.kernel_options`)
    and save it to ``model_path``. Returns the model's metadata."""
    from corpora.fasta import read_fasta
    from homology.model import save_model, train_model
    from kernelrank.paths import refuse_overwriting_inputs

    _output_file(model_path, "--model")
    refuse_overwriting_inputs(train_paths(positives, negatives, model_path))
    model = train_model(read_fasta(positives), read_fasta(negatives), kernel, options,
                        default_alphas(learner, alphas), learner, select)
    save_model(model_path, model)
    return model["meta"]


def score_fasta(model_path, input, output):
    """Score every sequence of the FASTA file ``input`` with the saved model; write the TSV
    ``id<TAB>score`` (higher = more likely a member) to ``output`` atomically. Returns the
    number of sequences scored."""
    from corpora.fasta import read_fasta
    from homology.model import load_model, predict_scores
    from kernelrank.atomic import atomic_open
    from kernelrank.paths import refuse_overwriting_inputs

    _output_file(output, "--output")
    refuse_overwriting_inputs(predict_paths(model_path, input, output))
    model = load_model(model_path)
    records = read_fasta(input)
    scores = predict_scores(model, [r.seq for r in records])
    with atomic_open(output) as handle:
        handle.write("id\tscore\n")
        for r, s in zip(records, scores):
            handle.write(f"{r.id}\t{s:.8g}\n")
    return len(records)
