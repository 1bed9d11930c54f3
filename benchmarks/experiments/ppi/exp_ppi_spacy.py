"""Does spaCy as a third parser — or a Gaussian of the summed kernel — add to the multiview
system? F / AUC / P / R of each view combination over fold seeds.

For every corpus given: spaCy's analyses are added beside the file's two
(:func:`ppi.parsing.spacy_analyses.add_spacy_analyses`, cached), every view of every
combination is featurized once (:class:`ppi.representation.views.MultiViewFeaturizer`, equal
weights, the ``multiview`` system's text order, all-token end points), and each combination's
equal-weight kernel is cut from those rows (:func:`ppi.experiments.ablation.combination_kernel`,
one m × m matrix at a time).
Then the document-level 10-fold CV with nested leave-one-document-out selection (λ by inner
AUC, threshold by best inner F; :func:`ppi.learning.evaluation.cross_validate`) per fold seed.
``--gammas 0 1``: each combination's kernel as it is (0) and its Gaussian
``exp(−γ‖φ(x) − φ(z)‖²)`` (:func:`learners.kernels.gaussian_of`; ``ppi cv --gamma``).
Nothing is tuned on a test fold. Prints F / AUC (mean ± sd over seeds; each seed's value
is the mean over folds) and writes the rows as JSON.

Usage::

    python -m benchmarks.experiments.ppi.exp_ppi_spacy --corpora LLL HPRD50 IEPA \\
        --seeds 0 1 2 --output /tmp/spacy.json
    python -m benchmarks.experiments.ppi.exp_ppi_spacy --combinations multiview --gammas 0 1 \\
        --learner auto --corpora LLL HPRD50 IEPA --seeds 0 1 2
"""

from __future__ import annotations

import time

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._corpora import experiment_parser, logged_run
from corpora.ppi_xml import read_corpus
from ppi.experiments.ablation import combination_kernel
from ppi.names import corpus_path
from ppi.systems import SYSTEMS, Settings
from ppi.systems.inputs import prepare_corpus

BASE = tuple(SYSTEMS["multiview"].defaults["views"])
#: name → views
COMBINATIONS = {
    "multiview": BASE,
    "+apg:spacy": BASE + ("apg:spacy",),
    "+apg:spacy+path:spacy": BASE + ("apg:spacy", "path:spacy"),
    "apg:spacy": ("apg:spacy",),
    "path:spacy": ("path:spacy",),
}


def combination_views(combo):
    """The views of a combination: a name of :data:`COMBINATIONS`, or views joined by
    ``+`` where ``multiview`` stands for the default five (``multiview+pair``)."""
    if combo in COMBINATIONS:
        return COMBINATIONS[combo]
    views = []
    for part in combo.split("+"):
        views += BASE if part == "multiview" else [part]
    return tuple(dict.fromkeys(views))


def run(corpora, seeds, combos, data_dir=None, learner="reduced_set", gammas=(None,)):
    """Rows of (corpus, combination, γ): F and AUC per seed, mean and sd.  ``gammas``: the
    kernel itself (None) and/or its Gaussian (:func:`learners.kernels.gaussian_of`)."""
    from ppi.learning.evaluation import ALPHAS, cross_validate
    from learners.kernels import gaussian_of

    views = tuple(dict.fromkeys(v for c in combos for v in combination_views(c)))
    settings = Settings.for_system("multiview", views=views, learner=learner, progress=False)
    rows = []
    for name in corpora:
        t0 = time.perf_counter()
        corpus = read_corpus(corpus_path(data_dir, name))
        prepare_corpus(corpus, settings)
        t_parse = time.perf_counter() - t0
        featurizer = settings.featurizer()
        (data,) = featurizer.fit_transform([corpus])
        t_feat = time.perf_counter() - t0 - t_parse
        print(f"{name}: {len(data)} pairs, spaCy analyses {t_parse:.1f} s (read included), "
              f"featurization of {len(views)} views {t_feat:.1f} s", flush=True)
        for combo, gamma in ((c, g) for c in combos for g in gammas):
            t1 = time.perf_counter()
            K = combination_kernel(featurizer, data.X, combination_views(combo))
            if gamma:
                gaussian_of(K, gamma)
            f, a, p, r = [], [], [], []
            for seed in seeds:
                res = cross_validate(data, K, alphas=ALPHAS, learner=learner,
                                     n_basis=settings.n_basis, seed=seed,
                                     select_by=settings.select_by, progress=False)
                f.append(res["f1"])
                a.append(res["auc"])
                p.append(res["precision"])
                r.append(res["recall"])
            del K
            row = {"corpus": name, "combination": combo, "views": list(combination_views(combo)),
                   "gamma": gamma, "learner": learner,
                   "seeds": list(seeds), "f1": f, "auc": a, "precision": p, "recall": r,
                   "f1_mean": float(np.mean(f)), "f1_sd": float(np.std(f)),
                   "auc_mean": float(np.mean(a)), "auc_sd": float(np.std(a)),
                   "precision_mean": float(np.mean(p)), "recall_mean": float(np.mean(r)),
                   "parse_seconds": t_parse, "featurize_seconds": t_feat,
                   "cv_seconds": time.perf_counter() - t1}
            rows.append(row)
            label = combo + (f" gamma={gamma:g}" if gamma else "")
            print(f"{name:8s} {label:32s} F {100 * row['f1_mean']:5.1f} ± "
                  f"{100 * row['f1_sd']:3.1f}  AUC {100 * row['auc_mean']:5.1f} ± "
                  f"{100 * row['auc_sd']:3.1f}  P {100 * row['precision_mean']:5.1f} "
                  f"R {100 * row['recall_mean']:5.1f}  ({len(seeds)} seeds, "
                  f"{row['cv_seconds']:.0f} s)", flush=True)
        del data, featurizer, corpus
    return rows


def main(argv=None):
    p = experiment_parser(__doc__)
    p.add_argument("--combinations", nargs="+", metavar="COMBO",
                   help=f"{sorted(COMBINATIONS)} or views joined by + (multiview: the five)",
                   default=["multiview", "+apg:spacy", "+apg:spacy+path:spacy"])
    p.add_argument("--learner", default="reduced_set", choices=("reduced_set", "rls", "auto"))
    p.add_argument("--gammas", nargs="+", type=float, default=[0.0],
                   help="0: the summed kernel itself; G > 0: its Gaussian exp(-G d^2)")
    a = harness.parse_args(p, argv)
    gammas = [g or None for g in a.gammas]
    logged_run(lambda: run(a.corpora, a.seeds, a.combinations, a.data_dir, a.learner, gammas),
               a.output)


if __name__ == "__main__":
    main()
