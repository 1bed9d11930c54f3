"""View weights chosen inside the training folds only.

The multiview kernel is ``k = Σ_v w_v k̂_v`` (:mod:`ppi.representation.views`).  Instead of fixed equal
weights, :func:`cross_validate_view_weights` chooses ``w`` from a small grid *per outer
fold*, by the same inner criterion that chooses λ: for every weight vector of the grid the
nested leave-one-document-out selection of :func:`ppi.learning.evaluation.cross_validate` runs on the
training part (λ by inner AUC or F, threshold by best inner F), and the weight vector whose
chosen λ has the best inner score wins that fold (ties: the earlier vector of the grid, so put
the equal weights first).  The test fold is only predicted, never looked at.

The kernel of a weight vector is the linear kernel of the featurizer's rows with each view's
columns rescaled (:func:`reweight_rows`): one m × m matrix at a time, the memory of the
equal-weight CV; the cost is one Gram matrix and one nested CV per weight vector.

Groups (:func:`group_weights`): the grid is given over groups of views — by default the
kind (``apg``, ``bow``, ``path``), each group's weight split equally among its views.
"""

from __future__ import annotations

import time

import numpy as np

from kernelrank.errors import InvalidParameterError

__all__ = ["DEFAULT_GROUP_GRID", "group_weights", "reweight_rows",
           "cross_validate_view_weights"]

#: Weights of the (apg, bow, path) groups tried per fold; the first is the equal-weight
#: five-view system (2/5, 1/5, 2/5).
DEFAULT_GROUP_GRID = ((0.4, 0.2, 0.4), (0.6, 0.2, 0.2), (0.2, 0.2, 0.6), (0.5, 0.0, 0.5),
                      (0.3, 0.4, 0.3), (0.25, 0.15, 0.6))


def group_weights(views, group_grid=DEFAULT_GROUP_GRID, groups=("apg", "bow", "path")):
    """Per-view weight vectors from weights of groups of views.

    Parameters
    ----------
    views : sequence of str
        View names (:func:`ppi.representation.views.parse_view`).
    group_grid : sequence of sequence of float
        One non-negative weight per group, per grid point (normalized to sum 1).
    groups : sequence of str
        View kinds, one per group; every view's kind must be one of them.

    Returns
    -------
    ndarray (n_grid, n_views)
        Rows sum to 1; a group's weight is split equally among its views.

    Raises
    ------
    kernelrank.errors.InvalidParameterError
        On a view of no group, a group without views that has weight, or a bad grid.
    """
    from ppi.representation.views import parse_view

    kinds = [parse_view(v)[0] for v in views]
    groups = tuple(groups)
    for v, k in zip(views, kinds):
        if k not in groups:
            raise InvalidParameterError(f"view {v!r} is in none of the groups {groups}")
    grid = np.asarray(group_grid, dtype=float)
    if grid.ndim != 2 or grid.shape[1] != len(groups) or len(grid) == 0 or \
            not np.isfinite(grid).all() or (grid < 0).any() or (grid.sum(axis=1) <= 0).any():
        raise InvalidParameterError(f"group_grid: rows of {len(groups)} non-negative weights "
                                    "(one per group), not all zero")
    size = np.array([kinds.count(g) for g in groups])
    if (grid[:, size == 0] > 0).any():
        raise InvalidParameterError(f"group_grid gives weight to a group of no view "
                                    f"({[g for g, n in zip(groups, size) if n == 0]})")
    grid = grid / grid.sum(axis=1, keepdims=True)
    idx = [groups.index(k) for k in kinds]
    return grid[:, idx] / size[idx]


def reweight_rows(X, view_slices, views, weights, current=None):
    """The rows of a :class:`ppi.representation.views.MultiViewFeaturizer` as if fitted with ``weights``.

    Each view's block of ``X`` is ``√c_v Φ̂_v`` (``c``: the featurizer's weights,
    ``current``; None: equal); the result has ``√w_v Φ̂_v``, so its linear kernel is
    ``Σ_v w_v k̂_v``.

    Parameters
    ----------
    X : scipy.sparse matrix (m, d)
    view_slices : dict view → slice of its columns (``featurizer.view_slices_``)
    views : sequence of str
    weights : sequence of float
        Non-negative, summing to 1 (as :func:`group_weights` gives).
    current : sequence of float or None

    Returns
    -------
    scipy.sparse.csr_matrix
    """
    import scipy.sparse as sp

    w = np.asarray(weights, dtype=float)
    c = np.full(len(views), 1 / len(views)) if current is None else \
        np.asarray(current, dtype=float)
    if w.shape != (len(views),) or c.shape != w.shape or (w < 0).any() or (c <= 0).any():
        raise InvalidParameterError("weights and current: one non-negative weight per view "
                                    "(current ones positive)")
    scale = np.ones(X.shape[1])
    for v, wv, cv in zip(views, w, c):
        scale[view_slices[v]] = np.sqrt(wv / cv)
    Y = sp.csr_matrix(X, copy=True)
    Y.data *= scale[Y.indices]
    Y.eliminate_zeros()
    return Y


def cross_validate_view_weights(data, view_slices, views, weight_grid, *, n_folds=10,
                                alphas=None, learner="reduced_set", n_basis=None, seed=0,
                                select_by="auc", current=None):
    """Document-level CV with the view weights chosen per outer fold (module docstring).

    Parameters
    ----------
    data : ppi.representation.features.PairSet
        Rows of a :class:`ppi.representation.views.MultiViewFeaturizer` over ``views``.
    view_slices : dict
        ``featurizer.view_slices_``.
    views : sequence of str
    weight_grid : array-like (n_grid, n_views)
        Candidate weight vectors (rows summing to 1; :func:`group_weights`).
    n_folds, alphas, learner, n_basis, seed, select_by
        As :func:`ppi.learning.evaluation.cross_validate` (``alphas``/``n_basis`` None: its
        defaults).
    current : sequence of float or None
        The featurizer's weights (None: equal).

    Returns
    -------
    dict
        As :func:`ppi.learning.evaluation.cross_validate`, plus ``weight_grid``,
        ``fold_weights`` (the chosen vector per fold), ``fold_weight_index``,
        ``inner_scores`` (n_grid × n_folds: the inner score at the chosen λ) and
        ``per_weight`` (the CV result of every fixed weight vector: f1, auc, precision,
        recall — for comparison, not for choosing).
    """
    from learners.kernels import gram_matrix
    from learners.selection import nested_cross_validate
    from learners.splits import RowStructure, folds_to_sets, group_folds
    from ppi.learning.evaluation import (ALPHAS, N_BASIS, kernel_kind, ppi_learner, selection_options,
                                summarize_folds)

    alphas = ALPHAS if alphas is None else alphas
    n_basis = N_BASIS if n_basis is None else n_basis
    grid = np.asarray(weight_grid, dtype=float)
    if grid.ndim != 2 or grid.shape[1] != len(views) or len(grid) == 0:
        raise InvalidParameterError(f"weight_grid: rows of {len(views)} weights (one per "
                                    "view)")
    t0 = time.perf_counter()
    y = data.y
    fold = group_folds(data.document_ids, n_folds, seed, y=y)
    sets = folds_to_sets(fold)
    selection = selection_options(select_by)
    runs, per_weight = [], []
    for w in grid:
        K = gram_matrix(reweight_rows(data.X, view_slices, views, w, current))
        kind = kernel_kind(K)
        nested = nested_cross_validate(
            lambda m: ppi_learner(learner, n_basis, seed, m, kind), K, y, sets,
            structure=RowStructure(groups=data.document_ids), search={"alpha": alphas},
            progress=False, inner_cv=selection["cv"], scoring=selection["scoring"])
        del K
        runs.append(nested)
        r = summarize_folds(data, nested, fold, n_folds, False, learner, select_by)
        per_weight.append({k: r[k] for k in ("precision", "recall", "f1", "auc")})
    inner = np.array([[f["best_score"] for f in n["folds"]] for n in runs])
    best = np.argmax(inner, axis=0)            # first maximum: the earlier grid point
    folds = [runs[b]["folds"][k] for k, b in enumerate(best)]
    scores = np.full(len(y), np.nan)
    for f in folds:
        scores[f["test"]] = f["scores"]
    res = summarize_folds(data, {"scores": scores, "folds": folds}, fold, n_folds, False,
                          learner, select_by)
    res.update(weight_grid=grid.tolist(), fold_weight_index=best.tolist(),
               fold_weights=grid[best].tolist(), inner_scores=inner.tolist(),
               per_weight=per_weight, views=list(views),
               seconds=time.perf_counter() - t0)
    return res
