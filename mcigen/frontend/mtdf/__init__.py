"""The MTDF frontend: Ahma's tool files (MCP Tool Definition Format), read and checked.

    diagnostics = check_mtdf(Path(".ahma"))

Every problem of every file comes back at once, in file order; none is raised.
"""

from __future__ import annotations

from pathlib import Path

from ...diagnostics import Diagnostics, Location
from ..context import Context
from ..source import read_source
from .layout import TOOL_FILE_SUFFIX, holds_mtdf, tool_files
from .names import check_unique_names
from .rules import check_rules
from .shape import check_shape

__all__ = ["check_mtdf", "holds_mtdf"]


def check_mtdf(path: Path) -> Diagnostics:
    diagnostics = Diagnostics()
    try:
        files = tool_files(path)
    except OSError as error:
        diagnostics.error(
            Location(str(path), 1, 1),
            f"cannot read the folder: {error.strerror or error}",
        )
        return diagnostics
    if not files:
        diagnostics.error(
            Location(str(path), 1, 1), "the folder holds no MTDF tool files (*.json)"
        )
    names: list[tuple[str, Location]] = []
    for file in files:
        names += _check_file(file, diagnostics)
    check_unique_names(names, diagnostics)
    return Diagnostics(diagnostics.sorted())


def _check_file(file: Path, diagnostics: Diagnostics) -> list[tuple[str, Location]]:
    """Check one tool file into ``diagnostics``; its tool's name and where it is."""
    display = str(file)
    if file.suffix != TOOL_FILE_SUFFIX:
        diagnostics.error(
            Location(display, 1, 1), "an MTDF tool file is JSON and ends in .json"
        )
        return []
    doc, reading = read_source(file, display)
    diagnostics.extend(reading.items)
    if doc is None:
        return []
    ctx = Context(doc, diagnostics)
    try:
        check_shape(ctx)
        check_rules(ctx)
    except RecursionError:
        diagnostics.error(Location(display, 1, 1), "tool file is nested too deeply")
    tool = doc.data
    name = tool.get("name") if isinstance(tool, dict) else None
    return [(name, doc.location("/name"))] if isinstance(name, str) and name else []
