"""SHA-256 digests: of a file, read in 1 MiB blocks (time O(size), memory O(1)), and of a
JSON object in canonical form (the seal a saved model puts on its own metadata)."""

import hashlib
import json

__all__ = ["file_sha256", "canonical_json", "json_sha256"]


def file_sha256(path):
    """Hex SHA-256 digest of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
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
