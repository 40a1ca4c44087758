"""The edge every HTTP server of a package stands on (the MCP server's Streamable
HTTP endpoint and the broker's HTTP API): settings, Host and Origin policy, the
bearer secret, bounded request bodies, JSON text, short answers, bounded
connections, and shutdown (and how a process ends once its stdout's reader is
gone)."""
