"""The planner: turns a lowered schema into the package to emit.

It pulls in the tools of toolsets and MCP servers, drops disabled tools, gives every
tool its Python function, model and group names, derives keyword parameters from
the input schema, lays out the broker's tree with the example arguments of its
leaves, and reports clashes.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import ir
from ..diagnostics import Diagnostics, quoted
from ..large_enums import large_enum_kind
from ..mcp_mode import McpMode
from ..unique_names import unique
from .annotations import annotation, optional
from .broker_sources import load_broker_tools
from .file_paths import check_static_file_paths
from .leaf_examples import with_example_args
from .mcp_servers import McpAccess, load_mcp_tools
from .names import class_name, function_name, module_name, parameter_name
from .toolsets import library_path, load_toolsets
from .tree import config_tree, schema_tree

__all__ = ["MAIN_GROUP", "SHARD_SIZE", "McpAccess", "McpMode", "PlanOptions", "plan"]

MAIN_GROUP = "main"
_SCALARS = (str, int, float, bool, type(None))


@dataclass(frozen=True)
class PlanOptions:
    """Where the schema lives (toolsets and MCP caches are found from there), how
    its templates are parsed and how its MCP servers are reached."""

    schema_path: Path
    whitespace: str = "compat"
    mcp: McpAccess = McpAccess()


def plan(schema: ir.Schema, options: PlanOptions) -> tuple[ir.Package, Diagnostics]:
    """The planned package and the planner's diagnostics (errors mean: do not emit)."""
    diagnostics = Diagnostics()
    library = library_path(options.schema_path, schema)
    from_toolsets = load_toolsets(schema, library, options.whitespace, diagnostics)
    leaves: list[ir.TreeLeaf] = []
    if schema.broker_sources:
        from_servers, leaves = load_broker_tools(
            schema, library, options.mcp, options.whitespace, diagnostics
        )
    else:
        from_servers = load_mcp_tools(
            schema, library, options.mcp, options.whitespace, diagnostics
        )
    every = (*schema.tools, *from_toolsets, *from_servers)
    tools = [tool for tool in every if not tool.disabled]
    _check_servers_declared(schema, tools, diagnostics)
    check_static_file_paths(tools, options.schema_path.resolve().parent, diagnostics)
    tools = _unique_tool_names(tools, diagnostics)
    groups = _Groups()
    owners: dict[str, ir.Tool] = {}
    model_names: set[str] = set()
    planned: list[ir.PlannedTool] = []
    for tool in tools:
        _check_name_printable(tool, diagnostics)
        python_name = _python_name(tool, owners, diagnostics)
        owners[python_name] = owners[f"{python_name}_async"] = tool
        model_name = unique(f"{class_name(tool.name)}Input", model_names, separator="")
        output_model_name = (
            unique(f"{class_name(tool.name)}Output", model_names, separator="")
            if tool.output_schema
            else None
        )
        planned.append(
            ir.PlannedTool(
                tool=tool,
                python_name=python_name,
                model_name=model_name,
                group=groups.of(tool),
                parameters=_parameters(
                    tool, python_name, output_model_name, diagnostics
                ),
                path_policy=_path_policy(schema, tool),
                output_model_name=output_model_name,
            )
        )
    enabled = [p.tool for p in planned]
    if schema.tree_nodes:
        tree = config_tree(schema.tree_nodes, leaves, enabled)
    else:
        tree = schema_tree(schema.metadata, enabled)
    tree = with_example_args(tree, enabled)
    return ir.Package(schema, groups.sharded(planned), tree), diagnostics


def _unique_tool_names(tools: list[ir.Tool], diagnostics: Diagnostics) -> list[ir.Tool]:
    """The tools with the first of each name kept; every later one is an error,
    unless it is the same definition pulled in twice (a toolset referenced twice)."""
    first: dict[str, ir.Tool] = {}
    for tool in tools:
        other = first.setdefault(tool.name, tool)
        if other.location != tool.location:
            diagnostics.error(
                tool.location,
                f"tool {quoted(tool.name)}{_from(tool)} is also defined at {other.location}"
                f"{_from(other)}; tool names must be unique",
            )
    return list(first.values())


def _check_name_printable(tool: ir.Tool, diagnostics: Diagnostics) -> None:
    """A name holding a newline, an escape or another character that is not
    printable reaches ``tools/list`` as it is: a warning (mci-py takes it too)."""
    if not tool.name.isprintable():
        diagnostics.warning(
            tool.location,
            f"tool {quoted(tool.name)}: its name holds characters that are not "
            "printable, which MCP clients may show garbled or refuse (MCP asks for "
            "A-Z, a-z, 0-9, '_', '-' and '.')",
        )


def _check_servers_declared(
    schema: ir.Schema, tools: list[ir.Tool], diagnostics: Diagnostics
) -> None:
    """MCP tools of toolset files must call a server of the main schema (the
    frontend checks the schema's own tools where their ``serverName`` is)."""
    declared = {server.name for server in schema.mcp_servers}
    for tool in tools:
        execution = tool.execution
        if (
            tool.origin != "schema"
            and isinstance(execution, ir.McpExecution)
            and execution.server_name not in declared
        ):
            diagnostics.error(
                tool.location,
                f"tool {quoted(tool.name)} calls MCP server {quoted(execution.server_name)}, "
                "which the schema's 'mcp_servers' does not define",
            )


def _python_name(
    tool: ir.Tool, owners: dict[str, ir.Tool], diagnostics: Diagnostics
) -> str:
    """The tool's function name, free with its ``_async`` twin: the name made of
    its MCI name, or, when an earlier tool has it (``get-weather`` and
    ``get_weather``, names equal after NFKC), that name with the first free
    ``_2``, ``_3``, ... and a warning. Its MCI name stays as it is."""
    wanted = function_name(tool.name)
    candidate, counter = wanted, 1
    while candidate in owners or f"{candidate}_async" in owners:
        counter += 1
        candidate = f"{wanted}_{counter}"
    if candidate != wanted:
        other = owners.get(wanted) or owners[f"{wanted}_async"]
        diagnostics.warning(
            tool.location,
            f"tool {quoted(tool.name)}{_from(tool)} would be the Python function "
            f"{quoted(wanted)}, like tool {quoted(other.name)} (at {other.location}); it is "
            f"{quoted(candidate)} in Python, and {quoted(tool.name)} everywhere else",
        )
    return candidate


def _from(tool: ir.Tool) -> str:
    if tool.origin == "schema":
        return ""
    kind = "MCP server" if tool.origin == "mcp" else "toolset"
    return f" (from {kind} {quoted(tool.toolset)})"


SHARD_SIZE = 64
"""The most tools one module under ``tools/`` holds: calling a tool imports its
module, and creating a pydantic model costs about a millisecond."""


class _Groups:
    """Module names under ``tools/``: ``main`` for the schema's own tools,
    ``toolset_<name>`` per toolset and ``mcp_<name>`` per MCP server; a group of
    more than ``SHARD_SIZE`` tools is cut, in order, into ``<group>_001``,
    ``<group>_002``, ..."""

    def __init__(self) -> None:
        self._names: dict[tuple[str, str | None], str] = {}
        self._taken = {MAIN_GROUP}

    def sharded(self, planned: list[ir.PlannedTool]) -> tuple[ir.PlannedTool, ...]:
        members: dict[str, list[int]] = {}
        for index, tool in enumerate(planned):
            members.setdefault(tool.group, []).append(index)
        result = list(planned)
        for group, indexes in members.items():
            if len(indexes) <= SHARD_SIZE:
                continue
            for start in range(0, len(indexes), SHARD_SIZE):
                shard = unique(f"{group}_{start // SHARD_SIZE + 1:03d}", self._taken)
                for index in indexes[start : start + SHARD_SIZE]:
                    result[index] = dataclasses.replace(result[index], group=shard)
        return tuple(result)

    def of(self, tool: ir.Tool) -> str:
        if tool.origin == "schema":
            return MAIN_GROUP
        key = (tool.origin, tool.toolset)
        if key not in self._names:
            base = f"{tool.origin}_{module_name(tool.toolset or '')}"
            self._names[key] = unique(base, self._taken)
        return self._names[key]


def _path_policy(schema: ir.Schema, tool: ir.Tool) -> ir.EffectivePathPolicy:
    """mci-py's merge: any-paths if either level enables it; the tool's allow list if
    it has a non-empty one, else the schema's."""
    policy = tool.path_policy
    return ir.EffectivePathPolicy(
        bool(policy.enable_any_paths) or schema.enable_any_paths,
        policy.directory_allow_list or schema.directory_allow_list,
    )


def _parameters(
    tool: ir.Tool,
    python_name: str,
    output_model_name: str | None,
    diagnostics: Diagnostics,
) -> tuple[ir.Parameter, ...] | None:
    """``output_model_name``: the model the function's body types its result with.
    A property whose parameter name another has (``my-key`` and ``my_key``, names
    equal after NFKC) gets the first free ``_2``, ``_3``, ..., and a warning."""
    schema = tool.input_schema or {}
    properties: dict[str, Any] = schema.get("properties") or {}
    if not properties:
        return None
    required = set(schema.get("required") or ())
    taken = {"_environ", f"_invoke_{python_name}"}
    if output_model_name is not None:
        taken.add(output_model_name)
    owners: dict[str, str] = {}
    parameters = []
    for name, prop in properties.items():
        prop = prop if isinstance(prop, dict) else {}
        wanted = parameter_name(name)
        python = unique(wanted, taken)
        owners[python] = name
        if python != wanted:
            _warn_renamed(tool, name, wanted, python, owners.get(wanted), diagnostics)
        text = annotation(prop)
        has_scalar_default = "default" in prop and isinstance(prop["default"], _SCALARS)
        if name in required:
            parameters.append(
                ir.Parameter(name, python, text, True, description=_doc(prop))
            )
        elif has_scalar_default:
            default = prop["default"]
            parameters.append(
                ir.Parameter(
                    name,
                    python,
                    text if default is not None else optional(text),
                    False,
                    default=default,
                    has_default=True,
                    description=_doc(prop),
                )
            )
        else:
            parameters.append(
                ir.Parameter(
                    name, python, optional(text), False, description=_doc(prop)
                )
            )
    # Keyword-only parameters may be in any order; required ones first reads better.
    return tuple(sorted(parameters, key=lambda p: not p.required))


def _warn_renamed(
    tool: ir.Tool,
    name: str,
    wanted: str,
    python: str,
    other: str | None,
    diagnostics: Diagnostics,
) -> None:
    owner = (
        f"like property {quoted(other)}"
        if other is not None
        else "a name the generated function uses itself"
    )
    diagnostics.warning(
        tool.location,
        f"property {quoted(name)} of tool {quoted(tool.name)} would be the Python "
        f"parameter {quoted(wanted)}, {owner}; it is {quoted(python)} in Python, and "
        f"{quoted(name)} in input and everywhere else",
    )


def _doc(prop: dict[str, Any]) -> str | None:
    """The schema's description; for an undocumented large enum, how many values it
    takes (its signature type does not list them)."""
    description = prop.get("description")
    if isinstance(description, str):
        return description
    if large_enum_kind(prop) is not None:
        return f"One of {len(prop['enum'])} values."
    return None
