"""Kronecker RLS / conditional RankRLS speed (paper 004 §6.5), measured in one run.

1. Closed forms on a complete graph of ``--nodes`` × ``--nodes`` edges (default 1000 × 1000 =
   10^6 edges): :class:`learners.KronRLS` and :class:`learners.KronRankRLS` (Cor. 4.5 / 4.8),
   O(m³) — the m² × m² edge kernel is never formed.
2. Small complete graphs where the explicit edge-kernel solve is still possible (kernel
   RankRLS on explicit edges, O(m⁶)): closed form vs explicit solve, same predictions
   (largest difference printed) and the time ratio.
3. Conjugate gradients for conditional ranking on an *incomplete* graph: ``--cg-edges``
   random observed edges (default 10^6) among ``--cg-nodes`` nodes, ``--cg-iter`` iterations
   (early stopping), ordinary and symmetric pairwise kernels; O(m³ + n) per iteration.

Gaussian node kernel on random 20-dimensional features; fixed seed.

Usage::

    python -m benchmarks.timings.bench_kronecker [--nodes 1000] [--cg-nodes 1500]
        [--cg-edges 1000000] [--cg-iter 30] [--output FILE]
"""

import platform
import sys

import numpy as np

from benchmarks import harness
from learners.kernels import kernel_matrix
from learners.kronecker import KronRankRLS, KronRLS
from learners.measures import disagreement_error


def node_data(m, rng, d=20):
    X = rng.normal(size=(m, d))
    w = rng.normal(size=(d, d)) / d
    Y = np.tanh(X @ w @ X.T) + 0.3 * rng.normal(size=(m, m))   # an asymmetric relation
    return X, Y


def explicit_rankrls(K, Y, alpha):
    """Kernel RankRLS on explicit edges: the m² × m² edge kernel and dense solve."""
    m = len(K)
    G = np.kron(K, K)                              # rows: edges (v, v') in row-major order
    L = np.kron(np.eye(m), np.eye(m) - 1.0 / m)
    y = Y.ravel()
    a = np.linalg.solve(L @ G + alpha * np.eye(m * m), L @ y)
    return (G @ a).reshape(m, m)


def main(argv=None):
    parser = harness.parser(__doc__)
    parser.add_argument("--nodes", type=int, default=1000)
    parser.add_argument("--small", type=int, nargs="+", default=[10, 20, 30, 40])
    parser.add_argument("--cg-nodes", type=int, default=1500)
    parser.add_argument("--cg-edges", type=int, default=1_000_000)
    parser.add_argument("--cg-iter", type=int, default=30)
    parser.add_argument("--alpha", type=float, default=1.0)
    harness.add_seed(parser)
    harness.add_output(parser)
    args = harness.parse_args(parser, argv)
    rng = np.random.default_rng(args.seed)
    res = {"machine": platform.platform(), "python": sys.version.split()[0], "args": vars(args)}

    # 1. closed forms on 10^6 edges
    m = args.nodes
    X, Y = node_data(m, rng)
    Xt, _ = node_data(200, rng)
    for name, est in (("KronRLS", KronRLS), ("KronRankRLS", KronRankRLS)):
        model, t = harness.timed(lambda est=est: est(alpha=args.alpha, kernel="gaussian",
                                                     gamma=0.05).fit(X, Y))
        _, tp = harness.timed(lambda model=model: model.predict(Xt))
        res[f"closed_{name}_{m}x{m}_s"] = t
        print(f"{name} closed form, {m} x {m} nodes = {m * m:,} edges: fit {t:.2f} s, "
              f"predict 200 x 200 new node pairs {tp:.2f} s")
    model, t = harness.timed(lambda: KronRLS(alpha=args.alpha, kernel="gaussian",
                                             gamma=0.05).fit(X, Y))
    _, tl = harness.timed(model.leave_one_out)
    res["loo_KronRLS_s"] = tl
    print(f"KronRLS exact leave-one-edge-out for all {m * m:,} edges: {tl:.2f} s")

    # 2. closed form vs explicit edge kernel
    res["small"] = []
    for ms in args.small:
        Xs, Ys = node_data(ms, rng)
        K = kernel_matrix(Xs, Xs, "gaussian", gamma=0.05)
        fast, tf = harness.timed(lambda: KronRankRLS(alpha=args.alpha, kernel="gaussian",
                                                     gamma=0.05).fit(Xs, Ys).predict(Xs))
        slow, ts = harness.timed(lambda: explicit_rankrls(K, Ys, args.alpha))
        diff = float(np.abs(fast - slow).max() / np.abs(slow).max())
        res["small"].append({"nodes": ms, "edges": ms * ms, "closed_s": tf, "explicit_s": ts,
                             "ratio": ts / tf, "max_rel_diff": diff})
        print(f"{ms} nodes ({ms * ms} edges): closed form {tf * 1e3:.1f} ms, explicit edge-kernel "
              f"RankRLS {ts * 1e3:.1f} ms (x{ts / tf:.0f}), max rel. diff {diff:.1e}")

    # 3. CG on an incomplete graph with 10^6 observed edges
    mc = args.cg_nodes
    Xc, Yc = node_data(mc, rng)
    flat = rng.choice(mc * mc, size=min(args.cg_edges, mc * mc), replace=False)
    edges = np.column_stack(np.unravel_index(flat, (mc, mc)))
    y = Yc[edges[:, 0], edges[:, 1]]
    test = rng.choice(mc * mc, size=min(200_000, mc * mc), replace=False)
    test = test[~np.isin(test, flat)]
    te = np.column_stack(np.unravel_index(test, (mc, mc)))
    for pairwise in ("kronecker", "symmetric"):
        model, t = harness.timed(lambda pairwise=pairwise: KronRankRLS(
            alpha=args.alpha, kernel="gaussian", gamma=0.05, pairwise=pairwise, solver="cg",
            max_iter=args.cg_iter).fit(Xc, y, edges=edges))
        pred = model.predict(Xc, edges=te)
        err = disagreement_error(Yc[te[:, 0], te[:, 1]], pred, te[:, 0], ties=0.5)
        res[f"cg_{pairwise}"] = {"nodes": mc, "edges": len(edges), "iterations": model.n_iter_,
                                 "fit_s": t, "s_per_iter": t / max(model.n_iter_, 1),
                                 "heldout_ranking_loss": err}
        print(f"CG conditional RankRLS ({pairwise}), {mc} nodes, {len(edges):,} observed edges: "
              f"{model.n_iter_} iterations in {t:.1f} s ({t / max(model.n_iter_, 1):.2f} s/iter), "
              f"held-out ranking loss {err:.4f}")
    harness.save_json(args.output, res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
