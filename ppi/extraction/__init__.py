"""Extraction from raw text: protein mentions (:mod:`~ppi.extraction.mentions`), the scoring of
every candidate pair of PubTator / BioC / text documents (:mod:`~ppi.extraction.extract`),
the records it writes (:mod:`~ppi.extraction.records`), and the spaCy pipeline component
(:mod:`~ppi.extraction.spacy_component`).
"""
