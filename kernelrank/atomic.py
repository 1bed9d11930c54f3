"""Atomic file output: a reader never sees a half-written file, a crash never loses the old one.

Everything is written to a temporary file in the target's directory, flushed and
``fsync``-ed, then moved over the target with :func:`os.replace` (atomic on POSIX). A
directory of several files that belong together (a saved model) is written the same way as
a unit: :func:`atomic_directory`.

Files and directories get the permissions a plain ``open`` / ``mkdir`` would give them (the
user's umask), not the private 0600 / 0700 of :mod:`tempfile`. A failed write (disk full,
quota) raises an :class:`OSError` that names the target file, so the command line reports
``error: <path>: No space left on device`` instead of a traceback, and the temporary file is
removed.
"""

import contextlib
import errno
import json
import os
import shutil
import tempfile
from pathlib import Path

from kernelrank.errors import InvalidParameterError


@contextlib.contextmanager
def atomic_open(path, mode="w", encoding="utf-8"):
    """Context manager yielding a file object whose content replaces ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.is_dir():
        raise InvalidParameterError(f"{path} is a directory; give a file name for this "
                                    "output")
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    binary = "b" in mode
    try:
        os.fchmod(fd, 0o666 & ~_umask())   # mkstemp's 0600 → what open() would have made
        with os.fdopen(fd, mode, **({} if binary else {"encoding": encoding})) as handle:
            yield handle
            try:
                handle.flush()
                os.fsync(handle.fileno())
            except OSError as exc:
                raise named_os_error(exc, path) from exc
        os.replace(tmp, path)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        if isinstance(exc, OSError) and named_os_error(exc, path) is not exc:
            raise named_os_error(exc, path) from exc
        raise


#: errors of a failed write (disk full, quota, file too large, read-only, I/O error)
WRITE_ERRNOS = frozenset(getattr(errno, name) for name in
                         ("ENOSPC", "EDQUOT", "EFBIG", "EROFS", "EIO") if hasattr(errno, name))


def named_os_error(exc, path):
    """``exc`` (an :class:`OSError` of a failed write, which names no file) as the same
    kind of error naming ``path``; any other error is returned unchanged."""
    if exc.filename is not None or exc.errno not in WRITE_ERRNOS:
        return exc
    return OSError(exc.errno, exc.strerror or os.strerror(exc.errno), str(path))


@contextlib.contextmanager
def atomic_directory(path):
    """Context manager yielding a fresh temporary sibling directory that replaces ``path``
    (a directory) as a unit on success.

    The files are written into ``.<name>.<random>.tmp`` next to ``path``; on success an
    existing ``path`` is renamed aside, the new directory renamed to ``path`` and the old one
    removed, so a reader sees either the old or the new directory, never a mixture. On an
    exception (or a kill) the old directory is untouched; a kill between the two renames
    leaves the old one as ``.<name>.<random>.old`` beside it. ``path`` may not be a file.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise InvalidParameterError(f"{path} is a file; a directory is written there")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        os.chmod(tmp, 0o777 & ~_umask())   # mkdtemp's 0700 → what mkdir would have made
        yield tmp
        old = None
        if path.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".old",
                                        dir=path.parent))
            os.replace(path, old)          # an empty directory is replaced by rename
        os.replace(tmp, path)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _umask():
    """The process's umask (read from ``/proc`` where possible: setting it to read it back
    would briefly change it for every thread)."""
    with contextlib.suppress(OSError, ValueError):
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def write_text(path, text):
    """Write ``text`` to ``path`` atomically."""
    with atomic_open(path) as handle:
        handle.write(text)


def write_json(path, obj):
    """Write ``obj`` as indented JSON to ``path`` atomically (NumPy scalars/arrays allowed)."""
    with atomic_open(path) as handle:
        json.dump(obj, handle, indent=2, default=_json_default)
        handle.write("\n")


def save_figure(fig, path, **kwargs):
    """Save a matplotlib figure as PNG atomically."""
    with atomic_open(path, "wb") as handle:
        fig.savefig(handle, format="png", **kwargs)


def _json_default(obj):
    import numpy as np

    if isinstance(obj, np.generic):
        return obj.item()
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"cannot write {type(obj).__name__} as JSON")
