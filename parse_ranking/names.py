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
           "rankrls_22_all", "rls", "kpcrank", "corankrls", "sparse_rankrls",
           "nystroem_rankrls")
#: rankers on explicit feature rows with a basis of r parses (no parse-by-parse kernel)
SPARSE_RANKERS = ("sparse_rankrls", "nystroem_rankrls")
#: rankers of ``cv`` unless ``--rankers`` is given, on at most SPARSE_ABOVE parses
CV_RANKERS = ("lg", "rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rls")
#: ... and on more parses (after --max-parses / --max-sentences): the full-kernel rankers
#: hold an m x m Gram matrix and decompose it (O(m^3); 10k parses: 0.8 GB per matrix)
SPARSE_CV_RANKERS = ("lg", "sparse_rankrls", "nystroem_rankrls")
SPARSE_ABOVE = 10_000
#: basis size(s) r of the sparse rankers (grid syntax; several: chosen by inner CV)
SPARSE_BASIS_TEXT = "1000"
SAVEABLE_RANKERS = ("rankrls", "rankrls_all", "rankrls_20", "rankrls_22", "rls", "corankrls",
                    "sparse_rankrls", "nystroem_rankrls")
SAVEABLE_KERNELS = ("bag_of_links", "links_words", "locality", "graph")
#: co-regularized RankRLS defaults (:mod:`parse_ranking.coreg`)
COREG_VIEWS = ("links_words", "locality")
COREG_N_BASIS = 500
#: default grids in :func:`kernelrank.cli.parse_grid` syntax (for the help)
ALPHAS_TEXT = "2^-8..2^16:2"
COREG_ALPHAS_TEXT = "2^-6..2^3:3"
COREG_MUS_TEXT = "0,0.1,1,10"
