"""The pair representation beyond the all-paths graph: head-token path end points, the
bag-of-words and shortest-path views, their combination as a sum of normalized kernels, the
bag-of-features kernel they use, and λ chosen by inner AUC."""

from collections import Counter

import numpy as np
import pytest
from sklearn.base import clone

from corpora.ppi_xml import Dependency, Entity, Pair, Parse, Sentence, Token, Tokenization
from kernelrank.errors import InvalidInputError, InvalidParameterError
from learners.kernels.bag import BagOfFeaturesKernel
from learners.measures import auc
from ppi.learning.evaluation import cross_validate, select_parameters
from ppi.representation.graphs import GraphSettings, SentenceStructure, pair_graphs
from ppi.representation.views import (DEFAULT_VIEWS, MultiViewFeaturizer, bow_features, local_features,
                       name_key, pair_features, parse_view, path_features, word_shape)
from tests.ppi.test_graphs import make_sentence


@pytest.fixture(scope="module")
def lll(data_dir):
    from corpora.ppi_xml import read_corpus

    return read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")

# "Spo0A ~ P activates KinD ." — the entity Spo0A~P is three tokens, "~" and "P" unattached
TEXT2 = "Spo0A~P activates KinD ."
TOKENS2 = [("Spo0A", "NN", 0, 4), ("~", "SYM", 5, 5), ("P", "NN", 6, 6),
           ("activates", "VBZ", 8, 16), ("KinD", "NN", 18, 21), (".", ".", 23, 23)]
DEPS2 = [(4, 1, "nsubj"), (4, 5, "dobj"), (4, 6, "punct")]


def unattached_sentence():
    toks = [Token(f"st_{i + 1}", t, p, ((a, b),)) for i, (t, p, a, b) in enumerate(TOKENS2)]
    deps = [Dependency(f"d{i}", f"st_{g}", f"st_{d}", typ) for i, (g, d, typ) in
            enumerate(DEPS2)]
    ents = [Entity("e0", ((0, 6),), "Spo0A~P"), Entity("e1", ((18, 21),), "KinD")]
    return Sentence("s0", TEXT2, ents, [Pair("p0", "e0", "e1", True)],
                    {"split": Tokenization("split", toks)},
                    {"split_parse": Parse("split_parse", "split", deps)})


# ---------------------------------------------------------------- head token, end points
def test_head_token_is_the_attached_token_without_governor_inside():
    s = unattached_sentence()
    st = SentenceStructure(s, "split_parse", GraphSettings())
    assert st.ent_tokens["e0"] == [0, 1, 2]
    assert st.head_token([0, 1, 2]) == 0                  # ~ and P are not in the parse
    # two attached tokens, one governing the other: the governor is the head
    s2 = make_sentence()
    st2 = SentenceStructure(s2, "split_parse", GraphSettings())
    assert st2.head_token([1, 2]) == 1                    # activates governs KinD
    assert st2.head_token([3, 4]) == 4                    # neither governs the other: rightmost
    # nothing attached: the rightmost token
    assert st.head_token([1, 2]) == 2


def test_head_endpoints_mark_the_same_path_when_one_token_per_entity():
    s = make_sentence()
    a = pair_graphs(s, s.pairs[0], settings=GraphSettings(endpoints="all"))
    b = pair_graphs(s, s.pairs[0], settings=GraphSettings(endpoints="head"))
    assert a[0].labels == b[0].labels and a[1].labels == b[1].labels


def test_endpoints_validated():
    with pytest.raises(InvalidParameterError, match="endpoints"):
        GraphSettings(endpoints="some")


# ---------------------------------------------------------------- bag-of-features kernel
def test_bag_kernel_equals_explicit_counts(rng):
    vocab = [f"f{i}" for i in range(12)]
    bags = [list(rng.choice(vocab, size=rng.integers(0, 9))) for _ in range(15)]
    for binary in (False, True):
        counts = [Counter(set(b) if binary else b) for b in bags]
        brute = np.array([[sum(c[f] * d[f] for f in c) for d in counts] for c in counts],
                         dtype=float)
        K = BagOfFeaturesKernel(normalize=False, binary=binary).fit_transform(bags)
        np.testing.assert_allclose(K, brute, rtol=1e-12)
        norms = np.sqrt(np.diag(brute))
        with np.errstate(divide="ignore", invalid="ignore"):
            expected = np.nan_to_num(brute / np.outer(norms, norms))
        Kn = BagOfFeaturesKernel(binary=binary).fit_transform(bags)
        np.testing.assert_allclose(Kn, expected, rtol=1e-12, atol=1e-15)


def test_bag_kernel_normalized_value_does_not_depend_on_the_vocabulary():
    train = [["a", "b", "b"], ["c"]]
    new = [["a", "b", "z", "z"]]                 # z unseen: counts in the norm, not a column
    k = BagOfFeaturesKernel().fit(train)
    got = k.transform(new)[0, 0]
    assert got == pytest.approx(3 / np.sqrt(5) / np.sqrt(1 + 1 + 4))
    # the same with a vocabulary that contains z
    full = BagOfFeaturesKernel().fit(train + new)
    assert full.transform(new)[0, 0] == pytest.approx(got, rel=1e-12)
    assert full.transform(new)[0, 2] == pytest.approx(1.0)
    assert (k.features(new) @ k.features(train).T).toarray()[0, 0] == pytest.approx(got)


def test_bag_kernel_input_and_params():
    with pytest.raises(InvalidInputError, match="string"):
        BagOfFeaturesKernel().fit(["abc"])
    k = clone(BagOfFeaturesKernel(binary=True))
    assert k.get_params() == {"normalize": True, "binary": True}
    with pytest.raises(InvalidParameterError):
        BagOfFeaturesKernel(binary="yes").fit([["a"]])


# ---------------------------------------------------------------- views
def test_bow_features_regions_and_blinding():
    s = make_sentence()                           # KinC activates KinD and KinE .
    st = SentenceStructure(s, "split_parse", GraphSettings())
    f = Counter(bow_features(st, s.pairs[0]))
    assert f == Counter(["M:PROT1", "M:activates", "M:PROT2", "A:and", "A:PROT", "A:.",
                         "gap:1"])
    # pair (KinC, KinE): "activates KinD and" between, bigrams of it
    s2 = make_sentence((("e2", "e0"),))
    st2 = SentenceStructure(s2, "split_parse", GraphSettings())
    f2 = bow_features(st2, s2.pairs[0])
    assert "M2:activates_PROT" in f2 and "M2:PROT_and" in f2 and "gap:3" in f2
    assert f2[0] == "M:PROT1"                     # text order: KinC first although e2 = KinC


def test_local_features_windows_of_both_proteins():
    s = make_sentence()                           # KinC activates KinD and KinE .
    st = SentenceStructure(s, "split_parse", GraphSettings())
    f = local_features(st, s.pairs[0])
    # KinC: nothing to the left; KinD: activates / PROT1 left, and / PROT right
    assert f[:2] == ["L1-2:none", "L1-1:none"]
    assert f[2:8] == ["L1+1w:activates", "L1+1p:VBZ", "L1+1s:x",
                      "L1+2w:PROT2", "L1+2p:NN", "L1+2s:XxX"]
    assert f[8:] == ["L2-2w:PROT1", "L2-2p:NN", "L2-2s:XxX", "L2-1w:activates",
                     "L2-1p:VBZ", "L2-1s:x", "L2+1w:and", "L2+1p:CC", "L2+1s:x",
                     "L2+2w:PROT", "L2+2p:NN", "L2+2s:XxX"]
    # text order: (KinD, KinC) gives the same features
    s2 = make_sentence((("e1", "e0"),))
    assert local_features(SentenceStructure(s2, "split_parse", GraphSettings()),
                          s2.pairs[0]) == f


@pytest.mark.parametrize("text,shape", [("Spo0A", "XxdX"), ("p53", "xd"), ("IL-2", "X-d"),
                                        ("binds", "x"), ("ATP", "X"), ("", ""),
                                        ("Spo0A~P", "XxdX~X"), ("β-catenin", "x-x")])
def test_word_shape(text, shape):
    assert word_shape(text) == shape


def test_local_view_in_a_multiview_featurizer(lll):
    f = MultiViewFeaturizer(("apg:split_parse", "local"))
    (data,) = f.fit_transform([lll])
    rows = data.X[:, f.view_slices_["local"]]
    # unit norm × √(1/2): every pair has 8 window positions, each with ≥ 1 feature
    np.testing.assert_allclose(np.asarray(rows.multiply(rows).sum(1)).ravel(), 0.5,
                               rtol=1e-12)
    assert parse_view("local") == ("local", None)
    with pytest.raises(InvalidParameterError, match="takes no parse"):
        parse_view("local:split_parse")


# "IL-2 binds the IL-2 receptor and il2 ." — one protein named three times, once inside a
# longer name
TEXT3 = "IL-2 binds the IL-2 receptor and il2 ."
TOKENS3 = [("IL-2", "NN", 0, 3), ("binds", "VBZ", 5, 9), ("the", "DT", 11, 13),
           ("IL-2", "NN", 15, 18), ("receptor", "NN", 20, 27), ("and", "CC", 29, 31),
           ("il2", "NN", 33, 35), (".", ".", 37, 37)]
DEPS3 = [(2, 1, "nsubj"), (2, 5, "dobj"), (5, 4, "nn"), (5, 7, "conj_and")]


def nested_names_sentence():
    toks = [Token(f"st_{i + 1}", t, p, ((a, b),)) for i, (t, p, a, b) in enumerate(TOKENS3)]
    deps = [Dependency(f"d{i}", f"st_{g}", f"st_{d}", typ) for i, (g, d, typ) in
            enumerate(DEPS3)]
    ents = [Entity("e0", ((0, 3),), "IL-2"), Entity("e1", ((15, 18),), "IL-2"),
            Entity("e2", ((15, 27),), "IL-2 receptor"), Entity("e3", ((33, 35),), "il2")]
    pairs = [Pair(f"p{i}", a, b, False) for i, (a, b) in enumerate(
        [("e0", "e3"), ("e0", "e2"), ("e1", "e2"), ("e0", "e1"), ("e3", "e2")])]
    return Sentence("s3", TEXT3, ents, pairs, {"split": Tokenization("split", toks)},
                    {"split_parse": Parse("split_parse", "split", deps)})


@pytest.mark.parametrize("a,b,same", [("IL-2", "il2", True), ("IL-2", "Il 2", True),
                                      ("IL-2", "IL-2R", False), ("β-catenin", "β catenin", True),
                                      ("p53", "p-53 ", True), ("KinC", "KinD", False)])
def test_name_key(a, b, same):
    assert (name_key(a) == name_key(b)) is same


def test_pair_features_same_nested_overlapping_names():
    s = nested_names_sentence()
    st = SentenceStructure(s, "split_parse", GraphSettings())
    got = [pair_features(st, p) for p in s.pairs]
    assert got == [["name:same"],                      # IL-2 / il2
                   ["name:nested"],                    # IL-2 / IL-2 receptor
                   ["name:nested", "span:overlap"],    # IL-2 inside IL-2 receptor
                   ["name:same"],                      # IL-2 twice
                   ["name:nested"]]                    # the order of the pair does not matter
    s2 = make_sentence()
    assert pair_features(SentenceStructure(s2, "split_parse", GraphSettings()),
                         s2.pairs[0]) == ["name:differ"]


@pytest.mark.slow
def test_pair_view_on_a_real_corpus(data_dir):
    """IEPA: the pair view's rows are unit-norm bags of one or two features, its
    ``name:same`` rows are exactly the pairs whose names agree in letters and digits (counted
    here from the XML with a regular expression), and the view alone ranks pairs better
    than chance — none of IEPA's same-name pairs interacts."""
    import re

    from corpora.ppi_xml import read_corpus

    iepa = read_corpus(data_dir / "ppi" / "IEPA-learning-format.xml.gz")
    f = MultiViewFeaturizer(("pair",))
    (data,) = f.fit_transform([iepa])
    X = data.X.tocsr()
    np.testing.assert_allclose(np.asarray(X.multiply(X).sum(1)).ravel(), 1.0, rtol=1e-12)
    assert set(np.diff(X.indptr)) <= {1, 2}
    same_col = int(np.searchsorted(f._parts["pair"].vocabulary_, "name:same"))
    key = {e.id: re.sub(r"[^a-z0-9]", "", e.text.lower()) for s in iepa.sentences()
           for e in s.entities}
    expected = np.array([key[p.e1] == key[p.e2] for s in iepa.sentences() for p in s.pairs])
    assert expected.sum() > 50
    np.testing.assert_array_equal(X[:, same_col].toarray().ravel() > 0, expected)
    assert not np.any(data.y[expected] > 0)
    # alone, under the document-level CV: same-name pairs ranked below the others (the
    # other pairs tie), AUC ≈ 1/2 + 1/2 · (same-name share of the negatives) ≈ 0.6
    r = cross_validate(data, (X @ X.T).toarray(), alphas=2.0 ** np.arange(-4, 5),
                       select_by="auc")
    assert r["auc"] > 0.55


def test_path_features_walks():
    s = make_sentence()
    st = SentenceStructure(s, "split_parse", GraphSettings())
    f = Counter(path_features(st, s.pairs[0]))
    # KinC <nsubj- activates -dobj> KinD: governor activates
    assert f["len:2"] == 1 and f["d:nsubj<"] == 1 and f["d:dobj>"] == 1
    assert f["w:activates"] == 1 and f["vw:PROT1|nsubj<|activates"] == 1
    assert f["vw:activates|dobj>|PROT2"] == 1 and f["ew:nsubj<|activates|dobj>"] == 1
    assert f["vp:NN|nsubj<|VBZ"] == 1 and f["ep:nsubj<|VBZ|dobj>"] == 1
    # two shortest paths KinC → KinE (dobj and prep_via): both pooled
    s2 = make_sentence((("e0", "e2"),))
    st2 = SentenceStructure(s2, "split_parse", GraphSettings())
    f2 = Counter(path_features(st2, s2.pairs[0]))
    assert f2["len:2"] == 2 and f2["d:dobj>"] == 1 and f2["d:prep_via>"] == 1
    # a parse that does not connect the pair
    s3 = unattached_sentence()
    s3.parses["split_parse"].dependencies[:] = []
    st3 = SentenceStructure(s3, "split_parse", GraphSettings())
    assert path_features(st3, s3.pairs[0]) == ["nopath"]


def test_parse_view_names():
    assert parse_view("apg:split") == ("apg", "split_parse")
    assert parse_view("bow") == ("bow", None)
    for bad in ("apg", "bow:split_parse", "tree", "path:stanford"):
        with pytest.raises(InvalidParameterError):
            parse_view(bad)
    with pytest.raises(InvalidParameterError, match="weights"):
        MultiViewFeaturizer(("bow", "path:split_parse"), weights=[1, -1])


@pytest.mark.slow
def test_combined_kernel_is_the_weighted_sum_of_normalized_kernels(lll):
    views, w = ("apg:split_parse", "bow", "path:split_parse"), np.array([2.0, 1.0, 1.0])
    (d,) = MultiViewFeaturizer(views, weights=w).fit_transform([lll])
    K = (d.X @ d.X.T).toarray()
    parts = [(MultiViewFeaturizer((v,)).fit_transform([lll])[0]) for v in views]
    expected = sum(wi / w.sum() * (p.X @ p.X.T).toarray() for wi, p in zip(w, parts))
    np.testing.assert_allclose(K, expected, atol=1e-12)
    np.testing.assert_allclose(np.diag(K), 1.0, atol=1e-12)
    np.testing.assert_array_equal(d.y, parts[0].y)
    np.testing.assert_array_equal(d.pair_ids, parts[0].pair_ids)


@pytest.mark.slow
def test_transform_on_new_corpus_matches_joint_fit(lll, data_dir):
    from corpora.ppi_xml import read_corpus

    hprd = read_corpus(data_dir / "ppi" / "HPRD50-learning-format.xml.gz")
    f = MultiViewFeaturizer(DEFAULT_VIEWS)
    (a,) = f.fit_transform([lll])
    (b,) = f.transform([hprd])
    joint = MultiViewFeaturizer(DEFAULT_VIEWS).fit_transform([lll, hprd])
    np.testing.assert_allclose((b.X @ a.X.T).toarray(),
                               (joint[1].X @ joint[0].X.T).toarray(), atol=1e-12)


# ---------------------------------------------------------------- λ by inner AUC
def test_select_by_auc_picks_the_best_inner_auc(rng):
    m = 60
    X = rng.standard_normal((m, 5))
    K = X @ X.T
    y = np.where(X[:, 0] + rng.standard_normal(m) > 0, 1.0, -1.0)
    groups = np.repeat(np.arange(12), 5)
    alphas = 2.0 ** np.arange(-6, 7, 2)
    sel, choice = select_parameters(K, y, groups, alphas, select_by="auc")
    # brute force: leave each group out, retrain, pool, AUC per λ
    best = None
    for a in alphas:
        pred = np.empty(m)
        for g in np.unique(groups):
            tr, te = groups != g, groups == g
            coef = np.linalg.solve(K[np.ix_(tr, tr)] + a * np.eye(tr.sum()), y[tr])
            pred[te] = K[np.ix_(te, tr)] @ coef
        s = auc(y, pred)
        if best is None or s >= best[0] - 1e-12:
            best = (s, a) if best is None or s > best[0] + 1e-12 else (s, max(a, best[1]))
    assert choice["alpha"] == best[1]
    row = [g for g in choice["grid"] if g["alpha"] == choice["alpha"]][0]
    assert row["score"] == pytest.approx(best[0], abs=1e-9)
    assert choice["threshold"] == row["threshold"]
    with pytest.raises(InvalidParameterError, match="select_by"):
        select_parameters(K, y, groups, alphas, select_by="map")


@pytest.mark.slow
def test_ablation_combination_kernel_equals_featurizing_the_views_alone(lll):
    from ppi.experiments.ablation import combination_kernel

    full = MultiViewFeaturizer(("apg:split_parse", "bow", "path:split_parse"))
    (d,) = full.fit_transform([lll])
    for combo in (("bow",), ("apg:split_parse", "path:split_parse")):
        (alone,) = MultiViewFeaturizer(combo).fit_transform([lll])
        np.testing.assert_allclose(combination_kernel(full, d.X, combo),
                                   (alone.X @ alone.X.T).toarray(), atol=1e-12)


def test_words_blind_then_lower_case(lll):
    """The per-pair words of the bag views: the blinded texts, lower-cased except the
    placeholders — also for a non-entity token that reads PROT1 literally."""
    from ppi.representation.graphs import PROT, PROT1, PROT2
    from ppi.representation.views import _words
    checked = 0
    for doc in lll.documents[:40]:
        for s in doc.sentences:
            if not s.pairs:
                continue
            st = SentenceStructure(s, "split_parse", GraphSettings(order="text"))
            free = [i for i in range(st.n) if not st.in_entity[i]]
            if free:                                     # a literal placeholder word
                st.unblinded_texts[free[0]] = PROT1
                st._lowered = None
            for p in s.pairs:
                t1, t2 = st.pair_tokens(p, "text")
                texts = [PROT1 if i in t1 else PROT2 if i in t2 else st.unblinded_texts[i]
                         for i in range(st.n)]
                assert _words(st, t1, t2) == [w if w in (PROT1, PROT2, PROT) else w.lower()
                                              for w in texts]
                checked += 1
    assert checked > 50


def test_split_rows_consuming_keeps_the_largest_block_in_the_joint_arrays():
    """Split with ``consume``: every block equals the row slice and owns its arrays; the
    largest (first, middle or last) is made of the joint matrix's own arrays, shrunk in
    place; empty blocks included."""
    import numpy as np
    import scipy.sparse as sp

    from ppi.representation.features import _owner, split_rows

    for sizes in ([40, 0, 12, 8], [5, 45, 10], [3, 7, 50], [60]):
        X = sp.random(60, 40, density=0.2, format="csr", random_state=len(sizes)).copy()
        ref = X.copy()
        owner = _owner(X.data)
        assert owner is not None
        parts = split_rows(X, sizes, consume=True)
        bounds = np.concatenate([[0], np.cumsum(sizes)])
        for p, a, b in zip(parts, bounds[:-1], bounds[1:]):
            assert p.shape == (b - a, 40)
            assert (p != ref[a:b]).nnz == 0
            p.check_format(full_check=True)
            assert _owner(p.data) is not None          # its own memory, not a view
        big = int(np.argmax([p.nnz for p in parts]))
        assert _owner(parts[big].data) is owner
        np.testing.assert_allclose(parts[big] @ np.ones(40),
                                   ref[bounds[big]:bounds[big + 1]] @ np.ones(40))


@pytest.mark.parametrize("seed", range(12))
def test_hstack_in_place_equals_scipy_hstack_bit_for_bit(seed, monkeypatch):
    """The in-place concatenation of scaled blocks equals ``sp.hstack`` of the scaled blocks
    — the same indptr, column ids and values to the last bit — whichever block is the host
    (first, middle, last), with empty rows and blocks, in row blocks of 1 to 200 entries."""
    import numpy as np
    import scipy.sparse as sp

    import ppi.representation.features as F

    rs = np.random.default_rng(seed)
    n = int(rs.integers(1, 250))
    V = int(rs.integers(1, 5))
    dens = rs.uniform(0, 0.4, V)
    dens[rs.integers(0, V)] = 0.6                     # the host anywhere
    blocks = [sp.random(n, int(rs.integers(1, 40)), density=float(d), format="csr",
                        random_state=seed * 11 + v) for v, d in enumerate(dens)]
    for b in blocks:
        b.sort_indices()
    scales = rs.uniform(0.1, 2.0, V)
    want = sp.hstack([sc * b for sc, b in zip(scales, blocks)], format="csr")
    monkeypatch.setattr(F, "ENTRY_BLOCK_OF_ROWS", int(rs.integers(1, 200)))
    fresh = [sp.csr_matrix((b.data.copy(), b.indices.copy(), b.indptr.copy()), shape=b.shape)
             for b in blocks]
    got = F.hstack_in_place(fresh, scales)
    got.check_format(full_check=True)
    assert got.shape == want.shape and got.has_sorted_indices
    assert np.array_equal(got.indptr, want.indptr)
    assert np.array_equal(got.indices, want.indices)
    assert np.array_equal(got.data, want.data)


def test_hstack_in_place_leaves_a_view_host_alone():
    """A host that does not own its arrays (a view of another matrix's) is not grown: the
    plain concatenation, the other matrix untouched."""
    import numpy as np
    import scipy.sparse as sp

    from ppi.representation.features import hstack_in_place

    X = sp.random(30, 20, density=0.5, format="csr", random_state=0)
    ref = X.copy()
    p0 = X.indptr[10]
    b = sp.csr_matrix((20, 20))
    b.data, b.indices, b.indptr = X.data[p0:], X.indices[p0:], X.indptr[10:] - p0
    other = sp.random(20, 5, density=0.1, format="csr", random_state=1)
    got = hstack_in_place([b, other], [1.0, 2.0])
    assert (got != sp.hstack([ref[10:], 2.0 * other], format="csr")).nnz == 0
    assert (X != ref).nnz == 0
