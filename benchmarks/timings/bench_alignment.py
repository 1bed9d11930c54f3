"""Local-alignment kernel: DP cells per second of our programmes against Biopython's
aligner and against the physical limit of this processor, in ONE run.

On ``--pairs`` random pairs of real SCOP 1.53 sequences (seed ``--seed``), one thread each:

1. ``la_scaled_dp`` — the LA kernel's scaled programme (what Gram matrices use);
2. ``la_log_dp`` — the same sum on logarithms (the exact reference; on a twentieth of the
   pairs);
3. ``la_log_dp(viterbi=True)`` — the Smith–Waterman score by the same recursion;
4. Biopython's ``PairwiseAligner`` (mode local, BLOSUM62, gaps −11 / −1, ``score`` only: its
   compiled Gotoh programme, the fastest local score Biopython offers);

each timed by CPU time of this process (``time.process_time``: on a shared machine it
counts only the time the work was actually running) and by wall time, ``--repeat`` times
(the median run is reported). Printed: cells per
second and per CPU second, the ratio to Biopython, the processor cycles per cell, and the
estimated physical limit: ``clock × lanes × vector ports / operations per cell`` — the
recursion needs 10 arithmetic operations per cell (M: 3 additions and 1 product; X: a
product and a fused multiply-add; Y: an addition, a product and a fused multiply-add; the
sum of M: an addition), so with ``lanes`` float64 per vector register (8 with AVX-512, 4
with AVX2) and two vector ports a core can do at most ``2 × lanes / 10`` cells per cycle;
memory is no limit (three rows of the table stay in the first-level cache). The scaled
programme is scalar code (no vector instructions), so its own limit is about
``4 / 12`` cells per cycle (about 12 instructions per cell, 4 per cycle).

Then the full 4,352 × 4,352 Gram matrix time is extrapolated from the measured rate, for
one core and for all cores, and (``--threads``) the Gram matrix of ``--thread-sequences``
random sequences is computed with 1 and with ``--threads`` threads: the parallel speed-up of
:mod:`learners.kernels.gram_blocks` (wall time; it includes starting the Dask threads).

Usage::

    python -m benchmarks.timings.bench_alignment [--data-dir D] [--pairs 10000] [--repeat 3]
        [--threads 2] [--output FILE]
"""

import math
import os
import platform
import re
import time

import numpy as np

from benchmarks import harness
from corpora.scop import load_scop
from learners.kernels import LocalAlignmentKernel
from learners.kernels.alignment import encode_sequences, substitution_matrix
from learners.kernels.alignment_dp import la_log_dp, la_scaled_dp

#: arithmetic operations per DP cell of the LA recursion (module docstring)
OPS_PER_CELL = 10


def clock_hz():
    """The processor clock from /proc/cpuinfo ("cpu MHz"), or None."""
    try:
        text = open("/proc/cpuinfo").read()
    except OSError:
        return None
    mhz = re.findall(r"cpu MHz\s*:\s*([0-9.]+)", text)
    return float(mhz[0]) * 1e6 if mhz else None


def vector_lanes():
    """float64 lanes of the widest vector unit the processor reports (8, 4 or 2)."""
    try:
        flags = open("/proc/cpuinfo").read()
    except OSError:
        return 2
    return 8 if " avx512f" in flags else 4 if " avx2" in flags else 2


def _timed(fn, repeat=1):
    """``(CPU s, wall s)`` of the median of ``repeat`` runs of ``fn`` (by CPU time)."""
    runs = []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        runs.append((time.process_time() - c0, time.perf_counter() - w0))
    return sorted(runs)[len(runs) // 2]


def main(argv=None):
    parser = harness.parser(__doc__)
    harness.add_data_dir(parser)
    parser.add_argument("--pairs", type=int, default=10000)
    parser.add_argument("--repeat", type=int, default=3)
    harness.add_seed(parser)
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--thread-sequences", type=int, default=600,
                        help="sequences of the Gram block timed with 1 and --threads threads")
    harness.add_output(parser)
    args = harness.parse_args(parser, argv)
    from Bio.Align import PairwiseAligner, substitution_matrices

    load_start = harness.load_average()
    bench = load_scop(args.data_dir)
    seqs = [s.upper() for s in bench.sequences]
    alphabet, S = substitution_matrix("BLOSUM62")
    beta, o, e = 0.5, 11.0, 1.0
    rng = np.random.default_rng(args.seed)
    pairs = rng.integers(0, len(seqs), size=(args.pairs, 2))
    P = encode_sequences(seqs, alphabet)
    code = [P.codes[P.starts[i]:P.starts[i] + P.lengths[i]].astype(np.int64)
            for i in range(len(seqs))]
    cells = lambda pp: float(sum(len(seqs[a]) * len(seqs[b]) for a, b in pp))  # noqa: E731
    E, d, r = np.exp(beta * S), math.exp(-beta * o), math.exp(-beta * e)
    work = np.empty(3 * (max(P.lengths) + 1))
    # compile first (numba caches on disk; the first call of a fresh install compiles)
    la_scaled_dp(code[0], code[1], E, d, r, work)
    la_log_dp(code[0][:5], code[1][:5], beta * S, beta * o, beta * e, False)
    la_log_dp(code[0][:5], code[1][:5], S, o, e, True)

    def scaled(pp):
        for a, b in pp:
            x, y = (code[a], code[b]) if len(code[a]) <= len(code[b]) else (code[b], code[a])
            la_scaled_dp(x, y, E, d, r, work)

    aligner = PairwiseAligner(mode="local", open_gap_score=-o, extend_gap_score=-e,
                              substitution_matrix=substitution_matrices.load("BLOSUM62"))
    tenth = pairs[: max(1, len(pairs) // 20)]
    runs = {
        "LA kernel, scaled (ours)": (pairs, lambda: scaled(pairs)),
        "LA kernel, log-space (ours, reference)": (tenth, lambda: [la_log_dp(
            code[a], code[b], beta * S, beta * o, beta * e, False) for a, b in tenth]),
        "Smith-Waterman, same recursion with max (ours)": (pairs, lambda: [la_log_dp(
            code[a], code[b], S, o, e, True) for a, b in pairs]),
        "Biopython PairwiseAligner.score (local, Gotoh)": (pairs, lambda: [aligner.score(
            seqs[a], seqs[b]) for a, b in pairs]),
    }
    hz, lanes = clock_hz(), vector_lanes()
    out = {"pairs": len(pairs), "seed": args.seed, "machine": {
        "cpu_count": os.cpu_count(), "platform": platform.platform(), "clock_hz": hz,
        "float64_lanes": lanes}, "load_average_start": load_start, "runs": {}}
    print(f"{len(pairs)} random pairs of SCOP 1.53 sequences, {cells(pairs):.3g} DP cells; "
          f"load average at start {harness.format_load(load_start)}")
    for name, (pp, fn) in runs.items():
        cpu, wall = _timed(fn, args.repeat)
        rate = cells(pp) / cpu
        out["runs"][name] = {"cells": cells(pp), "cpu_s": cpu, "wall_s": wall,
                             "cells_per_cpu_s": rate, "cells_per_wall_s": cells(pp) / wall}
        cyc = f", {hz / rate:.1f} cycles/cell" if hz else ""
        print(f"  {name}: {rate / 1e6:,.0f} M cells per CPU second "
              f"({cells(pp) / wall / 1e6:,.0f} M per wall second){cyc}", flush=True)
    ours = out["runs"]["LA kernel, scaled (ours)"]["cells_per_cpu_s"]
    bio = out["runs"]["Biopython PairwiseAligner.score (local, Gotoh)"]["cells_per_cpu_s"]
    out["ratio_scaled_vs_biopython"] = ours / bio
    print(f"ratio LA kernel (scaled) / Biopython local score: {ours / bio:.1f}x (one thread "
          "each, CPU time)")
    if hz:
        limit = hz * 2 * lanes / OPS_PER_CELL
        scalar = hz * 4 / 12
        out["physical_limit_cells_per_s"] = limit
        out["scalar_limit_cells_per_s"] = scalar
        print(f"physical limit, one core: {hz / 1e9:.2f} GHz × {lanes} float64 lanes × 2 vector "
              f"ports / {OPS_PER_CELL} operations per cell = {limit / 1e9:.1f} G cells/s; ours "
              f"is {ours / limit:.0%} of it ({ours / scalar:.0%} of the scalar limit "
              f"{scalar / 1e9:.2f} G cells/s)")
    total = float(P.lengths.sum()) ** 2 / 2 + float((P.lengths ** 2).sum()) / 2
    out["gram_cells"] = total
    cores = os.cpu_count() or 1
    print(f"full Gram matrix of {len(seqs)} sequences: {total:.3g} cells → "
          f"{total / ours / 60:.1f} min on one idle core, {total / ours / cores / 60:.1f} min "
          f"on {cores}")
    if args.threads > 1:
        n_sub = min(args.thread_sequences, len(seqs))
        sub = encode_sequences([seqs[i] for i in rng.choice(len(seqs), n_sub, replace=False)],
                               alphabet)
        times = {}
        for t in (1, args.threads):
            kern = LocalAlignmentKernel(n_jobs=t)
            times[t] = _timed(lambda: kern.log_kernel(sub))
        out["threads"] = {str(t): {"cpu_s": c, "wall_s": w} for t, (c, w) in times.items()}
        print(f"Gram matrix of {n_sub} sequences: 1 thread {times[1][1]:.1f} s wall, "
              f"{args.threads} threads {times[args.threads][1]:.1f} s wall "
              f"(speed-up {times[1][1] / times[args.threads][1]:.2f}x; CPU "
              f"{times[1][0]:.1f} / {times[args.threads][0]:.1f} s)")
    out["load_average_end"] = harness.print_load("end")
    harness.save_json(args.output, out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
