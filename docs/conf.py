"""Sphinx configuration of the kernelrank documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html`` (and ``-b doctest``
for the executed examples), after ``pip install -e ".[docs]"``. Why Sphinx with numpydoc (and
MyST for the Markdown pages) rather than mkdocs with mkdocstrings: every docstring of the
package is numpydoc with Sphinx roles (``:class:``, ``:func:``, ``:mod:``), which Sphinx
resolves into links and mkdocstrings would print as raw text; ``sphinx.ext.doctest`` runs
the examples of the guide when the docs are built, with no extra gallery machinery; and the
results pages stay Markdown that reads the same on a code host as on the site.
"""

import os
import sys

DOCS = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(DOCS))           # the packages of this checkout
sys.path.insert(0, os.path.join(DOCS, "_ext"))

import kernelrank  # noqa: E402

project = "kernelrank"
author = "the kernelrank developers"
copyright = "the kernelrank developers, MIT licence"
version = release = kernelrank.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.doctest",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
    "kernelrank_api",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]

# MyST: GitHub-style anchors for headings down to level 3 (the README links to them)
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence", "dollarmath"]

# autodoc + numpydoc
autodoc_member_order = "bysource"
autodoc_typehints = "none"                 # the numpydoc "Parameters" sections say the types
numpydoc_show_class_members = False        # members are documented by autodoc itself
numpydoc_class_members_toctree = False

# the executed examples (``sphinx-build -b doctest``): every page's doctest blocks
doctest_global_setup = """
import numpy as np
np.set_printoptions(precision=4, suppress=True)
"""

html_theme = "furo"
html_title = f"kernelrank {release}"
html_static_path = []

# The doctest builder runs the examples of the narrative pages; the API pages hold none (no
# docstring has a ``>>>`` example), so they are left out of that build only — the html
# build, which checks every page and link, reads them all.
if tags.has("doctest"):  # noqa: F821 — `tags` is given to conf.py by Sphinx
    exclude_patterns.append("api")
    suppress_warnings = ["toc.excluded", "myst.xref_missing"]
