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

STRUCTURED_CONTENT = "structuredContent"
"""The metadata key of an MCP tool result's structured content."""


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


_new = object.__new__
_set = object.__setattr__
_TEXT_FIELDS = frozenset({"type", "text"})
_RESULT_FIELDS = frozenset({"content", "isError", "metadata"})


def _built(model: type[Any], fields: frozenset[str], values: dict[str, Any]) -> Any:
    """A model instance from values known to be valid, as ``model_construct`` makes
    it, without its per-call bookkeeping: a tool's result is built on every call,
    and this takes a quarter of the time. ``tests/test_results.py`` holds the two
    to the same instances."""
    instance = _new(model)
    _set(instance, "__dict__", values)
    _set(instance, "__pydantic_fields_set__", set(fields))
    _set(instance, "__pydantic_extra__", None)
    _set(instance, "__pydantic_private__", None)
    return instance


def text_content(text: str) -> TextContent:
    content: TextContent = _built(
        TextContent, _TEXT_FIELDS, {"type": "text", "text": text}
    )
    return content


def tool_result(
    content: list[Content], is_error: bool, metadata: dict[str, Any] | None
) -> ToolResult:
    values = {"content": content, "isError": is_error, "metadata": metadata}
    result: ToolResult = _built(ToolResult, _RESULT_FIELDS, values)
    return result


def text_result(text: str, metadata: dict[str, Any] | None = None) -> ToolResult:
    return tool_result([text_content(text)], False, metadata)


def error_result(message: str, metadata: dict[str, Any] | None = None) -> ToolResult:
    return tool_result([text_content(message)], True, metadata)
