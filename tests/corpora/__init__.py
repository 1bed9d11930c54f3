"""Tests of ``corpora``."""
