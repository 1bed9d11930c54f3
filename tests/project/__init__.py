"""Tests that span the packages: layers, the installed distribution, the contract of every
learner, trust under misuse, the fuzz suite of the saved model files."""
