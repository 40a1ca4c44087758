"""A sequence's timeout bounds the whole call (issue 29, item 8): its steps and the
pauses between them, run for real; and no timeout, however large, escapes a call
as an exception."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.registry import registry
from mcigen_runtime.results import ToolResult

from .conftest import build_folder

HOUR_MS = 3_600_000


def _sequence(name: str, delay_ms: int, *seconds: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"Sleeps {', '.join(seconds)} s with {delay_ms} ms between",
        "command": "sequence",
        "synchronous": True,
        "step_delay_ms": delay_ms,
        "sequence": [
            {"tool": "nap", "subcommand": "default", "args": {"seconds": s}}
            for s in seconds
        ],
    }


FILES: dict[str, dict[str, Any]] = {
    "nap": {
        "name": "nap",
        "description": "Sleeps",
        "command": "sleep",
        "synchronous": True,
        "subcommand": [
            {
                "name": "default",
                "description": "Sleep a while",
                "positional_args": [
                    {"name": "seconds", "type": "string", "required": True}
                ],
            }
        ],
    },
    "slow_pause": _sequence("slow_pause", HOUR_MS, "0", "0"),
    "two_naps": _sequence("two_naps", 1, "1.2", "1.2"),
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("tools")
    for name, document in FILES.items():
        (folder / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    for name in build_folder(folder, tmp_path_factory.mktemp("build") / "deadlinepkg"):
        yield sys.modules[name]


@pytest.fixture(autouse=True)
def _sandbox_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The calls' working directory is the sandbox root (the current directory)."""
    monkeypatch.chdir(tmp_path)


def _within(seconds: float, call: Callable[[], ToolResult]) -> tuple[ToolResult, float]:
    """The call's result and how long it took; fails if it takes longer than
    ``seconds`` (the call is left to its daemon thread)."""
    answer: list[ToolResult | BaseException] = []

    def run() -> None:
        try:
            answer.append(call())
        except BaseException as error:  # noqa: BLE001 - handed to the test
            answer.append(error)

    started = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    took = time.monotonic() - started
    assert answer, f"the call was still running after {seconds} s"
    if isinstance(answer[0], BaseException):
        raise answer[0]
    return answer[0], took


def _both(package: Any, tool: str, **args: Any) -> list[Callable[[], ToolResult]]:
    """The tool called by name as the MCP server calls it, sync and async."""
    tools = registry(package.__name__)
    return [
        lambda: tools.call(tool, args, os.environ),
        lambda: asyncio.run(tools.call_async(tool, args, os.environ)),
    ]


def test_a_pause_past_the_deadline_ends_the_call_at_the_deadline(
    package: Any, tmp_path: Path
) -> None:
    """An hour's pause between two steps, in a call of 1 s: the call ends after
    1 s, timed out before its second step, not an hour later."""
    for call in _both(
        package, "slow_pause", working_directory=str(tmp_path), timeout_seconds=1
    ):
        result, took = _within(10, call)
        assert 0.9 < took < 5
        assert result.isError
        assert result.text.startswith(
            "Sequence timed out after 1 seconds, before step 2 (nap default) "
            "started:\n\nOK Step 1 completed: nap default"
        )
        assert result.metadata == {"failedStep": 2}


def test_the_steps_share_the_calls_deadline(package: Any, tmp_path: Path) -> None:
    """Two steps of 1.2 s in a call of 2 s: the second gets what is left, and
    times out with the call."""
    for call in _both(
        package, "two_naps", working_directory=str(tmp_path), timeout_seconds=2
    ):
        result, took = _within(10, call)
        assert took < 2.9
        assert result.isError
        assert result.metadata == {"failedStep": 2}
        assert "OK Step 1 completed: nap default" in result.text
        assert "✗ Step 2 FAILED: nap default\nError: Command" in result.text
        assert re.search(r"timed out after 0\.[5-8][0-9]* seconds$", result.text)


@pytest.mark.parametrize("timeout", [10**20, 10**400])
def test_a_huge_timeout_is_cut_to_the_maximum_not_raised(
    package: Any, tmp_path: Path, timeout: int
) -> None:
    for call in _both(
        package, "two_naps", working_directory=str(tmp_path), timeout_seconds=timeout
    ):
        result, _ = _within(10, call)
        assert not result.isError, result.text
    for call in _both(package, "nap", seconds="0", timeout_seconds=timeout):
        result, _ = _within(10, call)
        assert not result.isError, result.text
