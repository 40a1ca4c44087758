"""The environment variables a file's template may read: the ones the schema names.

A file read by a file tool may be written by someone else (a user, an agent); its
template sees only the variables some template of the package names, in any field
of any tool or MCP server, plus those the build allows with ``--file-env``. The
schema's own templates see the whole environment, as before.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from mcigen_runtime.templating.syntax import Template, references

from .. import ir
from .executors.view import env_paths_of


def file_env_names(package: ir.Package, allowed: Iterable[str]) -> tuple[str, ...]:
    """Every name ``env.NAME`` the package's templates read, and ``allowed``, sorted."""
    paths = [p for planned in package.tools for p in _paths(planned.tool.execution)]
    for server in package.schema.mcp_servers:
        paths += env_paths_of(server.config)
    return tuple(sorted({*allowed, *(path[1] for path in paths if len(path) > 1)}))


def _paths(execution: ir.Execution) -> Iterator[tuple[str, ...]]:
    if isinstance(execution, ir.TextExecution):
        yield from _template_paths(execution.text.template)
    elif isinstance(execution, ir.FileExecution):
        yield from _template_paths(execution.path.template)
    elif isinstance(execution, ir.CliExecution):
        yield from env_paths_of(
            [execution.command, *execution.args, execution.cwd or ""]
        )
    elif isinstance(execution, ir.HttpExecution):
        yield from _template_paths(execution.url.template)
        auth = execution.auth.fields if execution.auth else {}
        fields = [execution.headers, execution.params, execution.body_content, auth]
        yield from env_paths_of(fields)


def _template_paths(template: Template) -> Iterator[tuple[str, ...]]:
    return (r.path.parts for r in references(template.nodes) if r.path.root == "env")
