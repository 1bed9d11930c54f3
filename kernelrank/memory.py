"""Memory release: hand the heap pages a computation has freed back to the operating system;
and the machine's physical memory, for checks that refuse a computation that cannot fit.

glibc serves allocations below its adaptive mmap threshold (up to 32 MB) from the heap and
keeps them resident after they are freed; a long run that allocates many such blocks — the
row blocks of a Nyström map, the chunks of a sparse feature matrix — grows by what it no
longer uses. :func:`release_freed_memory` asks glibc to return them (``malloc_trim(0)``).
"""

import ctypes

__all__ = ["release_freed_memory", "physical_memory_bytes"]


def physical_memory_bytes():
    """The machine's physical memory in bytes (``sysconf``), or None where it is not known."""
    import os

    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None


def release_freed_memory():
    """Hand freed heap memory back to the operating system (glibc ``malloc_trim``; a no-op
    elsewhere). Changes no number; O(heap size) of the C library's bookkeeping.

    What it guards: without it the row blocks of
    :meth:`learners.nystroem.NystroemMap.transform` stay resident between the inner fits of a
    cross-validation, and the chunks of :mod:`parse_ranking.representations` after
    featurizing, memory the process no longer uses
    (docs/results/parse_ranking.md, "The all-paths graph representation within 4 GB")."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass
