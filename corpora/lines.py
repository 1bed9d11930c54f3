"""Text lines of a plain or gzip-compressed data file, with read failures located by line.

The line-oriented readers (:mod:`corpora.svmlight`, :mod:`corpora.conllu`) iterate
:func:`open_text` and catch :data:`READ_ERRORS` around the iteration: bytes that are not
UTF-8, a gzip stream that breaks off (truncated download) or is damaged. The text decoder
and the decompressor work on blocks of several kilobytes, so such an exception arrives
before the lines of its block are handed out and carries no line number;
:func:`read_error` finds the line by a second pass over the raw bytes, paid only on
failure, and returns the :class:`~kernelrank.errors.CorpusFormatError` to raise.
"""

import gzip
import io
import zlib
from pathlib import Path

from kernelrank.errors import CorpusFormatError

__all__ = ["READ_ERRORS", "open_binary", "open_text", "read_error"]

#: What iterating a text handle of :func:`open_text` raises on undecodable or broken input.
READ_ERRORS = (UnicodeDecodeError, EOFError, zlib.error, gzip.BadGzipFile)


def open_binary(path):
    """Binary handle of ``path``; gzip is recognised by its magic bytes, not the name."""
    path = Path(path)
    with open(path, "rb") as handle:
        magic = handle.read(2)
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def open_text(path):
    """UTF-8 text handle of ``path`` (plain or gzip); raises FileNotFoundError if absent."""
    return io.TextIOWrapper(open_binary(path), encoding="utf-8")


def read_error(path, exc):
    """The :class:`CorpusFormatError` for ``exc`` (one of :data:`READ_ERRORS`), with its line.

    Re-reads ``path`` as bytes, line by line: the first line that is not UTF-8 is named
    with the offending byte and column; a gzip stream that ends early or is damaged is
    named by the first line that cannot be read whole.
    """
    lineno = 0
    try:
        with open_binary(path) as handle:
            for lineno, raw in enumerate(handle, start=1):
                try:
                    raw.decode("utf-8")
                except UnicodeDecodeError as bad:
                    return CorpusFormatError(
                        f"not UTF-8 text: byte 0x{raw[bad.start]:02x} at column "
                        f"{bad.start + 1} ({bad.reason})", path=path, line=lineno)
    except EOFError:
        return CorpusFormatError(
            "the gzip stream ends before its end marker (truncated file?); this is the "
            "first line that cannot be read whole", path=path, line=lineno + 1)
    except (zlib.error, gzip.BadGzipFile) as broken:
        return CorpusFormatError(
            f"the gzip stream is damaged ({broken}); this is the first line that cannot "
            "be read whole", path=path, line=lineno + 1)
    return CorpusFormatError(f"cannot be read ({type(exc).__name__}: {exc})", path=path)
