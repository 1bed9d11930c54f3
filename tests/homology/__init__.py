"""Tests of ``homology``."""
