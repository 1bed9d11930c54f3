"""Protein mentions of raw text: given annotations, else a dictionary (lexicon) tagger.

The tagger (:class:`DictionaryTagger`) reads a lexicon file — one protein name per line,
optionally followed by a tab and the name's concept id (``IL-2<TAB>3558``; several ids as
PubTator writes them, ``3558,16183``), UTF-8, ``#`` comment lines and blank lines ignored —
and finds every occurrence of a name in a text with **case and hyphen normalization**:
letters are compared lower-cased, hyphen-like characters (``-‐‑‒–—``) and whitespace are
ignored, so ``IL-2``, ``IL2``, ``IL 2`` and ``Il‑2`` all match the entry ``IL-2``.  A match
must start and end on a word boundary (no letter or digit just outside it), and two rules
keep ordinary words out, each judged by the entry's spellings in the lexicon (the cases and
separators its curators wrote):

* **no words joined**: a space in the text must stand where one of the entry's spellings
  has a space or hyphen, or between a letter and a digit — ``IL-2`` matches "IL 2" and
  ``SOCS3`` "SOCS 3", but ``EPOR`` does not match the two words "e por" nor ``AT`` "a T"
  (hyphens are free: ``SOCS3`` matches "SOCS-3", ``PRLR`` "PRL-R");
* **short names keep their case**: a name of at most :data:`SHORT_NAME` characters (after
  normalization) written entirely in lower case in the text matches only an entry with an
  all-lower-case spelling — ``UP`` (uroplakin) does not match "up" in "up-regulated", while
  ``p53`` matches "p53".  Longer names match in any case (``Ptpn22`` for ``PTPN22``: mouse
  and human conventions differ).  Dictionary gene taggers match short synonyms
  case-sensitively for this reason (ProMiner: Hanisch et al. 2005, BMC Bioinformatics
  6:S14).

Overlapping
matches are resolved left to right by **longest match** (at each start position the longest
name wins, and a match that begins inside a previous one is dropped).  Names whose
normalized key is shorter than ``min_length`` (default 2) are ignored, since one-letter
"names" match everywhere.

Matching walks a character trie from each word start, so tagging costs
O(text length × longest name) in the worst case and usually far less.

:func:`build_lexicon` collects the entity names of training corpora: learning-format XML
(names only), or PubTator / BioC files (each name with its concept id, so that text tagged
with the lexicon carries the ids a ``documents`` model pairs — the NCBI Gene ids of BioRED
or of a curator's export); :func:`write_lexicon` is the command line ``python -m ppi
mentions [--data-dir D] --corpora AIMed BioInfer ... --input FILE ... --output
lexicon.txt``.

Concept ids of a name.  A tagged mention takes the id of its lexicon entry (none for a
name-only entry: such text gives mention pairs, and no gene pairs, :mod:`ppi.aggregation.aggregate`).
Built from annotated files, a name keeps the id most of its **documents** give it (the same
name can denote different genes in different abstracts — a human and a mouse gene, a gene
and its family; ties: the smaller id), counted by :func:`build_lexicon` as ambiguous;
names that differ only in case and hyphens are one name.  Dictionary tagging with the ids
a corpus' curators gave is the classic lexicon normalization (e.g. the gene dictionaries of
BioCreative II gene normalization, Morgan et al. 2008, Genome Biology 9:S3); it cannot know
a gene its source never names.
:func:`document_mentions` returns a document's given annotations when it has them, else
the tagger's, and raises a clear error when it has neither.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from kernelrank.atomic import write_text
from corpora.text_input import Mention
from kernelrank.errors import CorpusFormatError, DataNotFoundError, InvalidParameterError

__all__ = ["normalize_name", "DictionaryTagger", "Lexicon", "build_lexicon", "write_lexicon",
           "read_lexicon", "read_lexicon_entries", "document_mentions"]

HYPHENS = "-\u2010\u2011\u2012\u2013\u2014\u2212"
_IGNORED = set(HYPHENS) | {" ", "\t", "\n", "\r", "\u00a0"}


#: names of at most this many characters (normalized) keep their case (module docstring)
SHORT_NAME = 3


def normalize_name(name):
    """The lexicon key of a name: lower-cased, hyphens and whitespace removed."""
    return "".join(c for c in name.lower() if c not in _IGNORED)


def _separators(name, ignored=_IGNORED):
    """The positions (in normalized characters) after which ``name`` has a character of
    ``ignored`` (default: a hyphen or whitespace)."""
    out, k = set(), 0
    for c in name:
        if c in ignored:
            out.add(k)
        elif c not in _IGNORED:
            k += 1
    out.discard(0)
    return frozenset(out)


def _joins_words(occurrence, separators):
    """Whether a space of the text ``occurrence`` stands neither at one of the lexicon's
    ``separators`` nor between a letter and a digit (module docstring)."""
    key = normalize_name(occurrence)
    for k in _separators(occurrence, _IGNORED - set(HYPHENS)):
        if k not in separators and k < len(key) and \
                key[k - 1].isdigit() == key[k].isdigit():
            return True
    return False


class _Entry:
    """A trie entry: the concept id, the separator positions of all its spellings, and
    whether one of them is all lower case."""

    __slots__ = ("concept_id", "separators", "lower")

    def __init__(self, concept_id):
        self.concept_id, self.separators, self.lower = concept_id, frozenset(), False

    def add(self, name):
        self.separators |= _separators(name)
        self.lower = self.lower or name == name.lower()

    def allows(self, occurrence, key_length):
        """Whether the text ``occurrence`` of the name may be a mention (module docstring)."""
        if _joins_words(occurrence, self.separators):
            return False
        return (key_length > SHORT_NAME or self.lower or occurrence != occurrence.lower())


def read_lexicon_entries(path):
    """``(name, concept id or None)`` of every entry of a lexicon file (one ``name`` or
    ``name<TAB>id`` per line; blank and ``#`` lines skipped), plain or gzip, through the
    shared opener (:mod:`corpora.lines`: bytes that are not UTF-8, a broken gzip stream or a
    directory are a :class:`~kernelrank.errors.CorpusFormatError` naming the file and line;
    so is a line of more than two tab-separated fields or without a name)."""
    from corpora.lines import open_text, reading

    path = Path(path)
    if not path.exists():
        raise DataNotFoundError(f"lexicon {path} does not exist; build one from training "
                                "corpora with `python -m ppi mentions --corpora LLL ... "
                                "--output lexicon.txt` (or `--input annotated.pubtator` for "
                                "names with their concept ids)")
    entries = []
    with open_text(path, "lexicon") as handle, reading(path):
        for number, line in enumerate(handle, start=1):
            line = line.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            fields = [f.strip() for f in line.split("\t")]
            if len(fields) > 2 or not fields[0]:
                raise CorpusFormatError(
                    f"a lexicon line is a name, or a name, a tab and its concept id; found "
                    f"{len(fields)} tab-separated fields{'' if fields[0] else ' and no name'}",
                    path=path, line=number)
            entries.append((fields[0], fields[1] if len(fields) == 2 and fields[1] else None))
    return entries


def read_lexicon(path):
    """The names of a lexicon file (:func:`read_lexicon_entries` without the ids)."""
    return [name for name, _ in read_lexicon_entries(path)]


class DictionaryTagger:
    """Longest-match dictionary tagger with case/hyphen normalization (module docstring).

    Parameters
    ----------
    names : iterable of str or of (name, concept id or None), optional
    lexicon : path, optional       a lexicon file (one name, or name<TAB>id, per line)
    min_length : int               shortest normalized name used (default 2)
    type : str                     type given to the mentions found

    Of entries with the same normalized name the first one's id is the mention's (a
    name-only entry takes the id of a later one); all their spellings decide where an
    occurrence may have spaces or hyphens and, for a short name, its case.  Building the
    trie is O(total name length).
    """

    _END = "\0"

    def __init__(self, names=None, lexicon=None, min_length=2, type="protein"):
        if names is None and lexicon is None:
            raise InvalidParameterError("DictionaryTagger needs names or a lexicon file")
        entries = [(n, None) if isinstance(n, str) else tuple(n) for n in names or ()]
        entries += read_lexicon_entries(lexicon) if lexicon is not None else []
        self.min_length = int(min_length)
        self.type = type
        self.trie = {}
        self.n_names = 0
        for name, concept_id in entries:
            key = normalize_name(name)
            if len(key) < self.min_length:
                continue
            node = self.trie
            for c in key:
                node = node.setdefault(c, {})
            if self._END not in node:
                self.n_names += 1
                node[self._END] = _Entry(concept_id)
            elif node[self._END].concept_id is None:    # a name-only entry takes a later id
                node[self._END].concept_id = concept_id
            node[self._END].add(name)
        if self.n_names == 0:
            raise InvalidParameterError(f"the lexicon has no name of at least {min_length} "
                                        "characters after normalization")

    def _longest(self, text, start):
        """``(end, concept id)`` of the longest name starting at ``start`` (end exclusive),
        or ``(-1, None)``."""
        node, best, concept_id, i, n = self.trie, -1, None, start, len(text)
        length = 0
        while i < n:
            c = text[i]
            if c in _IGNORED:
                i += 1
                continue
            node = node.get(c.lower()) if len(c.lower()) == 1 else None
            if node is None:
                break
            i += 1
            length += 1
            entry = node.get(self._END)
            if entry is not None and (i == n or not text[i].isalnum()) and \
                    entry.allows(text[start:i], length):
                best, concept_id = i, entry.concept_id
        return best, concept_id

    def tag(self, text):
        """The :class:`corpora.text_input.Mention` list of ``text`` (sorted, disjoint)."""
        out, i, n = [], 0, len(text)
        while i < n:
            c = text[i]
            if c not in _IGNORED and (i == 0 or not text[i - 1].isalnum()):
                end, concept_id = self._longest(text, i)
                if end > 0:
                    out.append(Mention(i, end, text[i:end], self.type, concept_id))
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


@dataclass
class Lexicon:
    """What :func:`build_lexicon` collected: the ``(name, concept id or None)`` entries,
    sorted, and how many names (after normalization) their sources gave several ids."""

    entries: list
    ambiguous: int = 0

    @property
    def names(self):
        return [name for name, _ in self.entries]

    def text(self):
        """The lexicon file's text: ``name`` or ``name<TAB>id`` per line."""
        return "".join(f"{n}\t{i}\n" if i else f"{n}\n" for n, i in self.entries)


def _learning_format_names(path):
    """Entity names of a learning-format corpus (no ids).  Discontinuous entities (several
    spans) are left out: their ``text`` is not a name that occurs in running text."""
    from corpora.ppi_xml import iter_documents

    for _, _, doc in iter_documents(path):
        for s in doc.sentences:
            for e in s.entities:
                if len(e.offsets) == 1:
                    yield s.text[e.offsets[0][0]:e.offsets[0][1] + 1].strip()


def _annotated_names(path, fmt, entity_types, skip_bad):
    """Per document of a PubTator / BioC file, the ``(name, concept ids)`` of its mentions of
    ``entity_types`` (several ids joined by ``,``; a mention without an id, or with PubTator's
    ``-``, gives ``(name, None)``)."""
    from corpora.standoff import split_concept_ids
    from corpora.text_input import read_documents
    from ppi.documents.relations import candidate_mentions

    for doc in read_documents(path, fmt, skip_bad=skip_bad):
        if doc.mentions is not None:
            yield {(m.text, ",".join(split_concept_ids(m.id)) or None)
                   for m in candidate_mentions(doc, entity_types)}


def build_lexicon(paths, output=None, min_length=2, entity_types=None, skip_bad=False):
    """The lexicon of annotated files (module docstring), written to ``output`` if given.

    ``paths``: learning-format XML (entity names, no ids), or PubTator / BioC files (the
    mentions of ``entity_types``, default genes and gene products, with their concept ids;
    each name takes the id most of its documents give it, ties the smaller).  Names are kept
    as written (tagging normalizes them) and sorted; tabs and line breaks inside a name
    become spaces.  O(mentions) time and O(distinct names) memory.  Returns a
    :class:`Lexicon`.
    """
    from collections import Counter, defaultdict

    from corpora.text_input import detect_format
    from corpora.standoff import concept_order

    forms = defaultdict(set)                      # normalized key -> names as written
    ids = defaultdict(Counter)                    # normalized key -> id -> documents
    for path in paths:
        fmt = detect_format(path)
        if fmt == "learning-xml":
            groups = ({(name, None)} for name in _learning_format_names(path))
        elif fmt in ("pubtator", "bioc-xml", "bioc-json"):
            groups = _annotated_names(path, fmt, entity_types, skip_bad)
        else:
            raise InvalidParameterError(f"{path}: a lexicon is built from annotated files "
                                        f"(learning-format XML, PubTator, BioC), not {fmt!r}")
        for group in groups:
            for name, concept_id in group:
                name = " ".join(name.split())
                key = normalize_name(name)
                if len(key) < min_length:
                    continue
                forms[key].add(name)
                if concept_id is not None:
                    ids[key][concept_id] += 1
    entries, ambiguous = [], 0
    for key, names in forms.items():
        counts = ids.get(key)
        best = None
        if counts:
            ambiguous += len(counts) > 1
            best = min(counts, key=lambda i: (-counts[i], concept_order(i)))
        entries += [(n, best) for n in names]
    lexicon = Lexicon(sorted(entries), ambiguous)
    if output is not None:
        write_text(output, lexicon.text())
    return lexicon


def write_lexicon(output, *, corpora=(), inputs=(), data_dir=None, min_length=2,
                  entity_types=None, skip_bad=False):
    """Build the lexicon of the benchmark ``corpora`` (names, read from ``data_dir``) and the
    annotated files ``inputs`` (paths, or the relation sets ``biored`` / ``biored-dev`` /
    ``bc6ppim`` of the data directory), and write it to ``output``; returns the
    :class:`Lexicon`."""
    from ppi.names import corpus_path, relations_path

    paths = ([corpus_path(data_dir, n) for n in corpora]
             + [relations_path(data_dir, p) for p in inputs])
    if not paths:
        raise InvalidParameterError("give --corpora and/or --input")
    return build_lexicon(paths, output, min_length, entity_types, skip_bad)
