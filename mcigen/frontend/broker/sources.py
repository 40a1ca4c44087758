"""A node's ``source`` lowered: the MCP server it mounts (named after the node),
its filter, aliases and overrides."""

from __future__ import annotations

import hashlib
import math
import string
from decimal import Decimal
from typing import Any

from mcigen_runtime.tree import path_segments

from ... import ir
from ..context import At, Context
from .command import command_words
from .fields import is_seconds
from .nodes import WalkedNode

ROOT_SERVER = "%2F"
"""The name of a server mounted on ``/``: an escaped ``/``, which no segment holds."""
_KEPT = frozenset(string.ascii_letters + string.digits + "_-")
_MAX_NAME = 120
"""Longer names are cut, and told apart by a hash (a file name has 255 bytes)."""


def lower_sources(ctx: Context, nodes: list[WalkedNode]) -> list[ir.BrokerSource]:
    """The sources of ``nodes``; those whose command cannot be split are left out
    (with an error)."""
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
        server = ir.McpServer(
            server_name(walked.node.path),
            {"command": words[0], "args": words[1:]},
            ctx.doc.location(at.pointer),
            ctx.doc.location(walked.at.field("path").pointer),
        )
        sources.append(_source(ctx, at, walked, server))
    return sources


def server_name(node: str) -> str:
    """The name of the server mounted on the normalized path ``node``, which names
    its cache file too: the segments joined with '.', every character but ASCII
    letters, digits, '_' and '-' written as '%XX' (its UTF-8 bytes). No two paths
    share a name, whatever order the config lists them in (``/a/b`` is ``a.b``,
    ``/a.b`` is ``a%2Eb``); a name too long for a file is cut and ends with '~'
    and a hash of the path ('~' is escaped everywhere else)."""
    segments = path_segments(node)
    if not segments:
        return ROOT_SERVER
    name = ".".join(_escaped(segment) for segment in segments)
    if len(name) <= _MAX_NAME:
        return name
    digest = hashlib.sha256(node.encode("utf-8", "surrogatepass")).hexdigest()
    return f"{name[: _MAX_NAME - 17]}~{digest[:16]}"


def _escaped(segment: str) -> str:
    return "".join(
        (
            char
            if char in _KEPT
            else "".join(
                f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass")
            )
        )
        for char in segment
    )


def _source(
    ctx: Context, at: At, walked: WalkedNode, server: ir.McpServer
) -> ir.BrokerSource:
    fields: dict[str, Any] = walked.source or {}
    overrides_at = at.field("tool_overrides")
    overrides = {
        tool: _override(ctx, overrides_at.entry(tool), written)
        for tool, written in _object(fields.get("tool_overrides")).items()
        if isinstance(written, dict)  # OVERRIDE reported any other
    }
    return ir.BrokerSource(
        node=walked.node.path,
        server=server,
        patterns=tuple(_array(fields.get("tool_filter"))),
        aliases=dict(_object(fields.get("path_aliases"))),
        overrides=overrides,
        location=ctx.doc.location(at.pointer),
    )


def _override(ctx: Context, at: At, written: dict[str, Any]) -> ir.ToolOverride:
    """``written`` has been checked by OVERRIDE (its errors, if any, are told)."""
    timeout = written.get("timeout")
    return ir.ToolOverride(
        location=ctx.doc.key_location(at.pointer),
        summary=written.get("summary"),
        description=written.get("description"),
        max_output_chars=written.get("max_output_chars"),
        timeout_ms=_milliseconds(timeout) if is_seconds(timeout) else None,
        example_args=written.get("example_args"),
        render_mode=written.get("render_mode", "json"),
    )


def _milliseconds(seconds: float) -> int:
    """Rounded up, from the number as written (``1.1`` is 1100, not 1101)."""
    return math.ceil(Decimal(repr(seconds)) * 1000)


def _object(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _array(value: object) -> list[Any]:
    return value if isinstance(value, list) else []
