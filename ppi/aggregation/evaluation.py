"""``python -m ppi evaluate-documents``: document-level gene pairs against gold relations.

Input: the output of ``python -m ppi aggregate`` (every scored gene pair of each
document with its score and decision — not ``--positive-only``) and a gold file whose
documents carry the relations: BioC (:func:`corpora.bioc.read_bioc_relations`: infons
``Gene1``/``Gene2``, as in the BioCreative VI PPIm set, or two annotated nodes) or PubTator
(relation lines ``PMID  type  id1  id2``, as BioRED; ``--gold-format pubtator``, or a file
name with ``pubtator``).

Over the gold file's candidate pairs (``candidates``; the measure of document-level
relation extraction)
------------------------------------------------------------------------------------------
In each gold document, every unordered pair of two distinct concept ids that both have a
mention of the entity types (default genes: ``Gene``, ``GeneOrGeneProduct``; a mention with
several ids ``a,b`` counts for each) is a candidate; it is positive when a gold relation (any
type) names the two ids.  A candidate's score is its aggregate score (the maximum over its
mention pairs, or a ``documents`` model's document score); a candidate the predictions do
not hold counts as the lowest score and as not predicted.  AUC over all candidates, P / R / F
of the predictions' decisions, and the sentence co-occurrence baseline (every candidate with
a mention pair in one sentence predicted related).

Over the predicted pairs (the earlier measure, kept)
----------------------------------------------------
* **model**: precision, recall and F of the pairs predicted to interact (``interaction`` of
  the aggregate: the pair's score exceeds the model's threshold).  Recall is over **all**
  gold pairs: a gold pair the output does not hold (a sentence-level model's pair that never
  shares a sentence), or whose document has no pair at all, is a false negative.  AUC over
  the predicted pairs (the only ones with a score), by :func:`learners.measures.auc`.
* **co-occurrence baseline**: every candidate pair predicted to interact (Paper V's
  baseline, at document level).  Its recall is the ceiling of any sentence-level extractor
  on these candidates; AUC 0.5.
* both again on **non-self pairs only** (self-pairs, a gene with itself, left out of the
  gold and the predictions): a pair-of-mentions extractor produces a self-pair only from two
  mentions of one gene in one sentence (``ppi aggregate`` leaves them out unless
  ``--self-pairs``).

A document of the predictions that the gold file does not have is an error (typed, naming
the file and line); with ``skip_bad`` it is left out and counted.  Gold documents without
predictions count with their gold pairs as false negatives (counted in the results).

Caveat for BioCreative VI PPIm (Islamaj Doğan et al. 2017, the PPIm track): its gold holds
only interactions **affected by mutations**, so a general PPI extractor's true interactions
that no mutation affects count as false positives — precision against it is a lower bound.
The report says so for a BioC gold (``PPIM_NOTE``), not for a PubTator gold such as BioRED,
whose relations are every relation the curators found in the abstract.

``--measure biored`` measures instead by BioRED's levels — entity pair, + relation type,
+ novelty — over the relations of every entity-pair type (:mod:`ppi.aggregation.biored_measure`).

Memory: the gold pairs, and one score and label per candidate pair (for the AUC).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from corpora.text_input import ReadStats
from kernelrank.errors import CorpusFormatError, InvalidParameterError, UndefinedMeasureError
from ppi.aggregation.aggregate import gene_pair, read_document_pairs

__all__ = ["evaluate_documents", "gold_format_of", "run_evaluate_documents"]

#: The caveat of a BioC gold with ``Gene1``/``Gene2`` infons (the BioCreative VI PPIm set);
#: a PubTator gold (BioRED: every relation of the abstract) does not carry it.
PPIM_NOTE = ("if this gold is BioCreative VI PPIm: it holds only interactions affected by "
             "mutations; true interactions no mutation affects count as false positives, so "
             "precision against it is a lower bound")


def _measures(y, predicted):
    """P/R/F of boolean decisions (None where undefined: no gold pair)."""
    from learners.measures import precision_recall_f1

    out = {"predicted_positive": int(predicted.sum()),
           "true_positive": int((predicted & y).sum())}
    try:
        prf = precision_recall_f1(y, predicted.astype(float), threshold=0.5)
    except UndefinedMeasureError:
        return {"precision": None, "recall": None, "f1": None, **out}
    return {"precision": float(prf.precision), "recall": float(prf.recall),
            "f1": float(prf.f1), **out}


def _auc(y, scores):
    from learners.measures import auc
    try:
        return float(auc(y, scores))
    except UndefinedMeasureError:
        return None


def gold_format_of(gold, gold_format=None):
    """The format of the gold file ``gold``: ``gold_format`` when given, else from the name
    (``pubtator`` for ``.pubtator`` / ``.txt`` or a name with ``pubtator``, ``bioc-json`` for
    ``.json`` / ``.jsonl``, else ``bioc-xml``)."""
    if gold_format is not None:
        return gold_format
    name = str(gold).lower().removesuffix(".gz")
    if name.endswith((".pubtator", ".txt")) or "pubtator" in Path(name).name:
        return "pubtator"
    return "bioc-json" if name.endswith((".json", ".jsonl")) else "bioc-xml"


def gold_candidates(docs, entity_types=None):
    """``{doc id: (candidates, related)}`` of gold documents (PubTator / BioC with mentions
    and relations): the candidate concept pairs (:mod:`ppi.documents.relations`: every unordered pair
    of two distinct ids with a mention of ``entity_types``) and the related ones among them
    (a relation of any type names both ids).  ``{}`` of a document without mentions."""
    import itertools

    from corpora.standoff import split_concept_ids
    from ppi.documents.relations import candidate_mentions

    out = {}
    for d in docs:
        ids = {i for m in candidate_mentions(d, entity_types) for i in split_concept_ids(m.id)}
        cands = {gene_pair(a, b) for a, b in itertools.combinations(sorted(ids), 2)}
        related = {gene_pair(a, b) for r in d.relations or ()
                   for a in split_concept_ids(r.id1) for b in split_concept_ids(r.id2)}
        out[d.id] = (cands, related & cands)
    return out


def records_of_gold_documents(predictions, gold_documents, gold, skip_bad, unknown):
    """``(line, record, document id)`` of the records of the aggregate output
    ``predictions`` whose document is one of ``gold_documents``, streamed.  A record of
    another document is a :class:`~kernelrank.errors.CorpusFormatError` naming the line, or
    with ``skip_bad`` left out, its document appended once to the list ``unknown``."""
    for lineno, x in read_document_pairs(predictions):
        doc = str(x["doc_id"])
        if doc not in gold_documents:
            if not skip_bad:
                raise CorpusFormatError(f"document {doc} is not in the gold file {gold}; "
                                        "evaluate the extraction of the same documents "
                                        "(--skip-bad leaves such documents out, counted)",
                                        path=predictions, line=lineno, record=doc)
            if doc not in unknown:
                unknown.append(doc)
            continue
        yield lineno, x, doc


def check_some_documents(predictions, gold, seen, unknown, what):
    """Refuse an aggregate output with no record of a gold document: none at all (``what``:
    "gene pair", "concept pair"), or only of documents the gold file does not have
    (``unknown``, left out with ``--skip-bad``) — an
    :class:`~kernelrank.errors.InvalidParameterError` saying what to give instead."""
    if not unknown and not seen:
        raise InvalidParameterError(f"{predictions} holds no {what}; give the output of "
                                    "`ppi aggregate` (without --positive-only) of the gold "
                                    "file's documents")
    if not seen:
        raise InvalidParameterError(f"no predicted document of {predictions} is in the gold "
                                    f"file {gold} (--skip-bad left out all {len(unknown)}, "
                                    f"e.g. {unknown[0]}); evaluate the extraction of the gold "
                                    "file's own documents")


def evaluate_documents(predictions, gold, *, gold_format=None, skip_bad=False,
                       entity_types=None, relation_types=None):
    """Measures of an aggregate output against a gold file (module docstring): BioC
    (relations with ``Gene1``/``Gene2`` infons or two annotated nodes) or PubTator (relation
    lines), of ``relation_types`` only when given (ignoring case); over the gold file's
    candidate pairs (``candidates``) besides the predicted pairs.

    The gold relations are read and counted as training reads and counts them
    (:func:`corpora.standoff.check_relations`: an unreadable one refused, or with
    ``skip_bad`` left out and counted; :func:`ppi.documents.relation_counts.
    account_relations`: ``gold_relations``, a warning when some name ids no mention carries).

    Returns the results dict (also holding the arrays under ``_curves`` for the plot and the
    :class:`~ppi.documents.relation_counts.RelationCounts` under ``_relation_counts``).
    """
    from corpora.bioc import read_bioc_relations
    from corpora.text_input import read_documents
    from ppi.documents.relation_counts import account_relations
    from ppi.documents.relations import keep_relation_types

    gold_format = gold_format_of(gold, gold_format)
    stats = ReadStats()
    if gold_format == "pubtator":
        docs = list(read_documents(gold, "pubtator", skip_bad=skip_bad, stats=stats))
        mention_stats = stats
    else:
        gold_pairs = {doc: {gene_pair(*p) for p in ps} for doc, ps in
                      read_bioc_relations(gold, gold_format, skip_bad=skip_bad, stats=stats,
                                          relation_types=relation_types)}
        # the candidates need the mentions: a mention that cannot be placed (a discontinuous
        # annotation) is left out of them and counted, whatever --skip-bad says (the
        # relations were read, and refused or counted, above)
        mention_stats = ReadStats()
        docs = list(read_documents(gold, gold_format, skip_bad=True, stats=mention_stats))
    # what became of the gold relations: counted as training counts them
    relation_counts = account_relations(docs, entity_types, relation_types,
                                        stats.relations_dropped)
    relation_counts.log(Path(gold).name, entity_types)
    candidates = gold_candidates(keep_relation_types(docs, relation_types, gold), entity_types)
    if gold_format == "pubtator":
        gold_pairs = {doc: related for doc, (_, related) in candidates.items()}
    n_gold = sum(len(p) for p in gold_pairs.values())
    if n_gold == 0:
        of_types = ("" if relation_types is None else
                    f" of type {', '.join(relation_types)} (--relation-types)")
        raise InvalidParameterError(f"the gold file {gold} holds no relation{of_types} between "
                                    "two candidate concepts; nothing to evaluate against")
    seen_docs, unknown, found = set(), [], set()
    # a typed model's records of pairs of other entity types are no candidates here
    types = None if entity_types is None else {t.lower() for t in entity_types}
    labels, scores, decisions, selfs = [], [], [], []
    predicted = {}
    for lineno, x, doc in records_of_gold_documents(predictions, gold_pairs, gold, skip_bad,
                                                    unknown):
        seen_docs.add(doc)
        if x.get("type1") and x.get("type2") and types is not None and not (
                x["type1"].lower() in types and x["type2"].lower() in types):
            continue          # a typed model's pair of other entity types: not a candidate
        key = gene_pair(str(x["gene1"]), str(x["gene2"]))
        if (doc, key) in found:
            raise CorpusFormatError(f"gene pair {key[0]}–{key[1]} of document {doc} again: "
                                    "an aggregate output has each pair once", path=predictions,
                                    line=lineno, record=doc)
        found.add((doc, key))
        predicted[(doc, key)] = (float(x["score"]), bool(x["interaction"]),
                                 int(x.get("mention_pairs", 1) or 0) > 0)
        labels.append(key in gold_pairs[doc])
        scores.append(float(x["score"]))
        decisions.append(bool(x["interaction"]))
        selfs.append(key[0] == key[1])
    check_some_documents(predictions, gold, seen_docs, unknown, "gene pair")
    y = np.array(labels, dtype=bool)
    s = np.array(scores, dtype=float)
    d = np.array(decisions, dtype=bool)
    selfs = np.array(selfs, dtype=bool)
    gold_all = [(doc, p) for doc, ps in gold_pairs.items() for p in ps]
    missing = [g for g in gold_all if g not in found]
    missing_self = sum(1 for _, (a, b) in missing if a == b)

    def rows(mask, n_missing):
        # candidates (masked) + the gold pairs without a candidate, never predicted
        yy = np.concatenate([y[mask], np.ones(n_missing, dtype=bool)])
        model = np.concatenate([d[mask], np.zeros(n_missing, dtype=bool)])
        cooc = np.concatenate([np.ones(mask.sum(), dtype=bool),
                               np.zeros(n_missing, dtype=bool)])
        m = _measures(yy, model)
        m["auc"] = _auc(y[mask], s[mask])
        c = _measures(yy, cooc)
        c["auc"] = 0.5
        return m, c

    all_mask = np.ones(len(y), dtype=bool)
    model, cooc = rows(all_mask, len(missing))
    model_ns, cooc_ns = rows(~selfs, len(missing) - missing_self)
    return {
        "candidates": _candidate_measures(candidates, predicted, mention_stats),
        "predictions": str(predictions), "gold": str(gold), "gold_format": gold_format,
        "gold_documents": len(gold_pairs), "gold_pairs": n_gold,
        "relation_types": None if relation_types is None else list(relation_types),
        "gold_self_pairs": sum(1 for _, (a, b) in gold_all if a == b),
        "gold_relations_skipped": stats.relations_dropped,
        "gold_records_skipped": stats.skipped,
        "gold_relations": relation_counts.as_dict(),
        "documents_with_candidates": len(seen_docs),
        "gold_documents_without_candidates": len(set(gold_pairs) - seen_docs),
        "documents_not_in_gold": len(unknown), "documents_not_in_gold_examples": unknown[:10],
        "candidate_pairs": int(len(y)), "candidate_pairs_in_gold": int(y.sum()),
        "gold_pairs_without_candidate": len(missing),
        "recall_ceiling": float(y.sum() / n_gold),
        "model": model, "cooccurrence": cooc,
        "model_without_self_pairs": model_ns, "cooccurrence_without_self_pairs": cooc_ns,
        "precision_is_lower_bound_note": None if gold_format == "pubtator" else PPIM_NOTE,
        "_curves": (y, s, d, n_gold), "_relation_counts": relation_counts}


def _candidate_measures(candidates, predicted, mention_stats):
    """The measure over the gold file's candidate pairs (module docstring): AUC of the
    scores (a candidate without a prediction ranks below every predicted one), P / R / F
    of the decisions (a candidate without a prediction is not predicted), and the
    sentence co-occurrence baseline (every candidate with a mention pair in one sentence)."""
    if not any(c for c, _ in candidates.values()):
        return None                 # the gold file has no mentions of the entity types
    y, s, d, cooc = [], [], [], []
    for doc, (cands, related) in candidates.items():
        for key in sorted(cands):
            score, decision, shared = predicted.get((doc, key), (-np.inf, False, False))
            y.append(key in related)
            s.append(score)
            d.append(decision)
            cooc.append(shared)
    y, s = np.array(y, dtype=bool), np.array(s, dtype=float)
    d, cooc = np.array(d, dtype=bool), np.array(cooc, dtype=bool)
    scored = np.isfinite(s)
    low = s[scored].min() - 1.0 if scored.any() else 0.0
    model = _measures(y, d)
    model["auc"] = _auc(y, np.where(scored, s, low))
    base = _measures(y, cooc)
    base["auc"] = _auc(y, cooc.astype(float))
    inside = {(doc, k) for doc, (cands, _) in candidates.items() for k in cands}
    return {"definition": "every unordered pair of two distinct concept ids with a mention of "
                          "the entity types in a gold document; related when a gold relation "
                          "names both; score: the prediction's, else the lowest",
            "n": int(len(y)), "related": int(y.sum()), "never_scored": int((~scored).sum()),
            "related_never_scored": int((y & ~scored).sum()),
            "predictions_outside_candidates": len(set(predicted) - inside),
            "gold_mentions_left_out": int(mention_stats.mentions_dropped),
            "model": model, "cooccurrence": base}


def _plot(y, s, d, n_gold, cooc, path, lower_bound):
    import matplotlib.pyplot as plt

    from kernelrank.atomic import save_figure

    fig, ax = plt.subplots(figsize=(5.5, 4.5))
    if len(y):
        order = np.argsort(-s, kind="stable")
        tp = np.cumsum(y[order])
        k = np.arange(1, len(y) + 1)
        ax.plot(tp / n_gold, tp / k, label="model (ranked by document score)")
        at = d.sum()
        if at:
            tpd = (y & d).sum()
            ax.plot([tpd / n_gold], [tpd / at], "o", label="model decision")
    ax.plot([cooc["recall"]], [cooc["precision"]], "s", label="co-occurrence baseline")
    ax.set_xlabel("recall (of all gold pairs)")
    ax.set_ylabel("precision (a lower bound for PPIm gold)" if lower_bound else "precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1)
    ax.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=100)
    plt.close(fig)


def _definition_key(recorded):
    """A recorded definition (None: the default) as the readers compare types
    (:func:`_types_key`): equal for two definitions of the same pairs."""
    from ppi.documents.relations import DEFAULT_ENTITY_TYPES

    return (_types_key(recorded.get("model_entity_types") or DEFAULT_ENTITY_TYPES),
            _types_key(recorded.get("model_relation_types")))


def _definition_words(recorded):
    """``entity types …, relation types …`` of a recorded definition (None: the default)."""
    from ppi.documents.relations import DEFAULT_ENTITY_TYPES

    e, r = recorded.get("model_entity_types"), recorded.get("model_relation_types")
    return (f"entity types {' '.join(e or DEFAULT_ENTITY_TYPES)}, relation types "
            f"{'any' if r is None else ' '.join(r)}")


def _types_key(types):
    """Types as the readers compare them (:func:`corpora.documents.type_set`); None: any."""
    from corpora.documents import type_set

    return None if types is None else type_set(types, "types", "Bind")


def pair_definition_of(predictions, entity_types=None, relation_types=None, model=None):
    """The entity and relation types to measure ``predictions`` (an aggregate output) with.

    A ``documents`` model trained with ``--entity-types`` / ``--relation-types`` relates
    those pairs only; ``ppi extract`` and ``ppi aggregate`` record its definition in their
    summaries (:func:`ppi.extraction.records.recorded_definition`), and the saved ``model`` (a
    directory: ``ppi evaluate-documents --model``, for outputs whose summaries were written
    elsewhere) records it in its training record (:func:`ppi.models.classes.read_training`).  A type
    list not given here is the model's, so that the model is measured against what it
    learned; one given here wins, and when it differs from the model's the result says so
    (``note``) and a warning is logged — as when ``model`` and the summaries beside the
    input record different definitions (the records were made by another model).  O(1).

    Returns
    -------
    dict
        ``entity_types``, ``relation_types`` (None: the default genes / any relation type),
        ``from`` (per list: ``"command line"``, ``"model"`` or ``"default"``), ``recorded``
        (the model's definition, ``{}`` when unknown) and ``note`` (None, or the mismatch).
    """
    import logging

    from ppi.extraction.records import recorded_definition

    recorded = recorded_definition(predictions)
    notes = []
    if model is not None:
        from ppi.models.training_record import read_training
        from ppi.extraction.records import DEFINITION_KEYS, pair_definition

        # a mention-level model's definition is the default one: genes, any relation type
        of_model = {k: None for k in DEFINITION_KEYS} | pair_definition(read_training(model))
        beside = recorded
        recorded = of_model
        if beside and _definition_key(beside) != _definition_key(of_model):
            notes.append(f"the summaries beside {predictions} record another model's pair "
                         f"definition ({_definition_words(beside)}) than {model} "
                         f"({_definition_words(of_model)}): were the records made by "
                         "another model?")
    out = {"recorded": recorded, "from": {}, "note": None,
           "model": None if model is None else str(model)}
    asked = []
    for key, given, option in (("entity_types", entity_types, "--entity-types"),
                               ("relation_types", relation_types, "--relation-types")):
        learned = recorded.get(f"model_{key}")
        if given is None:
            out[key] = None if learned is None else list(learned)     # None: any type
            out["from"][key] = "model" if f"model_{key}" in recorded else "default"
            continue
        out[key] = list(given)
        out["from"][key] = "command line"
        if f"model_{key}" in recorded and _types_key(given) != _types_key(learned):
            asked.append(f"{option} {' '.join(given)}, but the model was trained on "
                         f"{'any relation type' if learned is None else ' '.join(learned)}")
    if asked:
        notes.append("; ".join(asked) + " — measured as asked")
    if notes:
        out["note"] = "; ".join(notes)
        logging.getLogger(__name__).warning("%s", out["note"])
    return out


def _definition_line(definition):
    """The report's line on which pairs were measured and where that came from."""
    def types(key, default):
        v = definition[key]
        origin = {"model": "the model's", "command line": "as asked",
                  "default": "the default" if definition["recorded"] else
                  "the default: no summary beside the input records the model's; "
                  "--model names it"}[
            definition["from"][key]]
        return f"{default if v is None else ', '.join(v)} ({origin})"
    from ppi.documents.relations import DEFAULT_ENTITY_TYPES

    line = (f"entity types {types('entity_types', ', '.join(DEFAULT_ENTITY_TYPES))}; relation "
            f"types {types('relation_types', 'any')}")
    return line + (f". **{definition['note']}**" if definition["note"] else "")


def in_sample_note(model, gold):
    """A warning when the saved ``model`` learned from the ``gold`` file itself — its
    training file (``ppi train --relations-from``) or its development file (``--select-on``,
    which the ``text`` system half trains on) — so that its measures there are in-sample,
    not a test; None otherwise.  Compares resolved paths (the model records the files it
    read, :func:`ppi.models.classes.read_training`).  O(1)."""
    from ppi.models.training_record import read_training

    training = read_training(model)
    development = training.get("development")
    read = [training.get("file"), development.get("file") if isinstance(development, dict)
            else None]
    same = [f for f in read if isinstance(f, str) and Path(f).resolve() == Path(gold).resolve()]
    if not same:
        return None
    return (f"{model} learned from {gold} itself (its "
            + ("training" if same[0] == read[0] else "development") + " file): these measures "
            "are in-sample, not a test — evaluate on abstracts it never saw")


def run_evaluate_documents(predictions, gold, output_dir, *, gold_format=None, skip_bad=False,
                           model_note=None, entity_types=None, relation_types=None,
                           model=None):
    """Evaluate, write ``results.json`` + ``results.md`` + ``precision_recall.png`` into
    ``output_dir``; returns ``(results, written)``.  ``model``: the saved model whose pair
    definition applies (:func:`pair_definition_of`)."""
    from kernelrank.report import markdown_image, markdown_table, write_report

    definition = pair_definition_of(predictions, entity_types, relation_types, model)
    r = evaluate_documents(predictions, gold, gold_format=gold_format, skip_bad=skip_bad,
                           entity_types=definition["entity_types"],
                           relation_types=definition["relation_types"])
    r["pair_definition"] = definition
    y, s, d, n_gold = r.pop("_curves")
    if model_note:
        r["model_note"] = model_note
    r["in_sample"] = None if model is None else in_sample_note(model, gold)
    if r["in_sample"]:
        import logging

        logging.getLogger(__name__).warning("%s", r["in_sample"])
    relation_counts_words = r.pop("_relation_counts").describe(definition["entity_types"])
    output_dir = Path(output_dir)
    png = output_dir / "precision_recall.png"
    _plot(y, s, d, n_gold, r["cooccurrence"], png, r["precision_is_lower_bound_note"])
    table = [{"system": name, **r[key]} for name, key in (
        ("model", "model"), ("co-occurrence", "cooccurrence"),
        ("model, non-self pairs only", "model_without_self_pairs"),
        ("co-occurrence, non-self pairs only", "cooccurrence_without_self_pairs"))]
    md = ["# Document-level evaluation", "",
          f"Predictions `{predictions}` against the gold relations of `{gold}`."
          + (f" {model_note}" if model_note else "")
          + (f" **{r['in_sample']}.**" if r["in_sample"] else ""), "",
          f"- gold: {r['gold_pairs']} gene pairs in {r['gold_documents']} documents "
          f"({r['gold_self_pairs']} self-pairs)"
          + (f", relations of type {', '.join(r['relation_types'])} only"
             if r["relation_types"] else ""),
          f"- predicted pairs (the gene pairs of the aggregate output): "
          f"{r['candidate_pairs']}, of which {r['candidate_pairs_in_gold']} gold — recall "
          f"ceiling {100 * r['recall_ceiling']:.1f} %; {r['gold_pairs_without_candidate']} "
          "gold pairs have no prediction (false negatives for every system)",
          f"- gold relations: {r['gold_relations']['used']} of "
          f"{r['gold_relations']['read'] + r['gold_relations']['dropped']} label candidate "
          "pairs"
          + (f" ({relation_counts_words})" if relation_counts_words else ""),
          f"- documents not in the gold file: {r['documents_not_in_gold']} (left out)",
          f"- pairs measured: {_definition_line(definition)}", "",
          markdown_table(table, ["system", "precision", "recall", "f1", "auc",
                                 "predicted_positive", "true_positive"]),
          "\"Non-self pairs only\": self-pairs left out of both the gold and the "
          "predictions. AUC: over the predicted pairs."
          + (f" **Precision may be a lower bound**: {r['precision_is_lower_bound_note']}."
             if r["precision_is_lower_bound_note"] else ""), "",
          markdown_image(png, "precision-recall"), ""]
    c = r["candidates"]
    md[3:3] = [] if c is None else ["## Over the gold file's candidate pairs", "",
               f"{c['n']} candidates ({c['definition']}), {c['related']} related; "
               f"{c['never_scored']} without a prediction ({c['related_never_scored']} of "
               "them related).", "",
               markdown_table([{"system": "model", **c["model"]},
                               {"system": "sentence co-occurrence", **c["cooccurrence"]}],
                              ["system", "precision", "recall", "f1", "auc",
                               "predicted_positive", "true_positive"]),
               "## Over the predicted pairs", ""]
    written = [png, *write_report(output_dir, "results", r, "\n".join(md))]
    return r, written
