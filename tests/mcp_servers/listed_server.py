"""An MCP server (the official SDK's low-level server, over stdio) whose tools are
whatever a JSON file lists, as a third-party server's may be:

    python listed_server.py TOOLS.json [STARTS]

``TOOLS.json`` is a list of MCP ``Tool`` objects (name, description, inputSchema,
...), served as they are. Every call answers one text content: the JSON of
``{"tool": NAME, "arguments": ARGUMENTS}``, so a test sees exactly what arrived;
an argument ``structuredContent`` is also answered as the result's structured
content, whatever the tool's ``outputSchema`` says. With ``STARTS``, the server
appends its pid to that file as it starts, so a test can count its starts.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import anyio
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server


def build(tools: list[dict[str, Any]]) -> Server[Any]:
    listing = types.ListToolsResult(tools=[types.Tool.model_validate(t) for t in tools])

    async def list_tools(
        ctx: Any, params: types.PaginatedRequestParams | None
    ) -> types.ListToolsResult:
        return listing

    async def call_tool(
        ctx: Any, params: types.CallToolRequestParams
    ) -> types.CallToolResult:
        arguments = params.arguments or {}
        arrived = {"tool": params.name, "arguments": arguments}
        text = json.dumps(arrived, ensure_ascii=False)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)],
            structured_content=arguments.get("structuredContent"),
        )

    return Server("listed", on_list_tools=list_tools, on_call_tool=call_tool)


async def main(path: str, starts: str | None) -> None:
    if starts is not None:
        with open(starts, "a", encoding="utf-8") as pids:
            pids.write(f"{os.getpid()}\n")
    with open(path, encoding="utf-8") as listed:
        server = build(json.load(listed))
    async with stdio_server() as (read_stream, write_stream):
        await server.run(
            read_stream, write_stream, server.create_initialization_options()
        )


if __name__ == "__main__":
    anyio.run(main, sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
