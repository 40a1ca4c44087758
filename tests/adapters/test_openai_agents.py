"""The OpenAI Agents SDK's ``Runner`` calls the package's function tools: its
Chat Completions model, with a real ``AsyncOpenAI`` client, talks to a local
server replaying the API (a tool call, then text)."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest

from .conftest import GREET_SCHEMA
from .replay import ReplayServer, replaying


@pytest.fixture
def function_tools() -> Callable[..., list[Any]]:
    from mcigen_runtime.adapters.openai_agents import function_tools

    return function_tools


def tool_call(name: str, arguments: str) -> dict[str, Any]:
    call = {
        "id": "call_1",
        "type": "function",
        "function": {"name": name, "arguments": arguments},
    }
    return _completion(
        "tool_calls", {"role": "assistant", "content": None, "tool_calls": [call]}
    )


def final_text(text: str) -> dict[str, Any]:
    return _completion("stop", {"role": "assistant", "content": text})


def _completion(finish_reason: str, message: dict[str, Any]) -> dict[str, Any]:
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 0,
        "model": "gpt-test",
        "choices": [{"index": 0, "finish_reason": finish_reason, "message": message}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
    }


def _run(server: ReplayServer, tools: list[Any]) -> str:
    from agents import Agent, OpenAIChatCompletionsModel, RunConfig, Runner
    from openai import AsyncOpenAI

    client = AsyncOpenAI(base_url=server.base, api_key="test", max_retries=0)
    agent = Agent(
        name="tester",
        model=OpenAIChatCompletionsModel(model="gpt-test", openai_client=client),
        tools=tools,
    )
    result = Runner.run_sync(agent, "Go", run_config=RunConfig(tracing_disabled=True))
    return str(result.final_output)


def _tool_message(server: ReplayServer) -> dict[str, Any]:
    messages: list[dict[str, Any]] = server.requests[1]["messages"]
    (message,) = [m for m in messages if m["role"] == "tool"]
    return message


def test_the_runner_calls_the_tool_and_sends_its_answer(
    agentpkg: ModuleType, function_tools: Callable[..., list[Any]]
) -> None:
    tools = function_tools(agentpkg, exclude=["fail", "note"])
    with replaying(tool_call("greet", '{"name": "Ann"}'), final_text("Done")) as server:
        assert _run(server, tools) == "Done"
    assert _tool_message(server) == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": "Hello Ann",
    }
    sent = {
        tool["function"]["name"]: tool["function"]
        for tool in server.requests[0]["tools"]
    }
    assert len(sent) == 2
    assert all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", name) for name in sent)
    assert sent["greet"]["parameters"] == GREET_SCHEMA
    assert sent["greet"]["description"] == "Greet someone by name"


def test_invalid_input_is_returned_to_the_model_naming_the_field(
    agentpkg: ModuleType, function_tools: Callable[..., list[Any]]
) -> None:
    tools = function_tools("agentpkg")
    with replaying(
        tool_call("greet", json.dumps({"name": 1})), final_text("Sorry")
    ) as server:
        assert _run(server, tools) == "Sorry"
    assert _tool_message(server)["content"] == (
        "invalid input for tool 'greet': name: Input should be a valid string"
    )


def test_a_failing_tool_is_returned_as_its_failure(
    agentpkg: ModuleType, function_tools: Callable[..., list[Any]]
) -> None:
    tools = function_tools("agentpkg", only=["fail"])
    with replaying(tool_call("fail", "{}"), final_text("Sorry")) as server:
        _run(server, tools)
    content = _tool_message(server)["content"]
    assert content.startswith("tool 'fail' failed: ") and "broken" in content


def test_arguments_that_are_not_json_are_returned_as_invalid_input(
    agentpkg: ModuleType, function_tools: Callable[..., list[Any]]
) -> None:
    tools = function_tools("agentpkg", only=["greet"])
    with replaying(tool_call("greet", '{"name": '), final_text("Sorry")) as server:
        _run(server, tools)
    content = _tool_message(server)["content"]
    assert content.startswith("invalid input for tool 'greet': not JSON")
