"""Symbol sequences → integer ids: the input side of the sequence kernels (spectrum, mismatch,
locality).

A sequence is a ``str`` (each character one symbol, e.g. a protein) or a sequence of symbols
(e.g. the link types of a parse, as ``str`` tokens). A batch of sequences is concatenated
into one int64 array of ids plus the sequence lengths; the kernels then work on whole
batches with NumPy (offsets, k-mer windows) and never loop over symbols in Python. The
encoding itself is one ``np.unique`` over the batch (a look-up table over code points for
strings over a fixed alphabet) and one dictionary look-up per *distinct* symbol.

Ids come from a vocabulary (dict symbol → id) in one of three ways (``new_symbols``):

* ``"ignore"`` — a fixed alphabet: other symbols get id ``-1`` and match nothing;
* ``"add"`` — learning the vocabulary at fit: new symbols get the next ids in order of first
  occurrence;
* ``"temporary"`` — transform with a learned vocabulary: unseen symbols get fresh, distinct
  ids ``≥ len(vocabulary)`` for this batch only (they match each other, never a training
  symbol), so exact self-similarities can count them; the vocabulary is not changed.

Cost: O(N log N) for N symbols (the sort inside ``np.unique``); O(N) for strings over a
fixed alphabet.
"""

from itertools import chain

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError

__all__ = ["alphabet_ids", "check_sequences", "encode", "sequence_index", "offset_pairs"]

NEW_SYMBOLS = ("ignore", "add", "temporary")


def alphabet_ids(alphabet):
    """The vocabulary ``{symbol: id}`` of a fixed alphabet (a ``str`` is a sequence of
    one-character symbols); an empty alphabet or a repeated symbol is an error."""
    ids = {s: i for i, s in enumerate(alphabet)}
    if not ids or len(ids) != len(alphabet):
        raise InvalidParameterError("alphabet must be non-empty, without repeated symbols, "
                                    f"got {alphabet!r}")
    return ids


def check_sequences(sequences):
    """The sequences as a list (a single string is an error, not a batch of characters)."""
    if isinstance(sequences, (str, bytes)):
        raise InvalidInputError("expected a list of sequences, got a single string")
    return list(sequences)


def _distinct_symbols(sequences, need_first):
    """``(symbols, first, inverse)``: the distinct symbols of the concatenated batch, the
    position of each one's first occurrence (None unless ``need_first``), and the index of
    every position's symbol."""
    if all(isinstance(s, str) for s in sequences):
        points = np.frombuffer("".join(sequences).encode("utf-32-le"), dtype="<u4")
        if not need_first:      # characters: a look-up table over code points, no sort
            present = np.flatnonzero(np.bincount(points))
            lut = np.zeros(present[-1] + 1, dtype=np.int64)
            lut[present] = np.arange(present.size)
            return [chr(c) for c in present.tolist()], None, lut[points]
        uniq, first, inverse = np.unique(points, return_index=True, return_inverse=True)
        return [chr(c) for c in uniq.tolist()], first, inverse
    flat = list(chain.from_iterable(sequences))
    arr = np.asarray(flat)
    if arr.ndim != 1 or arr.dtype.kind not in "USi":
        arr = np.empty(len(flat), dtype=object)
        arr[:] = flat
    uniq, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    return uniq.tolist(), first, inverse


def encode(sequences, vocabulary, new_symbols="ignore"):
    """Concatenated symbol ids (int64) and the length of every sequence.

    Parameters
    ----------
    sequences : list of str or of sequences of symbols
    vocabulary : dict symbol -> id (ids 0..len-1); extended in place for ``"add"``
    new_symbols : {"ignore", "add", "temporary"}
        Ids of symbols outside ``vocabulary`` (module docstring).
    """
    sequences = check_sequences(sequences)
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    if not lengths.sum():
        return np.zeros(0, dtype=np.int64), lengths
    symbols, first, inverse = _distinct_symbols(sequences, new_symbols != "ignore")
    table = np.fromiter((vocabulary.get(s, -1) for s in symbols), dtype=np.int64,
                        count=len(symbols))
    unseen = np.flatnonzero(table < 0)
    if unseen.size and new_symbols != "ignore":
        unseen = unseen[np.argsort(first[unseen], kind="stable")]   # first-occurrence order
        table[unseen] = len(vocabulary) + np.arange(unseen.size)
        if new_symbols == "add":
            vocabulary.update((symbols[u], int(table[u])) for u in unseen)
    return table[inverse.reshape(-1)], lengths


def sequence_index(lengths):
    """The sequence of every position of the concatenated batch."""
    return np.repeat(np.arange(len(lengths)), lengths)


def offset_pairs(ids, seq_of, offset):
    """Positions ``(i, i + offset)`` of the concatenated batch inside one sequence, both with
    a matching symbol (id ≥ 0): one vector pass over all sequences."""
    i = np.arange(max(0, -offset), ids.size - max(0, offset))
    j = i + offset
    ok = (seq_of[i] == seq_of[j]) & (ids[i] >= 0) & (ids[j] >= 0)
    return i[ok], j[ok]
