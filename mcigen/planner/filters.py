"""The ``filter`` / ``filterValue`` pair of toolset references and MCP servers,
and the glob filter a broker config's ``tool_filter`` is (``filter: glob`` in MCI,
an mcigen extension)."""

from __future__ import annotations

from collections.abc import Iterable
from fnmatch import fnmatchcase

from .. import ir
from ..diagnostics import Diagnostics, Location, did_you_mean, quoted


def filter_items(value: str) -> list[str]:
    """``"a, b,,c"`` -> ``["a", "b", "c"]``: comma-separated, trimmed, blanks dropped."""
    return [item.strip() for item in value.split(",") if item.strip()]


GLOB = "glob"
DENY = "!"


def glob_allows(name: str, patterns: Iterable[str]) -> bool:
    """pyMCPBroker's rule: ``!pattern`` denies; any other pattern allows, and
    when there is one, a name must match one to be allowed; order does not matter."""
    allowing, denying = [], []
    for pattern in patterns:
        if pattern.startswith(DENY):
            denying.append(pattern[len(DENY) :])
        else:
            allowing.append(pattern)
    if allowing and not any(fnmatchcase(name, p) for p in allowing):
        return False
    return not any(fnmatchcase(name, p) for p in denying)


def apply_filter(
    tools: list[ir.Tool] | None,
    kind: str | None,
    value: str | None,
    location: Location,
    diagnostics: Diagnostics,
) -> list[ir.Tool]:
    """The tools a filter keeps; none when ``tools`` are unknown (None), after
    checking the filter itself. The frontend has checked that ``kind`` is a known
    filter and that ``value`` is given with it; names that match no known tool get
    a warning, since a misspelt ``only`` silently drops everything."""
    if kind is None or value is None:
        return tools or []
    items = filter_items(value)
    if not items:
        diagnostics.error(
            location, f"'filterValue' of filter {quoted(kind)} names nothing"
        )
    if tools is None or not items:
        return tools or []
    if kind == GLOB:
        return [tool for tool in tools if glob_allows(tool.name, items)]
    wanted = set(items)
    if kind in ("only", "except"):
        names = [tool.name for tool in tools]
        for item in items:
            if item not in names:
                diagnostics.warning(
                    location,
                    f"filter {quoted(kind)} names tool {quoted(item)}, which is not there"
                    f"{did_you_mean(item, names)}",
                )
        keep_named = kind == "only"
        return [tool for tool in tools if (tool.name in wanted) == keep_named]
    keep_tagged = kind == "tags"
    return [
        tool for tool in tools if bool(wanted.intersection(tool.tags)) == keep_tagged
    ]
