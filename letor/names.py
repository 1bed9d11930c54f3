"""The names a LETOR user chooses on the command line (``python -m learners letor``),
importable without NumPy so that ``--help`` is instant; :mod:`letor.protocol` uses them."""

#: data set → number of features and of parts (``Fold{k}.test.txt.gz``)
DATASETS = {"OHSUMED": {"n_features": 45, "n_parts": 5}}
LEARNERS = ("rankrls", "rls", "ranksvm")   # what ``--learner all`` runs
EXTRA_LEARNERS = ("cgrankrls",)
#: the default grids of :mod:`letor.protocol`, in :func:`kernelrank.cli.parse_grid` syntax
#: (for the help)
ALPHAS_TEXT = "2^-15..2^15 for rls, 2^-15..2^30 for rankrls and cgrankrls"
CS_TEXT = "10^-7..10^0"
