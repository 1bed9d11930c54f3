"""Learning-format XML (:mod:`corpora.ppi_xml`) as raw-text input documents.

:func:`read_learning_xml` streams a benchmark corpus as
:class:`~corpora.documents.TextDocument` objects that keep their sentences, gold entities and
candidate pairs (``--format learning-xml``: score the parses the file carries).
:func:`learning_to_text_document` turns one benchmark document into an abstract with
mentions, what PubTator can hold — and deals explicitly with what it cannot (discontinuous
entities: an error, or dropped and counted in :class:`ConversionStats`). Cost: O(entities +
pairs) per document.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from corpora.documents import Mention, ReadStats, TextDocument
from kernelrank.errors import CorpusFormatError, InvalidParameterError

__all__ = ["DISCONTINUOUS_POLICIES", "ConversionStats", "learning_to_text_document",
           "read_learning_xml"]


#: what :func:`learning_to_text_document` does with a discontinuous entity
DISCONTINUOUS_POLICIES = ("error", "drop")


@dataclass
class ConversionStats:
    """Counts of :func:`learning_to_text_document` calls: what PubTator could not carry.

    ``discontinuous``: entities dropped (policy ``drop``); ``merged``: entities with the same
    single span as an earlier entity of their sentence, written as that one mention;
    ``pairs_lost`` / ``positive_pairs_lost``: gold candidate pairs that raw-text extraction
    cannot produce from the output (an entity dropped, or both entities merged into one
    mention); ``examples``: the first 10 dropped entities.
    """

    documents: int = 0
    entities: int = 0
    mentions: int = 0
    discontinuous: int = 0
    merged: int = 0
    pairs: int = 0
    pairs_lost: int = 0
    positive_pairs_lost: int = 0
    examples: list = field(default_factory=list)

    def as_dict(self):
        return {k: getattr(self, k) for k in ("documents", "entities", "mentions",
                                              "discontinuous", "merged", "pairs", "pairs_lost",
                                              "positive_pairs_lost", "examples")}


def learning_to_text_document(doc, *, discontinuous="error", stats=None, default_type="Gene"):
    """A learning-format :class:`corpora.ppi_xml.Document` as an abstract with mentions.

    The text is the document's sentences joined by one space (the first sentence is the
    title when there are several); every single-span entity becomes a
    :class:`~corpora.documents.Mention` in document coordinates (type: the entity's, else
    ``default_type``).  Entities with the same span become one mention (counted as
    ``merged``).

    PubTator (and :class:`~corpora.documents.Mention`) has **no discontinuous spans**, so an
    entity with several fragments — BioInfer has 122, e.g. "muscle … actin" in "muscle and brain
    actin" — cannot be written faithfully.  Writing each fragment as a mention would invent
    protein mentions ("muscle") and candidate pairs the gold standard never labelled, and
    the covering span would swallow other entities, so neither is offered:

    ``discontinuous="error"`` (default)
        raise :class:`kernelrank.errors.CorpusFormatError` naming the document, sentence and
        entity;
    ``discontinuous="drop"``
        leave the entity out and count it in ``stats`` (:class:`ConversionStats`), with the
        gold pairs that thereby cannot be produced — callers report these counts.

    Returns the :class:`~corpora.documents.TextDocument` (``mentions`` sorted by offsets).
    O(entities + pairs).
    """
    if discontinuous not in DISCONTINUOUS_POLICIES:
        raise InvalidParameterError(f"discontinuous={discontinuous!r}; choose one of "
                                    f"{', '.join(DISCONTINUOUS_POLICIES)}")
    stats = stats if stats is not None else ConversionStats()
    parts, mentions, where, pos = [], {}, {}, 0
    for s in doc.sentences:
        for e in s.entities:
            stats.entities += 1
            if len(e.offsets) != 1:
                if discontinuous == "error":
                    raise CorpusFormatError(
                        f"entity {e.id} {e.text!r} is discontinuous (spans "
                        f"{', '.join(f'{a}-{b}' for a, b in e.offsets)}); PubTator has no "
                        "discontinuous spans — use discontinuous='drop' to leave it out "
                        "(counted)", record=f"{doc.id}/{s.id}")
                stats.discontinuous += 1
                if len(stats.examples) < 10:
                    stats.examples.append(f"{s.id}: {e.id} {e.text!r} {list(e.offsets)}")
                where[(s.id, e.id)] = None
                continue
            a, b = e.offsets[0]
            text = s.text[a:b + 1]
            if not text.strip() or b >= len(s.text):
                raise CorpusFormatError(f"entity {e.id} at {a}-{b} reads {text!r} (empty or "
                                        "outside the sentence)", record=f"{doc.id}/{s.id}")
            key = (pos + a, pos + b + 1)
            if key in mentions:
                stats.merged += 1
            else:
                mentions[key] = Mention(key[0], key[1], text, e.type or default_type)
            where[(s.id, e.id)] = key
        for p in s.pairs:
            stats.pairs += 1
            k1, k2 = where.get((s.id, p.e1)), where.get((s.id, p.e2))
            if k1 is None or k2 is None or k1 == k2:
                stats.pairs_lost += 1
                stats.positive_pairs_lost += bool(p.interaction)
        parts.append(s.text)
        pos += len(s.text) + 1
    stats.documents += 1
    stats.mentions += len(mentions)
    title_end = len(parts[0]) if len(parts) > 1 else None
    return TextDocument(doc.id, " ".join(parts), [mentions[k] for k in sorted(mentions)],
                        title_end=title_end)


def read_learning_xml(path, *, skip_bad=False, stats=None):
    """Documents of a learning-format XML file with their sentences, entities and pairs."""
    from corpora.ppi_xml import iter_documents
    stats = stats if stats is not None else ReadStats()
    for _, _, doc in iter_documents(path):
        stats.documents += 1
        yield TextDocument(doc.id, " ".join(s.text for s in doc.sentences),
                           sentences=doc.sentences, position=f"{path}")
