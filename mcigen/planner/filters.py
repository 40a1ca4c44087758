"""The ``filter`` / ``filterValue`` pair of toolset references and MCP servers."""

from __future__ import annotations

from .. import ir
from ..diagnostics import Diagnostics, Location, did_you_mean


def filter_items(value: str) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``: comma-separated, trimmed, blanks dropped."""
    return [item.strip() for item in value.split(",") if item.strip()]


def apply_filter(
    tools: list[ir.Tool],
    kind: str | None,
    value: str | None,
    location: Location,
    diagnostics: Diagnostics,
) -> list[ir.Tool]:
    """The tools a filter keeps. The frontend has checked that ``kind`` is a known
    filter and that ``value`` is given with it; names that match no tool get a
    warning, since a misspelt ``only`` silently drops everything."""
    if kind is None or value is None:
        return tools
    items = filter_items(value)
    if not items:
        diagnostics.error(location, f"'filterValue' of filter '{kind}' names nothing")
        return tools
    wanted = set(items)
    if kind in ("only", "except"):
        names = [tool.name for tool in tools]
        for item in items:
            if item not in names:
                diagnostics.warning(
                    location,
                    f"filter '{kind}' names tool '{item}', which is not there"
                    f"{did_you_mean(item, names)}",
                )
        keep_named = kind == "only"
        return [tool for tool in tools if (tool.name in wanted) == keep_named]
    keep_tagged = kind == "tags"
    return [
        tool for tool in tools if bool(wanted.intersection(tool.tags)) == keep_tagged
    ]
