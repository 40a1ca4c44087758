"""The MCP server of a package (stdio and Streamable HTTP), the messages it reads
leniently, and background operations."""
