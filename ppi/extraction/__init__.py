"""Extraction from raw text: protein mentions (:mod:`~ppi.extraction.mentions`), the scoring of
every candidate pair of one chunk of PubTator / BioC / text documents
(:mod:`~ppi.extraction.scoring`), the resumable run over every chunk of an input
(:mod:`~ppi.extraction.extract`), the records it writes (:mod:`~ppi.extraction.records`), and
the spaCy pipeline component (:mod:`~ppi.extraction.spacy_component`).
"""
