"""PPI systems as objects: every featurization, learner and selection choice of a system,
and the behaviours they decide, owned by one :class:`~ppi.systems.base.System` (issue 31).

:data:`SYSTEMS` is the registry ``--system`` chooses from: name → the system's class, one
module each (:mod:`ppi.systems.paper_v`, :mod:`~ppi.systems.multiview`,
:mod:`~ppi.systems.multicorpus`, :mod:`~ppi.systems.text`); ``SYSTEMS[name].defaults`` are
the options it fixes.  ``documents``, learned from document-level relations, is
:mod:`ppi.document_system`.  A new system is one module here and one line in
:data:`SYSTEMS`.

Importing the package imports no NumPy (``python -m ppi --help`` reads the names).
"""

from ppi.systems.base import Settings, System
from ppi.systems.multicorpus import MultiCorpus
from ppi.systems.multiview import MultiViewSystem
from ppi.systems.paper_v import PaperV
from ppi.systems.text import Text

__all__ = ["SYSTEMS", "Settings", "System", "system_of"]

#: The systems ``--system`` names, name → :class:`~ppi.systems.base.System` subclass.
SYSTEMS = {cls.name: cls for cls in (PaperV, MultiViewSystem, MultiCorpus, Text)}


def system_of(settings):
    """The :class:`~ppi.systems.base.System` of ``settings`` (``settings.strategy``)."""
    return settings.strategy
