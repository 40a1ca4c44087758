"""The package's tools as function tools of the OpenAI Agents SDK (extra
``openai-agents``).

``function_tools("PKG", only=...)`` gives a ``FunctionTool`` per tool for
``Agent(tools=...)``. Its parameters are the tool's input schema as the package
has it (not in strict mode, which would ask the schema for shapes the package's
schemas need not have); a call is validated by the package and awaited. The model
gets the text of the result (images as data URLs); invalid input (or arguments
that are not JSON) and a tool's error result come back as the text of the error,
as the SDK returns a tool's errors to the model, naming the field or the failure.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from typing_extensions import Unpack

from ..errors import ToolInputError
from ..extras import require_extra
from ..manifest import object_schema
from ..results import ImageContent, TextContent, ToolResult
from .toolbox import Filters, Toolbox, plain_text, stand_in_text, toolbox

require_extra("openai-agents")

from agents import FunctionTool, ToolOutputImage, ToolOutputText  # noqa: E402
from agents.tool_context import ToolContext  # noqa: E402
from pydantic_core import from_json  # noqa: E402


def function_tools(
    package: str | ModuleType, **filters: Unpack[Filters]
) -> list[FunctionTool]:
    """The tools of ``package`` (its import name or module) that ``filters``
    select (see ``toolbox.Filters``)."""
    box = toolbox(package, **filters)
    return [_function_tool(box, name) for name in box.by_name]


def _function_tool(box: Toolbox, name: str) -> FunctionTool:
    entry = box.by_name[name]
    invokers, env = box.invokers, box.env

    async def invoke(context: ToolContext[Any], arguments: str) -> Any:
        try:
            parsed = from_json(arguments or "{}")
        except ValueError as error:
            return f"invalid input for tool '{entry.name}': not JSON ({error})"
        # Toolbox.call_async and plain_text written out: a text tool's call
        # awaits nothing, and their frames were most of what the adapter added
        try:
            invoker, awaitable = invokers[name]
            if type(parsed) is not dict:
                parsed = box.object_arguments(name, parsed)
            if awaitable is None:
                result = invoker(parsed, env)
            else:
                result = await awaitable(parsed, env)
        except ToolInputError as error:
            return str(error)
        content = result.content
        if len(content) == 1 and type(content[0]) is TextContent and not result.isError:
            return content[0].text
        if result.isError:
            return f"tool '{entry.name}' failed: {result.text}"
        text = plain_text(result)
        return text if text is not None else _outputs(result)

    return FunctionTool(
        name=name,
        description=entry.description or "",
        params_json_schema=object_schema(entry.input_schema),
        on_invoke_tool=invoke,
        strict_json_schema=False,
    )


def _outputs(result: ToolResult) -> list[ToolOutputText | ToolOutputImage]:
    """The SDK's text and image outputs of a result that is not text alone (for
    what function outputs cannot carry, audio and resources, the text that stands
    in for it)."""
    outputs: list[ToolOutputText | ToolOutputImage] = []
    for item in result.content:
        if isinstance(item, ImageContent):
            url = f"data:{item.mimeType};base64,{item.data}"
            outputs.append(ToolOutputImage(image_url=url))
        else:
            outputs.append(ToolOutputText(text=stand_in_text(item)))
    return outputs
