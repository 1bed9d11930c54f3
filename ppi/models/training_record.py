"""What a saved PPI model learned from, read from its ``model.json`` alone (without the
weights): its ``training`` record (:func:`read_training`), the corpora whose labels it saw
(:func:`learned_from`), and the refusal to test a model on them
(:func:`check_not_learned_from`).  O(size of ``model.json``).
"""

from __future__ import annotations

from pathlib import Path

from kernelrank.errors import DataNotFoundError, InvalidParameterError
from ppi.models.formats import read_meta

__all__ = ["read_training", "learned_from", "check_not_learned_from"]


def read_training(directory):
    """The ``training`` record of the model saved in ``directory`` — what it learned from
    (e.g. a ``documents`` model's entity and relation types, :func:`ppi.extraction.records.
    pair_definition`) — from ``model.json`` alone, checked as :meth:`PPIModel.load` checks
    it, without reading the weights.  O(size of ``model.json``).

    Raises
    ------
    DataNotFoundError
        ``directory`` does not hold ``model.json``.
    CorpusFormatError
        ``model.json`` is damaged, altered or of another format (the message names it).
    """
    path = Path(directory) / "model.json"
    if not path.is_file():
        raise DataNotFoundError(f"{directory} is not a saved PPI model (no model.json); "
                                "create one with `python -m ppi train`")
    training = read_meta(path).get("training")
    return training if isinstance(training, dict) else {}


def learned_from(training):
    """The names of the corpora whose labels a model with the ``training`` record
    (:func:`read_training`) learned from: its training corpus and, with transfer, the
    source corpora of its prior (a mention-level model's ``transfer.sources``, a
    ``documents`` model's ``system.sources``).  A corpus in this set is no test of the
    model.  O(1)."""
    names = set()
    if isinstance(training.get("corpus"), str):
        names.add(training["corpus"])
    transfer = training.get("transfer")
    if isinstance(transfer, dict):
        names.update(transfer.get("sources") or ())
    system = training.get("system")
    if isinstance(system, dict) and system.get("transfer"):
        names.update(system.get("sources") or ())
    return names


def check_not_learned_from(models, corpora):
    """Refuse to test saved ``models`` on ``corpora`` (names) they learned from — a training
    corpus or a source of the transfer prior (:func:`learned_from`; ``ppi train --corpus
    AIMed`` takes every other benchmark corpus as a source unless ``--sources`` says
    otherwise): :class:`~kernelrank.errors.InvalidParameterError` naming model and corpora.
    O(size of each ``model.json``)."""
    for model in models:
        leaked = sorted(learned_from(read_training(model)) & set(corpora))
        if leaked:
            raise InvalidParameterError(
                f"{model} learned from {', '.join(leaked)} (its training corpus or a source "
                "of its transfer prior), so its score there is no test; train it with "
                "--sources leaving them out (e.g. `ppi train --corpus AIMed --sources "
                "BioInfer`) or do not test it on them")
