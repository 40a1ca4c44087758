"""A node's ``source`` lowered: the MCP server it mounts (named after the node),
its filter, aliases and overrides."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from mcigen_runtime.tree import path_segments

from ... import ir
from ...unique_names import unique
from ..context import At, Context
from .command import command_words
from .nodes import WalkedNode

ROOT_SERVER = "root"


def lower_sources(ctx: Context, nodes: list[WalkedNode]) -> list[ir.BrokerSource]:
    """The sources of ``nodes``; those whose command cannot be split are left out
    (with an error)."""
    taken: set[str] = set()
    sources = []
    for walked in nodes:
        if walked.source is None:
            continue
        at = walked.at.field("source")
        command = walked.source.get("command")
        if not isinstance(command, str):
            continue  # SOURCE reported it
        words = command_words(ctx, at.field("command"), command)
        if not words:
            continue
        name = unique(".".join(path_segments(walked.node.path)) or ROOT_SERVER, taken)
        server = ir.McpServer(
            name,
            {"command": words[0], "args": words[1:]},
            ctx.doc.location(at.pointer),
            ctx.doc.location(walked.at.field("path").pointer),
        )
        sources.append(_source(ctx, at, walked, server))
    return sources


def _source(
    ctx: Context, at: At, walked: WalkedNode, server: ir.McpServer
) -> ir.BrokerSource:
    fields: dict[str, Any] = walked.source or {}
    overrides_at = at.field("tool_overrides")
    overrides = {
        tool: _override(ctx, overrides_at.entry(tool), written)
        for tool, written in _object(fields.get("tool_overrides")).items()
    }
    return ir.BrokerSource(
        node=walked.node.path,
        server=server,
        patterns=tuple(fields.get("tool_filter") or ()),
        aliases=dict(_object(fields.get("path_aliases"))),
        overrides=overrides,
        location=ctx.doc.location(at.pointer),
    )


def _override(ctx: Context, at: At, written: dict[str, Any]) -> ir.ToolOverride:
    """``written`` has passed OVERRIDE's checks."""
    timeout = written.get("timeout")
    return ir.ToolOverride(
        location=ctx.doc.key_location(at.pointer),
        summary=written.get("summary"),
        description=written.get("description"),
        max_output_chars=written.get("max_output_chars"),
        timeout_ms=None if timeout is None else _milliseconds(timeout),
        example_args=written.get("example_args"),
        render_mode=written.get("render_mode", "json"),
    )


def _milliseconds(seconds: float) -> int:
    """Rounded up, from the number as written (``1.1`` is 1100, not 1101)."""
    return math.ceil(Decimal(repr(seconds)) * 1000)


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
