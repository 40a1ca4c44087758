"""The result of a tool call, shaped like mci-py's ``ExecutionResult.result``."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel


class TextContent(BaseModel):
    type: Literal["text"] = "text"
    text: str


class ImageContent(BaseModel):
    type: Literal["image"] = "image"
    data: str
    mimeType: str


class AudioContent(BaseModel):
    type: Literal["audio"] = "audio"
    data: str
    mimeType: str


Content = TextContent | ImageContent | AudioContent


class ToolResult(BaseModel):
    """What every generated tool function returns.

    A failure while running (a missing placeholder value, an HTTP error status, a
    non-zero exit code) is a result with ``isError`` set, never an exception.
    """

    content: list[Content]
    isError: bool = False
    metadata: dict[str, Any] | None = None

    @property
    def text(self) -> str:
        """The text content items joined by newlines."""
        return "\n".join(c.text for c in self.content if isinstance(c, TextContent))


def text_result(text: str, metadata: dict[str, Any] | None = None) -> ToolResult:
    return ToolResult.model_construct(
        content=[TextContent.model_construct(type="text", text=text)],
        isError=False,
        metadata=metadata,
    )


def error_result(message: str, metadata: dict[str, Any] | None = None) -> ToolResult:
    return ToolResult.model_construct(
        content=[TextContent.model_construct(type="text", text=message)],
        isError=True,
        metadata=metadata,
    )
