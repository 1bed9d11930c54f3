"""How a candidate pair becomes a feature row: the pair graph of a parse
(:mod:`~ppi.representation.graphs`), its all-paths rows computed in one pass
(:mod:`~ppi.representation.pair_rows`), the featurizer and kernel of one view
(:mod:`~ppi.representation.features`) and several views summed
(:mod:`~ppi.representation.views`).
"""
