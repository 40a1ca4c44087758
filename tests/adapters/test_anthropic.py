"""The Anthropic SDK drives the package's tools: a real ``Anthropic`` client talks
to a local server replaying the Messages API (a ``tool_use`` reply, then text)."""

from __future__ import annotations

import asyncio
from types import ModuleType
from typing import TYPE_CHECKING, Any

import pytest

from .conftest import GREET_SCHEMA
from .replay import replaying

if TYPE_CHECKING:
    import anthropic
    from mcigen_runtime.adapters.anthropic import AnthropicTools

MODEL = "claude-test"


@pytest.fixture
def adapter() -> ModuleType:
    from mcigen_runtime.adapters import anthropic

    return anthropic


def tool_use(name: str, arguments: dict[str, Any]) -> dict[str, Any]:
    return _message(
        "tool_use",
        [{"type": "tool_use", "id": "toolu_1", "name": name, "input": arguments}],
    )


def final_text(text: str) -> dict[str, Any]:
    return _message("end_turn", [{"type": "text", "text": text}])


def _message(stop_reason: str, content: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }


def _converse(kit: AnthropicTools, base: str) -> anthropic.types.Message:
    """The loop of the SDK's docs: ask, run the tool uses, send the results back."""
    import anthropic

    client = anthropic.Anthropic(base_url=base, api_key="test", max_retries=0)
    messages: list[Any] = [{"role": "user", "content": "Greet Ann"}]
    reply = client.messages.create(
        model=MODEL, max_tokens=100, tools=kit.definitions, messages=messages
    )
    messages += [
        {"role": "assistant", "content": reply.content},
        {"role": "user", "content": kit.results(reply)},
    ]
    return client.messages.create(
        model=MODEL, max_tokens=100, tools=kit.definitions, messages=messages
    )


def test_a_tool_use_runs_the_tool_and_its_result_goes_back(
    agentpkg: ModuleType, adapter: ModuleType
) -> None:
    kit = adapter.tools("agentpkg", tags=["social"])
    with replaying(tool_use("greet", {"name": "Ann"}), final_text("Done")) as server:
        final = _converse(kit, server.base)
    assert final.content[0].type == "text" and final.content[0].text == "Done"
    first, second = server.requests
    assert [tool["name"] for tool in first["tools"]] == ["greet", "fail"]
    assert first["tools"][0] == {
        "name": "greet",
        "description": "Greet someone by name",
        "input_schema": GREET_SCHEMA,
    }
    assert second["messages"][-1]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": [{"type": "text", "text": "Hello Ann"}],
        }
    ]


def test_invalid_input_is_an_error_result_naming_the_field(
    agentpkg: ModuleType, adapter: ModuleType
) -> None:
    kit = adapter.tools(agentpkg)
    with replaying(tool_use("greet", {"nam": "Ann"}), final_text("Sorry")) as server:
        _converse(kit, server.base)
    (result,) = server.requests[1]["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"][0]["text"].startswith(
        "invalid input for tool 'greet': name"
    )


def test_a_failing_tool_is_an_error_result(
    agentpkg: ModuleType, adapter: ModuleType
) -> None:
    kit = adapter.tools(agentpkg)
    with replaying(tool_use("fail", {}), final_text("Sorry")) as server:
        _converse(kit, server.base)
    (result,) = server.requests[1]["messages"][-1]["content"]
    assert result["is_error"] is True
    assert "broken" in result["content"][0]["text"]


def test_a_name_the_api_refuses_is_exposed_under_a_valid_one(
    agentpkg: ModuleType, adapter: ModuleType
) -> None:
    kit = adapter.tools(agentpkg, only=["weather.now/today"])
    (definition,) = kit.definitions
    name = definition["name"]
    assert name.startswith("weather_now_today_") and len(name) <= 64
    with replaying(tool_use(name, {"city": "Oslo"}), final_text("Done")) as server:
        _converse(kit, server.base)
    (result,) = server.requests[1]["messages"][-1]["content"]
    assert result["content"] == [{"type": "text", "text": "Sunny in Oslo"}]


def test_the_sdk_tool_runner_runs_the_tools(
    agentpkg: ModuleType, adapter: ModuleType
) -> None:
    import anthropic

    kit = adapter.tools(agentpkg)
    with replaying(tool_use("greet", {"name": "Bo"}), final_text("Done")) as server:
        client = anthropic.Anthropic(base_url=server.base, api_key="t", max_retries=0)
        runner = client.beta.messages.tool_runner(
            model=MODEL,
            max_tokens=100,
            tools=kit.runnable(),
            messages=[{"role": "user", "content": "Greet Bo"}],
        )
        final = runner.until_done()
    assert final.content[0].type == "text" and final.content[0].text == "Done"
    (result,) = server.requests[1]["messages"][-1]["content"]
    assert result["content"] == [{"type": "text", "text": "Hello Bo"}]
    assert not result.get("is_error")


def test_the_async_tool_runner_reports_invalid_input(
    agentpkg: ModuleType, adapter: ModuleType
) -> None:
    kit = adapter.tools(agentpkg)

    async def run() -> Any:
        import anthropic

        client = anthropic.AsyncAnthropic(
            base_url=server.base, api_key="t", max_retries=0
        )
        runner = client.beta.messages.tool_runner(
            model=MODEL,
            max_tokens=100,
            tools=kit.runnable_async(),
            messages=[{"role": "user", "content": "Greet"}],
        )
        return await runner.until_done()

    with replaying(tool_use("greet", {}), final_text("Sorry")) as server:
        asyncio.run(run())
    (result,) = server.requests[1]["messages"][-1]["content"]
    assert result["is_error"] is True
    assert "invalid input for tool 'greet': name" in str(result["content"])
