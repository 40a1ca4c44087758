"""Build-time facts stay at build time: the runtime reads the example arguments the
compiler wrote, and imports nothing that only computing or checking them needs."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import mcigen_runtime

BUILD_ONLY = ("jsonschema", "referencing", "re._parser", "sre_parse")


def imported_modules(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def test_the_runtime_imports_no_module_only_the_build_needs() -> None:
    found = []
    for path in sorted(Path(mcigen_runtime.__file__).parent.rglob("*.py")):
        for module in imported_modules(ast.parse(path.read_bytes())):
            if any(module == m or module.startswith(f"{m}.") for m in BUILD_ONLY):
                found.append(f"{path.name}: {module}")
    assert found == []
