"""The LETOR 3.0 benchmark: linear RankRLS vs RLS regression vs RankSVM on the standard folds.

Protocol (LETOR 3.0; Paper I §5.3): the data set is split into five parts ``Fold{k}``; fold
k tests on part k, validates on part k-1 (cyclic: fold 1 validates on part 5) and trains on
the other three. The regularization parameter (λ for RLS/RankRLS, C for RankSVM) is chosen
by **MAP on the validation part** (the LETOR baselines' rule), the model trained on the
three training parts is evaluated on the test part with the conventions of the official
``Eval-Score-3.0.pl`` tool (:func:`learners.measures.letor_evaluation`), plus the mean
per-query disagreement error of Paper I eq. (1) (:func:`learners.measures.disagreement_error`,
graded labels, prediction ties counted as errors, queries without pairs skipped).

Learners (all linear, on the 45 QueryLevelNorm features):

* ``rankrls`` — query-wise RankRLS, :class:`learners.QueryRankRLS` in the primal; every λ of
  the grid from one eigendecomposition (``predict_path``);
* ``rls`` — RLS regression on the labels, :class:`learners.RLS` in the primal with a constant
  feature appended (a lightly regularized bias); λ path from one decomposition;
* ``ranksvm`` — :class:`learners.ranksvm.RankSVM` (pairwise hinge within queries), one fit
  per C, each to a certified relative optimality gap of 1e-5;
* ``cgrankrls`` (extra, not in ``all``) — RankRLS on the "relevant pairs" only (same query,
  different labels; Paper I's recommended setting) by conjugate gradients,
  :class:`learners.cg.CGRankRLS` with ``ties="exclude"``, one CG solve per λ.

``run_letor`` returns the result dictionary written as ``results.json``; ``write_letor_report``
adds ``results.md`` with the published LETOR 3.0 baselines beside ours.
"""

import numpy as np
from tqdm.auto import tqdm

from kernelrank.datadir import require_file
from corpora.svmlight import load_svmlight
from kernelrank.errors import InvalidParameterError
from learners.measures import disagreement_error, letor_evaluation, mean_average_precision
from learners.selection import ValidationSet, select
from kernelrank.report import markdown_table, write_report

DATASETS = {"OHSUMED": {"n_features": 45, "n_parts": 5}}
LEARNERS = ("rankrls", "rls", "ranksvm")   # what ``--learner all`` runs
EXTRA_LEARNERS = ("cgrankrls",)
MEASURES = ["MAP", "NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@1", "P@3", "P@5", "P@10",
            "disagreement", "disagreement_2v01"]
# λ grids: Paper I's 2^-15..2^15 for RLS; RankRLS sums the squared loss over all pairs of a
# query, so X^T L X is about (query size ≈ 150 ≈ 2^7) times larger than X^T X and its grid
# reaches 2^30 (on OHSUMED validation MAP still rises at 2^15). Every λ of a grid comes from
# one eigendecomposition, so a long grid is cheap.
DEFAULT_ALPHAS = {"rls": 2.0 ** np.arange(-15, 16), "rankrls": 2.0 ** np.arange(-15, 31),
                  "cgrankrls": 2.0 ** np.arange(-15, 31)}
# C multiplies the summed pairwise hinge loss; below ~1e-6 every pair is active and the
# ranking no longer changes (w is proportional to the sum of pair differences).
DEFAULT_CS = 10.0 ** np.arange(-7, 1)
RANKSVM_TOL = 1e-5   # relative optimality gap of every RankSVM fit (certified by BMRM)

# Published numbers for comparison (means over the five folds). LETOR 3.0 OHSUMED
# baselines ("Regression" and "RankSVM", linear, QueryLevelNorm, model selection by
# validation MAP): only the MAP and NDCG@10 cells are given here. Paper I Table 3 reports
# the disagreement error on the LETOR OHSUMED data of its time (25 features, labels 0 and 1
# merged), so it is indicative only.
PUBLISHED = [
    {"method": "LETOR 3.0 RankSVM", "MAP": 0.4334, "NDCG@10": 0.4140},
    {"method": "LETOR 3.0 Regression", "MAP": 0.4220, "NDCG@10": 0.4110},
    {"method": "Paper I RankRLS (older LETOR)", "disagreement_2v01": 0.340},
    {"method": "Paper I RLS regressor (older LETOR)", "disagreement_2v01": 0.346},
    {"method": "Paper I RankSVM (older LETOR)", "disagreement_2v01": 0.336},
]


def load_parts(data_dir, dataset="OHSUMED"):
    """The five LETOR parts of ``dataset`` as :class:`corpora.svmlight.SvmlightData` (dense X)."""
    if dataset not in DATASETS:
        raise InvalidParameterError(f"unknown LETOR dataset {dataset!r}; known: "
                                    f"{', '.join(DATASETS)}")
    info = DATASETS[dataset]
    parts = []
    for k in range(1, info["n_parts"] + 1):
        path = require_file(data_dir, f"letor/{dataset}/Fold{k}.test.txt.gz", "letor")
        parts.append(load_svmlight(path, n_features=info["n_features"], dense=True))
    return parts


def standard_folds(n_parts=5):
    """``[(k, train_parts, validation_part, test_part)]`` with 1-based part numbers."""
    folds = []
    for k in range(1, n_parts + 1):
        val = n_parts if k == 1 else k - 1
        folds.append((k, [p for p in range(1, n_parts + 1) if p not in (k, val)], val, k))
    return folds


def _stack(parts, numbers):
    chosen = [parts[p - 1] for p in numbers]
    return (np.vstack([d.X for d in chosen]), np.concatenate([d.y for d in chosen]),
            np.concatenate([d.qids for d in chosen]))


# --------------------------------------------------------------------------- learners
# Each learner is (estimator, path parameter, how its inputs are prepared, fit params): the
# selection engine (learners.selection.select with a ValidationSet) fits it on the training
# parts and scores the validation part for every grid value — from one fit through
# ``predict_path`` (RankRLS, RLS), or one fit per value (RankSVM's C, CG RankRLS).


def _with_bias(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def _learner(name):
    """``(estimator, grid parameter, input transform, takes qids)`` of a LETOR learner."""
    if name == "rankrls":
        from learners import QueryRankRLS
        return QueryRankRLS(kernel="linear", solver="primal"), "alpha", None, True
    if name == "rls":
        # RLS regression on the labels with a constant feature appended (a lightly
        # regularized bias)
        from learners import RLS
        return RLS(kernel="linear", solver="primal"), "alpha", _with_bias, False
    if name == "ranksvm":
        # a tight optimality gap: with the default 1e-3 the validation MAP of near-optimal
        # solutions differs in the third decimal and flips the choice of C
        from learners.ranksvm import RankSVM
        return RankSVM(tol=RANKSVM_TOL, max_iter=5000), "C", None, True
    from learners.cg import CGRankRLS
    return CGRankRLS(ties="exclude", tol=1e-8), "alpha", None, True


def _validation_map(y, scores, qids):
    """Validation MAP with the LETOR tool's conventions: stable order for ties, AP = 0 for
    a query without relevant document."""
    return mean_average_precision(y, scores, qids, ties="input_order", no_relevant="zero")


def _evaluate(y, scores, qids):
    out = letor_evaluation(y, scores, qids, max_k=10)
    row = {k: float(out[k]) for k in MEASURES if not k.startswith("disagreement")}
    row["disagreement"] = float(disagreement_error(y, scores, qids, average="query"))
    # Paper I's setting: labels 0 and 1 merged (bipartite: definitely relevant vs the rest)
    row["disagreement_2v01"] = float(disagreement_error((y >= 2).astype(float), scores, qids,
                                                        average="query"))
    return row


def run_letor(data_dir=None, dataset="OHSUMED", learner="rankrls", *, folds=None,
              alphas=None, Cs=None, seed=0, progress=True, parts=None):
    """Run one learner on the standard LETOR folds (see the module docstring).

    Parameters
    ----------
    data_dir : path-like, optional
        Holds ``letor/<dataset>/Fold{k}.test.txt.gz`` (see :mod:`kernelrank.datadir`).
    dataset : {"OHSUMED"}
    learner : {"rankrls", "rls", "ranksvm", "cgrankrls"}
    folds : list of int, optional
        Subset of folds 1..5 to run (default: all).
    alphas, Cs : sequences of float, optional
        Grids for λ (default 2^-15..2^15 for RLS, 2^-15..2^30 for RankRLS) and C
        (RankSVM; default 10^-7..1).
    seed : int
        Recorded; every learner here is deterministic.
    parts : list of SvmlightData, optional
        Pre-loaded parts (skips reading).

    Returns
    -------
    dict
        ``{"learner", "dataset", "selection", "param_name", "grid", "folds": [...],
        "mean": {measure: value}}``; each fold holds the chosen parameter, its validation
        MAP, the test measures and the training time.
    """
    if learner not in LEARNERS + EXTRA_LEARNERS:
        raise InvalidParameterError(f"unknown learner {learner!r}; choose from "
                                    f"{', '.join(LEARNERS + EXTRA_LEARNERS)} (or 'all' on the "
                                    "command line)")
    parts = load_parts(data_dir, dataset) if parts is None else parts
    all_folds = standard_folds(len(parts))
    if folds is not None:
        bad = [k for k in folds if k not in range(1, len(parts) + 1)]
        if bad:
            raise InvalidParameterError(f"folds must be in 1..{len(parts)}, got {bad}")
        all_folds = [f for f in all_folds if f[0] in folds]
    if learner == "ranksvm":
        grid = np.asarray(DEFAULT_CS if Cs is None else Cs, dtype=float)
    else:
        grid = np.asarray(DEFAULT_ALPHAS[learner] if alphas is None else alphas, dtype=float)
    if grid.ndim != 1 or len(grid) == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise InvalidParameterError(f"the {learner} grid must be positive finite numbers, "
                                    f"got {grid.tolist()}")
    estimator, param, prepare, takes_qids = _learner(learner)
    prepare = prepare or (lambda X: X)
    grid_kw = {"param_grid": {param: list(grid)}} if param == "C" else {"path": {param: grid}}
    results = []
    bar = tqdm(total=len(all_folds), desc=f"LETOR {dataset} {learner}",
               disable=not progress, unit="fold")
    for k, train, val, test in all_folds:
        Xtr, ytr, qtr = _stack(parts, train)
        Xv, yv, qv = _stack(parts, [val])
        sel = select(estimator, prepare(Xtr), ytr,
                     cv=ValidationSet(prepare(Xv), yv, qv), scoring=_validation_map,
                     greater_is_better=True, fit_params={"qids": qtr} if takes_qids else None,
                     **grid_kw)
        bar.update(1)
        Xt, yt, qt = _stack(parts, [test])
        scores = sel.predict(prepare(Xt))
        val_map = [float(v) for v in sel.scores]
        row = {"fold": k, "train_parts": train, "validation_part": val, "test_part": test,
               param: float(sel.best_params[param]), "validation_MAP": sel.best_score,
               "validation_MAP_path": val_map, "train_seconds": sel.seconds}
        row.update(_evaluate(yt, scores, qt))
        results.append(row)
    bar.close()
    mean = {m: float(np.mean([r[m] for r in results])) for m in MEASURES}
    return {"learner": learner, "dataset": dataset, "seed": seed,
            "selection": "validation MAP (LETOR 3.0 rule); ties: the most regularized value "
                         "(learners.selection)",
            "param_name": "C" if learner == "ranksvm" else "alpha",
            "grid": grid.tolist(), "folds": results, "mean": mean}


_HEADERS = {"MAP": "MAP", "disagreement": "disagr.", "disagreement_2v01": "disagr. 2 vs 0/1"}


def letor_markdown(results_by_learner, dataset="OHSUMED", command=None):
    """Markdown: the comparison table (ours + published) and per-fold tables."""
    cols = ["method"] + MEASURES
    headers = ["method"] + [_HEADERS.get(m, m) for m in MEASURES]
    rows = [{"method": f"ours: {name}", **res["mean"]} for name, res in results_by_learner.items()]
    lines = [f"# LETOR 3.0 {dataset}: linear learners on the standard 5 folds\n",
             "Mean over the test folds (each fold: train on 3 parts, choose the regularization "
             "parameter by validation MAP, test on the held-out part). MAP, NDCG@k, P@k with "
             "the conventions of the LETOR tool `Eval-Score-3.0.pl`; *disagr.* = mean per-query "
             "disagreement error (Paper I eq. 1; graded labels, lower is better); *disagr. 2 vs 0/1* = the "
             "same with labels 0 and 1 merged, Paper I's bipartite setting.\n",
             markdown_table(rows + PUBLISHED, cols, headers, digits=4),
             "Published rows: LETOR 3.0 baselines (MAP, NDCG@10) and Paper I Table 3 "
             "(disagreement on the older 25-feature LETOR OHSUMED with labels 0 and 1 merged; "
             "indicative only). Empty cells: not given here.\n"]
    for name, res in results_by_learner.items():
        pname = res["param_name"]
        fold_cols = ["fold", pname, "validation_MAP"] + MEASURES + ["train_seconds"]
        fold_headers = ["fold", pname, "val. MAP"] + [_HEADERS.get(m, m) for m in MEASURES] \
            + ["train s"]
        mean_row = {"fold": "mean", **res["mean"]}
        fold_rows = [{**f, pname: f"{f[pname]:.3g}"} for f in res["folds"]]
        lines.append(f"## {name}: per fold\n")
        lines.append(f"Grid of {pname}: {len(res['grid'])} values from {res['grid'][0]:.3g} "
                     f"to {res['grid'][-1]:.3g}; {res['selection']}.\n")
        lines.append(markdown_table(fold_rows + [mean_row], fold_cols, fold_headers,
                                    digits=4))
    if command:
        lines.append(f"Command: `{command}`\n")
    return "\n".join(lines)


def write_letor_report(output_dir, results_by_learner, dataset="OHSUMED", command=None):
    """Write ``results.json`` and ``results.md`` (one learner: its own result dictionary;
    several: ``{"learner": "all", "learners": {...}}`` plus ``<learner>/results.*``)."""
    markdown = letor_markdown(results_by_learner, dataset, command)
    if len(results_by_learner) == 1:
        (result,) = results_by_learner.values()
        return write_report(output_dir, "results", result, markdown)
    from pathlib import Path

    for name, res in results_by_learner.items():
        write_report(Path(output_dir) / name, "results", res,
                     letor_markdown({name: res}, dataset, command))
    combined = {"learner": "all", "dataset": dataset, "learners": results_by_learner,
                "mean": {name: res["mean"] for name, res in results_by_learner.items()}}
    return write_report(output_dir, "results", combined, markdown)


def add_letor_parser(subparsers):
    """Register the ``letor`` subcommand on an argparse ``subparsers`` object."""
    p = subparsers.add_parser(
        "letor", help="LETOR 3.0 benchmark (standard 5 folds) for rankrls / rls / ranksvm",
        description=__doc__.split("\n\n")[1])
    p.add_argument("--dataset", default="OHSUMED", choices=sorted(DATASETS))
    p.add_argument("--learner", default="all", choices=list(LEARNERS + EXTRA_LEARNERS) + ["all"],
                   help="all = rankrls, rls, ranksvm (default)")
    p.add_argument("--data-dir", help="data directory holding letor/<dataset>/Fold{k}.test.txt.gz"
                                      " (default: $KERNELRANK_DATA, else the user cache)")
    p.add_argument("--output-dir", required=True, help="where results.json / results.md go")
    p.add_argument("--seed", type=int, default=0, help="recorded (all learners are "
                                                       "deterministic)")
    p.add_argument("--folds", type=int, nargs="+", help="subset of folds 1..5 (default: all)")
    p.add_argument("--alphas", type=float, nargs="+",
                   help="λ grid for rls/rankrls (default 2^-15 .. 2^15 for rls, .. 2^30 for "
                        "rankrls)")
    p.add_argument("--Cs", type=float, nargs="+", help="C grid for ranksvm (default 1e-7 .. 1)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    p.set_defaults(handler=letor_command)
    return p


def letor_command(args, argv_text=None):
    """Run the ``letor`` subcommand from parsed arguments; returns the exit code."""
    learners = list(LEARNERS) if args.learner == "all" else [args.learner]
    parts = load_parts(args.data_dir, args.dataset)
    results = {}
    for name in learners:
        results[name] = run_letor(args.data_dir, args.dataset, name, folds=args.folds,
                                  alphas=args.alphas, Cs=args.Cs, seed=args.seed,
                                  progress=not args.no_progress, parts=parts)
    json_path, md_path = write_letor_report(args.output_dir, results, args.dataset, argv_text)
    for name, res in results.items():
        mean = res["mean"]
        print(f"{name:8s} MAP {mean['MAP']:.4f}  NDCG@1 {mean['NDCG@1']:.4f}  "
              f"NDCG@3 {mean['NDCG@3']:.4f}  NDCG@5 {mean['NDCG@5']:.4f}  "
              f"NDCG@10 {mean['NDCG@10']:.4f}  disagreement {mean['disagreement']:.4f}")
    print(f"wrote {json_path} and {md_path}")
    return 0
