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
  as in scikit-learn.
"""

from numbers import Integral, Real

import numpy as np
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils._param_validation import InvalidParameterError as _SklearnParameterError
from sklearn.utils._param_validation import validate_parameter_constraints

from kernelrank.errors import InvalidParameterError
from learners.kernels import KERNEL_NAMES

__all__ = ["RankerMixin", "concordance_score", "validate_hyperparameters"]


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
