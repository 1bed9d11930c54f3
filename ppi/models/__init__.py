"""Saved PPI models: the model classes, one per format version, that save themselves and
score new pairs (:mod:`~ppi.models.classes`), and the format with its reading and checking
(:mod:`~ppi.models.formats`).  ``from ppi.models import PPIModel`` is the door; the names are
imported on first use.
"""

from kernelrank.lazy import lazy_exports

_LAZY = {name: "ppi.models.classes" for name in (
    "PPIModel", "SingleViewModel", "MultiViewModel", "GaussianModel", "DocumentModel",
    "load_model", "read_training", "learned_from", "check_not_learned_from")}
__all__ = sorted(_LAZY)
__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
