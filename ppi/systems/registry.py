"""The registry of PPI systems: the one list of what ``--system`` can name.

A system registers itself where it is defined, with the :func:`register` decorator (the
pattern of spaCy's ``@Language.factory``); importing :mod:`ppi.systems` imports every system
module, so the registry is complete once the package is imported.  Nothing else names the
systems: the command line's choices, their help and the options each one reads come from
the registered classes.

Importing this module imports no NumPy.
"""

__all__ = ["SYSTEMS", "register"]

#: name → the registered system class, in the order the classes were registered
SYSTEMS = {}


def register(cls):
    """Class decorator: add ``cls`` to :data:`SYSTEMS` under ``cls.name``.

    Raises
    ------
    ValueError
        When ``cls`` has no name or another class is registered under it.
    """
    name = getattr(cls, "name", None)
    if not name:
        raise ValueError(f"{cls.__qualname__} has no name to be registered under")
    if name in SYSTEMS and SYSTEMS[name] is not cls:
        raise ValueError(f"two systems named {name!r}: {SYSTEMS[name].__qualname__} and "
                         f"{cls.__qualname__}")
    SYSTEMS[name] = cls
    return cls
