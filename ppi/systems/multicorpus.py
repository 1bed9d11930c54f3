"""``multicorpus`` — the default of the evaluation commands: ``multiview`` plus the
mention-pair view (``pair``), the Gaussian of the summed kernel (γ = 1) and transfer from
the other corpora (each corpus learns towards the mean of the other benchmark corpora's
models, ``f = β g + h``; :mod:`ppi.learning.transfer`)."""

from ppi.names import MULTIVIEW_VIEWS
from ppi.systems.base import System
from ppi.systems.registry import register

__all__ = ["MultiCorpus"]


@register
class MultiCorpus(System):
    """The ``multicorpus`` system (module docstring); saved as model format version 5."""

    name = "multicorpus"
    defaults = {"order": "text", "endpoints": "all", "select_by": "auc", "learner": "auto",
                "views": MULTIVIEW_VIEWS + ("pair",), "gamma": 1.0, "transfer": True}
    summary = ("multiview + the mention-pair view, the Gaussian of the sum (gamma 1) and "
               "transfer from the other corpora (--transfer)")
