"""Locality-convolution kernel (learners/kernels/locality.py): explicit sparse feature map vs
the defining double sum, for symbol sequences with a learned vocabulary (parse ranking) and
residue sequences over a fixed alphabet (homology, ambiguous residues match nothing)."""

import numpy as np
import pytest

from homology.features import ALPHABET
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels import LocalityKernel
from learners.kernels.locality import offset_weights


def naive(p, q, half_width, theta, matching, alphabet=None):
    """The defining double sum over matching positions and window offsets; symbols outside
    a fixed ``alphabet`` match nothing."""
    def match(a, b):
        return a == b and (alphabet is None or a in alphabet)

    total = 0.0
    for i, a in enumerate(p):
        for j, b in enumerate(q):
            if not match(a, b):
                continue
            for h in range(-half_width, half_width + 1):
                for ll in range(-half_width, half_width + 1):
                    if not (0 <= i + h < len(p) and 0 <= j + ll < len(q)):
                        continue
                    if not match(p[i + h], q[j + ll]):
                        continue
                    if matching == "insensitive":
                        total += 1.0
                    elif matching == "strict":
                        total += float(h == ll)
                    else:
                        total += np.exp(-((h - ll) / theta) ** 2)
    return total


def naive_matrix(P, Q, *args, normalize=False, **kw):
    K = np.array([[naive(p, q, *args, **kw) for q in Q] for p in P])
    if normalize:
        dp = np.array([naive(p, p, *args, **kw) for p in P])
        dq = np.array([naive(q, q, *args, **kw) for q in Q])
        with np.errstate(divide="ignore", invalid="ignore"):
            K = np.nan_to_num(K / np.sqrt(np.outer(dp, dq)))
    return K


def _symbol_sequences(rng, n, alphabet=5, max_len=9, prefix="L"):
    labels = [f"{prefix}{k}" for k in range(alphabet)]
    return [[labels[i] for i in rng.integers(0, alphabet, rng.integers(0, max_len + 1))]
            for _ in range(n)]


def _proteins(rng, n, hi=20):
    letters = np.array(list(ALPHABET[:6] + "X"))  # small alphabet: many matches
    return ["".join(rng.choice(letters, size=rng.integers(1, hi))) for _ in range(n)]


def _kw(matching, theta):
    return {"theta": theta} if matching == "sensitive" else {}


# ------------------------------------------------------------------ symbol sequences
@pytest.mark.parametrize("matching", ["sensitive", "strict", "insensitive"])
@pytest.mark.parametrize("half_width", [0, 1, 3])
def test_feature_map_equals_naive_kernel(rng, matching, half_width):
    seqs = _symbol_sequences(rng, 14)
    train, test = seqs[:9], seqs
    kern = LocalityKernel(half_width, matching, normalize=False, **_kw(matching, 0.7))
    Z_tr = kern.fit_features(train)
    Z_te = kern.features(test)
    K_naive = naive_matrix(test, train, half_width, 0.7, matching)
    np.testing.assert_allclose((Z_te @ Z_tr.T).toarray(), K_naive, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kern.transform(test), K_naive, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kern.fit_transform(train), K_naive[:9], rtol=1e-10,
                               atol=1e-10)


@pytest.mark.parametrize("matching", ["sensitive", "strict", "insensitive"])
def test_normalized_rows_give_cosine_kernel_including_unseen_symbols(rng, matching):
    # test sequences hold symbols and pairs never seen in training, several distinct unseen
    # symbols inside one window among them: they match each other exactly as the naive sum
    train = _symbol_sequences(rng, 6, alphabet=4)
    test = _symbol_sequences(rng, 6, alphabet=4) + _symbol_sequences(rng, 6, alphabet=3,
                                                                     prefix="U")
    test += [["L0", "U1", "U2", "L1"], ["U1", "U1", "U2"], ["U7"], []]
    kern = LocalityKernel(2, matching, **_kw(matching, 1.3))
    Z_tr = kern.fit_features(train)
    n_symbols = len(kern.symbols_)
    Z_te = kern.features(test)
    assert len(kern.symbols_) == n_symbols          # transform does not grow the model
    cos = naive_matrix(test, train, 2, 1.3, matching, normalize=True)
    np.testing.assert_allclose((Z_te @ Z_tr.T).toarray(), cos, atol=1e-12)
    np.testing.assert_allclose(kern.transform(test), cos, atol=1e-12)
    diag = naive_matrix(test, test, 2, 1.3, matching, normalize=True).diagonal()
    np.testing.assert_allclose(kern.gram(test).diagonal(), diag, atol=1e-12)
    np.testing.assert_allclose(kern.self_kernel(test),
                               [naive(p, p, 2, 1.3, matching) for p in test], rtol=1e-10)


def test_vocabulary_in_first_occurrence_order():
    kern = LocalityKernel().fit([["b", "a"], ["c", "a", "b"]])
    assert kern.symbols_ == {"b": 0, "a": 1, "c": 2}
    assert np.all(np.diff(kern.pair_codes_) > 0)


def test_kernel_is_psd_and_position_sensitive():
    G = offset_weights(3, theta=0.5)
    assert np.linalg.eigvalsh(G).min() > -1e-12
    # same multiset of features, different order: strict < sensitive < insensitive
    p, q = ["A", "B", "C", "D"], ["A", "C", "B", "D"]
    values = [naive(p, q, 2, 1.0, m) for m in ("strict", "sensitive", "insensitive")]
    assert values[0] < values[1] < values[2]
    got = [LocalityKernel(2, m, normalize=False).fit([q]).transform([p])[0, 0]
           for m in ("strict", "sensitive", "insensitive")]
    np.testing.assert_allclose(got, values)


# ------------------------------------------------------------------ residue sequences
@pytest.mark.parametrize("matching,t,theta", [("insensitive", 2, 1.0), ("strict", 3, 1.0),
                                              ("sensitive", 2, 1.5), ("sensitive", 0, 2.0)])
def test_residues_match_direct_double_sum(rng, matching, t, theta):
    X, Y = _proteins(rng, 7), _proteins(rng, 5)
    expected = naive_matrix(X, Y, t, theta, matching, alphabet=ALPHABET)
    kern = LocalityKernel(t, matching, alphabet=ALPHABET, normalize=False,
                          **_kw(matching, theta))
    np.testing.assert_allclose(kern.gram(X, Y), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kern.fit(Y).transform(X), expected, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(kern.self_kernel(X),
                               [naive(p, p, t, theta, matching, ALPHABET) for p in X],
                               rtol=1e-10)
    assert kern.fit(Y).features(X).shape[1] == len(ALPHABET) ** 2 * kern.factor_.shape[1]


def test_residue_normalization_and_limits(rng):
    X = _proteins(rng, 9) + ["XXX"]                 # an all-ambiguous sequence: zero row
    raw = LocalityKernel(2, theta=2.0, alphabet=ALPHABET, normalize=False)
    d = raw.self_kernel(X)
    K = LocalityKernel(2, theta=2.0, alphabet=ALPHABET).gram(X)
    ok = d > 0
    assert not ok[-1]
    np.testing.assert_allclose(K[np.ix_(ok, ok)],
                               raw.gram(X)[np.ix_(ok, ok)] / np.sqrt(np.outer(d[ok], d[ok])))
    np.testing.assert_allclose(K[~ok], 0.0)
    np.testing.assert_allclose(K, naive_matrix(X, X, 2, 2.0, "sensitive", alphabet=ALPHABET,
                                               normalize=True), atol=1e-12)
    # the Gaussian position penalty interpolates between strict and insensitive matching
    tiny = LocalityKernel(2, theta=0.05, alphabet=ALPHABET, normalize=False).gram(X)
    huge = LocalityKernel(2, theta=1e4, alphabet=ALPHABET, normalize=False).gram(X)
    np.testing.assert_allclose(
        tiny, LocalityKernel(2, "strict", alphabet=ALPHABET, normalize=False).gram(X),
        rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(
        huge, LocalityKernel(2, "insensitive", alphabet=ALPHABET, normalize=False).gram(X),
        rtol=1e-6)


def test_strings_and_token_lists_are_the_same_sequences(rng):
    X = _proteins(rng, 6)
    a = LocalityKernel(2, alphabet=ALPHABET).fit_transform(X)
    b = LocalityKernel(2, alphabet=list(ALPHABET)).fit_transform([list(s) for s in X])
    np.testing.assert_allclose(a, b)
    # a learned vocabulary over the residues, X included as a matching symbol
    c = LocalityKernel(2).fit_transform(X)
    np.testing.assert_allclose(c, naive_matrix(X, X, 2, 1.0, "sensitive", normalize=True),
                               atol=1e-12)


def test_bad_parameters():
    for bad, name in [(dict(matching="loose"), "'matching'"), (dict(half_width=-1), "'half_width'"),
                      (dict(half_width=1.5), "'half_width'"), (dict(theta=0.0), "'theta'"),
                      (dict(matching="strict", theta=3.0), "theta is used only"),
                      (dict(alphabet="AAC"), "alphabet"), (dict(alphabet=""), "alphabet")]:
        with pytest.raises(InvalidParameterError, match=name):
            LocalityKernel(**bad).fit(["ACD"])
    with pytest.raises(InvalidInputError, match="single string"):
        LocalityKernel().fit("ACD")
