"""Basis choice of the sparse parse rankers: test τ_b along the λ grid, per basis rule.

A diagnosis. On a built data set (the README's ``craft1000.jsonl``), article-level outer
folds as in ``python -m parse_ranking cv``; for each representation and basis size r, the
reduced-set query RankRLS (Paper I eq. 41; the model of ``sparse_rankrls``) is fitted on the
training parses with the basis chosen by

* ``rand``: r raw training parses drawn uniformly (Williams & Seeger 2001; Paper III §2.1);
* ``rand_c``: the same parses, each centred within its sentence;
* ``greedy_c``: sentence-centred parses chosen by greedy (largest residual) pivoted Cholesky
  of the centred kernel (Smola & Schölkopf 2000);
* ``rpc_c``: sentence-centred parses chosen by block randomly pivoted Cholesky of the
  centred kernel (Chen et al. 2022; what ``sparse_rankrls`` uses);

and ``full`` is RankRLS on all training parses. Printed: the pooled out-of-fold τ_b at every
λ of the default grid and the best one — a diagnosis of the basis, with λ chosen on the
test parses (NOT a model-selection result; ``cv`` / ``bench_parse_ranking_sparse`` choose λ
inside the training articles). Dense m x m training kernels: for the 1,000-sentence set only.

    python -m benchmarks.experiments.parse_ranking.exp_parse_ranking_basis \\
        --data craft1000.jsonl [--kernels locality,links_words,graph] [--basis 1000,1500,2000]
"""

import numpy as np
import scipy.linalg as sla

from benchmarks import harness
from learners.nystroem import rp_cholesky_pivots
from parse_ranking.dataset import load_dataset
from parse_ranking.evaluation import article_folds, flatten, ranking_measures
from parse_ranking.ranking import DEFAULT_ALPHAS
from parse_ranking.representations import FoldFeatures

ALPHAS = np.asarray(DEFAULT_ALPHAS, dtype=float)


def _greedy_pivots(K, r):
    """Greedy pivoted Cholesky: r pivots of largest residual diagonal. O(m r^2)."""
    m = K.shape[0]
    diag = np.diag(K).copy()
    F = np.zeros((m, r), order="F")
    d = diag.copy()
    piv = []
    for k in range(r):
        j = int(np.argmax(d))
        if d[j] <= 1e-10 * diag.max():
            break
        piv.append(j)
        F[:, k] = (K[:, j] - F[:, :k] @ F[j, :k]) / np.sqrt(d[j])
        d -= F[:, k] ** 2
        d[j] = 0.0
    return np.sort(np.asarray(piv))


def _path(KtrZ, KteZ, KZZ, codes, y):
    """Test predictions for every λ of the reduced-set query RankRLS with basis kernel
    ``KZZ`` (ridge on the sentence-centred, sqrt(n_q)-scaled Nyström rows)."""
    eps = 1e-10 * np.mean(np.diag(KZZ))
    while True:
        try:
            C = np.linalg.cholesky(KZZ + eps * np.eye(KZZ.shape[0]))
            break
        except np.linalg.LinAlgError:
            eps *= 10
    P = sla.solve_triangular(C, KtrZ.T, lower=True).T
    Pte = sla.solve_triangular(C, KteZ.T, lower=True).T
    n = np.bincount(codes)

    def centre(A):
        mu = np.zeros((n.size, A.shape[1]))
        np.add.at(mu, codes, A)
        return (A - (mu / n[:, None])[codes]) * np.sqrt(n)[codes][:, None]

    Pc, yc = centre(P), centre(y[:, None])
    s, V = np.linalg.eigh(Pc.T @ Pc)
    c = V.T @ (Pc.T @ yc)[:, 0]
    Pte = Pte @ V
    return np.stack([Pte @ (c / (np.maximum(s, 0) + a)) for a in ALPHAS])


def main(argv=None):
    p = harness.parser(__doc__, full=True)
    p.add_argument("--data", required=True)
    p.add_argument("--kernels", default="locality,links_words,graph")
    p.add_argument("--basis", default="1000,1500,2000")
    p.add_argument("--max-parses", type=int, default=5)
    p.add_argument("--folds", type=int, default=3)
    args = harness.parse_args(p, argv)
    records = load_dataset(args.data, max_parses=args.max_parses)
    items, y, q, arts, lg = flatten(records, args.max_parses)
    folds = article_folds(arts, args.folds, 0)
    for kind in args.kernels.split(","):
        cache = FoldFeatures(kind, items)
        res = {}
        for f in range(args.folds):
            tr, te = np.flatnonzero(folds != f), np.flatnonzero(folds == f)
            X_tr, X_te = cache.fold(tr, te)
            K, Kte = (X_tr @ X_tr.T).toarray(), (X_te @ X_tr.T).toarray()
            _, codes = np.unique(q[tr], return_inverse=True)
            n = np.bincount(codes)
            M = np.eye(tr.size) - (codes[:, None] == codes[None, :]) / n[codes][:, None]
            Kc, KtrC, KteC = M @ K @ M.T, K @ M.T, Kte @ M.T
            res.setdefault("full", []).append((te, _path(K, Kte, K, codes, y[tr])))
            rng = np.random.default_rng(0)
            for r in (min(int(b), tr.size) for b in args.basis.split(",")):
                uni = np.sort(rng.choice(tr.size, r, replace=False))
                rules = {"rand": (uni, False), "rand_c": (uni, True),
                         "greedy_c": (_greedy_pivots(Kc, r), True),
                         "rpc_c": (rp_cholesky_pivots(lambda S: Kc[:, S], np.diag(Kc), r,
                                                      random_state=0), True)}
                for name, (R, centred) in rules.items():
                    A, B, C = (KtrC, KteC, Kc) if centred else (K, Kte, K)
                    res.setdefault(f"{name} r={r}", []).append(
                        (te, _path(A[:, R], B[:, R], C[np.ix_(R, R)], codes, y[tr])))
        for name, parts in res.items():
            sc = np.zeros((ALPHAS.size, y.size))
            for te, P in parts:
                sc[:, te] = P
            taus = [ranking_measures(y, s, q, lg)["kendall_tau_b"] for s in sc]
            b = int(np.argmax(taus))
            print(f"{kind:12s} {name:16s} best τ_b {taus[b]:.3f} (λ {ALPHAS[b]:g}) | "
                  + " ".join(f"{t:.3f}" for t in taus), flush=True)


if __name__ == "__main__":
    main()
