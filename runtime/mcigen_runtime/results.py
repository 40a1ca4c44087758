"""The result of a tool call, shaped like mci-py's ``ExecutionResult.result``.

Its content items are MCP's: mci-py's text, image and audio, and also embedded
resources and resource links, each with MCP's optional annotations and ``_meta``
(``meta`` in Python: what an upstream MCP server attached to the item, passed on as
it came). A field that is not set is left out of dumps, so a result without them
dumps as mci-py's does.
"""

# No ``from __future__ import annotations``: pydantic would compile and evaluate
# every field's annotation string of the ten models at import, ~15% of their cost
# in a package's cold start; here Python evaluates them as it makes each class.
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from .deferred import DeferredModel


def _unset(value: object) -> bool:
    return value is None


def _optional() -> Any:
    """A field that may be absent, and then is left out of dumps."""
    return Field(default=None, exclude_if=_unset)


class _Item(DeferredModel):
    """A content item or a resource's contents: its ``meta`` dumps as ``_meta``."""

    model_config = ConfigDict(populate_by_name=True, serialize_by_alias=True)

    meta: dict[str, Any] | None = Field(default=None, alias="_meta", exclude_if=_unset)


class Annotations(DeferredModel):
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


class ToolResult(DeferredModel):
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
# A model instance keeps its state in the four slots BaseModel declares. Its
# descriptor's setter, looked up once, sets ``__dict__`` without what
# ``object.__setattr__`` does on every call (an argument tuple copied, the type's
# setattr checked).
_set_dict = _SLOTS["__dict__"].__set__


class _SlotDefault:
    """One of pydantic's per-instance slots, read through a default until set.

    A result is built on every call, and storing the three slots beside
    ``__dict__`` (the fields set, the extra and private values, all known in
    advance) was half its cost, with the calls between the builders. The builders below set ``__dict__`` only;
    the first read of another slot stores and returns its default (a fresh set of
    the fields a builder gives, or None), as if the builder had stored it. Pydantic
    reads and writes these slots by name (``getattr``, ``object.__setattr__``),
    which finds this data descriptor on the class before BaseModel's slot (its own
    ``RootModel`` shadows two of these slots with class attributes too)."""

    __slots__ = ("_slot", "_default")

    def __init__(self, name: str, default: Callable[[], object]) -> None:
        self._slot = _SLOTS[name]
        self._default = default

    def __get__(self, instance: object, owner: type | None = None) -> Any:
        if instance is None:
            return self
        try:
            return self._slot.__get__(instance, owner)
        except AttributeError:
            value = self._default()
            self._slot.__set__(instance, value)
            return value

    def __set__(self, instance: object, value: object) -> None:
        self._slot.__set__(instance, value)

    def __delete__(self, instance: object) -> None:
        self._slot.__delete__(instance)


def _built_by_dict(model: type[BaseModel], fields: tuple[str, ...]) -> None:
    """Let ``model``'s instances be built by setting their ``__dict__`` alone,
    ``fields`` being the fields its builder gives (``model_fields_set``)."""
    defaults: dict[str, Callable[[], object]] = {
        "__pydantic_fields_set__": lambda: set(fields),
        "__pydantic_extra__": lambda: None,
        "__pydantic_private__": lambda: None,
    }
    for name, default in defaults.items():
        setattr(model, name, _SlotDefault(name, default))


_built_by_dict(TextContent, ("type", "text"))
_built_by_dict(ToolResult, ("content", "isError", "metadata"))


_TEXT_CONTENT_STATE: dict[str, Any] = {
    "meta": None,
    "type": "text",
    "text": "",
    "annotations": None,
}
_TOOL_RESULT_STATE: dict[str, Any] = {
    "content": None,
    "isError": False,
    "metadata": None,
}
"""The ``__dict__`` of a text item and of a result, the values a builder changes
aside: a copy and one or two stores are cheaper than a dict display of the same
keys (~700 instructions of a text call's ~11,000)."""


def text_content(text: str) -> TextContent:
    content: TextContent = _new(TextContent)
    state = _TEXT_CONTENT_STATE.copy()
    state["text"] = text
    _set_dict(content, state)
    return content


def tool_result(
    content: list[Content], is_error: bool, metadata: dict[str, Any] | None
) -> ToolResult:
    result: ToolResult = _new(ToolResult)
    _set_dict(result, {"content": content, "isError": is_error, "metadata": metadata})
    return result


def text_result(text: str, metadata: dict[str, Any] | None = None) -> ToolResult:
    """A result of one text item: what most calls return, so the two builds
    above are written out here (a call costs as much as a quarter of a build)."""
    item = _new(TextContent)
    item_state = _TEXT_CONTENT_STATE.copy()
    item_state["text"] = text
    _set_dict(item, item_state)
    result: ToolResult = _new(ToolResult)
    state = _TOOL_RESULT_STATE.copy()
    state["content"] = [item]
    if metadata is not None:
        state["metadata"] = metadata
    _set_dict(result, state)
    return result


def error_result(message: str, metadata: dict[str, Any] | None = None) -> ToolResult:
    return tool_result([text_content(message)], True, metadata)
