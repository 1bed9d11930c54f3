"""letor — the LETOR learning-to-rank benchmark protocol (an application of :mod:`learners`).

:mod:`letor.layouts` finds the folds of a LETOR data set folder (``Fold{k}/`` or
``S1..S5``, or the project's OHSUMED preset) and reads them; :mod:`letor.protocol` runs the
standard folds with the linear learners of :mod:`learners` (and LambdaMART,
:mod:`letor.lambdamart`), choosing the regularization parameter on the validation part
with the selection engine of :mod:`learners`; :mod:`letor.report` writes the comparison
report, :mod:`letor.runs` runs several learners on the same folds, :mod:`letor.cli` is the
command ``python -m learners letor`` (console script ``learners letor``) and
:mod:`letor.names` its choices (importable without NumPy).
"""
