"""kernelrank.ppi — see README.md for what this package does."""
