"""The manifest's ``"servers"`` list: each MCP server the package calls, the group
module that defines how to reach it (its ``SERVERS``), and the environment
variables its settings read, so that a server can be checked before it is started
(``python -m PKG broker``)."""

from __future__ import annotations

from mcigen_runtime.manifest import ServerEntry
from mcigen_runtime.templating.syntax import Template, references

from .. import ir
from .executors.view import env_paths_of


def server_entries(package: ir.Package) -> tuple[ServerEntry, ...]:
    """Each server some enabled tool calls, by name."""
    groups = {
        planned.tool.execution.server_name: planned.group
        for planned in package.tools
        if isinstance(planned.tool.execution, ir.McpExecution)
    }
    return tuple(
        ServerEntry(
            name=server.name,
            group=groups[server.name],
            variables=tuple(sorted(_variables(server.config))),
        )
        for server in sorted(package.schema.mcp_servers, key=lambda s: s.name)
        if server.name in groups
    )


def _variables(value: object) -> set[str]:
    """The names ``env.NAME`` the templates in a server's settings read (strings,
    or templates already parsed, as a broker config's ``${NAME}`` words are)."""
    if isinstance(value, ir.TemplatedString):
        value = value.template
    if isinstance(value, Template):
        paths = [r.path.parts for r in references(value.nodes) if r.path.root == "env"]
    elif isinstance(value, dict):
        return {name for item in value.values() for name in _variables(item)}
    elif isinstance(value, list | tuple):
        return {name for item in value for name in _variables(item)}
    else:
        paths = env_paths_of(value)
    return {path[1] for path in paths if len(path) > 1}
