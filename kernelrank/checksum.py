"""SHA-256 of a file, read in 1 MiB blocks (time O(size), memory O(1))."""

import hashlib

__all__ = ["file_sha256"]


def file_sha256(path):
    """Hex SHA-256 digest of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
