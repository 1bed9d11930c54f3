"""Package attributes imported on first use (PEP 562), so importing a package — and building
a command's parser, which imports it — stays cheap (no NumPy, scikit-learn, spaCy, …)."""

import importlib
import sys


def lazy_exports(package, names):
    """``(__getattr__, __dir__)`` for ``package`` whose public ``names`` (name → module) are
    imported when first accessed, then cached in the package's namespace.

    Usage in an ``__init__.py``::

        __getattr__, __dir__ = lazy_exports(__name__, {"RLS": "learners.rls", ...})
    """

    def __getattr__(name):
        if name in names:
            value = getattr(importlib.import_module(names[name]), name)
            setattr(sys.modules[package], name, value)
            return value
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    def __dir__():
        return sorted(set(vars(sys.modules[package])) | set(names))

    return __getattr__, __dir__
