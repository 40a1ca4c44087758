"""Plain-text tables for command-line listings."""

from __future__ import annotations

from collections.abc import Sequence

from ..printable import printable


def format_table(rows: Sequence[Sequence[str]]) -> str:
    """Left-aligned columns two spaces apart, no trailing spaces; one line per row,
    whatever the names in it hold (see ``printable``)."""
    shown = [[printable(cell) for cell in row] for row in rows]
    widths = [max(len(row[i]) for row in shown) for i in range(len(shown[0]))]
    return "\n".join(
        "  ".join(
            cell.ljust(width) for cell, width in zip(row, widths, strict=True)
        ).rstrip()
        for row in shown
    )
