"""``tools/call`` of text tools answered by the HTTP server's edge
(``serve/http_calls.py``): every answer byte for byte the SDK's (status line,
headers but ``date``, body), and every request's log line the same, for the
calls it answers and those it leaves to the SDK, compared with a server that
leaves them all to it (``MCIGEN_HTTP_INLINE=0``); real servers, raw HTTP."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from .conftest import package_env
from .mcp_servers import free_port, listening
from .test_stdio_calls import LONG, META_CALLS, build_calls, call
from .test_stdio_start import request

JSON_TYPE = ("content-type", "application/json")
BOTH = ("accept", "application/json, text/event-stream")

HEADERS: dict[str, list[tuple[str, str]]] = {
    "both": [BOTH, JSON_TYPE],
    "sse only": [("accept", "text/event-stream"), JSON_TYPE],
    "no accept": [JSON_TYPE],
    "accept application/*": [("accept", "application/*;q=0.5"), JSON_TYPE],
    "accept text/html": [("accept", "text/html"), JSON_TYPE],
    "a session": [
        ("accept", "application/json"),
        ("content-type", "application/json; charset=utf-8"),
        ("mcp-session-id", "Ab-12_cd"),
        ("mcp-protocol-version", "2025-06-18"),
    ],
    "2024-11-05": [BOTH, JSON_TYPE, ("mcp-protocol-version", "2024-11-05")],
    "2025-11-25": [
        ("accept", "*/*"),
        JSON_TYPE,
        ("mcp-protocol-version", "2025-11-25"),
        ("mcp-protocol-version", "2024-11-05"),
    ],
    "2026-07-28": [BOTH, JSON_TYPE, ("mcp-protocol-version", "2026-07-28")],
    "an unknown version": [BOTH, JSON_TYPE, ("mcp-protocol-version", "1.0")],
    "text/plain": [BOTH, ("content-type", "text/plain")],
    "upper case type": [BOTH, ("content-type", "Application/JSON")],
    "no type": [BOTH],
    "json, then text": [BOTH, ("content-type", "application/json, text/plain")],
    "two types": [BOTH, ("content-type", "text/plain"), JSON_TYPE],
}

RAW = "a\udcffb"
"""``CALLS_RAW``: the byte ``\xff`` in the environment, a lone surrogate to Python."""

HOSTILE = [
    "</script><script>alert(1)</script>",
    "\x00\x1b[31m\x7f",
    "\u2028\u2029\u0085",
    "\U0001f600 \ufeff \U0010ffff",
    '"\\/\\u0041',
    "{{props.name}} @if(true)x@endif %s",
]

BODIES: list[Any] = [
    call(1, "greet", {"name": "Ann"}),
    call("two", "greet", {"name": LONG}),
    call(-3, "greet", {"name": 5}),  # input the tool refuses
    call(4, "greet", {}),
    call(5, "greet"),
    request(6, "tools/call", {"name": "greet", "arguments": None}),
    call(7, "listing", {"items": ["a", "b"], "loud": True}),
    call(8, "listing", {"items": ["x"] * 3, "loud": False, "extra": [1.5, None]}),
    call(9, "home"),  # CALLS_HOME unset: the template fails
    call(26, "raw"),  # CALLS_RAW is no UTF-8: an answer that cannot be written
    call(2**52, "greet", {"name": "big id"}),
    call(2**53, "greet", {"name": "an id json and the SDK may write apart"}),
    call('a"b\\c', "greet", {"name": "an id with quotes"}),
    call("é", "greet", {"name": "an id that is not ASCII"}),
    call("\x01", "greet", {"name": "an id that is not printable"}),
    call(10, "nope", {}),  # an unknown tool
    call(11, "\u2028nope</script>", {}),
    call(12, "echo", {"name": "cli"}),  # it starts a command
    call(13, "greet", {"name": "p"}, _meta={"progressToken": 1}),
    call(14, "greet", {"name": "t"}, task={"ttl": 1000}),
    call(15, "greet", {"name": 1e300}),  # a float json and the SDK write apart
    call(16, "greet", {"name": 0.1}),
    '{"jsonrpc": "2.0", "id": 17, "method": "tools/call", "params": '
    '{"name": "greet", "arguments": {"name": "a", "name": "b"}}}',  # a key twice
    '{"jsonrpc":"2.0","id":18,"method":"tools/call","params":'
    '{"name":"greet","arguments":{"name":"\\ud83d\\ude00 \\u00e9"}}}',
    '{"jsonrpc":"2.0","id":19,"method":"tools/call","params":'
    '{"name":"greet","arguments":{"name":"\\ud800"}}}',  # no Unicode text
    {**call(20, "greet", {"name": "x"}), "extra": 1},
    {**call(24, "greet", {"name": "x"}), "result": {}},  # a response too?
    {**call(25, "greet", {"name": "x"}), "error": {"code": 1, "message": "m"}},
    request(21, "tools/call", {"name": 3}),
    request(22, "tools/call", []),
    {"jsonrpc": "2.0", "method": "tools/call", "params": {"name": "greet"}},
    request(23, "ping"),
    *[call(30 + n, "greet", {"name": text}) for n, text in enumerate(HOSTILE)],
    call(40, "listing", {"items": HOSTILE, "loud": True}),
]


def body_of(message: Any) -> bytes:
    if isinstance(message, str):
        return message.encode()
    return json.dumps(message).encode()


def exchange(port: int, body: bytes, headers: list[tuple[str, str]]) -> bytes:
    """The whole HTTP answer to one POST of ``body`` to ``/mcp`` (on a connection
    of its own), less its ``date`` header."""
    lines = [
        "POST /mcp HTTP/1.1",
        f"host: 127.0.0.1:{port}",
        *(f"{name}: {value}" for name, value in headers),
        f"content-length: {len(body)}",
        "connection: close",
    ]
    head = ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")
    chunks = []
    with socket.create_connection(("127.0.0.1", port), timeout=60) as sock:
        sock.sendall(head + body)
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    answer = b"".join(chunks)
    head_end = answer.index(b"\r\n\r\n")
    kept = [
        line
        for line in answer[:head_end].split(b"\r\n")
        if not line.lower().startswith(b"date:")
    ]
    return b"\r\n".join(kept) + answer[head_end:]


class Server:
    """``python -m calls serve --http`` (the process ``pid``) with its JSON log
    on a file."""

    def __init__(self, port: int, pid: int, log: Path) -> None:
        self.port = port
        self.pid = pid
        self.log = log

    def request_lines(self, count: int) -> list[dict[str, Any]]:
        """The first ``count`` request lines of its log, less what differs from
        one run to the next (times, the client's port), once they are written."""
        deadline = time.monotonic() + 60
        while True:
            lines = [
                json.loads(line)
                for line in self.log.read_text().splitlines()
                if '"message":"request"' in line
            ]
            if len(lines) >= count or time.monotonic() > deadline:
                break
            time.sleep(0.05)
        assert len(lines) >= count, lines
        for line in lines:
            for key in ("time", "duration_ms", "call_duration_ms", "client"):
                line.pop(key, None)
        return lines[:count]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_calls(tmp_path_factory.mktemp("calls"))


@pytest.fixture(scope="module")
def servers(
    built: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, dict[str, Server]]]:
    """For the tools and for the broker (``--broker``), a server answering calls
    at its edge (``inline``) and one leaving them to the SDK (``sdk``)."""
    logs = tmp_path_factory.mktemp("logs")
    started: dict[str, dict[str, Server]] = {}
    with ExitStack() as stack:
        for face, args in (("tools", []), ("broker", ["--broker"])):
            started[face] = {}
            for mode, inline in (("inline", "1"), ("sdk", "0")):
                port, log = free_port(), logs / f"{face}-{mode}.log"
                argv = [sys.executable, "-m", "calls", "serve", "--http", str(port)]
                argv += [*args, "--log-format", "json", "--log-arguments"]
                env = package_env(
                    built, MCIGEN_HTTP_INLINE=inline, CALLS_HOME=None, CALLS_RAW=RAW
                )
                out = stack.enter_context(log.open("wb"))
                process = stack.enter_context(
                    listening(argv, port, cwd=built, env=env, stderr=out)
                )
                started[face][mode] = Server(port, process.pid, log)
        yield started


def compare(pair: dict[str, Server], cases: list[tuple[bytes, str]]) -> list[bytes]:
    """Each case (a body and the name of its headers) sent to both servers: the
    answers and the request lines of each, equal; the inline server's answers."""
    answers: dict[str, list[bytes]] = {"inline": [], "sdk": []}
    for body, headers in cases:
        for mode, server in pair.items():
            answers[mode].append(exchange(server.port, body, HEADERS[headers]))
    for (body, headers), inline, sdk in zip(
        cases, answers["inline"], answers["sdk"], strict=True
    ):
        assert inline == sdk, (headers, body)
    inline_lines = pair["inline"].request_lines(len(cases))
    sdk_lines = pair["sdk"].request_lines(len(cases))
    for (body, headers), inline_line, sdk_line in zip(
        cases, inline_lines, sdk_lines, strict=True
    ):
        assert inline_line == sdk_line, (headers, body)
    return answers["inline"]


def test_calls_are_answered_as_the_sdk_answers_them(
    servers: dict[str, dict[str, Server]],
) -> None:
    cases = [(body_of(body), headers) for headers in HEADERS for body in BODIES]
    answers = compare(servers["tools"], cases)
    said = b"\n".join(answers)
    assert b'"text":"Hello, Ann!"' in said
    assert b"data: {" in said  # the one-frame SSE answers
    assert b"HTTP/1.1 406" in said and b"HTTP/1.1 415" in said
    assert b"HTTP/1.1 500" in said  # the answer of raw


def test_the_brokers_calls_are_answered_as_the_sdk_answers_them(
    servers: dict[str, dict[str, Server]],
) -> None:
    headers = ["both", "sse only", "2024-11-05", "2025-11-25"]
    bodies = [*META_CALLS, call(17, "meta_call", {"path": "/raw"})]
    cases = [(body_of(body), name) for name in headers for body in bodies]
    answers = compare(servers["broker"], cases)
    assert any(b"Hello, last!" in answer for answer in answers)


def test_an_app_without_its_lifespan_leaves_every_call_to_the_sdk(built: Path) -> None:
    """``uvicorn --lifespan off``: the SDK's session managers never run, and the
    SDK answers ``500``; so does the edge, which answers only while they run."""
    answers = []
    for inline in ("1", "0"):
        port = free_port()
        argv = [sys.executable, "-m", "uvicorn", "calls.server:app", "--port"]
        argv += [str(port), "--lifespan", "off"]
        env = package_env(built, MCIGEN_HTTP_INLINE=inline)
        with listening(argv, port, cwd=built, env=env, stderr=subprocess.DEVNULL):
            body = body_of(call(1, "greet", {"name": "Ann"}))
            answers.append(exchange(port, body, HEADERS["both"]))
    assert answers[0] == answers[1]
    assert answers[0].startswith(b"HTTP/1.1 500 ")


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class _Connection:
    """One kept-alive connection that POSTs a call and reads its answer."""

    def __init__(self, port: int) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=60)
        self.reader = self.sock.makefile("rb")
        body = body_of(call(9, "greet", {"name": "Ann"}))
        self.request = (
            f"POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:{port}\r\n"
            "accept: application/json\r\ncontent-type: application/json\r\n"
            f"content-length: {len(body)}\r\n\r\n"
        ).encode() + body

    def call(self) -> None:
        self.sock.sendall(self.request)
        length = 0
        while (line := self.reader.readline()) not in (b"\r\n", b""):
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
        assert b"Hello, Ann!" in self.reader.read(length)

    def close(self) -> None:
        self.reader.close()
        self.sock.close()


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_text_call_costs_the_server_a_fraction_of_the_sdks_cpu(
    servers: dict[str, dict[str, Server]],
) -> None:
    """What the change is for: the same calls, each server's CPU time taken in
    turns (the machine may be busy: CPU time, not wall time, and the least of
    three rounds)."""
    pair = servers["tools"]
    spent: dict[str, list[float]] = {mode: [] for mode in pair}
    for measured in (False, True, True, True):  # the first warms each server up
        for mode, server in pair.items():
            # A connection of its own: a loaded machine may keep the other
            # server busy past uvicorn's keep-alive (5 s), which closes an idle one.
            connection = _Connection(server.port)
            try:
                connection.call()
                before = _cpu_seconds(server.pid)
                for _ in range(300 if measured else 20):
                    connection.call()
                if measured:
                    spent[mode].append(_cpu_seconds(server.pid) - before)
            finally:
                connection.close()
    assert min(spent["inline"]) < 0.7 * min(spent["sdk"]), spent
