"""The manifest's ``"servers"`` list: each MCP server the package calls, the group
module that defines how to reach it (its ``SERVERS``), and the environment
variables its settings read, so that a server can be checked before it is started
(``python -m PKG broker``)."""

from __future__ import annotations

from mcigen_runtime.manifest import ServerEntry

from .. import ir
from .tool_env import server_env


def server_entries(package: ir.Package) -> tuple[ServerEntry, ...]:
    """Each server some enabled tool calls, by name."""
    groups = {
        planned.tool.execution.server_name: planned.group
        for planned in package.tools
        if isinstance(planned.tool.execution, ir.McpExecution)
    }
    variables = server_env(package)
    return tuple(
        ServerEntry(
            name=server.name,
            group=groups[server.name],
            variables=tuple(use.name for use in variables[server.name]),
        )
        for server in sorted(package.schema.mcp_servers, key=lambda s: s.name)
        if server.name in groups
    )
