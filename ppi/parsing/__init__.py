"""Parses of the sentences: spaCy's parse of raw text and its conversion
(:mod:`~ppi.parsing.spacy_parse`), spaCy's analyses added to and cached for a benchmark
corpus (:mod:`~ppi.parsing.spacy_analyses`), and the parser tuned on the corpora's own trees
(:mod:`~ppi.parsing.parser_tuning`).
"""
