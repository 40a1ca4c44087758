"""``pkg.operations.start``: a handle on a call running in the background, with
real processes. A Python call of the tool itself still returns its result."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from mcigen_runtime.errors import ToolInputError
from mcigen_runtime.registry import UnknownToolError
from mcigen_runtime.serve.operations import Operation

from ..conftest import imported_package
from ..test_serve_lifecycle import gone_within, leader


@pytest.fixture(scope="module")
def pkg(pkg_dir: Path) -> Iterator[ModuleType]:
    with imported_package(pkg_dir / "pkg") as package:
        yield package


def test_a_started_operation_is_waited_for(pkg: ModuleType, tmp_path: Path) -> None:
    handle = pkg.operations.start("slow", pidfile=str(tmp_path / "pid"), seconds="0.5")
    assert handle.id.startswith("op_")
    assert handle.status() == "running"
    with pytest.raises(TimeoutError):
        handle.wait(timeout=0.01)
    result = handle.wait(timeout=10)
    assert (result.text, result.isError) == ("slept\n", False)
    assert handle.status() == "completed"


def test_cancel_stops_the_process(pkg: ModuleType, tmp_path: Path) -> None:
    pidfile = tmp_path / "pid"
    handle = pkg.operations.start("slow", pidfile=str(pidfile), seconds="30")
    group = leader(pidfile)
    assert handle.cancel() is True
    assert handle.status() == "cancelled"
    assert gone_within(2, group)
    result = handle.wait(timeout=1)
    assert result.isError
    assert "was cancelled" in result.text
    assert handle.cancel() is False


def test_ids_cannot_be_guessed_and_failures_are_results_or_refusals(
    pkg: ModuleType, tmp_path: Path
) -> None:
    first = pkg.operations.start("quick")
    second = pkg.operations.start("plain")  # any tool, not only background ones
    assert re.fullmatch(r"op_[A-Za-z0-9_-]{16}", first.id)
    assert first.id != second.id
    assert first.wait(10).text == "quick\n"
    assert second.wait(10).text == "plain\n"
    pidfile = str(tmp_path / "pid")
    failed = pkg.operations.start("slow", pidfile=pidfile, seconds="1.2.3")  # sleep: no
    with pytest.raises(ToolInputError, match="seconds"):
        pkg.operations.start("slow", pidfile=pidfile)
    with pytest.raises(UnknownToolError):
        pkg.operations.start("nothing")
    assert failed.wait(10).isError
    assert failed.status() == "failed"


def test_row_95_only_the_newest_finished_operations_are_kept(
    pkg: ModuleType,
) -> None:
    from mcigen_runtime.registry import registry
    from mcigen_runtime.serve.operations import KEEP_FINISHED, PROCESS, Operations

    table = Operations(registry("pkg"))
    handles = [table.start("plain", {}) for _ in range(KEEP_FINISHED + 1)]
    for handle in handles:
        handle.wait(10)
    kept = [operation.id for operation in table.listed(PROCESS)]
    assert kept == [handle.id for handle in handles[1:]]
    assert table.find(handles[0].id, PROCESS) is None


def test_a_direct_call_still_returns_the_finished_result(
    pkg: ModuleType, tmp_path: Path
) -> None:
    assert pkg.slow(pidfile=str(tmp_path / "pid"), seconds="0").text == "slept\n"


def test_the_manifest_names_background_modes_only_where_not_never(
    pkg_dir: Path,
) -> None:
    manifest = json.loads((pkg_dir / "pkg" / "manifest.json").read_text("utf-8"))
    modes = {tool["name"]: tool.get("background") for tool in manifest["tools"]}
    assert modes == {
        "sandboxed_shell": "unless_asked",  # Ahma's built-in, in every MTDF package
        "slow": "always",
        "maybe": "unless_asked",
        "quick": "always",
        "flaky": "always",
        "plain": None,
    }


def test_one_callers_finished_operations_do_not_push_out_anothers(
    pkg: ModuleType,
) -> None:
    from mcigen_runtime.registry import registry
    from mcigen_runtime.serve.operations import KEEP_FINISHED, Operations

    tools = registry("pkg")
    table = Operations(tools)
    plain = tools.find("plain")

    async def start(caller: str, count: int) -> list[Operation]:
        return [await table.start_async(plain, {}, caller) for _ in range(count)]

    [theirs] = asyncio.run(start("session b", 1))
    theirs.wait(10)
    mine = asyncio.run(start("session a", KEEP_FINISHED + 1))
    for handle in mine:
        handle.wait(10)
    assert [op.id for op in table.listed("session b")] == [theirs.id]
    assert len(table.listed("session a")) == KEEP_FINISHED
    assert table.find(theirs.id, "session a") is None
    assert table.find(theirs.id, None) is None
    assert table.listed(None) == []


def test_a_start_cancelled_before_it_returns_stops_its_call(
    pkg: ModuleType, tmp_path: Path
) -> None:
    """The caller of a start cancelled while the call takes its first step never
    learns the operation's id: the operation is cancelled, its command stopped
    (a client's cancel of a call whose command had just started left it running)."""
    from mcigen_runtime.registry import registry
    from mcigen_runtime.serve.operations import Operations

    tools = registry("pkg")
    table = Operations(tools)
    pidfile = tmp_path / "pid"

    async def cancelled_start() -> None:
        start = asyncio.ensure_future(
            table.start_async(
                tools.find("slow"), {"pidfile": str(pidfile), "seconds": "30"}, "a"
            )
        )
        await asyncio.sleep(0)  # the start waits on the call's first step
        start.cancel()
        with pytest.raises(asyncio.CancelledError):
            await start

    asyncio.run(cancelled_start())
    (operation,) = table.listed("a")
    operation.wait(10)
    assert operation.status() == "cancelled"
    assert not pidfile.exists() or gone_within(2, leader(pidfile))
