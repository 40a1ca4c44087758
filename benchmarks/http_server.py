"""The loopback HTTP server of the benchmarks: a fixed keep-alive reply, in a process of its own.

The http rows time a client (mcigen, mci-py, a bare httpx client), so the server must
cost as little as possible and must not run in a measured process. The tests' server
(``tests/http_server.py``, ``http.server`` with a thread per connection) spends more
per request than a pooled client does and, in the benchmark's main process, competed
for the same 2 cores; this one is an ``asyncio.Protocol`` that answers every request
with the bytes the tests' ``/text`` route sends (``plain text é``, ``text/plain;
charset=utf-8``), keeps the connection open, and reads a ``Content-Length`` body if
there is one. It runs in a separate process (``python benchmarks/http_server.py``
prints its port), the same server for mcigen, mci-py and the floors.
"""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

BODY = "plain text é".encode()
REPLY = (
    b"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\n"
    b"Content-Length: " + str(len(BODY)).encode() + b"\r\n\r\n" + BODY
)


class _Protocol(asyncio.Protocol):
    def __init__(self) -> None:
        self.transport: asyncio.Transport | None = None
        self.pending = b""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is not None:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def data_received(self, data: bytes) -> None:
        self.pending += data
        while (end := self.pending.find(b"\r\n\r\n")) >= 0:
            length = 0
            for line in self.pending[:end].split(b"\r\n")[1:]:
                name, _, value = line.partition(b":")
                if name.strip().lower() == b"content-length":
                    length = int(value)
            if len(self.pending) < end + 4 + length:
                return  # the body has not all arrived
            self.pending = self.pending[end + 4 + length :]
            assert self.transport is not None
            self.transport.write(REPLY)


async def _serve() -> None:
    loop = asyncio.get_running_loop()
    server = await loop.create_server(_Protocol, "127.0.0.1", 0, backlog=128)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


class BenchServer:
    """The server process: started on construction, ``base`` is its URL."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve())],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout is not None
        port = self.process.stdout.readline().strip()
        if not port.isdigit():
            self.stop()
            raise RuntimeError("the benchmark http server did not start")
        self.base = f"http://127.0.0.1:{port}"

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)


if __name__ == "__main__":
    asyncio.run(_serve())
