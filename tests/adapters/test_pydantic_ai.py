"""A PydanticAI agent calls the package's tools through its toolset, driven by
PydanticAI's own ``FunctionModel`` and ``TestModel``."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import GREET_SCHEMA

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, ModelResponse
    from pydantic_ai.models.function import AgentInfo, FunctionModel


@pytest.fixture
def toolset() -> Callable[..., Any]:
    from mcigen_runtime.adapters.pydantic_ai import toolset

    return toolset


@pytest.fixture
def agent_class() -> type[Any]:
    from pydantic_ai import Agent

    return Agent


def scripted(
    name: str, arguments: dict[str, Any], seen: list[Any] | None = None
) -> FunctionModel:
    """A model that calls ``name`` once, then answers with what came back (how
    it came back: ``success``, ``failed`` or ``retried``); ``seen`` gets the tool
    definitions the model was shown."""
    from pydantic_ai.messages import (
        ModelRequest,
        ModelResponse,
        TextPart,
        ToolCallPart,
        ToolReturnPart,
    )
    from pydantic_ai.models.function import FunctionModel

    def reply(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if seen is not None:
            seen.extend(info.function_tools)
        last = messages[-1]
        assert isinstance(last, ModelRequest)
        answers = [part for part in last.parts if isinstance(part, ToolReturnPart)]
        if not answers:
            return ModelResponse(parts=[ToolCallPart(name, arguments)])
        (answer,) = answers
        return ModelResponse(parts=[TextPart(f"{answer.outcome}: {answer.content}")])

    return FunctionModel(reply)


def test_the_agent_calls_the_tool_and_gets_its_answer(
    agentpkg: ModuleType, toolset: Callable[..., Any], agent_class: type[Any]
) -> None:
    seen: list[Any] = []
    model = scripted("greet", {"name": "Ann"}, seen)
    agent = agent_class(model, toolsets=[toolset(agentpkg, only=["greet"])])
    result = agent.run_sync("Greet Ann")
    assert result.output == "success: Hello Ann"
    assert seen[0].name == "greet"
    assert seen[0].description == "Greet someone by name"
    assert seen[0].parameters_json_schema == GREET_SCHEMA


def test_invalid_input_asks_the_model_to_retry_naming_the_field(
    agentpkg: ModuleType, toolset: Callable[..., Any], agent_class: type[Any]
) -> None:
    agent = agent_class(scripted("greet", {"name": 7}), toolsets=[toolset("agentpkg")])
    output = agent.run_sync("Greet").output
    assert output == (
        "retried: invalid input for tool 'greet': name: Input should be a valid string"
    )


def test_a_failing_tool_is_a_failed_tool_result(
    agentpkg: ModuleType, toolset: Callable[..., Any], agent_class: type[Any]
) -> None:
    agent = agent_class(scripted("fail", {}), toolsets=[toolset("agentpkg")])
    output = agent.run_sync("Fail").output
    assert output.startswith("failed: ") and "broken" in output


def test_the_test_model_calls_every_selected_tool(
    agentpkg: ModuleType, toolset: Callable[..., Any], agent_class: type[Any]
) -> None:
    from pydantic_ai.models.test import TestModel

    agent = agent_class(TestModel(), toolsets=[toolset("agentpkg", tags=["weather"])])
    output = agent.run_sync("Weather?").output
    assert "Sunny in " in output
