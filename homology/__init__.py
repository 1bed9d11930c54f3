"""kernelrank.homology — see README.md for what this package does."""
