"""SCOP 1.53 remote-homology benchmark (Liao & Noble 2003) with RLS / RankRLS.

Protocol, per family (54 families, :mod:`corpora.scop`):

1. the Gram matrix of all 4,352 sequences is computed once (normalized kernel) and sliced:
   ``K[train, train]`` for training, ``K[test, train]`` for prediction;
2. the learner is fitted on the training part:

   * ``rls`` — :class:`learners.RLS` on *class-balanced* targets ``+m / (2 m+)`` for the
     positives and ``-m / (2 m-)`` for the negatives (m+ + m- = m). With these targets
     least squares is Fisher's discriminant (Duda, Hart & Stork 2001, §5.8.2); with plain
     ±1 targets and ~1 % positives the fit is dominated by the negatives, and on this
     benchmark ±1-target RLS ranks some families *below chance* (``targets="pm1"`` keeps
     them for comparison);
   * ``rankrls`` — :class:`learners.rankrls.GlobalRankRLS` on ±1 labels: the bipartite
     ranking (AUC-optimizing) RankRLS of Paper I §5.4. Its loss sums over all m^2 pairs,
     so its λ grid is the RLS grid multiplied by m;
   * ``l2svm`` (the CLI default) — :class:`learners.l2svm.L2SVM`, the squared-hinge SVM
     solved as RLS on its active set, class-balanced costs ``m / (2 m±)`` and an intercept.
     The squared loss of RLS / RankRLS also pulls the far-away negatives towards their
     target; the hinge ignores them, which is what lifts the top of the ranking (ROC50) to
     the published SVM level here. Its leave-one-out is exact for the examples outside the
     active set and the fixed-active-set RLS value for the others;

   the regularization parameter λ is chosen on the training part only, by the selection
   engine (:func:`learners.selection.select`): the ROC area (default) or the ROC50
   (``select="roc50"``) of the exact leave-one-out predictions (``leave_one_out(alphas)``:
   one eigendecomposition gives every λ of the grid); ties go to the larger λ (the
   engine's rule);
3. the test part is scored with the selected λ (``predict_path``, same decomposition) and
   evaluated by ROC area and ROC50 (:mod:`learners.measures`).

The test part is never used to choose anything. Published means (SVM, Leslie et al. 2004;
Liao & Noble 2003) are in :data:`PUBLISHED`.

Cost per family: one eigendecomposition of the m x m training kernel (m ≈ 2,300-3,400),
O(m^3); O(m^2) per λ for leave-one-out and prediction (RLS, RankRLS). L2-SVM: 3-7 Cholesky
factorizations of the active block per λ plus one triangular inverse for leave-one-out.
"""

import os
import time
from dataclasses import dataclass

import numpy as np
from sklearn.base import clone

from homology.features import ALPHABET, GROUPS, ProteinFeatures, residue_sequences
from homology.names import (ALPHAS_TEXT, KERNELS, L2SVM_ALPHAS_TEXT, LEARNERS, SELECTIONS,
                            TARGETS)
from kernelrank.cli import parse_grid
from kernelrank.errors import InvalidParameterError
from kernelrank.parallel import map_tasks
from learners.kernels import (LocalAlignmentKernel, LocalityKernel, MismatchKernel,
                              SpectrumKernel, SumKernel)
from learners.kernels.base import inverse_sqrt
from learners.measures import auc, roc50
from learners.registry import make_learner
from learners.selection import best_candidate, select as choose
from learners.splits import RowStructure

#: Mean ROC / ROC50 over the 54 families of published SVM methods on this benchmark.
PUBLISHED = {
    "SVM mismatch(5,1) (Leslie et al. 2004)": {"roc": 0.872, "roc50": 0.400},
    "SVM-pairwise (Liao & Noble 2003)": {"roc": 0.896, "roc50": 0.464},
    "SVM local alignment (Saigo et al. 2004)": {"roc": 0.925, "roc50": 0.649},
}

DEFAULT_ALPHAS = parse_grid(ALPHAS_TEXT)
#: λ grid of the L2-SVM: each λ costs Newton steps rather than one O(m^2) product.
L2SVM_ALPHAS = parse_grid(L2SVM_ALPHAS_TEXT)


def make_kernel(name, *, k=None, m=None, mode="sensitive", half_width=3, theta=2.0,
                groups=GROUPS, feature_kernel="linear", gamma=None, weight=0.2, beta=0.5,
                gap_open=11.0, gap_extend=1.0, psd="shift"):
    """Kernel object for a CLI name.

    Defaults: spectrum k=3, mismatch (5, 1), locality sensitive t=3 theta=2 (``mode`` and
    ``half_width`` are the locality kernel's ``matching`` and ``half_width``; ``theta`` is
    passed for ``mode="sensitive"`` only), local alignment (``la``) as Saigo et al. 2004:
    BLOSUM62, gaps 11 / 1, β = 0.5, eigenvalue shift (``psd``). The string kernels of
    :mod:`learners.kernels` get the amino-acid :data:`homology.features.ALPHABET`, so
    ambiguous residues match nothing. Every kernel is normalized (k(x, x) = 1), so the
    weights of a sum are comparable.

    A sum ``first+second`` is ``(1 − w)·first + w·second`` (``second`` the protein features
    or, after ``la``, the locality or mismatch kernel), ``w = weight``. Several weights (a
    sequence) give a :class:`WeightGrid`: the weight is then chosen with λ on each training
    part (:func:`evaluate_family`, :func:`homology.model.train_model`).
    """
    if name not in KERNELS:
        raise InvalidParameterError(f"unknown kernel {name!r}; choose one of {KERNELS}")
    if "+" in name:
        weights = _weights(weight)
        first, second = name.split("+")
        opts = dict(k=k, m=m, mode=mode, half_width=half_width, theta=theta, beta=beta,
                    gap_open=gap_open, gap_extend=gap_extend, psd=psd)
        if second == "features":
            opts = dict(groups=groups, feature_kernel=feature_kernel, gamma=gamma)
        parts = (make_kernel(first, k=k, m=m, mode=mode, half_width=half_width, theta=theta,
                             beta=beta, gap_open=gap_open, gap_extend=gap_extend, psd=psd),
                 make_kernel(second, **opts))
        if len(weights) > 1:
            return WeightGrid(*parts, weights)
        return SumKernel([(1.0 - weights[0], parts[0]), (weights[0], parts[1])])
    if name == "la":
        return LocalAlignmentKernel(beta=beta, gap_open=gap_open, gap_extend=gap_extend,
                                    psd=psd)
    if name == "spectrum":
        return SpectrumKernel(ALPHABET, k=3 if k is None else k)
    if name == "mismatch":
        return MismatchKernel(ALPHABET, k=5 if k is None else k, m=1 if m is None else m)
    if name == "locality":
        return LocalityKernel(half_width=half_width, matching=mode, alphabet=ALPHABET,
                              **({"theta": theta} if mode == "sensitive" else {}))
    return ProteinFeatures(groups=groups, kernel=feature_kernel, gamma=gamma)


def _weights(weight):
    """The weight(s) of a sum as a tuple of floats in [0, 1]."""
    weights = tuple(weight) if isinstance(weight, (list, tuple)) else (weight,)
    if not weights or not all(isinstance(w, (int, float)) and not isinstance(w, bool)
                              and 0 <= w <= 1 for w in weights):
        raise InvalidParameterError(f"weight must be a number in [0, 1] or a list of them, "
                                    f"got {weight!r}")
    return tuple(float(w) for w in weights)


@dataclass(frozen=True)
class WeightGrid:
    """``(1 − w)·first + w·second`` for every ``w`` of ``weights``: the weight is chosen with
    λ by leave-one-out on each training part; :func:`full_gram` gives the two normalized
    Gram matrices (:class:`WeightedGrams`)."""

    first: object
    second: object
    weights: tuple

    def kernel(self, w):
        """The :class:`learners.kernels.SumKernel` of one weight."""
        return SumKernel([(1.0 - w, self.first), (w, self.second)])


@dataclass(frozen=True)
class WeightedGrams:
    """The Gram matrices of a :class:`WeightGrid`'s two kernels and its weights."""

    first: np.ndarray
    second: np.ndarray
    weights: tuple

    def block(self, w, rows, cols):
        """``(1 − w) K1[rows, cols] + w K2[rows, cols]``."""
        index = np.ix_(rows, cols)
        return (1.0 - w) * self.first[index] + w * self.second[index]

    def family_blocks(self, train, test):
        """One candidate per weight (:func:`family_blocks`)."""
        return [({"weight": w}, self.block(w, train, train), self.block(w, test, train))
                for w in self.weights]


@dataclass(frozen=True)
class EmpiricalMapGram:
    """The local-alignment kernel's empirical map over each training part (``psd="ekm"``
    of :class:`learners.kernels.LocalAlignmentKernel`, fitted on the training sequences
    only): ``φ(x) = (k̂(x, t))_{t in train}`` from the normalized kernel ``base`` of all
    sequences, and the cosine of ``⟨φ(x), φ(z)⟩``. Cost per family: two products with the
    m × m training block, O(m² (m + n_test))."""

    base: np.ndarray

    def family_blocks(self, train, test):
        """The one candidate of a family (:func:`family_blocks`)."""
        phi_train, phi_test = self.base[np.ix_(train, train)], self.base[np.ix_(test, train)]
        s_train = inverse_sqrt(np.einsum("ij,ij->i", phi_train, phi_train))
        s_test = inverse_sqrt(np.einsum("ij,ij->i", phi_test, phi_test))
        G = phi_train @ phi_train.T
        G *= s_train[:, None] * s_train[None, :]
        T = phi_test @ phi_train.T
        T *= s_test[:, None] * s_train[None, :]
        return [({}, G, T)]


def family_blocks(K, train, test):
    """The candidate kernels of a family: a list of ``(choice, K[train, train],
    K[test, train])`` — one for a Gram matrix, one per weight for :class:`WeightedGrams`,
    the training part's empirical map for :class:`EmpiricalMapGram`."""
    if isinstance(K, np.ndarray):
        return [({}, K[np.ix_(train, train)], K[np.ix_(test, train)])]
    return K.family_blocks(train, test)


#: Parameters of how a kernel is computed, not of what it is (left out of the results).
_EXECUTION = ("alphabet", "n_jobs", "scheduler", "memory")


def kernel_params(kernel):
    """JSON-friendly description of a kernel object's parameters."""
    if isinstance(kernel, WeightGrid):
        return {"parts": [{"kernel": type(k).__name__, **kernel_params(k)}
                          for k in (kernel.first, kernel.second)],
                "weights": list(kernel.weights)}
    if isinstance(kernel, SumKernel):
        return {"parts": [{"weight": w, "kernel": type(k).__name__, **kernel_params(k)}
                          for w, k in kernel.parts]}
    params = {k: v for k, v in kernel.get_params().items() if k not in _EXECUTION}
    if "groups" in params:
        params["groups"] = list(params["groups"])
    return params


def with_cache(kernel, directory, scheduler=None):
    """``kernel`` with every local-alignment kernel in it caching its Gram matrices in
    ``directory`` (:class:`learners.kernels.LocalAlignmentKernel`'s ``memory``) and
    computing them on the Dask cluster at ``scheduler`` (None: this machine's cores)."""
    if isinstance(kernel, LocalAlignmentKernel):
        kernel.set_params(memory=str(directory), scheduler=scheduler)
    for part in ([kernel.first, kernel.second] if isinstance(kernel, WeightGrid) else
                 [k for _, k in kernel.parts] if isinstance(kernel, SumKernel) else []):
        with_cache(part, directory, scheduler)
    return kernel


def full_gram(kernel, sequences):
    """Normalized Gram matrix of all ``sequences`` (fit on them: unsupervised only); a
    :class:`WeightedGrams` for a :class:`WeightGrid`; an :class:`EmpiricalMapGram` for the
    local-alignment kernel with the empirical map, whose basis must be each family's
    training part (a map over all sequences would make test sequences features)."""
    if isinstance(kernel, WeightGrid):
        return WeightedGrams(full_gram(kernel.first, sequences),
                             full_gram(kernel.second, sequences), kernel.weights)
    if isinstance(kernel, LocalAlignmentKernel) and kernel.psd == "ekm":
        return EmpiricalMapGram(full_gram(clone(kernel).set_params(psd=None), sequences))
    return kernel.fit_transform(residue_sequences(sequences))


def learner_for(name, alpha=1.0):
    """The learner of a ``--learner`` name on a precomputed kernel (the L2-SVM with
    class-balanced costs), from :func:`learners.registry.make_learner`."""
    if name not in LEARNERS:
        raise InvalidParameterError(f"unknown learner {name!r}; choose one of {LEARNERS}")
    extra = {"class_weight": "balanced"} if name == "l2svm" else {}
    return make_learner(name, alpha=alpha, kernel="precomputed", **extra)


#: ``--select`` name → measure name of :func:`learners.measures.get_scorer`.
SELECTION_MEASURES = {"roc": "auc", "roc50": "roc50"}


def select_alpha(K, y, alphas, learner="rls", select="roc", targets="balanced"):
    """λ of ``learner`` on the training kernel ``K`` by the leave-one-out ROC area
    (``select="roc"``) or ROC50 (``"roc50"``) of the ±1 labels ``y`` (ties: the larger λ).

    Returns the :class:`learners.selection.Selection`; ``selection.predict(K_test)`` scores
    with the chosen λ from the one fitted path.
    """
    if select not in SELECTIONS:
        raise InvalidParameterError(f"select must be one of {tuple(SELECTIONS)}, got "
                                    f"{select!r}")
    alphas = np.sort(np.asarray(alphas, dtype=float))
    if learner == "rankrls":
        alphas = alphas * len(y)
    y_fit = training_targets(y, targets) if learner == "rls" else y
    return choose(learner_for(learner), K, y_fit, cv="loo", search={"alpha": alphas},
                  scoring=SELECTION_MEASURES[select], structure=RowStructure(y_eval=y))


def training_targets(y, targets="balanced"):
    """Regression targets for RLS from ±1 labels: class-balanced ``±m / (2 m±)`` or ±1."""
    y = np.asarray(y, dtype=float)
    if targets == "pm1":
        return y
    if targets != "balanced":
        raise InvalidParameterError(f"targets must be one of {TARGETS}, got {targets!r}")
    m, n_pos = len(y), int((y > 0).sum())
    return np.where(y > 0, m / (2.0 * n_pos), -m / (2.0 * (m - n_pos)))


def select_kernel_alpha(candidates, y, alphas, learner="rls", select="roc",
                        targets="balanced"):
    """One of several training kernels ``candidates`` (``(choice, K_train, …)`` as
    :func:`family_blocks` gives them) and λ, chosen together by the leave-one-out measure
    of labels ``y`` with the selection engine's tie rule
    (:func:`learners.selection.best_candidate`: the larger λ, then the first candidate).
    Returns ``(index, selection)``, the selection of that candidate's kernel (its best λ is
    the chosen one). Cost: one λ path per candidate."""
    sels = [select_alpha(c[1], y, alphas, learner, select, targets) for c in candidates]
    grid = [{"candidate": k, **c} for k, s in enumerate(sels) for c in s.candidates]
    best = best_candidate(np.concatenate([s.scores for s in sels]), grid,
                          sels[0].greater_is_better)
    k = grid[best]["candidate"]
    return k, sels[k]


def evaluate_family(K, split, learner="rls", alphas=DEFAULT_ALPHAS, targets="balanced",
                    select="roc"):
    """Train on the family's training part (λ by leave-one-out ROC), score its test part.

    ``K``: the Gram matrix of all sequences, :class:`WeightedGrams` (the weight is then
    chosen with λ on the training part) or :class:`EmpiricalMapGram`
    (:func:`family_blocks`, :func:`select_kernel_alpha`).

    Returns a dict with ``family``, ``roc``, ``roc50``, ``alpha``, ``loo_roc`` (and the
    chosen ``weight``) and the counts of training/test positives and negatives.
    """
    candidates = family_blocks(K, split.train, split.test)
    k, sel = select_kernel_alpha(candidates, split.y_train, alphas, learner, select, targets)
    chosen, _, K_test = candidates[k]
    scores = sel.predict(K_test)
    return {
        "family": split.family,
        "roc": auc(split.y_test, scores),
        "roc50": roc50(split.y_test, scores),
        "alpha": float(sel.best_params["alpha"]),
        **chosen,
        "loo_" + select: sel.best_score,
        "n_train": [int((split.y_train > 0).sum()), int((split.y_train < 0).sum())],
        "n_test": [int((split.y_test > 0).sum()), int((split.y_test < 0).sum())],
    }


def run_families(bench, K, learner="rls", alphas=DEFAULT_ALPHAS, jobs=1, families=None,
                 progress=True, targets="balanced", select="roc"):
    """Evaluate every family (or ``families``); ``jobs > 1`` runs families on a local Dask
    cluster of threads sharing ``K`` (LAPACK releases the GIL), BLAS threads split between
    them (:func:`kernelrank.parallel.map_tasks`)."""
    families = list(bench.families if families is None else families)
    alphas = tuple(alphas)

    def one(family):
        return evaluate_family(K, bench.split(family), learner, alphas, targets, select)

    return map_tasks(one, families, jobs=jobs, desc=f"families ({learner})", progress=progress)


def scop_experiment(bench, kernel, kernel_name, learner="rls", alphas=DEFAULT_ALPHAS,
                    jobs=1, families=None, progress=True, targets="balanced", K=None,
                    select="roc"):
    """Full experiment for one kernel: Gram once (unless given as ``K``), then every
    family. Returns the results dict written as ``results.json``."""
    t0 = time.perf_counter()
    if K is None:
        K = full_gram(kernel, list(bench.sequences))
    t1 = time.perf_counter()
    fams = run_families(bench, K, learner, alphas, jobs, families, progress, targets, select)
    t2 = time.perf_counter()
    return {
        "kernel": kernel_name,
        "params": kernel_params(kernel),
        "learner": learner,
        "targets": {"rls": targets, "rankrls": "pm1 (pairwise differences)",
                    "l2svm": "pm1, class-balanced costs"}[learner],
        "alphas": [float(a) for a in np.sort(alphas)],
        "selection": ("leave-one-out ROC area" if select == "roc" else "leave-one-out ROC50")
        + " on the training part",
        "mean_roc": float(np.mean([f["roc"] for f in fams])),
        "mean_roc50": float(np.mean([f["roc50"] for f in fams])),
        "n_families": len(fams),
        "families": fams,
        "seconds": {"gram": round(t1 - t0, 2), "families": round(t2 - t1, 2)},
        "cpu_count": os.cpu_count(),
    }
