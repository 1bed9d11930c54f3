"""Experiments of parse ranking on CRAFT: the basis rules of the sparse rankers."""
