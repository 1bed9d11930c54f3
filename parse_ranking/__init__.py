"""kernelrank.parse_ranking — rank alternative Link Grammar parses of a sentence.

The task of Paper I §5.2 (Airola 2011; Pahikkala et al. 2009) and of Tsivtsivadze et al.
(2005, 2006, 2008): each sentence (query) has several candidate linkages from the Link
Grammar parser; each linkage is scored by the F-score of its word-pair links against the
gold dependency tree; a ranker learns to order a sentence's linkages by that score.

Modules (one concept each):

* :mod:`parse_ranking.linkgrammar` — ctypes binding of the Debian ``liblink-grammar5``;
* :mod:`parse_ranking.alignment`, :mod:`parse_ranking.scoring` — LG words → gold tokens by
  character offsets; F-score goodness;
* :mod:`parse_ranking.dataset` — resumable, parallel (dask) data set builder and loader;
* :mod:`parse_ranking.representations` — bag of links, links with words, locality
  (link-type sequences for the locality-convolution kernel of
  :mod:`learners.kernels.locality`), graph (for the all-paths graph kernel of
  :mod:`learners.kernels.all_paths`);
* :mod:`parse_ranking.ranking`, :mod:`parse_ranking.evaluation` — rankers with λ by
  leave-query-out (learners from :mod:`learners`), article-level CV and measures;
* :mod:`parse_ranking.coreg` — sparse co-regularized RankRLS (``corankrls``: two views,
  unscored parses as unlabelled data, (α, μ) by inner article-level CV);
* :mod:`parse_ranking.report`, :mod:`parse_ranking.model`, :mod:`parse_ranking.benchmark`;
* :mod:`parse_ranking.runs` — cv / train / benchmark runs end to end (what the command line
  calls); :mod:`parse_ranking.names` — the command line's choices (no NumPy);
* ``python -m parse_ranking {build,cv,train,rank,benchmark}``.

CRAFT data: ``../shared/data/craft/conllu`` (CC BY 3.0). System requirement: the Debian
packages ``link-grammar liblink-grammar5`` (which pull in the English dictionary).
"""
