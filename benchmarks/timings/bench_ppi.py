"""PPI benchmark: where the time of the all-paths PPI pipeline goes, measured in ONE run.

1. featurization throughput (pairs per wall and per CPU second) per corpus, and for a
   sample of pair graphs ``all_paths_matrix`` (validation, triangular inverse for ordered
   chains, general inverse + convergence check otherwise) against a bare
   ``numpy.linalg.inv`` — ratio (≈ 1 means the checks cost nothing);
2. the dense kernel matrix: dense-BLAS block for frequent label pairs + sparse tail
   (``gram_matrix``) against a plain sparse product — ratio;
3. learning cost of ONE outer CV fold per corpus: full RLS (eigendecomposition of the
   m_train × m_train kernel, then all λ and all leave-one-document-out predictions) against
   reduced-set RLS with ≤ 4000 random basis vectors (Paper V's learner); the 10-fold CV
   time is extrapolated ×10; and, for the reduced-set learner, the fast leave-one-document-
   out (low-rank update of one eigendecomposition, held-out basis vectors removed) against
   explicit refitting without each document, per document, with the largest difference;
4. BLAS threads: one eigendecomposition of an LLL-sized kernel with 1 and 2 threads (on a
   machine shared by several processes, multithreaded BLAS on small matrices can be much
   slower — the reason to try ``--threads 1`` on a loaded machine).

Usage::

    python -m benchmarks.timings.bench_ppi [--data-dir D] [--corpora AIMed LLL ...] [--output F]
"""

from __future__ import annotations

import os
import platform
import time

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks import harness
from kernelrank.datadir import resolve_data_dir
from corpora.ppi_xml import read_corpus
from learners.kernels import gram_matrix
from learners.kernels.all_paths import all_paths_matrix
from learners.splits import group_folds
from ppi.learning.evaluation import ALPHAS, select_parameters
from ppi.representation.features import PairFeaturizer, corpus_graphs


def bench_corpus(path, name, n_sample=300, do_learn=True):
    res = {"corpus": name}
    corpus = read_corpus(path)
    f = PairFeaturizer()
    cpu0 = time.process_time()
    (data,), t_feat = harness.timed(f.fit_transform, [corpus])
    cpu = time.process_time() - cpu0   # CPU seconds: meaningful on a loaded machine too
    res.update(pairs=len(data), featurize_seconds=t_feat, featurize_cpu_seconds=cpu,
               pairs_per_cpu_second=len(data) / cpu, pairs_per_second=len(data) / t_feat,
               n_features=int(data.X.shape[1]), nnz_per_pair=data.X.nnz / len(data))
    # 1. inverse: triangular (ours) vs general
    inst = corpus_graphs(corpus)[0][:n_sample]
    As = [g.adjacency() for pair in inst for g in pair]
    with threadpool_limits(1):
        _, t_ours = harness.timed(lambda: [all_paths_matrix(A) for A in As])
        _, t_inv = harness.timed(lambda: [np.linalg.inv(np.eye(len(A)) - A) for A in As])
    res.update(inverse_ours_seconds=t_ours, inverse_general_seconds=t_inv,
               inverse_speedup=t_inv / t_ours, inverse_sample_graphs=len(As))
    # 2. kernel
    K, t_gram = harness.timed(gram_matrix, data.X)
    res["gram_seconds"] = t_gram
    if len(data) <= 6000:
        K2, t_sparse = harness.timed(lambda: (data.X @ data.X.T).toarray())
        res.update(gram_sparse_seconds=t_sparse, gram_speedup=t_sparse / t_gram,
                   gram_max_abs_diff=float(np.abs(K - K2).max()))
        del K2
    if not do_learn:
        return res
    # 3. one outer fold, both learners
    fold = group_folds(data.document_ids, 10, 0, y=data.y)
    train = np.flatnonzero(fold != 0)
    Kt = K[np.ix_(train, train)]
    res["m_train"] = int(len(train))
    for learner in ("rls", "reduced_set"):
        if learner == "reduced_set" and len(train) <= 4000:
            res["reduced_set_same_as_rls"] = True
            continue
        (sel, choice), t = harness.timed(select_parameters, Kt, data.y[train],
                                         data.document_ids[train], ALPHAS, learner)
        model = sel.model
        res[f"{learner}_fold_seconds"] = t
        res[f"{learner}_cv_seconds_extrapolated"] = 10 * t
        res[f"{learner}_inner_f1"] = choice["f1"]
        if learner == "reduced_set":
            res.update(_explicit_lodo(model, Kt, data.y[train], data.document_ids[train]))
    return res


def _explicit_lodo(model, Kt, y, docs, n_docs=3):
    """Leave-one-document-out by explicit refitting (basis vectors of the document removed)
    for ``n_docs`` documents, against the fast hold-out of the fitted ``model``: seconds
    per document both ways, the extrapolation to all documents, and the largest difference
    of the predictions over the λ grid."""
    from learners.reduced_set import ReducedSetRLS

    names = np.unique(docs.astype(str))
    chosen = np.random.default_rng(0).choice(names, size=min(n_docs, names.size), replace=False)
    sets = [np.flatnonzero(docs.astype(str) == d) for d in chosen]
    fast, t_fast = harness.timed(model.holdout_sets, sets, alphas=list(ALPHAS))
    t_slow, diff = 0.0, 0.0
    R = model.basis_indices_
    for U, P in zip(sets, fast):
        tr = np.setdiff1d(np.arange(len(y)), U)
        basis = np.searchsorted(tr, np.setdiff1d(R, U))
        t0 = time.perf_counter()
        ref = ReducedSetRLS(kernel="precomputed", basis_indices=basis,
                            jitter=model.nystroem_.jitter_).fit(Kt[np.ix_(tr, tr)], y[tr])
        expected = ref.predict_path(Kt[np.ix_(U, tr)], list(ALPHAS))
        t_slow += time.perf_counter() - t0
        diff = max(diff, float(np.abs(P - expected).max() / max(1.0, np.abs(expected).max())))
    per_fast, per_slow = t_fast / len(sets), t_slow / len(sets)
    return {"lodo_documents": int(names.size), "lodo_fast_seconds_per_document": per_fast,
            "lodo_explicit_seconds_per_document": per_slow,
            "lodo_explicit_seconds_extrapolated": per_slow * names.size,
            "lodo_speedup": per_slow / per_fast, "lodo_max_relative_diff": diff}


def main(argv=None):
    ap = harness.parser(__doc__, full=True)
    harness.add_data_dir(ap)
    ap.add_argument("--corpora", nargs="+",
                    default=["LLL", "HPRD50", "IEPA", "AIMed", "BioInfer"])
    ap.add_argument("--no-learn", action="store_true", help="skip part 3")
    harness.add_output(ap)
    args = harness.parse_args(ap, argv)
    root = resolve_data_dir(args.data_dir)
    out = {"machine": {"python": platform.python_version(), "cpus": os.cpu_count(),
                       "load_average": harness.load_average()}, "corpora": []}
    with threadpool_limits(1):
        for name in args.corpora:
            r = bench_corpus(root / "ppi" / f"{name}-learning-format.xml.gz", name,
                             do_learn=not args.no_learn)
            out["corpora"].append(r)
            print(f"{name}: {r['pairs']} pairs, featurize {r['featurize_seconds']:.1f} s "
                  f"({r['pairs_per_second']:.0f} pairs/s; {r['featurize_cpu_seconds']:.1f} CPU s), "
                  f"inverse speed-up "
                  f"{r['inverse_speedup']:.1f}x, gram {r['gram_seconds']:.1f} s"
                  + (f" ({r['gram_speedup']:.1f}x vs sparse)" if "gram_speedup" in r else "")
                  + "".join(f", {k} {r[k]:.1f} s" for k in
                            ("rls_fold_seconds", "reduced_set_fold_seconds") if k in r)
                  + (f"; leave-one-document-out over {r['lodo_documents']} documents: fast "
                     f"{r['lodo_fast_seconds_per_document'] * 1e3:.0f} ms/document vs explicit "
                     f"refitting {r['lodo_explicit_seconds_per_document']:.1f} s/document "
                     f"({r['lodo_speedup']:.0f}x, max rel. diff "
                     f"{r['lodo_max_relative_diff']:.1e})" if "lodo_speedup" in r else ""),
                  flush=True)
    # 4. BLAS threads on a small eigendecomposition
    rng = np.random.default_rng(0)
    B = rng.normal(size=(330, 200))
    S = B @ B.T
    import scipy.linalg as sla
    for n in (1, 2):
        with threadpool_limits(n):
            _, t = harness.timed(lambda: [sla.eigh(S, driver="evd") for _ in range(5)])
        out[f"eigh330_threads{n}_seconds"] = t / 5
    out["machine"]["load_average_end"] = harness.load_average()
    print(f"eigh 330x330: 1 thread {out['eigh330_threads1_seconds'] * 1e3:.1f} ms, "
          f"2 threads {out['eigh330_threads2_seconds'] * 1e3:.1f} ms; load average "
          f"{harness.format_load(out['machine']['load_average'])} at start, "
          f"{harness.format_load(out['machine']['load_average_end'])} at end")
    harness.save_json(args.output, out)
    return out


if __name__ == "__main__":
    main()
