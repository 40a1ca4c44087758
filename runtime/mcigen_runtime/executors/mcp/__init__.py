"""The mcp executor: calls to the tools of an MCP server over stdio or Streamable
HTTP, through sessions kept per server; the MCP SDK loads with the first call.

Generated code imports what it needs from here, never from this package's modules.
"""

from __future__ import annotations

from .calls import McpCall, McpServerParams, call_mcp_tool, call_mcp_tool_async

__all__ = ["McpCall", "McpServerParams", "call_mcp_tool", "call_mcp_tool_async"]
