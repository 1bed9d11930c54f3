"""λ (and kernel parameters) chosen by exact fast CV: RLSCV, GlobalRankRLSCV, QueryRankRLSCV.

**The scikit-learn-style door to model selection** (as ``RidgeCV`` is scikit-learn's): a
user fits one of these estimators and reads ``alpha_``, ``best_params_``, ``cv_scores_``.
They are thin meta-estimators over the selection engine :func:`learners.selection.select`
(the one selection loop of the project, beneath every package's protocol; its module
docstring states the tie rule and how hold-out predictions are obtained): for every
kernel-parameter setting of ``param_grid`` the base learner is fitted ONCE, the hold-out
predictions of every λ of ``alphas`` come from its cached decomposition (thesis Ch. 5), they
are scored, the best (λ, kernel parameters) is chosen and the final model refitted on all
data.

``cv``: ``"loo"`` leave-one-out; an int k (k seeded folds, ``random_state``; of whole queries
for QueryRankRLSCV); ``"group"`` leave-one-group-out with ``groups=`` passed to ``fit``;
``"lpo"`` leave-pair-out (pairs with different labels, scored by the leave-pair-out error
1 − fraction of correctly ordered held-out pairs, ties 1/2); or an explicit list of index
arrays (possibly overlapping); :func:`learners.splits.check_cv` turns each into a splitter
of :mod:`learners.splits`. QueryRankRLSCV also accepts ``"query"`` (leave-query-out,
eq. 33; its default).

``scoring``: ``None`` (``"mse"`` for RLSCV, ``"cindex"`` for the rankers), a measure name of
:func:`learners.measures.get_scorer` or a callable ``scoring(y_true, y_pred)`` — called as
``scoring(y_true, y_pred, qids)`` when ``fit`` gets ``qids=`` — with ``greater_is_better``
giving its direction. ``average``: ``"pooled"`` scores all hold-out predictions at once,
``"folds"`` averages per-set scores (thesis §5.3-5.4); leave-one-out is always pooled.
"""

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import check_alphas, check_groups, validate_data
from learners.base import KERNEL_CONSTRAINTS, SEED, RankerMixin, validate_hyperparameters
from learners.kernel_learner import KernelTagsMixin
from learners.measures.scorers import SCORERS
from learners.rankrls import GlobalRankRLS, QueryRankRLS
from learners.rls import RLS
from learners.selection import Channels, Scoring, Search, select
from learners.splits import RowStructure, check_cv

DEFAULT_ALPHAS = tuple(2.0 ** np.arange(-15, 16))
_KERNEL_KEYS = ("kernel", "gamma", "degree", "coef0", "kernel_params")


class _PathSearchCV(KernelTagsMixin, BaseEstimator):
    """Shared fit and attributes; subclasses name the base learner and the defaults."""

    _estimator_class = RLS
    _default_scoring = "mse"
    _parameter_constraints = {
        "alphas": ["array-like"],
        **KERNEL_CONSTRAINTS,
        "solver": [StrOptions({"auto", "dual", "primal"})],
        "cv": [Interval(Integral, 2, None, closed="left"),
               StrOptions({"loo", "lpo", "group"}), list, tuple],
        "scoring": [None, StrOptions(set(SCORERS)), callable],
        "greater_is_better": ["boolean"],
        "param_grid": [dict, None],
        "average": [StrOptions({"pooled", "folds"})],
        "random_state": SEED,
    }

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

    def _grid(self):
        if self.param_grid is None:
            return None
        bad = sorted(k for k in self.param_grid if k not in _KERNEL_KEYS)
        if bad:
            raise InvalidParameterError(f"param_grid keys {bad} are not kernel parameters "
                                        f"({list(_KERNEL_KEYS)}); λ goes in alphas")
        return self.param_grid

    def _search(self, X, y, *, qids=None, groups=None, fit_params=None):
        lams, _ = check_alphas(self.alphas, 1.0)
        lpo = isinstance(self.cv, str) and self.cv == "lpo"
        if lpo and self.scoring is not None:
            raise InvalidParameterError("cv='lpo' is scored by the leave-pair-out error "
                                        "(1 - fraction of correctly ordered pairs); leave "
                                        "scoring=None")
        base = self._estimator_class(**{k: getattr(self, k) for k in _KERNEL_KEYS + ("solver",)})
        scoring = self._default_scoring if self.scoring is None else self.scoring
        structure = RowStructure(qids=qids, groups=groups)
        scoring = None if lpo else Scoring(
            scoring, greater_is_better=None if isinstance(scoring, str) else
            self.greater_is_better, average="pooled" if self.cv == "loo" else self.average)
        sel = select(base, X, y, cv=check_cv(self._cv(qids), structure, seed=self.random_state),
                     search=Search(path={"alpha": lams}, grid=self._grid(), refit=True),
                     scoring=scoring, structure=structure, channels=Channels(fit=fit_params))
        self.alpha_ = float(sel.best_params["alpha"])
        self.best_params_ = sel.best_params
        self.alphas_ = lams
        self.param_list_ = [{k: v for k, v in c.items() if k != "alpha"}
                            for c in sel.candidates[::lams.size]]
        scores = sel.scores.reshape(len(self.param_list_), lams.size)
        self.cv_scores_ = scores[0] if self.param_grid is None else scores
        g = sel.best_index // lams.size
        block = slice(g * lams.size, (g + 1) * lams.size)
        if lpo:
            self.cv_predictions_ = sel.holdout.parts[0].predictions[block]
        else:
            P = sel.holdout.in_row_order(X.shape[0])
            self.cv_predictions_ = P[block] if P is not None else \
                [part.predictions[block] for part in sel.holdout.parts]
        self.best_estimator_ = sel.model
        return self

    def _cv(self, qids):
        return self.cv

    @numerical_guard("predict")
    def predict(self, X):
        check_is_fitted(self)
        return self.best_estimator_.predict(X)


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


class _UngroupedFit:
    """``fit(X, y, groups=None, qids=None)`` for learners whose own fit takes no groups."""

    @numerical_guard("fit")
    def fit(self, X, y, groups=None, qids=None):
        """``groups``: rows of each hold-out group for ``cv="group"`` (and the groups of a
        k-fold split); ``qids``: if given, the scorer is called as
        ``scoring(y_true, y_pred, qids)`` (per-query measures)."""
        validate_hyperparameters(self)
        X, y = validate_data(self, X, y)
        if qids is not None:
            codes, labels = check_groups(qids, X.shape[0], "qids")
            qids = labels[codes]
        return self._search(X, y, qids=qids, groups=groups)


class RLSCV(_UngroupedFit, RegressorMixin, _PathSearchCV):
    __doc__ = "RLS with λ (and kernel parameters) chosen by exact fast CV.\n" + _COMMON_DOC
    _estimator_class = RLS
    _default_scoring = "mse"


class GlobalRankRLSCV(_UngroupedFit, RankerMixin, _PathSearchCV):
    __doc__ = "GlobalRankRLS with λ (and kernel parameters) chosen by exact fast CV.\n" \
        + _COMMON_DOC
    _estimator_class = GlobalRankRLS
    _default_scoring = "cindex"

    def __init__(self, alphas=DEFAULT_ALPHAS, *, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, solver="auto", cv=10, scoring=None,
                 greater_is_better=True, param_grid=None, average="pooled", random_state=0):
        super().__init__(alphas, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         kernel_params=kernel_params, solver=solver, cv=cv, scoring=scoring,
                         greater_is_better=greater_is_better, param_grid=param_grid,
                         average=average, random_state=random_state)



class QueryRankRLSCV(RankerMixin, _PathSearchCV):
    __doc__ = "QueryRankRLS with λ (and kernel parameters) chosen by exact fast CV; " \
        "``fit(X, y, qids)``; default cv='query' (leave-query-out, eq. 33).\n" + _COMMON_DOC
    _estimator_class = QueryRankRLS
    _default_scoring = "cindex"
    _parameter_constraints = {
        **_PathSearchCV._parameter_constraints,
        "cv": [Interval(Integral, 2, None, closed="left"),
               StrOptions({"query", "loo", "lpo", "group"}), list, tuple],
    }

    def __init__(self, alphas=DEFAULT_ALPHAS, *, kernel="linear", gamma=None, degree=3,
                 coef0=1.0, kernel_params=None, solver="auto", cv="query", scoring=None,
                 greater_is_better=True, param_grid=None, average="pooled", random_state=0):
        super().__init__(alphas, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         kernel_params=kernel_params, solver=solver, cv=cv, scoring=scoring,
                         greater_is_better=greater_is_better, param_grid=param_grid,
                         average=average, random_state=random_state)

    def _cv(self, qids):
        return "group" if isinstance(self.cv, str) and self.cv == "query" else self.cv

    @numerical_guard("fit")
    def fit(self, X, y, qids=None, groups=None):
        """``qids``: query of every row (required); the hold-out groups of ``cv="query"`` and
        of an int ``cv`` (whole queries per fold) unless ``groups`` is given."""
        validate_hyperparameters(self)
        X, y = validate_data(self, X, y)
        codes, labels = check_groups(qids, X.shape[0], "qids")
        qids = labels[codes]
        return self._search(X, y, qids=qids, groups=qids if groups is None else groups,
                            fit_params={"qids": qids})
