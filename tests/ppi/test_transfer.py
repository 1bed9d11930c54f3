"""ppi.learning.transfer and ``--transfer``: no source model trains on a sentence another corpus
holds; the CV towards it chooses (λ, β) inside the training part (a zero prior gives
the plain CV back; an informative one is taken); the command line refuses --leaky with it."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.measures import auc
from ppi.learning.evaluation import ALPHAS, cross_validate, select_parameters
from ppi.representation.features import PairSet
from ppi.systems import Settings
from ppi.learning.transfer import leak_guarded, mean_prior


def _pairset(rng, name, n_docs=12, per_doc=6, n_feat=30, w=None):
    m = n_docs * per_doc
    X = sp.random(m, n_feat, density=0.3, random_state=rng, format="csr")
    X = sp.csr_matrix(X.multiply(1 / np.sqrt(X.multiply(X).sum(1) + 1e-12)))
    w = rng.standard_normal(n_feat) if w is None else w
    y = np.where(X @ w + 0.3 * rng.standard_normal(m) > 0, 1.0, -1.0)
    docs = np.repeat([f"{name}d{i}" for i in range(n_docs)], per_doc)
    sents = np.array([f"{name}s{i}" for i in range(m)])
    return PairSet(name, X, y, sents, sents, docs)


def _texts(ps):
    return {s: f"sentence {ps.corpus} {s}" for s in ps.sentence_ids}


def test_leak_guard_drops_the_sentences_another_corpus_has(rng):
    data = {n: _pairset(rng, n) for n in ("T", "A", "B")}
    texts = {n: _texts(d) for n, d in data.items()}
    # three sentences of A are sentences of T (same text, other ids); one of B is one of A
    shared = list(data["A"].sentence_ids[[0, 5, 9]])
    for s, t in zip(shared, data["T"].sentence_ids[:3]):
        texts["A"][s] = texts["T"][t]
    texts["B"][data["B"].sentence_ids[7]] = texts["A"][data["A"].sentence_ids[20]]
    guarded, dropped = leak_guarded(data, texts)
    assert dropped == {"T": 3, "A": 4, "B": 1}
    assert not np.isin(guarded["A"].sentence_ids, shared + [data["A"].sentence_ids[20]]).any()
    assert len(guarded["A"]) == len(data["A"]) - 4
    untouched = {n: _pairset(rng, n) for n in ("C", "D")}
    g2, d2 = leak_guarded(untouched, {n: _texts(d) for n, d in untouched.items()})
    assert d2 == {"C": 0, "D": 0} and g2["C"] is untouched["C"]


def test_leak_guard_refuses_a_source_left_with_one_class(rng):
    """A training file holding a copy of a source corpus leaves that source nothing to
    learn from: a typed error naming it, not a failure inside the learner."""
    data = {n: _pairset(rng, n) for n in ("input", "A")}
    texts = {n: _texts(d) for n, d in data.items()}
    positives = data["A"].sentence_ids[data["A"].y > 0]
    for s, t in zip(positives, data["input"].sentence_ids):
        texts["A"][s] = texts["input"][t]        # every positive A sentence is in the input
    with pytest.raises(InvalidParameterError, match="transfer source A"):
        leak_guarded(data, texts, sources=["A"])
    guarded, _ = leak_guarded(data, texts, sources=[])      # the input is no source
    assert (guarded["A"].y < 0).all()


def test_mean_prior_averages_the_other_corpora_models():
    scores = {"A": {"T": np.array([1.0, 3.0]), "B": np.array([0.0])},
              "B": {"T": np.array([3.0, 5.0]), "A": np.array([1.0])},
              "T": {"A": np.array([9.0])}}
    g, sources = mean_prior(scores, "T")
    np.testing.assert_array_equal(g, [2.0, 4.0])
    assert sources == ["A", "B"]
    with pytest.raises(InvalidParameterError, match="no other corpus"):
        mean_prior({"T": {}}, "T")


def test_source_models_are_the_cross_corpus_models_without_shared_sentences(rng):
    """:func:`ppi.systems.sources.source_models` = for each source, the selection on its guarded rows
    (computed here from the rows directly) scoring the target."""
    from ppi.systems.sources import source_models

    w = rng.standard_normal(30)
    data = {n: _pairset(rng, n, w=w) for n in ("T", "A", "B")}
    texts = {n: _texts(d) for n, d in data.items()}
    shared = list(data["A"].sentence_ids[[0, 5, 9]])
    for s, t in zip(shared, data["T"].sentence_ids[:3]):
        texts["A"][s] = texts["T"][t]
    settings = Settings.for_system("multiview", progress=False, learner="rls")
    res = source_models(data, texts, settings, trains=["A", "B"], tests=["T"])
    assert res["dropped_pairs"] == {"A": 3, "B": 0}
    keep = ~np.isin(data["A"].sentence_ids, shared)
    XA, yA = data["A"].X[keep], data["A"].y[keep]
    sel, choice = select_parameters((XA @ XA.T).toarray(), yA, data["A"].document_ids[keep],
                                    ALPHAS, "rls", select_by="auc")
    np.testing.assert_allclose(res["scores"]["A"]["T"],
                               sel.predict((data["T"].X @ XA.T).toarray()), rtol=1e-10,
                               atol=1e-12)
    assert res["selection"]["A"]["alpha"] == choice["alpha"]
    assert res["selection"]["A"]["n_train"] == keep.sum()
    g, sources = mean_prior(res["scores"], "T")
    assert sources == ["A", "B"] and auc(data["T"].y, g) > 0.7   # same generating weights


@pytest.mark.slow
def test_cv_towards_a_prior(rng):
    d = _pairset(rng, "T", n_docs=20)
    K = (d.X @ d.X.T).toarray()
    plain = cross_validate(d, K, alphas=ALPHAS, select_by="auc")
    zero = cross_validate(d, K, alphas=ALPHAS, select_by="auc", prior=np.zeros(len(d)))
    np.testing.assert_allclose(zero["scores"], plain["scores"], rtol=1e-9, atol=1e-12)
    assert all(f["beta"] == 0.0 for f in zero["folds"])     # ties: the smallest β
    # a prior that knows the labels (as a test of the mechanics only) is taken
    told = cross_validate(d, K, alphas=ALPHAS, select_by="auc", prior=d.y.copy())
    assert all(f["beta"] > 0 for f in told["folds"]) and told["auc"] > plain["auc"]


def test_transfer_refuses_leaky():
    from ppi.systems.sources import check_no_leaky_transfer

    with pytest.raises(InvalidParameterError, match="leaky"):
        check_no_leaky_transfer(True)


@pytest.mark.parametrize("gamma", [None, 1.0])
@pytest.mark.slow
def test_trained_transfer_model_is_the_selected_f_beta_g_plus_h(data_dir, tmp_path, gamma):
    """``ppi train`` with transfer (LLL towards HPRD50 and IEPA): the saved model — one
    linear weight vector, or one Gaussian expansion over the basis rows of LLL and of the
    two source models — scores any pairs as f = h_y − β h_g + β g, computed here from the
    selections themselves (the sources' and LLL's, refitted), on LLL and on HPRD50."""
    from corpora.ppi_xml import read_corpus
    from ppi.representation.features import gaussian_kernel, kernel
    from ppi.models.classes import PPIModel
    from ppi.systems.training import train

    def top(a, b=None):
        """The dense kernel the system learns from: linear, or its Gaussian."""
        return kernel(a, b) if gamma is None else gaussian_kernel(a, b, gamma=gamma)

    settings = Settings.for_system("multicorpus", progress=False, gamma=gamma or 0)
    res, _ = train(tmp_path / "m", tmp_path / "r", settings, corpus="LLL",
                   data_dir=data_dir, sources=["HPRD50", "IEPA"])
    t = res["training"]["transfer"]
    assert t["sources"] == ["HPRD50", "IEPA"] and t["beta"] > 0       # LLL takes them
    model = PPIModel.load(tmp_path / "m")
    assert json.loads((tmp_path / "m" / "model.json").read_text())["version"] == (
        5 if gamma else 4)
    names = ["LLL", "HPRD50", "IEPA"]
    corpora = [read_corpus(data_dir / "ppi" / f"{n}-learning-format.xml.gz") for n in names]
    sets = dict(zip(names, settings.featurizer().fit_transform(corpora)))
    lll, new = sets["LLL"], sets["HPRD50"]
    g_fit, g_new = 0.0, 0.0
    for s in ("HPRD50", "IEPA"):
        d = sets[s]
        sel, _ = select_parameters(top(d), d.y, d.document_ids,
                                   settings.alpha_grid, "rls", select_by="auc")
        g_fit = g_fit + sel.predict(top(lll, d)) / 2
        g_new = g_new + sel.predict(top(new, d)) / 2
    sel, choice = select_parameters(top(lll), lll.y,
                                    lll.document_ids, settings.alpha_grid, "rls",
                                    select_by="auc", prior=g_fit)
    assert (choice["alpha"], choice["beta"]) == (res["alpha"], t["beta"])
    assert model.threshold == pytest.approx(choice["threshold"], rel=1e-9)
    for corpus, d, g in ((corpora[0], lll, g_fit), (corpora[1], new, g_new)):
        want = sel.predict(top(d, lll), prior=g)
        np.testing.assert_allclose(model.scores(corpus), want, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("a,b,same", [
    ("Raf1 binds Cdc25.", "Raf1 binds Cdc25", True),          # a title copied without its stop
    ("IL-2 binds IL-2R alpha .", "IL - 2 binds IL-2R-alpha.", True),
    ("Raf1 binds Cdc25.", "Raf1 binds Cdc24.", False)])
def test_sentence_key_ignores_spacing_and_punctuation(a, b, same):
    from ppi.learning.transfer import sentence_key

    assert (sentence_key(a) == sentence_key(b)) is same


@pytest.mark.slow
def test_leak_guard_finds_the_sentences_aimed_and_hprd50_share(data_dir):
    """Two HPRD50 sentences are AIMed sentences without the final stop: the guard's key
    matches them (a whitespace-normalized comparison does not), so neither corpus' source
    hypothesis trains on the other's copy."""
    from corpora.ppi_xml import read_corpus
    from ppi.learning.transfer import sentence_texts

    aimed = read_corpus(data_dir / "ppi" / "AIMed-learning-format.xml.gz")
    hprd = read_corpus(data_dir / "ppi" / "HPRD50-learning-format.xml.gz")
    keys, hprd_keys = set(sentence_texts(aimed).values()), sentence_texts(hprd)
    shared = [s for s in hprd.sentences() if hprd_keys[s.id] in keys]
    assert len(shared) >= 2
    plain = {" ".join(s.text.lower().split()) for s in aimed.sentences()}
    assert any(" ".join(s.text.lower().split()) not in plain for s in shared)
