"""``paper-v`` — Airola et al. 2008 (Paper V) as published: the all-paths graph kernel on
``--parse`` alone, the published code's pair order, λ by the inner leave-one-document-out F,
Paper V's sparse (reduced-set) RLS.  Tables 1–5 of the paper reproduce with it."""

from ppi.systems.base import System
from ppi.systems.registry import register

__all__ = ["PaperV"]


@register
class PaperV(System):
    """Paper V's system (module docstring); saved as model format version 3."""

    name = "paper-v"
    defaults = {"order": "pair", "endpoints": "all", "select_by": "f1",
                "learner": "reduced_set",
                "views": None}                 # None: the all-paths kernel on --parse
    summary = ("Airola et al. 2008 as published (pair order, lambda by inner F, the all-paths "
               "kernel on --parse)")
