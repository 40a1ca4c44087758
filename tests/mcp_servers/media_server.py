"""An MCP server (official SDK) whose answers a broker must carry without doubling:
a structured report (its JSON is also the text), and a snapshot of text, an image
and a sound.

    python media_server.py
"""

from __future__ import annotations

import base64

from mcp.server.mcpserver import Audio, Image, MCPServer
from pydantic import BaseModel

server = MCPServer("media")

PIXEL_PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)
CLICK_WAV = b"RIFF$\x00\x00\x00WAVEfmt " + bytes(28)


class Report(BaseModel):
    title: str
    lines: list[str]


@server.tool()
def report(lines: int) -> Report:
    """A report of ``lines`` numbered lines, as structured content."""
    return Report(
        title="report", lines=[f"line {i}: all is well" for i in range(lines)]
    )


@server.tool()
def snapshot() -> list[str | Image | Audio]:
    """A caption, a one-pixel PNG and a short WAV."""
    return [
        "a pixel and a click",
        Image(data=PIXEL_PNG, format="png"),
        Audio(data=CLICK_WAV, format="wav"),
    ]


if __name__ == "__main__":
    server.run()
