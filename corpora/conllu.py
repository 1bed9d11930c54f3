"""Reader for CoNLL-U dependency treebanks (the CRAFT gold trees used by ``parse_ranking``).

Format (https://universaldependencies.org/format.html): one token per line with ten
TAB-separated columns ``ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC``; sentences
are separated by a blank line; comment lines start with ``#`` (``# text = …``,
``# sent_id = …``, ``# newdoc id = …``). Multiword tokens have a range id ``4-5`` and
are kept apart from the syntactic words; empty nodes (``8.1``) are skipped. gzip files
are read transparently (recognised by content).

Besides the tree, :func:`token_offsets` recovers each word's character span in the
``# text`` line (CoNLL-U gives none): forms are located left to right in the text,
skipping whitespace only, so the spans are exact or the sentence is reported.

Every malformed line raises :class:`~kernelrank.errors.CorpusFormatError` naming the file
and the line: column count, word ids out of sequence (which also catches a missing blank
line between sentences), HEAD missing, not an integer or outside the sentence, the basic
tree (one root, no HEAD cycle), multiword and empty-node ids, empty FORM, a comment among
the words, a sentence id already used in the document (both lines named: the error comes
when the file is read, not when something keyed on the ids meets the second); bytes that
are not UTF-8 and a truncated or damaged gzip stream are located by :mod:`corpora.lines`. The errors of a sentence's lines and tree also name the sentence
(``record``: its ``# sent_id``, else its 0-based index in the file, as
:attr:`ConlluSentence.sent_id`). All 81 real CRAFT files (25,491 sentences, 660,681 words)
pass these checks: each tree has exactly one root, so no multi-root rule is needed.
Cost: O(file size).

Why our own reader and not a thin layer over the ``conllu`` package: on the 81 CRAFT files
(25,491 sentences, 660,681 words, identical records) ``conllu`` 6.0.0 is slower than ours
even with FEATS/MISC/DEPS/XPOS kept as raw strings, as ours keeps them (``python -m
benchmarks.timings.bench_readers`` with ``conllu`` installed times both); both stream the file. Its
errors (``ParseException`` "Failed parsing field 'head': 'x' is not a valid value", "'2-1'
is not a valid ID") name no line, and a broken file escapes as a bare ``UnicodeDecodeError``
/ ``EOFError``. It silently accepts lines with too few or too many columns (or split at runs
of spaces), HEAD ``_``, out of range, its own word, cycles, two or no roots, word ids that
skip or start at 0, a missing blank line (two sentences merged into one), comments among the
words, empty FORMs and multiword ranges past the sentence; its default MISC parser turns
``21:ref=`` into ``{'21:ref': None}``. A layer over it would need all of our checks again,
so it could not be faster. Every malformed case we know is a test
(``tests/corpora/test_conllu.py``: ``MALFORMED`` and the UTF-8/gzip tests).
"""

from dataclasses import dataclass, field, fields
from pathlib import Path

from corpora.lines import READ_ERRORS, open_text, read_error
from kernelrank.errors import CorpusFormatError

__all__ = ["Token", "MultiwordToken", "ConlluSentence", "read_conllu", "iter_conllu",
           "token_offsets"]


@dataclass(frozen=True)
class Token:
    """One syntactic word. ``head`` is 0 for the root; ids are 1-based as in the file."""

    id: int
    form: str
    lemma: str
    upos: str
    xpos: str
    feats: str
    head: int
    deprel: str
    deps: str
    misc: str


@dataclass(frozen=True)
class MultiwordToken:
    """A surface token ``first-last`` spanning several syntactic words."""

    first: int
    last: int
    form: str
    misc: str


@dataclass
class ConlluSentence:
    """One sentence: its comments, words (``tokens``), multiword tokens and origin."""

    sent_id: str
    text: str
    tokens: list
    multiword: list = field(default_factory=list)
    doc_id: str = ""
    comments: dict = field(default_factory=dict)
    path: str = ""
    line: int = 0

    def __len__(self):
        return len(self.tokens)


_TOKEN_FIELDS = tuple(f.name for f in fields(Token))
_new_object = object.__new__


def _error(message, path, line):
    err = CorpusFormatError(message, path=path, line=line)
    err.message = message
    return err


def _with_sentence(exc, sent_id):
    """``exc`` (from :func:`_error`) naming sentence ``sent_id`` as its record as well."""
    if getattr(exc, "message", None) is None or exc.record is not None:
        return exc
    return CorpusFormatError(exc.message, path=exc.path, line=exc.line, record=sent_id)


def _is_number(text):
    """``text`` is a plain decimal integer (``int()`` also takes ``+1``, ``1_0``, ``١``)."""
    return text.isascii() and text.isdigit()


def _head_error(cols, path, lineno):
    head = cols[6]
    if head == "_":
        return _error(f"word {cols[0]} has no HEAD", path, lineno)
    if head[:1] == "-" and _is_number(head[1:]):
        return _error(f"HEAD {head} of word {cols[0]} is negative", path, lineno)
    return _error(f"HEAD {head!r} of word {cols[0]} is not an integer", path, lineno)


def _id_error(ident, expected, path, lineno):
    if not _is_number(ident):
        return _error(f"id {ident!r} is not a word id n, a multiword range a-b or an empty "
                      "node a.b", path, lineno)
    if ident == "1" and expected > 1:
        return _error(f"word id 1 follows word {expected - 1}: the blank line that ends a "
                      "sentence is missing", path, lineno)
    return _error(f"word id {ident} where {expected} was expected (word ids are 1, 2, 3, "
                  "... in order)", path, lineno)


def _multiword(ident, cols, path, lineno):
    first, _, last = ident.partition("-")
    if not (_is_number(first) and _is_number(last)) or not 1 <= int(first) < int(last):
        raise _error(f"multiword token id {ident!r} is not a range a-b with 1 <= a < b",
                     path, lineno)
    return MultiwordToken(int(first), int(last), cols[1], cols[9])


def _check_tree(heads, lines, multiword, path):
    """The words form one tree under a single root; multiword ranges cover words.

    ``heads[i]`` is the HEAD of word ``i`` (``heads[0] = 0`` stands for the root itself).
    """
    n = len(heads) - 1
    if max(heads) > n:
        i = next(i for i, h in enumerate(heads) if h > n)
        raise _error(f"HEAD {heads[i]} of word {i} is outside the sentence (0..{n})", path,
                     lines[i - 1])
    if heads.count(0) != 2:
        roots = [i for i, h in enumerate(heads) if h == 0][1:]
        if roots:
            raise _error(f"words {roots[0]} and {roots[1]} both have HEAD 0 (one root per "
                         "sentence)", path, lines[roots[1] - 1])
        raise _error("no word has HEAD 0 (the root)", path, lines[0])
    # ancestors 1, 2, 4, ... steps up: all reach the root (0) iff no HEAD cycle
    up = heads
    for _ in range(n.bit_length()):
        up = list(map(up.__getitem__, up))
    if any(up):
        i = next(i for i, a in enumerate(up) if a)
        seen = []
        while i not in seen:
            seen.append(i)
            i = heads[i]
        cycle = seen[seen.index(i):]
        what = (f"word {i} is its own HEAD" if len(cycle) == 1 else
                "the HEADs of words " + ", ".join(map(str, sorted(cycle))) + " form a cycle")
        raise _error(what + " (not a tree)", path, lines[min(cycle) - 1])
    for mwt, lineno in multiword:
        if mwt.last > n:
            raise _error(f"multiword token {mwt.first}-{mwt.last} goes beyond the last "
                         f"word {n}", path, lineno)


def _finish(comments, tokens, heads, lines, multiword, doc_id, path, start_line, index):
    _check_tree(heads, lines, multiword, path)
    sent_id = comments.get("sent_id", str(index))
    text = comments.get("text")
    if text is None:
        text = " ".join(t.form for t in tokens)
    return ConlluSentence(sent_id=sent_id, text=text, tokens=tokens,
                          multiword=[m for m, _ in multiword], doc_id=doc_id,
                          comments=dict(comments), path=str(path), line=start_line)


def _unique(sentence, seen):
    """``sentence`` if its id is new in its document, else a :class:`CorpusFormatError`
    naming both places: CoNLL-U sentence ids are unique, and a repeated one would be
    reported only far later, by what keys on it (a built data set, a resumed build)."""
    key = (sentence.doc_id, sentence.sent_id)
    if key in seen:
        raise CorpusFormatError(
            f"sentence id {sentence.sent_id!r} again: it is already the sentence at line "
            f"{seen[key]} of document {sentence.doc_id!r}; a sentence id may appear once — "
            "rename or remove one of the two", path=sentence.path, line=sentence.line,
            record=sentence.sent_id)
    seen[key] = sentence.line
    return sentence


def iter_conllu(path):
    """Yield :class:`ConlluSentence` objects from a CoNLL-U file (plain or gzip).

    ``doc_id`` comes from the latest ``# newdoc id =`` comment, else the file name stem
    (``11319941.conllu.gz`` → ``11319941``).

    Raises
    ------
    CorpusFormatError
        At the first malformed line (file and line named): wrong number of columns, a word
        id out of sequence (also a missing blank line between sentences), a HEAD that is
        missing, not an integer or outside the sentence, a second root, a HEAD cycle, a
        bad multiword or empty-node id, an empty FORM, a comment among the words, text
        that is not UTF-8, a truncated or damaged gzip stream; ``path`` is a directory.
    DataNotFoundError
        ``path`` does not exist.
    """
    path = Path(path)
    doc_id = path.name.split(".")[0]
    comments, tokens, heads, lines, multiword = {}, [], [0], [], []
    start_line, index = None, 0
    seen = {}                                 # (doc id, sent_id) → line of that sentence
    with open_text(path, "CoNLL-U file") as handle:
        try:
            for lineno, raw in enumerate(handle, start=1):
                line = raw.rstrip("\r\n")
                if not line or line.isspace():
                    if tokens:
                        yield _unique(_finish(comments, tokens, heads, lines, multiword,
                                              doc_id, path, start_line, index), seen)
                        index += 1
                    elif multiword:
                        raise _error("sentence has a multiword token but no words", path,
                                     lineno)
                    elif comments.get("text") is not None:
                        raise _error("sentence has comments but no words", path, lineno)
                    comments, tokens, heads, lines, multiword = {}, [], [0], [], []
                    start_line = None
                    continue
                if start_line is None:
                    start_line = lineno
                if line[0] == "#":
                    if tokens or multiword:
                        raise _error("comment line among the words of a sentence (the blank "
                                     "line that ends a sentence is missing?)", path, lineno)
                    body = line[1:].strip()
                    if "=" in body:
                        key, value = body.split("=", 1)
                        key, value = key.strip(), value.strip()
                        if key == "newdoc id":
                            doc_id = value
                        comments[key] = value
                    continue
                cols = line.split("\t")
                if len(cols) != 10:
                    raise _error(f"expected 10 TAB-separated columns, found {len(cols)}",
                                 path, lineno)
                ident = cols[0]
                if not (ident.isascii() and ident.isdigit()):  # int() takes "+1", "1_0"
                    if "-" in ident:
                        multiword.append((_multiword(ident, cols, path, lineno), lineno))
                        continue
                    first, dot, second = ident.partition(".")
                    if dot and _is_number(first) and _is_number(second) and int(second) > 0:
                        continue  # empty node of the enhanced graph: not part of the tree
                    raise _id_error(ident, len(tokens) + 1, path, lineno)
                tid = int(ident)
                if tid != len(heads):  # heads[0] stands for the root
                    raise _id_error(ident, len(heads), path, lineno)
                head = cols[6]
                if not (head.isascii() and head.isdigit()):
                    raise _head_error(cols, path, lineno)
                if not cols[1]:
                    raise _error(f"word {tid} has an empty FORM", path, lineno)
                cols[0] = tid
                cols[6] = head = int(head)
                # = Token(*cols), without the frozen dataclass __init__ (10 object.__setattr__
                # calls, a third of the reading time)
                token = _new_object(Token)
                token.__dict__.update(zip(_TOKEN_FIELDS, cols))
                tokens.append(token)
                heads.append(head)
                lines.append(lineno)
        except READ_ERRORS as exc:
            raise read_error(path, exc) from None
        except CorpusFormatError as exc:      # name the sentence too (record)
            raise _with_sentence(exc, comments.get("sent_id", str(index))) from None
    try:
        if tokens:
            yield _unique(_finish(comments, tokens, heads, lines, multiword, doc_id, path,
                                  start_line, index), seen)
        elif multiword or comments.get("text") is not None:
            raise _error("sentence has comments but no words", path, start_line)
    except CorpusFormatError as exc:
        raise _with_sentence(exc, comments.get("sent_id", str(index))) from None


def read_conllu(path):
    """Read a whole CoNLL-U file into a list of :class:`ConlluSentence`."""
    return list(iter_conllu(path))


def token_offsets(sentence):
    """Character spans ``[(start, end), ...]`` (end exclusive) of each word in ``text``.

    A word that is part of a multiword token gets the span of the multiword token. Forms
    are matched left to right, skipping only whitespace between them.

    Raises
    ------
    CorpusFormatError
        When a form (or multiword form) does not occur at the expected place.
    """
    text = sentence.text
    covering = {}
    for mwt in sentence.multiword:
        for i in range(mwt.first, mwt.last + 1):
            covering[i] = mwt
    spans, pos, done = [], 0, {}
    for tok in sentence.tokens:
        mwt = covering.get(tok.id)
        if mwt is not None and id(mwt) in done:
            spans.append(done[id(mwt)])
            continue
        form = mwt.form if mwt is not None else tok.form
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if text.startswith(form, pos):
            span = (pos, pos + len(form))
        else:
            raise CorpusFormatError(
                f"word {tok.id} {form!r} is not found at character {pos} of the "
                f"'# text' line {text[pos:pos + 30]!r}", path=sentence.path,
                line=sentence.line, record=sentence.sent_id)
        pos = span[1]
        if mwt is not None:
            done[id(mwt)] = span
        spans.append(span)
    return spans
