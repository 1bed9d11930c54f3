"""LambdaMART (LightGBM) as a LETOR learner: selection on the validation part, grouping of
query rows, and the error when the optional dependency is missing."""

import sys

import numpy as np
import pytest

from kernelrank.errors import InvalidParameterError
from learners.measures import letor_evaluation
from letor.lambdamart import NUM_LEAVES, _grouped, fit_lambdamart
from letor.protocol import validation_map


def _data(rng, n_queries, size=30, qid0=0):
    X = rng.random((n_queries * size, 6))
    q = np.repeat(np.arange(qid0, qid0 + n_queries), size)
    y = np.digitize(X[:, 0] + 0.5 * (X[:, 1] > 0.5) + rng.normal(scale=0.2, size=len(q)),
                    [0.8, 1.2]).astype(float)
    return X, y, q


def test_grouped_puts_each_query_together():
    order, sizes = _grouped(np.array([3, 1, 3, 2, 1]))
    assert np.array([3, 1, 3, 2, 1])[order].tolist() == [1, 1, 2, 3, 3]
    assert order.tolist() == [1, 4, 3, 0, 2] and sizes.tolist() == [2, 1, 2]


def test_missing_lightgbm_is_a_typed_error(monkeypatch, rng):
    monkeypatch.setitem(sys.modules, "lightgbm", None)   # import lightgbm -> ImportError
    train, val = _data(rng, 4), _data(rng, 2, qid0=10)
    with pytest.raises(InvalidParameterError, match="pip install"):
        fit_lambdamart(train, val, validation_map("letor3"))


def test_tree_size_chosen_by_validation_map(rng):
    pytest.importorskip("lightgbm", reason="lightgbm is an optional extra (kernelrank[lightgbm])")
    train, val, test = _data(rng, 20), _data(rng, 8, qid0=100), _data(rng, 8, qid0=200)
    scorer = validation_map("letor3")
    model, chosen, seconds = fit_lambdamart(train, val, scorer, threads=1)
    assert chosen["num_leaves"] in NUM_LEAVES and 1 <= chosen["n_trees"] <= 2000
    assert seconds > 0
    # each tree size alone: the kept one has the best validation MAP (first on a tie)
    alone = [fit_lambdamart(train, val, scorer, threads=1, num_leaves=(k,))[1]
             for k in NUM_LEAVES]
    scores = [a["validation_score"] for a in alone]
    assert chosen["num_leaves"] == NUM_LEAVES[int(np.argmax(scores))]
    assert chosen["validation_score"] == pytest.approx(max(scores))
    # trees learn the threshold feature: far better than a random ranking on test
    random_map = letor_evaluation(test[1], rng.random(len(test[1])), test[2])["MAP"]
    assert letor_evaluation(test[1], model.predict(test[0]), test[2])["MAP"] > random_map + 0.1


def test_lightgbm_learner_in_the_protocol(tmp_path, rng):
    pytest.importorskip("lightgbm", reason="lightgbm is an optional extra (kernelrank[lightgbm])")
    from corpora.svmlight import dump_svmlight
    from letor.protocol import run_letor
    for i in range(1, 6):
        X, y, q = _data(rng, 4, qid0=10 * i)
        dump_svmlight(tmp_path / f"S{i}.txt", X, y, q)
    res = run_letor(data=tmp_path, learner="lightgbm", folds=[2], threads=1, progress=False)
    (fold,) = res["folds"]
    assert res["param_name"] == "n_trees" and res["partial"] and fold["num_leaves"] in NUM_LEAVES
    assert 0.0 <= fold["MAP"] <= 1.0 and fold["train_seconds"] > 0
