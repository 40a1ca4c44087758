"""Tool names across the files of one folder: each must be unique."""

from __future__ import annotations

from collections import defaultdict

from ...diagnostics import Diagnostics, Location


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
                location, f"tool name '{name}' is also defined at {others}"
            )
