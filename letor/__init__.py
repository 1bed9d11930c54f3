"""letor — the LETOR learning-to-rank benchmark protocol (an application of :mod:`learners`).

:mod:`letor.protocol` runs the standard LETOR folds (train / validation / test parts) with the
linear learners of :mod:`learners`, choosing the regularization parameter on the validation
part with the selection engine of :mod:`learners`, and writes the comparison report. The
command is ``python -m learners letor`` (console script ``learners letor``).
"""
