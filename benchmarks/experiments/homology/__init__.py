"""Experiments of remote homology detection on SCOP 1.53: the local-alignment kernel and its
sums, the window of the strict locality kernel."""
