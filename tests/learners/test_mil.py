"""mi-RLS (learners.mil): the alternation's fixed point, its path against fits to its own
labels, and its hold-out predictions against explicit retraining."""

import numpy as np
import pytest

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners import RLS
from learners.mil import MultipleInstanceRLS, positive_bag_labels

LAMS = np.array([1e-6, 1e-3, 0.1, 1.0, 10.0, 1e4])


def _problem(seed, m=70, n=6):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(m, n))
    w = rng.normal(size=n)
    order = rng.permutation(m)
    sizes = rng.integers(1, 5, size=m)
    bags, start = [], 0
    while start < m:
        bags.append(np.sort(order[start:start + sizes[start]]))
        start += sizes[start]
    # a bag is positive when one of its instances scores high under a hidden model
    positive = [b for b in bags if (X[b] @ w).max() > 0.5]
    y = -np.ones(m)
    for b in positive:
        y[b] = 1.0
    return X, y, positive


@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_path_equals_rls_on_its_own_labels_and_labels_are_a_fixed_point(kernel):
    X, y, bags = _problem(0)
    kw = {"gamma": 0.3} if kernel == "gaussian" else {}
    model = MultipleInstanceRLS(alpha=1.0, kernel=kernel, max_iter=200, **kw).fit(X, y, bags)
    labels = model.labels_path(LAMS)
    coefs = model.regularization_path(LAMS)
    P = model.predict_path(X, LAMS)
    for k, lam in enumerate(LAMS):
        ref = RLS(alpha=lam, kernel=kernel, solver="dual", **kw).fit(X, labels[k])
        np.testing.assert_allclose(P[k], ref.predict(X), rtol=1e-8,
                                   atol=1e-8 * np.abs(ref.predict(X)).max())
        if model.solver_ == "dual":
            np.testing.assert_allclose(coefs[k], ref.dual_coef_, rtol=1e-6,
                                       atol=1e-8 * np.abs(ref.dual_coef_).max())
        # a fixed point: relabelling by the fit to the labels gives the labels back
        again = positive_bag_labels(ref.predict(X)[:, None], y, *model._bags)[:, 0]
        assert np.array_equal(again, labels[k])
        # the bag constraint, and the negative instances stay negative
        assert all((labels[k][b] > 0).any() for b in bags)
        outside = np.setdiff1d(np.arange(len(y)), np.concatenate(bags))
        assert (labels[k][outside] == -1).all()


def test_alternation_changes_labels_and_max_iter_zero_is_single_instance_learning():
    X, y, bags = _problem(1)
    sil = MultipleInstanceRLS(alpha=0.1, max_iter=0).fit(X, y, bags)
    assert np.array_equal(sil.labels_, y)
    np.testing.assert_allclose(sil.predict(X), RLS(alpha=0.1).fit(X, y).predict(X),
                               rtol=1e-8, atol=1e-10)
    mi = MultipleInstanceRLS(alpha=0.1, max_iter=100).fit(X, y, bags)
    assert (mi.labels_ != y).any() and mi.n_iter_ >= 1
    np.testing.assert_allclose(mi.predict(X), mi.predict_path(X, [0.1])[0], rtol=1e-8,
                               atol=1e-10)


@pytest.mark.parametrize("kernel", ["linear", "precomputed"])
def test_holdout_sets_and_loo_equal_explicit_retraining_with_the_assigned_labels(kernel):
    X, y, bags = _problem(2)
    data = X @ X.T if kernel == "precomputed" else X
    model = MultipleInstanceRLS(alpha=1.0, kernel=kernel, solver="dual").fit(data, y, bags)
    labels = model.labels_path(LAMS)
    rng = np.random.default_rng(3)
    sets = np.array_split(rng.permutation(len(y)), 7)
    out = model.holdout_sets(sets, alphas=LAMS)
    loo = model.leave_one_out(alphas=LAMS)
    for k, lam in enumerate(LAMS):
        for H, P in zip(sets, out):
            rest = np.setdiff1d(np.arange(len(y)), H)
            ref = RLS(alpha=lam).fit(X[rest], labels[k][rest]).predict(X[H])
            np.testing.assert_allclose(P[k], ref, rtol=1e-7, atol=1e-7 * np.abs(ref).max())
        i = 5
        rest = np.setdiff1d(np.arange(len(y)), [i])
        ref = RLS(alpha=lam).fit(X[rest], labels[k][rest]).predict(X[[i]])
        np.testing.assert_allclose(loo[k, i], ref[0], rtol=1e-7, atol=1e-9)


def test_bad_input_is_refused():
    X, y, bags = _problem(4)
    with pytest.raises(InvalidInputError, match="positive bag"):
        MultipleInstanceRLS().fit(X, y, bags + [np.array([], dtype=int)])
    with pytest.raises(InvalidInputError, match="positive bag"):
        MultipleInstanceRLS().fit(X, y, [np.array([len(y)])])
    with pytest.raises(InvalidInputError, match="\\+1 / -1"):
        MultipleInstanceRLS().fit(X, y * 0.5, bags)
    neg = np.flatnonzero(y < 0)[:2]
    with pytest.raises(InvalidInputError, match="start at \\+1"):
        MultipleInstanceRLS().fit(X, y, bags + [neg])
    with pytest.raises(InvalidParameterError, match="max_iter"):
        MultipleInstanceRLS(max_iter=-1).fit(X, y, bags)
