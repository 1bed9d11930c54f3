"""Tests of ``kernelrank``."""
