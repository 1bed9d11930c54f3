"""Tests of ``ppi``."""
