"""Evaluation protocols of Paper V ("Results and discussion", Tables 1–5, Figure 3).

* :func:`select_parameters` — λ AND the decision threshold by leave-one-document-out
  cross-validation on a training set, by the selection engine
  (:func:`learners.selection.select`): for every λ of the grid (2^-10..2^10, as published)
  the hold-out predictions of all documents (exact, from one decomposition: the learner's
  ``holdout_sets``) are pooled, the F-maximizing threshold is found
  (:func:`learners.measures.best_f_threshold`), and the λ with the highest F wins (ties:
  the engine's rule, the largest λ).
* :func:`cross_validate` — 10-fold document-level CV (stratified document folds,
  :func:`learners.splits.group_folds`; :func:`learners.selection.nested_cross_validate`);
  parameters selected inside each training part, never on the test fold; P, R, F, AUC per fold, averaged (±σ over folds),
  and the co-occurrence ("all true") baseline (Table 1).
* :func:`cross_corpus` — train on one corpus, test on each other: AUC (Table 2), F with the
  training threshold (Table 3), with the oracle threshold (Table 4) and with the threshold
  that marks as positive the fraction of test pairs that are positive in the test corpus
  (Table 5).
* :func:`learning_curve` — half of the folds are the test set, the other half is added
  document by document in growing portions (Figure 3: AUC against training size).

Every function takes the learner's input as ``K``: a dense kernel matrix (computed once per
corpus or corpus pair and sliced), or — for the reduced-set learner on a corpus whose m × m
matrix would exceed :data:`MAX_GRAM_BYTES` — the corpus' sparse feature rows
(:func:`learner_input`), whose linear kernel is the kernel: the learner then evaluates only
the m × r kernel against its r basis vectors (the same numbers as slicing the m × m matrix,
up to rounding; memory O(m r) instead of O(m²), but each fit recomputes its kernel columns,
about half of a whole Gram matrix per fold on AIMed). Every learner
comes from :mod:`learners` (full RLS on the precomputed kernel, or reduced-set RLS with
≤ 4000 random basis vectors as published; 3000 by default, see :data:`N_BASIS`), every
measure from :mod:`learners.measures`, every fold and every selection from the engine
(:mod:`learners.splits`, :mod:`learners.selection`). The *leaky* protocol criticized in
Paper V and thesis §5.5 (random pair-level folds, ``leaky=True``) exists only to reproduce
it; its results say so.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from tqdm.auto import tqdm

from kernelrank.errors import InvalidParameterError, UndefinedMeasureError
from learners.measures import auc, averaged, best_f_threshold, precision_recall_f1
from learners.registry import make_learner
from learners.selection import Channels, Scoring, nested_cross_validate, select
from learners.splits import RowStructure, folds_to_sets, group_folds
from ppi.names import BETAS, FULL_RLS_MAX, LEARNERS, N_BASIS, SELECT_BY

__all__ = ["ALPHAS", "N_BASIS", "LEARNERS", "resolve_learner", "ppi_learner", "learner_input",
           "uses_feature_rows", "select_parameters", "expansion", "cross_validate",
           "summarize_folds", "cross_corpus", "learning_curve", "test_distribution_f1",
           "cooccurrence", "kernel_kind", "selection_options"]

#: The published λ grid: 2^-10 ... 2^10.
ALPHAS = 2.0 ** np.arange(-10, 11)
#: :data:`ppi.names.N_BASIS` (3000 basis vectors by default) and :data:`ppi.names.LEARNERS`.


def resolve_learner(learner, m=None):
    """``rls`` or ``reduced_set``: ``auto`` is full RLS for at most
    :data:`ppi.names.FULL_RLS_MAX` training pairs ``m`` (the exact learner where it is
    affordable), the reduced-set approximation above or when ``m`` is unknown."""
    if learner not in LEARNERS:
        raise InvalidParameterError(f"learner={learner!r}; choose one of {LEARNERS}")
    if learner == "auto":
        return "rls" if m is not None and m <= FULL_RLS_MAX else "reduced_set"
    return learner


def ppi_learner(learner="rls", n_basis=N_BASIS, seed=0, m=None, kernel="precomputed",
                transfer=False):
    """The learner of ``m`` training pairs: full RLS, or reduced-set RLS with ``n_basis``
    random basis vectors (full RLS when m ≤ n_basis: every pair is a basis vector then), or
    ``auto`` (:func:`resolve_learner`); ``transfer``: the same towards a source hypothesis
    (:mod:`learners.transfer`, :mod:`ppi.learning.transfer`).

    ``kernel="precomputed"``: it is fitted on the kernel matrix; ``"linear"``: on the pairs'
    sparse feature rows (the same kernel, evaluated by the learner where it needs it)."""
    learner = resolve_learner(learner, m)
    prefix = "transfer_" if transfer else ""
    if learner == "rls" or (m is not None and m <= n_basis):
        return make_learner(f"{prefix}rls", kernel=kernel, solver="dual")
    return make_learner(f"{prefix}reduced_set", kernel=kernel, n_basis=n_basis,
                        random_state=seed)


#: Largest dense Gram matrix :func:`learner_input` computes (2 GiB: 16,384 pairs; the
#: five benchmark corpora have at most 9,666).
MAX_GRAM_BYTES = 2 ** 31
#: m × m matrices of doubles full RLS holds at its peak: the kernel, its eigenvectors and the
#: symmetric eigensolver's work space (LAPACK ``dsyevd``: 1 + 6m + 2m² doubles).  The check
#: refuses a fit the machine cannot hold before it starts, instead of the process dying
#: while it forms the kernel: 28,575 training pairs of the documents system (a parser that
#: never splits an abstract into sentences) make a 6.1 GiB kernel, three of them at the peak
FULL_RLS_MATRICES = 3
#: the part of the machine's memory full RLS may plan to use
FULL_RLS_MEMORY_SHARE = 0.75


def check_full_rls_memory(m, total=None):
    """Refuse full RLS on ``m`` training pairs when its m × m matrices
    (:data:`FULL_RLS_MATRICES` of them) would not fit in :data:`FULL_RLS_MEMORY_SHARE` of the
    machine's memory (``total`` bytes; default :func:`kernelrank.memory.
    physical_memory_bytes`) — a clear error before the work, instead of swapping for hours
    or a crash in the eigensolver.

    Raises
    ------
    InvalidParameterError
        Naming the pairs, the memory needed and the learner that fits (reduced set: O(m r)).
    """
    from kernelrank.memory import physical_memory_bytes

    total = physical_memory_bytes() if total is None else total
    need = FULL_RLS_MATRICES * 8 * float(m) ** 2
    if total and need > FULL_RLS_MEMORY_SHARE * total:
        raise InvalidParameterError(
            f"full RLS on {m:,} training pairs needs about {need / 2 ** 30:.1f} GiB "
            f"({FULL_RLS_MATRICES} matrices of {m:,} × {m:,}), more than "
            f"{FULL_RLS_MEMORY_SHARE:.0%} of this machine's {total / 2 ** 30:.1f} GiB; use "
            f"--learner reduced_set (Paper V's sparse RLS on --n-basis basis pairs: memory "
            f"O(pairs × basis)) or train on fewer documents")


def learner_input(data, learner="rls", n_basis=N_BASIS, max_gram_bytes=MAX_GRAM_BYTES):
    """What the evaluation functions take as ``K`` for ``data`` (a ``PairSet``) under the
    linear top kernel.

    The dense kernel matrix (:func:`ppi.representation.features.kernel`, computed once, sliced per fold)
    unless it would take more than ``max_gram_bytes`` and the reduced-set learner is used on
    more than ``n_basis`` pairs: then the sparse feature rows ``data.X`` (no m × m matrix is
    formed: each fit evaluates the kernel of its m training rows against its r basis rows,
    O(m r) memory, at the price of recomputing those columns in every fit).  The Gaussian
    top kernel's input: :meth:`ppi.systems.parts.Gaussian.learner_input`."""
    from ppi.representation.features import kernel

    if uses_feature_rows(data, learner, n_basis, max_gram_bytes):
        return data.X
    if resolve_learner(learner, len(data)) == "rls":
        check_full_rls_memory(len(data))
    return kernel(data)


def uses_feature_rows(data, learner="rls", n_basis=N_BASIS, max_gram_bytes=MAX_GRAM_BYTES):
    """Whether :func:`learner_input` gives ``data``'s feature rows (decided without
    computing anything)."""
    return resolve_learner(learner, len(data)) == "reduced_set" and len(data) > n_basis and \
        8 * len(data) ** 2 > max_gram_bytes


def kernel_kind(K):
    """The learners' kernel for input ``K``: ``"linear"`` on sparse feature rows."""
    return "linear" if sp.issparse(K) else "precomputed"


def _block(K, rows, cols):
    """The learner input of ``rows`` against training pairs ``cols``: the kernel block, or
    just the rows' features when ``K`` holds feature rows."""
    return K[rows] if sp.issparse(K) else K[np.ix_(rows, cols)]


#: :data:`ppi.names.SELECT_BY` — what chooses λ: ``f1``, the best F of the pooled
#: leave-one-document-out predictions (Paper V); ``auc``, their AUC (threshold-free, so less
#: noisy on small corpora), the threshold then being the best-F one at that λ.


def selection_options(select_by):
    """The :func:`learners.selection.select` options of ``select_by`` (:data:`ppi.names.
    SELECT_BY`): the scoring that chooses λ, the best-F threshold and document-grouped
    folds."""
    if select_by not in SELECT_BY:
        raise InvalidParameterError(f"select_by={select_by!r}; choose one of {SELECT_BY}")
    return {"scoring": Scoring("f1_best" if select_by == "f1" else "auc", threshold="f1"),
            "cv": "group"}


def _selection_path(alphas, prior=None, betas=None):
    """``(path, fit_params)`` of the selection: λ from ``alphas``; with ``prior`` (a source
    hypothesis' scores, :mod:`ppi.learning.transfer`) also β from ``betas`` (default
    :data:`ppi.names.BETAS`) and the prior for the transfer learner's ``fit``."""
    if prior is None:
        return {"alpha": alphas}, {}
    prior = np.asarray(prior, dtype=float)
    return ({"alpha": alphas, "beta": np.asarray(BETAS if betas is None else betas,
                                                  dtype=float)}, {"prior": prior})


def select_parameters(K, y, groups, alphas=ALPHAS, learner="rls", n_basis=N_BASIS, seed=0,
                      select_by="f1", prior=None, betas=None):
    """Choose (λ, threshold) on ``K`` (m × m kernel, or m sparse feature rows: see
    :func:`learner_input`) by pooled leave-one-group-out F (or AUC, ``select_by="auc"``; the
    threshold is always the best-F one at the chosen λ).  With ``prior`` (a source
    hypothesis' scores of the rows, :mod:`ppi.learning.transfer`) the learner fits f = β g + h and
    (λ, β) are chosen together, β from ``betas`` (default :data:`ppi.names.BETAS`).

    Returns
    -------
    selection : :class:`learners.selection.Selection` — ``selection.predict(K_new)``
        scores new pairs with the chosen λ (from the one fitted decomposition; with a prior,
        ``selection.predict(K_new, prior=g_new)``); ``selection.model`` is the fitted learner
    choice : dict with ``alpha`` (and ``beta``), ``threshold``, ``f1`` (inner LOO-document
        F), ``precision``, ``recall`` and ``grid`` (the same for every candidate)
    """
    y = np.asarray(y, dtype=float)
    path, fit_params = _selection_path(alphas, prior, betas)
    sel = select(ppi_learner(learner, n_basis, seed, len(y), kernel_kind(K),
                             bool(fit_params)),
                 K, y, structure=RowStructure(groups=groups), search=path,
                 channels=Channels(fit=fit_params), **selection_options(select_by))
    return sel, _choice(sel)


def expansion(model, X, alpha):
    """``(rows, coefficients)`` of a fitted PPI learner at ``alpha``: its basis rows (reduced
    set) or all training rows ``X``, and their dual coefficients (a column per target
    column; a transfer learner's two: the fits to y and to the prior) — the linear model is
    ``w = rowsᵀ coefficients``.  The learner is fitted once; the chosen λ's coefficients
    come from its path."""
    coef = np.asarray(model.regularization_path([alpha]))[0]
    basis = getattr(model, "basis_indices_", None)
    return (X if basis is None else X[basis]), coef


def _release(sel):
    """Drop the fitted model's O(m r) hold-out rows once its selection is done (a reduced-set
    model keeps predicting; :meth:`learners.reduced_set.ReducedSetRLS.release_training_rows`)."""
    if hasattr(sel.model, "release_training_rows"):
        sel.model.release_training_rows()


def _choice(sel):
    keys = ("alpha", "f1", "threshold", "precision", "recall")
    if "beta" in sel.candidates[0]:
        keys = ("alpha", "beta") + keys[1:]
    grid = [{**{k: g[k] for k in keys}, "score": g["score"]} for g in sel.grid()]
    choice = dict(grid[sel.best_index])
    choice["grid"] = grid
    return choice


def cooccurrence(y):
    """The all-true baseline on labels ``y``: P = fraction positive, R = 1."""
    p = float(np.mean(np.asarray(y) > 0))
    return {"precision": p, "recall": 1.0, "f1": 2 * p / (p + 1) if p else 0.0, "auc": 0.5}


def test_distribution_f1(y, scores, positive_fraction=None):
    """F when the top ``round(fraction · m)`` scores are called positive (Paper V Table 5:
    the fraction of positives of the test corpus)."""
    y = np.asarray(y)
    s = np.asarray(scores, dtype=float)
    frac = np.mean(y > 0) if positive_fraction is None else positive_fraction
    k = int(round(frac * len(s)))
    order = np.sort(s)[::-1]
    if k <= 0:
        threshold = order[0] + 1.0
    elif k >= len(s):
        threshold = -np.inf
    else:
        threshold = order[k] / 2 + order[k - 1] / 2
    prf = precision_recall_f1(y, s, threshold if np.isfinite(threshold) else -np.inf)
    return {"threshold": float(threshold), "f1": prf.f1, "precision": prf.precision,
            "recall": prf.recall}


def cross_validate(data, K, *, n_folds=10, alphas=ALPHAS, learner="rls", n_basis=N_BASIS,
                   seed=0, leaky=False, jobs=1, select_by="f1", prior=None, betas=None,
                   progress=True):
    """10-fold document-level CV with nested leave-one-document-out selection (Table 1).

    Parameters
    ----------
    data : ppi.representation.features.PairSet
    K : ndarray (m, m)            kernel matrix of ``data``, or its sparse feature rows
                                  (:func:`learner_input`)
    leaky : bool                  LEAKY pair-level random folds (thesis §5.5), labelled so
    select_by : {"f1", "auc"}     the inner criterion of λ (:func:`select_parameters`)
    prior : ndarray (m,), optional
        A source hypothesis' scores of the pairs (:func:`ppi.learning.transfer.mean_prior`, from
        models trained without any of them): each fold then fits f = β g + h and chooses (λ, β)
        together, β from ``betas`` (default :data:`ppi.names.BETAS`)
    progress : bool               a progress bar over the outer folds

    Returns
    -------
    dict — fold means and σ (population, over folds) of precision, recall, f1, auc; the
    co-occurrence baseline; per-fold values, chosen λ and thresholds; the fold of every
    pair; out-of-fold scores.
    """
    y = data.y
    groups = np.arange(len(y)) if leaky else data.document_ids
    fold = group_folds(groups, n_folds, seed, y=None if leaky else y)
    sets = folds_to_sets(fold)
    t0 = time.perf_counter()
    selection = selection_options(select_by)
    path, fit_params = _selection_path(alphas, prior, betas)
    channels = Channels(fit=fit_params, predict=fit_params) if fit_params else None
    nested = nested_cross_validate(
        lambda m: ppi_learner(learner, n_basis, seed, m, kernel_kind(K), bool(fit_params)),
        K, y, sets, structure=RowStructure(groups=data.document_ids), search=path, jobs=jobs,
        progress=progress, desc=f"cv {data.corpus}", inner_cv=selection["cv"],
        scoring=selection["scoring"], channels=channels)
    res = summarize_folds(data, nested, fold, n_folds, leaky, learner, select_by)
    res["seconds"] = time.perf_counter() - t0
    return res


def summarize_folds(data, nested, fold, n_folds=10, leaky=False, learner="rls",
                    select_by="f1"):
    """The result dictionary of :func:`cross_validate` from the outer folds' predictions.

    Parameters
    ----------
    data : ppi.representation.features.PairSet
    nested : dict
        ``{"scores": (m,) out-of-fold scores, "folds": [per outer fold: "test" rows,
        "scores", "threshold", "best_params", "grid", "seconds"]}`` as
        :func:`learners.selection.nested_cross_validate` returns it.
    fold : ndarray (m,)
        The outer fold of every pair.
    n_folds, leaky, learner, select_by
        Recorded in the result.

    Returns
    -------
    dict
        As :func:`cross_validate` (without ``seconds``).
    """
    y = data.y
    sets = folds_to_sets(fold)
    scores = nested["scores"]
    shifted = np.empty(len(y))        # scores − the fold's threshold: positive ⇔ predicted
    for f in nested["folds"]:
        shifted[f["test"]] = f["scores"] - f["threshold"]

    def m_p(yy, p):
        return precision_recall_f1(yy, p, 0.0).precision

    def m_r(yy, p):
        return precision_recall_f1(yy, p, 0.0).recall

    def m_f(yy, p):
        return precision_recall_f1(yy, p, 0.0).f1

    res = {"corpus": data.corpus, "protocol": "LEAKY pair-level random CV" if leaky else
           "document-level CV, nested leave-one-document-out selection of lambda and threshold",
           "n_folds": n_folds, "n_pairs": len(y), "n_positive": int(np.sum(y > 0)),
           "n_documents": int(len(np.unique(data.document_ids.astype(str)))),
           "learner": learner, "select_by": select_by}
    for name, fn in (("precision", m_p), ("recall", m_r), ("f1", m_f)):
        a = averaged(fn, y, shifted, sets, on_undefined="skip")
        res[name], res[f"{name}_std"], res[f"{name}_per_fold"] = a.mean, a.std, a.per_fold
    a = averaged(auc, y, scores, sets, on_undefined="skip")
    res["auc"], res["auc_std"], res["auc_per_fold"] = a.mean, a.std, a.per_fold
    base = [cooccurrence(y[t]) for t in sets]
    res["cooccurrence"] = {k: float(np.mean([b[k] for b in base])) for k in base[0]}
    res["folds"] = []
    for k, (t, f) in enumerate(zip(sets, nested["folds"])):
        best = f["best_params"]
        inner = next(g for g in f["grid"] if all(g[p] == v for p, v in best.items()))
        res["folds"].append({
            "fold": k, "n_pairs": int(len(t)), "n_positive": int(np.sum(y[t] > 0)),
            "documents": sorted(set(data.document_ids[t].astype(str))),
            **best, "threshold": f["threshold"],
            "inner_f1": inner["f1"], "seconds": f["seconds"]})
    res["scores"] = scores
    res["fold_of_pair"] = fold
    return res


def cross_corpus(datasets, kernel_fn, *, alphas=ALPHAS, learner="rls", n_basis=N_BASIS,
                 seed=0, jobs=1, select_by="f1", train_sets=None, trains=None, tests=None,
                 keep_scores=False, progress=True):
    """Train on each corpus (λ, threshold by leave-one-document-out on it), test on the others.

    Parameters
    ----------
    datasets : dict name → PairSet (featurized with one shared vocabulary)
    kernel_fn : callable (name_a, name_b) → the input of the learner trained on ``name_b``
        for the pairs of ``name_a``: the kernel matrix between the two corpora's pairs, or
        ``name_a``'s feature rows when ``name_b``'s learner takes feature rows
        (:func:`learner_input`) — against ``train_sets[name_b]``
    train_sets : dict name → PairSet, optional
        What each model trains on (default ``datasets``; :func:`ppi.learning.transfer.leak_guarded`
        drops the sentences shared with another corpus)
    trains, tests : sequences of names, optional
        The corpora to train on and to test on (default all)
    keep_scores : bool
        Keep every model's scores of every test corpus (``scores``: {train: {test: array}};
        the source models of :mod:`ppi.learning.transfer`)
    progress : bool
        A progress bar over the training corpora

    Returns
    -------
    dict with ``auc``, ``f1_train_threshold``, ``f1_oracle``, ``f1_test_distribution``
    (each {train: {test: value}}), the selected parameters and training size per training
    corpus (``selection``) and, with ``keep_scores``, ``scores``.
    """
    from kernelrank.parallel import map_tasks

    train_sets = datasets if train_sets is None else train_sets
    names = list(datasets)
    trains = names if trains is None else list(trains)
    tests = names if tests is None else list(tests)

    def task(tr):
        d = train_sets[tr]
        sel, choice = select_parameters(kernel_fn(tr, tr), d.y, d.document_ids, alphas,
                                        learner, n_basis, seed, select_by)
        _release(sel)               # the own kernel is gone before the test kernels come
        out = {"choice": choice, "n_train": len(d), "tests": {}}
        for te in tests:
            if te == tr:
                continue
            s = np.asarray(sel.predict(kernel_fn(te, tr)), dtype=float)
            yt = datasets[te].y
            out["tests"][te] = {
                "auc": auc(yt, s),
                "f1_train_threshold": precision_recall_f1(yt, s, choice["threshold"]).f1,
                "f1_oracle": best_f_threshold(yt, s).f1,
                "f1_test_distribution": test_distribution_f1(yt, s)["f1"]}
            if keep_scores:
                out["tests"][te]["scores"] = s
        return out

    results = map_tasks(task, trains, jobs=jobs, desc="cross-corpus", progress=progress)
    measures = ("auc", "f1_train_threshold", "f1_oracle", "f1_test_distribution")
    res = {k: {} for k in measures + (("scores",) if keep_scores else ())}
    res["selection"] = {}
    for tr, r in zip(trains, results):
        for k in res:
            if k != "selection":
                res[k][tr] = {te: v[k] for te, v in r["tests"].items()}
        c = r["choice"]
        res["selection"][tr] = {"alpha": c["alpha"], "threshold": c["threshold"],
                                "inner_f1": c["f1"], "n_train": r["n_train"]}
    return res


def learning_curve(data, K, *, n_folds=10, n_points=8, min_pairs=50, alphas=ALPHAS,
                   learner="rls", n_basis=N_BASIS, seed=0, select_by="f1", progress=True):
    """AUC on half of the document folds against the number of training pairs taken from
    the other half (documents added in a seeded random order; λ and threshold by
    leave-one-document-out on each training subset; ``progress``: a bar over the sizes)."""
    fold = group_folds(data.document_ids, n_folds, seed, y=data.y)
    test = np.flatnonzero(fold < n_folds // 2)
    pool = np.flatnonzero(fold >= n_folds // 2)
    docs = np.unique(data.document_ids[pool].astype(str))
    rng = np.random.default_rng(seed)
    docs = docs[rng.permutation(len(docs))]
    doc_of = data.document_ids.astype(str)
    pos_in_order = {d: i for i, d in enumerate(docs)}
    rank = np.array([pos_in_order[d] for d in doc_of[pool]])
    order = np.argsort(rank, kind="stable")
    pool, rank = pool[order], rank[order]
    # cumulative pairs at document boundaries
    sizes = np.unique(np.geomspace(min(min_pairs, len(pool)), len(pool), n_points).astype(int))
    points = []
    for target in tqdm(sizes, desc=f"learning curve {data.corpus}", leave=False,
                       disable=not progress):
        # smallest whole-document prefix with ≥ target pairs
        cut_rank = rank[min(target, len(pool)) - 1]
        train = pool[rank <= cut_rank]
        if points and points[-1]["n_train"] == len(train):
            continue                          # same whole-document prefix as before
        yt = data.y[train]
        if len(np.unique(yt)) < 2 or len(np.unique(doc_of[train])) < 2:
            continue
        try:
            sel, choice = select_parameters(_block(K, train, train), yt,
                                            data.document_ids[train], alphas, learner,
                                            n_basis, seed, select_by)
        except UndefinedMeasureError:
            continue
        s = sel.predict(_block(K, test, train))
        points.append({"n_train": int(len(train)),
                       "n_documents": int(len(np.unique(doc_of[train]))),
                       "auc": auc(data.y[test], s), "alpha": choice["alpha"]})
    return {"corpus": data.corpus, "n_test": int(len(test)), "points": points}
