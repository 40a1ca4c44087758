"""The MCI frontend: read an MCI schema file, validate every field, lower it to the IR.

    schema, diagnostics = load_schema(Path("tools.mci.json"))

Problems are returned as diagnostics, never raised; the schema is None when any of
them is an error.
"""

from __future__ import annotations

from pathlib import Path

from ... import ir
from ...diagnostics import Diagnostics, Location
from ..source import read_source
from .lower import lower_schema
from .validate import validate

__all__ = ["load_schema"]


def load_schema(
    path: Path,
    *,
    display_name: str | None = None,
    toolset_file: bool = False,
    whitespace: str = "compat",
) -> tuple[ir.Schema | None, Diagnostics]:
    """Load the schema at ``path``, or with ``toolset_file`` a toolset file.

    ``display_name`` is the file name diagnostics print (default: ``str(path)``);
    ``whitespace`` is the mode directive templates are parsed in ("compat" or "trim").
    Diagnostics come back in file order.
    """
    file = str(path) if display_name is None else display_name
    doc, diagnostics = read_source(path, file)
    if doc is None:
        return None, diagnostics
    try:
        ctx = validate(doc, toolset_file=toolset_file, whitespace=whitespace)
    except RecursionError:
        diagnostics.error(Location(file, 1, 1), "schema file is nested too deeply")
        return None, diagnostics
    diagnostics = Diagnostics(ctx.diagnostics.sorted())
    if diagnostics.has_errors:
        return None, diagnostics
    return lower_schema(doc, ctx.templates, path.name, toolset_file), diagnostics
