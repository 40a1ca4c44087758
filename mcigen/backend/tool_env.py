"""The environment variables each tool reads, for the manifest: where in the tool
each is read, and whether a call fails without it.

A variable is required when some placeholder reads nothing but variables
(``{{env.API_KEY}}``, ``{{env.TOKEN | env.GH_TOKEN}}``); one read only with a
fallback (``{{env.REGION | 'eu'}}``, ``{{props.token | env.TOKEN}}``), in an
``@if``, a loop, or the body of either is optional. An
MCP tool reads what its server's settings read; a sequence what its steps read.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from mcigen_runtime.manifest import EnvUse
from mcigen_runtime.templating.parser import parse_native, parse_template
from mcigen_runtime.templating.syntax import (
    For,
    Foreach,
    If,
    Node,
    PathRef,
    Placeholder,
    Template,
)

from .. import ir

Read = tuple[str, bool]
"""A variable's name and whether that reading of it is required."""


def tool_env(package: ir.Package) -> dict[str, tuple[EnvUse, ...]]:
    """Each tool's variables by tool name, sorted by variable name."""
    servers = {server.name: server.config for server in package.schema.mcp_servers}
    own = {
        planned.tool.name: _fields(planned.tool.execution, servers)
        for planned in package.tools
    }
    uses: dict[str, tuple[EnvUse, ...]] = {}
    for planned in package.tools:
        execution = planned.tool.execution
        fields = own[planned.tool.name]
        if isinstance(execution, ir.SequenceExecution):
            fields = {}
            for step in execution.steps:
                for field, reads in own.get(step.tool, {}).items():
                    fields.setdefault(f"{step.tool} {field}", []).extend(reads)
        uses[planned.tool.name] = _uses(fields)
    return uses


def server_env(package: ir.Package) -> dict[str, tuple[EnvUse, ...]]:
    """The variables each MCP server's settings read, by server name (whether or
    not a tool of the package calls it)."""
    return {
        server.name: _uses({"": list(_reads(server.config))})
        for server in package.schema.mcp_servers
    }


def _uses(fields: Mapping[str, list[Read]]) -> tuple[EnvUse, ...]:
    required: dict[str, bool] = {}
    where: dict[str, list[str]] = {}
    for field, reads in fields.items():
        for name, needed in reads:
            required[name] = required.get(name, False) or needed
            if field not in where.setdefault(name, []):
                where[name].append(field)
    return tuple(
        EnvUse(name, required[name], tuple(f for f in where[name] if f))
        for name in sorted(required)
    )


def _fields(
    execution: ir.Execution, servers: Mapping[str, object]
) -> dict[str, list[Read]]:
    """The variables each templated field of ``execution`` reads."""
    if isinstance(execution, ir.TextExecution):
        return {"text": list(_reads(execution.text))}
    if isinstance(execution, ir.FileExecution):
        return {"path": list(_reads(execution.path))}
    if isinstance(execution, ir.CliExecution):
        if not execution.templated:
            return {}
        return {
            "command": list(_reads(execution.command)),
            "args": list(_reads(list(execution.args))),
            "cwd": list(_reads(execution.cwd or "")),
        }
    if isinstance(execution, ir.HttpExecution):
        auth = execution.auth.fields if execution.auth else {}
        return {
            "url": list(_reads(execution.url)),
            "headers": list(_reads(execution.headers)),
            "params": list(_reads(execution.params)),
            "body": list(_reads(execution.body_content)),
            "auth": list(_reads(auth)),
        }
    if isinstance(execution, ir.McpExecution):
        name = execution.server_name
        return {f"mcp server {name}": list(_reads(servers.get(name)))}
    return {}


def _reads(value: object) -> Iterator[Read]:
    """The variables the templates in ``value`` read: strings, templates already
    parsed, and JSON containers of them."""
    if isinstance(value, ir.TemplatedString):
        value = value.template
    if isinstance(value, Template):
        yield from _node_reads(value.nodes, required=True)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _reads(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _reads(item)
    elif isinstance(value, str) and ("{{" in value or "{!!" in value):
        native = parse_native(value)
        nodes = (native,) if native is not None else parse_template(value).nodes
        yield from _node_reads(nodes, required=True)


def _node_reads(nodes: tuple[Node, ...], required: bool) -> Iterator[Read]:
    for node in nodes:
        if isinstance(node, Placeholder):
            only_env = all(_variable(a) for a in node.alternatives)
            for alternative in node.alternatives:
                name = _variable(alternative)
                if name:
                    yield name, required and only_env
        elif isinstance(node, If):
            for branch in node.branches:
                condition = branch.condition
                if condition is not None:
                    for operand in (condition.left, condition.right):
                        yield from _operand_reads(operand)
                yield from _node_reads(branch.body, required=False)
        elif isinstance(node, For):
            yield from _operand_reads(node.start)
            yield from _operand_reads(node.end)
            yield from _node_reads(node.body, required=False)
        elif isinstance(node, Foreach):
            yield from _operand_reads(node.path)
            yield from _node_reads(node.body, required=False)


def _operand_reads(operand: object) -> Iterator[Read]:
    name = _variable(operand)
    if name:
        yield name, False


def _variable(operand: object) -> str | None:
    """The variable ``operand`` reads, if it is a path ``env.NAME``."""
    if (
        isinstance(operand, PathRef)
        and operand.root == "env"
        and len(operand.parts) > 1
    ):
        return operand.parts[1]
    return None
