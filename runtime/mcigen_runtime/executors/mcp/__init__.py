"""The mcp executor: calls to the tools of an MCP server over stdio or Streamable
HTTP, through sessions kept per server; the MCP SDK loads with the first call.

Generated code reaches what it needs as this package's attributes, never in its
modules: :mod:`.calls` (asyncio, the sessions) loads with the first MCP call made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import lazy_face

if TYPE_CHECKING:
    from .calls import McpCall, McpServerParams, call_mcp_tool, call_mcp_tool_async

__all__ = ["McpCall", "McpServerParams", "call_mcp_tool", "call_mcp_tool_async"]

__getattr__ = lazy_face(
    __name__,
    {name: ".calls" for name in __all__},
)
