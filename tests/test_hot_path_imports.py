"""No import statement runs in a warm call's own code: one costs 3-8 µs on a
loaded machine however long its module has been loaded (the relative name
resolved, the module's spec asked whether it is still initializing), as much as a
text tool's whole call. Calls are traced opcode by opcode, and every
``IMPORT_NAME`` executed in the runtime's or the package's code is reported."""

from __future__ import annotations

import asyncio
import dis
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType, ModuleType
from typing import Any

import mcigen_runtime
import pytest

from .http_server import LoopbackServer

_IMPORT_NAME = dis.opmap["IMPORT_NAME"]
_RUNTIME = str(Path(mcigen_runtime.__file__).parent)


def _imports_run(call: Callable[[], Any], package: ModuleType) -> list[str]:
    """Where ``call`` ran an import statement of the runtime or ``package``
    (in this thread), as ``file:line``."""
    roots = (_RUNTIME, str(Path(str(package.__file__)).parent))
    found: list[str] = []

    def trace(frame: FrameType, event: str, arg: Any) -> Any:
        if not frame.f_code.co_filename.startswith(roots):
            return None
        frame.f_trace_opcodes = True
        if event == "opcode" and frame.f_code.co_code[frame.f_lasti] == _IMPORT_NAME:
            found.append(f"{frame.f_code.co_filename}:{frame.f_lineno}")
        return trace

    sys.settrace(trace)
    try:
        call()
    finally:
        sys.settrace(None)
    return found


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    running = LoopbackServer()
    yield running
    running.stop()


@pytest.fixture
def package(build: Callable[..., ModuleType], server: LoopbackServer) -> ModuleType:
    name = {"type": "object", "properties": {"name": {"type": "string"}}}
    tools = [
        {
            "name": "greet",
            "inputSchema": {**name, "required": ["name"]},
            "execution": {"type": "text", "text": "Hello {{props.name}}!"},
        },
        {"name": "fetch", "execution": {"type": "http", "url": server.base + "/text"}},
    ]
    return build({"schemaVersion": "1.0", "tools": tools}, "hotpkg")


def test_a_text_tool_answered_inline_over_stdio(package: ModuleType) -> None:
    """``tools/call`` of a text tool as the stdio reader answers it, and a tool's
    result as the SDK's handler sends it. (Input in doubt imports the tool's
    models, and pydantic with them, on purpose: a call that needs them costs
    tens of µs more anyway.)"""
    from mcigen_runtime.edge.settings import ServeOptions
    from mcigen_runtime.serve.server import ToolSurface, mcp_result

    surface = ToolSurface("hotpkg", ServeOptions(), env={})
    arguments = {"name": "Ann"}

    def answered() -> None:
        text = surface.call_inline("greet", arguments).json("2025-06-18")
        assert json.loads(text)["content"][0]["text"] == "Hello Ann!"
        mcp_result(package.greet(name="Ann"))

    answered()  # warm: the first call imports what calls use
    assert _imports_run(answered, package) == []


def test_an_http_call_sync_and_awaited(package: ModuleType) -> None:
    """The http tool, and its async twin as far as the event loop's thread goes
    (the exchange itself is the sync one, in a worker thread)."""
    assert package.fetch().text == "plain text é"  # warm
    assert _imports_run(package.fetch, package) == []

    async def awaited() -> None:
        assert (await package.fetch_async()).text == "plain text é"

    asyncio.run(awaited())  # warm
    assert _imports_run(lambda: asyncio.run(awaited()), package) == []
