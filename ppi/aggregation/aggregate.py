"""``python -m ppi aggregate``: the document-level answer — which genes interact in which document.

Input: the output of ``python -m ppi extract`` (JSONL or TSV, gzip allowed), one record per
candidate mention pair with the two mentions' concept ids (NCBI Gene ids of PubTator / BioC
input).  Output: one record per **document and unordered gene-id pair** that co-occurs in a
sentence of the document, in input document order, best first within a document.

Aggregation: the maximum
------------------------
A gene pair's document score is the **maximum** of its mention pairs' scores, and the pair is
predicted to interact when that maximum exceeds the model's threshold — that is, when at
least one of its mention pairs is predicted to interact.  This is the "expressed at least
once" assumption of distant supervision (Riedel, Yao & McCallum 2010, *Modeling relations
and their mentions without labeled text*, ECML PKDD; Bunescu & Mooney 2007, multiple-instance
learning for relation extraction): one sentence stating the interaction is enough.
Noisy-or, ``1 − ∏(1 − p_i)``, is not used: it needs probabilities, and the model's scores
are uncalibrated RLS decision values (``f(x) = x·w``, negative for most pairs); and it treats
mention pairs as independent evidence, so a gene pair mentioned in many sentences — the
same finding restated in title, abstract and conclusion, or the two genes listed together —
would climb towards 1 with repetition, not with evidence.  The maximum does not depend on
how often the genes are named; the count of mention pairs is reported beside it.

Document models
---------------
The output of a ``documents`` model (``ppi train --relations-from``, :mod:`ppi.documents.system`)
holds a *document record* per candidate concept pair of each document (``level``
``document``): the pair's score is then that record's — the model's document stage, which
weighs the mention pairs' scores with where the two genes are mentioned — and the pairs that
never share a sentence are written too (no evidence, ``mention_pairs`` 0).  The maximum over
the mention pairs is kept as ``mention_score`` (null without mention pairs), the records
carry ``"level": "document"``, and a pair of mention records that the model's candidates do
not hold (a self-pair) is left out.

Typed relations
---------------
A typed ``documents`` model (every BioRED entity-pair type, a relation type and novelty per
pair) gives its document records the entity types of the two concepts (``e1.type``,
``e2.type``), ``pair_type``, ``relation_type``, ``relation_scores``, ``novel`` and
``novelty_score`` (the fields of ``ppi extract``'s document records).  Their pairs
are written with the concept fields (below) besides the gene fields, ``type1`` the type of
``concept1`` — of the mention that stands for the first concept of the canonical order,
whichever of ``e1`` / ``e2`` it was.  An input is typed or not by its first document record
(a record with ``type`` in ``e1`` / ``e2`` or a ``relation_type``); a later document record
of the other kind is a ``CorpusFormatError`` naming its line (two models' outputs
concatenated).  The records of an untyped model have none of these fields, and their TSV
none of these columns.

Ids
---
A mention with several ids (``"877855,877852"``) stands for each of them; a mention pair
gives the gene pairs of every id combination (each once).  A mention pair of two mentions of
the same gene gives the self-pair ``(g, g)``.  Self-pairs are **left out by default**
(counted as ``self_pairs_left_out``; ``--self-pairs`` keeps them, marked ``self_pair``): a
sentence naming one gene twice ("p53 … p53") rarely states that it binds itself.  Measured on
the BioCreative VI PPIm training set (597 abstracts, five-corpora model): of 1,589
co-mentioned document pairs 823 are self-pairs and 51 of those are gold (its gold has 74
homodimer pairs among 752); keeping them took document-level precision from 86.6 % to 54.7 %
for 34 more true pairs.
Mention pairs with a mention without an id (lexicon-tagged text) cannot be given a gene pair:
they are counted (``mention_pairs_without_ids``) and left out.  Gene pairs are written with
``gene1 ≤ gene2`` (numeric ids compared as numbers).

Output
------
JSONL (default)::

    {"doc_id", "gene1", "gene2", "gene1_text", "gene2_text", "self_pair", "score",
     "interaction", "mention_pairs", "positive_mention_pairs", "evidence": [
        {"sentence_id", "sentence_start", "sentence", "score", "interaction",
         "e1_text", "e2_text"}, ...]}

``geneN_text``: the gene's most frequent mention text among the pair's mention pairs;
``evidence``: the sentences of the pair's mention pairs, each once with its best mention
pair, best first, at most ``--evidence`` of them.  A documents model's records add
``mention_score`` and ``"level": "document"``; a typed one's begin with::

    {"doc_id", "concept1", "concept2", "concept1_text", "concept2_text", "type1", "type2",
     "pair_type", "relation_type", "relation_scores", "novel", "novelty_score",
     "gene1", "gene2", ...}

``conceptN`` / ``conceptN_text`` equal ``geneN`` / ``geneN_text`` (kept for every record:
the gene-pair readers key on them); a field the model did not give is null.  TSV (``.tsv``): the
columns of :data:`TSV_COLUMNS`, with the best evidence sentence only; a typed input's TSV
adds :data:`TYPED_COLUMNS` after them (``relation_scores`` as compact JSON, a null field
empty), which :func:`read_document_pairs` reads back to the JSONL fields.  The summary of a
typed input counts the pairs per pair type (``pair_types``: pairs and pairs predicted to be
related) and the related pairs per predicted relation type (``relation_types``, and
``novel_pairs``).  ``--positive-only`` writes only
the pairs predicted to interact (the default writes every co-mentioned pair, as
``ppi evaluate-documents`` and ``ppi network`` need the scores of all of them).

Streaming: records are read one at a time and grouped by document; the extract output keeps
each document's records together, and a document id that comes back after another document
is an error (``CorpusFormatError`` naming the line).  Memory: one document's records plus
the set of document ids seen; a TSV's rows before the input's first document record (which
decides its columns) wait in a temporary file, spooled to disk past 8 MiB.
"""

from __future__ import annotations

import json
import math
import tempfile
from collections import Counter
from pathlib import Path

from corpora.standoff import concept_order, concept_pair, split_concept_ids
from kernelrank.atomic import atomic_open
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from kernelrank.lock import output_lock
from ppi.extraction.records import clean, numbered_lines, output_fields, parse_bool, recorded_definition
from ppi.extraction.records import read_pair_records  # noqa: F401 (a name of this module too)

__all__ = ["aggregate", "aggregate_document", "read_document_pairs",
           "gene_pair", "TSV_COLUMNS", "TYPED_COLUMNS", "TYPED_FIELDS",
           "write_aggregate_report"]

#: width of the score histogram's bins (report and PNG)
HISTOGRAM_BIN = 0.05
TSV_COLUMNS = ("doc_id", "gene1", "gene2", "gene1_text", "gene2_text", "self_pair", "score",
               "interaction", "mention_pairs", "positive_mention_pairs", "evidence_sentences",
               "best_sentence_id", "best_sentence")
#: the fields a typed model's records add (module docstring), in their order
TYPED_FIELDS = ("concept1", "concept2", "concept1_text", "concept2_text", "type1", "type2",
                "pair_type", "relation_type", "relation_scores", "novel", "novelty_score")
#: the columns a typed input's TSV adds after :data:`TSV_COLUMNS`
TYPED_COLUMNS = ("concept1", "concept2", "type1", "type2", "pair_type", "relation_type",
                 "novel", "novelty_score", "relation_scores")


#: the unordered pair ``(a, b)`` in canonical order (numeric ids as numbers)
gene_pair = concept_pair


# ----------------------------------------------------------------------------- reading
def _by_document(records, path):
    """``(doc_id, [records])`` of consecutive records; a document id seen before → error."""
    seen, current, group = set(), None, []
    for lineno, r in records:
        doc = r["doc_id"]
        if doc != current:
            if group:
                yield current, group
            if doc in seen:
                raise CorpusFormatError(
                    f"document {doc} again after other documents: an extract output keeps "
                    "each document's records together (were two outputs concatenated?)",
                    path=path, line=lineno, record=doc)
            seen.add(doc)
            current, group = doc, []
        group.append(r)
    if group:
        yield current, group


def _typed_record(r):
    """Whether the document record ``r`` is a typed model's (module docstring)."""
    return "type" in r["e1"] or "type" in r["e2"] or "relation_type" in r


def _one_kind(records, path, kind):
    """``records`` (``(line, record)``) unchanged, setting ``kind["typed"]`` from the first
    document record; a later document record of the other kind is an error."""
    for lineno, r in records:
        if r.get("level") == "document":
            typed = _typed_record(r)
            if kind.setdefault("typed", typed) != typed:
                raise CorpusFormatError(
                    f"a {'typed' if typed else 'untyped'} document record after "
                    f"{'untyped' if typed else 'typed'} ones (entity and relation types): "
                    "an extract output is one model's (were two outputs concatenated?)",
                    path=path, line=lineno, record=r["doc_id"])
        yield lineno, r


def _typed_fields(r, first, second):
    """The typed fields of the document record ``r`` whose mention ``first`` stands for the
    pair's first concept (``second`` for the other), but the concept ids and texts."""
    type1, type2 = first.get("type"), second.get("type")
    pair_type = r.get("pair_type") or (":".join(sorted((type1, type2)))
                                       if type1 and type2 else None)
    novel, novelty = r.get("novel"), r.get("novelty_score")
    scores = r.get("relation_scores")
    return {"type1": type1, "type2": type2, "pair_type": pair_type,
            "relation_type": r.get("relation_type"),
            "relation_scores": {k: float(v) for k, v in scores.items()} if scores else None,
            "novel": None if novel is None else bool(novel),
            "novelty_score": None if novelty is None else float(novelty)}


# ----------------------------------------------------------------------------- one document
def aggregate_document(doc_id, records, *, evidence=3, self_pairs=False, counts=None):
    """The gene-pair records of one document's mention-pair records (module docstring).

    ``counts`` (a dict) is incremented: ``mention_pairs``, ``mention_pairs_without_ids``,
    ``self_pairs_left_out`` (mention pairs whose only gene pairs are self-pairs).
    Returns the records sorted by (−score, gene1, gene2).
    """
    counts = counts if counts is not None else {}
    pairs, document = {}, {}
    for r in records:
        if r.get("level") == "document":
            ids1 = split_concept_ids(r["e1"].get("concept_id"))
            ids2 = split_concept_ids(r["e2"].get("concept_id"))
            if len(ids1) == 1 and len(ids2) == 1:
                document[gene_pair(ids1[0], ids2[0])] = r
            continue
        counts["mention_pairs"] = counts.get("mention_pairs", 0) + 1
        ids1 = split_concept_ids(r["e1"].get("concept_id"))
        ids2 = split_concept_ids(r["e2"].get("concept_id"))
        if not ids1 or not ids2:
            counts["mention_pairs_without_ids"] = counts.get("mention_pairs_without_ids",
                                                             0) + 1
            continue
        keys = {}
        for g1 in ids1:
            for g2 in ids2:
                key = gene_pair(g1, g2)
                if key[0] == key[1] and not self_pairs:
                    continue
                # which mention stands for which gene of the pair
                keys[key] = (r["e1"]["text"], r["e2"]["text"]) if key == (g1, g2) else \
                    (r["e2"]["text"], r["e1"]["text"])
        if not keys:
            counts["self_pairs_left_out"] = counts.get("self_pairs_left_out", 0) + 1
        for key, (t1, t2) in keys.items():
            p = pairs.get(key)
            if p is None:
                p = pairs[key] = {"score": -math.inf, "interaction": False, "n": 0, "pos": 0,
                                  "names1": Counter(), "names2": Counter(), "sentences": {}}
            p["n"] += 1
            p["pos"] += bool(r["interaction"])
            p["score"] = max(p["score"], float(r["score"]))
            p["interaction"] = p["interaction"] or bool(r["interaction"])
            p["names1"][t1] += 1
            p["names2"][t2] += 1
            sid = r.get("sentence_id")
            best = p["sentences"].get(sid)
            if best is None or r["score"] > best["score"]:
                p["sentences"][sid] = {"sentence_id": sid,
                                       "sentence_start": r.get("sentence_start"),
                                       "sentence": r.get("sentence"),
                                       "score": float(r["score"]),
                                       "interaction": bool(r["interaction"]),
                                       "e1_text": t1, "e2_text": t2}
    out = []
    for key, r in document.items():               # a documents model's candidates
        p = pairs.get(key)
        if p is None:                             # never in one sentence: no evidence
            p = pairs[key] = {"score": -math.inf, "interaction": False, "n": 0, "pos": 0,
                              "names1": Counter(), "names2": Counter(), "sentences": {}}
        first = r["e1"] if key[0] in split_concept_ids(r["e1"].get("concept_id")) else r["e2"]
        second = r["e2"] if first is r["e1"] else r["e1"]
        p["names1"][first.get("text") or key[0]] += 0
        p["names2"][second.get("text") or key[1]] += 0
        p["document"] = r
        if _typed_record(r):
            p["typed"] = _typed_fields(r, first, second)
    for (g1, g2), p in pairs.items():
        ev = sorted(p["sentences"].values(), key=lambda e: -e["score"])
        doc = p.get("document")
        x = {"doc_id": doc_id, "gene1": g1, "gene2": g2,
             "gene1_text": p["names1"].most_common(1)[0][0],
             "gene2_text": p["names2"].most_common(1)[0][0],
             "self_pair": g1 == g2, "score": p["score"],
             "interaction": p["interaction"], "mention_pairs": p["n"],
             "positive_mention_pairs": p["pos"], "evidence_sentences": len(ev),
             "evidence": ev[:evidence]}
        if doc is not None:
            x.update(score=float(doc["score"]), interaction=bool(doc["interaction"]),
                     mention_score=p["score"] if p["n"] else None, level="document")
        elif document:
            continue        # a documents model scores every candidate: this pair is none
        typed = p.get("typed")
        if typed is not None:
            x = {"doc_id": doc_id, "concept1": g1, "concept2": g2,
                 "concept1_text": x["gene1_text"], "concept2_text": x["gene2_text"],
                 **typed, **x}
        out.append(x)
    out.sort(key=lambda x: (-x["score"], concept_order(x["gene1"]),
                            concept_order(x["gene2"])))
    return out


def _tsv_line(x, typed=False):
    """The TSV row of the record ``x``; ``typed``: with the :data:`TYPED_COLUMNS` (empty for
    a record without them)."""
    best = x["evidence"][0] if x["evidence"] else {}
    row = (x["doc_id"], x["gene1"], x["gene2"], x["gene1_text"], x["gene2_text"],
           x["self_pair"], repr(x["score"]), x["interaction"], x["mention_pairs"],
           x["positive_mention_pairs"], x["evidence_sentences"], best.get("sentence_id"),
           best.get("sentence"))
    if typed:
        scores, novelty = x.get("relation_scores"), x.get("novelty_score")
        row += (*(x.get(c) for c in TYPED_COLUMNS[:7]),
                None if novelty is None else repr(novelty),
                json.dumps(scores, ensure_ascii=False, allow_nan=False,
                           separators=(",", ":")) if scores else None)
    return "\t".join(clean(v) for v in row) + "\n"


class _TsvOutput:
    """The TSV rows of an aggregate, its header chosen by the input's kind: the rows before
    the input's first document record (so of an untyped kind) wait in a spooled temporary
    file (on disk past 8 MiB) until the kind is known — when it is, or at the end — and are
    written after the header, with empty typed columns in a typed TSV."""

    def __init__(self, out, kind):
        self.out, self.kind = out, kind
        self.waiting = tempfile.SpooledTemporaryFile(8 << 20, mode="w+", encoding="utf-8")

    def write(self, x):
        if self.waiting is not None and "typed" in self.kind:
            self.close()
        line = _tsv_line(x, self.kind.get("typed", False))
        (self.out if self.waiting is None else self.waiting).write(line)

    def close(self):
        """Write the header and the rows waiting (at the latest at the end)."""
        if self.waiting is None:
            return
        columns, padding = TSV_COLUMNS, ""
        if self.kind.get("typed", False):
            columns, padding = TSV_COLUMNS + TYPED_COLUMNS, "\t" * len(TYPED_COLUMNS)
        self.out.write("\t".join(columns) + "\n")
        self.waiting.seek(0)
        for line in self.waiting:
            self.out.write(line[:-1] + padding + "\n")
        self.waiting.close()
        self.waiting = None


def aggregate(input, output, *, output_format=None, evidence=3, self_pairs=False,
              positive_only=False, command=None):
    """Aggregate an extract output into document-level gene pairs (module docstring).

    Returns the summary dict (counts, the score histogram data for the report).  The output
    is written atomically under the lock ``OUT.lock``.
    """
    if evidence < 0:
        raise InvalidParameterError(f"--evidence {evidence}; give a number ≥ 0")
    if output_format is None:
        output_format = "tsv" if str(output).endswith(".tsv") else "jsonl"
    if output_format not in ("jsonl", "tsv"):
        raise InvalidParameterError(f"output format {output_format!r}; choose jsonl or tsv")
    if Path(output).resolve() == Path(input).resolve():
        raise InvalidParameterError("--output is the --input file; give another name")
    counts = {"mention_pairs": 0, "mention_pairs_without_ids": 0, "self_pairs_left_out": 0}
    docs = pairs = positive = selfs = 0
    histogram = Counter()          # (score bin, interaction) → gene pairs: memory stays flat
    kind, types = {}, _TypeCounts()
    with output_lock(output, command), atomic_open(output) as out:
        rows = _TsvOutput(out, kind) if output_format == "tsv" else None
        records = _one_kind(read_pair_records(input), input, kind)
        for doc_id, group in _by_document(records, input):
            docs += 1
            for x in aggregate_document(doc_id, group, evidence=evidence,
                                        self_pairs=self_pairs, counts=counts):
                pairs += 1
                positive += x["interaction"]
                selfs += x["self_pair"]
                histogram[(math.floor(x["score"] / HISTOGRAM_BIN), x["interaction"])] += 1
                types.add(x)
                if positive_only and not x["interaction"]:
                    continue
                if rows is not None:
                    rows.write(x)
                else:
                    out.write(json.dumps(x, ensure_ascii=False, allow_nan=False) + "\n")
        if rows is not None:
            rows.close()
    return {"input": str(input), **output_fields(output), "output_format": output_format,
            "aggregation": "max over mention pairs (interaction: at least one mention pair "
                           "predicted to interact), or a documents model's document "
                           "records",
            "documents_with_pairs": docs, "gene_pairs": pairs,
            "interacting_gene_pairs": positive, "self_pairs": selfs,
            "self_pairs_kept": self_pairs, "positive_only": positive_only,
            "evidence": evidence, **counts,
            # the model's pair definition, from the extract run's summary, for
            # ``ppi evaluate-documents``
            **recorded_definition(input),
            "score_histogram": {"bin_width": HISTOGRAM_BIN, "bins": [
                [k * HISTOGRAM_BIN, bool(y), n] for (k, y), n in sorted(histogram.items())]},
            **types.summary()}


class _TypeCounts:
    """The typed pairs of an aggregate counted per pair type and per predicted relation type
    (module docstring); nothing for an untyped input."""

    def __init__(self):
        self.pair_types, self.relation_types, self.novel = {}, Counter(), 0

    def add(self, x):
        if "concept1" not in x:
            return
        counts = self.pair_types.setdefault(x["pair_type"] or "unknown",
                                            {"pairs": 0, "related": 0})
        counts["pairs"] += 1
        if x["interaction"]:
            counts["related"] += 1
            self.relation_types[x["relation_type"] or "unknown"] += 1
            self.novel += x["novel"] is True

    def summary(self):
        if not self.pair_types:
            return {}
        return {"pair_types": dict(sorted(self.pair_types.items())),
                "relation_types": dict(sorted(self.relation_types.items(),
                                              key=lambda kv: (-kv[1], kv[0]))),
                "novel_pairs": self.novel}


def write_aggregate_report(summary, report_dir=None):
    """``<OUT>.summary.json`` + ``.md`` + ``<OUT>.scores.png`` (histogram of the gene-pair
    scores, interacting vs not) beside the output (or in ``report_dir``); returns the paths."""
    import matplotlib.pyplot as plt

    from kernelrank.atomic import save_figure
    from kernelrank.report import markdown_image, write_report

    out = Path(summary["output"])
    report_dir = Path(report_dir) if report_dir else out.parent
    png = report_dir / f"{out.name}.scores.png"
    fig, ax = plt.subplots(figsize=(6, 3.5))
    hist = summary["score_histogram"]
    width = hist["bin_width"]
    bottoms = {}
    for label, colour, name in ((False, "tab:blue", "not interacting"),
                                (True, "tab:orange", "interacting")):
        bins = [(lo, n) for lo, y, n in hist["bins"] if y == label]
        if bins:
            ax.bar([lo for lo, _ in bins], [n for _, n in bins], width=width, align="edge",
                   bottom=[bottoms.get(lo, 0) for lo, _ in bins], color=colour, label=name)
            for lo, n in bins:
                bottoms[lo] = bottoms.get(lo, 0) + n
    if hist["bins"]:
        ax.legend()
    ax.set_xlabel("document-level score (max over mention pairs)")
    ax.set_ylabel("gene pairs")
    fig.tight_layout()
    save_figure(fig, png, dpi=100)
    plt.close(fig)
    md = ["# Document-level gene pairs", "",
          f"`{summary['input']}` → `{summary['output']}`.", "",
          "Aggregation: the **maximum** of a gene pair's mention-pair scores in a document; "
          "the pair interacts when at least one mention pair is predicted to (see "
          "`ppi.aggregation.aggregate`).", "",
          f"- documents with candidate pairs: {summary['documents_with_pairs']}",
          f"- mention pairs read: {summary['mention_pairs']} "
          f"({summary['mention_pairs_without_ids']} without a concept id, left out)",
          f"- gene pairs: {summary['gene_pairs']} ({summary['self_pairs']} self-pairs; "
          + ("kept, --self-pairs)" if summary["self_pairs_kept"] else
             f"mention pairs of one gene left out: {summary['self_pairs_left_out']})"),
          f"- predicted to interact: {summary['interacting_gene_pairs']}", "",
          *_types_markdown(summary), markdown_image(png, "gene-pair scores"), ""]
    return [*write_report(report_dir, out.name + ".summary", summary, "\n".join(md)), png]


def _types_markdown(summary):
    """The report's lines on the pair and relation types of a typed input (none else)."""
    from kernelrank.report import markdown_table

    if "pair_types" not in summary:
        return []
    rows = [{"pair_type": t, **n} for t, n in summary["pair_types"].items()]
    related = ", ".join(f"{t} {n}" for t, n in summary["relation_types"].items()) or "none"
    return ["## Pair and relation types", "",
            markdown_table(rows, ["pair_type", "pairs", "related"],
                           ["pair type", "concept pairs", "predicted to be related"]),
            f"Predicted relation types of the related pairs: {related}; "
            f"novel findings among them: {summary['novel_pairs']}.", ""]


def _typed_tsv_fields(x, path, lineno):
    """The row ``x`` of a typed TSV with the typed fields of the JSONL record (in place):
    null for an empty field, ``novel`` a bool, ``novelty_score`` a float,
    ``relation_scores`` a dict; a row without concepts (an untyped pair) without them."""
    if not x["concept1"]:
        for c in TYPED_COLUMNS:
            x.pop(c, None)
        return
    for c in TYPED_COLUMNS:
        if c in x and x[c] == "":
            x[c] = None
    if x.get("novel") is not None:
        if x["novel"] not in ("True", "False"):
            raise CorpusFormatError(f"novel {x['novel']!r} is not True, False or empty",
                                    path=path, line=lineno)
        x["novel"] = x["novel"] == "True"
    if x.get("novelty_score") is not None:
        x["novelty_score"] = float(x["novelty_score"])
    if x.get("relation_scores") is not None:
        x["relation_scores"] = json.loads(x["relation_scores"])
    x["concept1_text"], x["concept2_text"] = x.get("gene1_text"), x.get("gene2_text")


def read_document_pairs(path):
    """``(line, record)`` of an aggregate output (JSONL or TSV), streamed; records as the
    JSONL ones (TSV: without evidence; a typed TSV's rows with the typed fields)."""
    path = Path(path)
    columns = None
    for lineno, line in numbered_lines(path):
        if not line.strip():
            continue
        if lineno == 1 and not line.lstrip().startswith("{"):
            columns = line.split("\t")
            missing = [c for c in ("doc_id", "gene1", "gene2", "score", "interaction")
                       if c not in columns]
            if missing:
                raise CorpusFormatError(f"not a `ppi aggregate` TSV: no column "
                                        f"{', '.join(missing)}", path=path, line=1)
            continue
        try:
            if columns is not None:
                fields = line.split("\t")
                if len(fields) != len(columns):
                    raise CorpusFormatError(f"{len(fields)} tab-separated fields, the header "
                                            f"has {len(columns)}", path=path, line=lineno)
                x = dict(zip(columns, fields))
                x["score"] = float(x["score"])
                x["interaction"] = parse_bool(x["interaction"], path, lineno)
                for k in ("mention_pairs", "positive_mention_pairs"):
                    if k in x:
                        x[k] = int(x[k])
                if "concept1" in x:
                    _typed_tsv_fields(x, path, lineno)
            else:
                x = json.loads(line)
        except ValueError as exc:
            raise CorpusFormatError(f"unreadable record ({exc})", path=path,
                                    line=lineno) from None
        if not isinstance(x, dict) or not {"doc_id", "gene1", "gene2", "score",
                                           "interaction"} <= set(x):
            raise CorpusFormatError("not a `ppi aggregate` record (needs doc_id, gene1, "
                                    "gene2, score, interaction)", path=path, line=lineno)
        yield lineno, x
