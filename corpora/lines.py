"""Opening a plain or gzip-compressed data file, with read failures typed and located by line.

Every reader of :mod:`corpora` opens its input here: :func:`open_binary` / :func:`open_text`
recognise gzip by its magic bytes and raise :class:`~kernelrank.errors.DataNotFoundError` for
a path that does not exist and :class:`~kernelrank.errors.CorpusFormatError` for a directory;
the read itself runs inside :func:`reading`, which turns :data:`READ_ERRORS` — bytes that
are not UTF-8, a gzip stream that breaks off (truncated download) or is damaged — into a
:class:`~kernelrank.errors.CorpusFormatError` naming the line. The text decoder
and the decompressor work on blocks of several kilobytes, so such an exception arrives
before the lines of its block are handed out and carries no line number;
:func:`read_error` finds the line by a second pass over the raw bytes, paid only on
failure, and returns the :class:`~kernelrank.errors.CorpusFormatError` to raise.
"""

import gzip
import io
import re
import zlib
from contextlib import contextmanager
from pathlib import Path

from kernelrank.errors import CorpusFormatError, DataNotFoundError

__all__ = ["READ_ERRORS", "decoded_lines", "find_lines", "open_binary", "open_text", "read_error",
           "reading", "strict_int", "unknown_xml_encoding", "xml_error"]

#: What iterating a text handle of :func:`open_text` raises on undecodable or broken input.
READ_ERRORS = (UnicodeDecodeError, EOFError, zlib.error, gzip.BadGzipFile)


_DECIMAL = re.compile(r"-?[0-9]+")
#: the range of every integer field read from a file (it lands in int64 arrays)
INT64_RANGE = (-2 ** 63, 2 ** 63 - 1)


def strict_int(text):
    """The integer a file field spells as plain ASCII decimal digits (an optional ``-``),
    within int64; a :class:`ValueError` otherwise. ``int()`` alone would also take ``" 21"``,
    ``"2_1"`` (= 21), non-ASCII digits and integers of any size (an ``OverflowError`` later,
    in an array)."""
    if not isinstance(text, str) or len(text) > 20 or not _DECIMAL.fullmatch(text):
        raise ValueError(f"{text!r} is not a decimal integer")
    value = int(text)
    if not INT64_RANGE[0] <= value <= INT64_RANGE[1]:
        raise ValueError(f"{text!r} is beyond the 64-bit integer range")
    return value


def open_binary(path, what="data file"):
    """Binary handle of ``path``; gzip is recognised by its magic bytes, not the name.

    Raises
    ------
    DataNotFoundError
        ``path`` does not exist (the message names ``what`` and the path).
    CorpusFormatError
        ``path`` is a directory, or cannot be opened (permissions).
    """
    path = Path(path)
    try:
        with open(path, "rb") as handle:
            magic = handle.read(2)
    except FileNotFoundError:
        raise DataNotFoundError(f"{what} {path} does not exist; check the path (data sets: "
                                "`python -m corpora list`)") from None
    except IsADirectoryError:
        raise CorpusFormatError(f"is a directory, not a {what}; give the file inside it",
                                path=path) from None
    except PermissionError as exc:
        raise CorpusFormatError(f"cannot be opened ({exc.strerror})", path=path) from None
    return gzip.open(path, "rb") if magic == b"\x1f\x8b" else open(path, "rb")


def open_text(path, what="data file"):
    """UTF-8 text handle of ``path`` (plain or gzip); errors as :func:`open_binary`.

    A UTF-8 byte order mark at the start (Windows editors write one) is dropped, not read
    as part of the first line.
    """
    return io.TextIOWrapper(open_binary(path, what), encoding="utf-8-sig")


@contextmanager
def reading(path):
    """Run a reader's loop over ``path``: :data:`READ_ERRORS` become the located
    :class:`CorpusFormatError` of :func:`read_error` (typed errors pass unchanged)."""
    try:
        yield
    except READ_ERRORS as exc:
        raise read_error(path, exc) from None


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


def find_lines(path, pattern, limit=None):
    """Line numbers (1-based) of the lines of ``path`` that match ``pattern``, in file order.

    A second pass over the raw bytes, paid only when a reader reports an error and wants
    the line of a record its streaming parser could not tell (XML records, whose parser
    reports no line per element). ``pattern`` is a ``bytes`` regular expression (or
    compiled pattern) matched within one line; the search stops after ``limit`` matches.
    A file that cannot be read to its end gives the lines found before the break; one
    that cannot be opened gives ``[]`` — the caller's error is raised all the same.
    """
    regex = re.compile(pattern) if isinstance(pattern, bytes) else pattern
    found = []
    try:
        with open_binary(path) as handle:
            for lineno, raw in enumerate(handle, start=1):
                if regex.search(raw):
                    found.append(lineno)
                    if limit is not None and len(found) >= limit:
                        break
    except (OSError, *READ_ERRORS, CorpusFormatError, DataNotFoundError):
        pass
    return found


def xml_error(path, exc):
    """What an XML reader raises for ``exc``, an ``xml.etree.ElementTree.ParseError`` or a
    ``LookupError`` escaping its parse of ``path``: a located :class:`CorpusFormatError`
    (not well-formed XML at its line; an unknown encoding in the XML declaration, see
    :func:`unknown_xml_encoding`), else ``exc`` itself (a bug of the caller's own code)."""
    if isinstance(exc, LookupError):
        return unknown_xml_encoding(path, exc) or exc
    return CorpusFormatError(f"not well-formed XML: {exc}", path=path, line=exc.position[0])


def unknown_xml_encoding(path, exc):
    """The :class:`CorpusFormatError` for the ``LookupError`` that ``xml.etree`` raises when
    the XML declaration names an encoding Python does not know (``encoding="utf1_0"``), or
    None for any other ``LookupError`` (a ``KeyError`` of the caller's own code stays a bug)."""
    if not str(exc).startswith("unknown encoding"):
        return None
    return CorpusFormatError(f"the XML declaration names an encoding Python does not know "
                             f"({exc}); declare UTF-8 (or UTF-16) and save the file in it",
                             path=path, line=1)


def decoded_lines(handle, path):
    """``(line number, decoded line)`` pairs of a binary ``handle`` (:func:`open_binary`) of
    ``path``, a UTF-8 byte order mark opening the file dropped; undecodable bytes, a truncated
    or damaged gzip stream → CorpusFormatError with the line (the line readers of raw text,
    :mod:`corpora.plain_text` and :mod:`corpora.pubtator`)."""
    with reading(path):
        for lineno, raw in enumerate(handle, 1):
            try:
                # a UTF-8 byte order mark opening the file is not text
                line = raw.decode("utf-8-sig" if lineno == 1 else "utf-8")
            except UnicodeDecodeError as exc:
                raise CorpusFormatError(f"not UTF-8 text ({exc.reason})", path=path,
                                        line=lineno) from None
            yield lineno, line
