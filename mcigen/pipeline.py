"""The stages chained: schema file -> diagnostics and, when clean, the package's files."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from . import ir
from .backend import emit
from .diagnostics import Diagnostics
from .frontend import load_schema
from .planner import McpMode, PlanOptions, plan


def plan_schema(
    path: Path, whitespace: str = "compat", mcp_mode: McpMode = McpMode.CACHE
) -> tuple[ir.Package | None, Diagnostics]:
    """Frontend and planner: what ``mcigen check`` and ``mcigen list`` run."""
    schema, diagnostics = load_schema(
        path, display_name=str(path), whitespace=whitespace
    )
    if schema is None:
        return None, diagnostics
    package, planning = plan(schema, PlanOptions(path, whitespace, mcp_mode))
    diagnostics.extend(planning.items)
    return (None if diagnostics.has_errors else package), diagnostics


def compile_schema(
    path: Path,
    out_dir: Path,
    name: str,
    whitespace: str = "compat",
    mcp_mode: McpMode = McpMode.CACHE,
    policy: ir.RuntimePolicy = ir.DEFAULT_POLICY,
) -> tuple[dict[str, bytes] | None, Diagnostics]:
    """Every stage: the generated files, or None and the diagnostics that stopped it."""
    with _rare_collections():
        package, diagnostics = plan_schema(path, whitespace, mcp_mode)
        if package is None:
            return None, diagnostics
        schema_dir = os.path.relpath(path.resolve().parent, out_dir.resolve())
        options = ir.BuildOptions(name, Path(schema_dir).as_posix(), whitespace, policy)
        files, emitting = emit(package, options)
    diagnostics.extend(emitting.items)
    return (None if diagnostics.has_errors else files), diagnostics


@contextmanager
def _rare_collections() -> Iterator[None]:
    """The garbage collector run every 50,000 allocations instead of 700: a build
    allocates millions of objects that live until it ends, and collecting them that
    often costs a sixth of a 1000-tool build (more at 5000)."""
    threshold = gc.get_threshold()
    gc.set_threshold(50_000, *threshold[1:])
    try:
        yield
    finally:
        gc.set_threshold(*threshold)
