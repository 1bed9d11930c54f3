"""The API reference pages, written when the build starts (``api/*.rst``, not committed).

One page per public module of every package (a module or package whose dotted name has no
part starting with ``_``): its docstring and, for a module, every public member with its
docstring (``__all__`` when the module defines one, else every public class and function
defined in it). A package's page lists the names it exports with a link to where each is
defined. A public class or function without a docstring, or a module without one, is a
build warning — and the CI build turns warnings into errors — so the reference stays complete.
"""

import importlib
import inspect
import pkgutil
from pathlib import Path

from sphinx.util import logging

logger = logging.getLogger(__name__)

#: the packages of the distribution, in the order of the reference
PACKAGES = ("learners", "corpora", "ppi", "homology", "parse_ranking", "letor", "kernelrank")
TITLES = {
    "learners": "learners — the engine: learners, kernels, measures, model selection",
    "corpora": "corpora — readers, writers, checksums, download",
    "ppi": "ppi — protein–protein interaction extraction",
    "homology": "homology — remote homology detection",
    "parse_ranking": "parse_ranking — ranking Link Grammar parses",
    "letor": "letor — the LETOR protocol",
    "kernelrank": "kernelrank — the ground floor: errors, atomic files, CLI, Dask",
}


def public_modules(package):
    """``package`` and its public submodules, depth first, in name order."""
    yield package
    root = importlib.import_module(package)
    for info in sorted(pkgutil.walk_packages(root.__path__, package + "."),
                       key=lambda m: m.name):
        if not any(part.startswith("_") for part in info.name.split(".")):
            yield info.name


def public_members(module):
    """The documented names of a module: ``__all__``, else its own public classes and
    functions."""
    names = getattr(module, "__all__", None)
    if names is not None:
        return list(names)
    return [k for k, v in vars(module).items()
            if not k.startswith("_") and (inspect.isclass(v) or inspect.isfunction(v))
            and getattr(v, "__module__", None) == module.__name__]


def _title(text, char="="):
    return f"{text}\n{char * len(text)}\n"


def _package_page(name, module):
    lines = [_title(f"``{name}``"), f".. automodule:: {name}", "   :no-members:", ""]
    exported = getattr(module, "__all__", None)
    if exported:
        lines += [".. rubric:: Exported names", ""]
        for attr in exported:
            obj = getattr(module, attr)
            home = getattr(obj, "__module__", None) or name
            role = "class" if inspect.isclass(obj) else "func" if callable(obj) else "data"
            target = f"{home}.{attr}" if home != name else f"{name}.{attr}"
            lines.append(f"* :py:{role}:`{name}.{attr} <{target}>`")
        lines.append("")
    return "\n".join(lines)


def _module_page(name):
    return "\n".join([_title(f"``{name}``"), f".. automodule:: {name}", "   :members:",
                      "   :show-inheritance:", ""])


def _check_docstrings(name, module, doctest):
    """Warn about a public module, class or function without a docstring; in the doctest
    build (which leaves the API pages out, ``conf.py``), about a docstring with a ``>>>``
    example, which that build would not run."""
    if not inspect.getdoc(module):
        logger.warning(f"module {name} has no docstring")
    if doctest and ">>>" in (module.__doc__ or ""):
        logger.warning(f"module {name}: a docstring example; run the API pages in the "
                       "doctest build (conf.py)")
    if hasattr(module, "__path__"):
        return
    for attr in public_members(module):
        obj = getattr(module, attr)
        if (inspect.isclass(obj) and obj.__doc__ is None) or (
                inspect.isfunction(obj) and not inspect.getdoc(obj)):
            logger.warning(f"{name}.{attr} is public and has no docstring")
        if doctest and (inspect.isclass(obj) or inspect.isfunction(obj)):
            docs = [obj.__doc__] + ([getattr(v, "__doc__", None) for v in vars(obj).values()
                                     if callable(v)] if inspect.isclass(obj) else [])
            if any(">>>" in (d or "") for d in docs):
                logger.warning(f"{name}.{attr}: a docstring example; run the API pages in "
                               "the doctest build (conf.py)")


def write_api_pages(app):
    """Write ``api/index.rst`` and one page per public module into the source folder."""
    out = Path(app.srcdir) / "api"
    out.mkdir(exist_ok=True)
    index = [_title("API reference"),
             "Generated from the docstrings (numpydoc) of every public module. Import "
             "paths: the names a package exports (``from learners import RLS``) are "
             "listed on its page and documented where they are defined.", ""]
    for package in PACKAGES:
        index += [".. toctree::", f"   :caption: {TITLES[package]}", "   :maxdepth: 1", ""]
        for name in public_modules(package):
            module = importlib.import_module(name)
            _check_docstrings(name, module, app.builder.name == "doctest")
            page = (_package_page(name, module) if hasattr(module, "__path__")
                    else _module_page(name))
            path = out / f"{name}.rst"
            if not path.exists() or path.read_text() != page:   # unchanged pages stay cached
                path.write_text(page)
            index.append(f"   {name}")
        index.append("")
    text = "\n".join(index)
    path = out / "index.rst"
    if not path.exists() or path.read_text() != text:
        path.write_text(text)


def skip_member(app, what, name, obj, skip, options):
    """Leave out scikit-learn's generated metadata-routing setters (``set_fit_request``
    …): they are scikit-learn's, documented there, and their docstrings use its glossary."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("builder-inited", write_api_pages)
    app.connect("autodoc-skip-member", skip_member)
    return {"parallel_read_safe": True, "version": "1"}
