"""Result reports shared by every command: JSON for programs, Markdown (+ PNG plots) for people.

A report directory holds ``<name>.json`` and ``<name>.md`` (and any PNG the command adds),
all written atomically (:mod:`kernelrank.atomic`).
"""

import math
import os
from pathlib import Path

from kernelrank.atomic import write_json, write_text


def format_value(value, digits=3):
    """Human-readable cell: floats to ``digits`` decimals, None/NaN as an en dash."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return "–" if math.isnan(value) else f"{value:.{digits}f}"
    return str(value)


def markdown_table(rows, columns, headers=None, digits=3):
    """A GitHub-flavoured Markdown table.

    Parameters
    ----------
    rows : iterable of dict
    columns : list of str
        Keys of each row, in column order.
    headers : list of str, optional
        Column titles (default: the keys).
    """
    headers = headers or columns
    lines = ["| " + " | ".join(headers) + " |",
             "|" + "|".join("---" for _ in headers) + "|"]
    for row in rows:
        lines.append("| " + " | ".join(format_value(row.get(c), digits) for c in columns) + " |")
    return "\n".join(lines) + "\n"


def write_report(output_dir, name, results, markdown):
    """Write ``results`` as ``<output_dir>/<name>.json`` and ``markdown`` as ``<name>.md``.

    Returns the two paths.
    """
    output_dir = Path(output_dir)
    json_path, md_path = output_dir / f"{name}.json", output_dir / f"{name}.md"
    write_json(json_path, results)
    write_text(md_path, markdown)
    return json_path, md_path


def markdown_image(path, caption=None, start=None):
    """``![caption](path)``, the path relative to ``start`` (the Markdown file's folder;
    default: the file name alone). ``caption`` defaults to the file's stem."""
    path = Path(path)
    target = path.name if start is None else Path(os.path.relpath(path, start)).as_posix()
    return f"![{caption or path.stem}]({target})"


def markdown_images(paths, start=None):
    """Markdown lines embedding each PNG of ``paths`` (an image, then a blank line), relative
    to ``start`` as in :func:`markdown_image`."""
    return [line for p in paths for line in (markdown_image(p, start=start), "")]


def format_duration(seconds):
    """``12.3 s`` below a minute, else ``m:ss`` or ``h:mm:ss``."""
    if seconds < 60:
        return f"{seconds:.1f} s"
    s = int(round(seconds))
    h, m = divmod(s // 60, 60)
    return f"{h}:{m:02d}:{s % 60:02d}" if h else f"{m}:{s % 60:02d}"


def pyplot():
    """``matplotlib.pyplot`` on the non-interactive Agg backend (imported on first use: a
    command that draws nothing loads no matplotlib; no screen is needed)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt
