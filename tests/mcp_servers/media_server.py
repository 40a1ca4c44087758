"""An MCP server (official SDK) whose answers a broker must carry without doubling:
a structured report (its JSON is also the text), a snapshot of text, an image
and a sound, and verses: text items around an image.

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


@server.tool()
def verses(count: int) -> list[str | Image]:
    """``count`` verses, one text item each, with a one-pixel PNG after the first."""
    texts: list[str | Image] = [f"verse {i}" for i in range(count)]
    return texts[:1] + [Image(data=PIXEL_PNG, format="png")] + texts[1:]


if __name__ == "__main__":
    server.run()
