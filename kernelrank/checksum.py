"""SHA-256 digests: of a file, read in 1 MiB blocks (time O(size), memory O(1)), of a file or
a folder's files by content (:func:`files_sha256`, the fingerprint a resumed run compares),
and of a JSON object in canonical form (the seal a saved model puts on its own metadata)."""

import hashlib
import json
import os
from pathlib import Path

__all__ = ["file_sha256", "files_sha256", "canonical_json", "json_sha256"]


def file_sha256(path):
    """Hex SHA-256 digest of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def files_sha256(path, pattern="*"):
    """Hex SHA-256 of what ``path`` holds: a file's bytes, or, for a folder, the names and
    bytes of its files matching ``pattern`` (not hidden, not in sub-folders), in name order.

    Unlike a size and modification time, it changes with every edit — also one made in
    place that keeps both (an editor that restores the time, ``touch -r``, a copy with
    ``cp -p``). Time O(total size), memory O(1); None for None.
    """
    if path is None:
        return None
    path = Path(path)
    if not path.is_dir():
        return file_sha256(path)
    digest = hashlib.sha256()
    for f in sorted(path.glob(pattern)):
        if f.name.startswith(".") or not f.is_file():
            continue
        digest.update(os.fsencode(f.name) + b"\0" + file_sha256(f).encode("ascii") + b"\n")
    return digest.hexdigest()


def canonical_json(obj, exclude=()):
    """``obj`` (a dict) without the keys in ``exclude`` as canonical JSON bytes: sorted keys,
    no whitespace, ASCII only — equal for equal content however the file was formatted."""
    body = {k: v for k, v in obj.items() if k not in exclude}
    return json.dumps(body, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=True).encode("ascii")


def json_sha256(obj, exclude=()):
    """Hex SHA-256 of :func:`canonical_json` ``(obj, exclude)``."""
    return hashlib.sha256(canonical_json(obj, exclude)).hexdigest()
