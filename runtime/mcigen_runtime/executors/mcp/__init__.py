"""The mcp executor: calls to the tools of an MCP server over stdio or Streamable
HTTP, through sessions kept per server; the MCP SDK loads with the first call."""
