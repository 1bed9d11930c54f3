"""Learners by name: the one factory behind every command's ``--learner`` option.

``make_learner("reduced_set", kernel="precomputed", n_basis=3000)`` is
``ReducedSetRLS(kernel="precomputed", n_basis=3000)``; unknown names and parameters are typed
errors. The classes are imported on first use, so naming a learner costs nothing.
"""

import importlib

from kernelrank.errors import InvalidParameterError

__all__ = ["LEARNERS", "make_learner"]

#: name → (module, class)
LEARNERS = {
    "rls": ("learners.rls", "RLS"),
    "rankrls": ("learners.rankrls", "GlobalRankRLS"),
    "query_rankrls": ("learners.rankrls", "QueryRankRLS"),
    "pairwise_rankrls": ("learners.rankrls", "PairwiseRankRLS"),
    "reduced_set": ("learners.reduced_set", "ReducedSetRLS"),
    "transfer_rls": ("learners.transfer", "TransferRLS"),
    "transfer_reduced_set": ("learners.transfer", "TransferReducedSetRLS"),
    "reduced_set_rankrls": ("learners.reduced_set", "ReducedSetGlobalRankRLS"),
    "reduced_set_query_rankrls": ("learners.reduced_set", "ReducedSetQueryRankRLS"),
    "nystroem_query_rankrls": ("learners.nystroem_rankrls", "NystroemQueryRankRLS"),
    "l2svm": ("learners.l2svm", "L2SVM"),
    "ranksvm": ("learners.ranksvm", "RankSVM"),
    "cg_rankrls": ("learners.cg", "CGRankRLS"),
    "kpcrank": ("learners.kpcrank", "KPCRank"),
    "corankrls": ("learners.coreg", "CoRankRLS"),
}


def make_learner(name, **params):
    """A new, unfitted learner ``name`` with hyper-parameters ``params``.

    Raises
    ------
    InvalidParameterError
        Unknown name, or a parameter the learner does not have.
    """
    if name not in LEARNERS:
        raise InvalidParameterError(f"unknown learner {name!r}; choose one of "
                                    f"{sorted(LEARNERS)}")
    module, cls = LEARNERS[name]
    est = getattr(importlib.import_module(module), cls)()
    known = est.get_params()
    bad = sorted(set(params) - set(known))
    if bad:
        raise InvalidParameterError(f"learner {name!r} ({cls}) has no parameter(s) {bad}; it "
                                    f"has {sorted(known)}")
    return est.set_params(**params)
