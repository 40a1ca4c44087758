"""Raw JSON-RPC clients of the serving rows, the same for every server measured, so
that only the servers differ: newline-delimited JSON over a child's pipes (stdio)
and one ``httpx.Client`` posting to ``/mcp`` (Streamable HTTP, JSON answers), or,
for throughput, a bare keep-alive socket (:class:`SocketPeer`)."""

from __future__ import annotations

import json
import os
import select
import socket
import subprocess
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol
from urllib.parse import urlsplit

import httpx

PROTOCOL = "2025-06-18"
INITIALIZE = {
    "protocolVersion": PROTOCOL,
    "capabilities": {},
    "clientInfo": {"name": "mcigen-bench", "version": "1"},
}
TIMEOUT = 60.0
"""Seconds any one answer may take before the row fails."""


class RpcError(RuntimeError):
    """A server answered with an error, or not at all."""


def _checked(answer: dict[str, Any], method: str) -> dict[str, Any]:
    if "error" in answer:
        raise RpcError(f"{method}: {answer['error']}")
    result: dict[str, Any] = answer["result"]
    if result.get("isError"):
        raise RpcError(f"{method}: {result.get('content')}")
    return result


def _request(
    request_id: int, method: str, params: Mapping[str, Any] | None
) -> dict[str, Any]:
    """The JSON-RPC request ``method`` with ``params`` (if any)."""
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params is not None:
        message["params"] = params
    return message


class Peer(Protocol):
    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any: ...


class StdioPeer:
    """A server started as a child, spoken to over its stdin and stdout."""

    def __init__(
        self,
        argv: Sequence[str],
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.process = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=None if env is None else dict(env),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        self._buffer = b""
        self._ids = 0

    def send(self, message: Mapping[str, Any]) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(message).encode() + b"\n")
        self.process.stdin.flush()

    def _line(self, deadline: float) -> bytes:
        assert self.process.stdout is not None
        wire = self.process.stdout.fileno()
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([wire], [], [], left)[0]:
                raise RpcError(f"no answer within {TIMEOUT:.0f} s")
            chunk = os.read(wire, 1 << 16)
            if not chunk:
                raise RpcError(f"the server ended (exit {self.process.wait()})")
            self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return line

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        """The result of ``method``; raises :class:`RpcError` for an error."""
        self._ids += 1
        message = _request(self._ids, method, params)
        self.send(message)
        deadline = time.monotonic() + TIMEOUT
        while True:
            line = self._line(deadline)
            if not line.startswith(b"{"):
                continue  # mcix prints a banner on stdout: clients skip such lines
            answer = json.loads(line)
            if answer.get("id") == self._ids:
                return _checked(answer, method)

    def initialize(self) -> None:
        self.request("initialize", INITIALIZE)
        self.send({"jsonrpc": "2.0", "method": "notifications/initialized"})

    def peak_rss_mib(self) -> float:
        """The child's peak resident memory so far (``VmHWM``)."""
        with open(f"/proc/{self.process.pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
        raise RpcError("no VmHWM")

    def close(self) -> None:
        self.process.kill()
        self.process.wait()
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()

    def __enter__(self) -> StdioPeer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class HttpPeer:
    """One keep-alive connection to a Streamable HTTP server's ``/mcp``."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.client = httpx.Client(timeout=TIMEOUT)
        self.headers = {
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        }
        self._ids = 0

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        self._ids += 1
        message = _request(self._ids, method, params)
        response = self.client.post(
            self.url, content=json.dumps(message), headers=self.headers
        )
        if response.status_code != 200:
            raise RpcError(f"{method}: HTTP {response.status_code} {response.text}")
        text = response.text
        if response.headers.get("content-type", "").startswith("text/event-stream"):
            text = next(
                line[5:] for line in text.splitlines() if line.startswith("data:")
            )
        return _checked(json.loads(text), method)

    def initialize(self) -> None:
        response = self.client.post(
            self.url,
            content=json.dumps(
                {
                    "jsonrpc": "2.0",
                    "id": 0,
                    "method": "initialize",
                    "params": INITIALIZE,
                }
            ),
            headers=self.headers,
        )
        if response.status_code != 200:
            raise RpcError(f"initialize: HTTP {response.status_code} {response.text}")
        session = response.headers.get("mcp-session-id")
        if session:
            self.headers["Mcp-Session-Id"] = session
        self.headers["MCP-Protocol-Version"] = PROTOCOL

    def close(self) -> None:
        self.client.close()


class SocketPeer:
    """One keep-alive connection to a Streamable HTTP server's ``/mcp``, spoken to
    over a bare socket: the throughput rows' client. It costs ~0.1 ms of CPU a
    call where ``httpx`` costs ~1 ms, which on a machine of two cores would
    otherwise decide the throughput of a server that needs ~1.5 ms. Answers must
    carry a ``Content-Length`` (every server measured sends one for JSON)."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url)
        assert parts.hostname is not None and parts.port is not None
        self.socket = socket.create_connection((parts.hostname, parts.port), TIMEOUT)
        self.socket.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.head = (
            f"POST {parts.path} HTTP/1.1\r\nHost: {parts.netloc}\r\n"
            "Accept: application/json, text/event-stream\r\n"
            "Content-Type: application/json\r\n"
        )
        self._buffer = b""
        self._ids = 0

    def request(self, method: str, params: Mapping[str, Any] | None = None) -> Any:
        self._ids += 1
        message = _request(self._ids, method, params)
        status, headers, body = self._exchange(json.dumps(message).encode())
        if status != 200:
            raise RpcError(f"{method}: HTTP {status} {body[:200]!r}")
        if method == "initialize":
            session = headers.get(b"mcp-session-id")
            if session:
                self.head += f"Mcp-Session-Id: {session.decode()}\r\n"
            self.head += f"MCP-Protocol-Version: {PROTOCOL}\r\n"
        return _checked(json.loads(body), method)

    def initialize(self) -> None:
        self.request("initialize", INITIALIZE)

    def _exchange(self, body: bytes) -> tuple[int, dict[bytes, bytes], bytes]:
        head = f"{self.head}Content-Length: {len(body)}\r\n\r\n".encode()
        self.socket.sendall(head + body)
        while b"\r\n\r\n" not in self._buffer:
            self._receive()
        lines, self._buffer = self._buffer.split(b"\r\n\r\n", 1)
        status_line, *header_lines = lines.split(b"\r\n")
        headers = {}
        for line in header_lines:
            name, _, value = line.partition(b":")
            headers[name.strip().lower()] = value.strip()
        if b"content-length" not in headers:
            raise RpcError(f"an answer without Content-Length: {lines[:200]!r}")
        length = int(headers[b"content-length"])
        while len(self._buffer) < length:
            self._receive()
        answer, self._buffer = self._buffer[:length], self._buffer[length:]
        return int(status_line.split()[1]), headers, answer

    def _receive(self) -> None:
        chunk = self.socket.recv(1 << 16)
        if not chunk:
            raise RpcError("the server closed the connection")
        self._buffer += chunk

    def close(self) -> None:
        self.socket.close()


def list_all(peer: Peer) -> int:
    """How many tools ``tools/list`` gives, following every ``nextCursor``."""
    tools, cursor = 0, None
    while True:
        result = peer.request("tools/list", {"cursor": cursor} if cursor else None)
        tools += len(result["tools"])
        cursor = result.get("nextCursor")
        if not cursor:
            return tools


def call(peer: Peer, tool: str, arguments: Mapping[str, Any]) -> str:
    """The first text of ``tool``'s answer."""
    result = peer.request("tools/call", {"name": tool, "arguments": arguments})
    return str(result["content"][0]["text"])
