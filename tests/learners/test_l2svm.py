"""L2SVM (squared hinge, Newton steps on the active set) against its optimality conditions,
a peer library (liblinear's LinearSVC) and explicit leave-one-out retraining."""

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.svm import LinearSVC

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix
from learners.l2svm import L2SVM

ALPHAS = (1e-4, 1e-2, 1.0, 1e2, 1e4)


def _data(rng, m=70, n=6, flip=0.15):
    X = rng.normal(size=(m, n))
    y = np.sign(X[:, 0] + 0.3 * X[:, 1] + 0.2)
    y[rng.random(m) < flip] *= -1
    return X, y


def _gradient(K, y, c, alpha, beta, b):
    """∇_(β, b) of λβᵀKβ + Σ c_i max(0, 1 - y_i f_i)^2 — zero exactly at the optimum."""
    r = np.maximum(0.0, 1.0 - y * (K @ beta + b))
    g = c * y * r
    return 2.0 * K @ (alpha * beta - g), -2.0 * g.sum()


@pytest.mark.parametrize("alpha", ALPHAS)
@pytest.mark.parametrize("kernel", ["gaussian", "linear"])
@pytest.mark.parametrize("weights", [None, "balanced"])
def test_fit_satisfies_the_optimality_conditions(rng, alpha, kernel, weights):
    X, y = _data(rng)
    y[:50] = -1.0                          # unbalanced classes
    kw = {"gamma": 0.3} if kernel == "gaussian" else {}
    model = L2SVM(alpha=alpha, kernel=kernel, class_weight=weights, **kw).fit(X, y)
    K = kernel_matrix(X, X, kernel, **kw)
    c = np.where(y > 0, 70 / (2 * (y > 0).sum()), 70 / (2 * (y < 0).sum())) \
        if weights == "balanced" else np.ones(70)
    g_beta, g_b = _gradient(K, y, c, alpha, model.dual_coef_, model.intercept_)
    scale = 1.0 + np.abs(K).max() * c.sum()
    assert np.abs(g_beta).max() <= 1e-8 * scale
    assert abs(g_b) <= 1e-8 * scale
    f = model.decision_function(X)
    assert np.array_equal(np.sort(model.support_), np.flatnonzero(y * f < 1.0))
    if kernel == "gaussian":  # K positive definite: β is unique and zero off the set
        assert np.all(model.dual_coef_[np.flatnonzero(y * f > 1.0 + 1e-9)] == 0.0)


@pytest.mark.parametrize("alpha", [1e-1, 1.0, 10.0, 1e3])
def test_linear_kernel_equals_liblinear(rng, alpha):
    """Linear kernel without intercept = LinearSVC(loss="squared_hinge", C=1/(2λ))."""
    X, y = _data(rng)
    ours = L2SVM(alpha=alpha, fit_intercept=False).fit(X, y).decision_function(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        peer = LinearSVC(C=1.0 / (2 * alpha), loss="squared_hinge", fit_intercept=False,
                         tol=1e-12, max_iter=200_000).fit(X, y).decision_function(X)
    np.testing.assert_allclose(ours, peer, rtol=1e-5, atol=1e-6 * np.abs(peer).max())


@pytest.mark.parametrize("alpha", [1e-3, 1e-1, 1.0, 10.0, 1e3])
@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.slow
def test_leave_one_out_against_explicit_retraining(rng, alpha, fit_intercept):
    """Inactive examples: exactly the retrained value. Active examples: exactly the retrained
    value whenever removing one leaves the others' active set unchanged (the fixed-active-set
    assumption); the test requires that case to occur and checks it to 1e-8."""
    X, y = _data(rng, m=40)
    K = kernel_matrix(X, X, "gaussian", gamma=0.2)
    model = L2SVM(alpha=alpha, kernel="precomputed", fit_intercept=fit_intercept).fit(K, y)
    loo = model.leave_one_out()
    active = np.zeros(40, bool)
    active[model.support_] = True
    n_same_set = 0
    for i in range(40):
        keep = np.delete(np.arange(40), i)
        sub = clone(model).fit(K[np.ix_(keep, keep)], y[keep])
        explicit = sub.decision_function(K[np.ix_([i], keep)])[0]
        scale = 1.0 + abs(explicit)
        if not active[i]:
            assert abs(loo[i] - explicit) <= 1e-8 * scale, i
        else:
            rest_active = np.zeros(39, bool)
            rest_active[sub.support_] = True
            if np.array_equal(rest_active, np.delete(active, i)):
                n_same_set += 1
                assert abs(loo[i] - explicit) <= 1e-8 * scale, i
    assert n_same_set > 0


def test_path_and_warm_starts_equal_single_fits(rng):
    X, y = _data(rng, m=50)
    Xt = rng.normal(size=(9, 6))
    model = L2SVM(kernel="gaussian", gamma=0.3).fit(X, y)
    path = model.predict_path(Xt, ALPHAS)
    loo = model.leave_one_out(ALPHAS)
    coefs, intercepts = model.regularization_path(ALPHAS)
    for j, a in enumerate(ALPHAS):
        single = L2SVM(alpha=a, kernel="gaussian", gamma=0.3).fit(X, y)
        np.testing.assert_allclose(coefs[j], single.dual_coef_, rtol=1e-8, atol=1e-10)
        assert intercepts[j] == pytest.approx(single.intercept_, rel=1e-8, abs=1e-10)
        np.testing.assert_allclose(path[j], single.decision_function(Xt), rtol=1e-8,
                                   atol=1e-10)
        np.testing.assert_allclose(loo[j], single.leave_one_out(), rtol=1e-8, atol=1e-10)


def test_string_labels_and_prediction(rng):
    X, y = _data(rng)
    labels = np.where(y > 0, "member", "other")
    model = L2SVM(kernel="gaussian", gamma=0.3).fit(X, labels)
    assert list(model.classes_) == ["member", "other"]
    # classes_[1] ("other") is the positive class of the decision function
    f = model.decision_function(X)
    assert np.array_equal(model.predict(X), np.where(f > 0, "other", "member"))
    assert model.score(X, labels) > 0.7


def test_bad_input_raises_typed_errors(rng):
    X, y = _data(rng)
    with pytest.raises(InvalidInputError, match="exactly 2 classes"):
        L2SVM().fit(X, np.arange(70) % 3)
    with pytest.raises(InvalidInputError, match="exactly 2 classes"):
        L2SVM().fit(X, np.ones(70))
    with pytest.raises(InvalidParameterError, match="alpha"):
        L2SVM(alpha=0).fit(X, y)
    with pytest.raises(InvalidParameterError, match="class_weight"):
        L2SVM(class_weight="even").fit(X, y)
    with pytest.raises(InvalidParameterError, match="fit_intercept"):
        L2SVM(fit_intercept="yes").fit(X, y)
    X[3, 2] = np.nan
    with pytest.raises(InvalidInputError):
        L2SVM().fit(X, y)
