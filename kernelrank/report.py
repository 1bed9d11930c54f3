"""Result reports shared by every command: JSON for programs, Markdown (+ PNG plots) for people.

A report directory holds ``<name>.json`` and ``<name>.md`` (and any PNG the command adds),
all written atomically (:mod:`kernelrank.atomic`).
"""

import math
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
