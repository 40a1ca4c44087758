"""What a call of ``execute`` becomes: each tool's function and the keyword each of
its properties is passed as, named as the compiler names them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import ir


@dataclass(frozen=True)
class Target:
    function: str
    keywords: Mapping[str, str] | None
    """Property -> keyword parameter; None when the function takes ``**props``
    (the tool declares no properties)."""


def targets(package: ir.Package) -> dict[str, Target]:
    """Every tool of ``package`` by its MCI name."""
    return {
        planned.tool.name: Target(
            planned.python_name,
            (
                None
                if planned.parameters is None
                else {p.name: p.python_name for p in planned.parameters}
            ),
        )
        for planned in package.tools
    }
