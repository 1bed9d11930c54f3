"""The record of ``ppi extract``'s output, written and read back in one place.

The writer (:func:`pair_records`, :func:`document_record`, :func:`format_records`: JSONL or
TSV with the columns :data:`TSV_COLUMNS`) is used by :mod:`ppi.extraction.extract`; the reader
(:func:`read_pair_records`: JSONL, or TSV turned back into the JSONL shape) by
:mod:`ppi.aggregation.aggregate`, :mod:`ppi.aggregation.evaluation` and whoever reads an extract output.
The fields are described in :mod:`ppi.extraction.extract` (section *Output*); :data:`RECORD_VERSION`
changes whenever they do. One :func:`clean` makes a value a TSV field (None → empty; tabs
and line breaks → spaces) for every TSV the ``ppi`` commands write.

Cost: writing and reading are O(records), streamed one record at a time.
"""

from __future__ import annotations

import json
import logging
import math
from pathlib import Path

from corpora.lines import open_binary, reading
from kernelrank.errors import CorpusFormatError

__all__ = ["TSV_COLUMNS", "RECORD_VERSION", "clean", "entity_record", "pair_records",
           "document_record", "tsv_line", "format_records", "read_pair_records",
           "numbered_lines", "parse_bool", "DEFINITION_KEYS", "pair_definition",
           "output_fields", "recorded_definition"]

#: the columns of an extract TSV (a document record fills doc_id, the texts, the concept
#: ids, score, interaction and level)
TSV_COLUMNS = ("doc_id", "sentence_id", "pair_id", "e1_id", "e1_text", "e1_start", "e1_end",
               "e2_id", "e2_text", "e2_start", "e2_end", "score", "interaction", "sentence_start",
               "sentence", "e1_concept_id", "e2_concept_id", "level", "e1_type", "e2_type",
               "pair_type", "relation_type", "relation_scores", "novel", "novelty_score")
#: version of the output records, part of a run's identity: chunks written by an older
#: version (other fields) are not mixed into a resumed run's output
RECORD_VERSION = 4
#: columns an extract TSV must have to be read back (:func:`read_pair_records`)
_NEEDED = ("doc_id", "sentence_id", "sentence_start", "sentence", "e1_text", "e2_text",
           "score", "interaction", "e1_concept_id", "e2_concept_id")


def clean(value):
    """``value`` as a TSV field: None → ``""``, tabs and line breaks → spaces."""
    return "" if value is None else str(value).replace("\t", " ").replace("\n", " ").replace(
        "\r", " ")


#: the keys of a run summary (``<OUT>.summary.json`` of ``ppi extract`` and ``ppi aggregate``)
#: that say which pairs the model was trained to relate; ``ppi evaluate-documents`` measures
#: against the same definition unless told otherwise
DEFINITION_KEYS = ("model_entity_types", "model_relation_types")


def pair_definition(training):
    """The :data:`DEFINITION_KEYS` of a model's ``training`` record: the entity types and
    relation types a ``documents`` model learned (``ppi train --relations-from
    --entity-types/--relation-types``); ``{}`` for a mention-level model (gene / protein
    pairs, any relation)."""
    system = (training or {}).get("system")
    if not isinstance(system, dict) or system.get("system") != "documents":
        return {}
    entity_types = system.get("entity_types")
    pair_types = ((training.get("selection") or {}).get("pair_types")
                  if system.get("pairs") else None)
    if isinstance(pair_types, list):         # a typed model: the types of its pair types
        entity_types = sorted({t for p in pair_types for t in str(p).split(":")})
    return {"model_entity_types": entity_types,
            "model_relation_types": system.get("relation_types")}


def output_fields(output):
    """The summary fields naming a run's ``output``: as given (``output``) and absolute
    (``output_path``), by which :func:`recorded_definition` knows the summary beside a file
    for that file's own, from any working directory."""
    return {"output": str(output), "output_path": str(Path(output).resolve())}


def recorded_definition(output):
    """The :data:`DEFINITION_KEYS` recorded in ``<output>.summary.json`` — the summary that
    ``ppi extract`` or ``ppi aggregate`` writes beside its output — when that summary is
    the one of ``output`` (its ``output`` field names this file); ``{}`` when there is none
    (a summary written elsewhere with ``--output-dir``, or another run's).  O(1)."""
    summary = Path(f"{output}.summary.json")
    if not summary.is_file():
        return {}
    try:
        r = json.loads(summary.read_text(encoding="utf-8"))
        # a summary without ``output_path`` names the output only as given (resolved here,
        # from this working directory)
        same = Path(r.get("output_path", r["output"])).resolve() == Path(output).resolve()
    except (OSError, ValueError, KeyError, TypeError) as exc:
        logging.getLogger(__name__).warning(
            "%s is not a run summary (%s: %s); the model's pair definition is not known — "
            "give --entity-types / --relation-types if it was not the default", summary,
            exc.__class__.__name__, exc)
        return {}
    return {k: r[k] for k in DEFINITION_KEYS if k in r} if same else {}


# ----------------------------------------------------------------------------- writing
def entity_record(e, s, doc_start, concept_id=None):
    """The ``e1`` / ``e2`` object of a mention-pair record: entity ``e`` of sentence ``s``
    (offsets into the sentence, exclusive end; ``spans`` when discontinuous; ``doc_start`` /
    ``doc_end`` when the sentence's offset ``doc_start`` in the document is known)."""
    spans = [(a, b + 1) for a, b in e.offsets]
    start, end = spans[0][0], spans[-1][1]
    r = {"id": e.id, "text": s.text[start:end] if len(spans) == 1 else e.text,
         "type": e.type, "start": start, "end": end, "concept_id": concept_id}
    if len(spans) > 1:
        r["spans"] = [list(x) for x in spans]
    if doc_start is not None:
        r["doc_start"], r["doc_end"] = doc_start + start, doc_start + end
    return r


def pair_records(parsed, scores, threshold, with_labels):
    """Record dicts of the pairs of the parsed sentences, in order (``scores``: one per
    pair, in the same order — by position, so repeated ids cannot mix scores up; an
    ``interaction`` is ``score > threshold``; ``with_labels``: add the gold ``label``).
    O(pairs)."""
    out = []
    scores = iter(scores)
    for p in parsed:
        s = p.sentence
        ents = {e.id: e for e in s.entities}
        # raw text: p.mentions[j] is the input mention of entity j (its concept id)
        concept = {e.id: m.id for e, m in zip(s.entities, p.mentions)}
        for pair in s.pairs:
            score = float(next(scores))
            r = {"doc_id": p.doc_id, "sentence_id": s.id, "pair_id": pair.id,
                 "sentence": s.text,
                 "sentence_start": p.doc_start,
                 "e1": entity_record(ents[pair.e1], s, p.doc_start, concept.get(pair.e1)),
                 "e2": entity_record(ents[pair.e2], s, p.doc_start, concept.get(pair.e2)),
                 "score": score, "interaction": bool(score > threshold)}
            if with_labels:
                r["label"] = bool(pair.interaction)
            out.append(r)
    return out


def document_record(doc_id, e1, e2, score, threshold, mention_pairs):
    """The record of one candidate concept pair of a document (a ``documents`` model):
    ``e1`` / ``e2`` as ``(text, concept_id)``, ``interaction`` ``score > threshold``."""
    return {"doc_id": doc_id, "level": "document", "sentence_id": None,
            "e1": {"text": e1[0], "concept_id": e1[1]},
            "e2": {"text": e2[0], "concept_id": e2[1]},
            "score": score, "interaction": bool(score > threshold),
            "mention_pairs": mention_pairs}


def tsv_line(r):
    """The TSV row (with its line end) of the record ``r``, in the order of
    :data:`TSV_COLUMNS`."""
    e1, e2 = r["e1"], r["e2"]
    row = (r["doc_id"], r["sentence_id"], r.get("pair_id"), e1.get("id"), e1["text"],
           e1.get("start"), e1.get("end"), e2.get("id"), e2["text"], e2.get("start"),
           e2.get("end"), repr(r["score"]), r["interaction"], r.get("sentence_start"),
           r.get("sentence"), e1.get("concept_id"), e2.get("concept_id"),
           r.get("level", "pair"), e1.get("type"), e2.get("type"), r.get("pair_type"),
           r.get("relation_type"),
           None if r.get("relation_scores") is None else _JSON.encode(r["relation_scores"]),
           r.get("novel"), None if r.get("novelty_score") is None else repr(r["novelty_score"]))
    return "\t".join(clean(x) for x in row) + "\n"


#: one encoder for every record (``json.dumps`` with options builds one per call); strict
#: JSON: a non-finite score could never be written (the model's weights are checked finite)
_JSON = json.JSONEncoder(ensure_ascii=False, allow_nan=False)


def format_records(records, output_format):
    """The text of ``records`` (pair and document records) in ``output_format``: one JSON
    object a line (``"jsonl"``) or one TSV row a line of :data:`TSV_COLUMNS` (``"tsv"``,
    without the header)."""
    if output_format == "tsv":
        return "".join(tsv_line(r) for r in records)
    encode = _JSON.encode
    return "".join(encode(r) + "\n" for r in records)


# ----------------------------------------------------------------------------- reading
def numbered_lines(path):
    """``(line number, text)`` of the lines of ``path`` (gzip allowed, UTF-8, a BOM on the
    first line dropped, line ends stripped), streamed."""
    with open_binary(path, "input file") as handle, reading(path):
        for lineno, raw in enumerate(handle, 1):
            yield lineno, raw.decode("utf-8-sig" if lineno == 1 else "utf-8").rstrip("\r\n")


def parse_bool(text, path, lineno):
    """``True`` / ``False`` of a TSV field (``True``, ``true``, ``1`` / ``False``, ``false``,
    ``0``); anything else is a CorpusFormatError naming the line."""
    if text in ("True", "true", "1"):
        return True
    if text in ("False", "false", "0"):
        return False
    raise CorpusFormatError(f"interaction {text!r} is not True or False", path=path,
                            line=lineno)


def _finite(text, path, lineno):
    """The finite float of the TSV field ``text``."""
    value = float(text)
    if not math.isfinite(value):
        raise CorpusFormatError(f"score {text!r} is not a finite number", path=path,
                                line=lineno)
    return value


def _typed_columns(row, path, lineno):
    """The typed fields of a document record's TSV row (a typed ``documents`` model's: the
    concepts' entity types, pair type, relation type and scores, novelty) as in the JSONL
    record; ``{}`` when the row has none."""
    if not row.get("pair_type"):
        return {}
    try:
        scores = json.loads(row["relation_scores"]) if row.get("relation_scores") else {}
    except ValueError:
        raise CorpusFormatError(f"relation_scores {row['relation_scores']!r} is not a JSON "
                                "object", path=path, line=lineno) from None
    return {"pair_type": row["pair_type"], "relation_type": row.get("relation_type") or None,
            "relation_scores": scores,
            "novel": parse_bool(row["novel"], path, lineno) if row.get("novel") else None,
            "novelty_score": (_finite(row["novelty_score"], path, lineno)
                              if row.get("novelty_score") else None),
            "types": (row.get("e1_type") or None, row.get("e2_type") or None)}


def read_pair_records(path):
    """``(line, record)`` of an extract output file (JSONL, or TSV with a header), streamed.

    Records are dicts as in the JSONL output (TSV rows are turned into that shape).  An
    output of an older ``ppi extract`` without concept ids is a CorpusFormatError saying to
    rerun it.
    """
    path = Path(path)
    columns = None
    for lineno, line in numbered_lines(path):
        if not line.strip():
            continue
        if columns is None and lineno == 1 and not line.lstrip().startswith("{"):
            columns = line.split("\t")
            missing = [c for c in _NEEDED if c not in columns]
            if missing:
                raise CorpusFormatError(
                    f"not an extract TSV with concept ids: no column {', '.join(missing)} "
                    "(rerun `python -m ppi extract` to get e1_concept_id / e2_concept_id)",
                    path=path, line=1)
            continue
        if columns is not None:
            row = dict(zip(columns, line.split("\t")))
            if len(row) != len(columns) or len(line.split("\t")) != len(columns):
                raise CorpusFormatError(f"{len(line.split(chr(9)))} tab-separated fields, "
                                        f"the header has {len(columns)}", path=path,
                                        line=lineno)
            try:
                if row.get("level") == "document":
                    typed = _typed_columns(row, path, lineno)
                    types = typed.pop("types", (None, None))
                    r = {"doc_id": row["doc_id"], "level": "document",
                         "sentence_id": None,
                         "e1": {"text": row["e1_text"] or None,
                                "concept_id": row["e1_concept_id"] or None},
                         "e2": {"text": row["e2_text"] or None,
                                "concept_id": row["e2_concept_id"] or None},
                         "score": _finite(row["score"], path, lineno),
                         "interaction": parse_bool(row["interaction"], path, lineno),
                         **typed}
                    if typed:
                        r["e1"]["type"], r["e2"]["type"] = types
                    yield lineno, r
                    continue
                r = {"doc_id": row["doc_id"], "sentence_id": row["sentence_id"],
                     "sentence_start": int(row["sentence_start"]) if row["sentence_start"]
                     else None, "sentence": row["sentence"],
                     "e1": {"text": row["e1_text"], "concept_id": row["e1_concept_id"] or None},
                     "e2": {"text": row["e2_text"], "concept_id": row["e2_concept_id"] or None},
                     "score": float(row["score"]),
                     "interaction": parse_bool(row["interaction"], path, lineno)}
            except ValueError as exc:
                raise CorpusFormatError(f"bad number ({exc})", path=path,
                                        line=lineno) from None
        else:
            try:
                r = json.loads(line)
            except ValueError as exc:
                raise CorpusFormatError(f"not a JSON line: {exc}", path=path,
                                        line=lineno) from None
            if not isinstance(r, dict) or not {"doc_id", "e1", "e2", "score",
                                               "interaction"} <= set(r):
                raise CorpusFormatError("not an extract record (needs doc_id, e1, e2, score, "
                                        "interaction)", path=path, line=lineno)
            if "concept_id" not in r["e1"] or "concept_id" not in r["e2"]:
                raise CorpusFormatError("the record has no concept ids (written by an older "
                                        "`ppi extract`); rerun the extraction", path=path,
                                        line=lineno)
        if not isinstance(r["score"], (int, float)) or not math.isfinite(r["score"]):
            raise CorpusFormatError(f"score {r['score']!r} is not a finite number", path=path,
                                    line=lineno)
        yield lineno, r
