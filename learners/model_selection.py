"""Model selection by exact fast cross-validation: RLSCV, GlobalRankRLSCV, QueryRankRLSCV.

For every kernel-parameter setting of ``param_grid`` the base learner is fitted ONCE; the
cross-validated predictions for every λ of ``alphas`` then come from its cached
decomposition (thesis Ch. 5; :mod:`learners.holdout`), they are scored with any measure, the
best (λ, kernel parameters) is chosen and the final model refitted on all data.

``cv``: ``"loo"`` leave-one-out; an int k (seeded shuffled k-fold, ``random_state``);
``"group"`` leave-one-group-out with ``groups=`` passed to ``fit``; ``"lpo"`` leave-pair-out
(pairs with different labels; scored by the leave-pair-out error, 1 - the fraction of
correctly ordered held-out pairs, ties 1/2); or an explicit list of index arrays (possibly
overlapping). QueryRankRLSCV also
accepts ``"query"`` (leave-query-out, its default); its int k makes folds of whole queries.

``scoring``: ``None`` (MSE for RLS, ``1 - cindex`` for the rankers, lower is better), a name
(``"mse"``, ``"cindex"``, ``"disagreement"``, ``"auc"``) or a callable
``scoring(y_true, y_pred)`` — called as ``scoring(y_true, y_pred, qids)`` by QueryRankRLSCV
and by the others when ``fit`` gets ``qids=`` — with ``greater_is_better`` telling its
direction. ``average``: ``"pooled"`` scores all hold-out
predictions at once, ``"folds"`` averages per-set scores (thesis Sects. 5.3-5.4); leave-one-out
is always scored pooled.
"""

import itertools

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils.validation import check_is_fitted

from learners._validation import check_alphas, check_groups, check_positive_int, validate_data
from kernelrank.errors import InvalidInputError, InvalidParameterError, UndefinedMeasureError
from learners.rankrls import GlobalRankRLS, QueryRankRLS
from learners.rls import RLS

DEFAULT_ALPHAS = tuple(2.0 ** np.arange(-15, 16))


def _mse(y, p, qids=None):
    return float(np.mean((np.asarray(y) - np.asarray(p)) ** 2))


def _one_minus_cindex(y, p, qids=None):
    from learners.measures import cindex
    return 1.0 - (cindex(y, p, qids) if qids is not None else cindex(y, p))


def _named(name):
    from learners import measures
    table = {
        "mse": (_mse, False),
        "cindex": (lambda y, p, q=None: measures.cindex(y, p, q) if q is not None
                   else measures.cindex(y, p), True),
        "disagreement": (lambda y, p, q=None: measures.disagreement_error(y, p, q)
                         if q is not None else measures.disagreement_error(y, p), False),
        "auc": (lambda y, p, q=None: measures.auc(y, p), True),
    }
    if name not in table:
        raise InvalidParameterError(f"unknown scoring {name!r}; use one of {sorted(table)} "
                                    "or a callable")
    return table[name]


class _FastCVMixin:
    """Shared search loop; subclasses define the estimator and the CV schemes."""

    _default_scoring = staticmethod(_mse)

    def _scorer(self):
        if self.scoring is None:
            return self._default_scoring, False
        if isinstance(self.scoring, str):
            return _named(self.scoring)
        if not callable(self.scoring):
            raise InvalidParameterError(f"scoring must be None, a name or a callable, "
                                        f"got {self.scoring!r}")
        return self.scoring, bool(self.greater_is_better)

    def _grid(self):
        if self.param_grid is None:
            return [{}]
        if not isinstance(self.param_grid, dict):
            raise InvalidParameterError("param_grid must be a dict of parameter -> list")
        keys = sorted(self.param_grid)
        allowed = {"kernel", "gamma", "degree", "coef0", "kernel_params"}
        bad = [k for k in keys if k not in allowed]
        if bad:
            raise InvalidParameterError(f"param_grid keys {bad} are not kernel parameters "
                                        f"({sorted(allowed)}); λ goes in alphas")
        return [dict(zip(keys, vals)) for vals in itertools.product(*(self.param_grid[k]
                                                                      for k in keys))]

    def _base(self, params):
        kw = {k: getattr(self, k) for k in ("kernel", "gamma", "degree", "coef0",
                                             "kernel_params", "solver")}
        kw.update(params)
        return self._estimator_class(alpha=1.0, **kw)

    def _score_sets(self, scorer, y, preds_per_set, sets, qids):
        """Score hold-out predictions: pooled over all sets, or averaged per set."""
        def call(yy, pp, qq):
            if yy.ndim == 2:
                return float(np.mean([call(yy[:, j], pp[:, j], qq) for j in range(yy.shape[1])]))
            return scorer(yy, pp, qq) if qq is not None else scorer(yy, pp)
        if self.average == "pooled":
            ys = np.concatenate([y[H] for H in sets])
            ps = np.concatenate(preds_per_set)
            qs = None if qids is None else np.concatenate([qids[H] for H in sets])
            return call(ys, ps, qs)
        vals = []
        for H, p in zip(sets, preds_per_set):
            try:
                vals.append(call(y[H], p, None if qids is None else qids[H]))
            except UndefinedMeasureError:
                continue
        if not vals:
            raise UndefinedMeasureError("the measure is undefined on every hold-out set")
        return float(np.mean(vals))

    def _lpo_pairs(self, y):
        yy = y if y.ndim == 1 else y[:, 0]
        i, j = np.nonzero(np.subtract.outer(yy, yy) > 0)
        if i.size == 0:
            raise UndefinedMeasureError("leave-pair-out needs two different labels")
        return np.column_stack([i, j])

    def _search(self, X, y, groups=None, qids=None):
        if self.average not in ("pooled", "folds"):
            raise InvalidParameterError(f"average must be 'pooled' or 'folds', got "
                                        f"{self.average!r}")
        lams, _ = check_alphas(self.alphas, 1.0)
        scorer, greater = self._scorer()
        if isinstance(self.cv, str) and self.cv == "lpo" and self.scoring is not None:
            raise InvalidParameterError("cv='lpo' is scored by the leave-pair-out error "
                                        "(1 - fraction of correctly ordered pairs); "
                                        "leave scoring=None")
        grid = self._grid()
        scores = np.empty((len(grid), lams.size))
        preds_all = []
        m = X.shape[0]
        for g, params in enumerate(grid):
            est = self._fit_base(self._base(params), X, y, qids)
            if isinstance(self.cv, str) and self.cv == "lpo":
                pairs = self._lpo_pairs(y)
                P = est.leave_pair_out(pairs, alphas=lams)      # (n_l, n, 2[, t])
                d = P[:, :, 0] - P[:, :, 1]
                if d.ndim == 3:
                    d = d.mean(axis=2)
                scores[g] = 1.0 - np.mean((d > 0) + 0.5 * (d == 0), axis=1)
                preds_all.append(P)
                continue
            sets = self._sets(m, groups, qids)
            per = self._cv_predict(est, sets, lams)              # list over sets (n_l, |H|..)
            for k in range(lams.size):
                scores[g, k] = self._score_sets(scorer, y, [p[k] for p in per], sets, qids)
            preds_all.append(self._assemble(per, sets, lams, y))
        if isinstance(self.cv, str) and self.cv == "lpo":
            greater = False                          # leave-pair-out error, lower is better
        best = np.nanargmax(scores) if greater else np.nanargmin(scores)
        gi, ki = np.unravel_index(best, scores.shape)
        self.alpha_ = float(lams[ki])
        self.best_params_ = dict(grid[gi], alpha=self.alpha_)
        self.cv_scores_ = scores[0] if self.param_grid is None else scores
        self.cv_predictions_ = preds_all[gi]
        self.alphas_ = lams
        self.param_list_ = grid
        best_est = self._base(grid[gi]).set_params(alpha=self.alpha_)
        self.best_estimator_ = self._fit_base(best_est, X, y, qids)
        return self

    def _assemble(self, per, sets, lams, y):
        """Predictions (n_alphas, m[, t]) when the sets partition the rows, else the list."""
        flat = np.concatenate(sets)
        if flat.size == y.shape[0] and np.unique(flat).size == flat.size:
            out = np.empty((lams.size,) + y.shape)
            for H, p in zip(sets, per):
                out[:, H] = p
            return out
        return per

    def _cv_predict(self, est, sets, lams):
        if isinstance(self.cv, str) and self.cv == "loo":
            return [est.leave_one_out(alphas=lams)]        # one pooled "set" of all rows
        return est.holdout_sets(sets, alphas=lams)

    def _kfold(self, m, k):
        k = check_positive_int(k, "cv")
        if k < 2 or k > m:
            raise InvalidParameterError(f"cv={k} folds needs 2 <= cv <= n_samples={m}")
        perm = np.random.default_rng(self.random_state).permutation(m)
        return [np.sort(f) for f in np.array_split(perm, k)]

    def _sets(self, m, groups, qids):
        cv = self.cv
        if isinstance(cv, str):
            if cv == "loo":
                return [np.arange(m)]           # leave-one-out predictions, scored pooled
            if cv == "group":
                codes, _ = check_groups(groups, m, "groups")
                sets = [np.flatnonzero(codes == g) for g in range(codes.max() + 1)]
                if len(sets) < 2:
                    raise InvalidInputError("cv='group' needs at least 2 groups")
                return sets
            raise InvalidParameterError(f"unknown cv {cv!r}")
        if isinstance(cv, (int, np.integer)) and not isinstance(cv, bool):
            return self._kfold(m, cv)
        try:
            return [np.asarray(s) for s in cv]
        except TypeError as exc:
            raise InvalidParameterError(f"cv must be 'loo', 'group', 'lpo', an int or a list "
                                        f"of index arrays, got {cv!r}") from exc

    # -------------------------------------------------------------- estimator API
    def predict(self, X):
        check_is_fitted(self)
        return self.best_estimator_.predict(X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        tags.input_tags.sparse = True
        tags.target_tags.multi_output = True
        return tags


_COMMON_DOC = """
    Parameters
    ----------
    alphas : sequence of float, default 2^-15..2^15
    kernel, gamma, degree, coef0, kernel_params, solver : as in the base learner
    cv : "loo" | int | "group" | "lpo" | list of index arrays
    scoring : None | str | callable
    greater_is_better : bool, default True (only for a callable ``scoring``)
    param_grid : dict of kernel parameter -> list, optional
    average : {"pooled", "folds"}
    random_state : int, seed of the k-fold split

    Attributes
    ----------
    alpha_, best_params_, cv_scores_ ((n_alphas,) or (n_grid, n_alphas)),
    cv_predictions_ ((n_alphas, m[, t]) for partitions; list for overlapping sets;
    (n_alphas, n_pairs, 2[, t]) for "lpo"), best_estimator_
"""


class _UngroupedCVMixin(_FastCVMixin):
    """``fit(X, y, groups=None, qids=None)`` for learners whose own fit takes no groups."""

    def _fit_base(self, est, X, y, qids):
        return est.fit(X, y)

    def fit(self, X, y, groups=None, qids=None):
        """``groups``: rows of each hold-out group for ``cv="group"``; ``qids``: if given,
        the scorer is called as ``scoring(y_true, y_pred, qids)`` (per-query measures)."""
        X, y = validate_data(self, X, y)
        if qids is not None:
            codes, labels = check_groups(qids, X.shape[0], "qids")
            qids = labels[codes]
        return self._search(X, y, groups=groups, qids=qids)


class RLSCV(_UngroupedCVMixin, RegressorMixin, BaseEstimator):
    __doc__ = "RLS with λ (and kernel parameters) chosen by exact fast CV.\n" + _COMMON_DOC
    _estimator_class = RLS

    def __init__(self, alphas=DEFAULT_ALPHAS, *, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, solver="auto", cv="loo", scoring=None,
                 greater_is_better=True, param_grid=None, average="pooled", random_state=0):
        self.alphas = alphas
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.solver = solver
        self.cv = cv
        self.scoring = scoring
        self.greater_is_better = greater_is_better
        self.param_grid = param_grid
        self.average = average
        self.random_state = random_state


class GlobalRankRLSCV(_UngroupedCVMixin, BaseEstimator):
    __doc__ = "GlobalRankRLS with λ (and kernel parameters) chosen by exact fast CV.\n" \
        + _COMMON_DOC
    _estimator_class = GlobalRankRLS
    _default_scoring = staticmethod(_one_minus_cindex)

    def __init__(self, alphas=DEFAULT_ALPHAS, *, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, solver="auto", cv=10, scoring=None,
                 greater_is_better=True, param_grid=None, average="pooled", random_state=0):
        self.alphas = alphas
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.solver = solver
        self.cv = cv
        self.scoring = scoring
        self.greater_is_better = greater_is_better
        self.param_grid = param_grid
        self.average = average
        self.random_state = random_state

    def score(self, X, y):
        return self.best_estimator_.score(X, y)


class QueryRankRLSCV(_FastCVMixin, BaseEstimator):
    __doc__ = "QueryRankRLS with λ (and kernel parameters) chosen by exact fast CV; " \
        "``fit(X, y, qids)``; default cv='query' (leave-query-out, eq. 33).\n" + _COMMON_DOC
    _estimator_class = QueryRankRLS
    _default_scoring = staticmethod(_one_minus_cindex)

    def __init__(self, alphas=DEFAULT_ALPHAS, *, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, solver="auto", cv="query", scoring=None,
                 greater_is_better=True, param_grid=None, average="pooled", random_state=0):
        self.alphas = alphas
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.kernel_params = kernel_params
        self.solver = solver
        self.cv = cv
        self.scoring = scoring
        self.greater_is_better = greater_is_better
        self.param_grid = param_grid
        self.average = average
        self.random_state = random_state

    def _fit_base(self, est, X, y, qids):
        return est.fit(X, y, qids)

    def _sets(self, m, groups, qids):
        codes, _ = check_groups(qids, m, "qids")
        if isinstance(self.cv, str) and self.cv == "query":
            return [np.flatnonzero(codes == q) for q in range(codes.max() + 1)]
        if isinstance(self.cv, (int, np.integer)) and not isinstance(self.cv, bool):
            nq = codes.max() + 1
            k = check_positive_int(self.cv, "cv")
            if k < 2 or k > nq:
                raise InvalidParameterError(f"cv={k} query folds needs 2 <= cv <= {nq} queries")
            perm = np.random.default_rng(self.random_state).permutation(nq)
            return [np.flatnonzero(np.isin(codes, f)) for f in np.array_split(perm, k)]
        return super()._sets(m, groups, qids)

    def _cv_predict(self, est, sets, lams):
        if isinstance(self.cv, str) and self.cv == "query":
            lqo = est.leave_query_out(alphas=lams)
            return [lqo[:, H] for H in sets]
        return super()._cv_predict(est, sets, lams)

    def fit(self, X, y, qids=None, groups=None):
        X, y = validate_data(self, X, y)
        codes, labels = check_groups(qids, X.shape[0], "qids")
        return self._search(X, y, groups=groups, qids=labels[codes])

    def score(self, X, y, qids=None):
        return self.best_estimator_.score(X, y, qids)
