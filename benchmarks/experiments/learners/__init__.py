"""Experiments of the learners on synthetic and LETOR data: KPCRank on noisy sinc data,
co-regularised RankRLS as labelled data shrinks, conditional ranking of rock-paper-scissors."""
