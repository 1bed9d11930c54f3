"""Co-regularised RankRLS vs supervised RankRLS as labelled data shrinks, LETOR 3.0 OHSUMED.

Thesis 003 §2.3.3 / Paper VI simulate unlabelled data by hiding labels; the views used there
are not stated. Here (our protocol):

* data: the five OHSUMED parts (``<data-dir>/letor/OHSUMED/Fold{k}.test.txt.gz``, read with
  :func:`corpora.svmlight.load_svmlight`); standard folds — fold k tests on part k, selects
  hyper-parameters on part k−1, and draws its training data from the other three parts;
* two views: LETOR features 1–25 and 26–45, Gaussian kernel per view
  (γ = 1/(2 d_v)) — and the concatenation of both for supervised RankRLS;
* labelled data: ``k`` training queries drawn at random (k in ``--labelled-queries``); the
  documents of the other training queries, ``--n-unlabelled`` of them at random, are the
  unlabelled data (their labels are never used; their query ids are, so the views must
  agree on score differences inside a query);
* learners:
  - ``RankRLS``: :class:`learners.QueryRankRLS` on the labelled documents, all 45 features
    (Gaussian, γ = 1/90), exact kernel expansion;
  - ``CoRankRLS μ=0``: :class:`learners.CoRankRLS` with μ = 0 — the two view predictors trained
    separately and averaged (same sparse basis, no unlabelled data);
  - ``CoRankRLS``: co-regularised, sparse variant with ``--n-basis`` random basis examples;
* hyper-parameters: λ ∈ 2^{-8,-5,-2,1,4} (and μ ∈ {0.01, 0.1, 1, 10} for CoRankRLS), chosen by
  MAP on the validation part (the same labelled validation data for every learner) with the
  selection engine (:func:`learners.selection.select`, ties: the larger λ, then μ);
* measures on the test part: MAP and NDCG@10 (LETOR 3.0 conventions, :mod:`learners.measures`)
  and the query-averaged disagreement error; mean over 5 folds × ``--repetitions`` draws.

Usage::

    python -m benchmarks.experiments.learners.exp_coreg_letor [--data-dir DIR]
        [--labelled-queries 2 5 10 20] [--repetitions 2] [--seed 0] [--output-dir DIR]
"""

import sys
import time

import numpy as np
from threadpoolctl import threadpool_limits
from tqdm import tqdm

from benchmarks import harness
from kernelrank.datadir import require_file, resolve_data_dir
from corpora.svmlight import load_svmlight
from learners.coreg import CoRankRLS
from kernelrank.cli import exit_code
from learners.measures import disagreement_error, mean_average_precision, ndcg_at_k
from learners.rankrls import QueryRankRLS
from learners.selection import Channels, Search, ValidationSet, select
from kernelrank.report import markdown_table, write_report

ALPHAS = 2.0 ** np.array([-8, -5, -2, 1, 4])
MUS = [0.01, 0.1, 1.0, 10.0]
VIEW_SLICES = [slice(0, 25), slice(25, 45)]
METHODS = ["RankRLS", "CoRankRLS mu=0", "CoRankRLS"]


def load_parts(data_dir):
    parts = []
    for k in range(1, 6):
        path = require_file(data_dir, f"letor/OHSUMED/Fold{k}.test.txt.gz", "letor")
        d = load_svmlight(path, n_features=45, dense=True)
        parts.append((d.X, d.y, d.qids))
    return parts


def views(X):
    return [X[:, s] for s in VIEW_SLICES]


def specs():
    return [{"kernel": "gaussian", "gamma": 1.0 / (2 * (s.stop - s.start))} for s in VIEW_SLICES]


def evaluate(y, s, q):
    return {"MAP": mean_average_precision(y, s, q),
            "NDCG@10": ndcg_at_k(y, s, q, 10),
            "disagreement": disagreement_error(y, s, q)}


def run_fold(parts, k, n_labelled, rng, n_unlabelled, n_basis):
    test = parts[k]
    val = parts[(k - 1) % 5]
    train = [parts[j] for j in range(5) if j not in (k, (k - 1) % 5)]
    X = np.vstack([p[0] for p in train])
    y = np.concatenate([p[1] for p in train])
    q = np.concatenate([p[2] for p in train])
    queries = np.unique(q)
    lab_q = rng.choice(queries, size=n_labelled, replace=False)
    lab = np.isin(q, lab_q)
    unl = np.flatnonzero(~lab)
    unl = np.sort(rng.choice(unl, size=min(n_unlabelled, len(unl)), replace=False))
    Xl, yl, ql = X[lab], y[lab], q[lab]
    Xu, qu = X[unl], q[unl]
    Xv, yv, qv = val
    out = {}

    # supervised RankRLS, all features; λ (and μ) by validation MAP with the selection engine
    sel = select(QueryRankRLS(kernel="gaussian", gamma=1.0 / 90), Xl, yl,
                 cv=ValidationSet(Xv, yv, qv), search=Search({"alpha": ALPHAS}, refit=True),
                 scoring="map", channels=Channels(fit={"qids": ql}))
    out["RankRLS"] = evaluate(test[1], sel.predict(test[0]), test[2])

    # co-regularised, and its mu = 0 ablation (same basis: same random_state)
    seed = int(rng.integers(2 ** 31))
    for name, mus in (("CoRankRLS mu=0", [0.0]), ("CoRankRLS", MUS)):
        sel = select(CoRankRLS(views=specs(), n_basis=n_basis, random_state=seed), views(Xl),
                     yl, cv=ValidationSet(views(Xv), yv, qv),
                     search={"alpha": ALPHAS, "mu": mus}, scoring="map",
                     channels=Channels(fit={"qids": ql}, fixed_fit={
                         "X_unlabelled": views(Xu), "qids_unlabelled": qu}))
        out[name] = evaluate(test[1], sel.predict(views(test[0])), test[2])
        out[name]["alpha"], out[name]["mu"] = sel.best_params["alpha"], sel.best_params["mu"]
    return out


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--labelled-queries", type=int, nargs="+", default=[2, 5, 10, 20])
    parser.add_argument("--repetitions", type=int, default=2)
    parser.add_argument("--n-unlabelled", type=int, default=3000)
    parser.add_argument("--n-basis", type=int, default=200)
    harness.add_seed(parser)
    harness.add_output_dir(parser, "results/coreg_letor", report="coreg_letor")
    args = harness.parse_args(parser, argv)
    return exit_code(_run, args)


def _run(args):
    parts = load_parts(resolve_data_dir(args.data_dir))
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    rows, results = [], {}
    for n_lab in args.labelled_queries:
        runs = []
        jobs = [(k, r) for k in range(5) for r in range(args.repetitions)]
        for k, _ in tqdm(jobs, desc=f"{n_lab} labelled queries", file=sys.stderr,
                         disable=args.quiet):
            with threadpool_limits(1):   # a shared machine: one BLAS thread is fastest
                runs.append(run_fold(parts, k, n_lab, rng, args.n_unlabelled,
                                     args.n_basis))
        results[str(n_lab)] = runs
        for meth in METHODS:
            row = {"labelled queries": n_lab, "method": meth}
            for meas in ("MAP", "NDCG@10", "disagreement"):
                vals = np.array([r[meth][meas] for r in runs])
                row[meas] = float(vals.mean())
                row[meas + " sem"] = float(vals.std(ddof=1) / np.sqrt(len(vals)))
            rows.append(row)
    elapsed = time.perf_counter() - start
    cols = ["labelled queries", "method", "MAP", "MAP sem", "NDCG@10", "NDCG@10 sem",
            "disagreement", "disagreement sem"]
    md = ["# Co-regularised RankRLS on LETOR 3.0 OHSUMED (003 §2.3.3)\n",
          f"Views: features 1-25 | 26-45; {args.n_unlabelled} unlabelled documents, "
          f"{args.n_basis} basis vectors per view; mean over 5 folds x "
          f"{args.repetitions} draws (seed {args.seed}); {elapsed:.0f} s.\n",
          markdown_table(rows, cols, digits=4)]
    write_report(args.output_dir, "coreg_letor", {"args": vars(args), "elapsed_s": elapsed,
                                                  "rows": rows, "runs": results},
                 "\n".join(md))
    print("\n".join(md))


if __name__ == "__main__":
    sys.exit(main())
