"""When the compiler talks to MCP servers: what ``--offline``, ``--refresh`` and
``--no-connect`` choose (apart from the planner, which the command line's parser
does not load)."""

from __future__ import annotations

from enum import StrEnum


class McpMode(StrEnum):
    """When the planner talks to MCP servers."""

    CACHE = "cache"
    """Fetch only when a server's cache is missing or expired."""
    OFFLINE = "offline"
    """Never: a missing cache is an error, an expired one is used with a warning."""
    REFRESH = "refresh"
    """Always fetch, and rewrite the cache."""
    NO_CONNECT = "no-connect"
    """Never, and write nothing: the tools of a server without a usable cache are
    unknown, which is a note, not a problem of the schema (mci-py's ``validating``)."""
