"""The result of a tool call, shaped like mci-py's ``ExecutionResult.result``.

Its content items are MCP's: mci-py's text, image and audio, and also embedded
resources and resource links, each with MCP's optional annotations and ``_meta``
(``meta`` in Python: what an upstream MCP server attached to the item, passed on as
it came). A field that is not set is left out of dumps, so a result without them
dumps as mci-py's does.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


def _unset(value: object) -> bool:
    return value is None


def _optional() -> Any:
    """A field that may be absent, and then is left out of dumps."""
    return Field(default=None, exclude_if=_unset)


class _Item(BaseModel):
    """A content item or a resource's contents: its ``meta`` dumps as ``_meta``."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    meta: dict[str, Any] | None = Field(default=None, alias="_meta", exclude_if=_unset)


class Annotations(BaseModel):
    """Who a content item is meant for, how much it matters and when it changed."""

    audience: list[Literal["user", "assistant"]] | None = _optional()
    priority: float | None = _optional()
    lastModified: str | None = _optional()


class TextContent(_Item):
    type: Literal["text"] = "text"
    text: str
    annotations: Annotations | None = _optional()


class ImageContent(_Item):
    type: Literal["image"] = "image"
    data: str
    """Base64."""
    mimeType: str
    annotations: Annotations | None = _optional()


class AudioContent(_Item):
    type: Literal["audio"] = "audio"
    data: str
    """Base64."""
    mimeType: str
    annotations: Annotations | None = _optional()


class TextResourceContents(_Item):
    uri: str
    mimeType: str | None = _optional()
    text: str


class BlobResourceContents(_Item):
    uri: str
    mimeType: str | None = _optional()
    blob: str
    """Base64."""


class EmbeddedResource(_Item):
    """A resource's contents, carried in the result."""

    type: Literal["resource"] = "resource"
    resource: TextResourceContents | BlobResourceContents
    annotations: Annotations | None = _optional()


class ResourceLink(_Item):
    """A resource the client may read, named but not carried."""

    type: Literal["resource_link"] = "resource_link"
    uri: str
    name: str
    title: str | None = _optional()
    description: str | None = _optional()
    mimeType: str | None = _optional()
    size: int | None = _optional()
    annotations: Annotations | None = _optional()


Content = TextContent | ImageContent | AudioContent | EmbeddedResource | ResourceLink

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
_SLOTS = BaseModel.__dict__
# A model instance keeps its state in the four slots BaseModel declares. Their
# descriptors' setters, looked up once, skip what ``object.__setattr__`` does on
# every call (an argument tuple copied, the type's setattr checked): a third less.
_set_dict = _SLOTS["__dict__"].__set__
_set_fields = _SLOTS["__pydantic_fields_set__"].__set__
_set_extra = _SLOTS["__pydantic_extra__"].__set__
_set_private = _SLOTS["__pydantic_private__"].__set__
_TEXT_FIELDS = frozenset({"type", "text"})
_RESULT_FIELDS = frozenset({"content", "isError", "metadata"})


def _built(model: type[Any], fields: frozenset[str], values: dict[str, Any]) -> Any:
    """A model instance from values known to be valid, as ``model_construct`` makes
    it, without its per-call bookkeeping: a tool's result is built on every call,
    and this takes a fraction of its time. ``tests/test_results.py`` holds the two
    to the same instances."""
    instance = _new(model)
    _set_dict(instance, values)
    _set_fields(instance, set(fields))
    _set_extra(instance, None)
    _set_private(instance, None)
    return instance


def text_content(text: str) -> TextContent:
    content: TextContent = _built(
        TextContent,
        _TEXT_FIELDS,
        {"meta": None, "type": "text", "text": text, "annotations": None},
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
