"""Reader and writer for the SVMlight / LETOR ranking format.

One example per line::

    <label> [qid:<query>] <index>:<value> ... <index>:<value> [# comment]

as used by SVMlight (Joachims 2002) and the LETOR 3.0 benchmark (``#docid = N``
comments). Feature indices are 1-based by default and strictly increasing within a line;
blank lines and lines holding only a comment are skipped. gzip files are read (recognised
by content) and written (``.gz`` suffix) transparently.

The reader streams the file line by line and accumulates CSR arrays, so memory is O(nnz).
Each line is converted with a few whole-line string operations (:func:`_quick_tokens`);
a line that is not plainly valid goes to the strict token-by-token parser
(:func:`_parse_tokens`), which names the error or accepts it. Every malformed line raises
:class:`~kernelrank.errors.CorpusFormatError` naming the file and the line, and so do
bytes that are not UTF-8 and a truncated or damaged gzip stream (:mod:`corpora.lines`).
Numbers are strict: Python's ``float``/``int`` would take ``1_0`` (= 10) and non-ASCII
digits; we reject them. Cost: O(file size).

Why our own reader and not a thin layer over ``sklearn.datasets.load_svmlight_file``: on the
five LETOR OHSUMED parts (16,140 rows, identical X, y and qids) ours is faster than
scikit-learn's for sparse X (its explicit zeros removed, as ours) and for dense X, and needs
less memory (``python -m benchmarks.timings.bench_readers`` measures both). Its errors carry neither
file nor line: a ``ValueError`` such as "could not convert string to float: b'abc'" or
"Feature indices ... should be sorted and unique", a bare ``EOFError`` for a truncated gzip.
It silently accepts ``nan``/``inf`` labels and values, ``1_0`` (as 10), and a line without
``qid:`` (the qid array is then one shorter than y: misaligned). A layer over it would need
a pass for the ``#docid`` comments it drops, checks for what it accepts, and our parse again
to locate each error, so it could not be faster. Every malformed case we know is a test
(``tests/corpora/test_svmlight.py``: ``MALFORMED`` and the gzip/UTF-8 tests).
"""

import gzip
import io
import math
import operator
from array import array
from collections import namedtuple
from itertools import repeat
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from corpora.lines import READ_ERRORS, open_text, read_error
from kernelrank.atomic import atomic_open
from kernelrank.errors import CorpusFormatError, InvalidInputError, InvalidParameterError

SvmlightData = namedtuple("SvmlightData", ["X", "y", "qids", "comments"])
SvmlightData.__doc__ = """Parsed SVMlight file.

X : scipy.sparse.csr_matrix or ndarray, shape (m, n_features)
y : ndarray of float, shape (m,)
qids : ndarray of int64, shape (m,), or None when no line has ``qid:``
comments : list of str, one per example ('' when the line had no comment)
"""


#: the range of qids and feature indices (they are stored as int64)
_INT64 = (-2 ** 63, 2 ** 63 - 1)


def _number(token, path, lineno, what):
    if "_" in token or not token.isascii():  # float() takes "1_0" and non-ASCII digits
        raise CorpusFormatError(f"{what} {token!r} is not a number", path=path, line=lineno)
    try:
        value = float(token)
    except ValueError:
        raise CorpusFormatError(f"{what} {token!r} is not a number", path=path,
                                line=lineno) from None
    if not math.isfinite(value):
        raise CorpusFormatError(f"{what} {token!r} is not finite", path=path, line=lineno)
    return value


def _integer(text, path, lineno, what, context=""):
    try:
        if "_" in text or not text.isascii():  # int() takes "1_0" and non-ASCII digits
            raise ValueError
        value = int(text)
    except ValueError:
        raise CorpusFormatError(f"{what} {text!r} is not an integer{context}", path=path,
                                line=lineno) from None
    if not _INT64[0] <= value <= _INT64[1]:
        raise CorpusFormatError(f"{what} {text!r} is beyond the 64-bit integer range"
                                f"{context}", path=path, line=lineno)
    return value


def _parse_tokens(tokens, path, lineno, offset):
    """Strict parse of one line's tokens: ``(label, qid, indices, values)`` or an error.

    ``indices`` are as written in the file (not shifted by ``offset``).
    """
    label = _number(tokens[0], path, lineno, "label")
    qid = None
    start = 1
    if len(tokens) > 1 and tokens[1].startswith("qid:"):
        qid = _integer(tokens[1][4:], path, lineno, "qid")
        start = 2
    indices, values = [], []
    previous = offset - 1
    for token in tokens[start:]:
        name, colon, val = token.partition(":")
        if not colon:
            raise CorpusFormatError(f"token {token!r} is not of the form index:value",
                                    path=path, line=lineno)
        index = _integer(name, path, lineno, "feature index", f" (token {token!r})")
        if index < offset:
            raise CorpusFormatError(
                f"feature index {name} is below {offset} (indices are {offset}-based)",
                path=path, line=lineno)
        if index <= previous:
            raise CorpusFormatError(f"feature index {name} does not increase (after "
                                    f"{previous})", path=path, line=lineno)
        previous = index
        indices.append(index)
        values.append(_number(val, path, lineno, f"value of feature {name}"))
    return label, qid, indices, values


def _quick_tokens(tokens, data, offset, memo):
    """Fast parse of one line: ``(label, qid, indices, values)``, or None when in doubt.

    Converts the ``index:value`` tokens of the line with a few whole-line string
    operations instead of a Python loop over the tokens. It returns None (and the caller
    runs :func:`_parse_tokens`, which names the error or accepts the line) whenever the
    line is not plainly valid, so both paths give the same result on every line. ``memo``
    holds the index strings and integers of the previous line: dense files (LETOR) repeat
    them on every line.
    """
    if "_" in data or not data.isascii():
        return None
    try:
        label = float(tokens[0])
        qid = None
        start = 1
        if len(tokens) > 1 and tokens[1].startswith("qid:"):
            qid = int(tokens[1][4:])
            if not _INT64[0] <= qid <= _INT64[1]:
                return None                      # the strict parse names it
            start = 2
        feats = tokens[start:]
        if not feats:
            return (label, qid, [], []) if math.isfinite(label) else None
        rest = " ".join(feats)
        parts = rest.replace(":", " ").split()
        # one colon per token, with text on both sides
        if (len(parts) != 2 * len(feats) or rest.count(":") != len(feats)
                or not all(map(operator.contains, feats, repeat(":")))):
            return None
        names = parts[0::2]
        if names == memo[0]:
            indices = memo[1]
        else:
            if not "".join(names).isdigit():
                return None
            indices = list(map(int, names))
            if (indices[0] < offset or indices[-1] > _INT64[1]
                    or not all(map(operator.lt, indices, indices[1:]))):
                return None
            memo[0], memo[1] = names, indices
        values = list(map(float, parts[1::2]))
    except ValueError:
        return None
    if not math.isfinite(label + sum(values)):  # nan or inf anywhere (or an overflow)
        return None
    return label, qid, indices, values


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
    memo = [None, None]
    for lineno, raw in enumerate(lines, start=1):
        data, hash_, comment = raw.partition("#")
        tokens = data.split()
        if not tokens:
            continue
        parsed = (_quick_tokens(tokens, data, offset, memo)
                  or _parse_tokens(tokens, path, lineno, offset))
        label, qid, indices, values = parsed
        yield (lineno, label, qid, [i - offset for i in indices], values,
               comment.strip() if hash_ else "")


def load_svmlight(path, n_features=None, dense=False, zero_based=False, dtype=np.float64):
    """Read an SVMlight / LETOR file (plain or gzip).

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
        Malformed line, index beyond ``n_features``, qid present on only some lines, text
        that is not UTF-8, a truncated or damaged gzip stream (with the line), a directory
        instead of a file.
    DataNotFoundError
        ``path`` does not exist (a ``FileNotFoundError`` too).
    """
    path = Path(path)
    if n_features is not None and (int(n_features) != n_features or n_features < 1):
        raise InvalidParameterError(f"n_features must be a positive integer, got {n_features!r}")
    offset = 0 if zero_based else 1
    limit = None if n_features is None else int(n_features) - 1 + offset
    labels, qids, indptr = array("d"), array("q"), array("q", [0])
    indices, values = array("q"), array("d")
    comments = []
    has_qid = None
    last = offset - 1  # largest index seen, as written
    memo = [None, None]
    with open_text(path, "SVMlight / LETOR file") as handle:
        try:
            for lineno, raw in enumerate(handle, start=1):
                data, hash_, comment = raw.partition("#")
                tokens = data.split()
                if not tokens:
                    continue
                label, qid, idx, val = (_quick_tokens(tokens, data, offset, memo)
                                        or _parse_tokens(tokens, path, lineno, offset))
                if has_qid is None:
                    has_qid = qid is not None
                elif has_qid != (qid is not None):
                    raise CorpusFormatError(
                        "qid: is given on some lines but not on others", path=path, line=lineno)
                if idx:
                    if limit is not None and idx[-1] > limit:
                        raise CorpusFormatError(
                            f"feature index {idx[-1]} exceeds n_features={n_features}",
                            path=path, line=lineno)
                    if idx[-1] > last:
                        last = idx[-1]
                    indices.fromlist(idx)
                    values.fromlist(val)
                labels.append(label)
                if qid is not None:
                    qids.append(qid)
                indptr.append(len(indices))
                comments.append(comment.strip() if hash_ else "")
        except READ_ERRORS as exc:
            raise read_error(path, exc) from None
    n_cols = int(n_features) if n_features is not None else last + 1 - offset
    columns = np.frombuffer(indices, dtype=np.int64)
    if offset:
        columns = columns - offset
    X = sp.csr_matrix((np.frombuffer(values, dtype=np.float64).astype(dtype, copy=False),
                       columns, np.frombuffer(indptr, dtype=np.int64)),
                      shape=(len(labels), n_cols))
    X.eliminate_zeros()  # explicit "5:0" entries are not stored
    if dense:
        cells = X.shape[0] * X.shape[1]
        if cells > max(64 * X.nnz, 2 ** 27):
            raise InvalidInputError(
                f"{path}: as a dense matrix its {X.shape[0]:,} rows × {X.shape[1]:,} "
                f"columns (the largest feature index or n_features) would take "
                f"{cells * 8 / 2 ** 30:,.1f} GiB for {X.nnz:,} stored values; read it "
                "sparse (dense=False)")
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
