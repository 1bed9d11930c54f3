"""The names a LETOR user chooses on the command line (``python -m learners letor``),
importable without NumPy so that ``--help`` is instant; :mod:`letor.protocol` uses them."""

#: presets read from the data directory: data set → number of features and of parts
#: (``letor/<dataset>/Fold{k}.test.txt.gz``)
DATASETS = {"OHSUMED": {"n_features": 45, "n_parts": 5}}
#: data sets recognised by name in a ``--data`` folder's path, with their version
KNOWN_DATASETS = {
    "OHSUMED": {"version": "LETOR 3.0"},
    "MQ2007": {"version": "LETOR 4.0"},
    "MQ2008": {"version": "LETOR 4.0"},
    "MSLR-WEB10K": {"version": "MSLR-WEB"},
    "MSLR-WEB30K": {"version": "MSLR-WEB"},
}
#: the evaluation convention of each version (:data:`learners.measures.LETOR_CONVENTIONS`):
#: the official script published with it; an unknown data set gets LETOR 4.0's
CONVENTION_OF_VERSION = {"LETOR 3.0": "letor3", "LETOR 4.0": "letor4", "MSLR-WEB": "mslr",
                         "unknown": "letor4"}
CONVENTIONS = ("letor3", "letor4", "mslr")
SCRIPT_OF_CONVENTION = {"letor3": "Eval-Score-3.0.pl", "letor4": "Eval-Score-4.0.pl",
                        "mslr": "Eval-Score-MSLR.pl"}
LEARNERS = ("rankrls", "rls", "ranksvm")   # what ``--learner all`` runs
#: ``lightgbm`` is LambdaMART (LightGBM's LGBMRanker), an optional extra; ``ranksvm_hinge``
#: is RankSVM with the hinge (L1) loss, the LETOR 3.0 baseline's (``ranksvm``: squared hinge)
EXTRA_LEARNERS = ("cgrankrls", "ranksvm_hinge", "lightgbm")
#: the default grids of :mod:`letor.protocol`, in :func:`kernelrank.cli.parse_grid` syntax
#: (for the help)
RLS_ALPHAS_TEXT = "2^-15..2^15"
RANKRLS_ALPHAS_TEXT = "2^-15..2^30"   # rankrls and cgrankrls
ALPHAS_TEXT = f"{RLS_ALPHAS_TEXT} for rls, {RANKRLS_ALPHAS_TEXT} for rankrls and cgrankrls"
CS_TEXT = "10^-7..10^0"
