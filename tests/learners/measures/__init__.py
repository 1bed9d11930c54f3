"""Tests of ``learners.measures``."""
