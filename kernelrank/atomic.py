"""Atomic file output: a reader never sees a half-written file, a crash never loses the old one.

Everything is written to a temporary file in the target's directory, flushed and
``fsync``-ed, then moved over the target with :func:`os.replace` (atomic on POSIX). A
directory of several files that belong together (a saved model) is written the same way as
a unit: :func:`atomic_directory` (on Linux the two directories are exchanged in one step,
``renameat2(RENAME_EXCHANGE)``, so the path never goes missing).

What is saved can be loaded: a writer given ``validate`` runs it on the finished temporary
file (directory) — the checks its reader applies — before anything is replaced; a failure is
an :class:`~kernelrank.errors.UnsaveableError` and the old file stays. No writer replaces an
input of the running command (:func:`kernelrank.paths.guard_write`). JSON is strict
(:func:`strict_json`): NaN and ±Infinity, which strict readers refuse, are written as
``null`` and listed with what they were under the key ``"non_finite"``. NumPy archives are
written byte for byte reproducibly (:func:`save_npz`: fixed member dates), so a loaded
model saves again to the same bytes. A reader of something another run may be replacing
reads it through :func:`read_consistently`: it sees the old or the new content, or a
retryable :class:`~kernelrank.errors.ConcurrentChangeError`, never a raw ``OSError``.

Files and directories get the permissions a plain ``open`` / ``mkdir`` would give them (the
user's umask), not the private 0600 / 0700 of :mod:`tempfile`. A failed write (disk full,
quota) raises an :class:`OSError` that names the target file, so the command line reports
``error: <path>: No space left on device`` instead of a traceback, and the temporary file is
removed.

Caches are an optimisation, written and read through :func:`write_cache_file` and
:func:`read_cache_file`: a cache folder that cannot be made or written (read-only, a file in
its place, a full disk) is one warning per folder — the folder, the reason and the option or
environment variable that moves it, never a temporary file — and the run goes on without it
(:func:`cache_unwritable`); a cache file that cannot be read or is damaged is a warning and
its content is computed again.
"""

import contextlib
import ctypes
import errno
import json
import logging
import math
import os
import shutil
import tempfile
import time
import zipfile
from pathlib import Path

from kernelrank.errors import (ConcurrentChangeError, InvalidParameterError, KernelrankError,
                               UnsaveableError)
from kernelrank.paths import guard_write

log = logging.getLogger(__name__)

#: the cache folders already warned about in this process (one warning a folder)
_UNWRITABLE = set()


def _validated(path, tmp, validate):
    """Run ``validate(tmp)`` (the reader's checks on what is about to replace ``path``); a
    typed failure becomes an :class:`UnsaveableError` naming ``path``."""
    if validate is None:
        return
    try:
        validate(Path(tmp))
    except UnsaveableError:
        raise
    except KernelrankError as exc:
        raise UnsaveableError(f"{path}: not saved — what would be written does not load "
                              f"back ({exc}); the previous content, if any, is kept") from None


@contextlib.contextmanager
def atomic_open(path, mode="w", encoding="utf-8", validate=None):
    """Context manager yielding a file object whose content replaces ``path`` on success.

    ``validate``: called with the path of the finished temporary file before it replaces
    ``path`` (module docstring)."""
    path = Path(path)
    guard_write(path, "file")
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
        _validated(path, tmp, validate)
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
def atomic_directory(path, validate=None):
    """Context manager yielding a fresh temporary sibling directory that replaces ``path``
    (a directory) as a unit on success.

    The files are written into ``.<name>.<random>.tmp`` next to ``path``; ``validate`` (if
    given) is called with it once the block has ended. On success the new directory takes
    the place of an existing ``path`` in one step where the system can (Linux:
    :func:`exchange_paths`), else ``path`` is renamed aside and the new directory renamed to
    it; the old one is then removed. A reader sees either the old or the new directory,
    never a mixture (a reader holding files of the old one may lose them: it reads through
    :func:`read_consistently`). On an exception (or a kill) the old directory is untouched;
    a kill between the two renames of the fallback leaves the old one as
    ``.<name>.<random>.old`` beside it. ``path`` may not be a file.
    """
    path = Path(path)
    guard_write(path, "tree")
    if path.exists() and not path.is_dir():
        raise InvalidParameterError(f"{path} is a file; a directory is written there")
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent))
    try:
        os.chmod(tmp, 0o777 & ~_umask())   # mkdtemp's 0700 → what mkdir would have made
        yield tmp
        _validated(path, tmp, validate)
        if path.exists() and exchange_paths(tmp, path):
            shutil.rmtree(tmp, ignore_errors=True)        # the old directory, now at tmp
            return
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


@contextlib.contextmanager
def atomic_files(paths, validate=None):
    """Context manager yielding temporary paths (one per path of ``paths``, same names, in
    a fresh temporary folder beside the first) whose files replace ``paths`` on success.

    For files that belong together without a folder of their own (a model's ``.json`` and
    ``.npz``): ``validate`` (if given) is called with the list of temporary paths once the
    block has ended — the reader's checks on the pair — and only then are the files moved
    into place, each atomically, in the order given (so a reader that checks the last
    against the first sees a mixture only between two renames, and
    :func:`read_consistently` waits it out). The block writes the files itself; they are
    ``fsync``-ed before they are moved."""
    paths = [Path(p) for p in paths]
    for path in paths:
        guard_write(path, "file")
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_dir():
            raise InvalidParameterError(f"{path} is a directory; give a file name for this "
                                        "output")
    tmpdir = Path(tempfile.mkdtemp(prefix=f".{paths[0].name}.", suffix=".tmp",
                                   dir=paths[0].parent))
    try:
        tmps = [tmpdir / p.name for p in paths]
        yield tmps
        for tmp, path in zip(tmps, paths):
            try:
                with open(tmp, "rb") as handle:
                    os.fsync(handle.fileno())
                os.chmod(tmp, 0o666 & ~_umask())
            except OSError as exc:
                raise named_os_error(exc, path) from exc
        _validated(paths[0], tmpdir, validate and (lambda _: validate(tmps)))
        for tmp, path in zip(tmps, paths):
            os.replace(tmp, path)
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)


_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def exchange_paths(a, b):
    """Swap the files or directories at ``a`` and ``b`` in one atomic step (Linux
    ``renameat2(RENAME_EXCHANGE)``); False, with nothing changed, where the system or the
    file system cannot (the caller then renames in two steps)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p,
                          ctypes.c_uint)
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM, errno.EXDEV):
        return False
    raise OSError(err, os.strerror(err), str(b))


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


def write_json(path, obj, validate=None):
    """Write ``obj`` as indented strict JSON (:func:`strict_json`) to ``path`` atomically
    (NumPy scalars/arrays allowed; ``validate`` as for :func:`atomic_open`)."""
    text = dumps_strict(obj, indent=2) + "\n"
    with atomic_open(path, validate=validate) as handle:
        handle.write(text)


#: the key under which :func:`strict_json` lists the non-finite numbers it wrote as null
NON_FINITE_KEY = "non_finite"


def strict_json(obj):
    """``obj`` as plain JSON data that every strict reader accepts (RFC 8259 has no NaN or
    Infinity): NumPy scalars and arrays as Python numbers and lists, paths as strings, and
    every NaN / ±Infinity as ``null``. When ``obj`` is a dict and some number was replaced,
    the result says which and what it was: ``"non_finite": {"folds[3].auc": "NaN",
    "threshold": "-Infinity"}`` (an undefined measure, a threshold below every score).
    O(size of ``obj``)."""
    found = {}

    def walk(x, where):
        if isinstance(x, float) or _is_numpy_float(x):
            v = float(x)
            if math.isfinite(v):
                return v
            found[where or "(value)"] = "NaN" if v != v else ("Infinity" if v > 0 else
                                                              "-Infinity")
            return None
        if isinstance(x, dict):
            return {str(k): walk(v, f"{where}.{k}" if where else str(k)) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [walk(v, f"{where}[{i}]") for i, v in enumerate(x)]
        if type(x).__module__ == "numpy":
            return walk(_json_default(x), where)
        if isinstance(x, Path):
            return str(x)
        return x

    out = walk(obj, "")
    if found and isinstance(out, dict):
        out[NON_FINITE_KEY] = {**(out.get(NON_FINITE_KEY) or {}), **found}
    return out


def _is_numpy_float(x):
    return type(x).__module__ == "numpy" and hasattr(x, "dtype") and x.dtype.kind == "f" \
        and getattr(x, "ndim", 1) == 0


def dumps_strict(obj, **kwargs):
    """:func:`json.dumps` of :func:`strict_json` ``(obj)`` (``allow_nan=False``: a
    non-finite number can never reach the text)."""
    return json.dumps(strict_json(obj), allow_nan=False, default=_json_default, **kwargs)


def loads_strict(text):
    """:func:`json.loads` refusing NaN / Infinity as a strict reader does (a
    ``ValueError``)."""
    def refuse(name):
        raise ValueError(f"{name} is not JSON")
    return json.loads(text, parse_constant=refuse)


#: the date of every member of an archive of :func:`save_npz` (the zip format's earliest)
_ZIP_DATE = (1980, 1, 1, 0, 0, 0)


def save_npz(handle, arrays, compress=True):
    """Write ``arrays`` (name → array, in that order) as a NumPy ``.npz`` archive to the
    binary file ``handle`` — what :func:`numpy.savez_compressed` (``compress``) or
    :func:`numpy.savez` write, read by :func:`numpy.load` alike, but byte for byte the same
    for the same arrays: every member carries one fixed date instead of the time of writing.
    Object arrays are refused (``allow_pickle=False``)."""
    import numpy as np

    method = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(handle, mode="w", compression=method, allowZip64=True) as archive:
        for name, array in arrays.items():
            info = zipfile.ZipInfo(f"{name}.npy", date_time=_ZIP_DATE)
            info.compress_type = method
            info.external_attr = 0o600 << 16
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


def _identity(path):
    """What changes when ``path`` is replaced: device, inode, size, modification time
    (None when it does not exist)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


#: how long :func:`read_consistently` waits for a writer to finish (seconds), and how long
#: it watches a failed read's files for a change while a writer's temporary file is beside
#: them (a writer between its two renames)
READ_DEADLINE = 10.0
READ_GRACE = 1.0


def _writer_beside(paths):
    """A writer of :mod:`kernelrank.atomic` is at work on one of ``paths``: its temporary
    ``.<name>.<random>.tmp`` (or the ``.old`` of a directory being swapped) is beside it."""
    import glob

    return any(next(p.parent.glob(f".{glob.escape(p.name)}.*.{end}"), None) is not None
               for p in paths for end in ("tmp", "old"))


def read_consistently(paths, load, what="the files", deadline=None, grace=None):
    """``load()`` — a reader of ``paths`` (files or directories another run may be replacing
    atomically) — retried while they change under it.

    A read that fails with a typed error or an ``OSError`` is retried when one of ``paths``
    was replaced meanwhile, or is replaced within ``grace`` seconds while a writer's
    temporary file lies beside them (a writer of two files between its two renames);
    otherwise its error is raised at once, as it is (a damaged or missing model stays
    that). After ``deadline`` seconds of changes the reader gives up with a
    :class:`~kernelrank.errors.ConcurrentChangeError`. A read that succeeds returns at once:
    the sealed formats of the project (a model's JSON records its weights' checksum) make a
    successful read one consistent version.
    """
    deadline = READ_DEADLINE if deadline is None else deadline
    grace = READ_GRACE if grace is None else grace
    paths = [Path(p) for p in paths]
    stop = time.monotonic() + deadline
    pause = 0.01
    while True:
        before = [_identity(p) for p in paths]
        try:
            return load()
        except (KernelrankError, OSError) as exc:
            error = exc
        watch_until = time.monotonic() + (grace if _writer_beside(paths) else 0.0)
        while [_identity(p) for p in paths] == before:
            if time.monotonic() >= watch_until:
                raise error
            time.sleep(pause)
        if time.monotonic() >= stop:
            raise ConcurrentChangeError(
                f"{what} kept changing for {deadline:g} s while being read (another run is "
                f"replacing {', '.join(map(str, paths))}); retry when it has finished "
                f"(last error: {error})") from None
        time.sleep(pause)
        pause = min(2 * pause, 0.2)


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


# ----------------------------------------------------------------------------- caches
def cache_unwritable(folder, exc, *, what, moved_by):
    """Warn, once per ``folder`` in this process, that the cache ``what`` (e.g. "spaCy parse
    cache") cannot be written there for the reason of ``exc`` (an :class:`OSError`; its
    reason only, never the file it names, which may be a temporary one) and that the run
    goes on without it; ``moved_by`` names what moves it (``$KERNELRANK_SPACY_CACHE``)."""
    folder = str(folder)
    if folder in _UNWRITABLE:
        return
    _UNWRITABLE.add(folder)
    reason = exc.strerror or (os.strerror(exc.errno) if exc.errno else type(exc).__name__)
    log.warning("%s folder %s not writable (%s): going on without it; set %s to move it",
                what, folder, reason, moved_by)


def write_cache_file(path, write, *, what, moved_by, folder=None, mode="wb"):
    """Write the cache file ``path`` atomically with ``write(handle)`` (:func:`atomic_open`);
    when that fails with an :class:`OSError` — its folder cannot be made or written, the
    disk is full — warn once for the ``folder`` (default ``path``'s), naming what moves it
    (:func:`cache_unwritable`), and go on: nothing is left behind.

    Returns
    -------
    bool — whether the file was written.
    """
    path = Path(path)
    try:
        with atomic_open(path, mode) as handle:
            write(handle)
    except OSError as exc:
        cache_unwritable(folder if folder is not None else path.parent, exc, what=what,
                         moved_by=moved_by)
        return False
    return True


def read_cache_file(path, read, *, what):
    """``read(path)`` of the cache file ``path``; None when it is absent (or its folder is
    not one), and None with a warning when it cannot be read or ``read`` fails on it (a
    damaged or foreign file): the caller computes its content again.  ``what`` names the
    cache in the warning."""
    path = Path(path)
    try:
        return read(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except Exception as exc:  # noqa: BLE001 (a damaged cache file is recomputed, never trusted)
        log.warning("%s file %s unreadable (%s): computing it again", what, path,
                    exc.strerror if isinstance(exc, OSError) and exc.strerror else exc)
        return None
