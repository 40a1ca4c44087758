"""Tool names across the files of one folder, and the tools one file lists: each
must be unique."""

from __future__ import annotations

from collections import defaultdict

from ...diagnostics import Diagnostics, Location, quoted
from .flatten import MtdfTool


def check_unique_names(
    names: list[tuple[str, Location]], diagnostics: Diagnostics
) -> None:
    """An error at every place a name is defined that is defined elsewhere too
    (Ahma keeps whichever file it reads last)."""
    places: dict[str, list[Location]] = defaultdict(list)
    for name, location in names:
        places[name].append(location)
    for name, locations in places.items():
        for location in locations if len(locations) > 1 else ():
            others = ", ".join(str(other) for other in locations if other != location)
            diagnostics.error(
                location, f"tool name {quoted(name)} is also defined at {others}"
            )


def check_unique_tools(tools: list[MtdfTool], diagnostics: Diagnostics) -> None:
    """An error at every tool of one file listed under a name an earlier one has
    (``a_b`` and ``a`` > ``b`` both flatten to ``{tool}_a_b``)."""
    first: dict[str, MtdfTool] = {}
    for tool in tools:
        other = first.setdefault(tool.name, tool)
        if other is not tool:
            diagnostics.error(
                tool.location,
                f"tool {quoted(tool.name)} is also listed for {other.location}; "
                "tool names must be unique",
            )
