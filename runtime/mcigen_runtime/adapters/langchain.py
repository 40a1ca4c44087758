"""The package's tools as LangChain structured tools (extra ``langchain``).

``structured_tools("PKG", only=...)`` gives a ``StructuredTool`` per tool for
``model.bind_tools(...)`` and agents. Its ``args_schema`` is the tool's input
schema as the package has it; a call is validated by the package, and awaited
under ``ainvoke``. A tool answers with its content (a string for text alone, else
LangChain content blocks: text, images and audio, and for resources the text that
stands in for them) and the whole ``ToolResult`` as the artifact. Invalid
input and a tool's error result are ``ToolException`` s, which the tools handle as
LangChain does: the model gets a ``ToolMessage`` with ``status="error"`` whose
text names the field or the failure.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from typing_extensions import Unpack

from ..errors import ToolInputError
from ..extras import require_extra
from ..manifest import object_schema
from ..results import AudioContent, ImageContent, TextContent, ToolResult
from .toolbox import Filters, Toolbox, plain_text, stand_in_text, toolbox

require_extra("langchain")

from langchain_core.tools import StructuredTool, ToolException  # noqa: E402


def structured_tools(
    package: str | ModuleType, **filters: Unpack[Filters]
) -> list[StructuredTool]:
    """The tools of ``package`` (its import name or module) that ``filters``
    select (see ``toolbox.Filters``)."""
    box = toolbox(package, **filters)
    return [_structured_tool(box, name) for name in box.by_name]


def _structured_tool(box: Toolbox, name: str) -> StructuredTool:
    entry = box.by_name[name]
    invokers, env = box.invokers, box.env

    def run(**arguments: Any) -> tuple[Any, ToolResult]:
        # Toolbox.call, _answer and plain_text written out for a text result:
        # their three frames were most of what the adapter added to a call
        try:
            result = invokers[name][0](arguments, env)
        except ToolInputError as error:
            raise ToolException(str(error)) from None
        content = result.content
        if len(content) == 1 and type(content[0]) is TextContent and not result.isError:
            return content[0].text, result
        return _answer(name, result)

    async def run_async(**arguments: Any) -> tuple[Any, ToolResult]:
        try:
            return _answer(name, await box.call_async(name, arguments))
        except ToolInputError as error:
            raise ToolException(str(error)) from None

    return StructuredTool(
        name=name,
        description=entry.description or "",
        args_schema=object_schema(entry.input_schema),
        func=run,
        coroutine=run_async,
        response_format="content_and_artifact",
        handle_tool_error=True,
    )


def _answer(name: str, result: ToolResult) -> tuple[Any, ToolResult]:
    """(content, artifact) of a result; ``ToolException`` for an error result."""
    if result.isError:
        raise ToolException(result.text or f"tool '{name}' failed")
    text = plain_text(result)
    if text is not None:
        return text, result
    blocks: list[dict[str, Any]] = []
    for item in result.content:
        if isinstance(item, ImageContent | AudioContent):
            blocks.append(
                {"type": item.type, "base64": item.data, "mime_type": item.mimeType}
            )
        else:
            blocks.append({"type": "text", "text": stand_in_text(item)})
    return blocks, result
