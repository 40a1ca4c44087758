"""The MCI frontend: read an MCI schema file, validate every field, lower it to the IR.

    schema, diagnostics = load_schema(Path("tools.mci.json"))

Problems are returned as diagnostics, never raised; the schema is None when any of
them is an error.
"""

from __future__ import annotations

from pathlib import Path

from ... import ir
from ...diagnostics import Diagnostics, Level, Location
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
    partial: bool = False,
) -> tuple[ir.Schema | None, Diagnostics]:
    """Load the schema at ``path``, or with ``toolset_file`` a toolset file.

    ``display_name`` is the file name diagnostics print (default: ``str(path)``);
    ``whitespace`` is the mode directive templates are parsed in ("compat" or "trim").
    With ``partial``, a schema whose errors are all inside some of its tools comes
    back without those tools, beside its errors, so that what else is wrong (its
    toolsets, its MCP servers) can be found in the same run.
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
    broken = _broken_tools(diagnostics) if partial else None
    if diagnostics.has_errors and broken is None:
        return None, diagnostics
    lowered = lower_schema(doc, ctx.templates, path.name, toolset_file, broken or ())
    return lowered, diagnostics


def _broken_tools(diagnostics: Diagnostics) -> frozenset[int] | None:
    """The indices of the tools every error is inside; None when one is elsewhere."""
    broken = set()
    for diagnostic in diagnostics.items:
        if diagnostic.level is not Level.ERROR:
            continue
        _, top, index, *_ = [*diagnostic.location.pointer.split("/"), "", "", ""]
        if top != "tools" or not index.isdigit():
            return None
        broken.add(int(index))
    return frozenset(broken)
