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

``run_letor`` returns the result dictionary written as ``results.json``;
:func:`letor.report.write_letor_report` adds ``results.md`` with the published LETOR 3.0
baselines beside ours; :mod:`letor.runs` runs several learners and reports,
:mod:`letor.cli` is the command line.
"""

import numpy as np
from tqdm.auto import tqdm

from kernelrank.datadir import require_file
from corpora.svmlight import load_svmlight
from kernelrank.errors import CorpusFormatError, InvalidParameterError
from learners.measures import disagreement_error, letor_evaluation, mean_average_precision
from learners.selection import ValidationSet, select
from letor.names import DATASETS, EXTRA_LEARNERS, LEARNERS

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


def load_parts(data_dir, dataset="OHSUMED"):
    """The five LETOR parts of ``dataset`` as :class:`corpora.svmlight.SvmlightData` (dense X).

    Raises
    ------
    DataNotFoundError
        A part file does not exist (the message says how to fetch the data set).
    CorpusFormatError
        A part is a directory, malformed, not UTF-8 text, a broken gzip stream, holds no
        example, or has no ``qid:`` (every LETOR line has one).
    """
    if dataset not in DATASETS:
        raise InvalidParameterError(f"unknown LETOR dataset {dataset!r}; known: "
                                    f"{', '.join(DATASETS)}")
    info = DATASETS[dataset]
    parts = []
    for k in range(1, info["n_parts"] + 1):
        path = require_file(data_dir, f"letor/{dataset}/Fold{k}.test.txt.gz", "letor")
        part = load_svmlight(path, n_features=info["n_features"], dense=True)
        if part.y.size == 0:
            raise CorpusFormatError("holds no example (empty file?); fetch the data set again "
                                    "with `python -m corpora fetch letor --force`", path=path)
        if part.qids is None:
            raise CorpusFormatError("no line has a qid:, but a LETOR part is ranked per "
                                    "query; is this a LETOR file?", path=path)
        parts.append(part)
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
