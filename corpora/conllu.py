"""Reader for CoNLL-U dependency treebanks (the CRAFT gold trees used by ``parse_ranking``).

Format (https://universaldependencies.org/format.html): one token per line with ten
TAB-separated columns ``ID FORM LEMMA UPOS XPOS FEATS HEAD DEPREL DEPS MISC``; sentences
are separated by a blank line; comment lines start with ``#`` (``# text = …``,
``# sent_id = …``, ``# newdoc id = …``). Multiword tokens have a range id ``4-5`` and
are kept apart from the syntactic words; empty nodes (``8.1``) are kept apart too.
``.gz`` files are read transparently.

Besides the tree, :func:`token_offsets` recovers each word's character span in the
``# text`` line (CoNLL-U gives none): forms are located left to right in the text,
skipping whitespace only, so the spans are exact or the sentence is reported.

Every malformed line raises :class:`~kernelrank.errors.CorpusFormatError` naming the file
and the line. Cost: O(file size).
"""

import gzip
import io
from dataclasses import dataclass, field
from pathlib import Path

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


def _open_text(path):
    path = Path(path)
    if path.suffix == ".gz":
        return io.TextIOWrapper(gzip.open(path, "rb"), encoding="utf-8")
    return open(path, encoding="utf-8")


def _int(value, path, lineno, what):
    try:
        return int(value)
    except ValueError:
        raise CorpusFormatError(f"{what} {value!r} is not an integer", path=path,
                                line=lineno) from None


def _finish(comments, tokens, multiword, doc_id, path, start_line, index):
    for tok in tokens:
        if tok.head < 0 or tok.head > len(tokens):
            raise CorpusFormatError(
                f"HEAD {tok.head} of word {tok.id} is outside the sentence "
                f"(1..{len(tokens)})", path=path, line=start_line)
    for expected, tok in enumerate(tokens, start=1):
        if tok.id != expected:
            raise CorpusFormatError(f"word ids are not 1..n in order (found {tok.id} at "
                                    f"position {expected})", path=path, line=start_line)
    sent_id = comments.get("sent_id", str(index))
    text = comments.get("text")
    if text is None:
        text = " ".join(t.form for t in tokens)
    return ConlluSentence(sent_id=sent_id, text=text, tokens=tokens, multiword=multiword,
                          doc_id=doc_id, comments=dict(comments), path=str(path),
                          line=start_line)


def iter_conllu(path):
    """Yield :class:`ConlluSentence` objects from a CoNLL-U file (``.gz`` allowed).

    ``doc_id`` comes from the latest ``# newdoc id =`` comment, else the file name stem
    (``11319941.conllu.gz`` → ``11319941``).
    """
    path = Path(path)
    if not path.is_file():
        raise CorpusFormatError("file does not exist", path=path)
    doc_id = path.name.split(".")[0]
    comments, tokens, multiword = {}, [], []
    start_line, index = None, 0
    with _open_text(path) as handle:
        for lineno, raw in enumerate(handle, start=1):
            line = raw.rstrip("\n").rstrip("\r")
            if not line.strip():
                if tokens:
                    yield _finish(comments, tokens, multiword, doc_id, path, start_line,
                                  index)
                    index += 1
                elif comments.get("text") is not None:
                    raise CorpusFormatError("sentence has comments but no words",
                                            path=path, line=lineno)
                comments, tokens, multiword, start_line = {}, [], [], None
                continue
            if start_line is None:
                start_line = lineno
            if line.startswith("#"):
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
                raise CorpusFormatError(f"expected 10 TAB-separated columns, found "
                                        f"{len(cols)}", path=path, line=lineno)
            ident = cols[0]
            if "-" in ident:
                first, _, last = ident.partition("-")
                first = _int(first, path, lineno, "multiword range start")
                last = _int(last, path, lineno, "multiword range end")
                if last < first:
                    raise CorpusFormatError(f"multiword range {ident!r} is empty",
                                            path=path, line=lineno)
                multiword.append(MultiwordToken(first, last, cols[1], cols[9]))
                continue
            if "." in ident:  # empty node of the enhanced graph: not part of the tree
                continue
            tid = _int(ident, path, lineno, "word id")
            head = _int(cols[6], path, lineno, "HEAD") if cols[6] != "_" else -1
            if head < 0:
                raise CorpusFormatError(f"word {tid} has no HEAD", path=path, line=lineno)
            if not cols[1]:
                raise CorpusFormatError(f"word {tid} has an empty FORM", path=path,
                                        line=lineno)
            tokens.append(Token(tid, cols[1], cols[2], cols[3], cols[4], cols[5], head,
                                cols[7], cols[8], cols[9]))
    if tokens:
        yield _finish(comments, tokens, multiword, doc_id, path, start_line, index)


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
