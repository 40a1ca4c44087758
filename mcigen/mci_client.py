"""``MCIClient``: mci-py's client, constructor and all, over a compiled package.

``from mcigen import MCIClient`` in place of ``from mcipy import MCIClient``: the
schema is compiled on first use into the build cache (``package_cache``) and every
later process imports the package from there without building. The methods, their
results and their exceptions are those of a generated package's ``Client``. A
schema that does not compile raises ``MCIClientError`` whose first line is the one
mci-py would give, followed by mcigen's diagnostics with file:line:column.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from mcigen_runtime.client import BaseClient, ExecutionResult, MCIClientError
from mcigen_runtime.manifest import MANIFEST, read_manifest
from mcigen_runtime.registry import Registry, registry

from .package_cache import (
    MOST_BYTES,
    BuildFailed,
    Compiling,
    import_package,
    package_for,
)

_CALLING = Compiling(calls=True)
"""A client calls its tools: its build leaves the MCP servers it lists running
for them."""
_CHECKED = "mci_checked"
"""The name a validating client's package would have: it is never written."""

__all__ = ["MCIClient", "MCIClientError"]


class MCIClient(BaseClient):
    """mci-py's ``MCIClient``: the tools of the schema at ``schema_file_path``, with
    ``env_vars`` for their templates. ``validating=True`` checks the schema
    without starting an MCP server or writing a file, and refuses ``execute``.
    ``pass_env`` (not mci-py's) lets the process's environment through to the
    commands of cli tools: ``True`` for all of it, as mci-py gives it them, or
    the names of the variables to pass."""

    def __init__(
        self,
        schema_file_path: str | None = None,
        env_vars: Mapping[str, Any] | None = None,
        json_file_path: str | None = None,
        validating: bool = False,
        pass_env: bool | Iterable[str] = False,
    ) -> None:
        path = schema_file_path if schema_file_path is not None else json_file_path
        if path is None:
            raise MCIClientError(
                "Either 'schema_file_path' or 'json_file_path' must be provided"
            )
        environment = {name: str(value) for name, value in (env_vars or {}).items()}
        try:
            if validating:
                self._registry = _checked(Path(path), environment)
            else:
                package = package_for(Path(path), True, environment, _CALLING)
                import_package(package)
                self._registry = registry(package.name)
        except BuildFailed as failure:
            raise MCIClientError(_refusal(path, failure)) from None
        except OSError:
            raise MCIClientError(_refusal(path, None)) from None
        self._validating = validating
        super().__init__(
            env_vars, base_dir=str(Path(path).resolve().parent), pass_env=pass_env
        )

    def execute(
        self, tool_name: str, properties: Mapping[str, Any] | None = None
    ) -> ExecutionResult:
        if self._validating:
            raise MCIClientError(
                "Tool execution is disabled in validating mode. "
                "Initialize MCIClient with validating=False to execute tools."
            )
        return super().execute(tool_name, properties)


def _checked(schema: Path, environment: Mapping[str, str]) -> Registry:
    """The tools of ``schema`` as ``mcigen check --no-connect`` sees them, compiled
    in memory: no server started, no file written (the build cache only read)."""
    from . import build_cache
    from .input_file import read_input
    from .pipeline import CompileOptions, compile_schema
    from .planner import McpAccess, McpMode

    read_input(schema, MOST_BYTES)  # an OSError, as package_for raises it
    options = CompileOptions(
        mcp=McpAccess(mode=McpMode.NO_CONNECT, environment=environment)
    )
    with build_cache.unwritten():
        files, diagnostics = compile_schema(schema, schema.parent, _CHECKED, options)
    if files is None:
        raise BuildFailed(diagnostics)
    manifest = read_manifest(files[MANIFEST])
    return Registry(_CHECKED, manifest.metadata, manifest.tools, manifest.tree)


def _refusal(path: str, failure: BuildFailed | None) -> str:
    """mci-py's words, then every diagnostic with its file:line:column (the
    modules that word it are loaded only for a refusal)."""
    from .diagnostics import Level
    from .mcipy_wording import load_failure

    if failure is None:  # the schema file could not be read
        return load_failure(path, None)
    errors = [d for d in failure.diagnostics.sorted() if d.level is Level.ERROR]
    # mci-py reads the schema whole before its toolsets: its errors come first
    own = str(Path(path).resolve())
    first = next((d for d in errors if d.location.file == own), None)
    first = first or (errors[0] if errors else None)
    return f"{load_failure(path, first)}\n{failure.diagnostics.render()}"
