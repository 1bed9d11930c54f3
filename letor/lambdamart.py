"""LambdaMART (gradient-boosted regression trees with the LambdaRank gradients; Burges 2010,
"From RankNet to LambdaRank to LambdaMART: An Overview", MSR-TR-2010-82) through LightGBM's
``LGBMRanker`` (Ke et al. 2017) — the learner a learning-to-rank user picks today, run on the
same LETOR folds as ours for comparison.

The number of trees is chosen by early stopping on the fold's validation part (LightGBM's
own NDCG@10 on it; training stops after ``early_stopping_rounds`` rounds without
improvement and keeps the best iteration), the LETOR analogue of choosing λ by validation
MAP. LightGBM counts a validation query without relevant document as NDCG 1 (the LETOR
scripts as 0); it only shifts every round's score by the same amount, so the chosen
iteration is unaffected. LightGBM is an optional extra (``pip install kernelrank[lightgbm]``).
"""

import time

import numpy as np

from kernelrank.errors import InvalidParameterError

__all__ = ["DEFAULT_PARAMS", "fit_lambdamart", "lightgbm_available"]

#: LightGBM's defaults except the learning rate (0.05 instead of 0.1: with early stopping,
#: smaller steps) and up to 2000 trees; ``label_gain`` stays LightGBM's 2^y - 1, the LETOR
#: gain.
DEFAULT_PARAMS = {"objective": "lambdarank", "n_estimators": 2000, "learning_rate": 0.05,
                  "num_leaves": 31, "min_child_samples": 20, "verbosity": -1}
EARLY_STOPPING_ROUNDS = 100
EVAL_AT = 10


def lightgbm_available():
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


def fit_lambdamart(train, validation, *, seed=0, threads=None, params=None):
    """Fit ``LGBMRanker`` on ``train = (X, y, qids)`` with early stopping on ``validation``.

    Returns
    -------
    (model, n_trees, seconds)
        The fitted ranker (predicts with its best iteration), the number of trees kept and
        the wall time of the fit (early stopping included).

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
    kw = {**DEFAULT_PARAMS, **(params or {}), "random_state": seed, "deterministic": True,
          "n_jobs": 0 if threads is None else threads}
    model = lightgbm.LGBMRanker(**kw)
    t0 = time.perf_counter()
    model.fit(X[order], y[order].astype(int), group=sizes,
              eval_set=[(Xv[vorder], yv[vorder].astype(int))], eval_group=[vsizes],
              eval_at=[EVAL_AT],
              callbacks=[lightgbm.early_stopping(EARLY_STOPPING_ROUNDS, verbose=False)])
    seconds = time.perf_counter() - t0
    return model, int(model.best_iteration_ or kw["n_estimators"]), seconds
