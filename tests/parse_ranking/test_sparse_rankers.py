"""Sparse rankers: Nyström features + linear query RankRLS equals the brute-force
reduced-set solution (Paper I eq. 41) and the reduced-set learner; the blocked Nyström map
equals the unblocked one; the parse rankers ``sparse_rankrls`` / ``nystroem_rankrls`` choose
λ (and the basis size) by inner CV equal to explicit retraining without the held-out rows,
never form a parse-by-parse Gram matrix in ``cv``, and become the default above
``SPARSE_ABOVE`` parses. Random data and synthetic linkages (no Link Grammar needed)."""

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.kernels import kernel_matrix
from learners.measures import disagreement_error
from learners.nystroem import NystroemMap
from learners.reduced_set import NystroemQueryRankRLS, ReducedSetQueryRankRLS
from learners.registry import make_learner
from learners.selection import best_candidate
from parse_ranking import evaluation
from parse_ranking.evaluation import cross_validate, default_rankers, flatten
from parse_ranking.names import CV_RANKERS, SPARSE_ABOVE, SPARSE_CV_RANKERS
from parse_ranking.ranking import BASIS, fit_ranker, fit_sparse_ranker
from parse_ranking.representations import FoldFeatures, ParseRepresentation
from tests.parse_ranking.test_coreg import synthetic_records

ALPHAS = np.array([1e-3, 0.1, 1.0, 30.0])


def _query_laplacian(q):
    same = (q[:, None] == q[None, :]).astype(float)
    return np.diag(same.sum(1)) - same


def _brute_force(K, y, q, train, test, basis, alpha, eps):
    """min_b (y - K_TB b)^T L (y - K_TB b) + alpha b^T (K_BB + eps I) b on rows ``train``
    (L: pairs inside queries), predictions for ``test``: the explicit normal equations."""
    KtB = K[np.ix_(train, basis)]
    L = _query_laplacian(q[train])
    b = np.linalg.solve(KtB.T @ L @ KtB + alpha * (K[np.ix_(basis, basis)]
                                                   + eps * np.eye(basis.size)),
                        KtB.T @ L @ y[train])
    return K[np.ix_(test, basis)] @ b, b


def _centred(X, q, rows, among):
    """Explicit ``x_j - mean of x_i over i in among with q_i = q_j`` for every j in rows."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X)
    return np.stack([X[j] - X[among[q[among] == q[j]]].mean(axis=0) for j in rows])


def _brute_force_vectors(X, y, q, train, test, Z, alpha, eps):
    """Brute force of :func:`_brute_force` for basis vectors ``Z`` (linear kernel):
    ``f(x) = x Z^T b`` with ``b`` from the explicit normal equations on rows ``train``."""
    X = np.asarray(X.toarray() if sp.issparse(X) else X)
    KtB = X[train] @ Z.T
    L = _query_laplacian(q[train])
    b = np.linalg.solve(KtB.T @ L @ KtB + alpha * (Z @ Z.T + eps * np.eye(Z.shape[0])),
                        KtB.T @ L @ y[train])
    return X[test] @ Z.T @ b


def _close(a, b, tol=1e-8):
    np.testing.assert_allclose(a, b, rtol=tol, atol=tol * max(1.0, np.abs(b).max()))


def _random_queries(rng, m=60, n=5, n_queries=12):
    X = rng.standard_normal((m, n))
    q = np.repeat(np.arange(n_queries), m // n_queries)[rng.permutation(m)]
    y = X[:, 0] - 0.5 * X[:, 1] ** 2 + 0.3 * rng.standard_normal(m)
    return X, y, q


def test_nystroem_query_rankrls_equals_brute_force_and_reduced_set(rng):
    X, y, q = _random_queries(rng)
    m = X.shape[0]
    K = kernel_matrix(X, X, "gaussian", gamma=0.4)
    model = NystroemQueryRankRLS(alpha=0.7, kernel="gaussian", gamma=0.4, n_basis=17,
                                 random_state=3).fit(X, y, q)
    R, eps = model.basis_indices_, model.nystroem_.jitter_
    test = np.arange(m)
    expected, b = _brute_force(K, y, q, test, test, R, 0.7, eps)
    _close(model.dual_coef_, b)
    _close(model.predict(X), expected)
    # the same model as the reduced-set learner with the same basis (Paper III Sect. 2.2)
    rs = ReducedSetQueryRankRLS(alpha=0.7, kernel="gaussian", gamma=0.4, n_basis=17,
                                random_state=3).fit(X, y, q)
    np.testing.assert_array_equal(rs.basis_indices_, R)
    _close(model.predict(X), rs.predict(X))
    # the λ path equals one brute-force fit per λ
    path = model.predict_path(X[:9], ALPHAS)
    for a, P in zip(ALPHAS, path):
        _close(P, _brute_force(K, y, q, test, np.arange(9), R, a, eps)[0], 1e-7)
    # n_basis above the number of rows: every row is a basis vector (the exact RankRLS)
    full = NystroemQueryRankRLS(alpha=0.7, kernel="gaussian", gamma=0.4, n_basis=10 * m,
                                jitter=0.0).fit(X, y, q)
    assert full.basis_indices_.size == m
    assert type(make_learner("nystroem_query_rankrls")) is NystroemQueryRankRLS
    assert type(make_learner("reduced_set_query_rankrls")) is ReducedSetQueryRankRLS


def test_blocked_nystroem_map_equals_unblocked(rng):
    X = sp.random(53, 40, density=0.2, format="csr", random_state=1)
    nm = NystroemMap(kernel="linear", n_basis=11, random_state=0).fit(X)
    whole = nm.map_from_kernel(nm.basis_kernel(X))
    for block in (1, 7, 52, 53, 1000):
        np.testing.assert_allclose(nm.transform(X, block_rows=block), whole, rtol=1e-12,
                                   atol=1e-14)


def test_tie_rule_prefers_fewer_basis_vectors():
    cands = [{"n_basis": 200, "alpha": 1.0}, {"n_basis": 100, "alpha": 1.0},
             {"n_basis": 100, "alpha": 0.5}]
    assert best_candidate([0.3, 0.3, 0.3], cands, False) == 1
    assert best_candidate([0.2, 0.3, 0.3], cands, False) == 0


def _features(records, kind="links_words"):
    items, y, qids, arts, _ = flatten(records, 6)
    X = ParseRepresentation(kind).fit_transform(items)
    return X, y, qids, arts


@pytest.mark.slow
def test_sparse_rankrls_inner_scores_equal_explicit_retraining(rng):
    """Every candidate's inner leave-sentence-out disagreement equals the one of models
    retrained without the sentence AND without its basis vectors (brute force: the
    sentence-centred basis vectors of the other sentences, explicit normal equations)."""
    X, y, qids, arts = _features(synthetic_records(rng, n_articles=3, per_article=4))
    sizes = (9, 20)
    sel, info = fit_sparse_ranker("sparse_rankrls", X, y, qids, arts, ALPHAS, sizes, seed=2)
    m = y.size
    got = sel.holdout.in_row_order(m)               # (candidates, m): n_basis outer, λ inner
    assert got.shape == (len(sizes) * ALPHAS.size, m)
    expected = []
    for r in sizes:
        ref = ReducedSetQueryRankRLS(kernel="linear", n_basis=r, random_state=2,
                                     **BASIS).fit(X, y, qids)
        R, eps = ref.basis_indices_, ref.nystroem_.jitter_
        _close(ref.nystroem_.basis_X_.toarray(), _centred(X, qids, R, np.arange(m)), 1e-12)
        P = np.empty((ALPHAS.size, m))
        for s in np.unique(qids):
            U = np.flatnonzero(qids == s)
            train = np.setdiff1d(np.arange(m), U)
            Z = _centred(X, qids, np.setdiff1d(R, U), train)
            for i, a in enumerate(ALPHAS):
                P[i, U] = _brute_force_vectors(X, y, qids, train, U, Z, a, eps)
        expected.append(P)
    expected = np.concatenate(expected)
    for g, e in zip(got, expected):
        _close(g, e, 1e-7)
    # the scores are the disagreement of those predictions (rounded as the engine does)
    scale = np.abs(got).max(axis=1, keepdims=True) * 1e-9
    np.testing.assert_allclose(info["inner_disagreement"],
                               [disagreement_error(y, p, qids)
                                for p in np.round(got / scale) * scale], rtol=1e-12)
    assert info["alpha"] in ALPHAS and info["n_basis"] in sizes
    # the selected model predicts like the reduced-set learner refitted at the winner
    best = ReducedSetQueryRankRLS(kernel="linear", n_basis=info["n_basis"], random_state=2,
                                  alpha=info["alpha"], **BASIS).fit(X, y, qids)
    _close(np.asarray(sel.predict(X[:10])), best.predict(X[:10]), 1e-7)


@pytest.mark.parametrize("selection", ["uniform", "rpcholesky"])
def test_centred_basis_holdout_splitting_a_query_equals_retraining(rng, selection):
    """A hold-out set that splits queries removes the basis vectors of every touched query;
    the predictions equal the explicit retraining on the other rows (their split queries
    centred over what remains) with the untouched queries' basis vectors, to 1e-8."""
    X, y, q = _random_queries(rng, m=48, n=6, n_queries=8)
    model = ReducedSetQueryRankRLS(kernel="linear", n_basis=5, random_state=4,
                                   basis="query_centered", basis_selection=selection,
                                   alpha=0.3).fit(X, y, q)
    R, eps = model.basis_indices_, model.nystroem_.jitter_
    m = y.size
    other = (q[R[0]] + 1) % 8
    U = np.concatenate([np.flatnonzero(q == q[R[0]])[:2], np.flatnonzero(q == other)[:1]])
    train = np.setdiff1d(np.arange(m), U)
    keep = R[~np.isin(q[R], q[U])]
    Z = _centred(X, q, keep, np.arange(m))          # untouched queries: whole in training
    got = model.holdout(U, ALPHAS)
    for i, a in enumerate(ALPHAS):
        _close(got[i], _brute_force_vectors(X, y, q, train, U, Z, a, eps), 1e-8)
    # and the fitted model is the brute force with every basis vector
    Z_all = _centred(X, q, R, np.arange(m))
    _close(model.predict(X), _brute_force_vectors(X, y, q, np.arange(m), np.arange(m), Z_all,
                                                  0.3, eps), 1e-8)
    # the Nyström learner with the same options is the same model (Paper III Sect. 2.2)
    ny = NystroemQueryRankRLS(kernel="linear", n_basis=5, random_state=4, alpha=0.3,
                              basis="query_centered", basis_selection=selection).fit(X, y, q)
    np.testing.assert_array_equal(ny.basis_indices_, R)
    _close(ny.predict(X), model.predict(X), 1e-8)


def test_rp_cholesky_pivots_and_basis_errors(rng):
    """Randomly pivoted Cholesky: distinct pivots, at most the rank of the matrix (a rank-4
    matrix gives 4 pivots whose Nyström approximation is exact); bad option combinations
    are typed errors."""
    from learners.nystroem import rp_cholesky_pivots
    F = rng.standard_normal((30, 4))
    K = F @ F.T
    piv = rp_cholesky_pivots(lambda S: K[:, S], np.diag(K), 10, random_state=0, block=3)
    assert piv.size == 4 and np.unique(piv).size == 4
    approx = K[:, piv] @ np.linalg.solve(K[np.ix_(piv, piv)], K[piv])
    np.testing.assert_allclose(approx, K, atol=1e-8)
    piv = rp_cholesky_pivots(lambda S: K[:, S], np.diag(K), 2, random_state=0)
    assert piv.size == 2
    X, y, q = _random_queries(rng)
    with pytest.raises(InvalidParameterError):
        ReducedSetQueryRankRLS(kernel="gaussian", basis="query_centered").fit(X, y, q)
    with pytest.raises(InvalidParameterError):
        ReducedSetQueryRankRLS(kernel="linear", basis="centred").fit(X, y, q)
    with pytest.raises(InvalidParameterError):
        ReducedSetQueryRankRLS(kernel="linear", basis_indices=[0, 1],
                               basis_selection="rpcholesky").fit(X, y, q)


def test_nystroem_rankrls_inner_folds_never_use_held_out_basis(rng):
    records = synthetic_records(rng, n_articles=4, per_article=3)
    X, y, qids, arts = _features(records, "locality")
    sel, info = fit_sparse_ranker("nystroem_rankrls", X, y, qids, arts, ALPHAS, (12,), seed=1)
    assert info["n_basis"] == 12 and "article" in info["inner"]
    for rows, _, _, P in sel.holdout.parts:
        train = np.setdiff1d(np.arange(y.size), rows)
        # whole articles are held out together
        assert not set(arts[rows]) & set(arts[train])
        ref = NystroemQueryRankRLS(kernel="linear", n_basis=12, random_state=1,
                                   **BASIS).fit(
            X[train], y[train], qids[train])
        assert np.all(np.isin(train[ref.basis_indices_], train))
        _close(P, ref.predict_path(X[rows], ALPHAS), 1e-7)


@pytest.mark.slow
def test_cv_with_sparse_rankers_forms_no_gram_matrix(rng, monkeypatch):
    records = synthetic_records(rng, n_articles=6, per_article=3)

    def refuse(*args, **kwargs):
        raise AssertionError("a parse-by-parse Gram matrix was formed")

    monkeypatch.setattr(evaluation, "gram_matrix", refuse)
    res = cross_validate(records, kernels=("links_words", "graph"),
                         rankers=("lg", "sparse_rankrls", "nystroem_rankrls"), n_folds=3,
                         max_parses=6, alphas=(0.1, 1.0, 10.0), progress=False, n_basis=(15,))
    for name in ("sparse_rankrls[links_words]", "nystroem_rankrls[graph]"):
        out = res["rankers"][name]
        assert -1 <= out["kendall_tau_b"] <= 1 and len(out["fold_info"]) == 3
        assert all(f["n_basis"] == 15 for f in out["fold_info"])
    assert res["data"]["n_basis"] == [15]


def test_sparse_with_all_rows_as_basis_equals_full_rankrls(rng):
    """r = m (every training parse a basis vector): the reduced-set ranker is RankRLS."""
    X, y, qids, arts = _features(synthetic_records(rng, n_articles=3, per_article=3))
    K = (X @ X.T).toarray()
    sel, info = fit_sparse_ranker("sparse_rankrls", X, y, qids, arts, ALPHAS, (10 ** 6,))
    full, finfo = fit_ranker("rankrls", K, y, qids, ALPHAS)
    assert info["n_basis"] == y.size
    # the jitter added to K_RR (1e-10 of its diagonal and up) is the only difference
    _close(np.asarray(sel.predict(X)), full.predict(K), 1e-5)


def test_default_rankers_rule_and_errors(rng):
    assert default_rankers(SPARSE_ABOVE) == CV_RANKERS
    assert default_rankers(SPARSE_ABOVE + 1) == SPARSE_CV_RANKERS
    X, y, qids, arts = _features(synthetic_records(rng, n_articles=2, per_article=2))
    with pytest.raises(InvalidParameterError):
        fit_sparse_ranker("rankrls", X, y, qids)
    with pytest.raises(InvalidParameterError):
        fit_ranker("sparse_rankrls", (X @ X.T).toarray(), y, qids)
    res = cross_validate(synthetic_records(rng, n_articles=3, per_article=2), n_folds=3,
                         max_parses=4, alphas=(1.0,), progress=False)
    assert set(res["data"]["rankers"]) == set(CV_RANKERS)
    assert "full-kernel" in res["data"]["rankers_rule"]


@pytest.mark.parametrize("kind", ["bag_of_links", "links_words", "locality", "graph"])
def test_fold_features_equal_a_training_only_fit(rng, kind):
    """Featurizing once (FoldFeatures) gives the kernel values of a representation fitted on
    the training parses only — held-out parses with labels/words unseen in training
    included."""
    records = synthetic_records(rng, n_articles=4, per_article=3)
    items, y, qids, arts, _ = flatten(records, 6)
    rare = records[-1]["parses"][0]
    rare["links"][0][2] = "Zq"                      # a link type only one test parse has
    items, *_ = flatten(records, 6)
    cache = FoldFeatures(kind, items, chunk=7)       # several chunks, one vocabulary
    assert cache.X.shape[0] == len(items)
    test = np.flatnonzero(arts == arts[-1])
    train = np.setdiff1d(np.arange(len(items)), test)
    rep = ParseRepresentation(kind)
    A_tr = rep.fit_transform([items[i] for i in train])
    A_te = rep.transform([items[i] for i in test])
    B_tr, B_te = cache.fold(train, test)
    for a, b in (((A_tr @ A_tr.T), (B_tr @ B_tr.T)), ((A_te @ A_tr.T), (B_te @ B_tr.T))):
        np.testing.assert_allclose(b.toarray(), a.toarray(), rtol=1e-12, atol=1e-14)
    if kind in ("bag_of_links", "links_words"):   # the same columns (in another order)
        assert B_tr.shape == A_tr.shape and B_te.shape == A_te.shape


@pytest.mark.parametrize("ranker", ["sparse_rankrls", "nystroem_rankrls"])
def test_trained_sparse_model_scores_like_the_reduced_set_model(rng, tmp_path, ranker):
    """Saved weights w = Z^T b (Z: the basis vectors) score parses as the fitted reduced-set model at the chosen
    λ and basis (explicit refit), and the files load back."""
    from parse_ranking.model import load_model, score_parses, train_model

    records = synthetic_records(rng, n_articles=4, per_article=3)
    meta = train_model(records, tmp_path / "m", kernel="links_words", ranker=ranker,
                       max_parses=6, alphas=ALPHAS, n_basis=(15,), seed=4)
    info = meta["fit_info"]
    assert meta["ranker"] == ranker and info["n_basis"] == 15
    items, y, qids, arts, _ = flatten(records, 6)
    X = ParseRepresentation("links_words").fit_transform(items)
    ref = ReducedSetQueryRankRLS(kernel="linear", n_basis=15, random_state=4,
                                 alpha=info["alpha"], **BASIS).fit(X, y, qids)
    _, views, weights = load_model(tmp_path / "m")
    _close(score_parses(views, weights, items), ref.predict(X), 1e-7)


def test_reading_with_max_parses_keeps_the_same_records_and_parses(rng, tmp_path):
    import json

    from parse_ranking.dataset import load_dataset

    records = synthetic_records(rng, n_articles=2, per_article=3)
    records[1]["status"] = "fewer_than_2_scores"
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in records))
    full, cut = load_dataset(path), load_dataset(path, max_parses=4)
    assert [r["id"] for r in cut] == [r["id"] for r in full] and len(full) == 5
    for a, b in zip(full, cut):
        assert b["parses"] == a["parses"][:4]
    assert flatten(cut, 4)[1].tolist() == flatten(full, 4)[1].tolist()


def test_memory_lean_steps_equal_the_plain_expressions(rng):
    """The in-place / row-block forms in the reduced-set learner (the m x r map held once)
    give the values of the plain expressions they stand for."""
    from learners import reduced_set as rs
    from learners.query_centring import centre_scale

    P = rng.standard_normal((37, 6))
    V = np.linalg.qr(rng.standard_normal((6, 6)))[0]
    want = P @ V
    for block_bytes in (8 * 6, 8 * 6 * 5, 8 * 6 * 37, 2 ** 20):
        blocks = rs._row_blocks(37, 6, block_bytes)
        assert blocks[0][0] == 0 and blocks[-1][1] == 37
        assert all(a[1] == b[0] for a, b in zip(blocks, blocks[1:]))
    Q = P.copy()
    assert rs._rotate_rows(Q, V) is Q                    # overwritten, not copied
    np.testing.assert_allclose(Q, want, rtol=1e-13, atol=1e-13)
    codes = rng.integers(0, 5, 37)
    means = rng.standard_normal((5, 6))
    scale = rng.uniform(1, 3, 37)[:, None]
    np.testing.assert_array_equal(centre_scale(P, means, codes, scale),
                                  scale * (P - means[codes]))


def _centred_model(alpha=0.5):
    X = sp.random(70, 30, density=0.3, format="csr", random_state=4)
    q = np.repeat(np.arange(14), 5)
    y = np.random.default_rng(5).standard_normal(70)
    est = ReducedSetQueryRankRLS(alpha=alpha, kernel="linear", n_basis=12, random_state=0,
                                 **BASIS)
    return est.fit(X, y, q), X, y, q


def test_blocked_prediction_and_released_rows(rng, monkeypatch):
    """predict / predict_path in row blocks equal K_XR b for all rows at once; after
    release_training_rows they are unchanged and the hold-out methods refuse with a typed
    error; the direct hold-out route after the in-place rotation equals it before."""
    from kernelrank.errors import InvalidInputError
    from learners import reduced_set as rs

    model, X, y, q = _centred_model()
    K = model.nystroem_.basis_kernel(X)
    whole = K @ model.dual_coef_
    B = model.regularization_path(ALPHAS)
    whole_path = np.einsum("ir,ar->ai", K, B)
    orig = rs._row_blocks
    monkeypatch.setattr(rs, "_row_blocks", lambda n, w: orig(n, w, 8 * w * 4))   # 4 rows
    _close(model.predict(X), whole, 1e-12)
    _close(model.predict_path(X, ALPHAS), whole_path, 1e-12)
    big = [np.arange(0, 35)]                             # direct route (large set)
    fresh, *_ = _centred_model()
    before = fresh.holdout_sets(big, ALPHAS)[0]          # Phi not rotated yet
    model.leave_query_out(ALPHAS)                        # low-rank route: rotates Phi
    assert model._cache.get("phi_rotated")
    _close(model.holdout_sets(big, ALPHAS)[0], before, 1e-9)
    model.release_training_rows()
    assert "Phi" not in model._cache
    _close(model.predict(X), whole, 1e-12)
    _close(model.predict_path(X, ALPHAS), whole_path, 1e-12)
    for call in (lambda: model.leave_query_out(ALPHAS), lambda: model.holdout([0, 1]),
                 lambda: model.holdout_sets(big, ALPHAS)):
        with pytest.raises(InvalidInputError, match="released"):
            call()


def test_parked_rows_come_back_bit_for_bit(rng, tmp_path):
    records = synthetic_records(rng, n_articles=3, per_article=3)
    items, *_ = flatten(records, 6)
    cache = FoldFeatures("graph", items, chunk=7)
    X = cache.X.copy()
    with cache.parked(tmp_path):
        assert cache.X is None and len(list(tmp_path.iterdir())) == 1
        with pytest.raises(Exception, match="parked"):
            cache.train_rows(np.arange(3))
    with pytest.raises(RuntimeError):
        with cache.parked(tmp_path):
            raise RuntimeError("a failing fit")
    for a, b in ((cache.X.data, X.data), (cache.X.indices, X.indices),
                 (cache.X.indptr, X.indptr)):
        np.testing.assert_array_equal(a, b)
    assert cache.X.shape == X.shape and not list(tmp_path.iterdir())


@pytest.mark.slow
def test_cv_parking_and_record_iterator_change_no_number(rng, monkeypatch):
    """cv with the rows parked during the fits and the records given as an iterator (as
    run_cv does) scores every parse exactly as with the rows in memory and a list."""
    from contextlib import nullcontext

    records = synthetic_records(rng, n_articles=6, per_article=3)
    kw = dict(kernels=("links_words", "graph"),
              rankers=("lg", "sparse_rankrls", "nystroem_rankrls"), n_folds=3,
              max_parses=6, alphas=(0.1, 1.0, 10.0), progress=False, n_basis=(15,))
    parked = cross_validate(iter(records), **kw)
    monkeypatch.setattr(FoldFeatures, "parked", lambda self, directory=None: nullcontext())
    plain = cross_validate(records, **kw)
    for name, out in plain["rankers"].items():
        for key in ("kendall_tau_b", "disagreement", "top1_f", "oracle_f"):
            assert parked["rankers"][name][key] == out[key], (name, key)


@pytest.mark.slow
def test_stale_parking_directories_of_dead_processes_are_removed(tmp_path):
    """A run killed during a fit leaves its parked rows behind; the next parking removes
    them, but never a live process' directory or a name without a pid."""
    import os
    import subprocess
    import sys

    from parse_ranking.representations import PARKING_PREFIX, remove_stale_parking

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f"{PARKING_PREFIX}{dead}-abc"
    live = tmp_path / f"{PARKING_PREFIX}{os.getppid()}-def"
    odd = tmp_path / f"{PARKING_PREFIX}notapid"
    for d in (stale, live, odd):
        d.mkdir()
        (d / "data.npy").write_bytes(b"x")
    assert remove_stale_parking(tmp_path) == [stale]
    assert not stale.exists() and live.exists() and odd.exists()
