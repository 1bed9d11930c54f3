"""λ, β chosen on a development set of abstracts (:mod:`ppi.systems.development`): every grid
candidate's development AUC equals the AUC of the model retrained explicitly at that
candidate, ``f = β g + h`` with ``h = K (K + λI)⁻¹ (y − β g)``, scored on the development rows
and pooled by the maximum over each candidate's mention pairs — for the linear and the
Gaussian top kernel, with and without transfer."""

import types

import numpy as np
import pytest
import scipy.sparse as sp

from learners.measures import auc
from ppi.systems.development import development_choice, development_halves
from ppi.learning.evaluation import select_parameters
from ppi.representation.features import PairSet
from ppi.documents.relations import Candidates
from ppi.systems.parts import Gaussian, Linear
from ppi.systems.sources import NO_PRIOR, TrainingPrior

ALPHAS = 2.0 ** np.arange(-8, 9, 4)


def _rows(rng, m, d, density=0.2):
    X = sp.random(m, d, density=density, random_state=rng, format="csr")
    X.data = rng.uniform(0.1, 1.0, X.nnz)
    return sp.csr_matrix(X.multiply(1.0 / np.sqrt(X.multiply(X).sum(axis=1) + 1e-300)))


def _candidates(rng, n_rows, n_candidates):
    """Bags of the development rows: a random partition, a few candidates never scored."""
    owner = rng.integers(0, n_candidates - 2, n_rows)          # the last two: empty bags
    order = np.argsort(owner, kind="stable")
    sizes = np.bincount(owner, minlength=n_candidates)
    ptr = np.concatenate([[0], np.cumsum(sizes)])
    y = np.where(rng.random(n_candidates) < 0.4, 1.0, -1.0)
    y[:2] = [1.0, -1.0]
    n = n_candidates
    return Candidates(np.zeros(n, int), np.array(["a"] * n), np.array(["b"] * n), y, ptr,
                      order.astype(np.int64), ["d"], [])


def _kernel(A, B, gamma, full=None):
    K = (A @ B.T).toarray()
    if gamma is None:
        return K
    a = np.asarray(A.multiply(A).sum(axis=1)).ravel() if full is None else full
    b = np.asarray(B.multiply(B).sum(axis=1)).ravel()
    return np.exp(-gamma * (a[:, None] + b[None, :] - 2 * K))


def _bag_max(s, cand):
    out = np.full(len(cand), -np.inf)
    for c in range(len(cand)):
        rows = cand.bag_rows[cand.bag_ptr[c]:cand.bag_ptr[c + 1]]
        if len(rows):
            out[c] = s[rows].max()
    return np.where(np.isfinite(out), out, out[np.isfinite(out)].min() - 1.0)  # ranked last


@pytest.mark.parametrize("gamma", [None, 2.0])
@pytest.mark.parametrize("transfer", [False, True])
def test_every_candidates_development_auc_is_the_retrained_models(gamma, transfer):
    rng = np.random.default_rng(7)
    d, m, n_dev = 40, 60, 90
    X = _rows(rng, m, d)
    y = np.where(rng.random(m) < 0.4, 1.0, -1.0)
    groups = np.repeat(np.arange(12), 5)
    Xs, cs = _rows(rng, 25, d), rng.normal(size=25)            # one source model
    X_dev = _rows(rng, n_dev, d)
    # the development rows lose a feature the vocabulary does not hold: their full norm is 1
    X_dev = sp.csr_matrix(X_dev @ sp.diags(np.r_[0.0, np.ones(d - 1)]))
    X_dev.eliminate_zeros()
    full = np.ones(n_dev)
    top = Linear() if gamma is None else Gaussian(gamma)
    system = types.SimpleNamespace(top=top)
    featurizer = types.SimpleNamespace(
        weights=np.array([1.0]),
        transform=lambda corpora: [PairSet("", X_dev, np.zeros(n_dev), None, None, None)])
    K = _kernel(X, X, gamma)
    if transfer:
        g = _kernel(X, Xs, gamma) @ cs
        prior = TrainingPrior(g, [(Xs, cs)], {})
    else:
        g, prior = None, NO_PRIOR
    sel, choice = select_parameters(K, y, groups, ALPHAS, "rls", select_by="auc", prior=g,
                                    betas=[0.0, 0.5, 2.0] if transfer else None)
    dev = types.SimpleNamespace(corpus=types.SimpleNamespace(documents=["d"]),
                                candidates=_candidates(rng, n_dev, 30), source="dev")
    data = PairSet("", X, y, None, None, None)
    chosen = development_choice(system, featurizer, sel, choice, data, prior, dev)

    K_dev = _kernel(X_dev, X, gamma, full)
    g_dev = _kernel(X_dev, Xs, gamma, full) @ cs if transfer else 0.0
    expected = []
    for cand in chosen["grid"]:
        beta = cand.get("beta", 0.0)
        target = y - beta * (g if transfer else 0.0)
        h = np.linalg.solve(K + cand["alpha"] * np.eye(m), target)
        s = K_dev @ h + beta * g_dev
        expected.append(auc(dev.candidates.y, _bag_max(s, dev.candidates)))
        np.testing.assert_allclose(cand["development_auc"], expected[-1], rtol=1e-10)
    assert len(set(np.round(expected, 12))) > 1           # the grid's candidates differ
    assert chosen["development_auc"] == pytest.approx(max(expected), rel=1e-12)
    assert chosen["score"] == chosen["development_auc"]
    inner = [c for c in choice["grid"] if c["alpha"] == chosen["alpha"]
             and c.get("beta") == chosen.get("beta")]
    assert chosen["threshold"] == inner[0]["threshold"]       # the inner best-F threshold
    assert chosen["inner_score"] == inner[0]["score"]
    assert chosen["development"]["candidates"] == 30


def test_a_development_set_of_one_class_is_refused_by_name():
    from kernelrank.errors import InvalidParameterError

    rng = np.random.default_rng(3)
    cand = _candidates(rng, 20, 6)
    cand.y[:] = -1.0
    dev = types.SimpleNamespace(corpus=None, candidates=cand, source="none-related.pubtator")
    with pytest.raises(InvalidParameterError, match="none-related.pubtator.*--select-on inner"):
        development_choice(None, None, None, {"grid": []}, None, NO_PRIOR, dev)


@pytest.fixture(scope="module")
def biored_train(data_dir):
    from ppi.systems.development import development_corpus

    path = data_dir / "biored" / "Train.PubTator.gz"
    if not path.is_file():
        pytest.skip(f"BioRED's training abstracts ({path}) are absent")
    return development_corpus(path, "en_core_web_sm")


def _pair_labels(corpus):
    return {p.id: p.interaction for s in corpus.sentences() for p in s.pairs}


@pytest.mark.slow
def test_the_halves_split_the_documents_by_id_whatever_their_order(biored_train):
    """Disjoint, together every document, sizes within one; the same split of the file
    read in reverse order; each half's candidates and single-instance pair labels are the
    whole file's for its documents."""
    rc = biored_train
    taught, chosen = development_halves(rc)
    ids = [d.id for d in rc.corpus.documents]
    a = [d.id for d in taught.corpus.documents]
    b = [d.id for d in chosen.corpus.documents]
    assert not set(a) & set(b) and sorted(a + b) == sorted(ids)
    assert abs(len(a) - len(b)) <= 1
    assert a != ids[:len(a)]                               # not the file's first half
    r_taught, r_chosen = development_halves(rc.subset(range(len(ids) - 1, -1, -1)))
    assert {d.id for d in r_taught.corpus.documents} == set(a)
    assert {d.id for d in r_chosen.corpus.documents} == set(b)
    labels = _pair_labels(rc.corpus)
    for half in (taught, chosen):
        assert _pair_labels(half.corpus).items() <= labels.items()
        assert half.n_pairs == len(_pair_labels(half.corpus))
    assert taught.n_pairs + chosen.n_pairs == rc.n_pairs
    assert len(taught.candidates) + len(chosen.candidates) == len(rc.candidates)
    assert (taught.candidates.y > 0).sum() + (chosen.candidates.y > 0).sum() == \
        (rc.candidates.y > 0).sum()


@pytest.mark.slow
def test_a_half_of_one_class_is_refused_by_name(biored_train):
    from kernelrank.errors import InvalidParameterError

    rc = biored_train
    docs = [rc.subset([k]).candidates.y for k in range(40)]
    related = next(k for k, y in enumerate(docs) if (y > 0).any() and (y < 0).any())
    unrelated = next(k for k, y in enumerate(docs) if len(y) and (y < 0).all())
    with pytest.raises(InvalidParameterError,
                       match=r"(training|development) half, 1 abstract;.*--select-on inner"):
        development_halves(rc.subset([related, unrelated]))
