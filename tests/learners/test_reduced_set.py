"""Reduced-set RLS / RankRLS: fit equals the closed form (Paper I eq. 41); every CV shortcut
equals explicit retraining on the training part with the remaining basis vectors."""

import numpy as np
import pytest
from sklearn.base import clone

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix
from learners.reduced_set import ReducedSetGlobalRankRLS, ReducedSetQueryRankRLS, ReducedSetRLS

ALPHAS = 2.0 ** np.array([-15, -7, -1, 0, 4, 15])
GAMMA = 0.4


def _data(rng, m=36, n=3, t=1):
    X = rng.standard_normal((m, n))
    Y = np.column_stack([np.sin(X[:, 0] + j) + X[:, 1] ** 2 for j in range(t)])
    Y += 0.2 * rng.standard_normal(Y.shape)
    return X, (Y[:, 0] if t == 1 else Y)


def _laplacian(kind, idx, qids):
    """Loss matrix restricted to training rows ``idx``."""
    k = idx.size
    if kind == "rls":
        return np.eye(k)
    if kind == "global":
        return k * np.eye(k) - np.ones((k, k))
    q = qids[idx]
    same = (q[:, None] == q[None, :]).astype(float)
    return np.diag(same.sum(1)) - same


def _retrain(X, Y, train, test, L_basis, alpha, eps, kind, qids=None):
    """Brute force: closed form (eq. 41) on rows ``train`` with basis ``L_basis``."""
    K = kernel_matrix(X, X, "gaussian", gamma=GAMMA)
    KtL = K[np.ix_(train, L_basis)]
    KLL = K[np.ix_(L_basis, L_basis)] + eps * np.eye(L_basis.size)
    Lap = _laplacian(kind, train, qids)
    Yt = Y[train]
    b = np.linalg.solve(KtL.T @ Lap @ KtL + alpha * KLL, KtL.T @ Lap @ Yt)
    return K[np.ix_(test, L_basis)] @ b, b


def _close(a, b, tol=1e-8):
    scale = max(1.0, np.abs(b).max())
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale)


@pytest.mark.parametrize("cls,kind", [(ReducedSetRLS, "rls"), (ReducedSetGlobalRankRLS, "global")])
def test_fit_and_path_equal_closed_form(rng, cls, kind):
    X, y = _data(rng)
    m = X.shape[0]
    model = cls(alpha=0.3, kernel="gaussian", gamma=GAMMA, n_basis=10, random_state=4).fit(X, y)
    R = model.basis_indices_
    _, b = _retrain(X, y, np.arange(m), np.arange(m), R, 0.3, model.nystroem_.jitter_, kind)
    _close(model.dual_coef_, b)
    path = model.regularization_path(ALPHAS)
    for a, bp in zip(ALPHAS, path):
        _, b = _retrain(X, y, np.arange(m), np.arange(m), R, a, model.nystroem_.jitter_, kind)
        _close(bp, b, 1e-7)
    Xt = rng.standard_normal((5, X.shape[1]))
    Kt = kernel_matrix(Xt, X[R], "gaussian", gamma=GAMMA)
    _close(model.predict(Xt), Kt @ model.dual_coef_)
    _close(model.predict_path(Xt, ALPHAS), np.stack([Kt @ bp for bp in path]))


@pytest.mark.parametrize("remove", [True, False])
@pytest.mark.parametrize("cls,kind", [(ReducedSetRLS, "rls"), (ReducedSetGlobalRankRLS, "global")])
def test_holdout_sets_equal_retraining(rng, cls, kind, remove):
    """Large folds (direct route) and small folds (low-rank route), with and without removal."""
    X, Y = _data(rng, m=40, t=2)
    m = X.shape[0]
    model = cls(alpha=1.0, gamma=GAMMA, n_basis=12, random_state=0, remove_basis=remove).fit(X, Y)
    R, eps = model.basis_indices_, model.nystroem_.jitter_
    perm = rng.permutation(m)
    folds = np.array_split(perm, 3) + [perm[:2], np.array([R[0]]), np.array([R[1], R[5], 7])]
    preds = model.holdout_sets(folds, alphas=ALPHAS)
    for U, P in zip(folds, preds):
        assert P.shape == (ALPHAS.size, U.size, 2)
        train = np.setdiff1d(np.arange(m), U)
        basis = np.setdiff1d(R, U) if remove else R
        for a, Pa in zip(ALPHAS, P):
            expected, _ = _retrain(X, Y, train, U, basis, a, eps, kind)
            _close(Pa, expected, 1e-7)
    single = model.holdout(folds[0])
    _close(single, _retrain(X, Y, np.setdiff1d(np.arange(m), folds[0]), folds[0],
                            np.setdiff1d(R, folds[0]) if remove else R, 1.0, eps, kind)[0], 1e-7)


@pytest.mark.parametrize("remove", [True, False])
def test_leave_one_out_equals_retraining(rng, remove):
    X, y = _data(rng, m=30)
    m = X.shape[0]
    model = ReducedSetRLS(alpha=0.5, gamma=GAMMA, n_basis=9, random_state=2,
                          remove_basis=remove).fit(X, y)
    R, eps = model.basis_indices_, model.nystroem_.jitter_
    loo = model.leave_one_out(alphas=ALPHAS)
    assert loo.shape == (ALPHAS.size, m)
    for j in range(m):
        train = np.setdiff1d(np.arange(m), [j])
        basis = np.setdiff1d(R, [j]) if remove else R
        for a, la in zip(ALPHAS, loo):
            expected, _ = _retrain(X, y, train, np.array([j]), basis, a, eps, "rls")
            _close(la[j], expected[0], 1e-7)
    # holdout of single rows goes the low-rank route; must agree with the vectorized LOO
    _close(np.concatenate(model.holdout_sets([[j] for j in range(m)])), model.leave_one_out())


def test_query_rankrls_leave_query_out_equals_retraining(rng):
    X, Y = _data(rng, m=42, t=2)
    m = X.shape[0]
    qids = np.repeat(np.arange(7), 6)[rng.permutation(m)]
    model = ReducedSetQueryRankRLS(alpha=0.7, gamma=GAMMA, n_basis=14, random_state=1).fit(
        X, Y, qids=qids)
    R, eps = model.basis_indices_, model.nystroem_.jitter_
    _, b = _retrain(X, Y, np.arange(m), np.arange(m), R, 0.7, eps, "query", qids)
    _close(model.dual_coef_, b)
    lqo = model.leave_query_out(alphas=ALPHAS)
    assert lqo.shape == (ALPHAS.size, m, 2)
    for q in range(7):
        U = np.flatnonzero(qids == q)
        train = np.setdiff1d(np.arange(m), U)
        for a, P in zip(ALPHAS, lqo):
            expected, _ = _retrain(X, Y, train, U, np.setdiff1d(R, U), a, eps, "query", qids)
            _close(P[U], expected, 1e-7)
    split = np.concatenate([np.flatnonzero(qids == 0)[:3], np.flatnonzero(qids == 4)[:1],
                            np.array([R[2]])])                 # splits queries
    folds = [np.flatnonzero(np.isin(qids, [0, 1, 2])), np.flatnonzero(np.isin(qids, [3, 4, 5, 6])),
             np.unique(split), np.flatnonzero(qids == 2)[:5]]
    for U, P in zip(folds, model.holdout_sets(folds, alphas=ALPHAS)):
        for a, Pa in zip(ALPHAS, P):
            expected, _ = _retrain(X, Y, np.setdiff1d(np.arange(m), U), U,
                                   np.setdiff1d(R, U), a, eps, "query", qids)
            _close(Pa, expected, 1e-7)
    pairs = np.array([[0, 5], [R[0], R[3]]])
    lpo = model.leave_pair_out(pairs)
    for pr, P in zip(pairs, lpo):
        expected, _ = _retrain(X, Y, np.setdiff1d(np.arange(m), pr), pr,
                               np.setdiff1d(R, pr), 0.7, eps, "query", qids)
        _close(P, expected, 1e-7)
    with pytest.raises(InvalidInputError):
        ReducedSetQueryRankRLS(n_basis=5).fit(X, Y)       # qids required


def test_global_rankrls_leave_one_out_and_pairs(rng):
    X, y = _data(rng, m=20)
    m = X.shape[0]
    model = ReducedSetGlobalRankRLS(alpha=0.3, gamma=GAMMA, n_basis=8, random_state=5).fit(X, y)
    R, eps = model.basis_indices_, model.nystroem_.jitter_
    loo = model.leave_one_out(alphas=ALPHAS[[0, 3]])
    for j in range(m):
        train = np.setdiff1d(np.arange(m), [j])
        for a, la in zip(ALPHAS[[0, 3]], loo):
            expected, _ = _retrain(X, y, train, np.array([j]), np.setdiff1d(R, [j]), a, eps,
                                   "global")
            _close(la[j], expected[0], 1e-7)
    pairs = np.array([[R[0], 3], [1, 2]])
    for pr, P in zip(pairs, model.leave_pair_out(pairs)):
        expected, _ = _retrain(X, y, np.setdiff1d(np.arange(m), pr), pr, np.setdiff1d(R, pr),
                               0.3, eps, "global")
        _close(P, expected, 1e-7)


def test_removal_matters_for_basis_vectors(rng):
    """Held-out basis vectors left in the model make the estimate differ (Paper III Fig. 1)."""
    X, y = _data(rng, m=30)
    kw = dict(alpha=2.0 ** -12, gamma=GAMMA, n_basis=15, random_state=0)
    a = ReducedSetRLS(remove_basis=True, **kw).fit(X, y).leave_one_out()
    b = ReducedSetRLS(remove_basis=False, **kw).fit(X, y).leave_one_out()
    R = ReducedSetRLS(**kw).fit(X, y).basis_indices_
    nonbasis = np.setdiff1d(np.arange(30), R)
    _close(a[nonbasis], b[nonbasis])
    assert np.abs(a[R] - b[R]).max() > 1e-3


def test_validation_and_sklearn_conventions(rng):
    X, y = _data(rng, m=20)
    with pytest.raises(InvalidParameterError):
        ReducedSetRLS(alpha=-1.0).fit(X, y)
    with pytest.raises(InvalidParameterError):
        ReducedSetRLS(kernel="gausian").fit(X, y)
    with pytest.raises(InvalidInputError):
        ReducedSetRLS(n_basis=5).fit(X, y[:-1])
    bad = X.copy()
    bad[0, 0] = np.nan
    with pytest.raises(InvalidInputError):
        ReducedSetRLS(n_basis=5).fit(bad, y)
    model = ReducedSetRLS(n_basis=5, random_state=0).fit(X, y)
    with pytest.raises(InvalidInputError):
        model.holdout(np.arange(25))
    with pytest.raises(InvalidInputError):
        model.holdout(model.basis_indices_)           # every basis vector held out
    c = clone(model).set_params(n_basis=6)
    assert c.get_params()["n_basis"] == 6 and not hasattr(c, "dual_coef_")


def test_sparse_and_precomputed_inputs_match_dense(rng):
    import scipy.sparse as sp
    X, y = _data(rng, m=25)
    X[X < 0.3] = 0.0
    kw = dict(alpha=0.5, n_basis=7, random_state=3)
    dense = ReducedSetRLS(kernel="gaussian", gamma=GAMMA, **kw).fit(X, y)
    sparse = ReducedSetRLS(kernel="gaussian", gamma=GAMMA, **kw).fit(sp.csr_matrix(X), y)
    K = kernel_matrix(X, X, "gaussian", gamma=GAMMA)
    pre = ReducedSetRLS(kernel="precomputed", **kw).fit(K, y)
    Xt = rng.standard_normal((4, X.shape[1]))
    Kt = kernel_matrix(Xt, X, "gaussian", gamma=GAMMA)
    _close(sparse.predict(sp.csr_matrix(Xt)), dense.predict(Xt))
    _close(pre.predict(Kt), dense.predict(Xt))
    _close(pre.leave_one_out(), dense.leave_one_out())


def test_lowrank_route_is_independent_of_lambda_batching(rng):
    """The low-rank route evaluates all λ in batches bounded by memory; batch size 1 must
    give the same predictions as one batch."""
    X, y = _data(rng, m=30)
    model = ReducedSetQueryRankRLS(gamma=GAMMA, n_basis=10, random_state=1).fit(
        X, y, qids=np.repeat(np.arange(6), 5))
    U = np.array([0, 1, 2, 3, 4, 11])
    posH = model._removed_positions(U)
    whole = model._holdout_lowrank(U, posH, ALPHAS)
    one_by_one = model._holdout_lowrank(U, posH, ALPHAS, max_bytes=1)
    _close(one_by_one, whole, 1e-12)
