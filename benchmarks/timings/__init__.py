"""Timing benchmarks (``bench_*``): our computations against the naive one or the peer
library, in ONE run on the same machine, printed as ratios with the load average."""
