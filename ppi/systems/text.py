"""``text`` — the default of ``ppi train``, the model for raw text: trained on the parse raw
text gets (spaCy's, added to the corpus sentences and cached; parser-matched), linear (one
weight vector: extraction at the parser's speed), with the pair and local views and
transfer from the other corpora (the mean of their spaCy-parsed models; linear too).  It
learns from BioRED's training abstracts as well, the literature the model is for: half of
them (by document id) join the training pairs with their document-level relations as
single-instance labels, and the other half chooses λ and β by the document-level AUC
(:mod:`ppi.systems.development`) — not the training corpus' own held-out documents."""

from ppi.systems.base import System
from ppi.systems.registry import register

__all__ = ["Text"]


@register
class Text(System):
    """The ``text`` system (module docstring); saved as model format version 4."""

    name = "text"
    defaults = {"order": "text", "endpoints": "all", "select_by": "auc", "learner": "auto",
                "views": ("apg:spacy", "path:spacy", "bow", "pair", "local"),
                "bow_parse": "spacy", "transfer": True}
    development_set = "biored"
    trains_on_development = True
    summary = ("the model for raw text: spaCy's parse (the one raw text gets), linear, with "
               "the pair and local views and transfer, trained also on half of BioRED's "
               "abstracts, lambda and beta chosen on the other half (--select-on)")
