"""Tests of ``letor``."""
