"""View weights chosen inside the training folds: the grid over groups of views, the
reweighted rows' kernel, and the per-fold choice by the inner criterion."""

import numpy as np
import pytest

from kernelrank.errors import InvalidParameterError
from learners.kernels import gram_matrix
from tests.conftest import lll_path

VIEWS = ("apg:split_parse", "bow", "path:split_parse", "path:Charniak-Lease")


@pytest.fixture(scope="module")
def lll_rows(data_dir):
    from corpora.ppi_xml import read_corpus
    from ppi.representation.graphs import GraphSettings
    from ppi.representation.views import MultiViewFeaturizer

    c = read_corpus(lll_path(data_dir))
    f = MultiViewFeaturizer(VIEWS, settings=GraphSettings(order="text"))
    (d,) = f.fit_transform([c])
    return f, d


def test_group_weights_split_each_group_equally():
    from ppi.systems import SYSTEMS
    from ppi.experiments.view_weights import DEFAULT_GROUP_GRID, group_weights

    views = SYSTEMS["multiview"].defaults["views"]
    W = group_weights(views)
    assert W.shape == (len(DEFAULT_GROUP_GRID), len(views))
    assert np.allclose(W.sum(axis=1), 1)
    assert np.allclose(W[0], 1 / len(views))            # the first grid point: equal weights
    kinds = [v.split(":")[0] for v in views]
    for w, g in zip(W, DEFAULT_GROUP_GRID):
        for k, gw in zip(("apg", "bow", "path"), g):
            assert np.isclose(sum(x for x, kk in zip(w, kinds) if kk == k), gw / sum(g))


@pytest.mark.parametrize("views, grid", [
    (("apg:split_parse", "bow"), ((1, 1),)),               # one weight per group needed
    (("apg:split_parse", "bow"), ((0.5, 0.2, 0.3),)),      # path has weight, no view
    (("apg:split_parse", "bow"), ((-1, 1, 0),)),
    (("apg:split_parse", "bow"), ((0, 0, 0),)),
    (("apg:split_parse", "bow"), ()),
])
def test_bad_grids_are_typed_errors(views, grid):
    from ppi.experiments.view_weights import group_weights

    with pytest.raises(InvalidParameterError):
        group_weights(views, grid)


def test_a_view_of_no_group_is_refused():
    from ppi.experiments.view_weights import group_weights

    with pytest.raises(InvalidParameterError, match="none of the groups"):
        group_weights(("apg:split_parse", "bow"), ((1, 1),), groups=("apg", "path"))


@pytest.mark.slow
def test_reweighted_rows_give_the_weighted_sum_of_view_kernels(lll_rows):
    from ppi.experiments.view_weights import reweight_rows

    f, d = lll_rows
    n = len(VIEWS)
    per_view = {v: n * gram_matrix(d.X[:, f.view_slices_[v]]) for v in VIEWS}
    for v, K in per_view.items():                 # each view's kernel is normalized
        diag = np.diag(K)
        assert np.allclose(diag[diag > 0], 1)
    w = np.array([0.1, 0.2, 0.3, 0.4])
    K = gram_matrix(reweight_rows(d.X, f.view_slices_, VIEWS, w))
    assert np.allclose(K, sum(wv * per_view[v] for v, wv in zip(VIEWS, w)))
    with pytest.raises(InvalidParameterError):
        reweight_rows(d.X, f.view_slices_, VIEWS, w[:2])


@pytest.mark.slow
def test_one_weight_vector_is_the_plain_cross_validation(lll_rows):
    from ppi.learning.evaluation import cross_validate
    from ppi.experiments.view_weights import cross_validate_view_weights

    f, d = lll_rows
    equal = np.full((1, len(VIEWS)), 1 / len(VIEWS))
    r = cross_validate_view_weights(d, f.view_slices_, VIEWS, equal, seed=1)
    ref = cross_validate(d, gram_matrix(d.X), learner="reduced_set", seed=1,
                         select_by="auc")
    for k in ("f1", "auc", "precision", "recall"):
        assert np.isclose(r[k], ref[k])
        assert np.allclose(r[f"{k}_per_fold"], ref[f"{k}_per_fold"])
    assert r["fold_weight_index"] == [0] * 10


@pytest.mark.slow
def test_weights_are_chosen_on_the_training_part_only(lll_rows):
    from learners.splits import folds_to_sets, group_folds
    from ppi.learning.evaluation import select_parameters
    from ppi.experiments.view_weights import cross_validate_view_weights, reweight_rows

    f, d = lll_rows
    grid = np.array([[0.25, 0.25, 0.25, 0.25], [0.7, 0.1, 0.1, 0.1]])
    r = cross_validate_view_weights(d, f.view_slices_, VIEWS, grid, seed=0)
    inner = np.array(r["inner_scores"])
    assert inner.shape == (2, 10)
    assert r["fold_weight_index"] == np.argmax(inner, axis=0).tolist()
    assert r["fold_weights"] == grid[np.argmax(inner, axis=0)].tolist()
    # fold 0's inner score of each weight vector is the selection on its training part alone
    sets = folds_to_sets(group_folds(d.document_ids, 10, 0, y=d.y))
    train = np.setdiff1d(np.arange(len(d.y)), sets[0])
    for g, w in enumerate(grid):
        K = gram_matrix(reweight_rows(d.X, f.view_slices_, VIEWS, w))
        _, choice = select_parameters(K[np.ix_(train, train)], d.y[train],
                                      d.document_ids[train], learner="reduced_set",
                                      select_by="auc")
        assert np.isclose(choice["score"], inner[g, 0])
    assert len(r["per_weight"]) == 2 and 0 < r["f1"] <= 1
