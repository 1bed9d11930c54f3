"""What ``ppi train`` refuses to save, and why (every ``train`` either saves a model that
``predict`` loads, or exits 2 with the reason).

* :func:`check_training_set` — before any work: no candidate pair, pairs of one class only,
  fewer than 2 documents (λ and the threshold are chosen by leave-one-document-out);
* :func:`check_fit` — after the selection: a non-finite λ, F or threshold — the best-F
  threshold below every score (every pair predicted to interact: a model that says nothing,
  whose threshold −∞ no strict JSON can hold) included.

Each raises :class:`~kernelrank.errors.UnsaveableError` naming the file and what to do.
"""

from kernelrank.errors import UnsaveableError

__all__ = ["check_training_set", "check_fit"]

_MORE = "train on a corpus with more documents"


def check_training_set(y, documents, path):
    """A training set no model can be selected on is a typed error before any work: no
    candidate pair, pairs of one class only, or fewer than 2 documents (λ and the threshold
    are chosen by leave-one-document-out)."""
    import numpy as np

    y, documents = np.asarray(y), np.asarray(documents)
    if y.size == 0:
        raise UnsaveableError(f"{path}: no candidate pair (a sentence with two entities and "
                              f"a <pair> element) to train on; {_MORE}")
    labels = np.unique(y)
    if labels.size < 2:
        which = "interacting" if labels[0] > 0 else "non-interacting"
        raise UnsaveableError(f"{path}: all {y.size} candidate pairs are {which}; a model "
                              f"needs pairs of both kinds — {_MORE}, or check the "
                              "interaction attributes of its <pair> elements")
    n_docs = np.unique(documents).size
    if n_docs < 2:
        raise UnsaveableError(f"{path}: the {y.size} candidate pairs come from {n_docs} "
                              "document; λ and the threshold are chosen by "
                              f"leave-one-document-out, which needs at least 2 — {_MORE}")


def check_fit(choice, y, path):
    """A fit whose model would be useless or could not be saved is a typed error at
    training time: a non-finite λ, F or threshold — the best-F threshold below every score
    (every pair predicted to interact) included."""
    import math

    import numpy as np

    bad = [k for k in ("alpha", "threshold", "f1") if not math.isfinite(float(choice[k]))]
    if bad == ["threshold"] and choice["threshold"] < 0:
        share = float(np.mean(np.asarray(y) > 0))
        raise UnsaveableError(
            f"{path}: the leave-one-document-out threshold that maximises F predicts every "
            f"pair to interact (F {100 * choice['f1']:.1f}, with {100 * share:.0f}% of the "
            f"{len(y)} pairs interacting): the scores do not separate the classes, and such "
            f"a model says nothing — {_MORE}, or choose another system or --views")
    if bad:
        raise UnsaveableError(f"{path}: the fit gives a non-finite {', '.join(bad)} "
                              f"({choice}); {_MORE}, or choose another system")
