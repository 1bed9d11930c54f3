"""LambdaMART (gradient-boosted regression trees with the LambdaRank gradients; Burges 2010,
"From RankNet to LambdaRank to LambdaMART: An Overview", MSR-TR-2010-82) through LightGBM's
``LGBMRanker`` (Ke et al. 2017) — the learner a learning-to-rank user picks today, run on the
same LETOR folds as ours for comparison.

For each tree size of :data:`NUM_LEAVES` the number of trees is chosen by early stopping on
the fold's validation part (LightGBM's own NDCG@10 on it; training stops after
:data:`EARLY_STOPPING_ROUNDS` rounds without improvement and keeps the best iteration);
the tree size is then chosen by validation MAP (the caller's scorer), the LETOR rule by
which λ is chosen for our learners. Why a tree-size grid: on LETOR OHSUMED (about 63
training queries per fold) LightGBM's default 31 leaves overfit — test MAP 0.421 with 31
leaves, 0.443 with 4 (five-fold means, ``python -m benchmarks.timings.bench_lambdamart``). LightGBM counts a validation query without relevant document as NDCG 1 (the LETOR
scripts as 0); it only shifts every round's score by the same amount, so the chosen
iteration is unaffected. LightGBM is an optional extra (``pip install kernelrank[lightgbm]``).
"""

import inspect
import time

import numpy as np

from kernelrank.errors import InvalidParameterError

__all__ = ["DEFAULT_PARAMS", "NUM_LEAVES", "fit_lambdamart", "lightgbm_available"]

#: LightGBM's defaults except the learning rate (0.05 instead of 0.1: with early stopping,
#: smaller steps) and up to 2000 trees; ``label_gain`` stays LightGBM's 2^y - 1, the LETOR
#: gain.
DEFAULT_PARAMS = {"objective": "lambdarank", "n_estimators": 2000, "learning_rate": 0.05,
                  "num_leaves": 31, "min_child_samples": 20, "verbosity": -1}
EARLY_STOPPING_ROUNDS = 100
EVAL_AT = 10
#: tree sizes tried, each with early stopping; the best by validation MAP is kept
NUM_LEAVES = (4, 8, 31)


def lightgbm_available():
    """Whether LightGBM can be imported (the optional ``lightgbm`` extra)."""
    try:
        import lightgbm  # noqa: F401
    except ImportError:
        return False
    return True


def _grouped(qids):
    """A stable order putting each query's rows together, and the query sizes in it."""
    order = np.argsort(qids, kind="stable")
    q = qids[order]
    starts = np.flatnonzero(np.r_[True, q[1:] != q[:-1]])
    return order, np.diff(np.r_[starts, q.size])


def fit_ranker(lightgbm, params, X, y, sizes, Xv, yv, vsizes):
    """One ``LGBMRanker(**params)`` fitted on ``X, y`` (query ``sizes``) with the validation
    part ``Xv, yv`` (``vsizes``) as its early-stopping set, whichever name this LightGBM
    gives the evaluation set."""
    model = lightgbm.LGBMRanker(**params)
    # LightGBM 4.6 renamed eval_set to eval_X / eval_y (the old name warns)
    if "eval_X" in inspect.signature(model.fit).parameters:
        evals = {"eval_X": (Xv,), "eval_y": (yv,)}
    else:
        evals = {"eval_set": [(Xv, yv)]}
    model.fit(X, y, group=sizes, eval_group=[vsizes], eval_at=[EVAL_AT],
              callbacks=[lightgbm.early_stopping(EARLY_STOPPING_ROUNDS, verbose=False)],
              **evals)
    return model


def fit_lambdamart(train, validation, scorer, *, seed=0, threads=None, params=None,
                   num_leaves=NUM_LEAVES):
    """Fit ``LGBMRanker`` on ``train = (X, y, qids)``, selecting on ``validation``.

    Every tree size of ``num_leaves`` is fitted with early stopping on ``validation``; the
    one whose model has the highest ``scorer(y, scores, qids)`` on ``validation`` is kept
    (the smallest on a tie).

    Returns
    -------
    (model, chosen, seconds)
        The kept ranker (it predicts with its best iteration), ``{"num_leaves": ...,
        "n_trees": ..., "validation_score": ...}`` and the wall time of every fit and
        validation together.

    Raises
    ------
    InvalidParameterError
        LightGBM is not installed.
    """
    try:
        import lightgbm
    except ImportError:
        raise InvalidParameterError(
            "--learner lightgbm needs LightGBM: pip install 'kernelrank[lightgbm]' (or "
            "pip install lightgbm)") from None
    (X, y, q), (Xv, yv, qv) = train, validation
    order, sizes = _grouped(np.asarray(q))
    vorder, vsizes = _grouped(np.asarray(qv))
    Xo, yo, Xvo, yvo = X[order], y[order].astype(int), Xv[vorder], yv[vorder].astype(int)
    t0 = time.perf_counter()
    best = None
    for leaves in num_leaves:
        kw = {**DEFAULT_PARAMS, **(params or {}), "num_leaves": leaves, "random_state": seed,
              "deterministic": True, "n_jobs": 0 if threads is None else threads}
        model = fit_ranker(lightgbm, kw, Xo, yo, sizes, Xvo, yvo, vsizes)
        score = scorer(yv, model.predict(Xv), qv)
        if best is None or score > best[0]:
            n_trees = int(model.best_iteration_ or kw["n_estimators"])
            best = (score, model, {"num_leaves": leaves, "n_trees": n_trees,
                                   "validation_score": float(score)})
    return best[1], best[2], time.perf_counter() - t0
