"""What one MCP tool call and the transport that carries it tell each other.

A call sets :data:`current` to its :class:`Exchange` before it hands its request
to the session. The transport reads it in the task that writes the request: the
caller's own task over stdio, and over Streamable HTTP the task that POSTs it (the
SDK runs it in a copy of the sender's context). The transport notes there whether
the request went out, which decides whether a call that lost its connection may
be made again, and whether the answer was larger than the call's limit.
"""

from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass

from ...limits import DEFAULT


@dataclass(slots=True, weakref_slot=True)
class Exchange:
    limit: int
    """Bytes one message of the answer may take (the ``mcp_result`` limit)."""
    sent: bool = False
    """Whether the request may have reached the server."""
    too_large: bool = False
    """Whether the answer was dropped for being larger than ``limit``."""


current: ContextVar[Exchange | None] = ContextVar("mcigen_mcp_exchange", default=None)

DEFAULT_LIMIT = DEFAULT.mcp_result
"""The bound on a message that answers no tool call (``initialize``, a listing)."""


def too_large_message(tool: str, limit: int) -> str:
    return (
        f"MCP tool '{tool}' answered with a message larger than the mcp_result "
        f"limit ({limit} bytes); a larger limit is set with limited(mcp_result=...) "
        "or mcigen build --limit mcp_result=SIZE"
    )
