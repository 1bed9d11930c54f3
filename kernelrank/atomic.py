"""Atomic file output: a reader never sees a half-written file, a crash never loses the old one.

Everything is written to a temporary file in the target's directory, flushed and
``fsync``-ed, then moved over the target with :func:`os.replace` (atomic on POSIX).
"""

import contextlib
import json
import os
import tempfile
from pathlib import Path


@contextlib.contextmanager
def atomic_open(path, mode="w", encoding="utf-8"):
    """Context manager yielding a file object whose content replaces ``path`` on success."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    binary = "b" in mode
    try:
        with os.fdopen(fd, mode, **({} if binary else {"encoding": encoding})) as handle:
            yield handle
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


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
