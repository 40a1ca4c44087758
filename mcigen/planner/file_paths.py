"""File tools whose path holds no placeholder name one file, known at build time:
one that is not there is a warning (mci-py builds it too; every call fails until the
file is there, or ``MCIGEN_BASE_DIR`` names a directory that has it)."""

from __future__ import annotations

from pathlib import Path

from mcigen_runtime.templating.syntax import Text

from .. import ir
from ..diagnostics import Diagnostics, quoted


def check_static_file_paths(
    tools: list[ir.Tool], schema_dir: Path, diagnostics: Diagnostics
) -> None:
    """``schema_dir``: where relative paths are taken from, as the package does."""
    for tool in tools:
        execution = tool.execution
        if not isinstance(execution, ir.FileExecution):
            continue
        path = execution.path
        if not all(isinstance(node, Text) for node in path.template.nodes):
            continue
        if not path.raw or (schema_dir / path.raw).is_file():
            continue
        relative = (
            ""
            if Path(path.raw).is_absolute()
            else f" (relative to the schema's directory, {schema_dir})"
        )
        diagnostics.warning(
            path.location,
            f"file tool {quoted(tool.name)} reads {quoted(path.raw)}, which is not a "
            f"file{relative}: every call fails until it is there",
        )
