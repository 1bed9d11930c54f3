"""Which choices explain the LLL gap of Paper V's all-paths system? F / AUC of each factor
(pair orientation, path end points, the criterion of λ) alone and combined, over fold seeds.

Measures each factor alone, and their combinations, under the document-level 10-fold
protocol with nested leave-one-document-out selection
(:func:`ppi.learning.evaluation.cross_validate`), on every corpus given, over several fold
seeds (the small corpora's F moves by several points from one fold assignment to another, so
one seed proves nothing):

* ``order``      — ``pair`` (published code: PROT1 = the pair's e1, tokens between the two
                   tagged "before" when e2 comes first) or ``text`` (text order, ``M_`` from the
                   first to the last token of the two candidates);
* ``endpoints``  — shortest paths between ``all`` tokens of the two entities (published) or
                   between one ``head`` token each
                   (:meth:`ppi.representation.graphs._SentenceStructure.head_token`);
* ``select_by``  — λ by the inner pooled F (Paper V) or by the inner pooled AUC (the threshold
                   then by best F at that λ).

Each (order, endpoints) is featurized once per corpus; its kernel serves every seed and both
selection criteria. Prints, per corpus and configuration, F and AUC as mean ± sd over seeds
(each seed's value is itself the mean over 10 folds), and writes them as JSON.

Usage::

    python -m benchmarks.experiments.ppi.exp_ppi_factors --corpora LLL HPRD50 IEPA \\
        --seeds 0 1 2 3 4 --output /tmp/factors.json
"""

from __future__ import annotations

import itertools
import time

import numpy as np

from benchmarks import harness
from benchmarks.experiments.ppi._corpora import experiment_parser, logged_run
from corpora.ppi_xml import read_corpus
from ppi.learning.evaluation import ALPHAS, cross_validate
from ppi.representation.features import kernel
from ppi.names import ENDPOINTS, ORDERS, SELECT_BY, corpus_path
from ppi.systems import Settings
from ppi.systems.inputs import prepare_corpus


def run(corpora, seeds, orders, endpoints, select_by, learner, data_dir, views=None):
    rows = []
    for name in corpora:
        corpus = read_corpus(corpus_path(data_dir, name))
        for order, ends in itertools.product(orders, endpoints):
            t0 = time.perf_counter()
            settings = Settings(order=order, endpoints=ends, learner=learner, views=views)
            prepare_corpus(corpus, settings)          # spaCy's analyses when a view reads them
            (data,) = settings.featurizer().fit_transform([corpus])
            K = kernel(data)
            t_feat = time.perf_counter() - t0
            for crit in select_by:
                f, a = [], []
                t1 = time.perf_counter()
                for seed in seeds:
                    r = cross_validate(data, K, alphas=ALPHAS, learner=learner, seed=seed,
                                       select_by=crit, progress=False)
                    f.append(r["f1"])
                    a.append(r["auc"])
                row = {"corpus": name, "order": order, "endpoints": ends, "select_by": crit,
                       "views": list(views or ("apg:split_parse",)),
                       "seeds": list(seeds), "f1": f, "auc": a,
                       "f1_mean": float(np.mean(f)), "f1_sd": float(np.std(f)),
                       "auc_mean": float(np.mean(a)), "auc_sd": float(np.std(a)),
                       "featurize_seconds": t_feat,
                       "cv_seconds": time.perf_counter() - t1}
                rows.append(row)
                print(f"{name:8s} {'+'.join(row['views'])} order={order:4s} endpoints={ends:4s} select_by={crit:3s}  "
                      f"F {100 * row['f1_mean']:5.1f} ± {100 * row['f1_sd']:3.1f}  "
                      f"AUC {100 * row['auc_mean']:5.1f} ± {100 * row['auc_sd']:3.1f}  "
                      f"({len(seeds)} seeds, {row['cv_seconds']:.0f} s)", flush=True)
    return rows


def main(argv=None):
    p = experiment_parser(__doc__, default=["LLL", "HPRD50", "IEPA"], seeds=[0, 1, 2, 3, 4])
    p.add_argument("--orders", nargs="+", choices=ORDERS, default=list(ORDERS))
    p.add_argument("--endpoints", nargs="+", choices=ENDPOINTS, default=list(ENDPOINTS))
    p.add_argument("--select-by", nargs="+", choices=SELECT_BY, default=list(SELECT_BY))
    p.add_argument("--learner", default="reduced_set", choices=("reduced_set", "rls"))
    p.add_argument("--views", nargs="+", default=None,
                   help="views combined (ppi.representation.views; default: apg:split_parse alone)")
    a = harness.parse_args(p, argv)
    logged_run(lambda: run(a.corpora, a.seeds, a.orders, a.endpoints, a.select_by, a.learner,
                           a.data_dir, tuple(a.views) if a.views else None), a.output)


if __name__ == "__main__":
    main()
