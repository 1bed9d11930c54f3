"""Reader and writer for the SVMlight / LETOR ranking format.

One example per line::

    <label> [qid:<query>] <index>:<value> ... <index>:<value> [# comment]

as used by SVMlight (Joachims 2002) and the LETOR 3.0 benchmark (``#docid = N``
comments). Feature indices are 1-based by default and strictly increasing within a line;
blank lines and lines holding only a comment are skipped. ``.gz`` files are read and
written transparently.

The reader streams the file line by line (no whole-file string split) and accumulates
CSR arrays, so memory is O(nnz). Every malformed line raises
:class:`~kernelrank.errors.CorpusFormatError` naming the file and the line number.
Cost: O(file size).
"""

import gzip
import io
import math
from array import array
from collections import namedtuple
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from kernelrank.atomic import atomic_open
from kernelrank.errors import CorpusFormatError, InvalidInputError, InvalidParameterError

SvmlightData = namedtuple("SvmlightData", ["X", "y", "qids", "comments"])
SvmlightData.__doc__ = """Parsed SVMlight file.

X : scipy.sparse.csr_matrix or ndarray, shape (m, n_features)
y : ndarray of float, shape (m,)
qids : ndarray of int64, shape (m,), or None when no line has ``qid:``
comments : list of str, one per example ('' when the line had no comment)
"""


def _open_text(path):
    path = Path(path)
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _number(token, path, lineno, what):
    try:
        value = float(token)
    except ValueError:
        raise CorpusFormatError(f"{what} {token!r} is not a number", path=path,
                                line=lineno) from None
    if not math.isfinite(value):
        raise CorpusFormatError(f"{what} {token!r} is not finite", path=path, line=lineno)
    return value


def iter_svmlight_lines(lines, path="<lines>", zero_based=False):
    """Parse SVMlight lines one at a time.

    Yields ``(lineno, label, qid_or_None, indices, values, comment)`` with 0-based
    ``indices`` (list of int) for every non-blank, non-comment line.

    Raises
    ------
    CorpusFormatError
        On a malformed label, qid, ``index:value`` token, a non-increasing or out-of-range
        index (the message names ``path`` and the line).
    """
    offset = 0 if zero_based else 1
    for lineno, raw in enumerate(lines, start=1):
        data, hash_, comment = raw.partition("#")
        tokens = data.split()
        if not tokens:
            continue
        label = _number(tokens[0], path, lineno, "label")
        qid = None
        start = 1
        if len(tokens) > 1 and tokens[1].startswith("qid:"):
            text = tokens[1][4:]
            try:
                qid = int(text)
            except ValueError:
                raise CorpusFormatError(f"qid {text!r} is not an integer", path=path,
                                        line=lineno) from None
            start = 2
        indices, values = [], []
        previous = -1
        for token in tokens[start:]:
            name, colon, val = token.partition(":")
            if not colon:
                raise CorpusFormatError(f"token {token!r} is not of the form index:value",
                                        path=path, line=lineno)
            try:
                index = int(name) - offset
            except ValueError:
                raise CorpusFormatError(f"feature index {name!r} is not an integer "
                                        f"(token {token!r})", path=path, line=lineno) from None
            if index < 0:
                raise CorpusFormatError(
                    f"feature index {name} is below {offset} (indices are "
                    f"{'0' if zero_based else '1'}-based)", path=path, line=lineno)
            if index <= previous:
                raise CorpusFormatError(f"feature index {name} does not increase (after "
                                        f"{previous + offset})", path=path, line=lineno)
            previous = index
            indices.append(index)
            values.append(_number(val, path, lineno, f"value of feature {name}"))
        yield lineno, label, qid, indices, values, comment.strip() if hash_ else ""


def load_svmlight(path, n_features=None, dense=False, zero_based=False, dtype=np.float64):
    """Read an SVMlight / LETOR file (plain or ``.gz``).

    Parameters
    ----------
    path : path-like
    n_features : int, optional
        Number of columns; default: the largest index seen. A larger index in the file is
        an error.
    dense : bool, default False
        Return ``X`` as a dense ndarray instead of CSR.
    zero_based : bool, default False
        Whether feature indices start at 0 (LETOR and SVMlight use 1).
    dtype : numpy dtype, default float64

    Returns
    -------
    SvmlightData
        ``(X, y, qids, comments)``; ``qids`` is None when no line has ``qid:``. Either all
        lines have a qid or none do (mixing is an error).

    Raises
    ------
    CorpusFormatError
        Malformed line, index beyond ``n_features``, or qid present on only some lines.
    FileNotFoundError
        ``path`` does not exist.
    """
    path = Path(path)
    if n_features is not None and (int(n_features) != n_features or n_features < 1):
        raise InvalidParameterError(f"n_features must be a positive integer, got {n_features!r}")
    labels, qids, indptr = array("d"), array("q"), array("q", [0])
    indices, values = array("q"), array("d")
    comments = []
    has_qid = None
    width = 0
    with _open_text(path) as handle:
        try:
            for lineno, label, qid, idx, val, comment in iter_svmlight_lines(
                    handle, path=path, zero_based=zero_based):
                if has_qid is None:
                    has_qid = qid is not None
                elif has_qid != (qid is not None):
                    raise CorpusFormatError(
                        "qid: is given on some lines but not on others", path=path, line=lineno)
                if idx:
                    if n_features is not None and idx[-1] >= n_features:
                        raise CorpusFormatError(
                            f"feature index {idx[-1] + (0 if zero_based else 1)} exceeds "
                            f"n_features={n_features}", path=path, line=lineno)
                    width = max(width, idx[-1] + 1)
                labels.append(label)
                if qid is not None:
                    qids.append(qid)
                indices.extend(idx)
                values.extend(val)
                indptr.append(len(indices))
                comments.append(comment)
        except UnicodeDecodeError as exc:
            raise CorpusFormatError(f"not UTF-8 text ({exc})", path=path) from None
        except (EOFError, OSError) as exc:
            if isinstance(exc, FileNotFoundError):
                raise
            raise CorpusFormatError(f"cannot be read ({exc})", path=path) from None
    n_cols = int(n_features) if n_features is not None else width
    X = sp.csr_matrix((np.frombuffer(values, dtype=np.float64).astype(dtype, copy=False),
                       np.frombuffer(indices, dtype=np.int64),
                       np.frombuffer(indptr, dtype=np.int64)),
                      shape=(len(labels), n_cols))
    X.eliminate_zeros()  # explicit "5:0" entries are not stored
    if dense:
        X = X.toarray()
    y = np.frombuffer(labels, dtype=np.float64).copy()
    q = np.frombuffer(qids, dtype=np.int64).copy() if has_qid else None
    return SvmlightData(X, y, q, comments)


def _format_value(value):
    return repr(float(value)) if not float(value).is_integer() else str(int(value))


def dump_svmlight(path, X, y, qids=None, comments=None, zero_based=False):
    """Write examples in SVMlight / LETOR format, atomically (``.gz`` compresses).

    Zero entries are omitted; values are written with full float precision (``repr``),
    so ``load_svmlight(dump_svmlight(...))`` round-trips exactly.

    Parameters
    ----------
    path : path-like
    X : array-like or scipy.sparse matrix, shape (m, n)
    y : array-like, shape (m,)
    qids : array-like of int, shape (m,), optional
    comments : sequence of str, optional
        Written after ``#``; must not contain a newline.
    zero_based : bool, default False
    """
    X = sp.csr_matrix(X)
    y = np.asarray(y, dtype=float).ravel()
    m = X.shape[0]
    if len(y) != m:
        raise InvalidInputError(f"X has {m} rows but y has {len(y)} entries")
    if not (np.all(np.isfinite(y)) and np.all(np.isfinite(X.data))):
        raise InvalidInputError("X and y must be finite to be written in SVMlight format")
    if qids is not None:
        qids = np.asarray(qids)
        if len(qids) != m or not np.issubdtype(qids.dtype, np.integer):
            raise InvalidInputError(f"qids must be {m} integers")
    if comments is not None:
        if len(comments) != m:
            raise InvalidInputError(f"comments must have {m} entries, got {len(comments)}")
        if any("\n" in c for c in comments):
            raise InvalidInputError("a comment contains a newline")
    X.sort_indices()
    offset = 0 if zero_based else 1
    path = Path(path)
    with atomic_open(path, "wb") as raw:
        stream = gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) if path.suffix == ".gz" else raw
        out = io.TextIOWrapper(stream, encoding="utf-8", newline="\n")
        for i in range(m):
            parts = [_format_value(y[i])]
            if qids is not None:
                parts.append(f"qid:{int(qids[i])}")
            lo, hi = X.indptr[i], X.indptr[i + 1]
            parts.extend(f"{j + offset}:{_format_value(v)}"
                         for j, v in zip(X.indices[lo:hi], X.data[lo:hi]) if v != 0)
            if comments is not None and comments[i]:
                parts.append("# " + comments[i])
            out.write(" ".join(parts) + "\n")
        out.flush()
        out.detach()
        if stream is not raw:
            stream.close()  # writes the gzip trailer; leaves ``raw`` open for atomic_open
