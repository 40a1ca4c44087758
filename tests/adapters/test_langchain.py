"""LangChain runs the package's structured tools as an agent does: a fake chat
model of langchain-core emits the tool call, the tool answers with a
``ToolMessage``."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import GREET_SCHEMA

if TYPE_CHECKING:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import BaseMessage


@pytest.fixture
def structured_tools() -> Callable[..., list[Any]]:
    from mcigen_runtime.adapters.langchain import structured_tools

    return structured_tools


def _model_calling(name: str, arguments: dict[str, Any]) -> GenericFakeChatModel:
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    call = {"name": name, "args": arguments, "id": "call_1", "type": "tool_call"}
    return GenericFakeChatModel(
        messages=iter([AIMessage(content="", tool_calls=[call]), AIMessage("Done")])
    )


def _agent_turn(
    package: ModuleType, name: str, arguments: dict[str, Any]
) -> list[BaseMessage]:
    """One turn of an agent's loop: the model calls a tool, the tool answers, the
    model reads the answer."""
    from langchain_core.messages import AIMessage, HumanMessage
    from mcigen_runtime.adapters.langchain import structured_tools

    tools = {tool.name: tool for tool in structured_tools(package)}
    model = _model_calling(name, arguments)
    messages: list[BaseMessage] = [HumanMessage("Go")]
    reply = model.invoke(messages)
    assert isinstance(reply, AIMessage)
    messages.append(reply)
    for call in reply.tool_calls:
        messages.append(tools[call["name"]].invoke(call))
    messages.append(model.invoke(messages))
    return messages


def test_the_tool_call_runs_and_its_answer_is_a_tool_message(
    agentpkg: ModuleType,
) -> None:
    from langchain_core.messages import ToolMessage

    messages = _agent_turn(agentpkg, "greet", {"name": "Ann"})
    answer = messages[2]
    assert isinstance(answer, ToolMessage)
    assert (answer.content, answer.status, answer.tool_call_id) == (
        "Hello Ann",
        "success",
        "call_1",
    )
    assert answer.artifact.text == "Hello Ann"
    assert messages[-1].content == "Done"


def test_models_are_shown_the_packages_schema(
    agentpkg: ModuleType, structured_tools: Callable[..., list[Any]]
) -> None:
    from langchain_core.utils.function_calling import convert_to_openai_tool

    (greet,) = structured_tools("agentpkg", only=["greet"])
    assert (greet.name, greet.description) == ("greet", "Greet someone by name")
    assert convert_to_openai_tool(greet)["function"] == {
        "name": "greet",
        "description": "Greet someone by name",
        "parameters": GREET_SCHEMA,
    }


def test_invalid_input_is_an_error_message_naming_the_field(
    agentpkg: ModuleType,
) -> None:
    from langchain_core.messages import ToolMessage

    answer = _agent_turn(agentpkg, "greet", {"name": ["Ann"]})[2]
    assert isinstance(answer, ToolMessage) and answer.status == "error"
    assert answer.content == (
        "invalid input for tool 'greet': name: Input should be a valid string"
    )


def test_a_failing_tool_is_an_error_message(agentpkg: ModuleType) -> None:
    from langchain_core.messages import ToolMessage

    answer = _agent_turn(agentpkg, "fail", {})[2]
    assert isinstance(answer, ToolMessage) and answer.status == "error"
    assert "broken" in str(answer.content)


def test_ainvoke_awaits_the_tool(
    agentpkg: ModuleType, structured_tools: Callable[..., list[Any]]
) -> None:
    from langchain_core.messages import ToolMessage

    (weather,) = structured_tools(agentpkg, tags=["weather"])
    call = {
        "name": weather.name,
        "args": {"city": "Oslo"},
        "id": "c",
        "type": "tool_call",
    }
    answer = asyncio.run(weather.ainvoke(call))
    assert isinstance(answer, ToolMessage) and answer.content == "Sunny in Oslo"
