"""Homology benchmark: (k, m)-mismatch Gram matrix of all 4,352 SCOP 1.53 sequences.

Measures in ONE run on the same machine:

1. our mismatch(5,1) Gram matrix (explicit 16-block wildcard feature map, one sparse
   product) for all 4,352 sequences: feature map, product, total;
2. a naive pairwise computation on a random subset of ``--subset`` sequences: for every
   pair of sequences, all pairs of their k-mers are compared (NumPy broadcasting of the
   Hamming distances, no Python loop over k-mers) and weighted by the neighbourhood
   overlap ``c_d`` (the Leslie et al. definition). Its time per pair is extrapolated to all
   n (n + 1) / 2 pairs;
3. the largest difference between the two on the subset (they must agree to ~1e-12), and
   the speed ratio naive / ours for the full Gram matrix; also spectrum(3) and the
   locality kernel for reference.

Usage::

    python -m benchmarks.timings.bench_homology [--data-dir D] [--subset 60] [--output FILE]
"""

import json
import os
import platform
import time

import numpy as np

from benchmarks import harness
from corpora.scop import load_scop
from homology.features import ALPHABET
from learners.kernels import LocalityKernel, MismatchKernel, SpectrumKernel
from learners.kernels.kmers import kmer_windows
from learners.kernels.mismatch import neighbourhood_overlap
from learners.kernels.sequences import alphabet_ids, encode


def naive_pairwise(sequences, k, m):
    """Unnormalized mismatch kernel, one pair of sequences at a time."""
    weights = np.array([neighbourhood_overlap(k, m, d, len(ALPHABET)) for d in range(k + 1)],
                       dtype=float)
    symbols = alphabet_ids(ALPHABET)
    per_seq = []
    for i in range(len(sequences)):
        idx, win = kmer_windows(*encode([sequences[i]], symbols), k)
        per_seq.append(win)
    n = len(sequences)
    K = np.zeros((n, n))
    for i in range(n):
        for j in range(i, n):
            d = (per_seq[i][:, None, :] != per_seq[j][None, :, :]).sum(axis=2)
            K[i, j] = K[j, i] = weights[d].sum()
    return K


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--subset", type=int, default=60)
    harness.add_seed(parser)
    harness.add_output(parser, "JSON file for the numbers (default: printed)")
    args = harness.parse_args(parser, argv)

    bench = load_scop(args.data_dir)
    seqs = list(bench.sequences)
    n = len(seqs)
    out = {"n_sequences": n, "machine": {"cpu_count": os.cpu_count(),
                                         "platform": platform.platform()}}

    kern = MismatchKernel(ALPHABET, k=5, m=1, normalize=False)
    t0 = time.perf_counter()
    phi = kern.fit_features(seqs)
    t1 = time.perf_counter()
    K = (phi @ phi.T).toarray()
    t2 = time.perf_counter()
    out["mismatch_5_1"] = {"feature_map_s": t1 - t0, "product_s": t2 - t1, "total_s": t2 - t0,
                           "n_features": phi.shape[1], "nnz": int(phi.nnz)}
    print(f"mismatch(5,1) Gram {n}x{n}: features {t1 - t0:.1f} s ({phi.shape[1]} columns, "
          f"{phi.nnz} non-zeros) + product {t2 - t1:.1f} s = {t2 - t0:.1f} s", flush=True)

    rng = np.random.default_rng(args.seed)
    sub = np.sort(rng.choice(n, args.subset, replace=False))
    t0 = time.perf_counter()
    K_naive = naive_pairwise([seqs[i] for i in sub], 5, 1)
    t_naive = time.perf_counter() - t0
    n_pairs_sub = args.subset * (args.subset + 1) / 2
    per_pair = t_naive / n_pairs_sub
    extrapolated = per_pair * n * (n + 1) / 2
    diff = float(np.abs(K_naive - K[np.ix_(sub, sub)]).max() / np.abs(K_naive).max())
    out["naive_pairwise"] = {"subset": args.subset, "seconds": t_naive,
                             "seconds_per_pair": per_pair,
                             "extrapolated_full_s": extrapolated,
                             "max_relative_difference": diff}
    out["speedup_full_gram"] = extrapolated / out["mismatch_5_1"]["total_s"]
    print(f"naive pairwise on {args.subset} sequences: {t_naive:.1f} s "
          f"({per_pair * 1e3:.2f} ms/pair) → all pairs ≈ {extrapolated / 60:.0f} min; "
          f"ratio naive/ours = {out['speedup_full_gram']:.0f}x; max rel. diff {diff:.1e}",
          flush=True)

    for name, k in [("spectrum_3", SpectrumKernel(ALPHABET, k=3)),
                    ("locality_sensitive_t3", LocalityKernel(half_width=3, matching="sensitive",
                                                             theta=2.0, alphabet=ALPHABET))]:
        t0 = time.perf_counter()
        k.fit_transform(seqs)
        out[name] = {"gram_s": time.perf_counter() - t0}
        print(f"{name} Gram: {out[name]['gram_s']:.1f} s", flush=True)
    out["load_average_1min_at_end"] = harness.load_1min()
    if args.output:
        harness.save_json(args.output, out)
    else:
        print(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
