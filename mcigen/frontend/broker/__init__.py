"""The broker-config frontend: a pyMCPBroker config (a tree of nodes, MCP servers
mounted on them) read, checked and lowered to the IR.

    schema, diagnostics = lower_broker(Path("broker.json"))

Every problem comes back at once, in file order; none is raised.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from ... import ir
from ...diagnostics import Diagnostics, Location
from ..context import At, Context, type_name
from ..document_checks import check_text
from ..source import read_source
from ..top_level import top_level_keys
from .fields import CONFIG
from .nodes import WalkedNode, walk_tree
from .sources import lower_sources
from .variables import substituted

__all__ = ["holds_broker", "lower_broker"]

SCHEMA_VERSION = "1.0"


def holds_broker(path: Path) -> bool:
    """Whether ``path`` is a JSON or YAML object with ``tree`` and no
    ``schemaVersion``."""
    keys = top_level_keys(path) if path.is_file() else None
    return keys is not None and "tree" in keys and "schemaVersion" not in keys


def lower_broker(
    path: Path, environment: Mapping[str, str] | None = None
) -> tuple[ir.Schema | None, Diagnostics]:
    """The schema of the config at ``path``, its ``${NAME}`` read from
    ``environment`` (default: this process's) as :mod:`.variables` says; None on
    errors."""
    file = str(path)
    doc, diagnostics = read_source(path, file)
    if doc is None:
        return None, diagnostics
    ctx = Context(doc, Diagnostics())
    env = os.environ if environment is None else environment
    try:
        nodes, sources = _checked(ctx, env)
    except RecursionError:
        ctx.diagnostics.error(Location(file, 1, 1), "config is nested too deeply")
        nodes, sources = [], []
    diagnostics = Diagnostics(ctx.diagnostics.sorted())
    if diagnostics.has_errors:
        return None, diagnostics
    root = nodes[0].node
    metadata = {"name": root.summary or path.stem}
    if root.description is not None:
        metadata["description"] = root.description
    schema = ir.Schema(
        source=path.name,
        schema_version=SCHEMA_VERSION,
        metadata=metadata,
        tools=(),
        mcp_servers=tuple(source.server for source in sources),
        tree_nodes=tuple(walked.node for walked in nodes),
        broker_sources=tuple(sources),
    )
    return schema, diagnostics


def _checked(
    ctx: Context, env: Mapping[str, str]
) -> tuple[list[WalkedNode], list[ir.BrokerSource]]:
    check_text(ctx)
    data = substituted(ctx, ctx.doc.data, At("", "config"), env)
    if not isinstance(data, dict):
        ctx.error(
            At("", "config"),
            f"a broker config is an object with 'tree', got {type_name(data)}",
        )
        return [], []
    CONFIG.check(ctx, At("", "config"), data)
    tree = data.get("tree")
    if not isinstance(tree, list | dict):
        return [], []
    nodes = walk_tree(ctx, tree)
    return nodes, lower_sources(ctx, nodes)
