"""The learning plumbing both roads share: the learner, its input and the exact selection of λ
(and β) and the threshold by leave-one-document-out, the CV, cross-corpus and learning-curve
protocols (:mod:`~ppi.learning.evaluation`); transfer from the other corpora
(:mod:`~ppi.learning.transfer`) and its cache of source models
(:mod:`~ppi.learning.source_cache`); what a fit must satisfy to be saved
(:mod:`~ppi.learning.fit_checks`); and the per-pair outputs of an evaluation
(:mod:`~ppi.learning.outputs`).
"""
