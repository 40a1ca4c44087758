"""Import blocks for generated modules, laid out as isort/ruff lay them out."""

from __future__ import annotations

import sys
from collections.abc import Iterable

_STDLIB = frozenset(sys.stdlib_module_names)


def name_order(imported: str) -> tuple[int, str]:
    # ruff's order-by-type: CONSTANTS, then Classes, then everything else.
    name = imported.split(" as ")[0]
    if name.isupper() and len(name) > 1:
        return (0, name)
    return (1, name) if name[:1].isupper() else (2, name)


def import_block(imports: Iterable[tuple[str, str]]) -> str:
    """``from module import names`` lines grouped future/stdlib/third-party/relative."""
    by_module: dict[str, set[str]] = {}
    for module, name in imports:
        by_module.setdefault(module, set()).add(name)
    sections: list[list[str]] = [[], [], [], []]
    for module in sorted(by_module, key=_module_key):
        plain = sorted(
            (n for n in by_module[module] if " as " not in n), key=name_order
        )
        lines = [
            (n, f"from {module} import {n}") for n in by_module[module] if " as " in n
        ]
        if plain:
            lines.append((plain[0], f"from {module} import {', '.join(plain)}"))
        sections[_section(module)].extend(
            line for _, line in sorted(lines, key=lambda x: name_order(x[0]))
        )
    return "\n\n".join("\n".join(lines) for lines in sections if lines)


def _section(module: str) -> int:
    if module == "__future__":
        return 0
    if module.startswith("."):
        return 3
    return 1 if module in _STDLIB or module.split(".")[0] in _STDLIB else 2


def _module_key(module: str) -> tuple[int, str]:
    # Relative imports: ruff puts the more distant parents first ("..x" before ".x").
    dots = len(module) - len(module.lstrip("."))
    return (-dots, module.lstrip(".").lower())
