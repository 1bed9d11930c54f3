"""Why 50 annotated abstracts stay below 400 on BioRED dev, and what does not close the gap
(the target: trained on 50 abstracts with transfer, F within 0.05 of the full-data model):
dev AUC and F at four decision thresholds, per system and training-set size.

    python -m benchmarks.experiments.ppi.exp_ppi_small_n --output-dir results/exp_ppi_small_n
    python -m benchmarks.experiments.ppi.exp_ppi_small_n --sizes 50 100 --seeds 0 1 2 3 4

For every size n and seed, n training abstracts are drawn at random (the same draw as
:mod:`benchmarks.experiments.ppi.exp_ppi_documents`), and three systems are fitted on them:

``default``
    the ``documents`` system as ``ppi train --relations-from`` fits it (single-instance
    labels, the document stage, transfer from the five benchmark corpora);
``no transfer``
    the same without the prior;
``mi``
    multiple-instance RLS at the mention pairs (Andrews et al. 2003, squared loss), no
    transfer.

Each fit is then measured on dev at four decision thresholds of its document-stage score:

``bagged``
    the model's own (:func:`ppi.documents.stage.bagged_threshold`: median of the best-F
    thresholds of bootstrap resamples of the training documents);
``single``
    the best-F threshold of the training documents' held-out stage scores;
``plug-in``
    the threshold maximizing the *expected* F of the held-out stage scores once they are
    turned into probabilities by Platt scaling (Platt 1999; the plug-in rule of Jansche 2007,
    "A maximum expected utility framework for binary sequence labeling", ACL, and Nan, Chai,
    Lee & Chieu 2012, "Optimizing F-measure: a tale of two approaches", ICML): a smooth
    function of the threshold instead of the step function the best-F threshold maximizes;
``dev oracle``
    the best-F threshold of the dev scores themselves — not a method, the ceiling any
    threshold rule can reach with that ranking.

With ``--stages``, two diagnostics (not methods: each uses the labels of the training
abstracts *not* drawn) tell which of the two learned stages is short of data; the default
system's two stages are fitted on different abstracts, the draw's n and the other 400 − n:

``mention stage from the rest``
    the mention-pair model trained on the other abstracts (so its scores of the n drawn ones
    are held out), the document stage trained on the n;
``document stage from the rest``
    the mention-pair model trained on the n, the document stage trained on the other
    abstracts' candidates as that model scores them (held out: it never saw them).

Writes ``results.json`` and ``results.md`` (mean ± sd over seeds per size, system and
threshold); prints wall time and peak RSS.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._biored import (add_stage_search, prepare, subset_documents,
                                                summary_rows, write_results)

SYSTEMS = {"default": {}, "no transfer": {"transfer": False},
           "mi": {"transfer": False, "instances": "mi"}}
THRESHOLDS = ("bagged", "single", "plug-in", "dev oracle")


def plugin_threshold(y, scores):
    """The threshold maximizing the expected F1 of ``scores`` under Platt-scaled
    probabilities ``p_i``: ``F(t) = 2 Σ_{s_i > t} p_i / (|{s_i > t}| + Σ_i p_i)`` (Jansche
    2007's plug-in estimate), placed midway between two consecutive sorted scores.
    O(m log m)."""
    from sklearn.linear_model import LogisticRegression

    y = (np.asarray(y) > 0).astype(int)
    s = np.asarray(scores, dtype=float)
    p = LogisticRegression(C=1e6).fit(s[:, None], y).predict_proba(s[:, None])[:, 1]
    order = np.argsort(-s, kind="stable")
    expected_f = 2 * np.cumsum(p[order]) / (np.arange(1, len(s) + 1) + p.sum())
    j = int(np.argmax(expected_f))
    ranked = s[order]
    return float((ranked[j] + ranked[j + 1]) / 2) if j + 1 < len(s) else float(ranked[j] - 1)


def thresholds_of(fit, training_y, dev_y, dev_scores):
    """The four thresholds of the module docstring for one fitted ``documents`` model."""
    from learners.measures import best_f_threshold

    held_out = fit.stage.holdout_scores_
    return {"bagged": fit.threshold,
            "single": float(best_f_threshold(training_y, held_out).threshold),
            "plug-in": plugin_threshold(training_y, held_out),
            "dev oracle": float(best_f_threshold(dev_y, dev_scores).threshold)}


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output_dir(p, "results/exp_ppi_small_n")
    p.add_argument("--sizes", type=int, nargs="+", default=[50])
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--stages", action="store_true",
                   help="also fit the two stage diagnostics (module docstring)")
    add_stage_search(p, "every document stage")
    args = harness.parse_args(p, argv)
    t0, load0 = time.perf_counter(), harness.load_1min()

    from learners.measures import precision_recall_f1
    from ppi.documents.system import DocumentSystem
    from ppi.documents.mention_stage import candidate_auc, predict_documents, unscored_last

    _, _, tr, dv, Xtr, Xdv, w_src, info = prepare(args.data_dir)
    y_dev = dv.candidates.y
    runs = []
    for n in args.sizes:
        for seed in args.seeds:
            docs = np.random.default_rng(seed).permutation(len(tr.corpus.documents))[:n]
            sub, Xs = subset_documents(tr, Xtr, docs)
            fits = {}
            for name, options in SYSTEMS.items():
                system = DocumentSystem(progress=False, seed=seed,
                                        stage_search=args.stage_search, **options)
                fits[name] = (system.fit(sub, Xs, w_src if system.transfer else None, info),
                              sub.candidates.y)
            if args.stages:
                rest = subset_documents(tr, Xtr, np.setdiff1d(np.arange(len(tr.corpus.documents)),
                                                              docs))
                fits.update(stage_swaps(seed, (sub, Xs), rest, fits["default"][0], w_src, info,
                                        args.stage_search))
            for name, (fit, training_y) in fits.items():
                s = unscored_last(predict_documents(fit, Xdv, dv.candidates)[0])
                row = {"abstracts": n, "seed": seed, "system": name,
                       "auc": candidate_auc(y_dev, s), "beta": fit.info.get("beta")}
                for rule, t in thresholds_of(fit, training_y, y_dev, s).items():
                    row[f"f1 {rule}"] = float(precision_recall_f1(y_dev, s, t).f1)
                runs.append(row)
                harness.log.info("n=%d seed=%d %s: %s", n, seed, name,
                             {k: round(v, 3) for k, v in row.items() if k.startswith("f1")})
    out = {"runs": runs, "summary": summary_rows(runs, THRESHOLDS),
           "seconds": time.perf_counter() - t0, "peak_rss_gb": harness.peak_rss("GiB"),
           "load_average": [load0, harness.load_1min()]}
    write_results(out, Path(args.output_dir), THRESHOLDS,
                  "Small training sets on BioRED dev (mean ± sd over seeds)")
    print(f"wall {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB, load "
          f"{load0:.1f} → {harness.load_1min():.1f}")
    return 0


def stage_swaps(seed, drawn, rest, fit, w_src, info, stage_search=False):
    """The two ``--stages`` diagnostics (module docstring) for one draw: ``drawn`` and
    ``rest`` are ``(relation corpus, mention-pair rows)`` of the drawn and the other
    training abstracts, ``fit`` the default system fitted on the drawn ones.  Returns name →
    ``(fit, the labels its document stage was trained on)``."""
    from ppi.documents.stage import ALPHAS, GAMMAS, DocumentStage, document_features
    from ppi.documents.system import DocumentSystem
    from ppi.documents.mention_stage import DocumentFit

    out = {}
    mentions_only = DocumentSystem(progress=False, seed=seed, document_stage=False)
    for name, (mention_fit, stage_data) in {
            "mention stage from the rest": (mentions_only.fit(*rest, w_src, info), drawn),
            "document stage from the rest": (fit, rest)}.items():
        rc, X = stage_data
        scores = np.asarray(X @ mention_fit.weights).ravel()
        grid = {"alphas": ALPHAS, "gammas": GAMMAS} if stage_search else {}
        stage = DocumentStage(seed=seed, **grid).fit(document_features(scores, rc.candidates),
                                                     rc.candidates.y, rc.candidates.doc)
        out[name] = (DocumentFit(None, mention_fit.weights, None, stage, {}),
                     rc.candidates.y)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
