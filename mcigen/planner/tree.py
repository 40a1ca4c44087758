"""The broker's tree, laid out at build time and served as it is by the runtime's
broker: a broker config's own nodes with a leaf per tool of its sources, or for an
MCI schema (or MTDF files) a tree laid out from the planned tools.

For an MCI schema:

- ``/`` is the root. The schema's own tools are leaves directly under it
  (``/greet``); each toolset is a node ``/<toolset>`` with its tools as leaves
  (``/util/ping``); MCP servers are nodes ``/mcp/<server>`` under a node ``/mcp``,
  which exists only when the package has MCP tools.
- A leaf's name is the tool's MCI name, as one path segment
  (:func:`mcigen_runtime.tree.segment`).

Name collisions at the root. Nodes win over leaves: the names at ``/`` are claimed
first by the ``mcp`` node, then by toolset nodes, then by the schema's own tools.
A toolset whose name is taken (a toolset called ``mcp`` in a package with MCP
servers) becomes ``/<name>~toolset``; a schema tool whose name is taken (a tool
called ``util`` next to a toolset ``util``, or ``mcp`` next to MCP servers) becomes
the leaf ``/<name>~tool``. If that is taken too, ``~toolset2``, ``~tool2``, ... are
tried in turn.

The root's summary is the schema's metadata ``name: description`` (empty without
either: the broker then says ``the tools of 'pkg'``) and its description the
metadata's; a toolset's is ``toolset 'x'``, a server's ``MCP server 'x'``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from mcigen_runtime.tree import ROOT, join, segment

from .. import ir


def config_tree(
    nodes: tuple[ir.TreeNode, ...],
    leaves: Sequence[ir.TreeLeaf],
    tools: Sequence[ir.Tool],
) -> ir.Tree:
    """A broker config's tree: its nodes, and the leaves of the tools planned."""
    names = {tool.name for tool in tools}
    return ir.Tree(nodes, tuple(leaf for leaf in leaves if leaf.tool in names))


def schema_tree(metadata: dict[str, Any], tools: Sequence[ir.Tool]) -> ir.Tree:
    """The tree of ``tools``, the package's enabled tools."""
    toolsets = list(
        dict.fromkeys(t.toolset or "" for t in tools if t.origin == "toolset")
    )
    servers = list(dict.fromkeys(t.toolset or "" for t in tools if t.origin == "mcp"))
    own = [t.name for t in tools if t.origin not in ("toolset", "mcp")]
    taken = {"mcp"} if servers else set()
    toolset_paths = _claim_free(toolsets, taken)
    own_paths = _claim_free(own, taken)
    _claim_renamed(toolsets, toolset_paths, "toolset", taken)
    _claim_renamed(own, own_paths, "tool", taken)
    nodes = [_root(metadata)]
    if servers:
        nodes.append(ir.TreeNode("/mcp", "MCP servers"))
    server_paths = {name: join("/mcp", segment(name)) for name in servers}
    nodes += [ir.TreeNode(server_paths[n], f"MCP server '{n}'") for n in servers]
    nodes += [ir.TreeNode(toolset_paths[n], f"toolset '{n}'") for n in toolsets]
    leaves = []
    for tool in tools:
        if tool.origin == "toolset":
            path = join(toolset_paths[tool.toolset or ""], segment(tool.name))
        elif tool.origin == "mcp":
            path = join(server_paths[tool.toolset or ""], segment(tool.name))
        else:
            path = own_paths[tool.name]
        leaves.append(ir.TreeLeaf(path, tool.name))
    return ir.Tree(tuple(nodes), tuple(leaves))


def _claim_free(names: list[str], taken: set[str]) -> dict[str, str]:
    """The root path of each name whose segment is free, claimed."""
    paths: dict[str, str] = {}
    for name in names:
        if segment(name) not in taken:
            taken.add(segment(name))
            paths[name] = ROOT + segment(name)
    return paths


def _claim_renamed(
    names: list[str], paths: dict[str, str], suffix: str, taken: set[str]
) -> None:
    """A root path for each name still without one: the first free
    ``<segment>~<suffix>``, ``~<suffix>2``, ..."""
    for name in names:
        if name in paths:
            continue
        candidate, counter = f"{segment(name)}~{suffix}", 1
        while candidate in taken:
            counter += 1
            candidate = f"{segment(name)}~{suffix}{counter}"
        taken.add(candidate)
        paths[name] = ROOT + candidate


def _root(metadata: dict[str, Any]) -> ir.TreeNode:
    """The root: the schema's metadata name and description, if it has them."""
    title, description = metadata.get("name"), metadata.get("description")
    title = title if isinstance(title, str) and title else None
    description = description if isinstance(description, str) else None
    if title and description:
        summary = f"{title}: {description}"
    else:
        summary = title or description or ""
    return ir.TreeNode(ROOT, summary, description)
