"""The floor of the serving rows: an MCP server written by hand on the SDK mcigen's
``serve`` uses (its low-level ``Server``), run from a venv of its own.

    python floor_server.py SCHEMA                    stdio
    FLOOR_SCHEMA=SCHEMA uvicorn floor_server:app     stateless Streamable HTTP, JSON answers
    FLOOR_BARE=1 uvicorn floor_server:app             no SDK: one fixed answer (uvicorn alone)
    FLOOR_SCHEMA=SCHEMA python floor_server.py --reuse-port PORT
                                                     one of several workers (below)

It lists the schema's tools as they are (name, description, inputSchema, one page)
and answers the three tools of ``serving.serve_schema`` by hand: ``greet`` with an
f-string, ``echo`` with ``asyncio.create_subprocess_exec``, ``fetch`` with one pooled
``httpx.AsyncClient`` (any other text tool answers ``Hello NAME``). No input checking, no templating, no edge: what any server
on this SDK pays, and nothing more. It imports nothing of mcigen or the benchmarks.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import Any

import anyio
import httpx
import mcp_types as types
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.server.transport_security import TransportSecuritySettings


def _tools(schema: dict[str, Any]) -> list[types.Tool]:
    empty = {"type": "object", "properties": {}}
    return [
        types.Tool(
            name=tool["name"],
            description=tool.get("description"),
            input_schema=tool.get("inputSchema") or empty,
        )
        for tool in schema["tools"]
    ]


def _fetch_url(schema: dict[str, Any]) -> str | None:
    for tool in schema["tools"]:
        if tool["name"] == "fetch":
            return str(tool["execution"]["url"])
    return None


def server(schema_path: str) -> Server[Any]:
    with open(schema_path, encoding="utf-8") as file:
        schema = json.load(file)
    listing = types.ListToolsResult(tools=_tools(schema))
    url = _fetch_url(schema)
    texts = {t["name"] for t in schema["tools"] if t["execution"]["type"] == "text"}
    pool: list[httpx.AsyncClient] = []

    async def text_of(name: str, arguments: dict[str, Any]) -> str:
        if name == "greet":
            team = arguments.get("team") or os.environ.get("TEAM") or "us"
            return f"Hello {arguments['name']} from {team}!"
        if name == "echo":
            child = await asyncio.create_subprocess_exec(
                "echo",
                str(arguments["word"]),
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
            )
            out, _ = await child.communicate()
            return out.decode()
        if name == "fetch" and url is not None:
            if not pool:
                pool.append(httpx.AsyncClient())
            return (await pool[0].get(url)).text
        if name in texts:
            return f"Hello {arguments.get('name')}"
        raise ValueError(f"Unknown tool: {name}")

    async def list_tools(ctx: Any, params: Any) -> types.ListToolsResult:
        return listing

    async def call_tool(ctx: Any, params: Any) -> types.CallToolResult:
        text = await text_of(params.name, params.arguments or {})
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)])

    return Server("floor", on_list_tools=list_tools, on_call_tool=call_tool)


async def _stdio(floor: Server[Any]) -> None:
    async with stdio_server() as (read, write):
        await floor.run(read, write, floor.create_initialization_options())


async def _bare(scope: Any, receive: Any, send: Any) -> None:
    """Any POST answered with a fixed ``tools/call`` result under the request's id:
    what uvicorn and the machine cost without the SDK."""
    if scope["type"] == "lifespan":
        while True:
            event = await receive()
            kind = event["type"].rsplit(".", 1)[-1]
            await send({"type": f"lifespan.{kind}.complete"})
            if kind == "shutdown":
                return
    body, more = b"", True
    while more:
        event = await receive()
        body += event.get("body", b"")
        more = event.get("more_body", False)
    answer = {
        "jsonrpc": "2.0",
        "id": json.loads(body).get("id"),
        "result": {"content": [{"type": "text", "text": "Hello"}], "isError": False},
    }
    data = json.dumps(answer).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(data)).encode()),
    ]
    await send({"type": "http.response.start", "status": 200, "headers": headers})
    await send({"type": "http.response.body", "body": data})


def _http_app() -> Any:
    floor = server(os.environ["FLOOR_SCHEMA"])
    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    return floor.streamable_http_app(
        json_response=True, stateless_http=True, transport_security=security
    )


def _serve_reusing_port(port: int) -> None:
    """The HTTP app (``FLOOR_BARE`` or ``FLOOR_SCHEMA``) as one of several workers,
    as mcigen's ``serve --workers`` runs them: binding 127.0.0.1:PORT itself with
    ``SO_REUSEPORT`` (the kernel spreads connections over the workers), on a
    socket asyncio knows is TCP (it sets ``TCP_NODELAY`` on its connections, which
    on the socket uvicorn's ``--workers`` share it does not)."""
    import socket

    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    sock.bind(("127.0.0.1", port))
    app = _bare if os.environ.get("FLOOR_BARE") else _http_app()
    uvicorn.Server(uvicorn.Config(app, log_level="warning")).run(sockets=[sock])


if __name__ == "__main__" and sys.argv[1] == "--reuse-port":
    _serve_reusing_port(int(sys.argv[2]))
elif __name__ == "__main__":
    anyio.run(_stdio, server(sys.argv[1]))
elif os.environ.get("FLOOR_BARE"):
    app = _bare
elif "FLOOR_SCHEMA" in os.environ:
    app = _http_app()
