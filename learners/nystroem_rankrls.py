"""Nyström features + linear query-structured RankRLS, refitted per hold-out set.

Paper III Sect. 2.2 (Nyström map), Paper I §3.5 (primal RankRLS). The learner builds the
Nyström map of ``n_basis`` basis rows and trains :class:`learners.rankrls.QueryRankRLS` with
the linear kernel on it; the model equals :class:`learners.reduced_set.ReducedSetQueryRankRLS`
with the same basis and λ, but it has no hold-out shortcut: cross-validation refits it on
each training part (a new map from that part's own rows). Cost: ``fit`` m r kernel
evaluations + O(m r^2 + r^3); memory O(m r).
"""

import warnings

from sklearn.base import BaseEstimator
from sklearn.utils._param_validation import StrOptions
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import NoPreferenceWarning
from kernelrank.memory import release_freed_memory
from learners._numerics import numerical_guard
from learners._validation import check_groups, validate_data, warn_without_preference
from learners.base import RankerMixin, validate_hyperparameters
from learners.kernel_learner import KernelTagsMixin
from learners.nystroem import NystroemLearnerParams
from learners.query_centring import BASIS_SELECTION, QUERY_BASIS, query_basis_map

__all__ = ["NystroemQueryRankRLS"]


class NystroemQueryRankRLS(RankerMixin, KernelTagsMixin, NystroemLearnerParams, BaseEstimator):
    """Nyström features + linear query-structured RankRLS (Paper III Sect. 2.2; Paper I §3.5).

    ``fit`` builds the Nyström map ``Phi = K_MR (C^T)^-1`` of ``n_basis`` basis rows drawn
    uniformly at random (:class:`learners.nystroem.NystroemMap`, Paper III Sect. 2.1) and
    trains :class:`learners.rankrls.QueryRankRLS` with the *linear* kernel on ``Phi`` (the
    primal solver, an r x r system). With the same basis and λ the model equals
    :class:`~learners.reduced_set.ReducedSetQueryRankRLS` (primal RankRLS on the Nyström
    map is sparse RankRLS, Paper III Sect. 2.2; a test checks it). What differs is
    cross-validation: this learner has no hold-out shortcut, so the selection engine refits
    it per hold-out set (``method="refit"``) — a new map from the training part's own rows each time, hence no
    held-out basis vector ever enters a fold model — and serves the λ path of each refit
    from one eigendecomposition (:meth:`predict_path`).

    Parameters
    ----------
    alpha : float, default=1.0
    kernel, gamma, degree, coef0, kernel_params, n_basis, basis_indices, random_state,
    jitter : the map's parameters (:class:`~learners.nystroem.NystroemMap`); ``n_basis`` is
        capped at the number of training rows.
    basis, basis_selection : as in :class:`~learners.reduced_set.ReducedSetQueryRankRLS`
        (centred basis vectors, randomly pivoted Cholesky selection); the same model for the
        same choices.

    Attributes
    ----------
    nystroem_ : fitted :class:`~learners.nystroem.NystroemMap`
    ranker_ : fitted :class:`~learners.rankrls.QueryRankRLS` on the map
    dual_coef_ : ndarray (r,) — reduced-set coefficients ``b = (C^T)^-1 w`` of the basis rows
    basis_indices_ : ndarray (r,)

    Notes
    -----
    ``fit``: m r kernel evaluations (in row blocks, :meth:`NystroemMap.transform`) +
    O(m r^2 + r^3); memory O(m r) — never an m x m matrix. ``predict_path``: O(r^3) once,
    then O(n r) per λ for n new rows.
    """

    _parameter_constraints = {**NystroemLearnerParams._parameter_constraints,
                              "basis": [StrOptions(set(QUERY_BASIS))],
                              "basis_selection": [StrOptions(set(BASIS_SELECTION))]}

    def __init__(self, alpha=1.0, *, kernel="gaussian", gamma=None, degree=3, coef0=1.0,
                 kernel_params=None, n_basis=100, basis_indices=None, random_state=None,
                 jitter="auto", basis="rows", basis_selection="uniform"):
        super().__init__(alpha, kernel=kernel, gamma=gamma, degree=degree, coef0=coef0,
                         kernel_params=kernel_params, n_basis=n_basis,
                         basis_indices=basis_indices, random_state=random_state,
                         jitter=jitter)
        self.basis = basis
        self.basis_selection = basis_selection

    @numerical_guard("fit")
    def fit(self, X, y, qids=None):
        """Fit on ``X`` (rows, or the m x m kernel matrix if ``kernel='precomputed'``), ``y``
        and ``qids`` (the query of every row; required, never inferred)."""
        from learners.rankrls import QueryRankRLS

        validate_hyperparameters(self)
        X, y = validate_data(self, X, y, precomputed=self.kernel == "precomputed")
        m = X.shape[0]
        codes, _ = check_groups(qids, m, name="qids")
        warn_without_preference(type(self).__name__, y, codes)
        nm = query_basis_map(self, X, codes, min(int(self.n_basis), m))
        Phi = nm.transform(X)
        self.nystroem_ = nm
        self.basis_indices_ = nm.basis_indices_
        with warnings.catch_warnings():               # said above, in this class' name
            warnings.simplefilter("ignore", NoPreferenceWarning)
            self.ranker_ = QueryRankRLS(alpha=float(self.alpha), kernel="linear",
                                        solver="primal").fit(Phi, y, qids)
        self.dual_coef_ = nm.coef_to_dual(self.ranker_.coef_.T).T
        release_freed_memory()              # one fit per inner fold in cross-validation
        return self

    @numerical_guard("predict")
    def predict(self, X):
        """``f(X) = Phi(X) w = K_XR b``. ``O(|X| r)`` kernel evaluations + ``O(|X| r^2)``."""
        check_is_fitted(self, "ranker_")
        return self.ranker_.predict(self.nystroem_.transform(X))

    @numerical_guard("predict_path")
    def predict_path(self, X, alphas):
        """Predictions for every λ, shape ``(n_alphas, |X|[, t])``; one r x r decomposition."""
        check_is_fitted(self, "ranker_")
        return self.ranker_.predict_path(self.nystroem_.transform(X), alphas)
