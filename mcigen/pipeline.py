"""The stages chained: schema file -> diagnostics and, when clean, the package's files."""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from . import ir
from .diagnostics import Diagnostics, Location
from .frontend.formats import MCI, Format, Reading
from .frontend.source import read_source
from .planner import McpAccess, PlanOptions, plan


@dataclass(frozen=True)
class CompileOptions:
    """How an input is read, planned and emitted; ``list`` uses the first three."""

    source_format: Format = MCI
    whitespace: str = "compat"
    """How directive templates treat whitespace: "compat" (mci-py's) or "trim"."""
    skip_invalid: bool = False
    """Leave out the MTDF tool files that do not load (``--skip-invalid``)."""
    mcp: McpAccess = McpAccess()
    policy: ir.RuntimePolicy = ir.DEFAULT_POLICY
    vendor_runtime: bool = False
    """Copy the runtime into the package (``_runtime/``) instead of importing it."""
    project: bool = False
    """Emit a project holding the package as ``name/`` (``--project``)."""


def plan_schema(
    path: Path, options: CompileOptions = CompileOptions()
) -> tuple[ir.Package | None, Diagnostics]:
    """Frontend and planner: what ``mcigen list`` runs."""
    schema, diagnostics = options.source_format.lower(
        path, Reading(options.whitespace, options.skip_invalid, options.mcp.environment)
    )
    if schema is None:
        return None, diagnostics
    package, planning = plan(
        schema,
        PlanOptions(schema_path=path, whitespace=options.whitespace, mcp=options.mcp),
    )
    diagnostics.extend(planning.items)
    return (None if diagnostics.has_errors else package), diagnostics


def compile_schema(
    path: Path, out_dir: Path, name: str, options: CompileOptions = CompileOptions()
) -> tuple[dict[str, bytes] | None, Diagnostics]:
    """Every stage: the generated files, or None and the diagnostics that stopped it.
    With ``options.project``, ``out_dir`` is a project holding the package as
    ``name/``."""
    # late: only emitting loads the backend (black, jinja2, datamodel-code-generator)
    from .backend import emit
    from .backend.project import plan_project
    from .backend.project_data import DATA_DIR, carried_files

    with _rare_collections():
        package, diagnostics = plan_schema(path, options)
        if package is None:
            return None, diagnostics
        package_dir = out_dir / name if options.project else out_dir
        build_options = ir.BuildOptions(
            name=name,
            schema_dir=(
                DATA_DIR
                if options.project
                else _way_to(path.resolve().parent, package_dir.resolve())
            ),
            whitespace=options.whitespace,
            policy=options.policy,
            vendor_runtime=options.vendor_runtime,
            source_path=Path(
                os.path.relpath(path.resolve(), package_dir.resolve())
            ).as_posix(),
            source_format=options.source_format.name,
            project=options.project,
        )
        wrapper = None
        if options.project:
            wrapper, projecting = plan_project(package, build_options, _locator(path))
            diagnostics.extend(projecting.items)
            if wrapper is None:
                return None, diagnostics
        files, emitting = emit(package, build_options)
    diagnostics.extend(emitting.items)
    if diagnostics.has_errors:
        return None, diagnostics
    if wrapper is None:
        return files, diagnostics
    data, carrying = carried_files(package, path.resolve().parent, out_dir)
    diagnostics.extend(carrying.items)
    return wrapper.files(files | data), diagnostics


def _locator(path: Path) -> Callable[[str], Location]:
    """Where a node of the schema at ``path`` was written, found when asked (only a
    diagnostic asks): the IR keeps no position of metadata."""

    def locate(pointer: str) -> Location:
        document, _ = read_source(path, str(path))
        if document is None:
            return Location(str(path), 1, 1, pointer)
        return document.location(pointer)

    return locate


def _way_to(schema_dir: Path, package_dir: Path) -> str:
    """The schema's directory relative to the package's, ending in the directory's
    name: were it only ``..`` steps, a package copied elsewhere would take some
    ancestor of its own (``/`` at worst) for the schema's directory; this way it
    finds no directory and says so (the runtime's ``path_policy``)."""
    way = Path(os.path.relpath(schema_dir, package_dir))
    if schema_dir.name and all(part == os.pardir for part in way.parts):
        way = way / os.pardir / schema_dir.name
    return way.as_posix()


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
