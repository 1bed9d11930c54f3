"""One estimator contract across every learner of ``learners``.

* ``score``: every ranker's ``score(X, y, qids=None)`` is the concordance index of
  :func:`learners.measures.cindex` (= 1 - disagreement error with ties 1/2) on held-out data;
  every regressor's is R² (:func:`sklearn.metrics.r2_score`); the classifier's accuracy.
* hyper-parameters: all in ``__init__``, all declared in ``_parameter_constraints``, a bad
  value fails at ``fit`` (before any data check) with a typed error naming the parameter;
  no ``fit`` keyword repeats a hyper-parameter.
* one path name, ``predict_path``, with the grid keyword ``alphas`` for λ;
* ``input_tags.pairwise`` wherever ``kernel="precomputed"`` is accepted.

Degenerate data given to every learner (object arrays of strings, no preference pair) are
probes of ``tests/project/test_trust_probes.py`` ("degenerate learning"), on :data:`SPECS`.
"""

import inspect
from types import SimpleNamespace

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import get_tags
from sklearn.utils._param_validation import generate_invalid_param_val, make_constraint

import learners
from kernelrank.errors import InvalidParameterError
from learners.measures import cindex, disagreement_error

CV_ALPHAS = (0.1, 1.0, 10.0)


def _data():
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    Xt = rng.normal(size=(40, 4))
    w = np.array([1.0, -0.5, 0.3, 0.0])
    # integer scores: held-out pairs with tied labels exist and must not count
    y = np.round(X @ w + 0.3 * rng.normal(size=60))
    yt = np.round(Xt @ w + 0.3 * rng.normal(size=40))
    q, qt = rng.integers(0, 4, size=60), rng.integers(0, 4, size=40)
    nodes, nodes_t = rng.normal(size=(8, 3)), rng.normal(size=(6, 3))
    Y = np.round(nodes @ rng.normal(size=(3, 3)) @ nodes.T)
    Yt = np.round(nodes_t @ rng.normal(size=(3, 3)) @ nodes_t.T)
    return SimpleNamespace(X=X, Xt=Xt, y=y, yt=yt, q=q, qt=qt, nodes=nodes, nodes_t=nodes_t,
                           Y=Y, Yt=Yt, labels=(y > 0).astype(int), labels_t=(yt > 0).astype(int))


D = _data()


def views(X):
    return [X[:, :2], X[:, 2:]]


# name -> (kind, estimator, fit(est), test inputs (X, y, qids) for predict / score)
FLAT = (lambda e: e.fit(D.X, D.y), (D.Xt, D.yt, D.qt))
QUERY = (lambda e: e.fit(D.X, D.y, D.q), (D.Xt, D.yt, D.qt))
SPECS = {
    "RLS": ("regressor", lambda: learners.RLS(), *FLAT),
    "ReducedSetRLS": ("regressor", lambda: learners.ReducedSetRLS(n_basis=20, random_state=0),
                      *FLAT),
    "CGRLS": ("regressor", lambda: learners.CGRLS(), *FLAT),
    "GreedyRLS": ("regressor", lambda: learners.GreedyRLS(n_features_to_select=2), *FLAT),
    "KronRLS": ("regressor", lambda: learners.KronRLS(kernel="gaussian"),
                lambda e: e.fit(D.nodes, D.Y), (D.nodes_t, D.Yt, None)),
    "CoRLS": ("regressor", lambda: learners.CoRLS(mu=0.5),
              lambda e: e.fit(views(D.X), D.y, views(D.Xt)), (views(D.Xt), D.yt, D.qt)),
    "GlobalRankRLS": ("ranker", lambda: learners.GlobalRankRLS(), *FLAT),
    "QueryRankRLS": ("ranker", lambda: learners.QueryRankRLS(), *QUERY),
    "PairwiseRankRLS": ("ranker", lambda: learners.PairwiseRankRLS(), *QUERY),
    "ReducedSetGlobalRankRLS": ("ranker", lambda: learners.ReducedSetGlobalRankRLS(
        n_basis=20, random_state=0), *FLAT),
    "ReducedSetQueryRankRLS": ("ranker", lambda: learners.ReducedSetQueryRankRLS(
        n_basis=20, random_state=0), *QUERY),
    "NystroemQueryRankRLS": ("ranker", lambda: learners.NystroemQueryRankRLS(
        n_basis=20, random_state=0), *QUERY),
    "CGRankRLS": ("ranker", lambda: learners.CGRankRLS(), *QUERY),
    "RankSVM": ("ranker", lambda: learners.RankSVM(), *QUERY),
    "KPCRank": ("ranker", lambda: learners.KPCRank(n_components=3, kernel="gaussian"), *QUERY),
    "GreedyRankRLS": ("ranker", lambda: learners.GreedyRankRLS(n_features_to_select=2),
                      *QUERY),
    "KronRankRLS": ("ranker", lambda: learners.KronRankRLS(kernel="gaussian"),
                    lambda e: e.fit(D.nodes, D.Y), (D.nodes_t, D.Yt, None)),
    "CoRankRLS": ("ranker", lambda: learners.CoRankRLS(mu=0.5),
                  lambda e: e.fit(views(D.X), D.y, D.q, views(D.Xt)),
                  (views(D.Xt), D.yt, D.qt)),
    "RLSCV": ("regressor", lambda: learners.RLSCV(alphas=CV_ALPHAS), *FLAT),
    "GlobalRankRLSCV": ("ranker", lambda: learners.GlobalRankRLSCV(alphas=CV_ALPHAS, cv=3),
                        *FLAT),
    "QueryRankRLSCV": ("ranker", lambda: learners.QueryRankRLSCV(alphas=CV_ALPHAS), *QUERY),
    "L2SVM": ("classifier", lambda: learners.L2SVM(),
              lambda e: e.fit(D.X, D.labels), (D.Xt, D.labels_t, None)),
    "NystroemMap": ("transformer", lambda: learners.NystroemMap(n_basis=10, random_state=0),
                    lambda e: e.fit(D.X), (D.Xt, None, None)),
}
ESTIMATORS = sorted(SPECS)
RANKERS = [n for n in ESTIMATORS if SPECS[n][0] == "ranker"]
REGRESSORS = [n for n in ESTIMATORS if SPECS[n][0] == "regressor"]
PRECOMPUTED = ["RLS", "GlobalRankRLS", "QueryRankRLS", "PairwiseRankRLS", "ReducedSetRLS",
               "ReducedSetGlobalRankRLS", "ReducedSetQueryRankRLS", "NystroemQueryRankRLS",
               "NystroemMap", "KPCRank",
               "L2SVM", "KronRLS", "KronRankRLS", "RLSCV", "GlobalRankRLSCV", "QueryRankRLSCV"]


def test_every_exported_estimator_is_covered():
    classes = {n for n in learners.__all__ if isinstance(getattr(learners, n), type)
               and hasattr(getattr(learners, n), "get_params")}
    aliases = {n for n in classes if getattr(learners, n).__name__ != n}
    assert aliases == {"ReducedSetRankRLS"}                 # = ReducedSetGlobalRankRLS
    assert classes - aliases == set(SPECS)


@pytest.mark.parametrize("name", RANKERS)
def test_ranker_score_is_the_concordance_index(name):
    _, make, fit, (Xt, yt, qt) = SPECS[name]
    model = fit(make())
    p = np.asarray(model.predict(Xt)).ravel()
    if name == "KronRankRLS":                              # queries: the start nodes
        qt = np.repeat(np.arange(Xt.shape[0]), Xt.shape[0])
        assert model.score(Xt, yt) == pytest.approx(cindex(yt.ravel(), p, qt), abs=1e-12)
        return
    yt = np.asarray(yt)
    expected = cindex(yt, p)
    assert model.score(Xt, yt) == pytest.approx(expected, abs=1e-12)
    assert model.score(Xt, yt) == pytest.approx(
        1.0 - disagreement_error(yt, p, ties=0.5), abs=1e-12)
    assert model.score(Xt, yt, qt) == pytest.approx(cindex(yt, p, qt), abs=1e-12)
    assert 0.5 < expected <= 1.0                            # a real ranker, not noise
    assert get_tags(model).estimator_type == "ranker"


@pytest.mark.parametrize("name", REGRESSORS)
def test_regressor_score_is_r2(name):
    _, make, fit, (Xt, yt, _) = SPECS[name]
    model = fit(make())
    p = np.asarray(model.predict(Xt))
    assert model.score(Xt, yt) == pytest.approx(r2_score(np.ravel(yt), p.ravel()), abs=1e-12)
    assert get_tags(model).estimator_type == "regressor"


def test_classifier_score_is_accuracy():
    _, make, fit, (Xt, yt, _) = SPECS["L2SVM"]
    model = fit(make())
    assert model.score(Xt, yt) == pytest.approx(accuracy_score(yt, model.predict(Xt)))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_every_hyperparameter_is_declared_and_validated_at_fit(name):
    _, make, fit, _ = SPECS[name]
    est = make()
    params = est.get_params(deep=False)
    assert set(est._parameter_constraints) == set(params)
    bad_type = type("BadType", (), {})()
    for param in params:
        with pytest.raises(InvalidParameterError, match=f"'{param}' parameter of {name} must"):
            fit(clone(est).set_params(**{param: bad_type}))
        for constraint in est._parameter_constraints[param]:
            try:
                bad = generate_invalid_param_val(make_constraint(constraint))
            except NotImplementedError:
                continue
            with pytest.raises(InvalidParameterError, match=f"'{param}' parameter"):
                fit(clone(est).set_params(**{param: bad}))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_no_fit_argument_repeats_a_hyperparameter(name):
    est = SPECS[name][1]()
    assert not set(inspect.signature(est.fit).parameters) & set(est.get_params(deep=False))


@pytest.mark.parametrize("name", ESTIMATORS)
def test_one_path_method_name(name):
    est = SPECS[name][1]()
    assert not hasattr(est, "decision_path")
    if hasattr(est, "predict_path"):
        grid = list(inspect.signature(est.predict_path).parameters)[1]
        # the path's hyper-parameter, in the plural (RankSVM's path is over C)
        assert grid == {"KPCRank": "n_components", "RankSVM": "Cs"}.get(name, "alphas")


@pytest.mark.parametrize("name", ESTIMATORS)
def test_pairwise_tag_where_precomputed_is_accepted(name):
    est = SPECS[name][1]()
    assert not get_tags(est).input_tags.pairwise
    if name in PRECOMPUTED:
        assert get_tags(clone(est).set_params(kernel="precomputed")).input_tags.pairwise
    else:
        assert "kernel" not in est.get_params()


@pytest.mark.parametrize("name", ["RLS", "GlobalRankRLS", "L2SVM", "KronRankRLS", "KPCRank"])
def test_predict_path_has_the_grid_first(name):
    _, make, fit, (Xt, _, _) = SPECS[name]
    model = fit(make())
    if name == "KPCRank":
        path = model.predict_path(Xt, [1, 3])
        np.testing.assert_allclose(path[1], model.predict(Xt))
        return
    path = model.predict_path(Xt, [0.5, 1.0])
    direct = model.decision_function(Xt) if name == "L2SVM" else model.predict(Xt)
    np.testing.assert_allclose(path[1], direct, rtol=1e-7, atol=1e-9)

