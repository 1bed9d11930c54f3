"""More data for the document stage at 50 annotated abstracts: dev AUC / F of the stage fitted
with more candidates but no more gene–gene annotation — the stage is what 50 abstracts cannot
teach (:mod:`benchmarks.experiments.ppi.exp_ppi_small_n` ``--stages``).

    python -m benchmarks.experiments.ppi.exp_ppi_stage_data \\
        --output-dir results/exp_ppi_stage_data
    python -m benchmarks.experiments.ppi.exp_ppi_stage_data --seeds 0 1 2
    python -m benchmarks.experiments.ppi.exp_ppi_stage_data --abstracts 400 --seeds 0  # all

For every seed, 50 (``--abstracts``) of BioRED's 400 training abstracts are drawn (the draw of
:mod:`benchmarks.experiments.ppi.exp_ppi_small_n`); the mention-pair stage is the default
system's (transfer) fitted on them, and the document stage is fitted five ways, each measured
on dev (AUC, F at the stage's own bagged threshold, F at the threshold chosen on dev — the
ceiling):

``default``
    the ``documents`` system's stage (:class:`ppi.documents.stage.DocumentStage`) on the 50
    abstracts' gene–gene candidates;
``self-training``
    then the other 350 abstracts as *unannotated* ones (their gene mentions, not their
    relations): their gene pairs labelled by that stage (related above its threshold), and
    the stage refitted on both (Yarowsky 1995; Scudder 1965) — once, and three rounds;
    ``confident``: one round keeping the pseudo-related and the lowest 80 % of the
    pseudo-unrelated;
``other pairs``
    the other entity pairs of the *same* 50 abstracts (BioRED relates chemicals, diseases and
    variants too: ≈ 450 related of ≈ 2,300 candidates per draw, against ≈ 100 related gene
    pairs), scored by the same mention-pair model, pooled with the gene pairs;
``other pairs, augmented``
    the same with the feature augmentation of Daumé (2007, "Frustratingly easy domain
    adaptation", ACL): ``[φ(z), φ(z), 0]`` for a gene pair, ``[φ(z), 0, φ(z)]`` for another,
    i.e. the kernel ``2 k`` within a kind and ``k`` across, so the shared part is learned from
    both and the gene part from the gene pairs (one more block per further kind of rows).

With ``--more-sources``, document-level annotations the user could get elsewhere, pooled and
augmented the same way:

``bc6``
    BioCreative VI PPIm's 597 training abstracts (``<data>/text/``, BioC XML: 870 gene-pair
    candidates, 678 related — its definition: interactions a mutation affects), scored by the
    same mention-pair model; also with the other pairs of the 50 (three kinds);
``all other pairs``
    the other entity pairs of **all 400** training abstracts (≈ 17,000 candidates, ≈ 3,400
    related): more relations of other kinds, none of the 350 undrawn abstracts' gene-pair
    labels.

With all 400 abstracts drawn there is none left for self-training, and only ``default`` and
the ``other pairs`` variants are fitted.  In every variant λ and γ are chosen by the
leave-one-document-out AUC of the drawn abstracts' *gene* pairs
(:func:`learners.selection.select` over whole documents, the other candidates of a held-out
document held out with it), and the threshold is the bagged best-F threshold of those
held-out gene-pair scores.  Writes ``results.json`` and ``results.md``; prints wall time,
peak RSS and the load.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._biored import (prepare_features, subset_documents,
                                                summary_rows, write_results)

#: the entity types whose pairs other than gene–gene feed ``other pairs``
OTHER_TYPES = ("GeneOrGeneProduct", "ChemicalEntity", "DiseaseOrPhenotypicFeature",
               "SequenceVariant")
#: the decision thresholds measured (:func:`benchmarks.experiments.ppi._biored.summary_rows`)
RULES = ("own", "dev oracle")


def fit_stage(F, y, documents, kind, *, augment=False, seed=0):
    """A :class:`ppi.documents.stage.DocumentStage` fitted on the rows ``F`` (labels ``y``,
    ``documents``) of which ``kind`` 0 marks the gene pairs (other integers: other kinds of
    rows): λ, γ by the gene pairs' leave-one-document-out AUC (module docstring), the
    bagged threshold of their held-out scores; ``augment``: Daumé's augmentation, one block
    per kind (module docstring).  The stage scores gene pairs."""
    from learners import RLS
    from learners.measures import auc
    from learners.nystroem import NystroemMap
    from learners.selection import Scoring, select
    from learners.splits import group_sets
    from ppi.documents.stage import ALPHAS, GAMMAS, DocumentStage, bagged_threshold

    target = kind == 0
    mean, scale = F.mean(axis=0), F.std(axis=0)
    scale = np.where(scale > 0, scale, 1.0)
    Z = (F - mean) / scale
    best = None
    for gamma in GAMMAS:                        # the documents system's own grids
        nmap = NystroemMap("gaussian", gamma=gamma, n_basis=min(DocumentStage().n_basis, len(Z)),
                           random_state=seed).fit(Z)
        Phi = nmap.transform(Z)
        if augment:
            Phi = np.hstack([Phi] + [Phi * (kind == k)[:, None] for k in np.unique(kind)])
        sel = select(RLS(kernel="linear", solver="primal"), Phi, y, cv=group_sets(documents),
                     search={"alpha": ALPHAS}, scoring=Scoring("auc"))
        held_out = sel.holdout.in_row_order(len(y))
        for k, alpha in enumerate(a["alpha"] for a in sel.candidates):
            score = auc(y[target], held_out[k][target])
            if best is None or score > best[0] * (1 + 1e-12):
                best = (score, gamma, alpha, held_out[k][target], nmap, sel)
    score, gamma, alpha, held_out, nmap, sel = best
    w = np.asarray(sel.model.regularization_path([alpha]))[0].ravel()
    if augment:
        r = len(w) // (1 + len(np.unique(kind)))
        w = w[:r] + w[r:2 * r]                  # a gene pair's weights: shared + own
    threshold = bagged_threshold(y[target], held_out, documents[target], 200, seed)
    stage = DocumentStage.from_arrays(mean, scale, Z[nmap.basis_indices_],
                                      nmap.coef_to_dual(w), gamma=gamma, alpha=alpha,
                                      threshold=threshold)
    stage.inner_auc_ = float(score)
    return stage


def self_trained(stage, F, y, documents, F_unlabeled, documents_unlabeled, *, rounds=1,
                 confident=False, seed=0):
    """``stage`` refitted ``rounds`` times on the labelled rows and the unlabelled ones
    labelled by the previous stage (module docstring)."""
    kind = np.r_[np.zeros(len(y), int), np.ones(len(F_unlabeled), int)]
    for _ in range(rounds):
        s = stage.decision_function(F_unlabeled)
        related = s > stage.threshold_
        keep = np.ones(len(s), bool)
        if confident and (~related).any():
            keep = related | (s < np.quantile(s[~related], 0.8))
        pseudo = np.where(related, 1.0, -1.0)
        rows = np.r_[np.ones(len(y), bool), keep]
        stage = fit_stage(np.vstack([F, F_unlabeled])[rows], np.r_[y, pseudo][rows],
                          np.r_[documents, documents_unlabeled][rows], kind[rows],
                          seed=seed)
    return stage


def _gene_pairs(candidates):
    """Which ``candidates`` are gene pairs: BioRED's gene ids are NCBI Gene's, all digits;
    chemicals', diseases' and variants' are not."""
    return (np.char.isdigit(candidates.id1.astype(str))
            & np.char.isdigit(candidates.id2.astype(str)))


def _rows(*parts):
    """``(F, y, documents, kind)`` of ``(F, y, documents)`` parts, the k-th of kind k."""
    F, y, documents = zip(*parts)
    return (np.vstack(F), np.concatenate(y), np.concatenate(documents),
            np.concatenate([np.full(len(v), k) for k, v in enumerate(y)]))


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    harness.add_data_dir(p)
    harness.add_output_dir(p, "results/exp_ppi_stage_data")
    p.add_argument("--seeds", type=int, nargs="+", default=list(range(10)))
    p.add_argument("--abstracts", type=int, default=50,
                   help="training abstracts drawn per seed (default 50; at most 400)")
    p.add_argument("--more-sources", action="store_true",
                   help="also BC6 PPIm's abstracts and the other entity pairs of all 400 "
                        "abstracts as more rows (module docstring)")
    args = harness.parse_args(p, argv)
    t0, load0 = time.perf_counter(), harness.load_1min()

    from learners.measures import best_f_threshold, precision_recall_f1
    from ppi.documents.stage import ALPHAS, GAMMAS, DocumentStage, document_features
    from ppi.documents.system import DocumentSystem
    from ppi.documents.mention_stage import candidate_auc, unscored_last

    train, _, tr, dv, feats, w_src, _ = prepare_features(args.data_dir)
    Xtr, Xdv = feats.rows[0].X, feats.rows[1].X
    others = DocumentSystem(progress=False, entity_types=OTHER_TYPES).read_relations(
        train, source="train, all entity types")
    X_others = feats.featurizer.transform([others.corpus])[0].X
    if args.more_sources:
        from ppi.names import relations_path

        bc6 = DocumentSystem(progress=False).read_relations(
            relations_path(args.data_dir, "bc6ppim"), source="bc6ppim")
        X_bc6 = feats.featurizer.transform([bc6.corpus])[0].X
    if not 1 <= args.abstracts <= len(tr.corpus.documents):
        p.error(f"--abstracts {args.abstracts}: give 1 to {len(tr.corpus.documents)}")
    y_dev = dv.candidates.y
    runs = []
    for seed in args.seeds:
        drawn = np.random.default_rng(seed).permutation(len(tr.corpus.documents))
        n = args.abstracts
        sub, Xs = subset_documents(tr, Xtr, drawn[:n])
        oth, Xo = subset_documents(others, X_others, drawn[:n])
        c = sub.candidates
        w, sel = DocumentSystem(progress=False, seed=seed).fit_mention_stage(sub, Xs, w_src)
        F = document_features(sel["heldout"], c)
        F_dev = document_features(np.asarray(Xdv @ w).ravel(), dv.candidates)
        o = oth.candidates
        # BioRED's gene ids are NCBI Gene's, all digits; chemicals, diseases, variants not
        gene = _gene_pairs(o)
        F_o = document_features(np.asarray(Xo @ w).ravel(), o)[~gene]
        # rows of several kinds (0: the drawn gene pairs), documents numbered as in the file
        genes = (F, c.y, np.sort(drawn[:n])[c.doc])
        other = (F_o, o.y[~gene], np.sort(drawn[:n])[o.doc[~gene]])
        pooled = _rows(genes, other)
        # every stage here searches the grid (DocumentStage's default transfers the pair)
        default = DocumentStage(seed=seed, alphas=ALPHAS, gammas=GAMMAS).fit(F, c.y, c.doc)
        stages = {"default": default}
        if n < len(drawn):
            rest, Xr = subset_documents(tr, Xtr, drawn[n:])
            unlabeled = (F, c.y, c.doc,
                         document_features(np.asarray(Xr @ w).ravel(), rest.candidates),
                         rest.candidates.doc + len(drawn))
            stages.update({
                "self-training": self_trained(default, *unlabeled, seed=seed),
                "self-training x3": self_trained(default, *unlabeled, rounds=3, seed=seed),
                "self-training, confident": self_trained(default, *unlabeled,
                                                         confident=True, seed=seed)})
        stages.update({"other pairs": fit_stage(*pooled, seed=seed),
                       "other pairs, augmented": fit_stage(*pooled, augment=True,
                                                           seed=seed)})
        if args.more_sources:
            b = bc6.candidates
            bc6_rows = (document_features(np.asarray(X_bc6 @ w).ravel(), b), b.y,
                        b.doc + len(drawn))
            a = others.candidates
            every = _gene_pairs(a)
            all_other = (document_features(np.asarray(X_others @ w).ravel(), a)[~every],
                         a.y[~every], a.doc[~every])
            stages.update({
                "bc6": fit_stage(*_rows(genes, bc6_rows), seed=seed),
                "bc6, augmented": fit_stage(*_rows(genes, bc6_rows), augment=True, seed=seed),
                "other pairs + bc6, augmented": fit_stage(*_rows(genes, other, bc6_rows),
                                                          augment=True, seed=seed),
                "all other pairs": fit_stage(*_rows(genes, all_other), seed=seed),
                "all other pairs, augmented": fit_stage(*_rows(genes, all_other),
                                                        augment=True, seed=seed)})
        for name, stage in stages.items():
            s = unscored_last(stage.decision_function(F_dev))
            runs.append({"abstracts": n, "seed": seed, "system": name,
                         "auc": candidate_auc(y_dev, s),
                         "f1 own": float(precision_recall_f1(y_dev, s, stage.threshold_).f1),
                         "f1 dev oracle": float(best_f_threshold(y_dev, s).f1),
                         "other candidates": int((~gene).sum()),
                         "other related": int((o.y[~gene] > 0).sum())})
            harness.log.info("seed %d %s: AUC %.3f F %.3f", seed, name, runs[-1]["auc"],
                         runs[-1]["f1 own"])
    out = {"runs": runs, "summary": summary_rows(runs, RULES),
           "seconds": time.perf_counter() - t0,
           "peak_rss_gb": harness.peak_rss("GiB"),
           "load_average": [load0, harness.load_1min()]}
    write_results(out, Path(args.output_dir), RULES,
                  f"More data for the document stage at {n} abstracts (mean ± sd over seeds)")
    print(f"wall {out['seconds']:.0f} s, peak RSS {out['peak_rss_gb']:.2f} GB, load "
          f"{load0:.1f} → {harness.load_1min():.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
