"""Protein mentions of raw text: given annotations, else a dictionary (lexicon) tagger.

The tagger (:class:`DictionaryTagger`) reads a lexicon file — one protein name per line,
UTF-8, ``#`` comment lines and blank lines ignored — and finds every occurrence of a name in
a text with **case and hyphen normalization**: letters are compared lower-cased, hyphen-like
characters (``-‐‑‒–—``) and whitespace are ignored, so ``IL-2``, ``IL2``, ``il 2`` and
``Il‑2`` all match the entry ``IL-2``.  A match must start and end on a word boundary (no
letter or digit just outside it).  Overlapping matches are resolved left to right by
**longest match** (at each start position the longest name wins, and a match that begins
inside a previous one is dropped).  Names whose normalized key is shorter than
``min_length`` (default 2) are ignored, since one-letter "names" match everywhere.

Matching walks a character trie from each word start, so tagging costs
O(text length × longest name) in the worst case and usually far less.

:func:`build_lexicon` collects the entity names of training corpora (learning-format XML);
:func:`write_lexicon` is the command line ``python -m ppi mentions [--data-dir D] --corpora
AIMed BioInfer ... --output lexicon.txt`` (or ``--input FILE ...`` for other learning-format
files).
:func:`document_mentions` returns a document's given annotations when it has them, else
the tagger's, and raises a clear error when it has neither.
"""

from __future__ import annotations

from pathlib import Path

from kernelrank.atomic import write_text
from corpora.text_input import Mention
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError

__all__ = ["normalize_name", "DictionaryTagger", "build_lexicon", "write_lexicon",
           "read_lexicon", "document_mentions"]

HYPHENS = "-\u2010\u2011\u2012\u2013\u2014\u2212"
_IGNORED = set(HYPHENS) | {" ", "\t", "\n", "\r", "\u00a0"}


def normalize_name(name):
    """The lexicon key of a name: lower-cased, hyphens and whitespace removed."""
    return "".join(c for c in name.lower() if c not in _IGNORED)


def read_lexicon(path):
    """Names of a lexicon file (one per line; blank and ``#`` lines skipped), plain or gzip,
    through the shared opener (:mod:`corpora.lines`: bytes that are not UTF-8, a broken gzip
    stream or a directory are a :class:`~kernelrank.errors.CorpusFormatError` naming the
    file and line)."""
    from corpora.lines import open_text, reading

    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"lexicon {path} does not exist; build one from training "
                                "corpora with `python -m ppi mentions --corpora LLL ... "
                                "--output lexicon.txt`")
    names = []
    with open_text(path, "lexicon") as handle, reading(path):
        for line in handle:
            line = line.strip()
            if line and not line.startswith("#"):
                names.append(line)
    return names


class DictionaryTagger:
    """Longest-match dictionary tagger with case/hyphen normalization (module docstring).

    Parameters
    ----------
    names : iterable of str, optional
    lexicon : path, optional       a lexicon file (one name per line)
    min_length : int               shortest normalized name used (default 2)
    type : str                     type given to the mentions found
    """

    _END = "\0"

    def __init__(self, names=None, lexicon=None, min_length=2, type="protein"):
        if names is None and lexicon is None:
            raise InvalidParameterError("DictionaryTagger needs names or a lexicon file")
        all_names = list(names or ()) + (read_lexicon(lexicon) if lexicon is not None else [])
        self.min_length = int(min_length)
        self.type = type
        self.trie = {}
        self.n_names = 0
        for name in all_names:
            key = normalize_name(name)
            if len(key) < self.min_length:
                continue
            node = self.trie
            for c in key:
                node = node.setdefault(c, {})
            if self._END not in node:
                self.n_names += 1
            node[self._END] = True
        if self.n_names == 0:
            raise InvalidParameterError(f"the lexicon has no name of at least {min_length} "
                                        "characters after normalization")

    def _longest(self, text, start):
        """End (exclusive) of the longest name starting at ``start``, or -1."""
        node, best, i, n = self.trie, -1, start, len(text)
        while i < n:
            c = text[i]
            if c in _IGNORED:
                i += 1
                continue
            node = node.get(c.lower()) if len(c.lower()) == 1 else None
            if node is None:
                break
            i += 1
            if self._END in node and (i == n or not text[i].isalnum()):
                best = i
        return best

    def tag(self, text):
        """The :class:`corpora.text_input.Mention` list of ``text`` (sorted, disjoint)."""
        out, i, n = [], 0, len(text)
        while i < n:
            c = text[i]
            if c not in _IGNORED and (i == 0 or not text[i - 1].isalnum()):
                end = self._longest(text, i)
                if end > 0:
                    out.append(Mention(i, end, text[i:end], self.type))
                    i = end
                    continue
            i += 1
        return out


def document_mentions(doc, tagger=None):
    """A :class:`corpora.text_input.TextDocument`'s mentions: given ones, else the tagger's."""
    if doc.mentions is not None:
        return sorted(doc.mentions, key=lambda m: (m.start, m.end))
    if tagger is None:
        raise CorpusFormatError("the document has no mention annotations; give a lexicon "
                                "(--lexicon) to tag protein names", record=doc.id)
    return tagger.tag(doc.text)


def build_lexicon(corpus_paths, output=None, min_length=2):
    """Sorted unique entity names of learning-format corpora; written to ``output`` if given.

    Discontinuous entities (several spans) are left out: their ``text`` is not a name that
    occurs in running text.  Names are kept as written (normalization happens when tagging).
    """
    from corpora.ppi_xml import iter_documents
    names = set()
    for path in corpus_paths:
        for _, _, doc in iter_documents(path):
            for s in doc.sentences:
                for e in s.entities:
                    if len(e.offsets) == 1:
                        name = s.text[e.offsets[0][0]:e.offsets[0][1] + 1].strip()
                        if len(normalize_name(name)) >= min_length:
                            names.add(name)
    names = sorted(names)
    if output is not None:
        write_text(output, "".join(n + "\n" for n in names))
    return names


def write_lexicon(output, *, corpora=(), inputs=(), data_dir=None, min_length=2):
    """Build the lexicon of the benchmark ``corpora`` (names, read from ``data_dir``) and the
    learning-format files ``inputs``, and write it to ``output``; returns the names."""
    from ppi.names import corpus_path

    paths = [corpus_path(data_dir, n) for n in corpora] + list(inputs)
    if not paths:
        raise InvalidParameterError("give --corpora and/or --input")
    return build_lexicon(paths, output, min_length)
