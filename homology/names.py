"""The names a ``homology`` user chooses on the command line, importable without NumPy (so
that ``python -m homology --help`` is instant), and the configurations of
``python -m homology benchmark``.

:data:`KERNELS`, :data:`LEARNERS`, :data:`SELECTIONS`, :data:`TARGETS` and the λ grids are
defined here and imported by :mod:`homology.benchmark`; :data:`FEATURE_GROUPS` restates
:mod:`homology.features`', :data:`PSD_FIXES` :mod:`learners.kernels.alignment`'s (tests keep
them equal).
"""

KERNELS = ("spectrum", "mismatch", "locality", "features", "mismatch+features",
           "locality+features", "spectrum+features", "la", "la+locality", "la+mismatch")
#: default ``--weight`` of a sum: the protein-feature share of ``<string>+features``; the
#: grid of the second kernel's share in ``la+locality`` / ``la+mismatch``, chosen with λ by
#: leave-one-out on each training part (fixed before any result was seen)
SUM_WEIGHTS_TEXT = {"features": "0.2", "la": "0.25,0.5,0.75"}
#: how the local-alignment kernel is made positive semi-definite (a test keeps them equal
#: to :data:`learners.kernels.alignment.PSD_FIXES`)
PSD_FIXES = ("shift", "ekm")
#: learners of the SCOP benchmark; :data:`TRAIN_LEARNERS` those a saved model can hold
LEARNERS = ("rls", "rankrls", "l2svm")
TRAIN_LEARNERS = ("l2svm", "rls")
SELECTIONS = ("roc", "roc50")
TARGETS = ("balanced", "pm1")
LOCALITY_MODES = ("sensitive", "insensitive", "strict")
FEATURE_KERNELS = ("linear", "gaussian")
FEATURE_GROUPS = ("aa", "dipeptide", "physchem")
#: the default λ grids of :mod:`homology.benchmark`, in :func:`kernelrank.cli.parse_grid`
#: syntax (for the help)
ALPHAS_TEXT = "2^-10..2^8"
L2SVM_ALPHAS_TEXT = "2^-8..2^2:2"

#: (name, kernel, kernel options) of ``python -m homology benchmark``
BENCHMARK_CONFIGS = [
    ("mismatch-k5-m1", "mismatch", {"k": 5, "m": 1}),
    ("spectrum-k3", "spectrum", {"k": 3}),
    ("locality-sensitive", "locality", {"mode": "sensitive", "half_width": 3, "theta": 2.0}),
    ("locality-insensitive", "locality", {"mode": "insensitive", "half_width": 3}),
    ("locality-strict", "locality", {"mode": "strict", "half_width": 3}),
    ("features", "features", {}),
    ("mismatch+features", "mismatch+features", {"k": 5, "m": 1, "weight": 0.2}),
    ("local-alignment", "la", {"beta": 0.5, "gap_open": 11.0, "gap_extend": 1.0,
                               "psd": "shift"}),
]
