"""kernelrank.parse_ranking — see README.md for what this package does."""
