"""What each part of the ``multicorpus`` system adds — the mention-pair view, the Gaussian of
the summed kernel, transfer from the other corpora: F / AUC of each alone on the same folds.

Variants (F / AUC of the document-level 10-fold CV with nested leave-one-document-out
selection, :func:`ppi.learning.evaluation.cross_validate`; nothing tuned on a test fold):

* ``multiview`` — the five views of the ``multiview`` system, linear;
* ``+pair`` — with the mention-pair view (:func:`ppi.representation.views.pair_features`);
* ``+pair γ=1`` — the Gaussian of that sum (:func:`learners.kernels.gaussian_of`);
* ``+pair +transfer`` — linear, towards the mean of the other corpora's (linear) models;
* ``multicorpus`` — ``+pair γ=1 +transfer``: the default system (Gaussian source models);
* ``multicorpus select-by f1`` — the same with λ (and β, and the sources' λ) chosen by the
  inner F instead of the inner AUC.

The five corpora are featurized once with the six views (one joint vocabulary); each
variant's kernel is cut from those rows (:func:`ppi.experiments.ablation.combination_kernel`),
its source models are :func:`ppi.systems.sources.source_models` (each corpus without the
sentences another corpus holds, λ by its own leave-one-document-out AUC), the prior their mean
(:func:`ppi.learning.transfer.mean_prior`).  Prints F / AUC per seed and mean ± sd over seeds.

Usage::

    python -m benchmarks.experiments.ppi.exp_ppi_transfer --corpora LLL HPRD50 IEPA \\
        --seeds 0 1 2 3 4
    python -m benchmarks.experiments.ppi.exp_ppi_transfer --corpora AIMed BioInfer --seeds 0
    python -m benchmarks.experiments.ppi.exp_ppi_transfer --corpora AIMed --seeds 1 2 \\
        --variants multicorpus
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._corpora import experiment_parser, logged_run
from ppi.names import CORPORA
from ppi.systems import SYSTEMS

#: variant → (views, γ, transfer, inner criterion)
VARIANTS = {
    "multiview": (SYSTEMS["multiview"].defaults["views"], None, False, "auc"),
    "+pair": (SYSTEMS["multicorpus"].defaults["views"], None, False, "auc"),
    "+pair gamma=1": (SYSTEMS["multicorpus"].defaults["views"], 1.0, False, "auc"),
    "+pair +transfer": (SYSTEMS["multicorpus"].defaults["views"], None, True, "auc"),
    "multicorpus": (SYSTEMS["multicorpus"].defaults["views"], 1.0, True, "auc"),
    "multicorpus select-by f1": (SYSTEMS["multicorpus"].defaults["views"], 1.0, True, "f1"),
}


def run(corpora, seeds, variants, data_dir=None):
    """Rows of (corpus, variant): F, AUC, P, R per seed and their means and sds."""
    from learners.kernels import gaussian_of
    from ppi.experiments.ablation import combination_kernel
    from ppi.learning.evaluation import cross_validate
    from ppi.systems import Settings
    from ppi.systems.inputs import featurize_corpora
    from ppi.systems.sources import source_models, transfer_source

    settings = Settings.for_system("multicorpus", progress=False)
    t0 = time.perf_counter()
    texts, featurizer = {}, settings.featurizer()      # equal weights over the six views
    datasets, _ = featurize_corpora(list(CORPORA), settings, data_dir, texts, featurizer)
    print(f"featurized the five corpora in {time.perf_counter() - t0:.0f} s", flush=True)
    sources = {}
    for gamma, select_by in {VARIANTS[v][1::2] for v in variants if VARIANTS[v][2]}:
        t1 = time.perf_counter()
        s = Settings.for_system("multicorpus", progress=False, gamma=gamma or 0,
                                select_by=select_by)
        sources[gamma, select_by] = source_models(datasets, texts, s, tests=corpora)
        print(f"source models (gamma={gamma}, select_by={select_by}): "
              f"{time.perf_counter() - t1:.0f} s", flush=True)
    rows = []
    for name in corpora:
        data = datasets[name]
        for variant in variants:
            views, gamma, transfer, select_by = VARIANTS[variant]
            t1 = time.perf_counter()
            K = combination_kernel(featurizer, data.X, views)
            if gamma:
                gaussian_of(K, gamma)
            prior = transfer_source(sources[gamma, select_by], name)[0] if transfer else None
            res = [cross_validate(data, K, alphas=settings.alpha_grid,
                                  learner=settings.learner, n_basis=settings.n_basis,
                                  seed=seed, select_by=select_by, prior=prior,
                                  progress=False)
                   for seed in seeds]
            del K
            row = {"corpus": name, "variant": variant, "views": list(views), "gamma": gamma,
                   "transfer": transfer, "select_by": select_by, "seeds": list(seeds),
                   "seconds": time.perf_counter() - t1}
            for k in ("f1", "auc", "precision", "recall"):
                v = [r[k] for r in res]
                row[k], row[f"{k}_mean"], row[f"{k}_sd"] = v, float(np.mean(v)), float(np.std(v))
            rows.append(row)
            print(f"{name:8s} {variant:16s} F {100 * row['f1_mean']:5.1f} ± "
                  f"{100 * row['f1_sd']:3.1f}  AUC {100 * row['auc_mean']:5.1f} ± "
                  f"{100 * row['auc_sd']:3.1f}  P {100 * row['precision_mean']:5.1f} "
                  f"R {100 * row['recall_mean']:5.1f}  per seed F "
                  f"{' '.join(f'{100 * x:.1f}' for x in row['f1'])}  "
                  f"({row['seconds']:.0f} s)", flush=True)
    return rows


def main(argv=None):
    p = experiment_parser(__doc__)
    p.add_argument("--variants", nargs="+", choices=list(VARIANTS), default=list(VARIANTS))
    a = harness.parse_args(p, argv)
    logged_run(lambda: run(a.corpora, a.seeds, a.variants, a.data_dir), a.output)


if __name__ == "__main__":
    main()
