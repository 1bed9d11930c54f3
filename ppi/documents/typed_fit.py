"""Every relation a curator annotates: the typed fit of the ``documents`` system — which
concept pairs of every pair type are related, with which relation type, and whether the
relation is a novel finding of the abstract (BioRED's whole task: Luo et al. 2022,
"BioRED: a rich biomedical relation extraction dataset", Briefings in Bioinformatics 23(5),
§"Relation extraction").

**One multi-output fit.**  The mention pairs (rows ``X``, each of a pair type ``t``;
:mod:`ppi.documents.pair_types`) get the targets of :func:`row_targets`, one column each:
*related* (the single-instance labels of :mod:`ppi.documents.relations`), one column per
relation type ``k`` (+1 for a row of a candidate related by a relation of type ``k``), and
*novel* (+1 for a row of a candidate whose relation is marked ``Novel``; only when the file
marks novelty).  One RLS on the rows augmented by pair type (:func:`ppi.documents.
pair_types.augment`: one block of columns per pair type — ``separate`` — or those and a
shared block, Daumé III 2007 — ``shared``) fits every column from one decomposition (RLS is linear in its targets), and its leave-one-document-out
predictions come for every λ (and β) at once (:func:`learners.selection.
holdout_predictions`).  Transfer from the five PPI corpora (:mod:`ppi.learning.transfer`)
is the prior of the *related* column on the gene–gene rows only (zero elsewhere; one β).
The related column's (λ, β) is chosen by the candidates' pooled held-out AUC (as the
untyped system); each other column's λ by its own criterion on the held-out predictions:
the relation types' by the related candidates' type accuracy, novelty's by the AUC of
novel against not novel among them.

**Candidates** (:class:`TypedFit`).  *Related*: the document stage (:mod:`ppi.documents.
stage`) on the related column's evidence and the candidate's pair type (one indicator a
pair type); a pair type with at least :data:`OWN_STAGE_RELATED` related training candidates
has a stage of its own, and every pair type its own decision threshold
(:func:`pair_type_thresholds`: their base rates differ tenfold), subtracted from the scores
so that the candidates' threshold is 0.  *Relation type*: the type ``k`` whose column's bag maximum is largest among
the types the pair type takes in the training file (:attr:`TypedFit.allowed`); a candidate
without a mention pair takes its pair type's most frequent type.  *Novelty*: a second
document stage on the novel column's evidence, trained on the related candidates whose
novelty is marked, its threshold the one of best held-out accuracy (novel and not novel
are both answers: BioRED counts a relation right when its novelty matches).

Cost: the untyped fit's with ``q`` target columns (1 + relation types + 1) — O(nnz r + m r²
+ m r q) for the reduced set, held-out predictions O(points · m q) memory — plus the two
document stages on the candidates' 19 + T features.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

import numpy as np
import scipy.sparse as sp

from kernelrank.errors import InvalidParameterError
from learners.measures import precision_recall_f1
from ppi.documents.relations import bag_max

__all__ = ["GENE_PAIR_TYPES", "row_targets", "TypedFit", "fit_typed", "typed_features",
           "best_accuracy_threshold", "type_decisions"]

log = logging.getLogger(__name__)

#: a pair type with fewer related training candidates takes the overall threshold
MIN_TYPE_RELATED = 10
#: a pair type with at least this many related training candidates gets a document stage
#: of its own (0: one stage for all)
OWN_STAGE_RELATED = 300
#: entity types whose pairs the five PPI corpora's prior speaks for (compared ignoring case)
GENE_PAIR_TYPES = frozenset({"gene", "geneorgeneproduct", "protein"})


def _gene_pair(pair):
    return all(t.lower() in GENE_PAIR_TYPES for t in pair)


def row_targets(rc, relation_types, with_novelty):
    """The target columns of the mention-pair rows of ``rc`` (module docstring): ``(m, q)``
    with columns related, one per name of ``relation_types``, and (``with_novelty``) novel;
    related ±1; a relation type's column +1 on the rows of a candidate related by that
    type, −1 on those of the other related candidates and 0 (no preference) on the rows of
    unrelated ones, so that the column tells the types of a relation apart rather than
    related from unrelated — novel's likewise (+1 novel, −1 marked not novel).  O(rows of
    the related bags · types)."""
    c = rc.candidates
    q = 1 + len(relation_types) + int(with_novelty)
    Y = np.zeros((rc.n_pairs, q))
    Y[:, 0] = -1.0
    column = {t.lower(): 1 + k for k, t in enumerate(relation_types)}
    for k in np.flatnonzero(c.y > 0):
        rows = c.bag_rows[c.bag_ptr[k]:c.bag_ptr[k + 1]]
        if not len(rows):
            continue
        Y[rows, 0] = 1.0
        mine = {column[t.lower()] for t in c.relation_types[k] if t.lower() in column}
        for j in range(1, 1 + len(relation_types)):
            # a row of two related candidates keeps the +1 of either
            Y[rows, j] = np.maximum(Y[rows, j], 1.0) if j in mine else np.where(
                Y[rows, j] > 0, Y[rows, j], -1.0)
        if with_novelty and c.novel[k] != 0:
            Y[rows, -1] = np.maximum(Y[rows, -1], c.novel[k]) if c.novel[k] > 0 else \
                np.where(Y[rows, -1] > 0, Y[rows, -1], -1.0)
    return Y


def typed_features(scores, candidates, n_types):
    """The document stage's features of typed ``candidates``: :func:`ppi.documents.stage.
    document_features` of the mention pairs' ``scores`` and one indicator column per pair
    type.  O(rows + candidates · T)."""
    from ppi.documents.stage import document_features

    F = document_features(scores, candidates)
    onehot = np.zeros((len(candidates), n_types))
    onehot[np.arange(len(candidates)), candidates.pair_type] = 1.0
    return np.hstack([F, onehot])


def best_accuracy_threshold(y, scores):
    """The threshold ``s`` maximizing the accuracy of ``scores > s`` for labels ``y`` (±1):
    the midpoint below the best cut of the sorted scores (ties: the first).
    O(n log n)."""
    y = np.asarray(y, dtype=float)
    s = np.asarray(scores, dtype=float)
    if not len(s):
        return 0.0
    order = np.argsort(-s, kind="stable")
    ys, ss = y[order], s[order]
    # predicting the first j positive: correct = positives among them + negatives after
    pos_before = np.concatenate([[0], np.cumsum(ys > 0)])
    neg_after = (ys < 0).sum() - np.concatenate([[0], np.cumsum(ys < 0)])
    correct = pos_before + neg_after
    # only cuts between distinct scores
    valid = np.ones(len(s) + 1, dtype=bool)
    valid[1:-1] = ss[:-1] > ss[1:]
    j = int(np.argmax(np.where(valid, correct, -1)))
    if j == 0:
        return float(ss[0] + 1.0)
    if j == len(s):
        return float(ss[-1] - 1.0)
    return float((ss[j - 1] + ss[j]) / 2)


def type_decisions(type_scores, pair_type, allowed, default):
    """``(predicted, scores)``: each candidate's relation type (its number) — the largest of
    ``type_scores`` (types × candidates; −inf for no evidence) among the ``allowed``
    (pair types × types) of its ``pair_type``, its pair type's ``default`` when none has
    evidence — and the scores with the disallowed ones set to −inf.  O(types ·
    candidates)."""
    S = np.where(np.asarray(allowed)[pair_type].T, type_scores, -np.inf)
    if not len(S):
        return np.asarray(default)[pair_type], S
    best = np.argmax(S, axis=0)
    best = np.where(np.isfinite(S.max(axis=0)), best, np.asarray(default)[pair_type])
    return best, S


@dataclass
class TypedFit:
    """A fitted typed ``documents`` system (module docstring).

    ``weights``: sparse (d × B·q) — the linear models of the ``q`` target columns over the
    featurizer's columns in blocks (column 0 related, 1..K the relation types, then
    novelty): pair type ``t``'s block ``t``, or with the shared block (``shared_block``)
    ``t + 1`` plus block 0 (:func:`ppi.documents.pair_types.type_weights`);
    ``relation_types``: the K names; ``allowed`` (T, K): the types each pair type takes in
    the training file; ``default_type`` (T,): its most frequent; ``stage`` /
    ``novelty_stage``: the document stages (:class:`ppi.documents.stage.DocumentStage`;
    None: no stage / no novelty); ``novelty_threshold``: the novelty stage's."""

    pair_types: object
    weights: object
    relation_types: tuple
    allowed: np.ndarray
    default_type: np.ndarray
    instance_threshold: float
    stage: object
    novelty_stage: object
    novelty_threshold: float
    #: (T,) each pair type's threshold of the document stage's scores (the candidates'
    #: ``score`` is the stage's minus its pair type's, so their threshold is 0)
    thresholds: np.ndarray = None
    #: ``{pair type: DocumentStage}``: the pair types with a document stage of their own
    #: (their candidates are scored by it, not by ``stage``; :func:`fit_typed`)
    own_stages: dict = field(default_factory=dict)
    info: dict = field(default_factory=dict)
    featurizer: object = None
    #: whether block 0 of ``weights`` is shared by every pair type (pair type ``t``'s own
    #: block is then ``t + 1``; else ``t``)
    shared_block: bool = False
    #: the leave-one-document-out row outputs (m × q) of the training rows (a fit's, not
    #: saved)
    heldout: np.ndarray = field(default=None, repr=False)

    @property
    def threshold(self):
        """The decision threshold of the candidates' related scores: 0 (each pair type's own
        is subtracted, :func:`pair_type_thresholds`); without a document stage the mention
        pairs'."""
        return 0.0 if self.stage is not None else self.instance_threshold

    @property
    def with_novelty(self):
        return self.novelty_stage is not None

    def row_outputs(self, X, row_types):
        """The target columns' scores (m × q) of mention-pair rows ``X`` of pair types
        ``row_types``: each row by its pair type's block of weights (and the shared one),
        the rows of one pair type together.  O(nnz · q)."""
        X = sp.csr_matrix(X)
        row_types = np.asarray(row_types)
        q, off = self.n_outputs, 1 if self.shared_block else 0
        if not hasattr(self, "_blocks"):        # each block's q columns, sliced once
            W = sp.csc_matrix(self.weights)
            self._blocks = [sp.csr_matrix(W[:, b * q:(b + 1) * q])
                            for b in range(W.shape[1] // q)]
        S = np.zeros((X.shape[0], q))
        for t in np.unique(row_types):
            rows = np.flatnonzero(row_types == t)
            Xt = X[rows]
            S[rows] = (Xt @ self._blocks[t + off]).toarray()
            if self.shared_block:
                S[rows] += (Xt @ self._blocks[0]).toarray()
        return S

    @property
    def n_outputs(self):
        """The target columns ``q`` of a mention pair (1 + relation types [+ novelty])."""
        return 1 + len(self.relation_types) + int(self.novelty_stage is not None)

    def candidate_outputs(self, S, candidates):
        """What the model says of each of ``candidates`` (typed :class:`ppi.documents.
        relations.Candidates`) from its mention pairs' outputs ``S`` (m × q): a dict of
        ``score`` (related), ``type`` (the predicted type's number), ``type_scores`` (K ×
        n; −inf: not a type of the pair type or no evidence), ``novelty_score`` (None
        without novelty).  O(rows · q + candidates · (K + T))."""
        n_types = len(self.pair_types)
        if self.stage is None:
            score = bag_max(S[:, 0], candidates)
        else:
            F = typed_features(S[:, 0], candidates, n_types)
            score = self.stage.decision_function(F)
            for t, st in self.own_stages.items():
                m = candidates.pair_type == t
                score[m] = st.decision_function(F[m, :-n_types])
            score = score - np.asarray(self.thresholds)[candidates.pair_type]
        K = len(self.relation_types)
        B = bag_max(S[:, 1:1 + K].T, candidates) if K else np.zeros((0, len(candidates)))
        best, T = type_decisions(B, candidates.pair_type, self.allowed, self.default_type)
        novelty = None
        if self.novelty_stage is not None:
            novelty = self.novelty_stage.decision_function(
                typed_features(S[:, -1], candidates, n_types))
        return {"score": score, "type": best, "type_scores": T, "novelty_score": novelty}


def pair_type_thresholds(scores, candidates, n_types, overall, min_related=MIN_TYPE_RELATED,
                         seed=0):
    """Each pair type's decision threshold of the held-out candidate ``scores``: the
    bagged best-F threshold of its candidates (:func:`ppi.documents.stage.
    bagged_threshold`) — the pair types' scores are not on one scale (their base rates
    differ tenfold) — or ``overall`` for a pair type with fewer than ``min_related``
    related candidates.  O(resamples · n log n)."""
    from ppi.documents.stage import bagged_threshold

    out = np.full(n_types, float(overall))
    for t in range(n_types):
        m = candidates.pair_type == t
        if (candidates.y[m] > 0).sum() >= min_related and (candidates.y[m] < 0).any():
            out[t] = bagged_threshold(candidates.y[m], scores[m], candidates.doc[m],
                                      seed=seed)
    return out


def _fit_columns(system, X, Y, prior, path, row_docs, cands, *, allowed, default_type,
                 relation_types, with_novelty):
    """One multi-output fit (module docstring) of the rows ``X`` (targets ``Y``, m × q;
    ``prior``: the transfer prior's predictions or None) whose candidates are ``cands``
    (bags over these rows): the leave-one-document-out predictions for every point of
    ``path``, each column's point (related: the candidates' AUC; the types: the related
    candidates' type accuracy; novelty: its AUC among them) and its weights over the
    columns the basis rows use.  Returns a dict."""
    from learners.measures import auc
    from learners.selection import Channels, holdout_predictions
    from learners.splits import group_sets
    from ppi.documents.mention_stage import mention_learner_input, unscored_last
    from ppi.learning.evaluation import expansion, ppi_learner

    q, K = Y.shape[1], len(relation_types)
    K_in = mention_learner_input(X, system.learner, system.n_basis)
    kind = "linear" if K_in is X else "precomputed"
    est = ppi_learner(system.learner, system.n_basis, system.seed, len(Y), kind,
                      transfer=prior is not None)
    h, fitted = holdout_predictions(
        est, K_in, Y, cv=group_sets(row_docs), path=path,
        channels=Channels(fit=None if prior is None else {"prior": prior}))
    points = h.candidates
    P = h.snapped().in_row_order(len(Y))                 # points × m × q
    del h
    aucs = np.array([auc(cands.y, b) for b in unscored_last(bag_max(P[..., 0], cands))])
    best = int(np.nanargmax(aucs)) if np.isfinite(aucs).any() else len(points) // 2
    related = cands.y > 0
    scored = np.flatnonzero(related & (cands.bag_sizes > 0))
    type_best, type_acc = best, None
    if K > 1 and len(scored):
        sub = cands.subset(scored)
        gold = [cands.relation_types[c] for c in scored]
        accs = [np.mean([relation_types[k] in g for k, g in zip(type_decisions(
            bag_max(P[p][:, 1:1 + K].T, sub), sub.pair_type, allowed, default_type)[0],
            gold)]) for p in range(len(points))]
        type_best, type_acc = int(np.argmax(accs)), float(np.max(accs))
    nov_best = best
    marked = np.flatnonzero(related & (cands.bag_sizes > 0) & (cands.novel != 0))
    if with_novelty and len(np.unique(cands.novel[marked])) == 2:
        nsub = cands.subset(marked)
        naucs = [auc(cands.novel[marked], bag_max(P[p][:, -1], nsub))
                 for p in range(len(points))]
        nov_best = int(np.argmax(naucs))
    picks = {0: best, **{c: type_best for c in range(1, 1 + K)}}
    if with_novelty:
        picks[q - 1] = nov_best
    transfer = prior is not None
    used = W = None
    for point in sorted(set(picks.values())):
        alpha, beta = points[point]["alpha"], points[point].get("beta", 0.0)
        Xb, coef = expansion(fitted, X, alpha)
        if used is None:                  # the columns the basis rows use
            Xb = sp.csc_matrix(Xb)
            used = np.flatnonzero(np.diff(Xb.indptr))
            Xbu = Xb[:, used]
            W = np.zeros((len(used), q))
        coef = np.asarray(coef, dtype=float).reshape(coef.shape[0], -1)
        for c in (c for c, p in picks.items() if p == point):
            cc = coef[:, c] - beta * coef[:, q + c] if transfer else coef[:, c]
            W[:, c] = np.asarray(Xbu.T @ cc).ravel()
    return {"weights": W, "used": used,
            "heldout": np.stack([P[picks[c]][:, c] for c in range(q)], axis=1),
            "alpha": float(points[best]["alpha"]),
            "beta": points[best].get("beta") if transfer else None,
            "auc": float(aucs[best]), "type_alpha": float(points[type_best]["alpha"]),
            "type_accuracy": type_acc, "novelty_alpha": float(points[nov_best]["alpha"])}


def fit_typed(system, rc, X, w_source=None, source_info=None):
    """Fit the typed system (module docstring) on the typed relation corpus ``rc`` whose
    mention pairs have the rows ``X``; ``w_source``: the five corpora's prior over the
    featurizer's columns (:meth:`ppi.documents.system.DocumentSystem.source_model`), the
    gene–gene rows' prior.  Returns :class:`TypedFit`."""
    import time

    from learners.measures import auc, best_f_threshold
    from ppi.documents.mention_stage import unscored_last
    from ppi.documents.pair_types import augment, type_weights
    from ppi.documents.stage import DocumentStage
    from ppi.names import BETAS

    t0 = time.perf_counter()
    pt = rc.pair_types
    n_types, d = len(pt), X.shape[1]
    cands = rc.candidates
    related = cands.y > 0
    found = sorted({t for k in np.flatnonzero(related) for t in cands.relation_types[k]})
    relation_types = tuple(found)
    K = len(relation_types)
    with_novelty = bool((cands.novel[related] != 0).any()) and len(
        np.unique(cands.novel[related & (cands.novel != 0)])) == 2
    allowed = np.zeros((n_types, K), dtype=bool)
    counts = np.zeros((n_types, K))
    index = {t: k for k, t in enumerate(relation_types)}
    for c in np.flatnonzero(related):
        for t in cands.relation_types[c]:
            allowed[cands.pair_type[c], index[t]] = True
            counts[cands.pair_type[c], index[t]] += 1
    default_type = counts.argmax(axis=1) if K else np.zeros(n_types, dtype=np.int64)
    Y = row_targets(rc, relation_types, with_novelty)
    q = Y.shape[1]
    row_types = rc.row_pair_types()
    shared = system.pair_model == "shared"
    Xa = augment(X, row_types, n_types, shared) if n_types > 1 else X
    gene = [k for k, p in enumerate(pt.pairs) if _gene_pair(p)]
    prior = None
    path = {"alpha": system.alpha_grid}
    if w_source is not None and gene:
        g = np.asarray(X @ w_source).ravel() * np.isin(row_types, gene)
        prior = np.zeros((len(g), q))
        prior[:, 0] = g
        path["beta"] = np.asarray(BETAS, dtype=float)
    row_docs = rc.documents_of_pairs()
    choice = dict(allowed=allowed, default_type=default_type, relation_types=relation_types,
                  with_novelty=with_novelty)
    f = _fit_columns(system, Xa, Y, prior, path, row_docs, cands, **choice)
    shared_block = Xa is not X and shared
    offset = 1 if shared_block else 0
    heldout = f["heldout"]
    priors = [] if not f["beta"] or w_source is None else [
        (k + offset, f["beta"] * np.asarray(w_source, dtype=float)) for k in gene]
    weights = type_weights(f["weights"], f["used"], d, n_types + offset, priors)
    B0 = unscored_last(bag_max(heldout[:, 0], cands))
    thr = best_f_threshold(cands.y, B0)
    scored = related & (cands.bag_sizes > 0)
    type_acc = None
    if K > 1 and scored.any():
        sub = cands.subset(np.flatnonzero(scored))
        pred, _ = type_decisions(bag_max(heldout[:, 1:1 + K].T, sub), sub.pair_type,
                                 allowed, default_type)
        type_acc = float(np.mean([relation_types[k] in cands.relation_types[c]
                                  for k, c in zip(pred, np.flatnonzero(scored))]))
    info = {"alpha": f["alpha"], "beta": f["beta"],
            "instance_auc": float(auc(cands.y, B0)), "instance_f1": float(thr.f1),
            "instance_threshold": float(thr.threshold), "n_pairs": int(X.shape[0]),
            "n_candidates": len(cands), "n_related": int(related.sum()),
            "n_documents": len(rc.corpus.documents), "pair_types": pt.names,
            "pair_model": system.pair_model, "relation_types": list(relation_types),
            "type_alpha": f["type_alpha"], "type_accuracy": type_acc,
            "novelty": with_novelty, **(source_info or {})}
    stage = nstage = thresholds = None
    own = {}
    nthr = 0.0
    if system.document_stage:
        from ppi.documents.stage import ALPHAS as STAGE_ALPHAS
        from ppi.documents.stage import GAMMAS

        grid = {"alphas": STAGE_ALPHAS, "gammas": GAMMAS} if system.stage_search else {}
        F = typed_features(heldout[:, 0], cands, n_types)
        stage = DocumentStage(**grid).fit(F, cands.y, cands.doc)
        held = stage.holdout_scores_.copy()
        for t in range(n_types) if OWN_STAGE_RELATED else ():
            m = cands.pair_type == t
            if (cands.y[m] > 0).sum() >= OWN_STAGE_RELATED:
                own[t] = DocumentStage(**grid).fit(F[m, :-n_types], cands.y[m], cands.doc[m])
                held[m] = own[t].holdout_scores_
        thresholds = pair_type_thresholds(held, cands, n_types, stage.threshold_,
                                          seed=system.seed)
        margin = held - thresholds[cands.pair_type]
        info.update(stage_alpha=stage.alpha_, stage_gamma=stage.gamma_,
                    stage_auc=stage.inner_auc_,
                    stage_f1=float(precision_recall_f1(cands.y, margin, 0.0).f1),
                    pair_type_thresholds=thresholds.tolist())
    if with_novelty:
        marked = np.flatnonzero(related & (cands.novel != 0))
        nsub = cands.subset(marked)
        F = typed_features(heldout[:, -1], nsub, n_types)
        nstage = DocumentStage(n_resamples=0).fit(F, cands.novel[marked], nsub.doc)
        nthr = best_accuracy_threshold(cands.novel[marked], nstage.holdout_scores_)
        acc = np.mean((nstage.holdout_scores_ > nthr) == (cands.novel[marked] > 0))
        info.update(novelty_alpha=f["novelty_alpha"], novelty_auc=nstage.inner_auc_,
                    novelty_accuracy=float(acc), novelty_threshold=nthr)
    if not np.isfinite(weights.data).all():
        raise InvalidParameterError("the typed fit gave non-finite weights; try a larger "
                                    "λ grid (--alphas)")
    info["seconds"] = time.perf_counter() - t0
    log.info("typed fit: %d pair types, %d relation types, related AUC %.3f, type accuracy "
             "%s, novelty %s (%.0f s)", n_types, K, info["instance_auc"],
             "-" if type_acc is None else f"{type_acc:.3f}",
             f"AUC {info['novelty_auc']:.3f}" if with_novelty else "not marked",
             info["seconds"])
    return TypedFit(pt, weights, relation_types, allowed, default_type,
                    float(thr.threshold), stage, nstage, nthr, thresholds, own, info,
                    shared_block=shared_block, heldout=heldout)
