"""A start of an operation shared through Redis that is cancelled while it enqueues
its job (a client's cancel read in that moment) cancels what it enqueued: its
caller never learns the id, so no one else would. The store runs in this process
against a real ``redis-server``, behind a gate (``redis_gate``) that holds the
enqueue until the start has been cancelled."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest

from ..conftest import imported_package
from ..test_serve_lifecycle import gone_within, leader
from .redis_gate import Command, RedisGate, redis_gate
from .test_shared_cancel import QUEUE, named

INCOMPLETE = f"saq:{QUEUE}:incomplete".encode()


@pytest.fixture(scope="module")
def pkg(pkg_dir: Path) -> Iterator[ModuleType]:
    with imported_package(pkg_dir / "pkg") as package:
        yield package


def test_a_start_cancelled_while_it_enqueues_cancels_the_operation(
    pkg: ModuleType, tmp_path: Path, redis_url: str
) -> None:
    """The enqueue reached Redis, its answer did not reach the start: the job ran
    its command to the end, under an id no caller had."""
    from mcigen_runtime.registry import registry
    from mcigen_runtime.serve.shared_operations import SharedOperation, SharedOperations

    tools = registry("pkg")
    pidfile = tmp_path / "pid"
    enqueued: list[str] = []

    def enqueue(command: Command) -> bool:
        """SAQ's enqueue script, whose keys are the queue's incomplete set, then
        the job's key (which ends with the operation's id)."""
        if named("EVALSHA")(command) and command[2:4] == [b"4", INCOMPLETE]:
            enqueued.append(command[4].decode().rsplit(":", 1)[1])
            return True
        return False

    async def cancelled_start(gate: RedisGate) -> SharedOperation:
        store = SharedOperations(tools, gate.url)
        async with store.running():
            first = await store.start_async(tools.find("quick"), {}, "alice")
            assert await first.finished_within(30)  # the script is loaded
            held = gate.hold(enqueue)
            start = asyncio.ensure_future(
                store.start_async(
                    tools.find("slow"),
                    {"pidfile": str(pidfile), "seconds": "30"},
                    "alice",
                )
            )
            assert await asyncio.to_thread(held.caught.wait, 30)
            start.cancel()
            with pytest.raises(asyncio.CancelledError):
                await start
            held.release()
            [op_id] = enqueued
            async with asyncio.timeout(30):  # the released enqueue is on its way
                while (operation := await store.find_async(op_id, "alice")) is None:
                    await asyncio.sleep(0.02)
            await operation.finished_within(20)
            return operation

    with redis_gate(redis_url) as gate:
        operation = asyncio.run(cancelled_start(gate))
    assert operation.status() == "cancelled"
    assert operation.cancel_reason == "the call was cancelled"
    assert not pidfile.exists() or gone_within(2, leader(pidfile))
