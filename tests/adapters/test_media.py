"""What is not text reaches each framework in its own shape: an image as the
framework's image, and a PDF (an embedded resource, which no framework here takes
from a tool) as the text that stands in for it. The tools are http tools fetching
from a real server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..conftest import built_package, schema_of, write_schema
from ..http_server import PNG, LoopbackServer

PNG_BASE64 = base64.b64encode(PNG).decode()


@pytest.fixture(scope="module")
def mediapkg(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    server = LoopbackServer()
    directory: Path = tmp_path_factory.mktemp("media")
    schema = schema_of(
        {"name": "image", "execution": {"type": "http", "url": server.base + "/image"}},
        {"name": "pdf", "execution": {"type": "http", "url": server.base + "/pdf"}},
    )
    path = write_schema(directory, schema, "mediapkg.mci.json")
    try:
        with built_package(path, directory / "mediapkg") as package:
            yield package
    finally:
        server.stop()


def test_anthropic_gets_an_image_block_and_a_resource_named(
    mediapkg: ModuleType,
) -> None:
    from anthropic.types import ToolUseBlock
    from mcigen_runtime.adapters import anthropic

    kit = anthropic.tools(mediapkg)

    def content(name: str) -> Any:
        use = ToolUseBlock(type="tool_use", id="t", name=name, input={})
        return kit.call(use)["content"]

    source = {"type": "base64", "media_type": "image/png", "data": PNG_BASE64}
    assert content("image") == [{"type": "image", "source": source}]
    ((block),) = content("pdf")
    assert block["type"] == "text" and block["text"].startswith("[resource ")


def test_openai_agents_get_an_image_output(mediapkg: ModuleType) -> None:
    from agents import ToolOutputImage, ToolOutputText
    from agents.tool_context import ToolContext
    from mcigen_runtime.adapters.openai_agents import function_tools

    tools = {tool.name: tool for tool in function_tools(mediapkg)}

    def output(name: str) -> Any:
        context = ToolContext(
            None, tool_name=name, tool_call_id="c", tool_arguments="{}"
        )

        async def invoked() -> Any:
            return await tools[name].on_invoke_tool(context, "{}")

        return asyncio.run(invoked())

    url = f"data:image/png;base64,{PNG_BASE64}"
    assert output("image") == [ToolOutputImage(image_url=url)]
    ((text),) = output("pdf")
    assert isinstance(text, ToolOutputText) and text.text.startswith("[resource ")


def test_langchain_gets_an_image_block(mediapkg: ModuleType) -> None:
    from mcigen_runtime.adapters.langchain import structured_tools

    image, _ = structured_tools(mediapkg)
    call = {"name": "image", "args": {}, "id": "c", "type": "tool_call"}
    assert image.invoke(call).content == [
        {"type": "image", "base64": PNG_BASE64, "mime_type": "image/png"}
    ]


def test_pydantic_ai_gets_binary_content(mediapkg: ModuleType) -> None:
    from mcigen_runtime.adapters.pydantic_ai import toolset
    from pydantic_ai import BinaryContent

    tools = toolset(mediapkg)
    answer = asyncio.run(tools.call_tool("image", {}, None, None))  # type: ignore[arg-type]
    assert answer == [BinaryContent(PNG, media_type="image/png")]
