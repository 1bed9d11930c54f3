"""Feature hashing of label pairs for :class:`learners.kernels.AllPathsKernel` with
``n_features`` set: a label's stable 64-bit hash (BLAKE2b, the same in every process and
version) and a splitmix64 mix of two of them, whose residue is the pair's column.  O(1) per
label, O(1) per pair (vectorized).
"""

from __future__ import annotations

import hashlib

import numpy as np

__all__ = ["stable_hash64", "mix64"]


def stable_hash64(text):
    """A label's 64-bit hash (signed), the first 8 bytes of its BLAKE2b digest
    (little-endian): stable across processes, platforms and versions."""
    return int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(),
                          "little", signed=True)


def mix64(a, b):
    """Deterministic 64-bit mix of two int64 arrays (splitmix64 finalizer)."""
    with np.errstate(over="ignore"):
        x = (a.astype(np.uint64) * np.uint64(0x9E3779B97F4A7C15)) ^ b.astype(np.uint64)
        x ^= x >> np.uint64(30)
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(27)
        x *= np.uint64(0x94D049BB133111EB)
        x ^= x >> np.uint64(31)
    return x
