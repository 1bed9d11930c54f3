"""scikit-learn estimator checks on the learners (get_params/clone/fit/predict conventions).

All checks pass without exceptions for RLS, GlobalRankRLS, PairwiseRankRLS (scores y, pairs
built from them), ReducedSetGlobalRankRLS, GreedyRLS, RankSVM, KPCRank, NystroemMap, the CV
variants and the binary classifier L2SVM (tagged ``multi_class=False``, so the multi-class
checks are skipped); CGRLS and CGRankRLS are checked in ``tests/learners/test_cg.py``. The
rankers carry the estimator type "ranker", so regression-accuracy checks do not run on them.
Not here: ReducedSetRLS (with the few basis vectors the small check data allow it is not
accurate enough for ``check_regressors_train``), QueryRankRLS / QueryRankRLSCV /
ReducedSetQueryRankRLS / GreedyRankRLS (need qids in ``fit``), the Kronecker learners (a label
matrix over node pairs) and the co-regularized learners (a list of views); their
clone/params behaviour is tested directly below and in ``test_contract.py``.
"""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import parametrize_with_checks

from learners import (
    L2SVM,
    RLS,
    RLSCV,
    GlobalRankRLS,
    GlobalRankRLSCV,
    GreedyRLS,
    KPCRank,
    NystroemMap,
    PairwiseRankRLS,
    QueryRankRLS,
    QueryRankRLSCV,
    RankSVM,
    ReducedSetGlobalRankRLS,
)

_ALPHAS = (0.1, 1.0, 10.0)


@parametrize_with_checks(
    [
        RLS(),
        RLS(kernel="gaussian", gamma=0.5),
        RLS(kernel="precomputed"),
        GlobalRankRLS(kernel="precomputed"),
        GlobalRankRLS(),
        GlobalRankRLS(kernel="gaussian", gamma=0.5),
        PairwiseRankRLS(),
        PairwiseRankRLS(kernel="precomputed", cost="discrete"),
        ReducedSetGlobalRankRLS(n_basis=5, random_state=0),
        GreedyRLS(n_features_to_select=1),
        RankSVM(),
        KPCRank(n_components=1),
        KPCRank(n_components=1, kernel="precomputed"),
        NystroemMap(n_basis=5, random_state=0),
        RLSCV(alphas=_ALPHAS),
        GlobalRankRLSCV(alphas=_ALPHAS, cv=3),
        L2SVM(),
        L2SVM(kernel="gaussian", gamma=0.5, class_weight="balanced"),
        L2SVM(kernel="precomputed"),
    ],
)
@pytest.mark.slow
def test_sklearn_checks(estimator, check):
    check(estimator)


def test_query_rankrls_clone_and_params(rng):
    """QueryRankRLS needs qids in fit, so the generic checks do not apply; check the basics."""
    est = QueryRankRLS(alpha=0.5, kernel="gaussian", gamma=0.3)
    c = clone(est)
    assert c.get_params() == est.get_params()
    X, y, q = rng.normal(size=(20, 3)), rng.normal(size=20), rng.integers(0, 3, 20)
    c.fit(X, y, q)
    assert c.predict(X).shape == (20,)
    c.set_params(alpha=2.0)
    assert c.fit(X, y, q).dual_coef_.shape == (20,)


def test_pairwise_and_query_cv_clone(rng):
    for est in (PairwiseRankRLS(alpha=0.5, cost="discrete"), QueryRankRLSCV(alphas=(1.0, 2.0))):
        c = clone(est)
        assert c.get_params() == est.get_params()
    X = rng.normal(size=(12, 3))
    p = clone(PairwiseRankRLS(cost="discrete")).fit(
        X, pairs=np.array([[0, 1], [2, 3], [4, 1]]))
    assert p.predict(X).shape == (12,)
