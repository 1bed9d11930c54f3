"""KPCRank: the all-p path equals Theorem 1 (eq. 8) solved per p; the paper's §4.2 shortcut does not."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone

from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import kernel_matrix
from learners.kpcrank import KPCRank


def laplacian(qids):
    W = (qids[:, None] == qids[None, :]).astype(float)
    np.fill_diagonal(W, 0.0)
    return np.diag(W.sum(1)) - W


def centred(K, Kt):
    n = len(K)
    H = np.eye(n) - 1.0 / n
    Ktc = (Kt - np.ones((len(Kt), n)) @ K / n) @ H
    return H @ K @ H, Ktc


def theorem1(Kc, Ktc, L, s, p):
    """Eq. (8) with explicit matrices: w̄ = Λ̄^½ (V̄ᵀ K L K V̄)^{-1} V̄ᵀ K L s."""
    ev, V = np.linalg.eigh(Kc)
    o = np.argsort(ev)[::-1]
    ev, V = ev[o][:p], V[:, o][:, :p]
    w = np.sqrt(ev) * np.linalg.solve(V.T @ Kc @ L @ Kc @ V, V.T @ Kc @ L @ s)
    return Ktc @ V @ (w / np.sqrt(ev))            # eq. (9)


@pytest.fixture
def data(rng):
    X = rng.normal(size=(36, 2))
    Xt = rng.normal(size=(9, 2))
    qids = np.repeat(np.arange(12), 3)
    y = np.sin(X[:, 0]) + X[:, 1] + 0.1 * rng.normal(size=36)
    return X, Xt, y, qids


@pytest.mark.parametrize("gamma", [0.05, 0.5])
def test_path_equals_theorem_1_for_every_p(data, gamma):
    X, Xt, y, qids = data
    model = KPCRank(n_components=3, kernel="gaussian", gamma=gamma).fit(X, y, qids)
    Kc, Ktc = centred(kernel_matrix(X, X, "gaussian", gamma=gamma),
                      kernel_matrix(Xt, X, "gaussian", gamma=gamma))
    L = laplacian(qids)
    path = model.predict_path(Xt)
    ev = model.eigenvalues_
    # explicit eq. (8) loses accuracy as λ_p/λ_1 -> 0 (it squares the condition number);
    # compare where it is itself accurate to ~1e-10
    p_check = [p for p in range(1, model.max_components_ + 1) if ev[p - 1] / ev[0] > 1e-4]
    assert len(p_check) >= 8
    for p in p_check:
        brute = theorem1(Kc, Ktc, L, y, p)
        np.testing.assert_allclose(path[p - 1], brute, rtol=1e-8,
                                   atol=1e-8 * np.abs(brute).max())
    np.testing.assert_allclose(model.predict(Xt), path[2])
    np.testing.assert_allclose(model.predict(Xt, n_components=5), path[4])


def test_uncentred_and_global_ranking(data):
    X, Xt, y, _ = data
    model = KPCRank(n_components=4, kernel="gaussian", gamma=0.3, center=False).fit(X, y)
    K = kernel_matrix(X, X, "gaussian", gamma=0.3)
    Kt = kernel_matrix(Xt, X, "gaussian", gamma=0.3)
    L = laplacian(np.zeros(len(y)))
    for p in (1, 4, 7):
        brute = theorem1(K, Kt, L, y, p)
        np.testing.assert_allclose(model.predict(Xt, n_components=p), brute, rtol=1e-8,
                                   atol=1e-8 * np.abs(brute).max())


def test_paper_shortcut_is_not_theorem_1(data):
    """002 §4.2 truncates the eigenvalues of M = Λ^½ Vᵀ L V Λ^½; that is a different model."""
    X, Xt, y, qids = data
    gamma = 0.5
    model = KPCRank(n_components=3, kernel="gaussian", gamma=gamma).fit(X, y, qids)
    Kc, Ktc = centred(kernel_matrix(X, X, "gaussian", gamma=gamma),
                      kernel_matrix(Xt, X, "gaussian", gamma=gamma))
    L = laplacian(qids)
    ev, V = np.linalg.eigh(Kc)
    o = np.argsort(ev)[::-1]
    r = model.max_components_
    ev, V = ev[o][:r], V[:, o][:, :r]
    M = np.sqrt(ev)[:, None] * (V.T @ L @ V) * np.sqrt(ev)[None, :]
    b = np.sqrt(ev) * (V.T @ L @ y)
    mu, Vh = np.linalg.eigh(M)
    o = np.argsort(mu)[::-1]
    mu, Vh = mu[o], Vh[:, o]

    def shortcut(p):
        w = Vh[:, :p] @ ((Vh[:, :p].T @ b) / mu[:p])
        return Ktc @ V @ (w / np.sqrt(ev))

    path = model.predict_path(Xt)
    for p in (1, 2, 3, 5):
        gap = np.abs(shortcut(p) - path[p - 1]).max() / np.abs(path[p - 1]).max()
        assert gap > 1e-3, f"shortcut unexpectedly equals Theorem 1 at p={p}"
    # with every component both are the same full-rank least-squares solution
    np.testing.assert_allclose(shortcut(r), path[r - 1], rtol=1e-6,
                               atol=1e-6 * np.abs(path[r - 1]).max())


def test_path_stops_at_rank_of_ranking_system(data):
    X, _, y, qids = data
    model = KPCRank(n_components=1, kernel="gaussian", gamma=0.5).fit(X, y, qids)
    # L has a null space of dimension #queries, so at most n - #queries components
    assert model.max_components_ <= len(y) - len(np.unique(qids))


def test_cv_choice_and_validation(data):
    X, _, y, qids = data
    model = KPCRank(n_components="cv", kernel="gaussian", gamma=0.5, cv=3,
                    random_state=0).fit(X, y, qids)
    assert 1 <= model.n_components_ <= model.max_components_
    assert model.n_components_ == int(np.argmin(model.cv_errors_)) + 1
    again = clone(model).fit(X, y, qids)
    assert again.n_components_ == model.n_components_
    with pytest.raises(InvalidParameterError, match="n_components"):
        KPCRank(n_components=0).fit(X, y, qids)
    with pytest.raises(InvalidParameterError, match="exceeds"):
        KPCRank(n_components=10_000).fit(X, y, qids)
    bad = y.copy()
    bad[0] = np.inf
    with pytest.raises(InvalidInputError, match="(?i)infinity|NaN"):
        KPCRank().fit(X, bad, qids)
    with pytest.raises(InvalidInputError, match="qids"):
        KPCRank().fit(X, y, qids[:5])
    with pytest.raises(InvalidInputError, match="features"):
        KPCRank(n_components=1).fit(X, y, qids).predict(X[:, :1])
    sparse = KPCRank(n_components=2).fit(sp.csr_matrix(X), y, qids).predict(sp.csr_matrix(X))
    np.testing.assert_allclose(sparse, KPCRank(n_components=2).fit(X, y, qids).predict(X))


def test_precomputed_equals_gaussian(data):
    X, Xt, y, qids = data
    K = kernel_matrix(X, X, "gaussian", gamma=0.5)
    Kt = kernel_matrix(Xt, X, "gaussian", gamma=0.5)
    a = KPCRank(n_components=6, kernel="gaussian", gamma=0.5).fit(X, y, qids).predict(Xt)
    b = KPCRank(n_components=6, kernel="precomputed").fit(K, y, qids).predict(Kt)
    np.testing.assert_allclose(a, b, rtol=1e-10)
