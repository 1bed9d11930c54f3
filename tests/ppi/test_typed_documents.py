"""Typed relations of the documents system: pair types and their syntax, the feature
augmentation against its kernel definition, typed candidates against a brute-force
enumeration, the multi-output transfer fit's held-out predictions against explicit
retraining, the decisions (type, novelty threshold) against their definitions, the saved
model, and the whole road on real BioRED abstracts."""

import itertools
import json

import numpy as np
import pytest
import scipy.sparse as sp

from corpora.documents import Mention, Relation
from kernelrank.errors import InvalidParameterError
from ppi.documents.pair_types import (PairTypes, augment, keep_pair_types, pair_type_name,
                                      parse_pair_type, row_pair_types, type_weights)
from ppi.documents.relations import build_candidates
from ppi.documents.typed_fit import best_accuracy_threshold, row_targets, type_decisions
from tests.conftest import parsed_sentence

TYPES = ("Chemical", "Disease", "Gene")


# ----------------------------------------------------------------------------- pair types
def test_pair_types_are_unordered_case_blind_and_say_their_syntax():
    assert parse_pair_type("Gene:Chemical") == ("Chemical", "Gene")
    assert pair_type_name("Gene", "Chemical") == "Chemical:Gene"
    pt = PairTypes.parse(["Gene:Chemical", "Gene:Gene"])
    assert pt.names == ["Chemical:Gene", "Gene:Gene"]
    assert pt.index("gene", "CHEMICAL") == 0 and pt.index("Gene", "Gene") == 1
    assert pt.index("Disease", "Gene") == -1
    assert pt.entity_types == ("Chemical", "Gene")
    assert PairTypes.parse(["all"]) is None
    for bad in (["Gene"], ["Gene:"], ["a:b:c"]):
        with pytest.raises(InvalidParameterError, match="joined by ':'"):
            PairTypes.parse(bad)
    with pytest.raises(InvalidParameterError, match="stands alone"):
        PairTypes.parse(["all", "Gene:Gene"])


def _doc(mentions, relations, doc_id="d"):
    from corpora.documents import TextDocument

    return TextDocument(doc_id, "x" * 200, mentions, relations=relations)


def test_pairs_all_keeps_the_related_pair_types_and_names_the_rare_ones():
    ms = [Mention(0, 1, "a", "Gene", "1"), Mention(2, 3, "b", "Gene", "2"),
          Mention(4, 5, "c", "Chemical", "C1"), Mention(6, 7, "d", "Disease", "D1")]
    docs = [_doc(ms, [Relation("Bind", "1", "2")] * 1 + [Relation("Association", "C1", "D1")],
                 str(k)) for k in range(5)]
    docs.append(_doc(ms, [Relation("Bind", "1", "C1")], "x"))
    pt, left = PairTypes.from_relations(docs, min_relations=5)
    assert pt.names == ["Chemical:Disease", "Gene:Gene"] and left == {"Chemical:Gene": 1}
    # a file too small for the minimum keeps every related pair type
    pt, left = PairTypes.from_relations(docs[-1:], min_relations=5)
    assert pt.names == ["Chemical:Gene"] and left == {}


# ----------------------------------------------------------------------------- augmentation
@pytest.mark.parametrize("shared", [True, False])
def test_augmented_rows_have_the_kernel_of_their_definition(rng, shared):
    """Daumé's augmentation: k_aug(x, z) = k(x, z)(1 + [t_x = t_z]); without the shared
    copy k(x, z)[t_x = t_z]."""
    X = sp.random(40, 30, density=0.2, format="csr", random_state=1)
    t = rng.integers(0, 3, 40)
    A = augment(X, t, 3, shared)
    assert A.nnz == X.nnz * (2 if shared else 1)
    same = (t[:, None] == t[None, :]).astype(float)
    K = (X @ X.T).toarray()
    np.testing.assert_allclose((A @ A.T).toarray(), K * (same + (1 if shared else 0)),
                               rtol=1e-12, atol=1e-12)
    # the augmented weights in blocks over the base columns: a row's score is its pair
    # type's block (and the shared one) — and a prior adds to column 0 of its blocks only
    w = rng.standard_normal((A.shape[1], 2))
    g = np.where(rng.random(30) < 0.5, rng.standard_normal(30), 0.0)
    off = 1 if shared else 0
    W = type_weights(w, np.arange(A.shape[1]), 30, 3 + off, prior=[(1 + off, g)]).toarray()
    assert W.shape == (30, 2 * (3 + off))
    direct = A @ w + np.outer((X @ g) * (t == 1), [1.0, 0.0])
    own = np.stack([X[i] @ W[:, 2 * (t[i] + off):2 * (t[i] + off) + 2]
                    for i in range(40)]).reshape(40, 2)
    by_type = own + (X @ W[:, :2] if shared else 0)
    np.testing.assert_allclose(direct, by_type, rtol=1e-12, atol=1e-12)
    # the weights of some columns only: the same matrix as with the others at zero
    keep = np.flatnonzero(rng.random(A.shape[1]) < 0.5)
    zeroed = np.zeros_like(w)
    zeroed[keep] = w[keep]
    np.testing.assert_allclose(type_weights(w[keep], keep, 30, 3 + off).toarray(),
                               type_weights(zeroed, np.arange(A.shape[1]), 30,
                                            3 + off).toarray(), rtol=0, atol=0)
    with pytest.raises(InvalidParameterError):
        augment(X, np.full(40, 3), 3)


# ----------------------------------------------------------------------------- candidates
def _typed_documents(seed, n_docs=6):
    """Random typed documents: each id has one entity type (its first letter)."""
    rng = np.random.default_rng(seed)
    ids = ["C1", "C2", "D1", "D2", "G1", "G2", "G3"]
    kind = {"C": "Chemical", "D": "Disease", "G": "Gene"}
    docs, rels = [], []
    for d in range(n_docs):
        sentences, pos = [], 0
        for k in range(rng.integers(1, 5)):
            chosen = [ids[rng.integers(len(ids))] for _ in range(rng.integers(0, 5))]
            ms = [Mention(pos + 2 * j, pos + 2 * j + 1, "m", kind[i[0]], i)
                  for j, i in enumerate(chosen)]
            sentences.append(parsed_sentence(f"d{d}", k, pos, ms))
            pos += 100
        docs.append(sentences)
        rels.append([Relation(("Bind", "Association")[rng.integers(2)], ids[rng.integers(7)],
                              ids[rng.integers(7)],
                              (("novelty", ("Novel", "No")[rng.integers(2)]),))
                     for _ in range(rng.integers(0, 4))])
    return docs, rels


@pytest.mark.parametrize("seed", range(4))
def test_typed_candidates_equal_brute_force_enumeration(seed):
    pt = PairTypes.parse(["Chemical:Gene", "Gene:Gene"])
    docs, rels = _typed_documents(seed)
    for ps in docs:
        keep_pair_types(ps, pt)
    c = build_candidates(docs, [50] * len(docs), rels, [1000] * len(docs), pair_types=pt)
    kind = {"C": "Chemical", "D": "Disease", "G": "Gene"}
    want, row = {}, 0
    for d, (ps, rs) in enumerate(zip(docs, rels)):
        ids = sorted({m.id for p in ps for m in p.mentions})
        for a, b in itertools.combinations(ids, 2):
            if {kind[a[0]], kind[b[0]]} in ({"Chemical", "Gene"}, {"Gene"}):
                mine = [r for r in rs if {r.id1, r.id2} == {a, b}]
                novel = 0.0 if not mine else (
                    1.0 if any(dict(r.attrs)["novelty"] == "Novel" for r in mine) else -1.0)
                want[(d, a, b)] = [[], 1.0 if mine else -1.0, {r.type for r in mine}, novel]
        for p in ps:
            ms = {e.id: m for e, m in zip(p.sentence.entities, p.mentions)}
            for q in p.sentence.pairs:
                a, b = sorted((ms[q.e1].id, ms[q.e2].id))
                assert {kind[a[0]], kind[b[0]]} in ({"Chemical", "Gene"}, {"Gene"})
                if a != b:
                    want[(d, a, b)][0].append(row)
                row += 1
    got = {}
    for k in range(len(c)):
        key = (int(c.doc[k]), c.id1[k], c.id2[k])
        got[key] = [c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]].tolist(), c.y[k],
                    set(c.relation_types[k]), c.novel[k]]
        assert pt.names[c.pair_type[k]] == pair_type_name(c.type1[k], c.type2[k])
        assert c.type1[k] == kind[c.id1[k][0]] and c.type2[k] == kind[c.id2[k][0]]
    assert got == want
    assert len(row_pair_types([p.sentence for ps in docs for p in ps], pt)) == row


def test_relations_of_pair_types_the_model_does_not_relate_are_counted_as_such():
    from ppi.documents.relation_counts import account_relations

    ms = [Mention(0, 1, "a", "Gene", "G1"), Mention(2, 3, "b", "Gene", "G2"),
          Mention(4, 5, "c", "Chemical", "C1"), Mention(6, 7, "d", "Disease", "D1")]
    docs = [_doc(ms, [Relation("Bind", "G1", "G2"), Relation("Bind", "C1", "G1"),
                      Relation("Association", "C1", "D1"), Relation("Bind", "C1", "X9")])]
    pt = PairTypes.parse(["Chemical:Gene"])
    c = account_relations(docs, pt.entity_types, pair_types=pt)
    assert (c.read, c.used, c.other_pair_types, c.other_entity_types, c.unknown_ids) == \
        (4, 1, 1, 1, 1)
    assert c.unrelated_pair_types == {"Gene:Gene": 1}
    words = c.describe(pt.entity_types)
    assert "1 relate a pair type the model does not (Gene:Gene 1" in words
    assert "--pairs relates others" in words and "--entity-types" not in words


def test_row_targets_tell_types_apart_only_among_related_candidates():
    pt = PairTypes.parse(["Gene:Gene"])
    ms = [Mention(0, 1, "a", "Gene", "G1"), Mention(2, 3, "b", "Gene", "G2"),
          Mention(4, 5, "c", "Gene", "G3")]
    ps = [parsed_sentence("d", 0, 0, ms)]
    rels = [[Relation("Bind", "G1", "G2", (("novelty", "Novel"),)),
             Relation("Association", "G2", "G3", (("novelty", "No"),))]]

    class RC:                                 # the two attributes row_targets reads
        candidates = build_candidates([ps], [None], rels, [10], pair_types=pt)
        n_pairs = 3

    Y = row_targets(RC, ("Association", "Bind"), True)
    # rows: (G1, G2) Bind novel, (G1, G3) unrelated, (G2, G3) Association not novel
    np.testing.assert_array_equal(Y, [[1, -1, 1, 1], [-1, 0, 0, 0], [1, 1, -1, -1]])


# ----------------------------------------------------------------------------- decisions
@pytest.mark.parametrize("seed", range(5))
def test_best_accuracy_threshold_is_the_best_of_every_cut(seed):
    rng = np.random.default_rng(seed)
    s = np.round(rng.standard_normal(60), 1)            # ties
    y = np.where(rng.random(60) < 1 / (1 + np.exp(-2 * s)), 1.0, -1.0)
    thr = best_accuracy_threshold(y, s)
    cuts = np.concatenate([[s.max() + 1], np.unique(s) - 1e-9])
    best = max(np.mean((s > c) == (y > 0)) for c in cuts)
    assert np.mean((s > thr) == (y > 0)) == pytest.approx(best)


def test_a_type_is_predicted_among_its_pair_types_allowed_ones_or_the_default():
    allowed = np.array([[True, False, True], [False, True, False]])
    scores = np.array([[0.1, -np.inf, 5.0, 0.2],
                       [9.0, -np.inf, 1.0, 9.0],
                       [0.3, -np.inf, -1.0, 0.1]])
    best, S = type_decisions(scores, np.array([0, 0, 1, 0]), allowed, np.array([2, 1]))
    # candidate 0: type 1 scores 9 but pair type 0 does not take it; candidate 1: no
    # evidence, its pair type's default; candidate 2: pair type 1 takes type 1 only;
    # candidate 3: 0.2 against 0.1 among types 0 and 2
    np.testing.assert_array_equal(best, [2, 2, 1, 0])
    assert np.isneginf(S[1, 0]) and np.isneginf(S[0, 2])


# ----------------------------------------------------------------------------- exactness
@pytest.mark.parametrize("alpha, beta", [(1e-3, 0.5), (1.0, 2.0), (1e3, 1.0)])
def test_multi_output_transfer_holdout_equals_explicit_retraining(rng, alpha, beta):
    """The typed fit's one decomposition: every target column's leave-one-document-out
    predictions with the prior on column 0 only, against retraining without each document
    (RLS towards β·g on column 0, plain RLS on the others)."""
    from learners.selection import Channels, holdout_predictions
    from learners.splits import group_sets
    from learners.transfer import TransferRLS
    from ppi.learning.evaluation import ppi_learner

    m, d, q = 45, 12, 4
    X = rng.standard_normal((m, d))
    Y = np.sign(rng.standard_normal((m, q)))
    Y[rng.random((m, q)) < 0.3] = 0.0
    docs = rng.integers(0, 9, m)
    G = np.zeros((m, q))
    G[:, 0] = X @ rng.standard_normal(d)
    K = X @ X.T
    est = ppi_learner("rls", 2000, 0, m, "precomputed", transfer=True)
    h, _ = holdout_predictions(est, K, Y, cv=group_sets(docs),
                               path={"alpha": np.array([alpha]), "beta": np.array([beta])},
                               channels=Channels(fit={"prior": G}))
    P = h.in_row_order(m)[0]
    for doc in np.unique(docs):
        tr, te = docs != doc, docs == doc
        f = TransferRLS(kernel="precomputed", alpha=alpha, beta=beta).fit(
            K[np.ix_(tr, tr)], Y[tr], prior=G[tr])
        want = f.predict(K[np.ix_(te, tr)], prior=G[te])
        np.testing.assert_allclose(P[te], want, rtol=1e-8, atol=1e-10)


# ----------------------------------------------------------------------------- real data
@pytest.fixture(scope="module")
def typed_biored(data_dir, tmp_path_factory, nlp):
    from ppi.__main__ import main
    from tests.conftest import biored_slices

    d = tmp_path_factory.mktemp("typed")
    biored_slices(data_dir, d, 40, 12)
    assert main(["train", "--relations-from", str(d / "train.pubtator"), "--no-transfer",
                 "--model", str(d / "model"), "--output-dir", str(d / "train-report"),
                 "--quiet"]) == 0
    return d


@pytest.mark.slow
def test_every_pair_type_with_its_type_and_novelty_through_the_whole_road(typed_biored):
    from corpora.text_input import read_pubtator
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel

    d = typed_biored
    model = PPIModel.load(d / "model")
    assert model.pair_types is not None and len(model.pair_types) >= 5
    assert "GeneOrGeneProduct:GeneOrGeneProduct" in model.pair_types.names
    out, agg = d / "o.jsonl", d / "p.jsonl"
    assert main(["extract", "--quiet", "--model", str(d / "model"), "--input",
                 str(d / "dev.pubtator"), "--format", "pubtator", "--output", str(out),
                 "--jobs", "0"]) == 0
    records = [json.loads(x) for x in out.read_text().splitlines()]
    docs = [r for r in records if r.get("level") == "document"]
    pairs = [r for r in records if r.get("level") != "document"]
    names = set(model.pair_types.names)
    # only mention pairs of the model's pair types are scored
    assert pairs and all(pair_type_name(r["e1"]["type"], r["e2"]["type"]) in names
                         for r in pairs)
    allowed = {n: {model.relation_types[k] for k in np.flatnonzero(a)}
               for n, a in zip(model.pair_types.names, model.typed.allowed)}
    for r in docs:
        assert r["pair_type"] == pair_type_name(r["e1"]["type"], r["e2"]["type"])
        assert r["pair_type"] in names
        # the predicted type is one its pair type takes, the scores are of those only
        assert r["relation_type"] in allowed[r["pair_type"]]
        assert set(r["relation_scores"]) <= allowed[r["pair_type"]]
        assert isinstance(r["novel"], bool) and np.isfinite(r["novelty_score"])
        assert r["interaction"] == (r["score"] > model.threshold)
    # every typed candidate of the gold file has its record
    gold = list(read_pubtator(d / "dev.pubtator"))
    assert {r["doc_id"] for r in docs} <= {g.id for g in gold}
    assert {r["pair_type"] for r in docs} > {"GeneOrGeneProduct:GeneOrGeneProduct"}
    assert main(["aggregate", "--quiet", "--input", str(out), "--output", str(agg)]) == 0
    assert main(["evaluate-documents", "--quiet", "--input", str(agg), "--gold",
                 str(d / "dev.pubtator"), "--measure", "biored", "--output-dir",
                 str(d / "eval")]) == 0
    res = json.loads((d / "eval" / "results.json").read_text())
    f = {level: res[level]["f1"] for level in ("pair", "type", "novelty")}
    # each level asks more than the one before; 40 abstracts find related pairs
    assert f["pair"] > 0.4 and f["pair"] >= f["type"] >= f["novelty"]
    assert res["predictions_without_relation_type"] == 0
    assert "GeneOrGeneProduct:GeneOrGeneProduct" in res["pair"]["per_pair_type"]


@pytest.mark.slow
def test_the_document_cv_of_a_typed_model_scores_every_candidate_out_of_fold(typed_biored):
    from ppi.__main__ import main

    d = typed_biored
    assert main(["cv", "--relations-from", str(d / "train.pubtator"), "--no-transfer",
                 "--folds", "2", "--output-dir", str(d / "cv"), "--quiet"]) == 0
    res = json.loads((d / "cv" / "results.json").read_text())
    assert res["system"]["pairs"] == ["all"] and len(res["folds"]) == 2
    assert res["data"]["candidates"] == sum(f["n"] for f in res["folds"])
    assert res["pooled_auc"] > 0.7


@pytest.mark.slow
def test_the_saved_typed_model_scores_as_the_fit_and_refuses_a_tampered_file(typed_biored,
                                                                            tmp_path):
    import shutil

    from corpora.text_input import read_pubtator
    from kernelrank.errors import CorpusFormatError
    from ppi.documents.relations import relation_corpus
    from ppi.models.classes import PPIModel

    d = typed_biored
    model = PPIModel.load(d / "model")
    docs = list(read_pubtator(d / "dev.pubtator"))
    rc = relation_corpus(docs, pair_types=model.pair_types, cache=False)
    (data,) = model.featurizer.transform([rc.corpus])
    S = model.typed.row_outputs(data.X, rc.row_pair_types())
    np.testing.assert_allclose(model.scores(rc.corpus), S, rtol=1e-9, atol=1e-12)
    out = model.candidate_outputs(S, rc.candidates)
    # saved and loaded again: the same outputs
    copy = tmp_path / "copy"
    model.save(copy)
    again = PPIModel.load(copy).candidate_outputs(S, rc.candidates)
    for key in ("score", "type", "type_scores", "novelty_score"):
        np.testing.assert_array_equal(out[key], again[key])
    shutil.copytree(d / "model", tmp_path / "bad")
    meta = json.loads((tmp_path / "bad" / "model.json").read_text())
    meta["relations"]["allowed"] = meta["relations"]["allowed"][:-1]
    (tmp_path / "bad" / "model.json").write_text(json.dumps(meta))
    with pytest.raises(CorpusFormatError, match="model.json"):
        PPIModel.load(tmp_path / "bad")


def test_pairs_and_entity_types_are_two_ways_of_saying_what_to_relate(tmp_path, capsys):
    from ppi.__main__ import main

    src = tmp_path / "x.pubtator"
    src.write_text("1|t|A binds B.\n1|a|\n1\t0\t1\tA\tGene\t11\n1\t8\t9\tB\tGene\t12\n"
                   "1\tBind\t11\t12\n")
    code = main(["train", "--relations-from", str(src), "--pairs", "Gene:Gene",
                 "--entity-types", "Gene", "--model", str(tmp_path / "m"), "--quiet"])
    assert code == 2 and "--pairs and --entity-types" in capsys.readouterr().err
    code = main(["train", "--relations-from", str(src), "--pairs", "Gene",
                 "--model", str(tmp_path / "m"), "--quiet"])
    assert code == 2 and "joined by ':'" in capsys.readouterr().err
    # a pair type of an entity type no mention has: refused before parsing, with the
    # file's types and what its relations relate
    code = main(["train", "--relations-from", str(src), "--pairs", "Chemical:Gene",
                 "--model", str(tmp_path / "m"), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "names Chemical, an entity type no mention has" in err, err
    assert "the file's types are Gene" in err and "Gene:Gene (1)" in err
    assert not (tmp_path / "m").exists()
