"""An MCP server written with the official SDK for the bounds of a call: a tool
that never answers, answers of any size, tools that crash mid-call, and tools
that take a text of any size.

    python bounds_server.py stdio LOG_DIR
    python bounds_server.py http PORT LOG_DIR       (Streamable HTTP at /mcp on 127.0.0.1)
    python bounds_server.py http-json PORT LOG_DIR  (the same, answering JSON, not SSE)

It writes what a test must see from outside into LOG_DIR: ``cancelled.log`` gets
a line for every call the client cancelled (``notifications/cancelled`` reaches a
tool only as the cancellation of its task, and a server still running cannot have
been cancelled any other way); ``<tool>.runs`` a line for every run of a tool that
counts its runs, written before it crashes, so a retried call shows as two lines.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("bounds")
LOG_DIR = Path(sys.argv[-1])


def _log(name: str, line: str) -> int:
    """Append ``line`` to LOG_DIR/``name``; how many lines it holds now."""
    path = LOG_DIR / name
    with path.open("a") as log:
        log.write(line + "\n")
    return len(path.read_text().splitlines())


@server.tool()
async def hang(ctx: Context) -> str:
    """Never answers; notes its cancellation."""
    try:
        await anyio.sleep_forever()
    except anyio.get_cancelled_exc_class():
        _log("cancelled.log", f"cancelled {ctx.request_id}")
        raise
    return "unreachable"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def quick(text: str) -> str:
    """Answers at once."""
    return text


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def huge(size: int) -> str:
    """A text of ``size`` bytes."""
    return "x" * size


def _count_then_crash_once(tool: str) -> str:
    """Note the run; the tool's first run crashes the server before it answers."""
    if _log(f"{tool}.runs", "run") == 1:
        os._exit(3)
    return "done"


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def effect() -> str:
    """A tool with effects (no hint says it may run twice); crashes on the first run."""
    return _count_then_crash_once("effect")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def look() -> str:
    """A read-only tool; crashes on the first run."""
    return _count_then_crash_once("look")


@server.tool(annotations=ToolAnnotations(idempotent_hint=True))
def put() -> str:
    """An idempotent tool; crashes on the first run."""
    return _count_then_crash_once("put")


@server.tool()
def note(text: str) -> str:
    """A tool with effects that takes a text: notes each run."""
    _log("note.runs", "run")
    return f"noted {len(text)}"


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def peek(text: str) -> str:
    """A read-only tool that takes a text: notes each run."""
    _log("peek.runs", "run")
    return f"peeked {len(text)}"


@server.tool()
def count() -> str:
    """Notes the run and answers how many runs there were."""
    return str(_log("count.runs", "run"))


@server.tool()
def pid() -> str:
    """The server's process id: equal across calls while a session stays open."""
    return str(os.getpid())


def main() -> None:
    if sys.argv[1].startswith("http"):
        json_response = sys.argv[1] == "http-json"
        port = int(sys.argv[2])
        server.run(
            "streamable-http", host="127.0.0.1", port=port, json_response=json_response
        )
    else:
        server.run()


if __name__ == "__main__":
    main()
