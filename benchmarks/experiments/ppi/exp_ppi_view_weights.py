"""View weights chosen inside the training folds: F / AUC of the chosen weights and of every
fixed weight vector of the grid, over fold seeds.

For every corpus: the views are featurized once (equal weights, the ``multiview`` system's
text order and all-token end points; spaCy's analyses added when a view reads them), then
:func:`ppi.experiments.view_weights.cross_validate_view_weights` runs the document-level
10-fold CV once per weight vector of the grid
(:data:`ppi.experiments.view_weights.DEFAULT_GROUP_GRID` over the ``apg`` / ``bow`` / ``path``
groups) and picks, per outer fold, the vector with the best
inner leave-one-document-out AUC (λ by inner AUC, threshold by best inner F). Prints, per
corpus, the chosen-weights F / AUC and every fixed vector's F / AUC (mean ± sd over seeds),
and how often each vector was chosen; writes the rows as JSON.

Usage::

    python -m benchmarks.experiments.ppi.exp_ppi_view_weights --corpora LLL HPRD50 IEPA \\
        --seeds 0 1 2 --output /tmp/weights.json
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._corpora import experiment_parser, logged_run
from corpora.ppi_xml import read_corpus
from ppi.names import corpus_path
from ppi.systems import SYSTEMS
from ppi.systems import Settings
from ppi.systems.inputs import prepare_corpus
from ppi.experiments.view_weights import DEFAULT_GROUP_GRID, cross_validate_view_weights, group_weights


def _ms(values):
    return f"{100 * np.mean(values):5.1f} ± {100 * np.std(values):3.1f}"


def run(corpora, seeds, views, group_grid, data_dir=None):
    settings = Settings.for_system("multiview", views=views, progress=False)
    grid = group_weights(views, group_grid)
    rows = []
    for name in corpora:
        t0 = time.perf_counter()
        corpus = prepare_corpus(read_corpus(corpus_path(data_dir, name)), settings)
        featurizer = settings.featurizer()
        (data,) = featurizer.fit_transform([corpus])
        t_feat = time.perf_counter() - t0
        per_seed = []
        for seed in seeds:
            r = cross_validate_view_weights(data, featurizer.view_slices_, views, grid,
                                            n_basis=settings.n_basis, seed=seed,
                                            select_by=settings.select_by)
            per_seed.append({k: r[k] for k in ("precision", "recall", "f1", "auc",
                                               "fold_weight_index", "inner_scores",
                                               "per_weight", "seconds")})
        row = {"corpus": name, "views": list(views), "group_grid": [list(g) for g in group_grid],
               "weight_grid": grid.tolist(), "seeds": list(seeds), "runs": per_seed,
               "featurize_seconds": t_feat}
        rows.append(row)
        f = [r["f1"] for r in per_seed]
        a = [r["auc"] for r in per_seed]
        chosen = np.bincount(np.concatenate([r["fold_weight_index"] for r in per_seed]),
                             minlength=len(grid))
        print(f"{name:8s} chosen per fold   F {_ms(f)}  AUC {_ms(a)}  "
              f"P {100 * np.mean([r['precision'] for r in per_seed]):5.1f} "
              f"R {100 * np.mean([r['recall'] for r in per_seed]):5.1f}  "
              f"({len(seeds)} seeds, {sum(r['seconds'] for r in per_seed):.0f} s; "
              f"featurization {t_feat:.0f} s)", flush=True)
        for g, gw in enumerate(group_grid):
            fg = [r["per_weight"][g]["f1"] for r in per_seed]
            ag = [r["per_weight"][g]["auc"] for r in per_seed]
            print(f"{name:8s}   fixed {str(tuple(gw)):20s} F {_ms(fg)}  AUC {_ms(ag)}  "
                  f"chosen in {chosen[g]} of {chosen.sum()} folds", flush=True)
        del data, featurizer, corpus
    return rows


def main(argv=None):
    p = experiment_parser(__doc__)
    p.add_argument("--views", nargs="+", default=list(SYSTEMS["multiview"].defaults["views"]))
    a = harness.parse_args(p, argv)
    logged_run(lambda: run(a.corpora, a.seeds, tuple(a.views), DEFAULT_GROUP_GRID,
                           a.data_dir), a.output)


if __name__ == "__main__":
    main()
