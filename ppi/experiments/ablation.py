"""Ablation of the multi-view PPI system: each view alone, the combinations, and
Paper V's system, under the document-level 10-fold protocol on every corpus, over several
fold seeds (F and AUC as mean ± sd over seeds; each seed's value is the mean over folds).

One featurization per corpus serves every combination: the rows of the full system
(:class:`ppi.representation.views.MultiViewFeaturizer`) are unit-norm per view, so the kernel of any subset
``S`` of views with equal weights is ``K_S = Σ_{v∈S} K_v / |S|`` with ``K_v = Φ̂_v Φ̂_vᵀ``,
the Gram matrix of the columns of ``S`` (one m × m matrix in memory at a time). Paper V's system (pair order, λ by inner F) has its own
featurization. Nothing is tuned on a test fold: λ and the threshold are chosen inside each
training part (:func:`ppi.learning.evaluation.cross_validate`); the combination weights are fixed
(equal), not tuned.

Cost: per corpus, one featurization of every view plus ``|views|`` Gram matrices, then one
nested CV per (combination, seed), each O(m³) for the m pairs of the corpus.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

import numpy as np

from kernelrank.errors import InvalidParameterError
from kernelrank.report import format_duration, markdown_table, write_report

__all__ = ["DEFAULT_COMBINATIONS", "combination_kernel", "run_ablation"]

log = logging.getLogger(__name__)

#: The combinations measured by default (besides Paper V's system).
DEFAULT_COMBINATIONS = (
    ("apg:split_parse",), ("apg:Charniak-Lease",), ("bow",), ("path:split_parse",),
    ("path:Charniak-Lease",), ("pair",),
    ("apg:split_parse", "apg:Charniak-Lease"),
    ("apg:split_parse", "bow", "path:split_parse"),
    ("apg:split_parse", "apg:Charniak-Lease", "bow", "path:split_parse",
     "path:Charniak-Lease"),
    ("apg:split_parse", "apg:Charniak-Lease", "bow", "path:split_parse",
     "path:Charniak-Lease", "pair"),
)


def combination_kernel(featurizer, X, combo):
    """The equal-weight kernel ``Σ_{v∈S} K_v / |S|`` of the views ``combo`` from the rows
    ``X`` of an equal-weight :class:`ppi.representation.views.MultiViewFeaturizer` over more views: each of
    its blocks is ``Φ̂_v / √|views|``, so the Gram matrix of the columns of ``combo`` is
    ``Σ_S K_v / |views|``."""
    from learners.kernels import gram_matrix

    if not np.allclose(featurizer.weights, featurizer.weights[0]):
        raise InvalidParameterError("combination_kernel needs a featurizer with equal weights")
    cols = np.concatenate([np.arange(featurizer.view_slices_[v].start,
                                     featurizer.view_slices_[v].stop) for v in combo])
    K = gram_matrix(X[:, cols])
    K *= len(featurizer.views) / len(combo)
    return K


def _cv_over_seeds(data, K, system, seeds, folds):
    f, a = [], []
    for seed in seeds:
        r = system.cross_validate(data, K, folds=folds, seed=seed)
        f.append(r["f1"])
        a.append(r["auc"])
    return {"f1": f, "auc": a, "f1_mean": float(np.mean(f)), "f1_sd": float(np.std(f)),
            "auc_mean": float(np.mean(a)), "auc_sd": float(np.std(a))}


def run_ablation(names, output_dir, settings, *, seeds=(0, 1, 2), big_seeds=(0,),
                 combinations=DEFAULT_COMBINATIONS, data_dir=None, folds=10,
                 big=("AIMed", "BioInfer")):
    """The ablation table; ``big`` corpora get ``big_seeds`` (their folds vary less and
    each CV costs minutes), the others ``seeds``. Returns ``(results, written)``."""
    from corpora.ppi_xml import read_corpus
    from learners.kernels import gram_matrix
    from ppi.names import corpus_path
    from ppi.systems import Settings

    out = Path(output_dir)
    t0 = time.perf_counter()
    views = tuple(dict.fromkeys(v for c in combinations for v in c))
    full = Settings.for_system(settings.system, views=views, learner=settings.learner,
                               n_basis=settings.n_basis, jobs=settings.jobs,
                               progress=settings.progress, gamma=settings.gamma or 0)
    paper_v = Settings.for_system("paper-v", learner=settings.learner,
                                  n_basis=settings.n_basis, jobs=settings.jobs,
                                  progress=settings.progress)
    rows = []
    for name in names:
        corpus = full.strategy.prepare_corpus(read_corpus(corpus_path(data_dir, name)))
        s = big_seeds if name in big else seeds
        (d,) = paper_v.featurizer().fit_transform([corpus])
        rows.append({"corpus": name, "system": "paper-v", "views": ["apg:split_parse"],
                     "seeds": list(s), **_cv_over_seeds(d, gram_matrix(d.X),
                                                        paper_v.strategy, s, folds)})
        del d
        featurizer = full.featurizer()
        (d,) = featurizer.fit_transform([corpus])
        for combo in combinations:
            K = full.strategy.of_gram(combination_kernel(featurizer, d.X, combo))
            rows.append({"corpus": name, "system": full.system, "views": list(combo),
                         "seeds": list(s), **_cv_over_seeds(d, K, full.strategy, s, folds)})
            r = rows[-1]
            log.info("ablation %s %s: F %.1f ± %.1f AUC %.1f ± %.1f", name,
                     "+".join(combo), 100 * r["f1_mean"], 100 * r["f1_sd"],
                     100 * r["auc_mean"], 100 * r["auc_sd"])
            del K
        del d
    res = {"rows": rows, "config": full.config(), "paper_v_config": paper_v.config(),
           "folds": folds, "seconds": time.perf_counter() - t0}
    return res, list(write_report(out, "results", res, ablation_markdown(res, names)))


def ablation_markdown(res, names):
    """One table: a row per system / combination, F ± sd and AUC ± sd per corpus."""
    keys = [("paper-v", ("apg:split_parse",))] + \
        [(r["system"], tuple(r["views"])) for r in res["rows"] if r["system"] != "paper-v"]
    keys = list(dict.fromkeys(keys))
    cell = {(r["corpus"], r["system"], tuple(r["views"])): r for r in res["rows"]}
    table = []
    for system, views in keys:
        label = "Paper V (pair order, λ by F)" if system == "paper-v" else " + ".join(views)
        row = {"system": label}
        for n in names:
            r = cell.get((n, system, views))
            row[n] = "" if r is None else (f"{100 * r['f1_mean']:.1f} ± {100 * r['f1_sd']:.1f} / "
                                           f"{100 * r['auc_mean']:.1f} ± {100 * r['auc_sd']:.1f}")
        table.append(row)
    c = res["config"]
    return "\n".join([
        "# PPI ablation: views and parses",
        "",
        f"Document-level {res['folds']}-fold CV, λ and threshold chosen inside each training "
        f"part; F / AUC (%) as mean ± sd over fold seeds (seeds per corpus in results.json). "
        f"Views other than Paper V's: order {c['order']}, λ by inner {c['select_by']}, "
        f"equal weights of the normalized view kernels"
        + (f", their sum's Gaussian with γ = {c['gamma']:g}" if c.get("gamma") else "")
        + f". Time {format_duration(res['seconds'])}.",
        "",
        markdown_table(table, ["system", *names], ["system / views (F / AUC)", *names]),
        ""])
