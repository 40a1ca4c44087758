"""Names made distinct by a counter, the one rule every stage names things by."""

from __future__ import annotations


def unique(name: str, taken: set[str], separator: str = "_") -> str:
    """``name``, or ``name_2``, ``name_3``... whichever is not in ``taken``; records it."""
    candidate, counter = name, 1
    while candidate in taken:
        counter += 1
        candidate = f"{name}{separator}{counter}"
    taken.add(candidate)
    return candidate
