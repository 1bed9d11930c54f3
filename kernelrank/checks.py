"""What a command checks before any work (:class:`Checks`, one per subcommand, given to
:func:`kernelrank.cli.run_subcommand`).

Every number of the command line within its bounds (:func:`check_numbers`: finite, in range,
a list at most :data:`kernelrank.grid.MAX_GRID` long — a value far beyond what the work needs
is refused instead of sizing memory or time by it); no output naming an input
(:mod:`kernelrank.paths`: the command's declared inputs are then protected from every atomic
writer while it runs); no ``--output-dir`` naming an existing file
(:func:`check_output_dir`); and no ``-`` for a file (:func:`refuse_standard_streams`).

One rule for ``-``: no command reads its input from standard input or writes an output to
standard output (outputs are written atomically, with reports, summaries and resumable parts
beside them, which a pipe cannot hold), so ``-`` given for any declared input or output is
refused, before any work, on both sides alike — instead of being read or written as a file
named ``-`` in the current folder. A file of that name is still reached as ``./-``.
"""

import math
import os
from dataclasses import dataclass, field

from kernelrank.errors import InvalidParameterError
from kernelrank.grid import MAX_GRID

__all__ = ["COMMON_BOUNDS", "STANDARD_STREAM", "Checks", "check_numbers", "check_output_dir",
           "refuse_standard_streams"]


@dataclass(frozen=True)
class Checks:
    """What :func:`kernelrank.cli.run_subcommand` checks before a subcommand does any work.

    ``paths``: ``paths(args)`` → :class:`kernelrank.paths.PathSpec`, the files and folders
    the subcommand reads and writes (an output naming an input is refused; the inputs are
    protected while it runs). ``bounds``: option destination → ``(low, high)`` or ``(low,
    high, "open")`` (low itself excluded); None for no limit on that side
    (:func:`check_numbers`).
    """

    paths: object = None
    bounds: dict = field(default_factory=dict)


#: bounds of the options :func:`kernelrank.options.add_common` adds (every command has some of them)
COMMON_BOUNDS = {"seed": (0, 2 ** 32 - 1), "jobs": (0, 1024), "threads": (1, 1024)}


def _numbers(value):
    if isinstance(value, (list, tuple)):
        return list(value)
    return [] if value is None else [value]


def check_numbers(parser, args, bounds):
    """Refuse, before any work, a number on the command line that no run can use: each int
    or float option of ``parser`` (the subcommand's) must be finite and within ``bounds``
    (or :data:`COMMON_BOUNDS`); an option without a bound must at least fit in a 64-bit
    integer; a list-valued one holds at most :data:`~kernelrank.grid.MAX_GRID` values. Raises
    :class:`~kernelrank.errors.InvalidParameterError` naming the option and its range."""
    for action in parser._actions:
        if action.type not in (int, float) or not action.option_strings:
            continue
        option = action.option_strings[-1]
        values = _numbers(getattr(args, action.dest, None))
        if len(values) > MAX_GRID:
            raise InvalidParameterError(f"{option}: {len(values)} values; at most {MAX_GRID}")
        bound = bounds.get(action.dest, COMMON_BOUNDS.get(action.dest))
        low, high, open_low = (None, None, False) if bound is None else (
            bound[0], bound[1], len(bound) > 2 and bound[2] == "open")
        for v in values:
            bad = not math.isfinite(v) if isinstance(v, float) else abs(v) >= 2 ** 63
            if not bad and low is not None:
                bad = v <= low if open_low else v < low
            if not bad and high is not None:
                bad = v > high
            if bad:
                if low is None and high is None:
                    what = "a finite number" if action.type is float else "a 64-bit integer"
                else:
                    what = ("a number" if action.type is float else "an integer") + \
                        (f" > {low:,}" if open_low else f" >= {low:,}" if low is not None
                         else "") + (" and" if low is not None and high is not None else "") \
                        + (f" <= {high:,}" if high is not None else "")
                raise InvalidParameterError(f"{option} {v!r}: give {what}")


def check_output_dir(path, option="--output-dir"):
    """Refuse an output folder that exists as something other than a folder (a file): the
    command would fail only after its work, when it writes its report."""
    if path and os.path.exists(path) and not os.path.isdir(path):
        raise InvalidParameterError(f"{option} {path} is an existing file, not a folder; "
                                    "give a folder (it is created if absent)")


#: the name that means standard input or output to the usual Unix command
STANDARD_STREAM = "-"


def refuse_standard_streams(parser, args, spec):
    """Refuse ``-`` (:data:`STANDARD_STREAM`) as the value of an option that ``spec`` (the
    subcommand's :class:`kernelrank.paths.PathSpec`) declares as an input or an output
    (module docstring: no command reads standard input or writes standard output).

    Parameters
    ----------
    parser : argparse.ArgumentParser
        The subcommand's parser (the options the declarations' labels name).
    args : argparse.Namespace
        The parsed arguments.
    spec : kernelrank.paths.PathSpec
        What the subcommand reads and writes (its ``sides``: every label declared, given a
        path or not); a label that is no option of ``parser`` is not checked.

    Raises
    ------
    InvalidParameterError
        Naming the option, the side (input or output) and ``./-`` for a file named ``-``.
    """
    by_option = {o: a for a in parser._actions for o in a.option_strings}
    for label, side in spec.sides.items():
        action = by_option.get(label)
        if action is None:
            continue
        value = getattr(args, action.dest, None)
        values = value if isinstance(value, (list, tuple)) else [value]
        if STANDARD_STREAM not in [str(v) for v in values if v is not None]:
            continue
        if side == "input":
            what = "nothing is read from standard input here"
        else:
            what = ("nothing is written to standard output here (outputs are written "
                    "atomically, with their reports beside them)")
        raise InvalidParameterError(f"{label} -: {what}; give a file or folder name for "
                                    f"this {side} (./- for one named '-')")
    return spec
