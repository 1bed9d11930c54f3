"""Standoff mention annotations of a document (PubTator, BioC): alignment repair and merging.

Real exports do not always line up: in the BioCreative VI PPIm training set 164 of the
8,833 PubTator mentions (in its BioC XML one; its 21 discontinuous annotations are read
one mention per location, :mod:`corpora.bioc`) name a text that is not at their offsets —
mostly shifted by 3 or 6 characters, a few are coordination ellipses ("glutamate receptors
type 5a" written over "glutamate receptors type 1a, 5a") that occur nowhere in the text.
Both readers (:func:`corpora.pubtator.read_pubtator`, :mod:`corpora.bioc`) pass their
mentions through :func:`align_mentions`, so they treat such input the same way:

1. **Repair.**  A mention whose ``text`` is not at ``[start, end)`` is moved to the
   occurrence of its text nearest to ``start`` within ``window`` characters (default
   :data:`REPAIR_WINDOW` = 32: the BC6 shifts are 3, 6 and 11 characters; the next
   nearest occurrences lie 150+ characters away and are other mentions of the name).
   Counted as ``mentions_repaired``.
2. **Failure.**  No occurrence within the window, two at the same distance (ambiguous), or
   a text that is only whitespace: a :class:`~kernelrank.errors.CorpusFormatError` naming
   the file, line (or BioC annotation) and record; with ``skip_bad`` the **mention** is
   left out and counted as ``mentions_dropped`` (its document is kept: one bad mention of
   an abstract must not cost the other mentions' pairs).
3. **Identical mentions** (same span, after repair) are one mention, never two: a pair of
   a span with itself is no candidate pair, and two copies would double every pair of the
   span.  Same text, type and id: counted as ``mentions_identical``.  Same span with
   different concept ids (PubTator writes a mention of two genes as one mention with
   ``id1,id2``): one mention whose id lists every id once, comma-separated in order of
   appearance (counted as ``mentions_merged``); the first annotation's type is kept.
4. **Overlapping mentions** (different spans that share characters, e.g. ``CBP/b`` and
   ``b-catenin`` in "CBP/b-catenin", or nested names) are all kept — the benchmark corpora
   label pairs of nested entities too — and counted as ``mentions_overlapping`` (mentions
   that overlap another one), so a user sees them in the run summary.
5. **Mentions without a concept id** are kept (their records carry ``concept_id`` null)
   and counted as ``mentions_without_id``; :mod:`ppi.aggregation.aggregate` cannot give their pairs a
   gene pair and counts those too.

Two mentions of one gene at different places are different mentions: their candidate pair
is scored like any other (its gene-id pair is the self-pair ``(g, g)``, see
:mod:`ppi.aggregation.aggregate`).

**Relations** (PubTator relation lines, BioC relations) name two concepts by their ids,
split as a mention's (:func:`split_concept_ids`).  Both readers pass a document's relations
through :func:`check_relations`, one rule for training and evaluation: a relation that names
no concept in one of its two places (a BioC relation with an empty ``Gene2``), or an id with
``|`` that no mention of the document carries (``3175|77777777``: ``|`` separates the fields
of a tmVar variant id such as ``c|SUB|C|120|T``, never two ids), is a
:class:`~kernelrank.errors.CorpusFormatError` naming the file, the line (or the BioC
relation) and the record; with ``skip_bad`` the **relation** is left out and counted
(``relations_dropped``; its document is kept).  Any other id no mention carries is read as
given: which relations label no candidate, and why, is counted where the candidates are
made (:func:`ppi.documents.relations.account_relations`).
"""

from __future__ import annotations

from corpora.documents import Mention, MentionCounts
from kernelrank.errors import CorpusFormatError

__all__ = ["REPAIR_WINDOW", "MentionCounts", "align_mentions", "locate_mention",
           "split_concept_ids", "concept_order", "concept_pair", "check_relations", "NO_ID"]

#: id values that mean "no concept id"
NO_ID = ("-", "None", "null")

#: characters searched on each side of a misaligned mention's stated start
REPAIR_WINDOW = 32


def split_concept_ids(value):
    """The concept ids of a mention's id field: ``"7157"`` → ``["7157"]``, ``"1,2"`` or
    ``"1;2"`` → ``["1", "2"]`` (PubTator and PubTator Central write several ids of one
    mention with ``,`` or ``;``); None, blank, ``-`` and ``None`` (PubTator Central's "no
    id") → ``[]``."""
    if value is None:
        return []
    return [x.strip() for x in value.replace(";", ",").split(",")
            if x.strip() and x.strip() not in NO_ID]


def concept_order(concept_id):
    """Sort key of concept ids: numeric ids (NCBI Gene) as numbers first, then the others as
    strings."""
    return ((0, int(concept_id), concept_id) if concept_id.isdigit()
            else (1, 0, concept_id))


def concept_pair(a, b):
    """The unordered pair of concept ids ``a``, ``b`` in canonical order
    (:func:`concept_order`)."""
    return (a, b) if concept_order(a) <= concept_order(b) else (b, a)


def locate_mention(text, start, end, name, window=REPAIR_WINDOW):
    """``(start, end, problem)``: where ``name`` is in ``text`` — at ``[start, end)`` when it
    is there, else its occurrence nearest to ``start`` within ``window`` characters — and
    ``problem`` None; or ``(None, None, problem)`` saying why it cannot be placed."""
    if not name or not name.strip():
        return None, None, "the mention text is empty or only whitespace"
    if 0 <= start < end <= len(text) and text[start:end] == name:
        return start, end, None
    lo = max(0, start - window)
    hi = min(len(text), start + window + len(name))
    found, i = [], text.find(name, lo, hi)
    while i >= 0:
        found.append(i)
        i = text.find(name, i + 1, hi)
    if not found:
        there = text[max(0, start):max(0, end)] if start < len(text) else ""
        return None, None, (f"the text at its offsets is {there!r}, and {name!r} does not "
                            f"occur within {window} characters of them")
    best = min(abs(i - start) for i in found)
    at = [i for i in found if abs(i - start) == best]
    if len(at) > 1:
        return None, None, (f"{name!r} is not at its offsets but occurs at {at[0]} and "
                            f"{at[1]}, equally near; which one is meant is unknown")
    return at[0], at[0] + len(name), None


def align_mentions(text, located, counts, *, path=None, record=None, skip_bad=False,
                   window=REPAIR_WINDOW):
    """The mentions of one document, aligned to ``text`` and merged (module docstring).

    Parameters
    ----------
    text : str
        The document text (offsets are into it).
    located : list of (dict, Mention)
        Each mention with the keyword arguments locating it in an error message
        (``{"line": 12}`` or ``{"record": "123/annotation T4"}``).
    counts : MentionCounts
        Updated in place (a :class:`corpora.text_input.ReadStats` is one).
    skip_bad : bool
        Drop (and count) a mention that cannot be placed instead of raising.

    Returns
    -------
    list of Mention, sorted by (start, end), one per distinct span.

    Raises
    ------
    CorpusFormatError
        A mention that cannot be placed (step 2), unless ``skip_bad``.
    """
    by_span = {}
    for where, m in located:
        start, end, problem = locate_mention(text, m.start, m.end, m.text, window)
        if problem is not None:
            exc = CorpusFormatError(
                f"annotation {m.start}-{m.end} {m.text!r}: {problem}" + (
                    "; left out (--skip-bad)" if skip_bad else "; fix the annotation, or pass "
                    "--skip-bad to leave this mention out (counted)"),
                path=path, **{"record": record, **where})
            if not skip_bad:
                raise exc
            counts.mentions_dropped += 1
            if len(counts.mention_errors) < 100:
                counts.mention_errors.append(str(exc))
            continue
        if start != m.start or end != m.end:
            counts.mentions_repaired += 1
            if len(counts.repair_examples) < 20:
                counts.repair_examples.append(
                    f"{record}: {m.text!r} {m.start}-{m.end} → {start}-{end}")
            m = Mention(start, end, m.text, m.type, m.id)
        old = by_span.get((start, end))
        if old is None:
            by_span[(start, end)] = m
            continue
        ids = split_concept_ids(old.id)
        new = [x for x in split_concept_ids(m.id) if x not in ids]
        if not new:
            counts.mentions_identical += 1
        else:
            counts.mentions_merged += 1
            by_span[(start, end)] = Mention(start, end, old.text, old.type,
                                            ",".join(ids + new))
    mentions = [by_span[k] for k in sorted(by_span)]
    reach, overlapping = -1, set()
    for k, m in enumerate(mentions):        # sorted by start: overlap = starts before reach
        if m.start < reach:
            overlapping.add(k)
            overlapping.update(j for j in range(k) if mentions[j].end > m.start)
        reach = max(reach, m.end)
    counts.mentions_overlapping += len(overlapping)
    counts.mentions += len(mentions)
    counts.mentions_without_id += sum(1 for m in mentions if not split_concept_ids(m.id))
    return mentions


def _relation_problem(relation, carried):
    """Why ``relation`` cannot be read (module docstring, "Relations"), or None;
    ``carried``: every id the document's mentions carry, whole and split."""
    for place, value in (("first", relation.id1), ("second", relation.id2)):
        value = (value or "").strip()
        if not value:
            return (f"the relation ({relation.type}) names no {place} concept (an empty id "
                    "or role; a relation names two: PubTator id1 and id2, BioC infons Gene1 "
                    "and Gene2 or entity1 and entity2, or two nodes whose annotations carry "
                    "concept ids)")
        if "|" in value and value not in carried and \
                not all(x in carried for x in split_concept_ids(value)):
            parts = [x.strip() for x in value.split("|") if x.strip()]
            known = [x for x in parts if x in carried]
            return (f"the relation {relation.id1} – {relation.id2} ({relation.type}): no "
                    f"mention of the document carries the id {value!r}"
                    + (f" ({', '.join(known)} "
                       + ("is a mention's id)" if len(known) == 1 else "are mentions' ids)")
                       if known else "")
                    + f", and '|' separates no ids (several ids are written {','.join(parts)} "
                    f"or {';'.join(parts)})")
    return None


def check_relations(located, mention_ids, counts, *, path=None, record=None, skip_bad=False):
    """The relations of one document that can be read (module docstring, "Relations").

    Parameters
    ----------
    located : list of (dict, corpora.documents.Relation)
        Each relation with the keyword arguments locating it in an error message
        (``{"line": 12}`` or ``{"record": "123/relation R4"}``).
    mention_ids : iterable of str or None
        The id fields of the document's mentions (every type): the ids they carry.
    counts : corpora.documents.ReadStats
        ``relations`` and ``relations_dropped`` are updated in place.
    skip_bad : bool
        Leave out (and count) a relation that cannot be read instead of raising.

    Returns
    -------
    list of corpora.documents.Relation, in the order given.

    Raises
    ------
    CorpusFormatError
        A relation that cannot be read, unless ``skip_bad``.
    """
    carried = set()
    for value in mention_ids:
        if value:
            carried.add(value.strip())
            carried.update(split_concept_ids(value))
    kept = []
    for where, r in located:
        problem = _relation_problem(r, carried)
        if problem is None:
            kept.append(r)
            continue
        exc = CorpusFormatError(problem + ("; left out (--skip-bad)" if skip_bad else
                                           "; correct it, or pass --skip-bad to leave this "
                                           "relation out (counted)"),
                                path=path, **{"record": record, **where})
        if not skip_bad:
            raise exc
        counts.drop_relation(exc)
    counts.relations += len(kept)
    return kept
