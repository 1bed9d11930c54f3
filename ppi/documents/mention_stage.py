"""The mention-pair stage of the ``documents`` system, the parts its methods
(:class:`ppi.documents.system.DocumentSystem`) are made of: the featurized data of a run
(:class:`Features`), the learner's input, the exact leave-one-document-out selection of
(λ[, β]) by the bag-level AUC (:func:`select_instances`, one decomposition for the whole
path, :func:`learners.selection.holdout_predictions`), the linear model's weights
(:func:`instance_weights`), the fitted system (:class:`DocumentFit`) and the candidate-level
measures (:func:`candidate_auc`, :func:`candidate_measures`).

Cost: the selection is that of the chosen learner on m mention pairs.  ``reduced_set`` (the
default): r basis rows, the sparse rows themselves as input (:func:`mention_learner_input`),
O(m r) memory and O(nnz r + m r²) time for the whole (λ, β) path and every document held
out — linear in the mention pairs.  ``rls``: one m × m kernel and its eigendecomposition,
O(m²) memory and O(m³) time.  Scoring is one sparse product, O(non-zeros).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from kernelrank.errors import InvalidParameterError
from ppi.documents.relations import bag_max
from ppi.names import BETAS

__all__ = ["Features", "DocumentFit", "unscored_last", "linear_kernel_input",
           "mention_learner_input", "select_instances", "instance_weights", "check_classes", "predict_documents",
           "candidate_auc", "candidate_measures"]


@dataclass
class Features:
    """The featurized data of a run: the fitted featurizer, each relation corpus' mention
    pair rows, and the source corpora's (:class:`ppi.representation.features.PairSet`, leak-guarded)."""

    featurizer: object
    rows: list
    sources: dict = field(default_factory=dict)
    dropped: dict = field(default_factory=dict)
    seconds: float = 0.0


def unscored_last(B):
    """Bag maxima with the empty bags' −inf replaced by less than every finite score (a
    candidate never scored ranks last; ties among those)."""
    B = np.array(B, dtype=float)
    finite = np.isfinite(B)
    low = np.where(finite, B, np.inf).min(axis=-1, keepdims=True)
    low = np.where(np.isfinite(low), low, 0.0)
    return np.where(finite, B, low - 1.0)


def linear_kernel_input(X, learner, n_basis):
    """The input of ``learner`` trained on the mention-pair rows ``X`` with the linear kernel
    (:func:`ppi.learning.evaluation.learner_input`: the Gram matrix, or ``X`` itself when
    the learner takes rows)."""
    from ppi.learning.evaluation import learner_input
    from ppi.representation.features import PairSet

    data = PairSet("", X, np.zeros(X.shape[0]), None, None, None)
    return learner_input(data, learner, n_basis)


def mention_learner_input(X, learner, n_basis):
    """The input of ``learner`` on the mention-pair rows ``X``: the rows themselves for the
    reduced-set learner on more than ``n_basis`` rows (its kernel columns against the basis
    are evaluated from them, O(m r) memory: no m × m matrix at any size), else
    :func:`linear_kernel_input`."""
    from ppi.learning.evaluation import resolve_learner

    if resolve_learner(learner, X.shape[0]) == "reduced_set" and X.shape[0] > n_basis:
        return X
    return linear_kernel_input(X, learner, n_basis)


def select_instances(X, y, candidates, row_documents, system, prior=None, bags=None):
    """Stage 1 (module docstring): the fitted learner, the chosen (λ[, β]), its held-out
    (leave-one-document-out) mention-pair scores and bag-level AUC, the best-F threshold of
    the held-out bag maxima.  ``bags``: the related candidates' bags — mi-RLS
    (:class:`learners.mil.MultipleInstanceRLS`) instead of RLS on the labels ``y``."""
    from learners.measures import auc, best_f_threshold
    from learners.mil import MultipleInstanceRLS
    from learners.selection import Channels, best_candidate, holdout_predictions
    from learners.splits import group_sets
    from ppi.learning.evaluation import ppi_learner

    path, fit_params, fixed = {"alpha": system.alpha_grid}, None, None
    if bags is not None:
        if prior is not None:
            raise InvalidParameterError("instances='mi' does not combine with transfer; use "
                                        "--no-transfer, or --instances sil")
        K, est, fixed = X, MultipleInstanceRLS(kernel="linear", solver="dual"), {"bags": bags}
    else:
        K = mention_learner_input(X, system.learner, system.n_basis)
        kind = "linear" if K is X else "precomputed"
        if prior is not None:
            path["beta"] = np.asarray(BETAS, dtype=float)
            fit_params = {"prior": np.asarray(prior, dtype=float)}
        est = ppi_learner(system.learner, system.n_basis, system.seed, len(y), kind,
                          transfer=prior is not None)
    h, fitted = holdout_predictions(est, K, y, cv=group_sets(row_documents), path=path,
                                    channels=Channels(fit=fit_params, fixed_fit=fixed))
    P = h.snapped().in_row_order(len(y))
    B = unscored_last(bag_max(P, candidates))
    scores = np.array([auc(candidates.y, b) for b in B])
    best = best_candidate(scores, h.candidates, True)
    thr = best_f_threshold(candidates.y, B[best])
    return {"model": fitted, "params": dict(h.candidates[best]), "auc": float(scores[best]),
            "threshold": float(thr.threshold), "f1": float(thr.f1), "heldout": P[best],
            "grid": [dict(c, auc=float(s)) for c, s in zip(h.candidates, scores)]}


def instance_weights(sel, X, w_source=None):
    """The linear stage-1 model ``w`` over the featurizer's columns: ``X_bᵀ c`` (and, with
    transfer, ``X_bᵀ(c_y − β c_g) + β w_g``)."""
    from ppi.learning.evaluation import expansion

    Xb, coef = expansion(sel["model"], X, sel["params"]["alpha"])
    beta = sel["params"].get("beta")
    if beta is None:
        return np.asarray(Xb.T @ coef).ravel()
    c = coef[:, 0] - beta * coef[:, 1]
    return np.asarray(Xb.T @ c).ravel() + beta * w_source


@dataclass
class DocumentFit:
    """A fitted ``documents`` system: ``weights`` of the linear mention-pair model over the
    featurizer's columns and its bag-level threshold, the document stage (or None) and what
    was chosen."""

    featurizer: object
    weights: np.ndarray
    instance_threshold: float
    stage: object
    info: dict

    @property
    def threshold(self):
        """The decision threshold of the candidates' scores."""
        return self.stage.threshold_ if self.stage is not None else self.instance_threshold

    def candidate_scores(self, X, candidates):
        """Scores of ``candidates`` whose mention pairs have the rows ``X``."""
        s = np.asarray(X @ self.weights).ravel()
        if self.stage is None:
            return bag_max(s, candidates)
        from ppi.documents.stage import document_features

        return self.stage.decision_function(document_features(s, candidates))


def check_classes(rc, part=None, entity_types=None):
    """Refuse, before the learner runs, a relation corpus ``rc`` that cannot be learned from,
    saying what is wrong with the file and the minimum it needs
    (:class:`~kernelrank.errors.InvalidParameterError` naming the file, and ``part`` — e.g.
    "the training part of fold 3 of 10" — when ``rc`` is a part of it).

    The minimum: 2 documents with a mention pair (two mentions of the entity types in one
    sentence; λ is chosen by leaving one document out), at least one related and one
    unrelated candidate pair.  Without a related one the message says why, from the
    relations' counts (``rc.relation_counts``, :mod:`ppi.documents.relation_counts`: e.g.
    every relation names an id no mention carries — more documents would not help).
    ``entity_types``: the paired types the message names.  O(candidates + mention pairs).
    """
    c = rc.candidates
    y = c.y
    n_docs = len(rc.corpus.documents)
    with_pairs = len(np.unique(rc.documents_of_pairs()))
    problems = []
    if with_pairs < 2:
        problems.append(
            f"{n_docs} document{'s' if n_docs != 1 else ''}"
            + (f", {with_pairs} of them with a mention pair" if with_pairs != n_docs else "")
            + "; training needs at least 2 documents with a mention pair (two mentions of the "
            "entity types in one sentence): λ is chosen by leaving one document out")
    related, unrelated = int((y > 0).sum()), int((y < 0).sum())
    if related == 0:
        counts = rc.relation_counts
        why = "" if counts is None or not counts.left_out else (
            f": of its {counts.read + counts.dropped} relations, "
            + counts.describe(entity_types)
            + (" — a relation must name ids of its document's mentions; more documents "
               "would not help" if counts.unknown_ids and not counts.used else ""))
        problems.append(
            f"0 related candidate pairs of {len(c)} (a candidate is two concepts with "
            "mentions of the entity types in one document, related when one of its relations "
            f"names both){why}; training needs at least one")
    if unrelated == 0 and related:
        problems.append(
            f"every one of the {related} candidate pairs is related; training needs at least "
            "one unrelated pair (two concepts mentioned in one document that no relation "
            "names)")
    if problems:
        raise InvalidParameterError(f"{rc.source}" + (f", {part}" if part else "") + ": "
                                    + "; and ".join(problems))


def predict_documents(fit, X, candidates):
    """Candidate scores and decisions (``score > threshold``)."""
    s = fit.candidate_scores(X, candidates)
    return s, s > fit.threshold


def candidate_auc(y, scores):
    """AUC of candidate ``scores`` (−inf: never scored, ranked last)."""
    from learners.measures import auc

    return float(auc(y, unscored_last(scores)))


def candidate_measures(y, scores, threshold):
    """AUC and P / R / F of candidate ``scores`` (−inf: never scored, ranked last) at
    ``threshold``."""
    from learners.measures import auc, precision_recall_f1

    s = unscored_last(scores)
    prf = precision_recall_f1(y, s, threshold)
    return {"auc": float(auc(y, s)), "precision": float(prf.precision),
            "recall": float(prf.recall), "f1": float(prf.f1),
            "predicted_positive": int((s > threshold).sum()), "n": int(len(y)),
            "related": int((np.asarray(y) > 0).sum())}
