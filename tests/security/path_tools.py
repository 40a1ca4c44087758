"""File and cli tools taking one path-like property ``name``, and a package of them,
shared by the call-time path tests (races, bounds, base directory)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import Any

from .support import built_and_imported

NAMED = {"type": "object", "properties": {"name": {"type": "string"}}}


def file_tool(name: str, path: str, *, templating: bool = True, **fields: Any) -> Any:
    """A file tool reading ``path`` (a template over ``props.name``)."""
    execution: dict[str, Any] = {"type": "file", "path": path}
    if not templating:
        execution["enableTemplating"] = False
    return {"name": name, "inputSchema": NAMED, "execution": execution, **fields}


def cli_tool(name: str, argv: list[str], cwd: str, **fields: Any) -> Any:
    """A cli tool running ``argv`` in ``cwd`` (a template over ``props.name``)."""
    execution = {"type": "cli", "command": argv[0], "args": argv[1:], "cwd": cwd}
    return {"name": name, "inputSchema": NAMED, "execution": execution, **fields}


@contextmanager
def package_of(directory: Path, tools: list[Any]) -> Iterator[ModuleType]:
    """The tools built from a schema in ``directory`` into ``directory``/pkg, imported."""
    with built_and_imported(
        directory, {"schemaVersion": "1.0", "tools": tools}
    ) as package:
        yield package
