"""The experiments of Paper V and its extensions: the CV, cross-corpus, learning-curve and
benchmark runs (:mod:`~ppi.experiments.runs`), the ablation of the views
(:mod:`~ppi.experiments.ablation`), view weights chosen inside the folds
(:mod:`~ppi.experiments.view_weights`), and their reports beside the published numbers
(:mod:`~ppi.experiments.report`).
"""
