"""Experiments of PPI extraction: the benchmark corpora under document-level CV (factors,
views, parsers, transfer) and the documents system on BioRED (training-set size, the document
stage, relation types)."""
