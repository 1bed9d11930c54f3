"""Numerical guard and input types of every learner.

Overflow: features so large that ``X^T X`` or a kernel overflows would give all-zero
predictions (primal RLS: ``X^T X = inf`` makes the Cholesky solve return ``w = 0``), NaN
(dual), a bare ``LinAlgError`` from the CV shortcuts, or a RankSVM that never returns;
instead every learner, kernel and CV shortcut raises :class:`NumericalError` naming the
estimator, the step and the magnitude of the features. Finite but hard problems (λ = 2^-15
on near-collinear data, features of 1e150 on few rows) are not errors and stay exact.

Input types: no rows, no features, complex, string, date or object input is an
:class:`InvalidInputError` whose message names the estimator, for every estimator.
"""

import warnings
from types import SimpleNamespace

import numpy as np
import pytest
from tests.project.test_contract import ESTIMATORS

import learners
from kernelrank.errors import InvalidInputError, KernelrankError, NumericalError
from learners.kernels.vector import VectorKernel
from learners.nystroem import NystroemMap
from learners.selection import holdout_predictions

HUGE = 1e160          # |x|^2 overflows float64 (max 1.8e308)


def _data(scale=1.0, transform=None):
    """The data of every spec, features multiplied by ``scale`` (or mapped by ``transform``)."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(40, 4))
    y = X @ np.array([1.0, -0.5, 0.3, 0.0]) + 0.1 * rng.normal(size=40)
    q = rng.integers(0, 4, size=40)
    nodes = rng.normal(size=(8, 3))
    Y = nodes @ rng.normal(size=(3, 3)) @ nodes.T
    f = transform or (lambda A: A * scale)
    X, nodes = f(X), f(nodes)
    return SimpleNamespace(X=X, y=y, q=q, nodes=nodes, Y=Y, labels=(y > 0).astype(int),
                           views=[X[:, :2], X[:, 2:]] if X.ndim == 2 and X.shape[1] >= 4
                           else [X, X])


def _flat(e, d):
    return e.fit(d.X, d.y)


def _query(e, d):
    return e.fit(d.X, d.y, d.q)


def _nodes(e, d):
    return e.fit(d.nodes, d.Y)


# name -> (new estimator, fit(est, data), apply(fitted est, data): predict / transform)
SPECS = {
    "RLS": (lambda: learners.RLS(), _flat, lambda e, d: e.predict(d.X)),
    "ReducedSetRLS": (lambda: learners.ReducedSetRLS(n_basis=10, random_state=0), _flat,
                      lambda e, d: e.predict(d.X)),
    "CGRLS": (lambda: learners.CGRLS(), _flat, lambda e, d: e.predict(d.X)),
    "GreedyRLS": (lambda: learners.GreedyRLS(n_features_to_select=2), _flat,
                  lambda e, d: e.predict(d.X)),
    "KronRLS": (lambda: learners.KronRLS(), _nodes, lambda e, d: e.predict(d.nodes)),
    "CoRLS": (lambda: learners.CoRLS(mu=0.5), lambda e, d: e.fit(d.views, d.y, d.views),
              lambda e, d: e.predict(d.views)),
    "GlobalRankRLS": (lambda: learners.GlobalRankRLS(), _flat, lambda e, d: e.predict(d.X)),
    "QueryRankRLS": (lambda: learners.QueryRankRLS(), _query, lambda e, d: e.predict(d.X)),
    "PairwiseRankRLS": (lambda: learners.PairwiseRankRLS(), _query,
                        lambda e, d: e.predict(d.X)),
    "ReducedSetGlobalRankRLS": (lambda: learners.ReducedSetGlobalRankRLS(
        n_basis=10, random_state=0), _flat, lambda e, d: e.predict(d.X)),
    "ReducedSetQueryRankRLS": (lambda: learners.ReducedSetQueryRankRLS(
        n_basis=10, random_state=0), _query, lambda e, d: e.predict(d.X)),
    "NystroemQueryRankRLS": (lambda: learners.NystroemQueryRankRLS(
        n_basis=10, random_state=0), _query, lambda e, d: e.predict(d.X)),
    "CGRankRLS": (lambda: learners.CGRankRLS(), _query, lambda e, d: e.predict(d.X)),
    "RankSVM": (lambda: learners.RankSVM(), _query, lambda e, d: e.predict(d.X)),
    "KPCRank": (lambda: learners.KPCRank(n_components=3), _query,
                lambda e, d: e.predict(d.X)),
    "GreedyRankRLS": (lambda: learners.GreedyRankRLS(n_features_to_select=2), _query,
                      lambda e, d: e.predict(d.X)),
    "KronRankRLS": (lambda: learners.KronRankRLS(), _nodes, lambda e, d: e.predict(d.nodes)),
    "CoRankRLS": (lambda: learners.CoRankRLS(mu=0.5),
                  lambda e, d: e.fit(d.views, d.y, d.q, d.views),
                  lambda e, d: e.predict(d.views)),
    "RLSCV": (lambda: learners.RLSCV(alphas=(0.1, 1.0, 10.0)), _flat,
              lambda e, d: e.predict(d.X)),
    "GlobalRankRLSCV": (lambda: learners.GlobalRankRLSCV(alphas=(0.1, 1.0, 10.0), cv=3),
                        _flat, lambda e, d: e.predict(d.X)),
    "QueryRankRLSCV": (lambda: learners.QueryRankRLSCV(alphas=(0.1, 1.0, 10.0)), _query,
                       lambda e, d: e.predict(d.X)),
    "L2SVM": (lambda: learners.L2SVM(), lambda e, d: e.fit(d.X, d.labels),
              lambda e, d: e.decision_function(d.X)),
    "NystroemMap": (lambda: NystroemMap(n_basis=5, random_state=0), lambda e, d: e.fit(d.X),
                    lambda e, d: e.transform(d.X)),
}


def _quiet(fn, *args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # overflow RuntimeWarnings of unguarded code
        return fn(*args)


def _fit_apply(name, data):
    make, fit, apply = SPECS[name]
    return _quiet(lambda: apply(fit(make(), data), data))


def test_every_estimator_is_covered():
    assert set(SPECS) == set(ESTIMATORS)


def test_every_public_method_is_guarded():
    """Each computing method of each estimator carries the guard (the decorator's mark)."""
    methods = ("fit", "predict", "decision_function", "transform", "predict_path",
               "regularization_path", "leave_one_out", "holdout", "holdout_sets",
               "leave_pair_out", "leave_query_out")
    for name in ESTIMATORS:
        cls = type(SPECS[name][0]())
        for m in methods:
            if hasattr(cls, m):
                assert hasattr(getattr(cls, m), "__numerical_guard__"), f"{name}.{m}"


def test_guard_checks_solutions_not_diagnostics():
    """NaN in a diagnostic (a CV score undefined for a candidate) is legitimate."""
    from learners._numerics import numerical_guard   # here: the module is new

    class _Toy:
        """A minimal estimator to test the decorator itself."""

        @numerical_guard("fit")
        def fit(self, coef, scores):
            self.coef_, self.cv_scores_ = np.asarray(coef), np.asarray(scores)
            return self

        @numerical_guard("predict")
        def predict(self, X):
            return [np.asarray(X, dtype=float)]

        @numerical_guard("leave-one-out", data="fitted")
        def leave_one_out(self):
            raise np.linalg.LinAlgError("Eigenvalues did not converge")

    _Toy().fit([1.0, 2.0], [0.5, np.nan])
    with pytest.raises(NumericalError, match=r"_Toy\.fit: the learned coef_ has NaN"):
        _Toy().fit([1.0, np.inf], [0.5, 0.5])
    with pytest.raises(NumericalError, match=r"_Toy\.predict: the result has NaN"):
        _Toy().predict([1.0, np.nan])
    with pytest.raises(NumericalError, match=r"_Toy\.leave-one-out: a matrix decomposition "
                                             r"failed \(Eigenvalues did not converge\)"):
        _Toy().leave_one_out()


# ---------------------------------------------------------------------- overflow
@pytest.mark.parametrize("name", ESTIMATORS)
def test_unscaled_features_raise_numerical_error(name):
    """X * 1e160: a typed error, not all-zero or NaN predictions (or no return)."""
    with pytest.raises(NumericalError, match="scale them") as info:
        _fit_apply(name, _data(HUGE))
    assert name in str(info.value) and "e+160" in str(info.value)
    assert isinstance(info.value, (KernelrankError, ArithmeticError))


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_rls_fit_then_leave_one_out_on_unscaled_features(solver):
    """RLS().fit(X * 1e160, y) then leave_one_out: the fit names the features' magnitude."""
    d = _data(HUGE)
    with pytest.raises(NumericalError, match=r"RLS\.fit: .*features up to \d\.\de\+160"):
        _quiet(lambda: learners.RLS(solver=solver).fit(d.X, d.y).leave_one_out())


@pytest.mark.parametrize("kernel, scale, step", [
    ("linear", HUGE, "inner products of the linear kernel"),
    ("gaussian", HUGE, "squared distances of the gaussian kernel"),
    ("polynomial", 1e60, "the polynomial kernel of degree 3"),   # (x.z)^3 overflows first
])
@pytest.mark.parametrize("name", ["RLS", "GlobalRankRLS", "KPCRank", "L2SVM",
                                  "NystroemMap", "ReducedSetRLS"])
def test_every_kernel_overflow_is_reported(name, kernel, scale, step):
    make, fit, apply = SPECS[name]
    est = make().set_params(kernel=kernel)
    if "solver" in est.get_params():
        est.set_params(solver="dual")
    d = _data(scale)
    with pytest.raises(NumericalError, match=step):
        _quiet(lambda: apply(fit(est, d), d))


def test_gaussian_predictions_on_unscaled_test_data():
    """Distances overflowing to inf made exp(-inf) = 0: all-zero predictions, silently."""
    d, big = _data(), _data(HUGE)
    model = learners.RLS(kernel="gaussian").fit(d.X, d.y)
    with pytest.raises(NumericalError, match=r"RLS\.predict: squared distances"):
        _quiet(model.predict, big.X)


def test_huge_precomputed_kernel():
    """Entries of 1e308: the solve overflowed and was reported as 'singular; increase alpha'."""
    d = _data()
    K = np.full((40, 40), 1e308)
    with pytest.raises(NumericalError, match="rescale the precomputed kernel"):
        _quiet(lambda: learners.RLS(kernel="precomputed").fit(K, d.y))


def test_callable_kernel_returning_nan():
    d = _data()

    def bad(X, Z):
        K = X @ Z.T
        K[0, 0] = np.nan
        return K
    with pytest.raises(NumericalError, match="callable kernel"):
        _quiet(lambda: learners.RLS(kernel=bad).fit(d.X, d.y))


# CV shortcuts on a model fitted on X * 1e160: NaN, zeros or a bare LinAlgError before.
CV_CASES = {
    "RLS primal loo": (lambda: learners.RLS(solver="primal"), _flat,
                       lambda e: e.leave_one_out()),
    "RLS dual loo": (lambda: learners.RLS(solver="dual"), _flat, lambda e: e.leave_one_out()),
    "RLS holdout": (lambda: learners.RLS(), _flat, lambda e: e.holdout([0, 1, 2])),
    "RLS holdout_sets": (lambda: learners.RLS(solver="dual"), _flat,
                         lambda e: e.holdout_sets([[0, 1], [2, 3]])),
    "RLS leave_pair_out": (lambda: learners.RLS(), _flat,
                           lambda e: e.leave_pair_out([[0, 1], [2, 3]])),
    "RLS predict_path": (lambda: learners.RLS(), _flat,
                         lambda e: e.regularization_path([0.1, 1.0])),
    "GlobalRankRLS loo": (lambda: learners.GlobalRankRLS(), _flat,
                          lambda e: e.leave_one_out()),
    "GlobalRankRLS dual lpo": (lambda: learners.GlobalRankRLS(solver="dual"), _flat,
                               lambda e: e.leave_pair_out([[0, 1]])),
    "QueryRankRLS leave_query_out": (lambda: learners.QueryRankRLS(), _query,
                                     lambda e: e.leave_query_out()),
    "PairwiseRankRLS loo": (lambda: learners.PairwiseRankRLS(solver="dual"), _query,
                            lambda e: e.leave_one_out()),
    "ReducedSetRLS loo": (lambda: learners.ReducedSetRLS(kernel="linear", n_basis=10,
                                                         random_state=0), _flat,
                          lambda e: e.leave_one_out()),
    "ReducedSetQueryRankRLS lqo": (lambda: learners.ReducedSetQueryRankRLS(
        kernel="linear", n_basis=10, random_state=0), _query,
        lambda e: e.leave_query_out()),
    "KronRLS loo": (lambda: learners.KronRLS(), _nodes, lambda e: e.leave_one_out()),
    "L2SVM loo": (lambda: learners.L2SVM(), lambda e, d: e.fit(d.X, d.labels),
                  lambda e: e.leave_one_out()),
}


@pytest.mark.parametrize("case", sorted(CV_CASES))
def test_cv_shortcuts_on_unscaled_features(case):
    make, fit, cv = CV_CASES[case]
    d = _data(HUGE)
    with pytest.raises(NumericalError, match="scale them"):
        _quiet(lambda: cv(fit(make(), d)))


@pytest.mark.parametrize("cv", ["loo", 5])
def test_lambda_path_of_selection(cv):
    """learners.selection's λ path (one fit, every λ from the CV shortcut)."""
    d = _data(HUGE)
    with pytest.raises(NumericalError, match="scale them"):
        _quiet(lambda: holdout_predictions(learners.RLS(), d.X, d.y, cv=cv,
                                           path={"alpha": [0.1, 1.0, 10.0]}))


# Features of 1e153: the dual fit is finite, but the CV shortcuts of RankRLS overflow in the
# eigen-space products (the guard of the shortcut itself, not of fit, must catch it).
@pytest.mark.parametrize("method, args", [
    ("leave_one_out", ()),
    ("holdout", ([0, 1, 2],)),
    ("leave_pair_out", ([[0, 1], [2, 3]],)),
])
def test_cv_shortcut_overflow_after_a_finite_fit(method, args):
    d = _data(1e153)
    model = _quiet(lambda: learners.GlobalRankRLS(solver="dual").fit(d.X, d.y))
    assert np.all(np.isfinite(model.dual_coef_))          # the fit itself is fine
    with pytest.raises(NumericalError, match=r"GlobalRankRLS\.(leave|holdout)"):
        _quiet(getattr(model, method), *args)


def test_predict_path_overflow_after_a_finite_fit():
    d = _data(1e153)
    model = _quiet(lambda: learners.RLS(solver="dual").fit(d.X, d.y))
    with pytest.raises(NumericalError, match=r"RLS\.predict_path"):
        _quiet(model.predict_path, d.X, [1e-3, 1.0, 1e3])


# ---------------------------------------------------------------------- hard but finite
def test_large_finite_features_are_not_errors():
    """|x| = 1e150 on 40 rows: X^T X is finite; primal RLS equals least squares (λ = 1 is
    negligible at that scale) and no guard fires."""
    d = _data(1e150)
    model = learners.RLS(solver="primal").fit(d.X, d.y)
    w, *_ = np.linalg.lstsq(d.X / 1e150, d.y, rcond=None)
    np.testing.assert_allclose(model.predict(d.X), (d.X / 1e150) @ w, rtol=1e-8)
    assert np.all(np.isfinite(model.leave_one_out()))


def _brute_holdout(make, X, y, H, alpha):
    keep = np.setdiff1d(np.arange(len(y)), H)
    return make(alpha).fit(X[keep], y[keep]).predict(X[H])


@pytest.mark.parametrize("solver", ["primal", "dual"])
def test_tiny_lambda_on_near_collinear_features_stays_exact(solver):
    """λ = 2^-15 and two features equal up to 1e-6: ill-conditioned, finite, exact."""
    rng = np.random.default_rng(5)
    x = rng.normal(size=(30, 3))
    X = np.column_stack([x, x[:, 0] + 1e-6 * rng.normal(size=30)])
    y = x @ np.array([1.0, -1.0, 0.5]) + 0.1 * rng.normal(size=30)
    alpha = 2.0 ** -15

    def make(a):
        return learners.RLS(alpha=a, solver=solver)
    model = make(alpha).fit(X, y)
    loo = model.leave_one_out()
    brute = np.array([_brute_holdout(make, X, y, [i], alpha)[0] for i in range(30)])
    np.testing.assert_allclose(loo, brute, rtol=1e-5, atol=1e-6)
    H = np.array([3, 7, 11])
    np.testing.assert_allclose(model.holdout(H), _brute_holdout(make, X, y, H, alpha),
                               rtol=1e-5, atol=1e-6)
    for rank in (learners.GlobalRankRLS(alpha=alpha, solver=solver),
                 learners.QueryRankRLS(alpha=alpha, solver=solver)):
        fitted = rank.fit(X, y) if isinstance(rank, learners.GlobalRankRLS) else \
            rank.fit(X, y, np.arange(30) % 3)
        assert np.all(np.isfinite(fitted.leave_one_out()))


# ------------------------------------------------------------------- input types
def _bad_inputs():
    X = _data().X
    obj = X.astype(object)
    obj[0, 0] = {"a": 1}
    dates = np.array(["2020-01-01"] * 160, dtype="datetime64[D]").reshape(40, 4)
    return {
        "no features": np.zeros((40, 0)),
        "no rows": np.zeros((0, 4)),
        "complex": X + 1j,
        "strings": np.array([["a", "b", "c", "d"]] * 40),
        "numeric strings": X.astype(str),
        "dict in object array": obj,
        "dates": dates,
    }


BAD = _bad_inputs()


def _with_bad(X):
    """The data of the specs with every feature array (X, nodes, views) replaced by X."""
    d = _data()
    d.X = d.nodes = X
    d.views = [X, X]
    if X.shape[0] == 0:                            # no rows: empty targets too
        d.y, d.q, d.labels, d.Y = d.y[:0], d.q[:0], d.labels[:0], d.Y[:0, :0]
    return d


@pytest.mark.parametrize("bad", sorted(BAD))
@pytest.mark.parametrize("name", ESTIMATORS)
def test_bad_input_types_at_fit(name, bad):
    make, fit, _ = SPECS[name]
    d = _with_bad(BAD[bad])
    if name.startswith("Kron"):                    # node features: 8 nodes
        d.nodes = BAD[bad][:8] if BAD[bad].shape[0] else BAD[bad]
    with pytest.raises(InvalidInputError, match=name):
        _quiet(fit, make(), d)


@pytest.mark.parametrize("bad", ["no features", "complex", "strings", "dict in object array"])
@pytest.mark.parametrize("name", ESTIMATORS)
@pytest.mark.slow
def test_bad_input_types_at_predict(name, bad):
    make, fit, apply = SPECS[name]
    model = _quiet(fit, make(), _data())
    d = _with_bad(BAD[bad])
    with pytest.raises(InvalidInputError):
        _quiet(apply, model, d)


def test_nystroem_map_refuses_zero_features():
    with pytest.raises(InvalidInputError, match="0 feature.*NystroemMap"):
        NystroemMap(n_basis=2).fit(np.zeros((10, 0)))


def test_complex_is_not_cast_to_real():
    """Complex X is refused, not cast silently (ComplexWarning), by the views and node-set
    paths too."""
    X = _data().X + 1j
    for est, call in [(learners.CoRLS(), lambda e: e.fit([X, X], np.ones(40))),
                      (learners.KronRLS(), lambda e: e.fit(X[:8], np.ones((8, 8)))),
                      (NystroemMap(n_basis=2), lambda e: e.fit(X))]:
        with pytest.raises(InvalidInputError, match="complex"):
            call(est)


@pytest.mark.parametrize("bad", sorted(BAD))
def test_vector_kernel_object_bad_input(bad):
    with pytest.raises(InvalidInputError, match="VectorKernel"):
        VectorKernel().fit(BAD[bad])


@pytest.mark.parametrize("params", [{}, {"normalize": True}, {"kernel": "polynomial"}])
def test_vector_kernel_object_overflow(params):
    """Normalized rows of X * 1e160 were all 0: ||x||^2 = inf."""
    X = _data(HUGE).X
    with pytest.raises(NumericalError, match="scale them"):
        _quiet(lambda: VectorKernel(**params).fit(X).transform(X))
    if params.get("kernel") != "polynomial":
        with pytest.raises(NumericalError, match="scale them"):
            _quiet(lambda: VectorKernel(**params).fit(X).features(X))


def test_object_array_of_numbers_is_still_accepted():
    """scikit-learn's contract (check_dtype_object): numbers in an object array are data."""
    d = _data()
    p = learners.RLS().fit(d.X.astype(object), d.y).predict(d.X.astype(object))
    np.testing.assert_allclose(p, learners.RLS().fit(d.X, d.y).predict(d.X))
