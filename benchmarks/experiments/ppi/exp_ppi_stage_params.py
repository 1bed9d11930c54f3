"""The document stage's λ and γ: transferred from BioRED, or searched on the training
abstracts (:mod:`ppi.documents.stage`) — AUC / F on BioRED dev and on BC6 PPIm.

    python -m benchmarks.experiments.ppi.exp_ppi_stage_params \\
        --output-dir results/exp_ppi_stage_params
    python -m benchmarks.experiments.ppi.exp_ppi_stage_params --sizes 50 --seeds 0 1 2

For every corpus, size n (``--sizes``) and seed, n abstracts are drawn at random, the
``documents`` system's mention-pair stage (transfer from the five corpora) is fitted on
them, and the document stage twice on its held-out scores:

``transferred``
    :class:`ppi.documents.stage.DocumentStage` with its default, the (λ, γ) =
    (:data:`~ppi.documents.stage.STAGE_ALPHA`, :data:`~ppi.documents.stage.STAGE_GAMMA`) that
    the grid search chose on all 400 of BioRED's training abstracts;
``searched``
    the same stage choosing (λ, γ) from :data:`~ppi.documents.stage.ALPHAS` ×
    :data:`~ppi.documents.stage.GAMMAS` by the drawn abstracts' leave-one-document-out AUC
    (what ``--stage-search`` does in the other experiments).

Both are measured by the candidate measure of ``ppi evaluate-documents`` (AUC, F at the
stage's own bagged threshold, F at the best threshold of the test set — the ceiling) on

* **BioRED**: the dev file (100 abstracts).  In-domain for the transferred pair: it was
  chosen with the labels of the training abstracts the draws come from.
* **BioCreative VI PPIm** (597 abstracts, ``<data>/text/``; interactions a mutation
  affects, 78 % of its candidates related): the abstracts not drawn.  The test of the
  transfer: the pair was chosen on another corpus, with another definition of a relation.

Writes ``results.json`` and ``results.md``; prints wall time, peak RSS and the load.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._biored import (prepare_features, subset_documents,
                                                summary_rows, write_results)

RULES = ("own", "test oracle")


def stage_runs(corpus, rc, X, tests, sizes, seeds, w_src):
    """The runs of one corpus: ``rc`` (rows ``X``) drawn from, ``tests(drawn)`` → the test
    ``(features of its candidates given w, labels)`` maker."""
    from learners.measures import best_f_threshold, precision_recall_f1
    from ppi.documents.stage import ALPHAS, GAMMAS, DocumentStage, document_features
    from ppi.documents.system import DocumentSystem
    from ppi.documents.mention_stage import candidate_auc, unscored_last

    runs = []
    n_docs = len(rc.corpus.documents)
    for n in sizes:
        for seed in seeds:
            drawn = np.random.default_rng(seed).permutation(n_docs)
            sub, Xs = subset_documents(rc, X, drawn[:n])
            c = sub.candidates
            if len(np.unique(c.y)) < 2:
                harness.log.info("%s, %d abstracts, seed %d: one class drawn, skipped",
                                 corpus, n, seed)
                continue
            system = DocumentSystem(progress=False, seed=seed)
            w, sel = system.fit_mention_stage(sub, Xs, w_src)
            F = document_features(sel["heldout"], c)
            F_test, y_test = tests(drawn[n:], w)
            for name, grid in (("transferred", {}),
                               ("searched", {"alphas": ALPHAS, "gammas": GAMMAS})):
                stage = DocumentStage(seed=seed, **grid).fit(F, c.y, c.doc)
                s = unscored_last(stage.decision_function(F_test))
                runs.append({"corpus": corpus, "abstracts": n, "seed": seed, "system": name,
                             "alpha": stage.alpha_, "gamma": stage.gamma_,
                             "auc": candidate_auc(y_test, s),
                             "f1 own": float(precision_recall_f1(y_test, s,
                                                                 stage.threshold_).f1),
                             "f1 test oracle": float(best_f_threshold(y_test, s).f1)})
                harness.log.info("%s %d seed %d %s (λ %g, γ %g): AUC %.3f F %.3f", corpus, n,
                                 seed, name, stage.alpha_, stage.gamma_, runs[-1]["auc"],
                                 runs[-1]["f1 own"])
    return runs


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output_dir(p, "results/exp_ppi_stage_params")
    p.add_argument("--sizes", type=int, nargs="+", default=[25, 50, 100, 200])
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    args = harness.parse_args(p, argv)
    t0, load0 = time.perf_counter(), harness.load_1min()

    from ppi.documents.stage import document_features
    from ppi.documents.system import DocumentSystem
    from ppi.names import relations_path

    _, _, tr, dv, feats, w_src, _ = prepare_features(args.data_dir)
    Xtr, Xdv = feats.rows[0].X, feats.rows[1].X
    bc6 = DocumentSystem(progress=False).read_relations(relations_path(args.data_dir, "bc6ppim"),
                                                        source="bc6ppim")
    X_bc6 = feats.featurizer.transform([bc6.corpus])[0].X

    def biored_dev(_, w):
        return document_features(np.asarray(Xdv @ w).ravel(), dv.candidates), dv.candidates.y

    def bc6_rest(undrawn, w):
        rest, Xr = subset_documents(bc6, X_bc6, undrawn)
        return (document_features(np.asarray(Xr @ w).ravel(), rest.candidates),
                rest.candidates.y)

    runs = (stage_runs("BioRED", tr, Xtr, biored_dev, args.sizes, args.seeds, w_src)
            + stage_runs("BC6 PPIm", bc6, X_bc6, bc6_rest, args.sizes, args.seeds, w_src))
    summary = []
    for corpus in ("BioRED", "BC6 PPIm"):
        for row in summary_rows([r for r in runs if r["corpus"] == corpus], RULES):
            summary.append({"corpus": corpus, **row})
    out = {"runs": runs, "summary": summary, "seconds": time.perf_counter() - t0,
           "peak_rss_gb": harness.peak_rss("GiB"),
           "load_average": [load0, harness.load_1min()]}
    write_results(out, Path(args.output_dir), RULES,
                  "The document stage's λ and γ, transferred or searched (mean ± sd over "
                  "seeds)", columns=["corpus"])
    print(f"wall {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB, load "
          f"{load0:.1f} → {harness.load_1min():.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
