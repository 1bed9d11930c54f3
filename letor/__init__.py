"""letor — the LETOR learning-to-rank benchmark protocol (an application of :mod:`learners`).

:mod:`letor.protocol` runs the standard LETOR folds (train / validation / test parts) with the
linear learners of :mod:`learners`, choosing the regularization parameter on the validation
part with the selection engine of :mod:`learners`; :mod:`letor.report` writes the comparison
report, :mod:`letor.runs` runs several learners on the same folds, :mod:`letor.cli` is the
command ``python -m learners letor`` (console script ``learners letor``) and
:mod:`letor.names` its choices (importable without NumPy).
"""
