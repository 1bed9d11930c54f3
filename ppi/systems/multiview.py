"""``multiview`` — the multi-view system: text order, λ by the inner AUC, the all-paths
kernels of both parses of the corpus files plus the bag-of-words and shortest-path views,
their normalized kernels summed (Miwa et al. 2009; :mod:`ppi.representation.views`), linear."""

from ppi.names import MULTIVIEW_VIEWS
from ppi.systems.base import System
from ppi.systems.registry import register

__all__ = ["MultiViewSystem"]


@register
class MultiViewSystem(System):
    """The ``multiview`` system (module docstring); saved as model format version 4."""

    name = "multiview"
    defaults = {"order": "text", "endpoints": "all", "select_by": "auc", "learner": "auto",
                "views": MULTIVIEW_VIEWS}
    summary = ("text order, lambda by inner AUC, all-paths kernels of both parses + bag of "
               "words + shortest-path walks, summed normalized kernels")
