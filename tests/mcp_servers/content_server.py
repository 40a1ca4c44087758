"""An MCP server (official SDK) answering every kind of content MCP has: an
embedded text resource, text with an image and an embedded resource (under the
tool names of the conformance suite's scenarios), a sound, annotated text with a
resource link and an embedded blob, items that carry ``_meta``, and a tool that
reports its progress three times before it answers.

    python content_server.py
"""

from __future__ import annotations

import base64

from mcp.server.mcpserver import Context, MCPServer
from mcp_types import (
    Annotations,
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
    TextContent,
    TextResourceContents,
)

server = MCPServer("content")

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
CLICK = base64.b64encode(b"RIFF$\x00\x00\x00WAVEfmt " + bytes(28)).decode()
NOTE = EmbeddedResource(
    type="resource",
    resource=TextResourceContents(
        uri="test://embedded-resource",
        mime_type="text/plain",
        text="This is an embedded resource content.",
    ),
)
FOR_THE_USER = Annotations(audience=["user"], priority=0.9)
STEPS = (0, 50, 100)
TAG = {"example.com/source": "upstream", "rank": 1}


@server.tool()
def test_embedded_resource() -> list[ContentBlock]:
    """An embedded text resource."""
    return [NOTE]


@server.tool()
def test_multiple_content_types() -> list[ContentBlock]:
    """Text, an image and an embedded resource."""
    return [
        TextContent(type="text", text="Multiple content types test:"),
        ImageContent(type="image", data=PIXEL, mime_type="image/png"),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="test://mixed-content-resource",
                mime_type="application/json",
                text='{"test": "data", "value": 123}',
            ),
        ),
    ]


@server.tool()
def sound() -> list[ContentBlock]:
    """A short WAV."""
    return [AudioContent(type="audio", data=CLICK, mime_type="audio/wav")]


@server.tool()
def linked() -> list[ContentBlock]:
    """Annotated text, a resource link and an embedded blob."""
    return [
        TextContent(type="text", text="for your eyes", annotations=FOR_THE_USER),
        ResourceLink(
            type="resource_link",
            uri="test://report.pdf",
            name="report",
            title="The report",
            mime_type="application/pdf",
            size=1234,
            annotations=FOR_THE_USER,
        ),
        EmbeddedResource(
            type="resource",
            resource=BlobResourceContents(
                uri="test://blob", mime_type="application/octet-stream", blob="AAE="
            ),
        ),
    ]


@server.tool()
def tagged() -> list[ContentBlock]:
    """Items with ``_meta``: text, an image, and an embedded resource whose
    contents have their own."""
    return [
        TextContent(type="text", text="tagged", _meta=TAG),
        ImageContent(type="image", data=PIXEL, mime_type="image/png", _meta=TAG),
        EmbeddedResource(
            type="resource",
            resource=TextResourceContents(
                uri="test://tagged", text="inside", _meta={"inner": True}
            ),
            _meta=TAG,
        ),
    ]


@server.tool()
async def test_tool_with_progress(ctx: Context) -> str:
    """Reports 0, 50 and 100 of 100, then answers."""
    for step in STEPS:
        await ctx.report_progress(step, 100, f"step {step}")
    return "done"


if __name__ == "__main__":
    server.run()
