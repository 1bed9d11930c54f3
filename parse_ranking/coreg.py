"""Sparse co-regularized RankRLS as a parse ranker (semi-supervised, two views).

Paper VI / thesis ../shared/papers/003 §2.3.3 (Tsivtsivadze et al. 2008, "Learning
preferences with co-regularized least squares"): one RankRLS predictor per *view* of a
parse, trained on the scored (labelled) parses and made to agree on unscored (unlabelled)
parses; the ranker scores a parse by the average of the view predictors. The learner is
:class:`learners.coreg.CoRankRLS` (closed form, sparse basis); this module only builds the
views, the unlabelled set and the hyper-parameter search.

* **Views**: representations of :mod:`parse_ranking.representations` with the linear
  kernel on their explicit unit-norm sparse features (default ``links_words`` and
  ``locality``: the lexical and the sequential view of the same linkage). Each view's
  vocabulary is fitted on the *labelled* training parses only; unlabelled and test parses
  are mapped into it (:meth:`ParseRepresentation.transform`).
* **Unlabelled data** (never the test fold; their F-scores are never read), as built by
  :func:`parse_ranking.evaluation.cross_validate`:

  - ``extra parses``: the linkages of the *training* sentences beyond the first
    ``max_parses`` (LG ranks ``max_parses+1 …`` in the data set), which no supervised
    ranker sees;
  - with ``labelled_fraction < 1``: every parse of the training sentences whose scores
    are hidden from all rankers (the supervised ones simply do not see these sentences).

  Disagreement is measured on score differences inside each unlabelled sentence
  (``qids_unlabelled``), which ignores per-sentence offsets irrelevant for ranking.
* **Sparse variant**: ``n_basis`` basis parses drawn at random (``seed``) from labelled +
  unlabelled training parses, the same for both views; cost O(M³r³ + M²r²(n + m)) per fit
  (:mod:`learners.coreg`).
* **Hyper-parameters** (one α for all views, and μ ≥ 0; μ = 0 in the grid lets the search
  fall back to independent per-view RankRLS averaged): chosen by the selection engine
  (:func:`learners.selection.select`) by inner *article-level* K-fold on the labelled
  training sentences (sentence-level when there are fewer articles than inner folds): one
  :class:`CoRankRLS` fit per inner fold, whose ``predict_path`` gives the whole (α, μ) grid,
  minimising the query-averaged disagreement error (Paper I eq. 1) like the other rankers
  of :mod:`parse_ranking.ranking`; ties go to the larger α, then the larger μ. The
  unlabelled set is the same in every inner fit. The winner is refitted on all labelled
  training sentences. Cost: ``inner_folds + 1`` fits plus one O(M³ r³) solve per grid point
  and inner fold.
"""

import numpy as np

from kernelrank.errors import InvalidInputError, InvalidParameterError
from kernelrank.cli import parse_grid
from learners.splits import folds_to_sets, group_folds
from parse_ranking.names import COREG_ALPHAS_TEXT, COREG_MUS_TEXT, COREG_N_BASIS, COREG_VIEWS

__all__ = ["DEFAULT_VIEWS", "DEFAULT_MUS", "DEFAULT_CO_ALPHAS", "DEFAULT_N_BASIS",
           "fit_corankrls", "inner_folds"]

DEFAULT_VIEWS = COREG_VIEWS
DEFAULT_MUS = parse_grid(COREG_MUS_TEXT, allow_zero=True)
DEFAULT_CO_ALPHAS = parse_grid(COREG_ALPHAS_TEXT)
DEFAULT_N_BASIS = COREG_N_BASIS


def inner_folds(qids, articles, n_folds, seed):
    """Inner fold id per labelled row: by article when there are ≥ ``n_folds`` articles,
    else by sentence (rows of one sentence always share a fold)."""
    groups = articles if np.unique(articles).size >= n_folds else qids
    if np.unique(groups).size < n_folds:
        raise InvalidInputError(f"corankrls: {np.unique(groups).size} labelled sentences, "
                                f"fewer than the {n_folds} inner folds")
    return group_folds(groups, n_folds, seed)


def fit_corankrls(X_views, y, qids, articles, U_views=None, qids_unlabelled=None, *,
                  alphas=DEFAULT_CO_ALPHAS, mus=DEFAULT_MUS, n_basis=DEFAULT_N_BASIS,
                  n_inner=3, seed=0):
    """Fit the co-regularized parse ranker with (α, μ) chosen by inner article-level CV.

    Parameters
    ----------
    X_views : list of M sparse matrices (m, d_v)
        Labelled training parses in every view.
    y, qids, articles : arrays (m,)
        Gold F, sentence id and article id of every labelled row.
    U_views : list of M sparse matrices (n, d_v), optional
        Unlabelled parses (same views); ``qids_unlabelled`` their sentence ids.
    alphas, mus : sequences
        Grid of the regulariser α (shared by the views) and co-regularisation weight μ.
    n_basis : int or None
        Basis size r of the sparse variant (None: all m + n rows, the exact solution).

    Returns
    -------
    model : fitted :class:`learners.coreg.CoRankRLS`; ``model.predict(views)`` scores rows.
    info : dict with the chosen ``alpha``, ``mu``, the inner error grid, sizes.
    """
    from learners.coreg import CoRankRLS
    from learners.selection import Channels, Search, select
    from learners.splits import RowStructure

    y = np.asarray(y, dtype=float)
    qids = np.asarray(qids)
    articles = np.asarray(articles)
    alphas = [float(a) for a in alphas]
    mus = [float(m) for m in mus]
    if not alphas or not mus or min(alphas) <= 0 or min(mus) < 0:
        raise InvalidParameterError("corankrls: alphas must be positive and mus ≥ 0 "
                                    f"(got {alphas}, {mus})")
    if len(X_views) < 2:
        raise InvalidParameterError("corankrls needs at least two views")
    unl = U_views is not None and U_views[0].shape[0] > 0
    sets = folds_to_sets(inner_folds(qids, articles, n_inner, seed))
    sel = select(CoRankRLS(n_basis=n_basis, random_state=seed), list(X_views), y, cv=sets,
                 search=Search(path={"alpha": alphas, "mu": mus}, refit=True),
                 scoring="disagreement", structure=RowStructure(qids=qids),
                 channels=Channels(fit={"qids": qids}, fixed_fit={
                     "X_unlabelled": U_views if unl else None,
                     "qids_unlabelled": qids_unlabelled if unl else None}))
    model = sel.model
    info = {"alpha": sel.best_params["alpha"], "mu": sel.best_params["mu"],
            "n_basis": int(len(model.basis_indices_)), "n_labelled": int(y.size),
            "n_unlabelled": int(U_views[0].shape[0]) if unl else 0, "inner_folds": n_inner,
            "inner_disagreement": sel.scores.reshape(len(alphas), len(mus)).tolist()}
    return model, info
