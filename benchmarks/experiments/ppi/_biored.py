"""The frame of the experiments of the documents system on BioRED: train and dev read and
featurized once, subsets of the training abstracts, the ``--stage-search`` option, and the
summary (mean ± sd over seeds) and report of the small-training-set experiments.

Shared by :mod:`~benchmarks.experiments.ppi.exp_ppi_documents`,
:mod:`~benchmarks.experiments.ppi.exp_ppi_small_n`,
:mod:`~benchmarks.experiments.ppi.exp_ppi_stage_data`,
:mod:`~benchmarks.experiments.ppi.exp_ppi_stage_params` and
:mod:`~benchmarks.experiments.ppi.exp_ppi_relation_types`.
"""

import numpy as np

from kernelrank.datadir import resolve_data_dir
from kernelrank.report import markdown_table, write_report

__all__ = ["prepare", "prepare_features", "subset_documents", "add_stage_search",
           "summary_rows", "write_results"]


def prepare(data_dir=None, train=None, dev=None):
    """BioRED train and dev read and featurized once with the default ``documents`` system
    (one joint vocabulary with the five benchmark corpora, spaCy-parsed) and the transfer
    prior's weights: ``(train path, dev path, train corpus, dev corpus, X_train, X_dev, w_g,
    source info)``."""
    train, dev, tr, dv, feats, w_src, info = prepare_features(data_dir, train, dev)
    return train, dev, tr, dv, feats.rows[0].X, feats.rows[1].X, w_src, info


def prepare_features(data_dir=None, train=None, dev=None):
    """:func:`prepare` with the whole :class:`ppi.documents.system.Features` (its fitted
    featurizer turns other corpora into the same columns) in place of the two row
    matrices: ``(train path, dev path, train corpus, dev corpus, features, w_g, source
    info)``."""
    from ppi.documents.system import DocumentSystem

    data = resolve_data_dir(data_dir)
    train = train or data / "biored" / "Train.PubTator.gz"
    dev = dev or data / "biored" / "Dev.PubTator.gz"
    default = DocumentSystem(progress=False)
    tr = default.read_relations(train, source="train")
    dv = default.read_relations(dev, source="dev")
    feats = default.featurize([tr, dv], data)
    w_src, info = default.source_model(feats, data)
    return train, dev, tr, dv, feats, w_src, info


def subset_documents(rc, X, docs):
    """The relation corpus ``rc`` restricted to the documents ``docs`` and the rows of ``X``
    (its mention pairs) that belong to them."""
    docs = np.sort(np.asarray(docs))
    rows = np.flatnonzero(np.isin(rc.documents_of_pairs(), docs))
    return rc.subset(docs), X[rows]


def add_stage_search(parser, stage="the document stage"):
    """``--stage-search``: ``stage`` chooses its (λ, γ) from the grid
    (:data:`ppi.documents.stage.ALPHAS` × :data:`~ppi.documents.stage.GAMMAS`) by
    leave-one-document-out AUC instead of taking the pair transferred from BioRED."""
    parser.add_argument("--stage-search", action="store_true",
                        help=f"{stage} searches its (λ, γ) grid by leave-one-document-out "
                             "AUC instead of taking the pair transferred from BioRED")


def summary_rows(runs, rules):
    """Mean ± sd over seeds per size and system of the runs' AUC and ``f1 <rule>`` for each
    threshold rule of ``rules``."""
    rows = []
    for key in dict.fromkeys((r["abstracts"], r["system"]) for r in runs):
        rs = [r for r in runs if (r["abstracts"], r["system"]) == key]
        row = {"abstracts": key[0], "system": key[1], "runs": len(rs),
               "auc": f"{100 * np.mean([r['auc'] for r in rs]):.1f}"}
        for rule in rules:
            v = 100 * np.array([r[f"f1 {rule}"] for r in rs])
            row[f"F {rule}"] = f"{v.mean():.1f} ± {v.std():.1f}"
        rows.append(row)
    return rows


def write_results(out, d, rules, title, columns=()):
    """``results.json`` and ``results.md`` (``title``, then the summary table: ``columns``
    first, then size, system, runs, AUC and the F of each rule of ``rules``) in the folder
    ``d``; the table printed too."""
    cols = [*columns, "abstracts", "system", "runs", "auc"] + [f"F {r}" for r in rules]
    write_report(d, "results", out, "\n".join([
        f"# {title}", "",
        markdown_table(out["summary"], cols), "",
        f"Wall time {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB, load "
        f"average {out['load_average'][0]:.1f} → {out['load_average'][1]:.1f}.", ""]))
    print(markdown_table(out["summary"], cols))
