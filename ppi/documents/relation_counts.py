"""What became of the relations of a file with document-level relations: each one used or
left out, and why — counted like the mentions (:class:`corpora.documents.ReadStats`).

A relation labels the candidates of its document (:mod:`ppi.documents.relations`: two
distinct concept ids with a mention of the paired entity types).  Every relation the reader
kept falls into one class, tried in this order (:func:`account_relations`):

* **other relation types** — not of ``--relation-types``;
* **used** — its ids (split as a mention's) give at least one candidate;
* **unknown ids** — it names an id no mention of its document carries (of any type), or
  names none in one place (``-``); the first few are listed (``doc 123: 77777777``);
* **other entity types** — both concepts are mentioned, but not both by mentions of the
  paired entity types (``--entity-types``; BioRED's gene–disease relations with the default
  genes): the types of the unpaired concepts are counted;
* **one concept** — it names the same concept twice (a candidate is two distinct ids).

Besides these, ``dropped`` counts the relations the reader left out with ``--skip-bad``
(:func:`corpora.standoff.check_relations`).  Training (``ppi train|cv --relations-from``:
:meth:`ppi.documents.system.DocumentSystem.read_relations`, the report's ``data``) and
``ppi evaluate-documents`` (its gold) count with this one function.

Cost: O(mentions + relations · ids per relation²).
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass, field

__all__ = ["EXAMPLES", "RelationCounts", "account_relations"]

log = logging.getLogger(__name__)

#: how many relations naming unknown ids are listed (distinct ``doc: id``), in the report's
#: JSON; messages name the first :data:`SHOWN`
EXAMPLES = 10
SHOWN = 3


@dataclass
class RelationCounts:
    """The classes of a file's relations (module docstring); ``read`` is their sum (the
    relations the reader kept), ``dropped`` the relations it left out (``--skip-bad``)."""

    read: int = 0
    used: int = 0
    other_relation_types: int = 0
    unknown_ids: int = 0
    other_entity_types: int = 0
    one_concept: int = 0
    #: relations of two concepts of the entity types whose pair type a typed model does not
    #: relate (``--pairs``), and those pair types' counts
    other_pair_types: int = 0
    unrelated_pair_types: dict = field(default_factory=dict)
    dropped: int = 0
    #: counted for a typed model (its options are ``--pairs``, not ``--entity-types``)
    typed: bool = False
    #: ``"doc 123: 77777777"``: the first :data:`EXAMPLES` distinct ones
    unknown_id_examples: list = field(default_factory=list)
    #: mention type → relations left out because they name a concept of that type only
    unpaired_types: dict = field(default_factory=dict)

    @property
    def left_out(self):
        """Relations read but not used, and those the reader left out."""
        return self.read - self.used + self.dropped

    def as_dict(self):
        """The counts as JSON (the ``relations`` of a report's ``data``)."""
        return {"read": self.read, "used": self.used,
                "other_relation_types": self.other_relation_types,
                "unknown_ids": self.unknown_ids, "unknown_id_examples": self.unknown_id_examples,
                "other_entity_types": self.other_entity_types,
                "unpaired_types": dict(self.unpaired_types), "one_concept": self.one_concept,
                "other_pair_types": self.other_pair_types,
                "unrelated_pair_types": dict(self.unrelated_pair_types),
                "dropped": self.dropped}

    def describe(self, entity_types=None):
        """The classes of the relations not used, in words (``""`` when all were used):
        what a warning and a refusal say."""
        from ppi.names import DEFAULT_ENTITY_TYPES

        paired = ", ".join(entity_types or DEFAULT_ENTITY_TYPES)
        parts = []
        if self.unknown_ids:
            shown = self.unknown_id_examples[:SHOWN]
            parts.append(f"{self.unknown_ids} name an id no mention of their document carries "
                         f"({', '.join(shown)}" + (", …" if self.unknown_ids > len(shown)
                                                   else "") + ")")
        if self.other_entity_types:
            kinds = ", ".join(f"{t} {n}" for t, n in
                              Counter(self.unpaired_types).most_common())
            parts.append(f"{self.other_entity_types} name a concept of another entity type "
                         f"than {paired} ({kinds}; "
                         + ("--pairs relates others)" if self.typed else
                            "--entity-types pairs others)"))
        if self.other_pair_types:
            kinds = ", ".join(f"{t} {n}" for t, n in
                              Counter(self.unrelated_pair_types).most_common())
            parts.append(f"{self.other_pair_types} relate a pair type the model does not "
                         f"({kinds}; --pairs names the pair types, --pairs all every one)")
        if self.other_relation_types:
            parts.append(f"{self.other_relation_types} are of other types than "
                         "--relation-types")
        if self.one_concept:
            parts.append(f"{self.one_concept} name one concept twice")
        if self.dropped:
            parts.append(f"{self.dropped} were left out as unreadable (--skip-bad)")
        return "; ".join(parts)

    def log(self, source, entity_types=None):
        """Log the counts of ``source`` (a file name): a warning when relations name ids no
        mention carries or were left out as unreadable — what the user wrote is not what
        is learned —, else one information line."""
        line = (f"{source}: {self.used} of {self.read + self.dropped} relations label "
                "candidate pairs"
                + (f"; left out: {self.describe(entity_types)}" if self.left_out else ""))
        if self.unknown_ids or self.dropped:
            log.warning("%s", line)
        else:
            log.info("%s", line)


def _concepts(doc, entity_types):
    """``(paired, carried)``: the ids of ``doc``'s mentions of ``entity_types``, and every id
    its mentions carry with their types."""
    from corpora.documents import type_set
    from corpora.standoff import split_concept_ids
    from ppi.names import DEFAULT_ENTITY_TYPES

    types = type_set(entity_types or DEFAULT_ENTITY_TYPES, "entity types",
                     "Gene GeneOrGeneProduct")
    paired, carried = set(), {}
    for m in doc.mentions or ():
        for i in split_concept_ids(m.id):
            carried.setdefault(i, set()).add(m.type or "no type")
            if (m.type or "").lower() in types:
                paired.add(i)
    return paired, carried


def account_relations(docs, entity_types=None, relation_types=None, dropped=0,
                      pair_types=None):
    """The :class:`RelationCounts` of the relations of ``docs`` (module docstring) for the
    candidates of ``entity_types`` (None: the default genes) and the relations of
    ``relation_types`` (None: any type; compared ignoring case); ``dropped``: the relations
    the reader left out; ``pair_types`` (:class:`ppi.documents.pair_types.PairTypes`): a
    typed model's, whose candidates are pairs of those types only (a concept's type: that
    of most of its mentions).  O(mentions + relations · ids per relation²)."""
    from corpora.documents import type_set
    from corpora.standoff import split_concept_ids

    kinds = (None if relation_types is None else
             type_set(relation_types, "relation types", "Bind Association"))
    counts = RelationCounts(dropped=dropped, typed=pair_types is not None)
    unpaired = Counter()
    other_pairs = Counter()
    for d in docs:
        paired, carried = _concepts(d, entity_types)
        if pair_types is not None:
            from ppi.documents.pair_types import concept_types, pair_type_name

            kind = concept_types(d.mentions or ())
        for r in d.relations or ():
            counts.read += 1
            if kinds is not None and r.type.lower() not in kinds:
                counts.other_relation_types += 1
                continue
            first, second = split_concept_ids(r.id1), split_concept_ids(r.id2)
            pairs = [(a, b) for a in first for b in second if a != b]
            both = [(a, b) for a, b in pairs if a in paired and b in paired]
            if both and pair_types is not None and not any(
                    pair_types.index(kind[a], kind[b]) >= 0 for a, b in both):
                counts.other_pair_types += 1
                other_pairs[pair_type_name(kind[both[0][0]], kind[both[0][1]])] += 1
                continue
            if both:
                counts.used += 1
                continue
            unknown = [x for x in first + second if x not in carried]
            if unknown or not first or not second:
                counts.unknown_ids += 1
                example = (f"doc {d.id}: "
                           f"{' and '.join(unknown) or (r.id1 if not first else r.id2)}")
                if len(counts.unknown_id_examples) < EXAMPLES and \
                        example not in counts.unknown_id_examples:
                    counts.unknown_id_examples.append(example)
            elif pairs:
                counts.other_entity_types += 1
                unpaired.update({t for x in first + second if x not in paired
                                 for t in carried[x]})
            else:
                counts.one_concept += 1
    counts.unpaired_types = dict(unpaired.most_common())
    counts.unrelated_pair_types = dict(other_pairs.most_common())
    return counts
