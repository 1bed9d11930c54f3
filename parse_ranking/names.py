"""The names a ``parse_ranking`` user chooses on the command line, importable without NumPy
(so that ``python -m parse_ranking --help`` is instant).

:data:`REPRESENTATIONS`, :data:`SAVEABLE_RANKERS`, :data:`SAVEABLE_KERNELS`,
:data:`MATCHING`, :data:`RANKERS`, the λ grid and the co-regularisation defaults are defined
here; :mod:`parse_ranking.ranking`, :mod:`parse_ranking.coreg` and the representations
import them.
"""

REPRESENTATIONS = ("bag_of_links", "links_words", "locality", "graph")
#: locality kernel window matching (:mod:`learners.kernels.locality`; a test keeps them equal)
MATCHING = ("sensitive", "strict", "insensitive")
RANKERS = ("lg", "rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rankrls_20_all",
           "rankrls_22_all", "rls", "kpcrank", "corankrls")
#: rankers of ``cv`` unless ``--rankers`` is given
CV_RANKERS = ("lg", "rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rls")
SAVEABLE_RANKERS = ("rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rls", "corankrls")
SAVEABLE_KERNELS = ("bag_of_links", "links_words", "locality", "graph")
#: co-regularized RankRLS defaults (:mod:`parse_ranking.coreg`)
COREG_VIEWS = ("links_words", "locality")
COREG_N_BASIS = 500
#: default grids in :func:`kernelrank.cli.parse_grid` syntax (for the help)
ALPHAS_TEXT = "2^-8..2^16:2"
COREG_ALPHAS_TEXT = "2^-6..2^3:3"
COREG_MUS_TEXT = "0,0.1,1,10"
