"""Tests of ``parse_ranking``."""
