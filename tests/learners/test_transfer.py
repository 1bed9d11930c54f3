"""TransferRLS / TransferReducedSetRLS (learners.transfer): the fit minimizes
Σ (y − f)² + λ ‖f − β g‖² (checked in the primal, where it has its own closed form); every
path, leave-one-out, hold-out and leave-pair-out prediction equals explicit retraining on the
residual targets y − β g of the remaining rows plus β g; the selection engine serves (λ, β)
from one fit, equal to refitting every candidate; with prior=None it is the base learner."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.utils.estimator_checks import check_estimator

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix
from learners.reduced_set import ReducedSetRLS
from learners.registry import make_learner
from learners.rls import RLS
from learners.selection import Channels, Scoring, Search, nested_cross_validate, select
from learners.splits import RowStructure, folds_to_sets, group_folds, group_sets
from learners.transfer import TransferReducedSetRLS, TransferRLS

# a wide λ range: 2^-20 makes the dual system ill-conditioned (K has rank n < m below)
ALPHAS = 2.0 ** np.array([-20, -8, -1, 0, 3, 12])
BETAS = np.array([-0.5, 0.0, 0.3, 1.0, 2.5])
GAMMA = 0.3


def _data(rng, m=40, n=4):
    X = rng.standard_normal((m, n))
    y = np.sign(X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.4 + 0.3 * rng.standard_normal(m))
    g = 0.8 * X[:, 0] + 0.2 * rng.standard_normal(m)       # a source hypothesis' scores
    groups = rng.integers(0, 9, m)
    return X, y, g, groups


def _close(a, b, tol=1e-8):
    scale = max(1.0, np.abs(b).max())
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * scale)


def _explicit(K, y, g, train, test, alpha, beta):
    """Brute force: RLS on the residual targets of ``train`` (one solve), plus β g."""
    a = np.linalg.solve(K[np.ix_(train, train)] + alpha * np.eye(train.size),
                        y[train] - beta * g[train])
    return K[np.ix_(test, train)] @ a + beta * g[test]


def test_primal_objective(rng):
    """Linear kernel, g(x) = v·x: the minimizer of ‖y − Xw‖² + λ‖w − βv‖² is
    w = (XᵀX + λI)⁻¹ (Xᵀy + λβv) — an independent closed form of the objective."""
    X, y, _, _ = _data(rng, m=30, n=6)
    v = rng.standard_normal(6)
    for alpha in (1e-3, 0.7, 50.0):
        for beta in (0.0, 0.6, 2.0):
            w = np.linalg.solve(X.T @ X + alpha * np.eye(6), X.T @ y + alpha * beta * v)
            Xn = rng.standard_normal((7, 6))
            for solver in ("primal", "dual"):
                m = TransferRLS(alpha=alpha, beta=beta, kernel="linear",
                                solver=solver).fit(X, y, prior=X @ v)
                _close(m.predict(Xn, prior=Xn @ v), Xn @ w)


@pytest.mark.parametrize("kernel", ["linear", "gaussian"])
def test_path_holdouts_equal_explicit_retraining(rng, kernel):
    X, y, g, groups = _data(rng)
    kw = {"gamma": GAMMA} if kernel == "gaussian" else {}
    K = kernel_matrix(X, X, kernel, **kw)
    m = len(y)
    model = TransferRLS(kernel="precomputed").fit(K, y, prior=g)
    every = np.arange(m)
    P = model.predict_path(K, ALPHAS, BETAS, prior=g)
    assert P.shape == (len(ALPHAS), len(BETAS), m)
    sets = group_sets(groups)
    H = model.holdout_sets(sets, alphas=ALPHAS, betas=BETAS)
    L = model.leave_one_out(alphas=ALPHAS, betas=BETAS)
    pairs = np.array([[0, 5], [3, 17], [20, 39]])
    LP = model.leave_pair_out(pairs, alphas=ALPHAS, betas=BETAS)
    assert LP.shape == (len(ALPHAS), len(BETAS), 3, 2)
    for ia, a in enumerate(ALPHAS):
        tol = 1e-6 if a < 1e-5 else 1e-8       # cond(K + λI) ≈ 1e7 at λ = 2^-20
        for ib, b in enumerate(BETAS):
            _close(P[ia, ib], _explicit(K, y, g, every, every, a, b), tol)
            for S, Q in zip(sets, H):
                rest = np.setdiff1d(every, S)
                _close(Q[ia, ib], _explicit(K, y, g, rest, S, a, b), tol)
            for i in (0, 11, 39):
                rest = np.setdiff1d(every, [i])
                _close(L[ia, ib, i], _explicit(K, y, g, rest, np.array([i]), a, b)[0], tol)
            for k, (i, j) in enumerate(pairs):
                rest = np.setdiff1d(every, [i, j])
                _close(LP[ia, ib, k], _explicit(K, y, g, rest, np.array([i, j]), a, b), tol)


def test_single_point_shapes_and_beta_zero_is_rls(rng):
    X, y, g, groups = _data(rng)
    t = TransferRLS(alpha=0.4, beta=0.0, kernel="gaussian", gamma=GAMMA).fit(X, y, prior=g)
    r = RLS(alpha=0.4, kernel="gaussian", gamma=GAMMA).fit(X, y)
    _close(t.predict(X[:5], prior=g[:5]), r.predict(X[:5]), 1e-10)
    _close(t.holdout(np.array([1, 2])), r.holdout(np.array([1, 2])), 1e-10)
    assert t.leave_one_out().shape == (40,)
    assert t.holdout_sets(group_sets(groups), alphas=ALPHAS)[0].ndim == 2
    # prior=None: the zero hypothesis, i.e. the base learner, for every β
    n = TransferRLS(alpha=0.4, beta=3.0, kernel="gaussian", gamma=GAMMA).fit(X, y)
    _close(n.predict(X), r.predict(X), 1e-10)


def test_multiple_outputs_equal_separate_fits(rng):
    X, y, g, groups = _data(rng)
    Y, G = np.column_stack([y, -y]), np.column_stack([g, 0.5 * g])
    both = TransferRLS(alpha=0.2, beta=0.7, kernel="gaussian", gamma=GAMMA).fit(X, Y, prior=G)
    sets = group_sets(groups)
    for j in range(2):
        one = clone(both).fit(X, Y[:, j], prior=G[:, j])
        _close(both.predict(X[:4], prior=G[:4])[:, j], one.predict(X[:4], prior=G[:4, j]))
        _close(both.predict_path(X, ALPHAS, BETAS, prior=G)[..., j],
               one.predict_path(X, ALPHAS, BETAS, prior=G[:, j]))
        for P, Q in zip(both.holdout_sets(sets, ALPHAS, BETAS), one.holdout_sets(sets, ALPHAS,
                                                                                 BETAS)):
            _close(P[..., j], Q)


@pytest.mark.slow
def test_reduced_set_holdouts_equal_retraining_with_remaining_basis(rng):
    """TransferReducedSetRLS: hold-outs equal ReducedSetRLS refitted on the residual targets
    of the remaining rows with the remaining basis vectors (as the base learner's own)."""
    X, y, g, groups = _data(rng, m=50)
    model = TransferReducedSetRLS(kernel="gaussian", gamma=GAMMA, n_basis=12,
                                  random_state=3).fit(X, y, prior=g)
    R = model.basis_indices_
    sets = group_sets(groups)
    H = model.holdout_sets(sets, alphas=ALPHAS[1:], betas=BETAS)
    for S, Q in zip(sets[:4], H[:4]):
        rest = np.setdiff1d(np.arange(50), S)
        keep = np.flatnonzero(np.isin(R, rest))
        basis = np.searchsorted(rest, R[keep])
        for ia, a in enumerate(ALPHAS[1:]):
            for ib, b in enumerate(BETAS):
                ref = ReducedSetRLS(alpha=a, kernel="gaussian", gamma=GAMMA,
                                    basis_indices=basis, jitter=model.nystroem_.jitter_) \
                    .fit(X[rest], y[rest] - b * g[rest])
                _close(Q[ia, ib], ref.predict(X[S]) + b * g[S], 1e-7)


def test_engine_closed_form_equals_refit_and_beta_order(rng):
    X, y, g, groups = _data(rng)
    K = kernel_matrix(X, X, "gaussian", gamma=GAMMA)
    est = TransferRLS(kernel="precomputed")
    kw = dict(cv="group", structure=RowStructure(groups=groups),
              scoring=Scoring("auc", threshold="f1"),
              channels=Channels(fit={"prior": g}, predict={"prior": g}))
    fast = select(est, K, y, search={"alpha": ALPHAS[1:], "beta": BETAS}, **kw)
    slow = select(est, K, y, search=Search({"alpha": ALPHAS[1:], "beta": BETAS},
                                           method="refit"), **kw)
    np.testing.assert_allclose(fast.scores, slow.scores, atol=1e-12)
    # the path given beta-first enumerates candidates beta-major: same scores, permuted
    swapped = select(est, K, y, search={"beta": BETAS, "alpha": ALPHAS[1:]}, **kw)
    perm = [swapped.candidates.index({"alpha": c["alpha"], "beta": c["beta"]})
            for c in fast.candidates]
    np.testing.assert_allclose(swapped.scores[perm], fast.scores, atol=1e-12)
    assert fast.best_params == swapped.best_params
    # and each candidate's score is that of the explicit residual fits
    from learners.measures import auc
    every = np.arange(len(y))
    for c, s in list(zip(fast.candidates, fast.scores))[::7]:
        pooled = np.empty(len(y))
        for S in group_sets(groups):
            pooled[S] = _explicit(K, y, g, np.setdiff1d(every, S), S, c["alpha"], c["beta"])
        assert abs(auc(y, pooled) - s) < 1e-9
    p = fast.predict(K[:6], prior=g[:6])
    _close(p, _explicit(K, y, g, every, np.arange(6), fast.best_params["alpha"],
                        fast.best_params["beta"]))


def test_nested_cv_slices_the_prior(rng):
    X, y, g, groups = _data(rng)
    K = kernel_matrix(X, X, "gaussian", gamma=GAMMA)
    sets = folds_to_sets(group_folds(groups, 3, 0))
    out = nested_cross_validate(TransferRLS(kernel="precomputed"), K, y, sets,
                                structure=RowStructure(groups=groups),
                                search={"alpha": ALPHAS[1:], "beta": BETAS},
                                scoring=Scoring("auc", threshold="f1"),
                                channels=Channels(fit={"prior": g}, predict={"prior": g}),
                                progress=False)
    every = np.arange(len(y))
    for f in out["folds"]:
        train = np.setdiff1d(every, f["test"])
        bp = f["best_params"]
        _close(f["scores"], _explicit(K, y, g, train, f["test"], bp["alpha"], bp["beta"]))


@pytest.mark.slow
def test_bad_input_and_sklearn_conventions(rng):
    X, y, g, _ = _data(rng)
    with pytest.raises(InvalidInputError, match="prior"):
        TransferRLS().fit(X, y, prior=g[:-1])
    with pytest.raises(InvalidInputError, match="row 3"):
        TransferRLS().fit(X, y, prior=np.where(np.arange(40) == 3, np.nan, g))
    with pytest.raises(InvalidInputError, match="output"):
        TransferRLS().fit(X, np.column_stack([y, y]), prior=np.ones((40, 3)))
    with pytest.raises(InvalidInputError, match="row of X"):
        TransferRLS().fit(X, y, prior=g).predict(X[:3], prior=g)
    with pytest.raises(InvalidParameterError):
        TransferRLS(beta=np.inf).fit(X, y, prior=g)
    est = make_learner("transfer_rls", beta=0.5, alpha=2.0)
    assert clone(est).get_params() == est.get_params()
    assert make_learner("transfer_reduced_set", n_basis=7).n_basis == 7
    check_estimator(TransferRLS(kernel="gaussian", gamma=0.5))
