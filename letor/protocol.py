"""The LETOR benchmark: linear RankRLS vs RLS regression vs RankSVM (and LambdaMART) on the
standard folds of any LETOR-format data set.

Protocol (LETOR; Paper I §5.3): the data set is split into five parts; each fold trains on
three, validates on a fourth and tests on the fifth (the layouts and rotations are in
:mod:`letor.layouts`). The regularization parameter (λ for RLS/RankRLS, C for RankSVM) is
chosen by **MAP on the validation part** (the LETOR baselines' rule), the model trained on
the training parts is evaluated on the test part with the conventions of the data set's
official evaluation script — ``Eval-Score-3.0.pl``, ``Eval-Score-4.0.pl`` or
``Eval-Score-MSLR.pl`` (:func:`learners.measures.letor_evaluation`) — plus the mean
per-query disagreement error of Paper I eq. (1) (:func:`learners.measures.disagreement_error`,
graded labels, prediction ties counted as errors, queries without pairs skipped).

Learners (linear, on the data set's features):

* ``rankrls`` — query-wise RankRLS, :class:`learners.QueryRankRLS` in the primal (the dual
  when a fold has more features in use than training rows); every λ of the grid from one
  eigendecomposition (``predict_path``);
* ``rls`` — RLS regression on the labels, :class:`learners.RLS` in the primal (or the dual,
  as above) with a constant feature appended (a lightly regularized bias); λ path from one
  decomposition;
* ``ranksvm`` — :class:`learners.ranksvm.RankSVM` (pairwise squared hinge within queries,
  L2-loss RankSVM by trust-region Newton), the C grid as one path from the smallest C up,
  each C warm-started from the previous one and solved to ``||∇J|| <= 1e-6 ||∇J(0)||``;
* ``ranksvm_hinge`` (extra) — the same with the pairwise hinge (L1-loss, SVMlight's RankSVM
  as in the LETOR 3.0 baseline) by the bundle method, one fit per C, each to a certified
  relative optimality gap of 1e-5;
* ``cgrankrls`` (extra, not in ``all``) — RankRLS on the "relevant pairs" only (same query,
  different labels; Paper I's recommended setting) by conjugate gradients,
  :class:`learners.cg.CGRankRLS` with ``ties="exclude"``, one CG solve per λ;
* ``lightgbm`` (extra, optional dependency) — LambdaMART, :mod:`letor.lambdamart`, the
  number of trees chosen by early stopping on the validation part.

:func:`run_letors` runs several learners fold by fold (a fold's parts are read once);
``run_letor`` one learner; both return the result dictionaries written as
``results.json``; :func:`letor.report.write_letor_report` adds ``results.md`` with the data
set's own published baselines beside ours; :mod:`letor.runs` runs and reports,
:mod:`letor.cli` is the command line.
"""

import numpy as np
from tqdm.auto import tqdm

from kernelrank.cli import parse_grid
from kernelrank.errors import InvalidParameterError, UndefinedMeasureError
from learners.measures import (LETOR_CONVENTIONS, disagreement_error, letor_evaluation,
                               mean_average_precision)
from learners.selection import Channels, Scoring, Search, ValidationSet, select
from letor.layouts import LetorData, open_letor, standard_folds
from letor.names import (CONVENTION_OF_VERSION, CS_TEXT, EXTRA_LEARNERS, LEARNERS,
                         RANKRLS_ALPHAS_TEXT, RLS_ALPHAS_TEXT)

__all__ = ["MEASURES", "evaluate_test_part", "load_parts", "run_letor", "run_letors",
           "standard_folds", "validation_map"]

MEASURES = ["MAP", "NDCG@1", "NDCG@3", "NDCG@5", "NDCG@10", "P@1", "P@3", "P@5", "P@10",
            "disagreement", "disagreement_2v01"]
# λ grids: Paper I's 2^-15..2^15 for RLS; RankRLS sums the squared loss over all pairs of a
# query, so X^T L X is about (query size ≈ 150 ≈ 2^7) times larger than X^T X and its grid
# reaches 2^30 (on OHSUMED validation MAP still rises at 2^15). Every λ of a grid comes from
# one eigendecomposition, so a long grid is cheap.
# (built by the command line's own grid parser, so that the help text and the library agree
# to the bit)
DEFAULT_ALPHAS = {"rls": np.array(parse_grid(RLS_ALPHAS_TEXT)),
                  "rankrls": np.array(parse_grid(RANKRLS_ALPHAS_TEXT)),
                  "cgrankrls": np.array(parse_grid(RANKRLS_ALPHAS_TEXT))}
# C multiplies the summed pairwise (squared) hinge loss; below ~1e-6 every pair is active
# and the ranking no longer changes (w is proportional to the sum of pair differences).
DEFAULT_CS = np.array(parse_grid(CS_TEXT, "--Cs"))
RANKSVM_TOL = 1e-6         # ||∇J|| <= tol ||∇J(0)|| of every squared-hinge fit (TRON)
RANKSVM_HINGE_TOL = 1e-5   # relative optimality gap of every hinge fit (certified by BMRM)


def load_parts(data_dir, dataset="OHSUMED"):
    """The five parts of the preset ``dataset`` as :class:`corpora.svmlight.SvmlightData`
    (dense X), part k being ``letor/<dataset>/Fold{k}.test.txt.gz``.

    Raises
    ------
    DataNotFoundError
        A part file does not exist (the message says how to fetch the data set).
    CorpusFormatError
        A part is a directory, malformed, not UTF-8 text, a broken gzip stream, holds no
        example, or has no ``qid:`` (every LETOR line has one).
    """
    data = open_letor(dataset=dataset, data_dir=data_dir)
    parts = [data.read(data.root / f"Fold{k}.test.txt.gz")
             for k in range(1, len(data.folds) + 1)]
    return [p._replace(X=p.X.toarray()) for p in parts]      # the preset's 45 features


# --------------------------------------------------------------------------- learners
# Each learner is (estimator, path parameter, how its inputs are prepared, fit params): the
# selection engine (learners.selection.select with a ValidationSet) fits it on the training
# parts and scores the validation part for every grid value — from one fit through
# ``predict_path`` (RankRLS, RLS; RankSVM's warm-started C path), or one fit per value (CG
# RankRLS).


def _with_bias(X):
    return np.hstack([X, np.ones((X.shape[0], 1))])


def _learner(name):
    """``(estimator, grid parameter, input transform, takes qids)`` of a LETOR learner."""
    # the primal (d × d) or the dual (m × m) form, whichever is smaller: a fold of 37 rows
    # and thousands of features is solved in the dual
    if name == "rankrls":
        from learners import QueryRankRLS
        return QueryRankRLS(kernel="linear", solver="auto"), "alpha", None, True
    if name == "rls":
        # RLS regression on the labels with a constant feature appended (a lightly
        # regularized bias)
        from learners import RLS
        return RLS(kernel="linear", solver="auto"), "alpha", _with_bias, False
    if name in ("ranksvm", "ranksvm_hinge"):
        # tight tolerances: with the default 1e-3 the validation MAP of near-optimal
        # solutions differs in the third decimal and flips the choice of C
        from learners.ranksvm import RankSVM
        if name == "ranksvm":
            return RankSVM(tol=RANKSVM_TOL), "C", None, True
        return RankSVM(loss="hinge", tol=RANKSVM_HINGE_TOL, max_iter=5000), "C", None, True
    from learners.cg import CGRankRLS
    return CGRankRLS(ties="exclude", tol=1e-8), "alpha", None, True


def validation_map(convention):
    """Validation MAP with the LETOR tool's conventions: stable order for ties, AP = 0 for
    a query without relevant document, relevance from the convention's threshold."""
    threshold = LETOR_CONVENTIONS[convention]["relevant_threshold"]

    def scorer(y, scores, qids):
        return mean_average_precision(y, scores, qids, relevant_threshold=threshold,
                                      ties="input_order", no_relevant="zero")
    return scorer


def _disagreement(y, scores, qids):
    try:
        return float(disagreement_error(y, scores, qids, average="query"))
    except UndefinedMeasureError:   # no query with two different labels
        return float("nan")


def evaluate_test_part(y, scores, qids, convention="letor3"):
    """The LETOR measures of one test part (:data:`MEASURES`: MAP, NDCG@k, P@k with the
    convention's evaluation script, :func:`learners.measures.letor_evaluation`) and the
    query-averaged disagreement error, also with labels 0 and 1 merged (Paper I)."""
    out = letor_evaluation(y, scores, qids, max_k=10, convention=convention)
    row = {k: float(out[k]) for k in MEASURES if not k.startswith("disagreement")}
    row["disagreement"] = _disagreement(y, scores, qids)
    # Paper I's setting: labels 0 and 1 merged (bipartite: definitely relevant vs the rest)
    row["disagreement_2v01"] = _disagreement((y >= 2).astype(float), scores, qids)
    return row


def _grid(learner, alphas, Cs):
    if learner == "lightgbm":
        return None
    if learner in ("ranksvm", "ranksvm_hinge"):
        grid = np.asarray(DEFAULT_CS if Cs is None else Cs, dtype=float)
    else:
        grid = np.asarray(DEFAULT_ALPHAS[learner] if alphas is None else alphas, dtype=float)
    if grid.ndim != 1 or len(grid) == 0 or not np.all(np.isfinite(grid)) or np.any(grid <= 0):
        raise InvalidParameterError(f"the {learner} grid must be positive finite numbers, "
                                    f"got {grid.tolist()}")
    return grid


def _fit_fold(learner, grid, train, validation, test, convention, seed, threads):
    """One learner on one fold: ``(row of results, test scores)``."""
    (Xtr, ytr, qtr), (Xv, yv, qv), (Xt, _, _) = train, validation, test
    val_map = validation_map(convention)
    if learner == "lightgbm":
        from letor.lambdamart import fit_lambdamart
        model, chosen, seconds = fit_lambdamart(train, validation, val_map, seed=seed,
                                                threads=threads)
        row = {"n_trees": chosen["n_trees"], "num_leaves": chosen["num_leaves"],
               "validation_MAP": chosen["validation_score"], "validation_MAP_path": [],
               "train_seconds": seconds}
        return row, model.predict(Xt)
    estimator, param, prepare, takes_qids = _learner(learner)
    prepare = prepare or (lambda X: X)
    # the hinge's bundle method has no warm start: one fit per C
    search = (Search(grid={param: list(grid)}) if learner == "ranksvm_hinge" else
              Search(path={param: grid}))
    sel = select(estimator, prepare(Xtr), ytr,
                 cv=ValidationSet(prepare(Xv), yv, qv), search=search,
                 scoring=Scoring(val_map, greater_is_better=True),
                 channels=Channels(fit={"qids": qtr} if takes_qids else None))
    row = {param: float(sel.best_params[param]), "validation_MAP": sel.best_score,
           "validation_MAP_path": [float(v) for v in sel.scores],
           "train_seconds": sel.seconds}
    return row, sel.predict(prepare(Xt))


def _param_name(learner):
    return {"ranksvm": "C", "ranksvm_hinge": "C", "lightgbm": "n_trees"}.get(learner, "alpha")


def _check_learners(learners):
    unknown = [name for name in learners if name not in LEARNERS + EXTRA_LEARNERS]
    if unknown:
        raise InvalidParameterError(f"unknown learner {unknown[0]!r}; choose from "
                                    f"{', '.join(LEARNERS + EXTRA_LEARNERS)} (or 'all' on "
                                    "the command line)")


def run_letors(data, learners, *, folds=None, alphas=None, Cs=None, seed=0, progress=True,
               convention=None, threads=None):
    """Run several learners on the folds of a :class:`letor.layouts.LetorData`, fold by
    fold (each fold's parts are read once for every learner); the other parameters as
    :func:`run_letor`. Returns ``{learner: result dictionary}``."""
    _check_learners(learners)
    convention = CONVENTION_OF_VERSION[data.version] if convention is None else convention
    if convention not in LETOR_CONVENTIONS:
        raise InvalidParameterError(f"convention={convention!r} is not one of "
                                    f"{list(LETOR_CONVENTIONS)}")
    n_folds = len(data.folds)
    chosen = data.folds
    if folds is not None:
        bad = [k for k in folds if k not in range(1, n_folds + 1)]
        if bad:
            raise InvalidParameterError(f"folds must be in 1..{n_folds}, got {bad}")
        chosen = [f for f in data.folds if f.k in folds]
    grids = {name: _grid(name, alphas, Cs) for name in learners}
    rows = {name: [] for name in learners}
    bar = tqdm(total=len(chosen) * len(learners), desc=f"LETOR {data.name}",
               disable=not progress, unit="fit")
    for fold in chosen:
        train, validation, test = data.load(fold)
        for name in learners:
            row, scores = _fit_fold(name, grids[name], train, validation, test, convention,
                                    seed, threads)
            bar.update(1)
            rows[name].append({"fold": fold.k, **fold.names, **row,
                               **evaluate_test_part(test[1], scores, test[2], convention)})
    bar.close()
    out = {}
    for name in learners:
        out[name] = {
            "learner": name, "dataset": data.name, "version": data.version,
            "version_source": data.version_source, "layout": data.layout,
            "n_features": data.n_features, "convention": convention, "seed": seed,
            "n_folds": n_folds, "folds_run": [f.k for f in chosen],
            "partial": len(chosen) < n_folds,
            "selection": ("number of trees by early stopping on LightGBM's validation "
                          "NDCG@10, tree size (4, 8 or 31 leaves) by validation MAP "
                          "(letor.lambdamart)" if name == "lightgbm" else
                          "validation MAP (LETOR rule); ties: the most regularized value "
                          "(learners.selection)"),
            "param_name": _param_name(name),
            "grid": None if grids[name] is None else grids[name].tolist(),
            "folds": rows[name],
            "mean": {m: float(np.mean([r[m] for r in rows[name]])) for m in MEASURES}}
    return out


def run_letor(data_dir=None, dataset="OHSUMED", learner="rankrls", *, folds=None,
              alphas=None, Cs=None, seed=0, progress=True, parts=None, data=None,
              convention=None, threads=None):
    """Run one learner on the standard LETOR folds (see the module docstring).

    Parameters
    ----------
    data_dir : path-like, optional
        Holds ``letor/<dataset>/Fold{k}.test.txt.gz`` (see :mod:`kernelrank.datadir`).
    dataset : {"OHSUMED"}
        The preset read when neither ``data`` nor ``parts`` is given.
    learner : {"rankrls", "rls", "ranksvm", "ranksvm_hinge", "cgrankrls", "lightgbm"}
    folds : list of int, optional
        Subset of the folds to run (default: all); the result then says ``"partial": true``.
    alphas, Cs : sequences of float, optional
        Grids for λ (default 2^-15..2^15 for RLS, 2^-15..2^30 for RankRLS) and C
        (RankSVM, either loss; default 10^-7..1).
    seed : int
        Recorded, and LightGBM's seed; every other learner here is deterministic.
    parts : list of SvmlightData, optional
        Pre-loaded parts of a preset (skips reading).
    data : LetorData or path-like, optional
        A data set opened with :func:`letor.layouts.open_letor`, or a folder in one of the
        layouts of :func:`letor.layouts.find_layout`.
    convention : {"letor3", "letor4", "mslr"}, optional
        Evaluation convention (:func:`learners.measures.letor_evaluation`); default: that of
        the data set's version (LETOR 3.0: letor3, 4.0: letor4, MSLR-WEB: mslr, unknown:
        letor4).
    threads : int, optional
        LightGBM's threads (default: all cores).

    Returns
    -------
    dict
        ``{"learner", "dataset", "version", "convention", "n_folds", "folds_run",
        "partial", "selection", "param_name", "grid", "folds": [...], "mean": {measure:
        value}}``; each fold holds the chosen parameter, its validation MAP, the test
        measures and the training time (fit and selection on the validation part).
    """
    _check_learners([learner])
    if parts is not None:
        data = LetorData.from_parts(parts, dataset)
    elif data is None:
        data = open_letor(dataset=dataset, data_dir=data_dir)
    elif not isinstance(data, LetorData):
        data = open_letor(data)
    return run_letors(data, [learner], folds=folds, alphas=alphas, Cs=Cs, seed=seed,
                      progress=progress, convention=convention, threads=threads)[learner]
