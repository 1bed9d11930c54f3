"""``python -m ppi evaluate-documents --measure biored``: BioRED's measure of document-level
relation extraction with gold entities.

Definition (Luo et al. 2022, *BioRED: a rich biomedical relation extraction dataset*,
Briefings in Bioinformatics 23(5), bbac282 — its relation extraction benchmark; Islamaj et
al. 2024, *The overview of the BioRED track at BioCreative VIII*, Database, baae069 —
Subtask 1, the same levels and a fourth): micro-averaged precision, recall and F1 over the
set of relations of all documents, a relation being an unordered concept-id pair of one
document.  A predicted relation — an aggregate record (:mod:`ppi.aggregation.aggregate`)
with ``interaction`` true, its ``relation_type`` and ``novel`` as a typed ``documents``
model's records carry them — is correct

* ``pair`` ("entity pair"): when a gold relation of the document names the two ids (any
  type);
* ``type`` ("entity pair + relation type"): when, besides, its ``relation_type`` is the gold
  relation's type (compared ignoring case, as the readers compare relation types);
* ``novelty`` ("entity pair + relation type + novelty"): when also its ``novel`` is the gold
  relation's novelty (``Novel`` → true, ``No`` → false);
* ``pair_novelty`` ("entity pair + novelty", the BioCreative VIII track's): the pair and the
  novelty, any type.

At each level ``tp`` is the predicted relations correct at that level, ``fp`` the other
predicted relations, ``fn`` the gold relations no correct prediction names; precision
``tp / (tp + fp)``, recall ``tp / (tp + fn)``, F1 their harmonic mean
(:func:`learners.measures.precision_recall_f1`).  A prediction without ``relation_type``
(an untyped gene model's records) or without ``novel`` is counted, and can be correct only
at the levels that do not ask for the missing field: a warning says so, and that the type
and novelty levels then give it no credit.

The gold pairs
--------------
A gold relation's ids may each list several concept ids (``"1956,1957"``): the relation
names every combination of them (:func:`corpora.standoff.split_concept_ids`,
:func:`~corpora.standoff.concept_pair`, as the readers and ``ppi aggregate`` split mention
ids).  A pair appears once per document: when the gold holds two relations (or two
combinations) of one pair — another type, or another novelty — the pair is **one** gold
relation at every level (one false negative at most), and a prediction is correct at a
level when it matches **either** of them there.  A gold relation naming an id that no
mention of its document carries stays in the gold (a false negative unless predicted;
counted as ``gold_relations_without_mention``); a gold relation without a novelty
(``Novel`` / ``No``) can be matched only at the levels without novelty (counted).

Per entity-pair type
--------------------
Each level also holds ``per_pair_type``: the same counts by the pair type, the entity
types of the two ids sorted and joined by ``":"`` (``ChemicalEntity:GeneOrGeneProduct``).
A gold pair's type is that of its document's mentions of the two ids (an id's most frequent
mention type; ``unknown`` when one id has no typed mention); a predicted pair's is its
record's ``pair_type``, else from the gold mentions in the same way.  A true positive and a
false negative count under the gold pair's type, a false positive under the prediction's,
so that the per-type counts sum to the overall ones; a correct pair whose record names
another pair type than the gold's is counted (``pair_type_disagreements``).

Predicted documents the gold file does not have are an error naming the file and line (with
``skip_bad`` left out and counted), as in :mod:`ppi.aggregation.evaluation`; a pair given
twice in a document, or a field of the wrong kind, is a
:class:`~kernelrank.errors.CorpusFormatError` naming the file and line.

Cost: O(gold mentions + gold relations + predicted records); memory the gold pairs and the
predicted relations' matches.
"""

from __future__ import annotations

import logging
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpora.documents import ReadStats
from corpora.standoff import concept_pair, split_concept_ids
from kernelrank.errors import CorpusFormatError, InvalidParameterError, UndefinedMeasureError
from ppi.aggregation.evaluation import check_some_documents, records_of_gold_documents

__all__ = ["LEVELS", "UNKNOWN_PAIR_TYPE", "GoldPair", "mention_types", "pair_type_of",
           "read_gold_pairs", "evaluate_biored", "run_biored_evaluation"]

#: The levels of the measure, in the report's order, with BioRED's names for them.
LEVELS = {"pair": "entity pair",
          "type": "entity pair + relation type",
          "novelty": "entity pair + relation type + novelty",
          "pair_novelty": "entity pair + novelty"}

#: The pair type of a pair one of whose ids has no typed mention in the gold document.
UNKNOWN_PAIR_TYPE = "unknown"

_NOVELTY = {"novel": True, "no": False}
_BOOL_TEXT = {"true": True, "1": True, "false": False, "0": False}

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class GoldPair:
    """One gold relation of a document: an unordered concept-id pair, its pair type and
    what its gold relations say of it — ``types`` (relation types, lower case),
    ``novelties`` (True / False of those with a novelty) and ``labels`` (their ``(type,
    novel)`` pairs) — several when the gold relates the pair more than once."""

    pair_type: str
    types: frozenset
    novelties: frozenset
    labels: frozenset

    def correct(self, relation_type, novel):
        """``{level: bool}``: whether a prediction of this pair with ``relation_type`` (None:
        not given) and ``novel`` (None: not given) is correct at each level."""
        t = None if relation_type is None else relation_type.lower()
        return {"pair": True,
                "type": t in self.types,
                "novelty": novel is not None and (t, novel) in self.labels,
                "pair_novelty": novel is not None and novel in self.novelties}


def _novelty(relation):
    """True / False of a gold relation's novelty (PubTator's fifth field ``Novel`` / ``No``,
    a BioC infon ``novelty`` or ``novel``), None when absent or unrecognised."""
    attrs = dict(relation.attrs)
    value = attrs.get("novelty", attrs.get("novel"))
    return None if value is None else _NOVELTY.get(str(value).strip().lower())


def mention_types(doc):
    """``{concept id: entity type}`` of a document: each id's most frequent mention type
    (ties: the first in name order); ids of a mention with several ids count for each."""
    seen = {}
    for m in doc.mentions or ():
        if m.type:
            for i in split_concept_ids(m.id):
                seen.setdefault(i, Counter())[m.type] += 1
    return {i: min(c, key=lambda t: (-c[t], t)) for i, c in seen.items()}


def pair_type_of(a, b, types):
    """The pair type of ids ``a``, ``b`` from ``types`` (:func:`mention_types`): the two
    entity types sorted and joined by ``":"``, :data:`UNKNOWN_PAIR_TYPE` if one is
    missing."""
    ta, tb = types.get(a), types.get(b)
    if ta is None or tb is None:
        return UNKNOWN_PAIR_TYPE
    return ":".join(sorted((ta, tb)))


def read_gold_pairs(gold, gold_format=None, *, skip_bad=False):
    """The gold relations of a PubTator / BioC file as pairs (module docstring).

    Returns ``(pairs, types, counts)``: ``pairs`` ``{doc id: {(a, b): GoldPair}}`` (every
    gold document, ``{}`` without relations), ``types`` ``{doc id: {id: entity type}}``
    (:func:`mention_types`) and the counts of what the gold holds (``gold_*`` keys of the
    results).  Read by :func:`ppi.documents.relations.read_relation_documents`: a relation
    the reader cannot read is an error, or with ``skip_bad`` left out and counted.
    """
    from ppi.aggregation.evaluation import gold_format_of
    from ppi.documents.relations import read_relation_documents

    fmt = gold_format_of(gold, gold_format)
    stats = ReadStats()
    docs = read_relation_documents(gold, fmt, skip_bad=skip_bad, stats=stats)
    pairs, types = {}, {}
    counts = Counter()
    for d in docs:
        types[d.id] = t = mention_types(d)
        mentioned = {i for m in d.mentions or () for i in split_concept_ids(m.id)}
        labels = {}
        for r in d.relations or ():
            counts["gold_relations"] += 1
            ids1, ids2 = split_concept_ids(r.id1), split_concept_ids(r.id2)
            if not set(ids1 + ids2) <= mentioned:
                counts["gold_relations_without_mention"] += 1
            novel = _novelty(r)
            if novel is None:
                counts["gold_relations_without_novelty"] += 1
            combinations = {concept_pair(a, b) for a in ids1 for b in ids2}
            if not combinations:
                # the reader refuses a relation without two ids; never lose one unsaid
                counts["gold_relations_without_pair"] += 1
            for key in combinations:
                labels.setdefault(key, set()).add((r.type.lower(), novel))
        pairs[d.id] = {}
        for (a, b), found in labels.items():
            pairs[d.id][(a, b)] = GoldPair(
                pair_type_of(a, b, t), frozenset(x for x, _ in found),
                frozenset(n for _, n in found if n is not None),
                frozenset((x, n) for x, n in found if n is not None))
            counts["gold_pairs"] += 1
            counts["gold_pairs_with_several_relations"] += len(found) > 1
            counts["gold_self_pairs"] += a == b
            counts["gold_pairs_without_mention"] += not {a, b} <= mentioned
    keys = ("gold_relations", "gold_pairs", "gold_pairs_with_several_relations",
            "gold_self_pairs", "gold_relations_without_mention", "gold_pairs_without_mention",
            "gold_relations_without_novelty", "gold_relations_without_pair")
    out = {"gold_format": fmt, "gold_documents": len(docs), **{k: counts[k] for k in keys},
           "gold_relations_skipped": stats.relations_dropped,
           "gold_records_skipped": stats.skipped}
    if not out["gold_pairs"]:
        raise InvalidParameterError(f"the gold file {gold} holds no relation between two "
                                    "concept ids; nothing to evaluate against")
    return pairs, types, out


# ----------------------------------------------------------------------------- records
def _optional_text(x, field, path, lineno):
    """A record's optional string field (absent, null or empty: None)."""
    value = x.get(field)
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise CorpusFormatError(f"{field} {value!r} is not a string (or null)", path=path,
                                line=lineno, record=str(x.get("doc_id")))
    return value


def _optional_bool(x, field, path, lineno, required=False):
    """A record's boolean field: JSON true / false, or the TSV texts ``True`` / ``False``
    (``1`` / ``0``); absent, null or empty: None (an error when ``required``)."""
    value = x.get(field)
    if isinstance(value, bool):
        return value
    if (value is None or value == "") and not required:
        return None
    if isinstance(value, str) and value.strip().lower() in _BOOL_TEXT:
        return _BOOL_TEXT[value.strip().lower()]
    raise CorpusFormatError(f"{field} {value!r} is not true or false", path=path,
                            line=lineno, record=str(x.get("doc_id")))


def _record_pair(x):
    """The record's unordered concept pair: ``concept1`` / ``concept2`` of a typed record,
    else ``gene1`` / ``gene2`` (the same ids; every record has them)."""
    return concept_pair(str(x.get("concept1") or x["gene1"]),
                        str(x.get("concept2") or x["gene2"]))


def _predictions(predictions, gold, pairs, skip_bad):
    """``(doc, key, relation_type, novel, pair_type)`` of each predicted relation of the
    aggregate output ``predictions`` (records with ``interaction`` true), and the counts of
    the records read."""
    counts = Counter()
    unknown, seen_docs, found, out = [], set(), set(), []
    for lineno, x, doc in records_of_gold_documents(predictions, pairs, gold, skip_bad,
                                                    unknown):
        key = _record_pair(x)
        if (doc, key) in found:
            raise CorpusFormatError(f"concept pair {key[0]}–{key[1]} of document {doc} again: "
                                    "an aggregate output has each pair once",
                                    path=predictions, line=lineno, record=doc)
        found.add((doc, key))
        seen_docs.add(doc)
        counts["predicted_pairs"] += 1
        relation_type = _optional_text(x, "relation_type", predictions, lineno)
        novel = _optional_bool(x, "novel", predictions, lineno)
        pair_type = _optional_text(x, "pair_type", predictions, lineno)
        if not _optional_bool(x, "interaction", predictions, lineno, required=True):
            continue
        counts["predicted_relations"] += 1
        counts["predictions_without_relation_type"] += relation_type is None
        counts["predictions_without_novel"] += novel is None
        out.append((doc, key, relation_type, novel, pair_type))
    check_some_documents(predictions, gold, seen_docs, unknown, "concept pair")
    keys = ("predicted_pairs", "predicted_relations", "predictions_without_relation_type",
            "predictions_without_novel")
    return out, {**{k: counts[k] for k in keys}, "documents_with_predictions": len(seen_docs),
                 "documents_not_in_gold": len(unknown),
                 "documents_not_in_gold_examples": unknown[:10]}


# ----------------------------------------------------------------------------- measure
def _prf(tp, fp, fn):
    """``{precision, recall, f1, tp, fp, fn}`` of the counts, by
    :func:`learners.measures.precision_recall_f1` (no predicted relation: precision 0);
    without a gold relation recall and F1 are None (undefined), and precision too when
    nothing was predicted either."""
    from learners.measures import precision_recall_f1

    counts = {"tp": int(tp), "fp": int(fp), "fn": int(fn)}
    if not tp + fp + fn:
        return {"precision": None, "recall": None, "f1": None, **counts}
    # one row per predicted relation (score 1) and per gold relation missed (score 0)
    y = np.repeat([True, False, True], [tp, fp, fn])
    scores = np.repeat([1.0, 1.0, 0.0], [tp, fp, fn])
    try:
        m = precision_recall_f1(y, scores, threshold=0.5)
    except UndefinedMeasureError:
        return {"precision": 0.0 if fp else None, "recall": None, "f1": None, **counts}
    return {"precision": float(m.precision), "recall": float(m.recall), "f1": float(m.f1),
            **counts}


def _level_results(tp, fp, fn):
    """A level's overall and per-pair-type measures from its ``Counter``s by pair type."""
    out = _prf(sum(tp.values()), sum(fp.values()), sum(fn.values()))
    out["per_pair_type"] = {pt: _prf(tp[pt], fp[pt], fn[pt])
                            for pt in sorted(set(tp) | set(fp) | set(fn))}
    return out


def _warnings(r):
    """The warnings of a result: predictions without relation type or novelty (they get no
    credit at the levels asking for them), gold relations without novelty."""
    out = []
    n = r["predicted_relations"]
    for field, count, levels in (
            ("relation_type", r["predictions_without_relation_type"], "type and novelty"),
            ("novel", r["predictions_without_novel"], "novelty and pair_novelty")):
        if not count:
            continue
        who = (f"none of the {n} predicted relations carries {field}" if count == n else
               f"{count} of the {n} predicted relations carry no {field}")
        untyped = (" (the records of an untyped gene model?)" if field == "relation_type"
                   and count == n else "")
        out.append(f"{who}{untyped}: the {levels} levels are zero-credit for them — false "
                   "positives there, whatever the pair")
    if r["gold_relations_without_novelty"]:
        out.append(f"{r['gold_relations_without_novelty']} of the {r['gold_relations']} gold "
                   "relations have no novelty (Novel / No): no prediction matches them at the "
                   "novelty and pair_novelty levels")
    if r["gold_relations_without_mention"]:
        out.append(f"{r['gold_relations_without_mention']} gold relations name an id that no "
                   "mention of their document carries: kept, false negatives unless predicted")
    return out


def evaluate_biored(predictions, gold, *, gold_format=None, skip_bad=False):
    """BioRED's measure (module docstring) of the aggregate output ``predictions`` against
    the gold relations of ``gold`` (PubTator, as BioRED, or BioC; ``gold_format`` None: from
    the name, as :mod:`ppi.aggregation.evaluation` tells it).

    Returns the results dict: for each level of :data:`LEVELS` ``precision``, ``recall``,
    ``f1``, ``tp``, ``fp``, ``fn`` and ``per_pair_type`` (pair type → the same); the counts
    of the gold and of the predictions; ``warnings``.
    """
    pairs, types, gold_counts = read_gold_pairs(gold, gold_format, skip_bad=skip_bad)
    predicted, pred_counts = _predictions(predictions, gold, pairs, skip_bad)
    tp, fp, fn = ({level: Counter() for level in LEVELS} for _ in range(3))
    matched = {level: set() for level in LEVELS}
    disagreements = 0
    for doc, key, relation_type, novel, pair_type in predicted:
        own = pair_type or pair_type_of(*key, types[doc])
        g = pairs[doc].get(key)
        correct = (g.correct(relation_type, novel) if g is not None
                   else dict.fromkeys(LEVELS, False))
        if g is not None and pair_type is not None and pair_type != g.pair_type:
            disagreements += 1
        for level in LEVELS:
            if correct[level]:
                tp[level][g.pair_type] += 1
                matched[level].add((doc, key))
            else:
                fp[level][own] += 1
    for doc, gold_pairs in pairs.items():
        for key, g in gold_pairs.items():
            for level in LEVELS:
                if (doc, key) not in matched[level]:
                    fn[level][g.pair_type] += 1
    seen = {doc for doc, *_ in predicted}
    r = {"measure": "biored", "levels": dict(LEVELS),
         "predictions": str(predictions), "gold": str(gold), **gold_counts, **pred_counts,
         "gold_documents_without_predicted_relations": sum(
             1 for doc, ps in pairs.items() if ps and doc not in seen),
         "pair_type_disagreements": disagreements,
         **{level: _level_results(tp[level], fp[level], fn[level]) for level in LEVELS}}
    r["warnings"] = _warnings(r)
    for w in r["warnings"]:
        logger.warning("%s", w)
    return r


# ----------------------------------------------------------------------------- report
def _markdown(r, model_note=None):
    """The report of :func:`run_biored_evaluation`: the levels × P / R / F, the counts,
    then one table per level by pair type."""
    from kernelrank.report import markdown_table

    columns = ["precision", "recall", "f1", "tp", "fp", "fn"]
    rows = [{"level": f"{level} ({name})", **r[level]} for level, name in LEVELS.items()]
    md = ["# Document-level evaluation: BioRED's measure", "",
          f"Predictions `{r['predictions']}` against the gold relations of `{r['gold']}`."
          + (f" {model_note}" if model_note else "")
          + (f" **{r['in_sample']}.**" if r.get("in_sample") else ""), "",
          "Micro-averaged over the relations (unordered concept-id pairs) of all documents, "
          "with gold entities (Luo et al. 2022, BioRED; the BioCreative VIII BioRED track "
          "adds entity pair + novelty). A gold pair related twice counts once; a prediction "
          "matching either of its relations is correct.", "",
          *(f"- **warning: {w}**" for w in r["warnings"]),
          f"- gold: {r['gold_pairs']} relations (concept pairs) from {r['gold_relations']} "
          f"relation lines in {r['gold_documents']} documents; "
          f"{r['gold_pairs_with_several_relations']} pairs related more than once (counted "
          f"once); {r['gold_self_pairs']} self-pairs",
          f"- gold relations naming an id without a mention in their document: "
          f"{r['gold_relations_without_mention']} ({r['gold_pairs_without_mention']} pairs; "
          "false negatives unless predicted)",
          f"- gold relations without novelty: {r['gold_relations_without_novelty']}; left out "
          f"as unreadable (--skip-bad): {r['gold_relations_skipped']} relations, "
          f"{r['gold_records_skipped']} records",
          f"- predicted relations (interaction true): {r['predicted_relations']} of "
          f"{r['predicted_pairs']} pairs in {r['documents_with_predictions']} documents; "
          f"without relation_type: {r['predictions_without_relation_type']}, without novel: "
          f"{r['predictions_without_novel']} (correct at most at the levels not asking for "
          "them)",
          f"- gold documents without a predicted relation: "
          f"{r['gold_documents_without_predicted_relations']}; predicted documents not in "
          f"the gold file: {r['documents_not_in_gold']} (left out, --skip-bad)",
          f"- correct pairs whose record names another pair type than the gold's: "
          f"{r['pair_type_disagreements']}", "",
          markdown_table(rows, ["level", *columns]),
          "## Per entity-pair type", "",
          "True positives and false negatives under the gold pair's type, false positives "
          "under the prediction's (its `pair_type`, else the gold mentions' types).", ""]
    for level, name in LEVELS.items():
        table = [{"pair type": pt, **m} for pt, m in r[level]["per_pair_type"].items()]
        md += [f"### {level} ({name})", "", markdown_table(table, ["pair type", *columns])]
    return "\n".join(md)


def run_biored_evaluation(predictions, gold, output_dir, *, gold_format=None, skip_bad=False,
                          model_note=None, model=None):
    """Evaluate by :func:`evaluate_biored`, write ``results.json`` + ``results.md`` into
    ``output_dir`` (atomically, :func:`kernelrank.report.write_report`); returns
    ``(results, written)``.  ``model``: the saved model that made the predictions, for the
    in-sample warning (:func:`ppi.aggregation.evaluation.in_sample_note`)."""
    from kernelrank.report import write_report
    from ppi.aggregation.evaluation import in_sample_note

    r = evaluate_biored(predictions, gold, gold_format=gold_format, skip_bad=skip_bad)
    if model_note:
        r["model_note"] = model_note
    r["in_sample"] = None if model is None else in_sample_note(model, gold)
    if r["in_sample"]:
        logger.warning("%s", r["in_sample"])
    written = write_report(Path(output_dir), "results", r, _markdown(r, model_note))
    return r, list(written)
