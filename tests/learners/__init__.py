"""Tests of ``learners``."""
