"""Experiment (issue 14): transfer from the other corpora — does a model trained on the
other four corpora, added to the in-corpus model with a weight chosen inside the training
folds, raise F and AUC?

Method: hypothesis transfer with regularized least squares (Tommasi, Orabona & Caputo 2010,
"Safety in numbers: learning categories from few examples with multi model knowledge
transfer", CVPR — LS-SVM towards a prior model, its weight chosen by closed-form
leave-one-out; Kuzborskij & Orabona 2013 for its stability).  For a target corpus T:

1. the **source model** g: the default multiview system trained on the union of the other
   corpora (λ by their pooled leave-one-document-out AUC; reduced-set RLS with 3,000 basis
   vectors, as ``ppi train`` does above 6,000 pairs).  Source pairs whose sentence text
   also occurs in T are left out, so that no test sentence is seen through the source;
2. in every outer fold of T, the RLS on the training part fits the residual
   ``y − β g(x)`` and predicts ``f(x) = β g(x) + Σ_j a_j k(x_j, x)`` — equivalently it
   minimizes ``Σ (y_i − f(x_i))² + λ ‖f − β g‖²`` over ``f − β g`` in the RKHS.  The dual
   solution is linear in the targets, so one eigendecomposition of the training kernel gives
   the leave-one-document-out predictions of ``y`` and of ``g`` for every λ at once, and
   those of any β as ``P_λ y − β P_λ g + β g``;
3. (λ, β) by the pooled inner leave-one-document-out AUC (ties: larger λ, smaller β), the
   threshold by best inner F at that point — β = 0 is the current default system, measured
   in the same run on the same folds (paired).

Nothing is tuned on a test fold: g never sees T, (λ, β, threshold) come from the training
part.  Prints F / AUC (mean over folds; mean ± sd over fold seeds) and writes JSON.

Usage::

    python -m benchmarks.exp_ppi_transfer --corpora LLL HPRD50 IEPA --seeds 0 1 2
    python -m benchmarks.exp_ppi_transfer --corpora AIMed --seeds 0
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

ALL = ("AIMed", "BioInfer", "HPRD50", "IEPA", "LLL")
BETAS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0)


def sentence_texts(corpus):
    """Sentence id → whitespace-normalized lower-cased text."""
    return {s.id: " ".join(s.text.lower().split()) for d in corpus.documents
            for s in d.sentences}


def source_scores(datasets, corpora, target, seed, alphas):
    """Scores of the target's pairs by the model trained on the other corpora (overlapping
    sentences left out) and what was left out."""
    import scipy.sparse as sp

    from ppi.evaluation import select_parameters

    target_texts = set(sentence_texts(corpora[target]).values())
    Xs, ys, docs, dropped = [], [], [], {}
    for name, d in datasets.items():
        if name == target:
            continue
        texts = sentence_texts(corpora[name])
        keep = np.array([texts[s] not in target_texts for s in d.sentence_ids.astype(str)])
        dropped[name] = int((~keep).sum())
        Xs.append(d.X[keep])
        ys.append(d.y[keep])
        docs.append(np.char.add(name + ":", d.document_ids[keep].astype(str)))
    X, y, g = sp.vstack(Xs).tocsr(), np.concatenate(ys), np.concatenate(docs)
    sel, choice = select_parameters(X, y, g, alphas, learner="reduced_set", seed=seed,
                                    select_by="auc")
    return np.asarray(sel.predict(datasets[target].X), dtype=float), {
        "n_source_pairs": int(len(y)), "dropped_pairs": dropped,
        "source_alpha": choice["alpha"]}


def transfer_cv(data, K, g, seed, alphas, betas=BETAS, n_folds=10):
    """Outer document folds; per fold the (λ, β) of best inner AUC.  Returns per-β-mode
    results: ``"default"`` (β = 0), ``"transfer"`` (β chosen), ``"source"`` (g alone)."""
    from learners.measures import auc, best_f_threshold, precision_recall_f1
    from learners.registry import make_learner
    from learners.splits import folds_to_sets, group_folds, group_sets

    y = data.y
    fold = group_folds(data.document_ids, n_folds, seed, y=y)
    out = {k: {"f1": [], "auc": [], "precision": [], "recall": []}
           for k in ("default", "transfer", "source")}
    chosen = []
    for te in folds_to_sets(fold):
        tr = np.setdiff1d(np.arange(len(y)), te)
        ytr, gtr = y[tr], g[tr]
        model = make_learner("rls", kernel="precomputed", solver="dual")
        model.fit(K[np.ix_(tr, tr)], np.column_stack([ytr, gtr]))
        sets = group_sets(data.document_ids[tr])
        P = np.zeros((len(alphas), len(tr), 2))
        for H, Q in zip(sets, model.holdout_sets(sets, alphas=alphas)):
            P[:, H] = np.asarray(Q)
        best = {}
        for mode, bs in (("default", (0.0,)), ("transfer", betas)):
            cand = []
            for ia, a in enumerate(alphas):
                for b in bs:
                    p = P[ia, :, 0] - b * P[ia, :, 1] + b * gtr
                    cand.append((auc(ytr, p), a, -b, ia, b, p))
            cand.sort(key=lambda c: c[:3])
            _, a, _, ia, b, p = cand[-1]
            best[mode] = (a, ia, b, best_f_threshold(ytr, p).threshold)
        F = np.asarray(model.predict_path(K[np.ix_(te, tr)], alphas=alphas))
        for mode, (a, ia, b, thr) in best.items():
            s = F[ia, :, 0] - b * F[ia, :, 1] + b * g[te]
            prf = precision_recall_f1(y[te], s, thr)
            r = out[mode]
            r["f1"].append(prf.f1)
            r["precision"].append(prf.precision)
            r["recall"].append(prf.recall)
            r["auc"].append(auc(y[te], s))
        chosen.append({"alpha": best["transfer"][0], "beta": best["transfer"][2]})
        thr = best_f_threshold(ytr, gtr).threshold   # the source alone, threshold on train
        prf = precision_recall_f1(y[te], g[te], thr)
        r = out["source"]
        r["f1"].append(prf.f1)
        r["precision"].append(prf.precision)
        r["recall"].append(prf.recall)
        r["auc"].append(auc(y[te], g[te]))
    res = {k: {m: float(np.mean(v)) for m, v in r.items()} for k, r in out.items()}
    res["chosen"] = chosen
    return res


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpora", nargs="+", default=["LLL", "HPRD50", "IEPA"], choices=ALL)
    ap.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    ap.add_argument("--data-dir", default=None)
    ap.add_argument("--views", nargs="+", default=None,
                    help="the target's views (default: the multiview system's)")
    ap.add_argument("--gamma", type=float, default=None,
                    help="Gaussian of the target's kernel (the source model stays linear)")
    ap.add_argument("--output", default=None, help="JSON of every row")
    args = ap.parse_args(argv)

    import ppi.evaluation as evaluation
    from ppi.features import kernel
    from ppi.runs import Settings, featurize_corpora, read_corpora

    evaluation.PROGRESS = False
    extra = {} if args.views is None else {"views": tuple(args.views)}
    settings = Settings.for_system("multiview", progress=False, **extra)
    t0 = time.perf_counter()
    datasets, _ = featurize_corpora(ALL, settings, args.data_dir)
    corpora = dict(zip(ALL, read_corpora(ALL, settings, args.data_dir)))
    print(f"featurized in {time.perf_counter() - t0:.0f} s", flush=True)
    rows = []
    for target in args.corpora:
        t1 = time.perf_counter()
        data = datasets[target]
        K = kernel(data, gamma=args.gamma)
        per_seed = []
        g, info = source_scores(datasets, corpora, target, 0, evaluation.ALPHAS)
        print(target, "source model", info, f"{time.perf_counter() - t1:.0f} s", flush=True)
        for seed in args.seeds:
            r = transfer_cv(data, K, g, seed, evaluation.ALPHAS)
            r.update(info, seed=seed)
            per_seed.append(r)
            print(target, seed, {k: (round(100 * r[k]["f1"], 1), round(100 * r[k]["auc"], 1))
                                 for k in ("default", "transfer", "source")},
                  "betas", [c["beta"] for c in r["chosen"]], flush=True)
        row = {"corpus": target, "seeds": per_seed}
        for k in ("default", "transfer", "source"):
            for m in ("f1", "auc"):
                v = [100 * r[k][m] for r in per_seed]
                row[f"{k}_{m}"] = (float(np.mean(v)), float(np.std(v)))
        row["seconds"] = time.perf_counter() - t1
        rows.append(row)
        print("{corpus}: default {d[0]:.1f} ± {d[1]:.1f} / {da[0]:.1f}   transfer "
              "{t[0]:.1f} ± {t[1]:.1f} / {ta[0]:.1f}   source alone {s[0]:.1f} / {sa[0]:.1f}"
              "  ({sec:.0f} s)".format(corpus=target, d=row["default_f1"],
                                       da=row["default_auc"], t=row["transfer_f1"],
                                       ta=row["transfer_auc"], s=row["source_f1"],
                                       sa=row["source_auc"], sec=row["seconds"]), flush=True)
        del K
    if args.output:
        with open(args.output, "w") as fh:
            json.dump(rows, fh, indent=1)


if __name__ == "__main__":
    main()
