"""Plain text as input documents for extraction (``--format text``).

A file: one document per **blank-line-separated block** (id ``<file stem>:<line of the
block's first line>``); a directory: one document per ``*.txt`` file (sorted by name, id =
the file stem). ``one_document=True`` makes a whole file one document. Ids are unique by
construction. No mention annotations (use a lexicon, :mod:`ppi.extraction.mentions`). Files may be
gzip-compressed; bytes that are not UTF-8 are a located
:class:`~kernelrank.errors.CorpusFormatError`. Streamed: one block in memory at a time,
O(size of the input) time.
"""

from __future__ import annotations

from pathlib import Path

from corpora.documents import ReadStats, TextDocument
from corpora.lines import decoded_lines, open_binary

__all__ = ["read_text"]


def read_text(path, *, one_document=False, skip_bad=False, stats=None):
    """Documents of a plain-text file (blank-line-separated blocks) or directory of ``*.txt``."""
    stats = stats if stats is not None else ReadStats()
    path = Path(path)
    if path.is_dir():
        for f in sorted(path.glob("*.txt")):
            with open_binary(f, "input file") as handle:
                text = "".join(line for _, line in decoded_lines(handle, f))
            stats.documents += 1
            yield TextDocument(f.stem, text, position=f"{f}")
        return
    with open_binary(path, "input file") as handle:
        if one_document:
            stats.documents += 1
            yield TextDocument(path.name.split(".")[0],
                               "".join(line for _, line in decoded_lines(handle, path)),
                               position=f"{path}")
            return
        block, first = [], None
        stem = path.name.split(".")[0]
        for lineno, line in decoded_lines(handle, path):
            if line.strip():
                if first is None:
                    first = lineno
                block.append(line.rstrip("\r\n"))
            elif block:
                stats.documents += 1
                yield TextDocument(f"{stem}:{first}", "\n".join(block),
                                   position=f"{path}:{first}")
                block, first = [], None
        if block:
            stats.documents += 1
            yield TextDocument(f"{stem}:{first}", "\n".join(block), position=f"{path}:{first}")
