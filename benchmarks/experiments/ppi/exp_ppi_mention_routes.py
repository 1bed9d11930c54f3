"""Routes of the documents system's mention stage compared on BioRED dev: the full kernel,
the reduced set over uniform or randomly pivoted Cholesky basis pairs, and the features
hashed to a bounded width with primal RLS — the same features, the same transfer prior, the
same document stage, the mention stage alone changing.

Each route is fitted on BioRED's 400 training abstracts (λ and β by the exact
leave-one-document-out AUC of the candidates' maxima) and scored on the 100 dev abstracts'
candidates: dev P / R / F / AUC, the inner AUC, the chosen (λ, β), the seconds of the fit.
The prior is that of the source models fitted with ``--prior-learner`` (``rls``: the full
kernel, as the results page's table).

Usage::

    python -m benchmarks.experiments.ppi.exp_ppi_mention_routes [--routes rls rs:2000
        rs:1000:rpc hash:4096 ...] [--prior-learner rls] [--output results.json]
"""

import time

import numpy as np

from benchmarks import harness
from kernelrank.datadir import resolve_data_dir

ROUTES = ("rls", "rs:1000", "rs:2000", "rs:3000", "rs:1000:rpc", "rs:2000:rpc", "hash:2048",
          "hash:4096")


def _hashed(X, width, seed=0):
    """``X`` times a signed hashing matrix of ``width`` columns (one ±1 per input column)."""
    import scipy.sparse as sp

    rs = np.random.default_rng(seed)
    d = X.shape[1]
    return sp.csr_matrix((rs.choice([-1.0, 1.0], d), (np.arange(d), rs.integers(0, width, d))),
                         shape=(d, width))


def _hash_route(tr, dv, Xtr, Xdv, w_src, width):
    """Primal transfer RLS on the hashed rows, the exact leave-one-document-out path; the
    document stage on its held-out scores.  Returns (dev scores, threshold, λ, β, inner AUC)."""
    from learners.measures import auc
    from learners.selection import Channels, best_candidate, holdout_predictions
    from learners.splits import group_sets
    from learners.transfer import TransferRLS
    from ppi.documents.mention_stage import unscored_last
    from ppi.documents.relations import bag_max
    from ppi.documents.stage import DocumentStage, document_features
    from ppi.documents.system import ALPHAS
    from ppi.names import BETAS

    H = _hashed(Xtr, width)
    prior = np.asarray(Xtr @ w_src).ravel()
    cands = tr.candidates
    h, fitted = holdout_predictions(
        TransferRLS(kernel="linear", solver="primal"), (Xtr @ H).toarray(),
        tr.instance_labels(), cv=group_sets(tr.documents_of_pairs()),
        path={"alpha": np.asarray(ALPHAS), "beta": np.asarray(BETAS, dtype=float)},
        channels=Channels(fit={"prior": prior}))
    P = h.snapped().in_row_order(len(prior))
    B = unscored_last(bag_max(P, cands))
    inner = np.array([auc(cands.y, b) for b in B])
    best = best_candidate(inner, h.candidates, True)
    a, b = h.candidates[best]["alpha"], h.candidates[best]["beta"]
    coef = np.asarray(fitted.regularization_path([a]))[0]
    s_dev = (Xdv @ H) @ (coef[0] - b * coef[1]) + b * np.asarray(Xdv @ w_src).ravel()
    stage = DocumentStage().fit(document_features(P[best], cands), cands.y, cands.doc)
    return (stage.decision_function(document_features(np.asarray(s_dev).ravel(),
                                                      dv.candidates)),
            stage.threshold_, a, b, float(inner[best]))


def run_route(route, tr, dv, Xtr, Xdv, w_src, info):
    """One route's dev measures (module docstring)."""
    from learners.nystroem import rp_cholesky_pivots
    from ppi.documents.mention_stage import candidate_measures, predict_documents
    from ppi.documents.system import DocumentSystem

    kind, *rest = route.split(":")
    t0 = time.perf_counter()
    if kind == "hash":
        scores, thr, a, b, inner = _hash_route(tr, dv, Xtr, Xdv, w_src, int(rest[0]))
    else:
        system = DocumentSystem(progress=False, learner="rls") if kind == "rls" else \
            DocumentSystem(progress=False, learner="reduced_set", n_basis=int(rest[0]))
        if kind == "rs" and rest[1:] == ["rpc"]:
            # the stage's learner with the pivots as its basis (select_instances builds it
            # by ppi.learning.evaluation.ppi_learner at the call)
            import ppi.learning.evaluation as evaluation

            pivots = rp_cholesky_pivots(lambda S: (Xtr @ Xtr[S].T).toarray(),
                                        np.asarray(Xtr.multiply(Xtr).sum(axis=1)).ravel(),
                                        int(rest[0]), 0)
            make = evaluation.ppi_learner
            evaluation.ppi_learner = lambda *a, **k: make(*a, **k).set_params(
                basis_indices=pivots)
            try:
                fit = system.fit(tr, Xtr, w_src, info)
            finally:
                evaluation.ppi_learner = make
        else:
            fit = system.fit(tr, Xtr, w_src, info)
        scores, _ = predict_documents(fit, Xdv, dv.candidates)
        thr, a, b, inner = fit.threshold, fit.info["alpha"], fit.info["beta"], \
            fit.info["instance_auc"]
    m = candidate_measures(dv.candidates.y, scores, thr)
    return {"route": route, "alpha": a, "beta": b, "inner_auc": inner,
            "precision": m["precision"], "recall": m["recall"], "f1": m["f1"],
            "auc": m["auc"], "seconds": time.perf_counter() - t0}


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output(p)
    p.add_argument("--routes", nargs="+", default=list(ROUTES),
                   help="rls, rs:R[:rpc] (reduced set of R basis pairs, uniform or by "
                        "randomly pivoted Cholesky), hash:D (D hashed columns, primal RLS)")
    p.add_argument("--prior-learner", default="rls", choices=("rls", "reduced_set"),
                   help="the learner of the source models of the prior (default rls)")
    args = harness.parse_args(p, argv)
    from ppi.documents.system import DocumentSystem

    data = resolve_data_dir(args.data_dir)
    start = harness.print_load("start")
    default = DocumentSystem(progress=False, learner=args.prior_learner)
    tr = default.read_relations(data / "biored" / "Train.PubTator.gz", source="train")
    dv = default.read_relations(data / "biored" / "Dev.PubTator.gz", source="dev")
    feats = default.featurize([tr, dv], data)
    w_src, info = default.source_model(feats, data)
    rows = []
    for route in args.routes:
        r = run_route(route, tr, dv, feats.rows[0].X, feats.rows[1].X, w_src, info)
        rows.append(r)
        print(f"{route}: λ {r['alpha']:g} β {r['beta']:g} inner AUC {100 * r['inner_auc']:.2f}"
              f" dev P {100 * r['precision']:.1f} R {100 * r['recall']:.1f} "
              f"F {100 * r['f1']:.1f} AUC {100 * r['auc']:.1f} ({r['seconds']:.0f} s)",
              flush=True)
    harness.save_json(args.output, {"routes": rows, "prior_learner": args.prior_learner,
                                    "load": {"start": start, "end": harness.load_average()}})


if __name__ == "__main__":
    main()
