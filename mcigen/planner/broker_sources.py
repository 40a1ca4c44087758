"""A broker config's sources planned: the tools of each mounted server that its
``tool_filter`` keeps become the package's tools, named after their leaf paths
(``/repo/read/get_file`` is ``repo.read.get_file``), with their overrides; and
each a leaf of the tree under the source's node."""

from __future__ import annotations

import dataclasses
from pathlib import Path

from mcigen_runtime.tree import join, segment

from .. import ir
from ..diagnostics import Diagnostics, Location, did_you_mean, quoted
from .filters import glob_allows
from .mcp_servers import McpAccess, server_tools
from .schema_fit import EMPTY_SCHEMA, misfit


def load_broker_tools(
    schema: ir.Schema,
    library: Path,
    access: McpAccess,
    whitespace: str,
    diagnostics: Diagnostics,
) -> tuple[list[ir.Tool], list[ir.TreeLeaf]]:
    """Every source's tools and their leaves, in config order."""
    placed = _Placed(schema)
    tools: list[ir.Tool] = []
    leaves: list[ir.TreeLeaf] = []
    for source in schema.broker_sources:
        found = server_tools(
            source.server,
            library,
            access,
            schema.schema_version,
            whitespace,
            diagnostics,
            unbound_is_mcigens=True,
        )
        if found is None:
            continue
        kept = [tool for tool in found if glob_allows(tool.name, source.patterns)]
        _check_named_tools(source, found, kept, diagnostics)
        for tool in kept:
            leaf = placed.leaf(source, tool, diagnostics)
            if leaf is not None:
                tools.append(_tool(source, tool, leaf.tool))
                leaves.append(leaf)
    return tools, leaves


class _Placed:
    """The paths taken so far (by nodes and leaves) and the tools' names, each
    with what took it and where that was written (when known)."""

    def __init__(self, schema: ir.Schema) -> None:
        mounted = {s.node: s.server.name_location for s in schema.broker_sources}
        self.paths: dict[str, tuple[str, Location | None]] = {
            node.path: (f"node {quoted(node.path)}", mounted.get(node.path))
            for node in schema.tree_nodes
        }
        self.names: dict[str, tuple[str, Location]] = {}

    def leaf(
        self, source: ir.BrokerSource, tool: ir.Tool, diagnostics: Diagnostics
    ) -> ir.TreeLeaf | None:
        override = source.overrides.get(tool.name)
        path = join(source.node, segment(source.aliases.get(tool.name, tool.name)))
        what = f"tool {quoted(tool.name)} of source {quoted(source.node)}"
        where = _where(source, override)
        other, other_where = self.paths.setdefault(path, (what, where))
        if other != what:
            diagnostics.error(
                where,
                f"{what} would be the leaf {quoted(path)}, which is the path of {other}"
                f"{_at(other_where)}; give it another name in 'path_aliases', or "
                "leave it out with 'tool_filter'",
            )
            return None
        # '/a/b.c' and '/a.b/c' would share a name: which one got it would
        # depend on the order of the config
        name = path[1:].replace("/", ".")
        first, first_where = self.names.setdefault(name, (what, where))
        if first != what:
            diagnostics.error(
                where,
                f"{what} would be the tool {quoted(name)}, as {first}{_at(first_where)} "
                "is; give one of them another name in 'path_aliases'",
            )
            return None
        if override is None:
            return ir.TreeLeaf(path, name)
        _check_example_args(tool, override, diagnostics)
        return ir.TreeLeaf(
            path,
            name,
            override.summary,
            override.max_output_chars,
            override.example_args,
            override.render_mode,
        )


def _at(location: Location | None) -> str:
    return "" if location is None else f" (at {location})"


def _tool(source: ir.BrokerSource, tool: ir.Tool, name: str) -> ir.Tool:
    """``tool`` as the package's tool ``name``, calling the server's tool by its
    own name; located in the config (its override, else its source), not in the
    cache the build wrote."""
    override = source.overrides.get(tool.name)
    description = tool.description
    timeout_ms = None
    if override is not None:
        if override.description is not None:
            description = override.description
        timeout_ms = override.timeout_ms
    return dataclasses.replace(
        tool,
        name=name,
        description=description,
        execution=ir.McpExecution(
            source.server.name, tool.name, timeout_ms, _task_support(tool)
        ),
        location=_where(source, override),
        toolset=source.server.name,
        origin="mcp",
    )


def _task_support(tool: ir.Tool) -> str:
    execution = tool.execution
    if isinstance(execution, ir.McpExecution):
        return execution.task_support
    return "forbidden"


def _check_example_args(
    tool: ir.Tool, override: ir.ToolOverride, diagnostics: Diagnostics
) -> None:
    if override.example_args is None:
        return
    problem = misfit(override.example_args, tool.input_schema or EMPTY_SCHEMA)
    if problem is not None:
        diagnostics.error(
            override.location,
            f"'example_args' of tool {quoted(tool.name)} do not fit its inputSchema: "
            f"{problem}",
        )


def _check_named_tools(
    source: ir.BrokerSource,
    found: list[ir.Tool],
    kept: list[ir.Tool],
    diagnostics: Diagnostics,
) -> None:
    """A warning for each alias or override naming a tool that is not a leaf:
    misspelt, it would silently do nothing."""
    names = [tool.name for tool in found]
    kept_names = {tool.name for tool in kept}
    named: list[tuple[str, str, Location | None]] = [
        *((name, "path_aliases", source.location) for name in source.aliases),
        *(
            (name, "tool_overrides", override.location)
            for name, override in source.overrides.items()
        ),
    ]
    for name, field, location in named:
        if name in kept_names:
            continue
        if name in names:
            reason = "which 'tool_filter' leaves out"
        else:
            reason = f"which the server does not have{did_you_mean(name, names)}"
        diagnostics.warning(
            location or source.server.location,
            f"{quoted(field)} of source {quoted(source.node)} names tool {quoted(name)}, {reason}",
        )


def _where(source: ir.BrokerSource, override: ir.ToolOverride | None) -> Location:
    if override is not None:
        return override.location
    return source.location or source.server.location
