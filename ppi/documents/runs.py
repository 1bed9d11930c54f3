"""The ``documents`` system end to end (``ppi train --relations-from``, ``ppi cv
--relations-from``): read PubTator / BioC documents with document-level relations, parse them
with spaCy (cached), featurize, fit (:mod:`ppi.documents.system`), save the model
(:class:`ppi.models.classes.DocumentModel`, format version 6) or cross-validate, write
``results.json`` + ``results.md``.

Both return ``(results, written)``.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from kernelrank.report import format_duration

__all__ = ["train_documents", "cv_documents"]

log = logging.getLogger(__name__)


def _data_summary(rc):
    """The report's ``data``: the file's documents, candidates and mention pairs, what the
    reader repaired, dropped or skipped, and what became of the relations
    (:mod:`ppi.documents.relation_counts`)."""
    c = rc.candidates
    related = c.y > 0
    return {"file": rc.source, "documents": len(rc.corpus.documents), "candidates": len(c),
            "related": int(related.sum()), "mention_pairs": rc.n_pairs,
            "related_in_one_sentence": int((related & (c.bag_sizes > 0)).sum()),
            "mentions_repaired": rc.read_stats.mentions_repaired,
            "mentions_dropped": rc.read_stats.mentions_dropped,
            "mentions_fragmented": rc.read_stats.mentions_fragmented,
            "records_skipped": rc.read_stats.skipped,
            "relations": (None if rc.relation_counts is None
                          else rc.relation_counts.as_dict())}


def _relations_line(rc, system):
    """The report's line on the relations: how many label candidates, and why the others
    do not."""
    counts = rc.relation_counts
    if counts is None:
        return ""
    left = counts.describe(system.entity_types)
    return (f"Relations: {counts.used} of {counts.read + counts.dropped} label candidate pairs"
            + (f" ({left})" if left else "") + ".")


def train_documents(model_dir, output_dir, system, relations_from, *, format=None,
                    data_dir=None, skip_bad=False):
    """Train the ``documents`` system on ``relations_from`` and save the model to
    ``model_dir``; a report to ``output_dir``."""
    from kernelrank.report import write_report
    from ppi.parsing.spacy_parse import CONVERSION_VERSION, pipeline_reference

    t0 = time.perf_counter()
    rc = system.read_relations(relations_from, format=format, skip_bad=skip_bad)
    system.check_data(rc)
    system.check_learner_fits(rc)
    feats = system.featurize([rc], data_dir)
    w_src, info = system.source_model(feats, data_dir)
    feats.sources.clear()           # the prior is fitted: the sources' rows are not needed
    fit = system.fit(rc, feats.rows[0].X, w_src, info)
    training = {"file": str(relations_from), "system": system.config(),
                "spacy_model": pipeline_reference(system.spacy_model),
                "spacy_conversion": CONVERSION_VERSION,
                "data": _data_summary(rc), "selection": _jsonable(fit.info)}
    typed = rc.pair_types is not None
    model = system.model_class(feats.featurizer, np.zeros(0) if typed else fit.weights,
                               fit.info["alpha"], fit.threshold, system.learner, training,
                               entity_types=(rc.pair_types.entity_types if typed
                                             else system.entity_types),
                               instance_threshold=fit.instance_threshold, stage=fit.stage,
                               typed=fit if typed else None)
    model.save(model_dir)
    res = {"model": str(model_dir), **training, "threshold": fit.threshold,
           "seconds": time.perf_counter() - t0}
    md = [f"# Documents model trained on {rc.source}", "",
          f"{res['data']['documents']} documents, {res['data']['candidates']} candidate "
          f"pairs ({res['data']['related']} related), {res['data']['mention_pairs']} mention "
          "pairs. " + _relations_line(rc, system), "",
          f"- mention pairs: λ = {fit.info['alpha']:g}"
          + (f", β = {fit.info['beta']:g} (transfer from "
             f"{', '.join(fit.info.get('sources', []))})" if fit.info.get("beta") is not None
             else "")
          + f"; leave-one-document-out AUC of the candidates' maxima "
          f"{fit.info['instance_auc']:.3f}",
          *([f"- document stage: λ = {fit.info['stage_alpha']:g}, γ = "
             f"{fit.info['stage_gamma']:g} ("
             + ("chosen on these abstracts, --stage-search" if system.stage_search else
                "transferred from BioRED; --stage-search chooses them on these abstracts")
             + "); leave-one-document-out AUC "
             f"{fit.info['stage_auc']:.3f}, F {fit.info['stage_f1']:.3f} at threshold "
             f"{fit.threshold:.4g}"] if fit.stage is not None else []),
          *_typed_lines(fit.info),
          f"- saved to `{model_dir}` ({format_duration(res['seconds'])})", ""]
    return res, [Path(model_dir), *write_report(output_dir, "results", res, "\n".join(md))]


def _typed_lines(info):
    """The report's lines on a typed model (:mod:`ppi.documents.typed_fit`): its pair types,
    relation types and novelty."""
    if "pair_types" not in info:
        return []
    acc = info.get("type_accuracy")
    out = [f"- pair types ({info['pair_model']} model): {', '.join(info['pair_types'])}",
           f"- relation types: {', '.join(info['relation_types'])}; λ = "
           f"{info['type_alpha']:g}"
           + ("" if acc is None else f", leave-one-document-out accuracy on the related "
              f"candidates {acc:.3f}")]
    if info.get("novelty"):
        out.append(f"- novelty: leave-one-document-out AUC {info['novelty_auc']:.3f}, "
                   f"accuracy {info['novelty_accuracy']:.3f} on the related candidates")
    else:
        out.append("- novelty: not marked in the training file (no novelty output)")
    return out


def _jsonable(info):
    out = {}
    for k, v in info.items():
        if isinstance(v, (np.floating, np.integer)):
            v = v.item()
        out[k] = v
    return out


def cv_documents(output_dir, system, relations_from, *, folds=10, format=None,
                 data_dir=None, skip_bad=False):
    """Document-level ``folds``-fold CV of the ``documents`` system on ``relations_from``
    (:meth:`ppi.documents.system.DocumentSystem.cross_validate`); ``results.json`` +
    ``results.md`` (per-fold table, ROC plot) in ``output_dir``."""
    from ppi.documents.mention_stage import candidate_auc
    from ppi.learning.outputs import plot_roc

    t0 = time.perf_counter()
    rc = system.read_relations(relations_from, format=format, skip_bad=skip_bad)
    system.check_data(rc, folds)
    system.check_learner_fits(rc)
    feats = system.featurize([rc], data_dir)
    w_src, info = system.source_model(feats, data_dir)
    feats.sources.clear()
    cv = system.cross_validate(rc, feats.rows[0].X, folds=folds, w_source=w_src,
                                  source_info=info)
    c = rc.candidates
    pooled_auc = candidate_auc(c.y, cv["scores"])
    res = {"file": str(relations_from), "system": system.config(), "data": _data_summary(rc),
           "folds": cv["folds"], "mean": cv["mean"], "pooled_auc": pooled_auc,
           "source": _jsonable({k: v for k, v in info.items() if k != "dropped_pairs"}),
           "seconds": time.perf_counter() - t0}
    out = Path(output_dir)
    roc = out / "roc.png"
    scores = np.where(np.isfinite(cv["scores"]), cv["scores"],
                      np.min(cv["scores"][np.isfinite(cv["scores"])]) - 1)
    plot_roc([{"corpus": rc.source, "y": c.y, "scores": scores, "auc": pooled_auc}], roc)
    from kernelrank.report import markdown_image, markdown_table, write_report

    m = cv["mean"]
    md = [f"# Document-level {folds}-fold CV on {rc.source}", "",
          f"{len(c)} candidate pairs of {len(rc.corpus.documents)} documents, "
          f"{int((c.y > 0).sum())} related. {_relations_line(rc, system)} Mean over folds: "
          f"P {m['precision']:.3f} R {m['recall']:.3f} F {m['f1']:.3f} AUC {m['auc']:.3f} "
          f"(pooled AUC {pooled_auc:.3f}).", "",
          markdown_table(cv["folds"], ["fold", "precision", "recall", "f1", "auc", "alpha",
                                       "beta", "related", "n"]),
          "", markdown_image(roc, "ROC"), ""]
    written = [roc, *write_report(out, "results", res, "\n".join(md))]
    log.info("cv %s: F %.1f AUC %.1f (%s)", rc.source, 100 * m["f1"], 100 * m["auc"],
             format_duration(res["seconds"]))
    return res, written
