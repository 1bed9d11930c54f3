"""PPI systems as objects: every featurization, learner and selection choice of a system,
and the behaviours they decide, owned by one :class:`~ppi.systems.base.System`.

:data:`SYSTEMS` is the registry ``--system`` chooses from (:mod:`ppi.systems.registry`):
name → the system's class, each registered by the :func:`~ppi.systems.registry.register`
decorator in its own module (:mod:`ppi.systems.paper_v`, :mod:`~ppi.systems.multiview`,
:mod:`~ppi.systems.multicorpus`, :mod:`~ppi.systems.text`); ``SYSTEMS[name].defaults`` are
the options it fixes.  ``documents``, learned from document-level relations, is
:mod:`ppi.documents.system`.  A new system is one module here, imported below.

Beside the systems: what they learn from (:mod:`~ppi.systems.inputs`), the parts they are
composed of (:mod:`~ppi.systems.parts`), training a model (:mod:`~ppi.systems.training`)
and the choice of λ and β on development abstracts (:mod:`~ppi.systems.development`).

Importing the package imports no NumPy (``python -m ppi --help`` reads the names).
"""

# each module registers its system; the order is the registry's (and the help's)
from ppi.systems import paper_v  # noqa: F401
from ppi.systems import multiview  # noqa: F401
from ppi.systems import multicorpus  # noqa: F401
from ppi.systems import text  # noqa: F401
from ppi.documents import system as _documents  # noqa: F401
from ppi.systems.base import Settings, System
from ppi.systems.registry import SYSTEMS, register

__all__ = ["SYSTEMS", "Settings", "System", "register", "system_of"]


def system_of(settings):
    """The :class:`~ppi.systems.base.System` of ``settings`` (``settings.strategy``)."""
    return settings.strategy
