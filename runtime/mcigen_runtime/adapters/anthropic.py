"""The package's tools for the Anthropic SDK (extra ``anthropic``).

``tools("PKG", only=...)`` gives :class:`AnthropicTools`: ``definitions`` for
``messages.create(tools=...)``, ``results(message)`` (and its awaitable twin) that
runs every ``tool_use`` block of a reply and answers with the ``tool_result``
blocks of the next user turn, and ``runnable()`` for the SDK's tool runner
(``client.beta.messages.tool_runner``). Invalid input, an unknown tool and a tool's
error result are ``tool_result`` blocks with ``is_error`` set, the text naming the
field or the failure, as the SDK's runner reports a tool's errors.
"""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any, Protocol, cast

from typing_extensions import Unpack

from ..errors import ToolInputError
from ..extras import require_extra
from ..manifest import object_schema
from ..registry import UnknownToolError
from ..results import ImageContent, TextContent, ToolResult
from .toolbox import Filters, Toolbox, plain_text, stand_in_text, toolbox

require_extra("anthropic")

from anthropic.lib.tools import (  # noqa: E402 (after the check of the extra)
    BetaAsyncBuiltinFunctionTool,
    BetaBuiltinFunctionTool,
    BetaFunctionToolResultType,
    ToolError,
)
from anthropic.types import ToolParam, ToolResultBlockParam  # noqa: E402
from anthropic.types.beta import BetaToolParam  # noqa: E402
from anthropic.types.tool_result_block_param import Content  # noqa: E402


class ToolUse(Protocol):
    """A ``tool_use`` block of a reply (``ToolUseBlock``, ``BetaToolUseBlock``)."""

    @property
    def id(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def input(self) -> object: ...


class Reply(Protocol):
    """A reply of the Messages API (``Message``, ``BetaMessage``)."""

    @property
    def content(self) -> Sequence[object]: ...


class AnthropicTools:
    """The selected tools of one package, in the Anthropic SDK's shapes."""

    def __init__(self, box: Toolbox) -> None:
        self._box = box
        self._invokers = box.invokers
        self._env = box.env
        self.definitions: list[ToolParam] = [
            _definition(name, entry.description, entry.input_schema)
            for name, entry in box.by_name.items()
        ]
        """The ``tools`` of a ``messages.create`` request."""

    def call(self, tool_use: ToolUse) -> ToolResultBlockParam:
        """Run one ``tool_use`` block; its ``tool_result`` block."""
        # Toolbox.call written out: its frame, and _result_block's for a text
        # result, were most of what the adapter added to a call
        arguments = tool_use.input
        try:
            invoker, _ = self._invokers[tool_use.name]
            if type(arguments) is not dict:
                arguments = self._box.object_arguments(tool_use.name, arguments)
            result = invoker(arguments, self._env)
        except (ToolInputError, UnknownToolError) as error:
            return _error_block(tool_use.id, str(error))
        content = result.content
        if len(content) == 1 and type(content[0]) is TextContent and not result.isError:
            text: Content = {"type": "text", "text": content[0].text}
            return {
                "type": "tool_result",
                "tool_use_id": tool_use.id,
                "content": [text],
            }
        return _result_block(tool_use.id, result)

    async def call_async(self, tool_use: ToolUse) -> ToolResultBlockParam:
        """:meth:`call` for ``AsyncAnthropic``: tools that do I/O are awaited."""
        try:
            result = await self._box.call_async(tool_use.name, tool_use.input)
        except (ToolInputError, UnknownToolError) as error:
            return _error_block(tool_use.id, str(error))
        return _result_block(tool_use.id, result)

    def results(self, reply: Reply) -> list[ToolResultBlockParam]:
        """The ``tool_result`` blocks answering every ``tool_use`` block of
        ``reply``, in order: the content of the next user message."""
        return [self.call(use) for use in _tool_uses(reply)]

    async def results_async(self, reply: Reply) -> list[ToolResultBlockParam]:
        return [await self.call_async(use) for use in _tool_uses(reply)]

    def runnable(self) -> list[BetaBuiltinFunctionTool]:
        """The tools for ``client.beta.messages.tool_runner(tools=...)``."""
        return [_RunnableTool(self._box, name) for name in self._box.by_name]

    def runnable_async(self) -> list[BetaAsyncBuiltinFunctionTool]:
        """The tools for ``AsyncAnthropic().beta.messages.tool_runner``."""
        return [_AsyncRunnableTool(self._box, name) for name in self._box.by_name]


def tools(package: str | ModuleType, **filters: Unpack[Filters]) -> AnthropicTools:
    """The tools of ``package`` (its import name or module) that ``filters``
    select (see ``toolbox.Filters``)."""
    return AnthropicTools(toolbox(package, **filters))


class _RunnableTool(BetaBuiltinFunctionTool):
    def __init__(self, box: Toolbox, name: str) -> None:
        self._box = box
        self._name = name

    def to_dict(self) -> BetaToolParam:
        return _tool_param(self._box, self._name)

    def call(self, input: object) -> BetaFunctionToolResultType:
        try:
            result = self._box.call(self._name, input)
        except ToolInputError as error:
            raise ToolError(str(error)) from None
        return _runner_content(result)


class _AsyncRunnableTool(BetaAsyncBuiltinFunctionTool):
    def __init__(self, box: Toolbox, name: str) -> None:
        self._box = box
        self._name = name

    def to_dict(self) -> BetaToolParam:
        return _tool_param(self._box, self._name)

    async def call(self, input: object) -> BetaFunctionToolResultType:
        try:
            result = await self._box.call_async(self._name, input)
        except ToolInputError as error:
            raise ToolError(str(error)) from None
        return _runner_content(result)


def _runner_content(result: ToolResult) -> BetaFunctionToolResultType:
    """What a runner's tool returns: the content, or ``ToolError`` (which the
    runner sends with ``is_error``)."""
    content = cast(BetaFunctionToolResultType, _content(result))
    if result.isError:
        raise ToolError(content)
    return content


def _tool_param(box: Toolbox, name: str) -> ToolParam:
    entry = box.by_name[name]
    return _definition(name, entry.description, entry.input_schema)


def _definition(
    name: str, description: str | None, schema: dict[str, Any] | None
) -> ToolParam:
    definition: ToolParam = {"name": name, "input_schema": object_schema(schema)}
    if description is not None:
        definition["description"] = description
    return definition


def _tool_uses(reply: Reply) -> list[ToolUse]:
    return [
        cast(ToolUse, block)
        for block in reply.content
        if getattr(block, "type", None) == "tool_use"
    ]


def _result_block(tool_use_id: str, result: ToolResult) -> ToolResultBlockParam:
    block: ToolResultBlockParam = {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": _content(result),
    }
    if result.isError:
        block["is_error"] = True
    return block


def _error_block(tool_use_id: str, message: str) -> ToolResultBlockParam:
    return {
        "type": "tool_result",
        "tool_use_id": tool_use_id,
        "content": [{"type": "text", "text": message}],
        "is_error": True,
    }


def _content(result: ToolResult) -> list[Content]:
    """The result's content as Anthropic content blocks: text alone as one text
    block, images as they are; what the API does not take (audio, resources) as
    the text that stands in for it."""
    text = plain_text(result)
    if text is not None:
        return [{"type": "text", "text": text}]
    blocks: list[Content] = []
    for item in result.content:
        if isinstance(item, ImageContent):
            source: Any = {
                "type": "base64",
                "media_type": item.mimeType,
                "data": item.data,
            }
            blocks.append({"type": "image", "source": source})
        else:
            blocks.append({"type": "text", "text": stand_in_text(item)})
    return blocks
