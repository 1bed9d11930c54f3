"""Typed errors shared by every kernelrank package.

Every error a user can provoke with bad input derives from :class:`KernelrankError`, so a
pipeline can catch the whole family with one ``except``; each one also derives from the
closest built-in (``ValueError``, ``FileNotFoundError``) so generic handlers keep working.
Messages name the offending parameter, file, line or id and say what to do.

Warnings (not errors: scikit-learn's estimator contract fits degenerate data without
raising) derive from :class:`UserWarning`: :class:`NoPreferenceWarning`.
"""


class KernelrankError(Exception):
    """Base class of every error raised deliberately by kernelrank."""


class InvalidInputError(KernelrankError, ValueError):
    """Input data are unusable: NaN/inf, mismatched lengths, empty groups, bad indices."""


class InvalidParameterError(KernelrankError, ValueError):
    """A hyper-parameter or keyword argument is unknown or has a bad value."""


class UndefinedMeasureError(KernelrankError, ValueError):
    """A performance measure is undefined for the given labels (e.g. AUC with one class)."""


class CorpusFormatError(KernelrankError, ValueError):
    """A data file is malformed; the message names the file and the line or record id."""

    def __init__(self, message, *, path=None, line=None, record=None):
        where = []
        if path is not None:
            where.append(str(path))
        if line is not None:
            where.append(f"line {line}")
        if record is not None:
            where.append(f"record {record!r}")
        prefix = (", ".join(where) + ": ") if where else ""
        super().__init__(prefix + message)
        self.path, self.line, self.record = path, line, record


class DataNotFoundError(KernelrankError, FileNotFoundError):
    """A data set or file is missing; the message says how to obtain it."""


class ChecksumMismatchError(KernelrankError):
    """A downloaded or cached file does not have the expected checksum."""


class OutputLockedError(KernelrankError):
    """Another run is writing the same output (it holds ``<output>.lock``); the message
    names its PID, host, start time and command line."""


class ClusterError(KernelrankError):
    """A Dask scheduler cannot be reached, its address is malformed, or the cluster failed
    in the middle of a run (the message says what is kept and how to resume)."""


class PipelineError(KernelrankError, ValueError):
    """A spaCy pipeline or one of its documents lacks what a kernelrank component needs
    (e.g. a dependency parser before ``kernelrank_ppi``); the message says what is missing
    and how to add it."""


class NumericalError(KernelrankError, ArithmeticError):
    """A computation overflowed or produced non-finite values (NaN, inf) from finite input;
    the message names the estimator, the step and the likely cause (unscaled features, an
    extreme λ, an indefinite or huge precomputed kernel)."""


class InputOverwriteError(KernelrankError, ValueError):
    """An output of a command names one of its inputs (the same file, also through a link,
    or a path inside an input folder): refused before any work, nothing is written
    (:mod:`kernelrank.paths`)."""


class UnsaveableError(KernelrankError, ValueError):
    """What a command would save could not be loaded back (a degenerate fit: no threshold,
    one class, non-finite values); nothing is saved, the message says what to change."""


class ConcurrentChangeError(KernelrankError):
    """A file or directory kept changing while it was read (another run is replacing it);
    nothing was read — retry when that run has finished (:func:`kernelrank.atomic.
    read_consistently`)."""


class NoPreferenceWarning(UserWarning):
    """A ranker was fitted on data without a single preference pair — one sample, every
    query a single row, or equal scores inside every query: nothing could be learnt, and the
    model gives every input the same score. The message names the estimator and the reason
    (:func:`learners._validation.warn_without_preference`)."""
