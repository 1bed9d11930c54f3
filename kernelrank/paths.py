"""Inputs are sacred: no command writes to, truncates, replaces or deletes one of its inputs.

A command declares what it reads and what it writes (:class:`PathSpec`, built from the
parsed arguments by the function its parser registers with :func:`kernelrank.cli.
declare_paths`), and :func:`refuse_overwriting_inputs` checks the two lists **before any
work** (:func:`kernelrank.cli.run_subcommand` calls it after parsing). An output may be

* ``"file"`` — a file written, replaced or truncated (``--output``, a model file): refused
  when it *is* an input (:func:`os.path.samefile`: the same file under another name, through
  a symbolic link or as a hard link) or lies inside an input directory (a model, data or
  treebank folder the command reads);
* ``"tree"`` — a directory replaced or removed as a unit (a saved PPI model, ``OUT.parts``):
  refused when it is an input, holds one, or lies inside an input directory;
* ``"folder"`` — a folder the command writes some files into (``--output-dir``): refused
  when it is an input directory or lies inside one; the files it writes there are listed
  as ``"file"`` outputs when their names are known (``results.json``), and any other write
  is caught at the last moment by :func:`guard_write` (see below).

Inputs are files or directories; an input that does not exist is nothing to protect (the
command reports it missing by itself). The same rules hold for links of any kind: files
are compared by device and inode, and a directory's content by the real path of the
output's nearest existing ancestor.

As a last line of defence, :func:`protected` makes the inputs of the running command known
to :func:`guard_write`, which every atomic writer of :mod:`kernelrank.atomic` calls before
it replaces a file or a directory: a write that no declaration foresaw still cannot replace
an input (it ends in :class:`~kernelrank.errors.InputOverwriteError`; the input stays as it
was).

Cost: one ``stat`` per (input, output) pair and per ancestor of an output — nothing next to
any command's work.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
from dataclasses import dataclass, field
from pathlib import Path

from kernelrank.errors import InputOverwriteError

__all__ = ["PathSpec", "refuse_overwriting_inputs", "protected", "guard_write",
           "OUTPUT_KINDS"]

OUTPUT_KINDS = ("file", "tree", "folder")

#: the inputs of the running command (:func:`protected`), as ``(label, path)``
_PROTECTED = contextvars.ContextVar("kernelrank_protected_inputs", default=())


@dataclass
class PathSpec:
    """What a command reads and writes, from its parsed arguments.

    ``inputs``: ``(label, path)`` pairs — the label names the option (``--input``) for the
    message; a path may be None (option not given) and is skipped. ``outputs``:
    ``(label, path, kind)`` triples, ``kind`` one of :data:`OUTPUT_KINDS`. ``sides``: label
    → ``"input"`` / ``"output"`` of every label declared, with a path or not (an option
    read only when it names an existing folder, ``--spacy-model``, is still a path option).
    """

    inputs: list = field(default_factory=list)
    outputs: list = field(default_factory=list)
    sides: dict = field(default_factory=dict)

    def input(self, label, *paths):
        """Add inputs (None and empty strings are skipped); returns ``self``."""
        self.sides.setdefault(label, "input")
        for p in paths:
            if p is not None and str(p) != "":
                self.inputs.append((label, Path(p)))
        return self

    def output(self, label, path, kind="file"):
        """Add an output of ``kind`` (None is skipped); returns ``self``."""
        if kind not in OUTPUT_KINDS:
            raise ValueError(f"output kind {kind!r}; one of {OUTPUT_KINDS}")
        self.sides.setdefault(label, "output")
        if path is not None and str(path) != "":
            self.outputs.append((label, Path(path), kind))
        return self

    def folder(self, label, path, *names):
        """Add the output folder ``path`` and the files ``names`` written into it (an empty
        ``path`` is the current folder); returns ``self``."""
        path = Path(path or ".")
        self.output(label, path, "folder")
        for name in names:
            self.output(label, path / name, "file")
        return self


def _stat(path):
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _same(a, b):
    """``a`` and ``b`` are the same file or directory (device and inode; links followed)."""
    sa, sb = _stat(a), _stat(b)
    return sa is not None and sb is not None and os.path.samestat(sa, sb)


def _existing_ancestors(path):
    """The existing directories containing ``path`` (its real parent first, then upwards),
    with symbolic links resolved — ``path`` itself excluded."""
    real = Path(os.path.realpath(path))
    return [p for p in real.parents if _stat(p) is not None]


def _inside(path, directory):
    """``path`` lies (at any depth) inside ``directory``, links resolved."""
    return any(_same(p, directory) for p in _existing_ancestors(path))


def _collision(out, kind, inp):
    """How writing ``out`` (of ``kind``) would touch the input ``inp`` — the words between
    the two in a message — or None if it cannot."""
    if _stat(inp) is None:
        return None
    is_dir = os.path.isdir(inp)
    if _same(out, inp):
        return "is the same " + ("folder" if is_dir else "file") + " as"
    if is_dir and _inside(out, inp):
        return "lies inside the folder of"
    if kind == "tree" and _stat(out) is not None and _inside(inp, out):
        return "is replaced as a whole, and it holds"
    return None


def refuse_overwriting_inputs(spec):
    """Raise :class:`InputOverwriteError` when an output of ``spec`` would write, replace or
    delete one of its inputs (module docstring); return ``spec`` otherwise."""
    for out_label, out, kind in spec.outputs:
        for in_label, inp in spec.inputs:
            why = _collision(out, kind, inp)
            if why is not None:
                raise InputOverwriteError(
                    f"{out_label} {out} {why} {in_label} {inp}: the command would "
                    f"overwrite what it reads; nothing was done — choose another "
                    f"{out_label}")
    return spec


@contextlib.contextmanager
def protected(inputs):
    """Make ``inputs`` (``(label, path)`` pairs) the protected inputs of the block:
    :func:`guard_write` refuses to replace any of them (or anything inside an input
    folder)."""
    inputs = tuple((label, Path(p)) for label, p in inputs if _stat(p) is not None)
    token = _PROTECTED.set(_PROTECTED.get() + inputs)
    try:
        yield
    finally:
        _PROTECTED.reset(token)


def guard_write(path, kind="file"):
    """Called by every atomic writer before it replaces ``path``: an
    :class:`InputOverwriteError` when ``path`` is a protected input (:func:`protected`) or
    lies inside one; nothing otherwise (and nothing at all outside a command)."""
    for label, inp in _PROTECTED.get():
        why = _collision(path, kind, inp)
        if why is not None:
            raise InputOverwriteError(
                f"{path} {why} {label} {inp}: writing it would overwrite an input; nothing "
                "was written — choose another output")
