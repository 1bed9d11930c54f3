"""The document model of the raw-text readers (:mod:`corpora.text_input`, :mod:`corpora.bioc`).

:class:`TextDocument` (an input document with its :class:`Mention` objects), and the counts
of a read: :class:`ReadStats`, which includes :class:`MentionCounts` (what
:func:`corpora.standoff.align_mentions` repaired, dropped and merged).  A module of its own
so the readers and the alignment share it without importing each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from kernelrank.errors import InvalidParameterError

__all__ = ["Mention", "Relation", "TextDocument", "MentionCounts", "ReadStats", "title_length",
           "type_set"]


def type_set(types, what, example):
    """The mention or relation types ``types`` as a frozenset compared ignoring case and
    surrounding blanks; an empty list or an empty type is an :class:`InvalidParameterError`
    (``what``: e.g. "entity types"; ``example``: types to suggest)."""
    types = tuple(types)
    if not types or not all(isinstance(t, str) and t.strip() for t in types):
        raise InvalidParameterError(f"{what} {list(types)!r}: give one or more non-empty "
                                    f"types, e.g. {example}")
    return frozenset(t.strip().lower() for t in types)


@dataclass
class MentionCounts:
    """What :func:`corpora.standoff.align_mentions` did to the mentions of a read (see
    :mod:`corpora.standoff`): kept, repaired, dropped, identical, merged, overlapping; and
    the discontinuous BioC annotations read as one mention per location
    (:mod:`corpora.bioc`)."""

    mentions: int = 0                  # mentions kept
    mentions_repaired: int = 0
    mentions_dropped: int = 0
    mentions_identical: int = 0
    mentions_merged: int = 0
    mentions_overlapping: int = 0
    mentions_without_id: int = 0       # kept mentions that carry no concept id
    mentions_fragmented: int = 0       # discontinuous annotations read as one mention a span
    repair_examples: list = field(default_factory=list)    # first 20 repairs
    mention_errors: list = field(default_factory=list)     # first 100 dropped mentions

    def mention_counts(self):
        return {k: getattr(self, k) for k in (
            "mentions", "mentions_repaired", "mentions_dropped", "mentions_identical",
            "mentions_merged", "mentions_overlapping", "mentions_without_id",
            "mentions_fragmented")}


@dataclass(frozen=True)
class Mention:
    """A protein mention in document coordinates: ``text[start:end]`` (exclusive end)."""

    start: int
    end: int
    text: str
    type: str | None = None
    id: str | None = None      # concept id (PubTator 6th column) if any


@dataclass(frozen=True)
class Relation:
    """A document-level relation between two concepts: "the entities with ids ``id1`` and
    ``id2`` are related in this document" (PubTator relation lines, BioC ``relation``
    elements) — not tied to a mention pair or a sentence.

    ``type``: the relation type (BioRED's ``Association``, ``Bind``, …; BioCreative VI's
    ``PPIm``); ``attrs``: further fields, e.g. ``(("novelty", "Novel"),)``.  An id may list
    several concept ids separated by commas, as mention ids do.
    """

    type: str
    id1: str
    id2: str
    attrs: tuple = ()


@dataclass
class TextDocument:
    """One input document.

    ``mentions`` is None when the input carries no annotations (a tagger must find them);
    ``sentences`` holds pre-split :class:`corpora.ppi_xml.Sentence` objects (learning-format
    input) — then ``text`` is informational and sentence offsets are sentence-relative.
    """

    id: str
    text: str
    mentions: list | None = None
    sentences: list | None = None
    position: str = ""
    title_end: int | None = None   # text[:title_end] is the title (PubMed, PubTator)
    #: document-level relations of the input (:class:`Relation`; PubTator relation lines,
    #: BioC relations); None when the format carries none
    relations: list | None = None


@dataclass
class ReadStats(MentionCounts):
    """Counts of a read: documents yielded, records skipped (``skip_bad``) and why, what
    happened to standoff mentions (:class:`corpora.standoff.MentionCounts`: repaired,
    dropped, merged, overlapping), and the document-level relations kept and left out
    (``skip_bad``: a relation that names no concept in one of its two places, or an id
    with ``|`` that no mention carries; :func:`corpora.standoff.check_relations`)."""

    documents: int = 0
    skipped: int = 0
    errors: list = field(default_factory=list)   # first 100 messages
    relations: int = 0                 # relations kept
    relations_dropped: int = 0         # relations left out (skip_bad)
    relation_errors: list = field(default_factory=list)    # first 100 left out

    def skip(self, exc):
        self.skipped += 1
        if len(self.errors) < 100:
            self.errors.append(str(exc))

    def drop_relation(self, exc):
        """Count a relation left out with ``skip_bad`` (its document is kept)."""
        self.relations_dropped += 1
        if len(self.relation_errors) < 100:
            self.relation_errors.append(str(exc))


def title_length(d):
    """The length of ``d``'s title, ``text[:title_end]`` (the whole text when ``title_end`` is
    None), checked to be followed by the one space that separates it from the abstract: the
    title / abstract split of the writers (:func:`corpora.pubtator.write_pubtator`,
    :func:`corpora.pubmed_xml.write_pubmed_xml`). An InvalidParameterError otherwise."""
    n = len(d.text) if d.title_end is None else d.title_end
    if n < len(d.text) and d.text[n] != " ":
        raise InvalidParameterError(f"document {d.id}: the title must be followed by one space")
    return n
