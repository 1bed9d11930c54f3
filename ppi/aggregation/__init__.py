"""Corpus-level output of an extraction: concept pairs per document
(:mod:`~ppi.aggregation.aggregate`), the interaction network
(:mod:`~ppi.aggregation.network`), its picture (:mod:`~ppi.aggregation.picture`) and the
document-level evaluation against gold relations (:mod:`~ppi.aggregation.evaluation`; by
BioRED's levels, :mod:`~ppi.aggregation.biored_measure`).
"""
