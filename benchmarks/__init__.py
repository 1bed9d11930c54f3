"""Benchmark scripts (timings as ratios measured in one run); run from the repository root."""
