"""kernelrank — the ground floor shared by every package of the project.

It holds the plumbing, and imports nothing else of ours (only the standard library and a few
light third-party packages), so every package can use it without an import cycle and a
command's ``--help`` stays fast:

* :mod:`kernelrank.errors` — the typed errors (:class:`KernelrankError` and subclasses);
* :mod:`kernelrank.atomic` — atomic file output (text, strict JSON, PNG, NumPy archives),
  validated before it replaces anything, and consistent reads of what is being replaced;
* :mod:`kernelrank.paths` — no command writes one of its inputs;
* :mod:`kernelrank.datadir` — where data lives (``--data-dir``, ``$KERNELRANK_DATA``, cache);
* :mod:`kernelrank.cli` — the one command-line convention of the five commands: the shared
  options (:mod:`kernelrank.options`), the grid syntax (:mod:`kernelrank.grid`), the checks
  before any work (:mod:`kernelrank.checks`) and how a command ends (:mod:`kernelrank.exits`);
* :mod:`kernelrank.report` — ``results.json`` + ``results.md`` reports;
* :mod:`kernelrank.parallel` — the Dask task runner (:func:`~kernelrank.parallel.map_tasks`);
* :mod:`kernelrank.chunks` — the resumable map of a function over the chunks of an input into
  one output (:func:`~kernelrank.chunks.map_chunks`);
* :mod:`kernelrank.lock` — one run per output;
* :mod:`kernelrank.sealed` — the sealed model file (JSON + arrays, their sha256 and a seal);
* :mod:`kernelrank.memory` — freed heap memory handed back to the system.

Layers (each imports only the ones below it): ``kernelrank`` → ``learners`` (the engine:
kernels, learners, fast cross-validation, model selection, measures) and ``corpora`` (data in
and out) → the applications ``ppi``, ``homology``, ``parse_ranking`` and ``letor``.
"""

#: the version of the kernelrank distribution (``pyproject.toml`` reads it from here; every
#: console command prints it with ``--version``)
__version__ = "0.1.0"

from kernelrank.errors import (  # noqa: E402
    ChecksumMismatchError,
    ConcurrentChangeError,
    CorpusFormatError,
    DataNotFoundError,
    InputOverwriteError,
    InvalidInputError,
    InvalidParameterError,
    KernelrankError,
    NoPreferenceWarning,
    UndefinedMeasureError,
    UnsaveableError,
)

__all__ = [
    "ChecksumMismatchError",
    "ConcurrentChangeError",
    "CorpusFormatError",
    "DataNotFoundError",
    "InputOverwriteError",
    "InvalidInputError",
    "InvalidParameterError",
    "KernelrankError",
    "NoPreferenceWarning",
    "UndefinedMeasureError",
    "UnsaveableError",
]
