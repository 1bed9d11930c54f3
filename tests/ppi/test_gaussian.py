"""The Gaussian top kernel of the PPI commands (``--gamma``, :func:`learners.kernels.gaussian_of`):
checked against the engine's own Gaussian kernel on the feature rows and against explicit
distances, and through ``ppi cv`` on the smallest real corpus."""

import json

import numpy as np
import pytest
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.kernels.vector import kernel_matrix
from ppi.learning.evaluation import learner_input
from learners.kernels import gaussian_of, squared_row_norms
from ppi.representation.features import PairSet, gaussian_kernel, kernel
from ppi.systems import Settings


def _rows(rng, m, n=40, density=0.2):
    return sp.random(m, n, density=density, random_state=rng, format="csr")


def _pairs(X):
    m = X.shape[0]
    return PairSet(X=X, y=np.where(np.arange(m) % 3 == 0, 1.0, -1.0),
                   pair_ids=np.array([f"p{i}" for i in range(m)]),
                   sentence_ids=np.array([f"s{i}" for i in range(m)]),
                   document_ids=np.array([f"d{i // 2}" for i in range(m)]),
                   corpus="synthetic")


@pytest.mark.parametrize("gamma", [1e-3, 0.5, 1.0, 7.0])
def test_gaussian_of_equals_the_engines_gaussian_kernel_on_rows(rng, gamma):
    X, Z = _rows(rng, 30), _rows(rng, 17)
    K = (X @ Z.T).toarray()
    got = gaussian_of(K, gamma, squared_row_norms(X), squared_row_norms(Z))
    want = kernel_matrix(X, Z, "gaussian", gamma=gamma)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    # and the definition itself, from explicit differences
    D = np.array([[np.sum((x - z) ** 2) for z in Z.toarray()] for x in X.toarray()])
    np.testing.assert_allclose(got, np.exp(-gamma * D), rtol=1e-12, atol=1e-14)


def test_gaussian_of_a_gram_matrix_reads_its_diagonal(rng):
    X = _rows(rng, 15)
    G = (X @ X.T).toarray()
    sq = squared_row_norms(X)
    np.testing.assert_allclose(gaussian_of(G.copy(), 0.3),
                               gaussian_of(G.copy(), 0.3, sq, sq), rtol=1e-15)
    np.testing.assert_allclose(gaussian_of(G.copy(), 0.3),
                               kernel_matrix(X, X, "gaussian", gamma=0.3), rtol=1e-12)
    with pytest.raises(InvalidParameterError, match="diagonal"):
        gaussian_of(G[:5].copy(), 0.3)


def test_kernel_of_pairsets_with_gamma(rng):
    A, B = _pairs(_rows(rng, 12)), _pairs(_rows(rng, 9))
    np.testing.assert_allclose(gaussian_kernel(A, B, gamma=0.7),
                               kernel_matrix(A.X, B.X, "gaussian", gamma=0.7), rtol=1e-12)
    K = gaussian_kernel(A, gamma=0.7)
    np.testing.assert_allclose(np.diag(K), 1.0, rtol=0, atol=1e-12)   # distance 0 to itself
    np.testing.assert_allclose(K, K.T, rtol=0, atol=1e-15)
    np.testing.assert_allclose(kernel(A), (A.X @ A.X.T).toarray(), rtol=1e-12)  # no gamma


@pytest.mark.parametrize("gamma", [0.0, -1.0, float("nan"), float("inf"), "1", True])
def test_gamma_must_be_positive_and_finite(gamma):
    with pytest.raises(InvalidParameterError, match="gamma"):
        gaussian_of(np.eye(2), gamma, np.ones(2), np.ones(2))


def test_settings_gamma_zero_is_the_linear_kernel():
    assert Settings.for_system("multiview", gamma=0).gamma is None
    assert Settings.for_system("multiview", gamma=0.5).gamma == 0.5
    assert Settings.for_system("multiview").config()["gamma"] is None


def test_gaussian_refused_where_only_feature_rows_fit(rng):
    data = _pairs(_rows(rng, 20))
    assert sp.issparse(learner_input(data, "reduced_set", n_basis=5, max_gram_bytes=8))
    from types import SimpleNamespace

    from ppi.systems.parts import Gaussian

    settings = SimpleNamespace(learner="reduced_set", n_basis=5)
    with pytest.raises(InvalidParameterError, match="dense"):
        Gaussian(1.0).learner_input(data, settings, max_gram_bytes=8)
    K = Gaussian(1.0).learner_input(data, settings)
    np.testing.assert_allclose(K, kernel_matrix(data.X, data.X, "gaussian", gamma=1.0),
                               rtol=1e-12)


@pytest.mark.slow
def test_cv_with_gamma_scores_with_the_gaussian_of_the_multiview_rows(data_dir, tmp_path):
    """``ppi cv --gamma`` = the nested CV on the engine's Gaussian kernel of the very rows
    the featurizer gives (an independent route to the same kernel)."""
    from corpora.ppi_xml import read_corpus
    from ppi.__main__ import main
    from ppi.learning.evaluation import cross_validate

    assert main(["cv", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--gamma", "1", "--output-dir", str(tmp_path), "--quiet"]) == 0
    res = json.loads((tmp_path / "results.json").read_text())
    assert res["config"]["gamma"] == 1.0 and res["config"]["system"] == "multiview"
    settings = Settings.for_system("multiview", progress=False)
    (data,) = settings.featurizer().fit_transform(
        [read_corpus(data_dir / "ppi" / "LLL-learning-format.xml.gz")])
    K = kernel_matrix(data.X, data.X, "gaussian", gamma=1.0)
    want = cross_validate(data, K, learner=settings.learner, n_basis=settings.n_basis,
                          seed=0, select_by=settings.select_by)
    assert res["f1"] == pytest.approx(want["f1"], abs=1e-12)
    assert res["auc"] == pytest.approx(want["auc"], abs=1e-12)
    lin = cross_validate(data, kernel(data), learner=settings.learner,
                         n_basis=settings.n_basis, seed=0, select_by=settings.select_by)
    assert not np.allclose(lin["scores"], want["scores"])       # it is another kernel


@pytest.mark.slow
def test_train_with_gamma_saves_a_gaussian_model_that_predicts(data_dir, tmp_path):
    """``ppi train --gamma`` saves a version 5 model whose predictions on its own training
    corpus are the selection's: the Gaussian kernel of the training rows times the dual
    coefficients (an independent computation from the featurizer's rows)."""
    from ppi.__main__ import main
    from ppi.models.classes import PPIModel

    model = tmp_path / "m"
    assert main(["train", "--system", "multiview", "--corpus", "LLL", "--data-dir",
                 str(data_dir), "--gamma", "1",
                 "--model", str(model), "--output-dir", str(tmp_path / "t"), "--quiet"]) == 0
    meta = json.loads((model / "model.json").read_text())
    assert meta["version"] == 5 and meta["kernel"]["gamma"] == 1.0
    src = data_dir / "ppi" / "LLL-learning-format.xml.gz"
    from corpora.ppi_xml import read_corpus
    n_pairs = sum(len(x.pairs) for x in read_corpus(src).sentences())
    assert meta["kernel"]["n_basis"] == n_pairs and meta["learner"] == "rls"
    assert main(["predict", "--input", str(src), "--model", str(model), "--output-dir",
                 str(tmp_path / "p")]) == 0
    res = json.loads((tmp_path / "p" / "results.json").read_text())
    assert res["n_pairs"] == n_pairs and res["auc"] > 0.9    # training data: optimistic
    m = PPIModel.load(model)
    (data,) = Settings.for_system("multiview").featurizer().fit_transform([read_corpus(src)])
    want = kernel_matrix(data.X, data.X, "gaussian", gamma=1.0) @ m.dual_coef
    np.testing.assert_allclose(m.scores(read_corpus(src)), want, rtol=1e-9, atol=1e-12)


def test_train_refuses_gamma_for_one_view(data_dir, tmp_path):
    from ppi.systems.training import train

    with pytest.raises(InvalidParameterError, match="multi-view"):
        train(tmp_path / "m", tmp_path / "o", Settings.for_system("paper-v", gamma=1.0),
              corpus="LLL", data_dir=data_dir)
    assert not (tmp_path / "m").exists()


@pytest.mark.slow
def test_ablation_with_gamma_matches_cv_with_gamma(data_dir, tmp_path):
    """The ablation's Gaussian of a combination's kernel (cut from the rows of more views)
    is ``ppi cv --gamma`` of those views: same F and AUC; its report says γ."""
    from ppi.experiments.ablation import run_ablation
    from ppi.experiments.runs import run_cv

    views = ("apg:split_parse", "bow")
    settings = Settings.for_system("multiview", gamma=1.0, progress=False)
    res, _ = run_ablation(["LLL"], tmp_path / "a", settings, seeds=(0,),
                          combinations=[views, ("apg:split_parse", "bow", "path:split_parse")],
                          data_dir=data_dir)
    row = next(r for r in res["rows"] if tuple(r["views"]) == views)
    cv, _ = run_cv("LLL", tmp_path / "c",
                   Settings.for_system("multiview", gamma=1.0, views=views, progress=False),
                   data_dir=data_dir)
    assert row["f1_mean"] == pytest.approx(cv["f1"], abs=1e-9)
    assert row["auc_mean"] == pytest.approx(cv["auc"], abs=1e-9)
    assert "Gaussian with γ = 1" in (tmp_path / "a" / "results.md").read_text()
    assert res["paper_v_config"]["gamma"] is None
