"""The package's tools as a PydanticAI toolset (extra ``pydantic-ai``).

``toolset("PKG", only=...)`` gives a toolset for ``Agent(model, toolsets=[...])``.
The model sees each tool's input schema as the package has it; a call is validated
by the package (the toolset's own validator takes any object). Invalid input raises
``ModelRetry`` naming the field (the model is asked to try again, within the tool's
retries); a tool's error result raises ``ToolFailed`` (the model sees the failure
and adapts, without a retry). A result of text alone is a string; images and audio
come as ``BinaryContent``, resources as the text that stands in for them.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from types import ModuleType
from typing import Any

from typing_extensions import Unpack

from ..errors import ToolInputError
from ..extras import require_extra
from ..manifest import object_schema
from ..results import AudioContent, ImageContent, TextContent, ToolResult
from .toolbox import Filters, Toolbox, plain_text, stand_in_text, toolbox

require_extra("pydantic-ai")

from pydantic_ai import BinaryContent, RunContext  # noqa: E402
from pydantic_ai.exceptions import ModelRetry, ToolFailed  # noqa: E402
from pydantic_ai.tools import ToolDefinition  # noqa: E402
from pydantic_ai.toolsets import AbstractToolset, ToolsetTool  # noqa: E402
from pydantic_core import SchemaValidator, core_schema  # noqa: E402

_ANY_ARGUMENTS = SchemaValidator(core_schema.dict_schema())
"""The toolset's validator takes any JSON object: the package validates the call."""


class PackageToolset(AbstractToolset[Any]):
    """The selected tools of one package."""

    def __init__(self, box: Toolbox, id: str | None, max_retries: int) -> None:
        self._box = box
        self._invokers = box.invokers
        self._env = box.env
        self._id = id
        self._max_retries = max_retries
        self._definitions = [
            ToolDefinition(
                name=name,
                description=entry.description,
                parameters_json_schema=object_schema(entry.input_schema),
            )
            for name, entry in box.by_name.items()
        ]

    @property
    def id(self) -> str | None:
        return self._id

    async def get_tools(self, ctx: RunContext[Any]) -> dict[str, ToolsetTool[Any]]:
        return {
            definition.name: ToolsetTool(
                toolset=self,
                tool_def=definition,
                max_retries=self._max_retries,
                args_validator=_ANY_ARGUMENTS,
            )
            for definition in self._definitions
        }

    async def call_tool(
        self,
        name: str,
        tool_args: dict[str, Any],
        ctx: RunContext[Any],
        tool: ToolsetTool[Any],
    ) -> Any:
        # Toolbox.call_async and plain_text written out: a text tool's call
        # awaits nothing, and their frames were most of what the toolset added
        try:
            invoker, awaitable = self._invokers[name]
            arguments: Mapping[str, Any] = tool_args
            if type(arguments) is not dict:
                arguments = self._box.object_arguments(name, arguments)
            if awaitable is None:
                result = invoker(arguments, self._env)
            else:
                result = await awaitable(arguments, self._env)
        except ToolInputError as error:
            raise ModelRetry(str(error)) from None
        content = result.content
        if len(content) == 1 and type(content[0]) is TextContent and not result.isError:
            return content[0].text
        if result.isError:
            raise ToolFailed(result.text or f"tool '{name}' failed")
        text = plain_text(result)
        return text if text is not None else _parts(result)


def toolset(
    package: str | ModuleType,
    *,
    id: str | None = None,
    max_retries: int = 1,
    **filters: Unpack[Filters],
) -> PackageToolset:
    """The tools of ``package`` (its import name or module) that ``filters``
    select (see ``toolbox.Filters``); ``id`` names the toolset among an agent's
    (durable execution needs one), ``max_retries`` is how often the model may try
    again after invalid input."""
    return PackageToolset(toolbox(package, **filters), id, max_retries)


def _parts(result: ToolResult) -> list[Any]:
    """The content of a result that is not text alone."""
    return [
        (
            BinaryContent(base64.b64decode(item.data), media_type=item.mimeType)
            if isinstance(item, ImageContent | AudioContent)
            else stand_in_text(item)
        )
        for item in result.content
    ]
