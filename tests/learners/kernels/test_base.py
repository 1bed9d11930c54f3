"""The kernel base class (learners/kernels/base.py) across every kernel on it: cosine
normalization against the explicit formula, scikit-learn parameter protocol (clone,
get_params, set_params), typed errors, transform = kernel against the training objects,
and a pipeline kernel → RLS(kernel="precomputed") equal to RLS on the explicit Gram matrix."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.pipeline import make_pipeline
from sklearn.utils.estimator_checks import check_estimator

from homology.features import ALPHABET, ProteinFeatures
from kernelrank.errors import InvalidParameterError
from learners import RLS
from learners.kernels import (AllPathsKernel, Kernel, LabelledGraph, LocalAlignmentKernel,
                              LocalityKernel, MismatchKernel, SpectrumKernel, SumKernel,
                              VectorKernel, kernel_matrix)
from learners.kernels.bag import BagOfFeaturesKernel


class SetKernel(Kernel):
    """|A ∩ B| of sets of symbols: a kernel given by the pairwise hook only."""

    def _parse_input(self, X, fit):
        sets = [frozenset(x) for x in X]
        return sets, np.array([len(s) for s in sets], dtype=float)

    def _pairwise(self, P, Q):
        return np.array([[len(p & q) for q in Q] for p in P], dtype=float)


def _proteins(rng, n, lo=3, hi=30):
    letters = np.array(list(ALPHABET[:8] + "X"))
    return ["".join(rng.choice(letters, size=rng.integers(lo, hi))) for _ in range(n)]


def _graphs(rng, n=12):
    out = []
    for _ in range(n):
        k = int(rng.integers(2, 7))
        src, dst = np.nonzero(np.triu(rng.random((k, k)) < 0.5, 1))
        out.append(LabelledGraph(k, np.stack([src, dst], 1), rng.uniform(0.1, 0.5, len(src)),
                                 [tuple(rng.choice(list("abcd"), 2)) for _ in range(k)]))
    return out


# (kernel with normalize=True, data maker): every kernel on the base class
CASES = {
    "set": (lambda: SetKernel(normalize=True), lambda rng: [set(s) for s in _proteins(rng, 12)]),
    "linear": (lambda: VectorKernel("linear", normalize=True),
               lambda rng: rng.normal(size=(12, 4))),
    "polynomial": (lambda: VectorKernel("polynomial", degree=2, gamma=0.5, normalize=True),
                   lambda rng: rng.normal(size=(12, 4))),
    "gaussian": (lambda: VectorKernel("gaussian", gamma=0.3, normalize=True),
                 lambda rng: rng.normal(size=(12, 4))),
    "all_paths": (lambda: AllPathsKernel("sum"), _graphs),
    "locality_learned": (lambda: LocalityKernel(2), lambda rng: _proteins(rng, 12)),
    "locality_alphabet": (lambda: LocalityKernel(3, theta=2.0, alphabet=ALPHABET),
                          lambda rng: _proteins(rng, 12) + ["XX"]),
    "spectrum": (lambda: SpectrumKernel(ALPHABET, k=2), lambda rng: _proteins(rng, 12)),
    "mismatch": (lambda: MismatchKernel(ALPHABET, k=3, m=1), lambda rng: _proteins(rng, 12)),
    "mismatch_thesis": (lambda: MismatchKernel(ALPHABET, k=3, m=1, definition="thesis"),
                        lambda rng: _proteins(rng, 12)),
    "sum": (lambda: SumKernel([(0.3, SpectrumKernel(ALPHABET, k=2)),
                               (0.7, LocalityKernel(1, alphabet=ALPHABET))], normalize=True),
            lambda rng: _proteins(rng, 12)),
    "protein_features": (lambda: ProteinFeatures(groups=("aa", "dipeptide")),
                         lambda rng: _proteins(rng, 12, lo=6)),
    "local_alignment": (lambda: LocalAlignmentKernel(psd=None), lambda rng: _proteins(rng, 12)),
    "local_alignment_ekm": (lambda: LocalAlignmentKernel(psd="ekm"),
                            lambda rng: _proteins(rng, 12)),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_normalization_is_the_cosine_of_the_raw_kernel(rng, case):
    make, data = CASES[case]
    X = data(rng)
    train, test = X[:8], X[8:]
    raw = make().set_params(normalize=False)
    np.testing.assert_allclose(np.diag(raw.fit_transform(train)), raw.self_kernel(train),
                               rtol=1e-10)
    K_raw = raw.transform(test)
    d_test, d_train = raw.self_kernel(test), raw.self_kernel(train)
    with np.errstate(divide="ignore", invalid="ignore"):
        expected = np.nan_to_num(K_raw / np.sqrt(np.outer(d_test, d_train)))
    expected[d_test <= 0] = 0.0                       # zero self-similarity: zero row
    kern = make().fit(train)
    np.testing.assert_allclose(kern.transform(test), expected, rtol=1e-10, atol=1e-12)
    G = kern.fit_transform(train)
    np.testing.assert_allclose(G, G.T, atol=1e-12)
    np.testing.assert_allclose(np.diag(G)[d_train > 0], 1.0)
    # gram(A, B): a copy fitted on B; this kernel's fitted state is untouched
    np.testing.assert_allclose(kern.gram(test, train), expected, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(kern.transform(test), expected, rtol=1e-10, atol=1e-12)
    if kern.has_feature_map:
        F = kern.features(test) @ kern.fit_features(train).T
        F = F.toarray() if sp.issparse(F) else F
        np.testing.assert_allclose(F, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("case", sorted(CASES))
def test_parameter_protocol(rng, case):
    make, data = CASES[case]
    kern = make()
    params = kern.get_params()
    copy = clone(kern)
    assert copy is not kern and repr(copy) == repr(kern)
    assert set(copy.get_params()) == set(params)
    assert copy.set_params(normalize=False) is copy and copy.normalize is False
    assert kern.normalize is True                         # the original is unchanged
    with pytest.raises(InvalidParameterError, match="has no parameter 'normalise'"):
        kern.set_params(normalise=False)
    X = data(rng)
    assert kern.fit(X) is kern
    assert all(k.endswith("_") for k in vars(kern) if k not in params and not k.startswith("_"))
    np.testing.assert_allclose(clone(kern).fit_transform(X), kern.fit_transform(X))
    with pytest.raises(InvalidParameterError, match="'normalize' parameter"):
        clone(kern).set_params(normalize="yes").fit(X)


@pytest.mark.parametrize("case", sorted(CASES))
def test_not_fitted_is_a_typed_error(rng, case):
    make, data = CASES[case]
    X = data(rng)
    for call in (lambda k: k.transform(X), lambda k: k.features(X)):
        with pytest.raises(InvalidParameterError, match="not fitted") as info:
            call(make())
        assert isinstance(info.value, NotFittedError)


@pytest.mark.parametrize("case", ["all_paths", "locality_learned", "locality_alphabet",
                                  "spectrum", "mismatch", "mismatch_thesis", "sum", "set",
                                  "gaussian", "local_alignment", "local_alignment_ekm"])
def test_pipeline_with_precomputed_rls_equals_rls_on_the_gram_matrix(rng, case):
    make, data = CASES[case]
    X = data(rng)
    train, test = X[:8], X[8:]
    y = rng.normal(size=8)
    pipe = make_pipeline(make(), RLS(alpha=0.5, kernel="precomputed")).fit(train, y)
    kern = make()
    direct = RLS(alpha=0.5, kernel="precomputed").fit(kern.fit_transform(train), y)
    np.testing.assert_allclose(pipe.predict(test), direct.predict(kern.transform(test)),
                               rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(pipe[-1].dual_coef_, direct.dual_coef_, rtol=1e-10)


def test_vector_kernel_is_kernel_matrix(rng):
    X, Z = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    for name, params in [("linear", {}), ("polynomial", {"gamma": 0.5, "degree": 2}),
                         ("gaussian", {"gamma": 0.3}), ("rbf", {})]:
        kern = VectorKernel(name, **params).fit(Z)
        canonical = {"rbf": "gaussian"}.get(name, name)
        full = {"gamma": None, "degree": 3, "coef0": 1.0, **params}
        use = {"linear": [], "polynomial": ["gamma", "degree", "coef0"],
               "gaussian": ["gamma"]}[canonical]
        np.testing.assert_allclose(kern.transform(X),
                                   kernel_matrix(X, Z, canonical, **{p: full[p] for p in use}))
    np.testing.assert_allclose(VectorKernel().fit(Z).features(X), X)


def test_vector_kernel_passes_the_scikit_learn_estimator_checks():
    results = check_estimator(VectorKernel(), on_fail=None)
    assert [r["check_name"] for r in results if r["status"] == "failed"] == []


def test_bad_parameters_name_the_parameter(rng):
    X = _proteins(rng, 3)
    cases = [(VectorKernel("sigmoid"), "'kernel'"), (VectorKernel(gamma=-1.0), "'gamma'"),
             (VectorKernel("linear", gamma=0.5), "gamma"),
             (VectorKernel("polynomial", degree=0), "'degree'"),
             (AllPathsKernel(on_divergence="ignore"), "'on_divergence'"),
             (LocalityKernel(matching="fuzzy"), "'matching'"),
             (SpectrumKernel(ALPHABET, k=-1), "'k'"), (MismatchKernel(ALPHABET, m=-1), "'m'"),
             (SumKernel([]), "at least one"), (SumKernel([(1.0, "spectrum")]), "not a kernel"),
             (SumKernel("spectrum"), "'parts'"),
             (ProteinFeatures(kernel="polynomial"), "'kernel'")]
    for kern, name in cases:
        with pytest.raises(InvalidParameterError, match=name):
            kern.fit(X if not isinstance(kern, (VectorKernel,)) or
                     isinstance(kern, ProteinFeatures) else np.ones((3, 2)))


@pytest.mark.parametrize("normalize", [True, False])
def test_linear_scores_equal_feature_rows_times_weights(rng, normalize):
    """``FeatureMapKernel.linear_scores`` (the map's products, scaled afterwards) against
    ``features(X) @ w``, with features outside the vocabulary and an empty bag; and
    ``scores_of_map`` of a map without ``k(x, x)`` (the squared row norms)."""
    words = [f"w{i}" for i in range(40)]
    kernel = BagOfFeaturesKernel(normalize=normalize).fit(
        [list(rng.choice(words[:25], 6)) for _ in range(30)])
    bags = [list(rng.choice(words, 6)) for _ in range(20)] + [[]]
    w = rng.normal(size=kernel.n_columns())
    want = np.asarray(kernel.features(bags) @ w).ravel()
    np.testing.assert_allclose(kernel.linear_scores(bags, w), want, rtol=1e-12, atol=1e-14)
    assert np.abs(want).max() > 0.1 and want[-1] == 0
    Phi, _ = kernel._feature_map(bags, False)
    np.testing.assert_allclose(kernel.scores_of_map(Phi, None, w),
                               np.asarray(kernel.rows_of_map(Phi, None) @ w).ravel(),
                               rtol=1e-12, atol=1e-14)


def test_row_passes_in_blocks_of_entries_cover_every_row_once():
    """Row blocks of about ``entries`` stored entries: consecutive, covering every row (empty
    rows and rows wider than a block included); the squared row norms and the in-place cosine
    scaling computed over them equal the whole-matrix formulas."""
    import scipy.sparse as sp

    from learners.kernels.base import row_blocks, squared_row_norms

    X = sp.random(500, 300, density=0.05, format="csr", random_state=3)
    X = sp.vstack([X, sp.csr_matrix((2, 300)), sp.csr_matrix(np.ones((1, 300)))], format="csr")
    for entries in (1, 5, 299, 10 ** 7):
        blocks = list(row_blocks(X.indptr, entries))
        assert blocks[0][0] == 0 and blocks[-1][1] == X.shape[0]
        assert all(a < b for a, b in blocks)
        assert all(b == c for (_, b), (c, _) in zip(blocks, blocks[1:]))
    want = np.asarray(X.multiply(X).sum(axis=1)).ravel()
    np.testing.assert_allclose(squared_row_norms(X), want, rtol=1e-14)
    from learners.kernels.bag import BagOfFeaturesKernel

    k = BagOfFeaturesKernel()
    Y, sk = k._scaled(X.copy(), None, own=True)
    scale = np.where(want > 0, 1 / np.sqrt(np.where(want > 0, want, 1)), 0)
    np.testing.assert_allclose(Y.toarray(), X.toarray() * scale[:, None], rtol=1e-14)
    np.testing.assert_allclose(sk, want, rtol=1e-14)
