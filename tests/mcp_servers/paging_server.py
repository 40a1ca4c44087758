"""A hostile MCP server (the official SDK's low-level server, over stdio) whose
``tools/list`` never ends: every page holds one new tool and a new
``nextCursor``.

    python paging_server.py [SECONDS]

``SECONDS``: how long each page takes to answer (default 0).
"""

from __future__ import annotations

import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server

EMPTY = {"type": "object", "properties": {}}


def build(delay: float) -> Server[Any]:
    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        page = int(params.cursor) if params is not None and params.cursor else 0
        await anyio.sleep(delay)
        tool = types.Tool(name=f"tool_{page}", input_schema=EMPTY)
        return types.ListToolsResult(tools=[tool], next_cursor=str(page + 1))

    return Server("paging", on_list_tools=list_tools)


async def main(delay: float) -> None:
    server = build(delay)
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )


if __name__ == "__main__":
    anyio.run(main, float(sys.argv[1]) if len(sys.argv) > 1 else 0.0)
