"""The document stage: one score per candidate concept pair of a document, from its mention
pairs' scores and where the two concepts are mentioned (the second stage of the
``documents`` system, :mod:`ppi.documents.system`).

Why a second stage.  The maximum over mention pairs (:mod:`ppi.aggregation.aggregate`) says "some
sentence states it"; document-level relation corpora (BioRED: Luo et al. 2022) annotate what
the *abstract* reports, and which gene pairs that is depends on the document as much as on one
sentence: a pair of the abstract's main genes, named in the title and again and again, is
related far more often than two genes of a list, and 4–12 % of the related pairs never share a
sentence.  Combining the mention-level classifier's output with such document-level evidence
is the design of the strongest document-level systems of the BioCreative V CDR task (Xu et
al. 2016, "CD-REST", Database baw036; Peng, Wei & Lu 2016, "Improving chemical disease
relation extraction with rich features and weakly labeled data", J. Cheminformatics 8:53:
a sentence-level and a document-level classifier, the latter on counts, positions and the
title) — here as stacking (Wolpert 1992): the second stage is trained on the first stage's
*held-out* scores (leave-one-document-out, exact, :mod:`ppi.documents.system`), so it learns
how far to trust them.

Features of a candidate ``(a, b)`` (:data:`FEATURES`; symmetric in ``a`` and ``b``: per-concept
features enter as their minimum and maximum):

* the bag's scores: maximum, second best, mean (0 for an empty bag), whether the bag is
  empty, ``log(1 + mention pairs)``, ``log(1 + sentences holding both)``;
* each concept: ``log(1 + its mentions)``, mentioned in the title, its frequency rank in the
  document (0 = most mentioned, / number of concepts), the fraction of the document's
  sentences naming it, the position of its first mention (/ document length);
* the pair: ``log(1 + sentences between the closest mentions)`` (0 when they share one),
  both among the two most mentioned concepts; the document: ``log`` of its number of
  concepts.

The model (:class:`DocumentStage`): RLS with the Gaussian kernel on the standardized
features (kernel ridge regression on 19 numbers; thesis §2.7) over a Nyström basis of
300 training candidates (Paper III), the decision threshold the bagged best-F one of the
leave-one-document-out scores (:func:`bagged_threshold`).

λ and γ are by default **transferred, not chosen**: the pair :data:`STAGE_ALPHA`,
:data:`STAGE_GAMMA` that leave-one-document-out AUC over :data:`ALPHAS` × :data:`GAMMAS`
chose on BioRED's 400 training abstracts.  A default tuned on reference data (Probst,
Boulesteix & Bischl 2019, "Tunability", JMLR 20:53; from a related task: Yogatama & Mann
2014, AISTATS) beats a choice made by a few dozen abstracts, whose held-out AUC is too noisy
to choose by: on random draws of 25 / 50 / 100 / 200 training abstracts (10 each) it gives
BioRED dev F +1.4 / +1.2 / +0.6 / +0.4 and AUC +1.5 / +1.1 / +0.8 / −0.4 over the grid
search, and — the test of a transfer — on *BioCreative VI PPIm*, another corpus with another
definition of a relation, AUC +1.7 / +4.0 / +0.7 / +0.8 and F +0.5 / +0.4 / +0.2 / +0.2 on
its undrawn abstracts (``benchmarks/experiments/ppi/exp_ppi_stage_params.py``).  ``ppi train
--relations-from … --stage-search`` searches the grid instead
(``DocumentStage(alphas=ALPHAS, gammas=GAMMAS)``).

Scoring ``n`` candidates against the ``r`` basis candidates:
O(n r d) with d = 19 — negligible beside parsing.
"""

from __future__ import annotations

import numpy as np

from kernelrank.errors import InvalidParameterError
from learners.measures import precision_recall_f1

__all__ = ["FEATURES", "ALPHAS", "GAMMAS", "STAGE_ALPHA", "STAGE_GAMMA", "document_features",
           "DocumentStage", "bagged_threshold"]

#: The names of the document-level features, in column order (module docstring).
FEATURES = ("max_score", "second_score", "mean_score", "empty_bag", "log_mention_pairs",
            "log_shared_sentences", "log_mentions_min", "log_mentions_max", "title_min",
            "title_max", "rank_min", "rank_max", "sentence_fraction_min",
            "sentence_fraction_max", "first_position_min", "first_position_max",
            "log_sentence_distance", "top_two", "log_concepts")


def _per_concept(dm):
    """``{id: (mentions, in title, sentences set, first start)}`` of one document."""
    out = {}
    for k, ids in enumerate(dm.ids_of):
        for i in ids:
            c = out.get(i)
            if c is None:
                c = out[i] = [0, False, set(), int(dm.start[k])]
            c[0] += 1
            c[1] = c[1] or bool(dm.in_title[k])
            c[2].add(int(dm.sentence_of[k]))
            c[3] = min(c[3], int(dm.start[k]))
    return out


def _bag_statistics(scores, candidates):
    """Per candidate: max, second best, mean of its bag's scores (0 for an empty bag) and
    the bag size."""
    sizes = candidates.bag_sizes
    n = len(sizes)
    best = np.zeros(n)
    second = np.zeros(n)
    mean = np.zeros(n)
    filled = np.flatnonzero(sizes > 0)
    if len(filled):
        g = np.asarray(scores, dtype=float)[candidates.bag_rows]
        starts = candidates.bag_ptr[filled]
        owner = np.repeat(np.arange(n), sizes)
        g = g[np.lexsort((-g, owner))]            # each bag's scores, best first
        best[filled] = g[starts]
        mean[filled] = np.add.reduceat(g, starts) / sizes[filled]
        two = sizes[filled] >= 2
        second[filled] = np.where(two, g[np.minimum(starts + 1, len(g) - 1)], best[filled])
    return best, second, mean, sizes


def document_features(scores, candidates):
    """The feature matrix (candidates × :data:`FEATURES`) of ``candidates``
    (:class:`ppi.documents.relations.Candidates`) given the mention pairs' ``scores`` (rows in corpus
    order, as the candidates' bags index them).

    Complexity O(rows + mentions + candidates)."""
    best, second, mean, sizes = _bag_statistics(scores, candidates)
    n = len(candidates)
    F = np.zeros((n, len(FEATURES)))
    F[:, 0], F[:, 1], F[:, 2] = best, second, mean
    F[:, 3] = sizes == 0
    F[:, 4] = np.log1p(sizes)
    concept_cache = {}
    for c in range(n):
        d = int(candidates.doc[c])
        info = concept_cache.get(d)
        if info is None:
            dm = candidates.mentions[d]
            per = _per_concept(dm)
            order = sorted(per, key=lambda i: (-per[i][0], per[i][3]))
            rank = {i: r for r, i in enumerate(order)}
            info = concept_cache[d] = (per, rank, dm)
        per, rank, dm = info
        a, b = per[candidates.id1[c]], per[candidates.id2[c]]
        ns = max(dm.n_sentences, 1)
        nc = max(len(per), 1)
        F[c, 5] = np.log1p(len(a[2] & b[2]))
        F[c, 6:8] = sorted((np.log1p(a[0]), np.log1p(b[0])))
        F[c, 8:10] = sorted((float(a[1]), float(b[1])))
        F[c, 10:12] = sorted((rank[candidates.id1[c]] / nc, rank[candidates.id2[c]] / nc))
        F[c, 12:14] = sorted((len(a[2]) / ns, len(b[2]) / ns))
        F[c, 14:16] = sorted((a[3] / max(dm.length, 1), b[3] / max(dm.length, 1)))
        sa, sb = np.fromiter(a[2], int), np.fromiter(b[2], int)
        F[c, 16] = np.log1p(np.min(np.abs(sa[:, None] - sb[None, :])))
        F[c, 17] = float(max(rank[candidates.id1[c]], rank[candidates.id2[c]]) <= 1)
        F[c, 18] = np.log(nc)
    return F


def bagged_threshold(y, scores, documents, n_resamples=200, seed=0):
    """The decision threshold of held-out ``scores``: the median, over ``n_resamples``
    bootstrap resamples of whole documents, of each resample's best-F threshold
    (:func:`learners.measures.best_f_threshold`); with ``n_resamples=0`` the best-F
    threshold of all scores.

    The best-F threshold of one sample is the arg-max of a step function and jumps with a
    few documents when the training set is small (50 abstracts: ≈ 100 related pairs);
    bagging it (Breiman 1996, "Bagging predictors", Machine Learning 24(2), applied to the
    threshold) trades that variance for a little bias.  On BioRED dev with the stage trained
    on 50 random abstracts (seeds 0–2) it raised F from 0.654 / 0.720 / 0.577 to 0.699 /
    0.720 / 0.645 (the oracle threshold's: 0.701 / 0.746 / 0.733).  Resamples without a
    related candidate are skipped.  O(n_resamples · n log n)."""
    from learners.measures import best_f_threshold

    y = np.asarray(y, dtype=float)
    scores = np.asarray(scores, dtype=float)
    if n_resamples <= 0:
        return float(best_f_threshold(y, scores).threshold)
    documents = np.asarray(documents)
    order = np.argsort(documents, kind="stable")
    names, starts = np.unique(documents[order], return_index=True)
    bounds = np.append(starts, len(order))
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(int(n_resamples)):
        pick = rng.integers(0, len(names), len(names))
        idx = np.concatenate([order[bounds[k]:bounds[k + 1]] for k in pick])
        if (y[idx] > 0).any() and (y[idx] < 0).any():
            found.append(best_f_threshold(y[idx], scores[idx]).threshold)
    if not found:
        return float(best_f_threshold(y, scores).threshold)
    return float(np.median(found))


#: the λ grid searched with ``--stage-search`` (one path per γ)
ALPHAS = 2.0 ** np.arange(-8, 9, 2)
#: the γ grid searched with ``--stage-search`` (the Gaussian on standardized features)
GAMMAS = (0.001, 0.003, 0.01, 0.03)
#: the default λ and γ of :class:`DocumentStage`: the grid's choice on BioRED's 400 training
#: abstracts (module docstring; ``ppi train --relations-from biored --stage-search``;
#: docs/results/ppi.md, "The document stage's lambda and gamma transferred from BioRED")
STAGE_ALPHA, STAGE_GAMMA = 0.25, 0.001

#: candidates scored together by :meth:`DocumentStage.decision_function` (a block holds
#: block × basis × features floats: 256 × 300 × 19 × 8 B ≈ 12 MB)
SCORE_BLOCK = 256


class DocumentStage:
    """Gaussian-kernel RLS on the standardized document features (module docstring), as a
    reduced-set model over a Nyström basis of training candidates.

    Parameters
    ----------
    alphas : sequence of float        the λ grid (a path from one decomposition per γ;
                                      default: :data:`STAGE_ALPHA` alone)
    gammas : sequence of float        the γ grid of the Gaussian kernel ``exp(−γ ‖z − z'‖²)``
                                      on standardized features; each a fit (default:
                                      :data:`STAGE_GAMMA` alone)
    n_basis : int                     basis candidates of the Nyström map (Paper III; all
                                      candidates when there are fewer; 300 — for 19
                                      features; the leave-one-document-out cost per
                                      document grows with it)
    seed : int                        the basis sample and the threshold's resamples
    n_resamples : int                 bootstrap resamples of the training documents for the
                                      decision threshold (:func:`bagged_threshold`; 0: the
                                      best-F threshold of all held-out scores)

    Attributes
    ----------
    mean_, scale_ : the standardization (all attributes are set by :meth:`fit`)
    basis_ : ndarray (r, d)           the standardized basis candidates
    dual_coef_ : ndarray (r,)         ``f(z) = Σ_j c_j exp(−γ‖z − b_j‖²)``
    alpha_, gamma_, threshold_ : the chosen λ, γ and the (bagged) best-F threshold
    inner_auc_, inner_f1_ : their pooled leave-one-document-out AUC and F
    holdout_scores_ : the leave-one-document-out scores of the training candidates

    Notes
    -----
    The features of the Nyström map ``Φ = K_ZB (Cᵀ)⁻¹`` (:class:`learners.nystroem.
    NystroemMap`) make the Gaussian RLS a primal RLS with r features: per γ O(m r² + r³),
    then every λ and every held-out document from one r × r eigendecomposition
    (:mod:`learners.holdout`).  The basis is drawn from all training candidates (features
    only, no labels), so a held-out document's candidates may be basis vectors — harmless
    for 19 features and r = 300, and what the model scores new documents with.  With the
    default single (λ, γ) the fit is one r × r decomposition and its held-out scores.
    """

    def __init__(self, alphas=None, gammas=None, n_basis=300, seed=0, n_resamples=200):
        self.alphas = alphas
        self.gammas = gammas
        self.n_basis = n_basis
        self.seed = seed
        self.n_resamples = n_resamples

    def fit(self, F, y, documents):
        """Choose (λ, γ) by pooled leave-one-document-out AUC and fit; ``documents``: the
        document of every candidate (whole documents are held out)."""
        from learners import RLS
        from learners.nystroem import NystroemMap
        from learners.selection import Scoring, select
        from learners.splits import group_sets

        F = np.asarray(F, dtype=float)
        y = np.asarray(y, dtype=float)
        if F.ndim != 2 or len(F) != len(y) or not np.isfinite(F).all():
            raise InvalidParameterError("document features must be a finite candidates × "
                                        "features matrix with one label per candidate")
        if len(np.unique(y)) < 2:
            raise InvalidParameterError("the document stage needs related and unrelated "
                                        "candidates; the training documents have one class")
        self.mean_ = F.mean(axis=0)
        scale = F.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        Z = (F - self.mean_) / self.scale_
        alphas = np.asarray(self.alphas if self.alphas is not None else (STAGE_ALPHA,))
        gammas = list(self.gammas if self.gammas is not None else (STAGE_GAMMA,))
        sets = group_sets(np.asarray(documents))
        best = None
        for gamma in gammas:
            nmap = NystroemMap("gaussian", gamma=gamma, n_basis=min(self.n_basis, len(Z)),
                               random_state=self.seed).fit(Z)
            Phi = nmap.transform(Z)
            sel = select(RLS(kernel="linear", solver="primal"), Phi, y, cv=sets,
                         search={"alpha": alphas}, scoring=Scoring("auc", threshold="f1"))
            # ties: the first (smoothest) γ of the grid
            if best is None or sel.best_score > best[1].best_score * (1 + 1e-12):
                best = (gamma, sel, nmap)
        gamma, sel, nmap = best
        self.alpha_, self.gamma_ = float(sel.best_params["alpha"]), float(gamma)
        self.inner_auc_ = float(sel.best_score)
        self.holdout_scores_ = sel.holdout_predictions_of_best()
        self.threshold_ = bagged_threshold(y, self.holdout_scores_, documents,
                                           self.n_resamples, self.seed)
        self.inner_f1_ = float(precision_recall_f1(y, self.holdout_scores_,
                                                   self.threshold_).f1)
        w = np.asarray(sel.model.regularization_path([self.alpha_]))[0].ravel()
        self.basis_ = Z[nmap.basis_indices_]
        self.dual_coef_ = nmap.coef_to_dual(w)
        return self

    @classmethod
    def from_arrays(cls, mean, scale, basis, dual_coef, *, gamma, alpha, threshold):
        """A fitted stage from its saved arrays (:mod:`ppi.models.classes`, version 6)."""
        st = cls()
        st.mean_, st.scale_ = np.asarray(mean, float), np.asarray(scale, float)
        st.basis_, st.dual_coef_ = np.asarray(basis, float), np.asarray(dual_coef, float)
        st.gamma_, st.alpha_, st.threshold_ = float(gamma), float(alpha), float(threshold)
        return st

    def decision_function(self, F):
        """Scores of candidates with features ``F``: ``Σ_j c_j exp(−γ‖z − b_j‖²)``.

        Computed from the differences ``z − b_j`` with NumPy's own sums, in blocks of
        :data:`SCORE_BLOCK` candidates, not through BLAS (``‖z‖² + ‖b‖² − 2 z·b`` and a
        matrix product): a candidate's score is then the same bits whatever the batch it is
        scored in and however BLAS was started — in this process or in a Dask worker, whose
        OpenBLAS runs another kernel and rounds the last digits otherwise, so ``ppi
        extract``'s output is byte-identical for any ``--jobs``.  O(n r d), as the matrix
        product (d = 19 features, r basis candidates).
        """
        Z = (np.asarray(F, dtype=float) - self.mean_) / self.scale_
        out = np.empty(len(Z))
        for start in range(0, len(Z), SCORE_BLOCK):
            D = Z[start:start + SCORE_BLOCK, None, :] - self.basis_[None, :, :]
            np.square(D, out=D)
            K = np.exp(-self.gamma_ * D.sum(axis=2))
            out[start:start + SCORE_BLOCK] = (K * self.dual_coef_).sum(axis=1)
        return out
