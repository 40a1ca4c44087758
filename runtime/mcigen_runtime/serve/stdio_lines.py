"""The client's lines of a stdio server, read from its wire descriptor: blocking
while the SDK loads (``stdio_start``), then from the event loop, which wakes when
the wire is readable, where the SDK's transport hands every ``readline`` to a
worker thread (a thread to wake, and one to wake the loop, for each line).

Lines are what the SDK's own reader gives: the bytes decoded as UTF-8 with
``errors="replace"`` and universal newlines (``\\r\\n`` and ``\\r`` end a line
too, and read as ``\\n``), as ``TextIOWrapper`` does (``tests/test_stdio_lines.py``
holds the two to the same lines). Nothing is read ahead of what the wire holds,
so the early answers and the SDK read one stream, with nothing lost between
them. The loop waits on any wire it can (a pipe, a socket, a terminal): a read
that waits on the client must not be a worker thread's, which a cancel of the
connection (``wire_failed``) would wait for until the client wrote a line. A
wire the loop cannot wait on (a regular file, ``/dev/null``) is read in a worker
thread; its reads return at once.
"""

from __future__ import annotations

import codecs
import errno
import io
import os
import select
from collections import deque
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from asyncio import Future

_CHUNK = 1 << 16
"""Bytes read from the wire at a time (what it holds, up to this)."""

MAX_LINE_CHARS = 4 * 1024 * 1024
"""The longest line a client may send, as the longest HTTP request body (the
SDK's 4 MiB): a longer one fails the read (``EMSGSIZE``) rather than being held
in memory however long it grows."""


class WireLines:
    """The lines of the descriptor ``fd`` (not closed here: a worker thread may
    still be reading it when the server stops)."""

    def __init__(self, fd: int) -> None:
        self._fd = fd
        self._decoder = io.IncrementalNewlineDecoder(
            codecs.getincrementaldecoder("utf-8")(errors="replace"), translate=True
        )
        self._lines: deque[str] = deque()
        self._partial: list[str] = []
        """The start of the line being read, in pieces (a long line comes in
        many reads; each piece is searched once)."""
        self._held = 0
        """The characters in :attr:`_partial`."""
        self._ended = False
        self._waitable = True
        """Whether the loop may wait on the wire: until epoll refuses it (as it
        does a regular file, whose reads never wait)."""

    def unread(self, lines: list[str]) -> None:
        """Have ``lines`` (read ahead, by the early answers) read again first."""
        self._lines.extendleft(reversed(lines))

    def readline(self) -> str:
        """The next line, waiting for it; "" at the end of the wire."""
        while not self._lines and not self._ended:
            chunk = _read(self._fd)
            if chunk is None:  # someone made the wire non-blocking
                select.select([self._fd], [], [])
                continue
            self._take(chunk)
        return self._line()

    async def areadline(self) -> str:
        """:meth:`readline`, the event loop serving on while the line comes."""
        import asyncio  # here: the early answers, read blocking, do without it

        while not self._lines and not self._ended:
            if not self._waitable:
                self._take(await asyncio.to_thread(self._blocking_read))
                continue
            try:
                await _readable(self._fd)
            except PermissionError:  # not a descriptor epoll takes
                self._waitable = False
                continue
            chunk = _read(self._fd)
            if chunk is not None:
                self._take(chunk)
        return self._line()

    def __aiter__(self) -> WireLines:
        return self

    async def __anext__(self) -> str:
        line = await self.areadline()
        if not line:
            raise StopAsyncIteration
        return line

    def _blocking_read(self) -> bytes:
        while (chunk := _read(self._fd)) is None:
            select.select([self._fd], [], [])
        return chunk

    def _take(self, chunk: bytes) -> None:
        """Split what ``chunk`` adds into lines (b"": the wire has ended)."""
        pieces = self._decoder.decode(chunk, final=not chunk).split("\n")
        for piece in pieces[:-1]:
            self._hold(piece)
            self._lines.append("".join(self._partial) + "\n")
            self._partial.clear()
            self._held = 0
        if pieces[-1]:
            self._hold(pieces[-1])
        if not chunk:
            self._ended = True
            if self._partial:
                self._lines.append("".join(self._partial))
                self._partial.clear()

    def _hold(self, piece: str) -> None:
        self._held += len(piece)
        if self._held > MAX_LINE_CHARS:
            raise OSError(
                errno.EMSGSIZE, f"a line longer than {MAX_LINE_CHARS} characters"
            )
        self._partial.append(piece)

    def _line(self) -> str:
        return self._lines.popleft() if self._lines else ""


def _read(fd: int) -> bytes | None:
    """What the wire holds, up to :data:`_CHUNK` bytes; b"" at its end, None
    when it holds nothing yet."""
    try:
        return os.read(fd, _CHUNK)
    except BlockingIOError:
        return None
    except OSError as error:
        # POSIX reads a hung-up terminal as its end, and Linux does once the
        # hangup is done, but a read already waiting then fails with EIO
        from ..edge.closed_pipe import hung_up

        if error.errno == errno.EIO and hung_up(fd):
            return b""
        raise


async def _readable(fd: int) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    ready = loop.create_future()
    loop.add_reader(fd, _settle, ready)
    try:
        await ready
    finally:
        loop.remove_reader(fd)


def _settle(ready: Future[None]) -> None:
    if not ready.done():
        ready.set_result(None)
