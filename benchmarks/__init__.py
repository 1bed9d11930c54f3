"""Benchmark scripts, by kind: ``timings/`` (speed and memory as ratios measured in one run),
``experiments/<application>/`` (measured quality of learners and systems), ``probes/`` (how
the commands meet bad input); :mod:`benchmarks.harness` is the plumbing they share. Run them
from the repository root, ``python -m benchmarks.timings.bench_core`` (``README.md``)."""
