"""Tests of ``learners.kernels``."""
