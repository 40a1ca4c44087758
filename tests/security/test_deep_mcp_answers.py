"""An MCP server's answer nested 200,000 deep is an error result (issue 14, group 1):
the SDK's parser stops at 200 levels and only logs the line, so the call waited for
ever, through the broker and the package's own MCP server too. And what the
package's server sends on stays readable to its clients, however deep the
structured content it was given (tests/mcp_servers/deep_server.py, a real process
that writes JSON-RPC by hand)."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..mcp_servers import DEEP_SERVER
from ..oracle import answers_within
from ..test_mcp_server import run, stdio_session
from .support import built_and_imported

DEEP = 200_000
UNREADABLE = "the server's answer could not be read: Invalid JSON: recursion limit"


@pytest.fixture(scope="module")
def deep(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, ModuleType]]:
    """The package ``pkg`` of the deep server's tools, and its directory."""
    directory = tmp_path_factory.mktemp("deep")
    server = {"command": sys.executable, "args": [str(DEEP_SERVER)]}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"deep": server}}
    with built_and_imported(directory, document) as package:
        yield directory, package


@pytest.mark.parametrize("tool", ["deep_structured", "deep_meta", "deep_content"])
def test_a_deep_answer_is_an_error_result(
    deep: tuple[Path, ModuleType], tool: str
) -> None:
    client = deep[1].Client()
    result = client.execute(tool, {"depth": DEEP}).result
    assert result.isError
    assert result.text.startswith(f"Failed to execute MCP tool '{tool}': {UNREADABLE}")
    assert client.execute("shallow").result.text == "ok"  # the session serves on


def test_a_deep_string_is_only_text(deep: tuple[Path, ModuleType]) -> None:
    result = deep[1].Client().execute("deep_text", {"depth": DEEP}).result
    assert (result.isError, len(result.text)) == (False, 2 * DEEP + 1)


def test_the_async_twin_and_the_broker_answer_too(
    deep: tuple[Path, ModuleType],
) -> None:
    package = deep[1]
    result = asyncio.run(package.deep_structured_async(depth=DEEP))
    assert result.isError and UNREADABLE in result.text
    answer = package.meta.meta_call("/mcp/deep/deep_structured", {"depth": DEEP})
    assert answer["isError"] and UNREADABLE in answer["content"][0]["text"]


@pytest.mark.parametrize("broker", [False, True])
def test_the_packages_server_answers_what_its_clients_can_read(
    deep: tuple[Path, ModuleType], broker: bool
) -> None:
    """196 levels of structured content reach the package's server whole; its
    answer puts them a few levels deeper, where an SDK client could not read them
    (it waited for ever): past 64 levels, metadata is carried as JSON text."""

    async def scenario() -> list[tuple[bool, str]]:
        answers = []
        async with stdio_session(deep[0], *(["--broker"] if broker else [])) as session:
            for depth in (196, DEEP):
                if broker:
                    path, args = "/mcp/deep/deep_structured", {"depth": depth}
                    called = await session.call_tool(
                        "meta_call", {"path": path, "args": args}
                    )
                else:
                    called = await session.call_tool(
                        "deep_structured", {"depth": depth}
                    )
                answers.append((called.is_error, called.content[0].text))
        return answers

    (near, near_text), (far, far_text) = run(scenario)
    assert near is False and UNREADABLE not in near_text
    assert far is True and UNREADABLE in far_text
    if broker:
        carried = json.loads(near_text)["metadata"]["structuredContent"]
        assert json.loads(_innermost_text(carried)) is not None


def _innermost_text(value: Any) -> str:
    """The JSON text a structure deeper than 64 levels ends in."""
    while not isinstance(value, str):
        value = value["v"] if isinstance(value, dict) else value[0]
    return value


def test_row64_mci_py_waits_for_ever(deep: tuple[Path, ModuleType]) -> None:
    """mci-py 1.2 answers the same server's shallow call, then no answer comes to
    the deep one (in 3 s here; it never does); the package's is an error result."""
    shallow, deep_answer = answers_within(
        deep[0] / "tools.mci.json",
        [
            ("deep_structured", {"depth": 150}, 60.0),
            ("deep_structured", {"depth": DEEP}, 3.0),
        ],
    )
    assert shallow is not None and shallow["result"]["isError"] is False
    assert deep_answer is None
    ours = deep[1].Client().execute("deep_structured", {"depth": DEEP}).result
    assert ours.isError and UNREADABLE in ours.text
