"""The grid syntax of every list-of-numbers option (``--alphas``, ``--gammas``, …).

One syntax everywhere, parsed by :func:`parse_grid` — numbers, powers ``B^E`` and ranges of
powers ``B^a..B^b[:s]`` — and described once, in :data:`GRID_SYNTAX`, which every grid
option's help quotes (:func:`kernelrank.options.add_alphas`).  A grid holds at most
:data:`MAX_GRID` values, counted before any is built.
"""

import math
import re

from kernelrank.errors import InvalidParameterError

__all__ = ["parse_grid", "GRID_SYNTAX", "MAX_GRID"]

#: the grid syntax, as every grid option's help says it
GRID_SYNTAX = ("comma-separated positive numbers: 0.5, 1e-3, powers 2^-10, ranges of powers "
               "2^-10..2^10 (every power) or 2^-8..2^16:2 (every second one)")


_NUMBER = r"[0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?"
_POWER = re.compile(rf"({_NUMBER})\^([+-]?[0-9]+)")


def _power(token, text, option):
    m = _POWER.fullmatch(token)
    if m is None:
        raise InvalidParameterError(f"{option} {text!r}: {token!r} is not a power such as "
                                    "2^-10")
    if len(m.group(2).lstrip("+-")) > 6:          # far beyond any float's range
        raise InvalidParameterError(f"{option} {text!r}: the exponent of {token!r} is out "
                                    "of range (a grid value is a finite positive number)")
    return float(m.group(1)), int(m.group(2))


#: the most values a grid (or any list-valued number option) may hold: every value costs at
#: least one fit or one solve, and 1,000 already exceeds any published grid a hundredfold
MAX_GRID = 1000


def _pow(base, exp, text, option):
    try:
        return base ** exp
    except (OverflowError, ZeroDivisionError):
        raise InvalidParameterError(f"{option} {text!r}: {base:g}^{exp} is not a finite "
                                    f"positive number ({GRID_SYNTAX})") from None


def parse_grid(text, option="--alphas", *, allow_zero=False):
    """A grid of regularization parameters from its command-line text.

    Syntax: comma-separated items, each a number (``0.5``, ``1e-3``), a power ``B^E``
    (``2^-10``), or a range of powers ``B^a..B^b`` (every power from a to b) or
    ``B^a..B^b:s`` (every s-th): ``2^-8..2^16:2`` = 2^-8, 2^-6, …, 2^16 — exactly
    ``2.0 ** numpy.arange(-8, 17, 2)``.

    Returns a tuple of floats in the order given. Raises
    :class:`~kernelrank.errors.InvalidParameterError` (naming ``option``) on anything else,
    on an empty grid, on a grid of more than :data:`MAX_GRID` values (counted before any is
    built: ``2^-100000..2^100000`` is refused at once), and on values that are not positive
    and finite (zero allowed with ``allow_zero``, e.g. for a co-regularisation weight μ) —
    a power that overflows or divides by zero included.
    """
    values = []
    items = [item.replace(" ", "") for item in str(text).split(",")]
    if len(items) > MAX_GRID:
        raise InvalidParameterError(f"{option}: {len(items)} values; a grid holds at most "
                                    f"{MAX_GRID}")
    for item in items:
        if not item:
            continue
        if ".." in item:
            lo, _, rest = item.partition("..")
            hi, _, step = rest.partition(":")
            (b1, e1), (b2, e2) = _power(lo, text, option), _power(hi, text, option)
            if b1 != b2 or e2 < e1 or (step and (not step.isdigit() or int(step) < 1)):
                raise InvalidParameterError(
                    f"{option} {text!r}: a range is B^a..B^b[:step] with one base B, a <= b "
                    "and a positive integer step")
            count = (e2 - e1) // int(step or 1) + 1
            if len(values) + count > MAX_GRID:
                raise InvalidParameterError(
                    f"{option} {text!r}: the range {item} holds {count:,} values; a grid "
                    f"holds at most {MAX_GRID} (use a step, B^a..B^b:s)")
            values += [_pow(b1, e, text, option) for e in range(e1, e2 + 1, int(step or 1))]
        elif "^" in item:
            base, exp = _power(item, text, option)
            values.append(_pow(base, exp, text, option))
        else:
            try:
                values.append(float(item))
            except ValueError:
                raise InvalidParameterError(
                    f"{option} {text!r}: {item!r} is not a number ({GRID_SYNTAX})") from None
    low_ok = (lambda v: v >= 0) if allow_zero else (lambda v: v > 0)
    if not values or not all(math.isfinite(v) and low_ok(v) for v in values):
        raise InvalidParameterError(
            f"{option} must be {'non-negative' if allow_zero else 'positive'} finite "
            f"numbers, got {text!r} ({GRID_SYNTAX})")
    return tuple(values)
