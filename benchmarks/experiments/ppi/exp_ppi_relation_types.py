"""Typed relations: one multi-output RLS gives a score per relation type from the same
decomposition; per-type F / AUC on BioRED dev.

    python -m benchmarks.experiments.ppi.exp_ppi_relation_types \\
        --output-dir results/exp_relation_types

The documents system without transfer (:mod:`ppi.documents.system`), with one target column
per relation type instead of one: the mention pairs of a candidate related by type ``t`` are
positive in column ``t`` (single-instance labels per type).  The mention-pair model is one
RLS fitted to all columns at once (one eigendecomposition; every λ and every held-out
document for every column from it); λ is chosen per type by the pooled leave-one-document-out
AUC of the candidates' maxima, and each type gets its own document stage on its column's
held-out scores — with the stage's λ and γ transferred from BioRED (the default of
:class:`ppi.documents.stage.DocumentStage`), or, with ``--stage-search``, chosen per type by
leave-one-document-out AUC over the stage's grid.  Measured
per type over every dev candidate (positive: related by that type); a candidate related by
two types counts for both.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._biored import add_stage_search
from kernelrank.datadir import resolve_data_dir


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output_dir(p, "results/exp_ppi_relation_types")
    p.add_argument("--types", nargs="+", default=["Association", "Positive_Correlation",
                                                  "Negative_Correlation", "Bind"])
    add_stage_search(p, "every type's document stage")
    args = harness.parse_args(p, argv)
    t0 = time.perf_counter()

    from learners import RLS
    from learners.measures import auc, best_f_threshold
    from learners.selection import best_candidate, holdout_predictions
    from learners.splits import group_sets
    from ppi.documents.stage import ALPHAS, GAMMAS, DocumentStage, document_features
    from ppi.documents.system import DocumentSystem
    from ppi.documents.mention_stage import candidate_measures, unscored_last
    from ppi.documents.relations import bag_max

    data = resolve_data_dir(args.data_dir)
    system = DocumentSystem(transfer=False, progress=False)
    tr = system.read_relations(data / "biored" / "Train.PubTator.gz", source="train")
    dv = system.read_relations(data / "biored" / "Dev.PubTator.gz", source="dev")
    feats = system.featurize([tr, dv], data)
    Xtr, Xdv = feats.rows[0].X, feats.rows[1].X

    def typed(rc, t):
        return np.array([1.0 if t in ty else -1.0 for ty in rc.candidates.relation_types])

    T = args.types
    Ytr = np.stack([typed(tr, t) for t in T], axis=1)           # candidates × types
    c = tr.candidates
    Y_inst = -np.ones((Xtr.shape[0], len(T)))
    for k in range(len(c)):
        rows = c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]]
        Y_inst[np.ix_(rows, np.flatnonzero(Ytr[k] > 0))] = 1.0
    K = (Xtr @ Xtr.T).toarray()
    alphas = system.alpha_grid
    h, fitted = holdout_predictions(RLS(kernel="precomputed", solver="dual"), K, Y_inst,
                                    cv=group_sets(tr.documents_of_pairs()),
                                    path={"alpha": alphas})
    P = h.snapped().in_row_order(Xtr.shape[0])                   # (λ, m, types)
    coefs = fitted.regularization_path(alphas)                   # (λ, m, types)
    Kdv = (Xdv @ Xtr.T).toarray()
    rows_out = []
    for j, t in enumerate(T):
        y = Ytr[:, j]
        B = unscored_last(bag_max(P[:, :, j], c))
        scores = np.array([auc(y, b) for b in B])
        best = best_candidate(scores, h.candidates, True)
        grid = {"alphas": ALPHAS, "gammas": GAMMAS} if args.stage_search else {}
        stage = DocumentStage(**grid).fit(document_features(P[best, :, j], c), y, c.doc)
        s_dev = Kdv @ coefs[best][:, j]
        F_dev = document_features(s_dev, dv.candidates)
        y_dev = typed(dv, t)
        m = candidate_measures(y_dev, stage.decision_function(F_dev), stage.threshold_)
        m1 = candidate_measures(y_dev, bag_max(s_dev, dv.candidates),
                                best_f_threshold(y, B[best]).threshold)
        rows_out.append({"type": t, "train_related": int((y > 0).sum()),
                         "dev_related": int((y_dev > 0).sum()), "alpha": float(alphas[best]),
                         "stage_alpha": stage.alpha_, "stage_gamma": stage.gamma_,
                         "mention_pairs_auc": m1["auc"], "mention_pairs_f1": m1["f1"], **m})
        harness.log.info("%s: %s", t, rows_out[-1])
    out = {"types": rows_out, "stage_search": args.stage_search,
           "seconds": time.perf_counter() - t0,
           "peak_rss_gb": harness.peak_rss("GiB")}
    from kernelrank.report import markdown_table, write_report

    table = markdown_table(rows_out, ["type", "train_related", "dev_related",
                                      "mention_pairs_auc", "mention_pairs_f1", "precision",
                                      "recall", "f1", "auc"])
    write_report(Path(args.output_dir), "results", out,
                 "# Relation types on BioRED dev\n\n" + table + "\n")
    print(markdown_table(rows_out, ["type", "train_related", "dev_related", "precision",
                                    "recall", "f1", "auc"]))
    print(f"wall {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
