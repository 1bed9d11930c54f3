"""The estimator contract shared by every learner of :mod:`learners`.

* **Hyper-parameters** live in ``__init__`` only and are declared in a
  ``_parameter_constraints`` table (scikit-learn's :mod:`sklearn.utils._param_validation`:
  ``Interval``, ``StrOptions``, ``Options``, ``"boolean"``, ``"array-like"``, callables,
  ``None`` ...), as in ``sklearn/kernel_ridge.py``. ``fit`` starts with
  :func:`validate_hyperparameters`, which re-raises scikit-learn's error as
  :class:`kernelrank.errors.InvalidParameterError` ("The 'alpha' parameter of RLS must be a
  float in the range (0.0, inf). Got -1 instead."). Checks that need the data (``n_basis``
  against the number of rows, one α per view) stay in ``fit``; data are checked by
  :mod:`learners._validation`.
* **score**: a regressor's ``score`` is R² (:class:`sklearn.base.RegressorMixin`), the
  classifier's accuracy (:class:`sklearn.base.ClassifierMixin`), and every ranker's
  ``score(X, y, qids=None)`` is the concordance index (:class:`RankerMixin`).
* **Paths**: predictions over a hyper-parameter grid from one fit are ``predict_path(X,
  grid...)`` with the grid as the leading axis of the result (``alphas`` for λ).
* **Path-capable learners** (:class:`PathLearner`): the hold-out methods and path parameters
  the selection engine (:mod:`learners.selection`) asks of a learner are declared once, in a
  :class:`typing.Protocol`; :func:`supports` is the one check the engine makes, and
  :class:`HoldoutMixin` gives every learner with ``holdout_sets`` its single-set
  ``holdout``.
* **Tags**: ``input_tags.pairwise`` is True whenever ``kernel="precomputed"``, so that
  scikit-learn's CV utilities slice a Gram matrix on both axes.
* **Numerical guard**: every public computing method (``fit``, ``predict``, ``transform``,
  the paths, every CV shortcut) is decorated with
  :func:`learners._numerics.numerical_guard`: an overflow, a failed decomposition or NaN/inf
  in the result raises :class:`kernelrank.errors.NumericalError` naming the estimator, the
  step and the likely cause (unscaled features: "features up to 2.4e+160 in absolute value:
  scale them"). Features are not capped at validation; see :mod:`learners._numerics`.
* **Input types**: no rows, no features, complex, string or date values are
  :class:`kernelrank.errors.InvalidInputError` whose message starts with the estimator's
  name (:func:`learners._validation.validate_data`); an object array of numbers is data,
  as in scikit-learn, and one holding strings is refused as a string array is.
* **Nothing to rank**: a ranker fitted on data without a single preference pair (one
  sample, every query a single row, equal scores inside every query) warns
  (:class:`kernelrank.errors.NoPreferenceWarning`, at the caller's line) that nothing can be
  learnt — its model gives every input the same score — or, where its fit needs a pair
  (RankSVM, PairwiseRankRLS, GreedyRankRLS's leave-query-out), refuses the data with a
  typed error (:func:`learners._validation.warn_without_preference`).
"""

from numbers import Integral, Real
from typing import Protocol, runtime_checkable

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils._param_validation import InvalidParameterError as _SklearnParameterError
from sklearn.utils._param_validation import validate_parameter_constraints
from sklearn.utils import get_tags
from sklearn.utils.validation import check_is_fitted

from kernelrank.errors import InvalidParameterError
from learners._numerics import numerical_guard
from learners._validation import check_index_set
from learners.kernels import KERNEL_NAMES

__all__ = ["RankerMixin", "concordance_score", "validate_hyperparameters", "PathLearner",
           "HoldoutMixin", "PATH_KEYWORDS", "HOLDOUT_METHODS", "supports", "require",
           "path_parameters", "is_pairwise"]


def validate_hyperparameters(estimator):
    """Check ``estimator.get_params(deep=False)`` against its ``_parameter_constraints``.

    Raises
    ------
    InvalidParameterError
        Naming the parameter, the accepted values and the value given.
    """
    try:
        validate_parameter_constraints(estimator._parameter_constraints,
                                       estimator.get_params(deep=False),
                                       caller_name=type(estimator).__name__)
    except _SklearnParameterError as exc:
        raise InvalidParameterError(str(exc)) from None


# Constraint fragments reused by the tables of the learners.
POSITIVE = [Interval(Real, 0, None, closed="neither")]          # λ, C, tol: finite, > 0
NON_NEGATIVE = [Interval(Real, 0, None, closed="left")]
POSITIVE_INT = [Interval(Integral, 1, None, closed="left")]
SEED = [Interval(Integral, 0, None, closed="left"), np.random.Generator, None]
KERNEL_CONSTRAINTS = {
    # "rbf" and "poly" are the aliases resolve_kernel accepts
    "kernel": [StrOptions(set(KERNEL_NAMES) | {"rbf", "poly"}), callable],
    "gamma": [Interval(Real, 0, None, closed="neither"), None],
    "degree": [Interval(Integral, 1, None, closed="left")],
    "coef0": [Interval(Real, None, None, closed="neither")],
    "kernel_params": [dict, None],
}


def concordance_score(y, scores, qids=None):
    """Concordance index of ``scores`` with ``y``: the ``score`` of every ranker.

    Over the pairs with different labels (inside a query when ``qids`` is given), the fraction
    ordered like ``y``, a tie in ``scores`` counting 1/2; pairs with tied labels do not count.
    With ``qids`` it is the mean over the queries that have such a pair
    (:func:`learners.measures.cindex`); it equals ``1 - disagreement_error(..., ties=0.5)``.
    For targets of shape (m, t) the mean over the t outputs.
    """
    from learners.measures import cindex

    y = np.asarray(y, dtype=float)
    scores = np.asarray(scores, dtype=float)
    if y.ndim == 2 and y.shape[1] > 1:
        P = scores.reshape(y.shape)
        return float(np.mean([cindex(y[:, j], P[:, j], qids) for j in range(y.shape[1])]))
    return float(cindex(y, scores, qids))


class RankerMixin:
    """Mixin for rankers (mirrors :class:`sklearn.base.RegressorMixin`).

    Sets the ``estimator_type`` tag to ``"ranker"``, marks ``y`` as required, and defines
    ``score`` as the concordance index (:func:`concordance_score`). Put it before
    ``BaseEstimator`` in the bases.
    """

    _estimator_type = "ranker"

    def score(self, X, y, qids=None):
        """Concordance index of ``predict(X)`` with ``y`` (higher is better, 1 = perfect).

        Pairs with tied ``y`` do not count; tied predictions count 1/2; with ``qids`` only
        pairs inside a query count and the index is averaged over the queries (those without
        a pair of different labels are skipped). Equals ``1 -`` the disagreement error with
        ties counted 1/2 (:func:`learners.measures.disagreement_error`).

        Parameters
        ----------
        X : test inputs, as for ``predict``
        y : array-like (m,) or (m, t) -- true scores (mean over outputs for t > 1)
        qids : array-like (m,), optional -- query of each row

        Returns
        -------
        float
        """
        return concordance_score(y, self.predict(X), qids)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "ranker"
        tags.target_tags.required = True
        return tags


# ------------------------------------------------------------------ path-capable learners
#: Keyword of each path parameter in the methods of :class:`PathLearner` (``alphas=`` for λ,
#: ``mus=`` for the co-regularization μ, ``Cs=`` for RankSVM's C, ``betas=`` for the
#: transfer weight β).
PATH_KEYWORDS = {"alpha": "alphas", "mu": "mus", "C": "Cs", "beta": "betas"}


@runtime_checkable
class PathLearner(Protocol):
    """What the selection engine (:mod:`learners.selection`) asks of a learner.

    A learner is fitted once (``fit``) and then serves a whole hyper-parameter path from that
    fit, each path parameter given by its keyword (:data:`PATH_KEYWORDS`: ``alphas=[...]``,
    ``mus=``, ``Cs=``, ``betas=``), one leading output axis per path parameter in the order
    of ``path_parameters``. Every method is optional: the engine checks the one a scheme
    needs with :func:`supports` and otherwise refits per hold-out set (or, with
    :func:`require`, raises a clear error). The methods and what needs them:

    ``path_parameters`` : tuple of str, default ``("alpha",)``
        The parameters whose whole path the closed forms below serve from one fit.
    ``predict_path(X, **path)``
        Predictions of new rows for every path point — a validation part, or each
        training part of the refit route. Thesis §2.7 (one decomposition for every λ).
    ``leave_one_out(**path)``
        Exact leave-one-out predictions (m[, t]) for every path point, ``cv="loo"``
        (thesis Ch. 5).
    ``holdout_sets(sets, **path)``
        Exact hold-out predictions of each of a list of (possibly overlapping) index sets
        from the model trained without it: k-fold, leave-one-group-out, explicit sets.
    ``leave_pair_out(pairs, **path)``
        Exact predictions (n, 2[, t]) of both rows of each pair from the model trained
        without the two (Paper I eqs. 34-39), ``cv="lpo"``.

    The ``input_tags.pairwise`` tag (:func:`is_pairwise`) says that ``X`` is a precomputed
    kernel, which the refit route slices on both axes.

    Complexity: stated on each learner's methods (typically one O(m^3) decomposition, then
    O(m^2 t) per λ and ``O(|H|^2 r)`` per hold-out set).
    """

    path_parameters: tuple

    def fit(self, X, y=None, **fit_params):
        """Fit once on all rows (or on a training part)."""

    def predict_path(self, X, **path):
        """Predictions of ``X`` for every path point."""

    def leave_one_out(self, **path):
        """Leave-one-out predictions for every path point."""

    def holdout_sets(self, sets, **path):
        """Hold-out predictions of every set for every path point."""

    def leave_pair_out(self, pairs, **path):
        """Leave-pair-out predictions of every pair for every path point."""


#: The hold-out methods of :class:`PathLearner` (what :func:`supports` may be asked).
HOLDOUT_METHODS = ("predict_path", "leave_one_out", "holdout_sets", "leave_pair_out")


def supports(learner, method):
    """Whether ``learner`` implements ``method`` of the :class:`PathLearner` protocol.

    Raises
    ------
    ValueError
        When ``method`` is not a method of the protocol (a programming error).
    """
    if method not in HOLDOUT_METHODS:
        raise ValueError(f"{method!r} is not a method of the PathLearner protocol "
                         f"{HOLDOUT_METHODS}")
    return callable(getattr(learner, method, None))


def require(learner, method, needed_by):
    """Raise a clear :class:`kernelrank.errors.InvalidParameterError` unless ``learner``
    implements ``method`` of the :class:`PathLearner` protocol; ``needed_by`` names what
    needs it (e.g. ``"cv='lpo'"``)."""
    if not supports(learner, method):
        raise InvalidParameterError(
            f"{type(learner).__name__} has no {method}() (learners.base.PathLearner), which "
            f"{needed_by} needs; use a learner that implements it or another cv")


def path_parameters(learner):
    """The parameters whose whole path the learner's closed forms serve from one fit, in
    the order of its outputs' leading axes (``path_parameters``; λ alone by default)."""
    return tuple(getattr(learner, "path_parameters", ("alpha",)))


def is_pairwise(learner):
    """Whether ``X`` of ``learner`` is a precomputed kernel (``input_tags.pairwise``)."""
    try:
        return bool(get_tags(learner).input_tags.pairwise)
    except (AttributeError, TypeError, ValueError):
        return False


class HoldoutMixin:
    """The single-set hold-out method, once, for every learner with ``holdout_sets``.

    A learner provides ``holdout_sets(sets, alphas=None, **path)`` (its closed form) and,
    when its training targets are not in ``self._Y``, ``_n_holdout_rows()``; this mixin adds
    ``holdout(indices, alphas=None, **path)`` with the validation (fitted, a valid index set
    of the training rows) done here, and declares the default ``path_parameters`` of the
    :class:`PathLearner` protocol (λ alone).
    """

    path_parameters = ("alpha",)

    def _n_holdout_rows(self):
        """Number of training rows (the range of valid hold-out indices)."""
        return self._Y.shape[0]

    @numerical_guard("holdout", data="fitted")
    def holdout(self, indices, alphas=None, **path):
        """Predictions for ``indices`` from the model trained without them (exact).

        Parameters
        ----------
        indices : int array (or boolean mask of length m)
        alphas : sequence of float, optional — adds a leading λ axis
        **path : further path parameters of the learner (e.g. ``betas=`` of
            :class:`learners.transfer.TransferRLS`)

        Returns
        -------
        ndarray, shape ``(|H|[, t])`` or ``(n_alphas, |H|[, t])``

        Raises
        ------
        InvalidInputError : empty, repeated or out-of-range indices, or all rows held out.

        Notes
        -----
        ``holdout_sets([indices])[0]``: the cost of one set in the learner's closed form.
        """
        check_is_fitted(self)
        H = check_index_set(indices, self._n_holdout_rows())
        return self.holdout_sets([H], alphas=alphas, **path)[0]
