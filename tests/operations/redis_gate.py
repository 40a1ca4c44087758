"""A proxy in front of a ``redis-server`` that can hold a command back: the first
command that matches, and every later one on its connection, wait until the test
releases them, while the other connections run on. Tests put their server behind
it to choose which of two racing writes of a job Redis sees first, with the real
server, the real clients and the real Redis; it also tells which commands went
through, in order."""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from urllib.parse import urlsplit

from ..mcp_servers import free_port

Command = list[bytes]
"""A command as its client sent it: the name, then the arguments."""


class Hold:
    """The first command that matches, held until :meth:`release`."""

    def __init__(
        self, loop: asyncio.AbstractEventLoop, matches: Callable[[Command], bool]
    ):
        self.matches = matches
        self.caught = threading.Event()
        self._loop = loop
        self._released = asyncio.Event()

    async def wait(self) -> None:
        await self._released.wait()

    def release(self) -> None:
        self._loop.call_soon_threadsafe(self._released.set)


class RedisGate:
    def __init__(self, upstream_port: int) -> None:
        self.upstream_port = upstream_port
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self._seen: list[Command] = []
        self._changed = threading.Condition()
        self._holds: list[Hold] = []
        self._loop = asyncio.new_event_loop()
        self._closing = asyncio.Event()
        self._connections: dict[asyncio.Task[None], asyncio.StreamWriter] = {}
        self._started = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        assert self._started.wait(10), "the gate did not start"

    def hold(self, matches: Callable[[Command], bool]) -> Hold:
        """Hold the next command that ``matches`` (and what follows it on its
        connection) until the hold is released."""
        hold = Hold(self._loop, matches)
        with self._changed:
            self._holds.append(hold)
        return hold

    def count(self, matches: Callable[[Command], bool]) -> int:
        """How many commands that match went through so far."""
        with self._changed:
            return sum(1 for command in self._seen if matches(command))

    def wait_for_count(
        self, matches: Callable[[Command], bool], count: int, timeout: float = 30
    ) -> None:
        deadline = time.monotonic() + timeout
        with self._changed:
            while sum(1 for command in self._seen if matches(command)) < count:
                left = deadline - time.monotonic()
                assert left > 0, f"fewer than {count} such commands went through"
                self._changed.wait(left)

    def close(self) -> None:
        with self._changed:
            holds = list(self._holds)
        for hold in holds:
            hold.release()
        self._loop.call_soon_threadsafe(self._closing.set)
        self._thread.join(10)
        assert not self._thread.is_alive(), "the gate did not close"

    def _run(self) -> None:
        asyncio.set_event_loop(self._loop)
        try:
            self._loop.run_until_complete(self._gate())
        finally:
            self._loop.close()

    async def _gate(self) -> None:
        """Serve until :meth:`close`, then close every client's connection and
        wait for its end: one left pending when the loop closed was destroyed
        with it, and said so on stderr (cancelling it does too, on Python
        3.11: its server calls ``exception()`` of the cancelled task)."""
        server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self._started.set()
        await self._closing.wait()
        server.close()
        for client in self._connections.values():
            client.close()
        await asyncio.gather(*self._connections, return_exceptions=True)

    def _caught(self, command: Command) -> Hold | None:
        with self._changed:
            for hold in self._holds:
                if not hold.caught.is_set() and hold.matches(command):
                    hold.caught.set()
                    return hold
        return None

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        connection = asyncio.current_task()
        assert connection is not None
        self._connections[connection] = writer
        connection.add_done_callback(self._connections.pop)
        upstream_reader, upstream = await asyncio.open_connection(
            "127.0.0.1", self.upstream_port
        )
        answers = asyncio.ensure_future(_copy(upstream_reader, writer))
        commands = _Commands()
        try:
            while data := await reader.read(1 << 16):
                for command, raw in commands.feed(data):
                    hold = self._caught(command)
                    if hold is not None:
                        await hold.wait()
                    upstream.write(raw)
                    await upstream.drain()
                    with self._changed:
                        self._seen.append(command)
                        self._changed.notify_all()
        except ConnectionError:
            pass
        finally:
            upstream.close()
            with suppress(Exception):
                await answers
            writer.close()


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    with suppress(ConnectionError):
        while data := await reader.read(1 << 16):
            writer.write(data)
            await writer.drain()
    writer.close()


class _Commands:
    """The commands in a client's stream (RESP arrays of bulk strings), each with
    its bytes, as they complete."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> Iterator[tuple[Command, bytes]]:
        self._buffer += data
        while (parsed := self._command()) is not None:
            command, end = parsed
            raw, self._buffer = self._buffer[:end], self._buffer[end:]
            yield command, raw

    def _command(self) -> tuple[Command, int] | None:
        buffer = self._buffer
        line_end = buffer.find(b"\r\n")
        if line_end < 0:
            return None
        assert buffer[:1] == b"*", f"not a RESP array: {buffer[:40]!r}"
        count, at = int(buffer[1:line_end]), line_end + 2
        command: Command = []
        for _ in range(count):
            line_end = buffer.find(b"\r\n", at)
            if line_end < 0:
                return None
            length, at = int(buffer[at + 1 : line_end]), line_end + 2
            if len(buffer) < at + length + 2:
                return None
            command.append(buffer[at : at + length])
            at += length + 2
        return command, at


@contextmanager
def redis_gate(redis_url: str) -> Iterator[RedisGate]:
    """A gate in front of the Redis at ``redis_url``."""
    port = urlsplit(redis_url).port
    assert port is not None
    gate = RedisGate(port)
    try:
        yield gate
    finally:
        gate.close()
