"""A small MCP server written with the official SDK, for the tests.

    python toy_server.py stdio
    python toy_server.py http PORT        (Streamable HTTP at /mcp on 127.0.0.1)

Its tools cover what a generated package must carry across: every JSON argument
type, structured output (a typed forecast, and the SDK's ``{"result": ...}`` of a
tool returning a plain value), images, tool errors, annotations, a hyphenated
name, the server's own environment, and a crash.
"""

from __future__ import annotations

import base64
import json
import os
import sys
from typing import Any, Literal

from mcp.server.mcpserver import Image, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations
from pydantic import BaseModel, Field

server = MCPServer("toy")

# One transparent pixel: enough to prove image content survives the trip.
PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


@server.tool(annotations=ToolAnnotations(title="Echo", read_only_hint=True))
def echo(text: str) -> str:
    """Return the text unchanged."""
    return text


@server.tool(annotations=ToolAnnotations(read_only_hint=True, idempotent_hint=True))
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


class Hour(BaseModel):
    hour: int
    temperature: float


class Forecast(BaseModel):
    """A city's weather today."""

    city: str
    temperature: float = Field(description="Degrees Celsius")
    conditions: Literal["sunny", "cloudy", "rain"]
    hours: list[Hour]


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def forecast(city: str) -> Forecast:
    """Today's weather in a city (made up: the same everywhere)."""
    hours = [Hour(hour=9, temperature=18), Hour(hour=15, temperature=23.5)]
    return Forecast(city=city, temperature=21.5, conditions="sunny", hours=hours)


@server.tool()
def inspect_args(
    text: str,
    count: int,
    ratio: float,
    flag: bool,
    items: list[str],
    options: dict[str, Any],
    mode: Literal["fast", "slow"] = "fast",
    note: str | None = None,
) -> str:
    """Report every argument with its JSON type, to check what arrives."""
    received = {
        "text": text,
        "count": count,
        "ratio": ratio,
        "flag": flag,
        "items": items,
        "options": options,
        "mode": mode,
        "note": note,
    }
    return json.dumps(received, sort_keys=True)


@server.tool(name="get-env", annotations=ToolAnnotations(open_world_hint=False))
def get_env(name: str) -> str:
    """The value of one of the server process's environment variables."""
    return os.environ.get(name, "<unset>")


@server.tool()
def pid() -> str:
    """The server's process id: equal across calls while a session stays open."""
    return str(os.getpid())


@server.tool()
def pixel() -> Image:
    """A one-pixel PNG image."""
    return Image(data=PIXEL_PNG, format="png")


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def fail(message: str) -> str:
    """Always fails with the given message."""
    raise ToolError(message)


@server.tool(annotations=ToolAnnotations(destructive_hint=True))
def crash() -> str:
    """Exit the server process without answering."""
    os._exit(3)


def main() -> None:
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run()


if __name__ == "__main__":
    main()
