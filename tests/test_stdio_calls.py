"""``tools/call`` of text tools answered by the stdio server's reader
(``serve/stdio_calls.py``): every answer byte for byte the SDK's, for the calls it
answers and those it leaves to the SDK, compared with a server that leaves them
all to it (``MCIGEN_STDIO_EARLY=0``); real processes, a real SDK client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any

import anyio
import pytest
from mcigen_runtime.edge.closed_pipe import EXIT_PIPE_CLOSED
from mcigen_runtime.serve.unsendable import CANNOT_SEND
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import TextContent
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

from .conftest import package_env, run_mcigen, text_tool, write_schema
from .mcp_servers import written
from .sleepers import gone, own_length, sleepers, started
from .test_serve_edge import read_lines
from .test_stdio_start import INITIALIZED, answers, request

LONG = 'é\u2028\x1f"\\/' * 900
"""An answer longer than a pipe takes at once (``PIPE_BUF``)."""

RAW = "a\udcffb"
"""``CALLS_RAW``: the byte ``\xff`` in the environment, a lone surrogate to Python:
the answer of ``raw`` cannot be written."""


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_calls(tmp_path_factory.mktemp("calls"))


def build_calls(directory: Path) -> Path:
    """Package ``calls`` built in ``directory``: text tools (one with a loop and a
    condition, two that show an environment variable) and cli tools (``echo``,
    ``nap``: ``sleep``)."""
    name = {"type": "object", "properties": {"name": {"type": "string"}}}
    tools = [
        text_tool(
            "greet",
            "Hello, {{props.name}}!",
            inputSchema={**name, "required": ["name"]},
        ),
        text_tool(
            "listing",
            "@foreach(item in props.items){{item}};@endforeach@if(props.loud)!@endif",
            inputSchema={
                "type": "object",
                "properties": {
                    "items": {"type": "array", "items": {"type": "string"}},
                    "loud": {"type": "boolean"},
                },
            },
        ),
        text_tool("home", "{{env.CALLS_HOME}}"),
        text_tool("raw", "{{env.CALLS_RAW}}"),
        {
            "name": "echo",
            "inputSchema": {**name, "required": ["name"]},
            "execution": {"type": "cli", "command": "echo", "args": ["{{props.name}}"]},
        },
        {
            "name": "nap",
            "inputSchema": {**name, "required": ["name"]},
            "execution": {
                "type": "cli",
                "command": "sleep",
                "args": ["{{props.name}}"],
            },
        },
    ]
    schema = write_schema(directory, {"schemaVersion": "1.0", "tools": tools})
    assert run_mcigen("build", schema, "-o", directory / "calls").returncode == 0
    return directory


def call(number: int | str, name: str, arguments: Any = None, **more: Any) -> Any:
    params: dict[str, Any] = {"name": name, **more}
    if arguments is not None:
        params["arguments"] = arguments
    return request(number, "tools/call", params)  # type: ignore[arg-type]


CALLS = [
    call(2, "greet", {"name": "Ann"}),  # the SDK's: the first after initialize
    call(3, "greet", {"name": "Bo"}),
    call("four", "greet", {"name": LONG}),
    call(5, "greet", {"name": 5}),  # input the tool refuses
    call(6, "greet", {}),
    call(7, "greet"),
    request(8, "tools/call", {"name": "greet", "arguments": None}),
    call(9, "listing", {"items": ["a", "b"], "loud": True}),
    call(10, "listing", {"items": ["x"] * 3, "loud": False, "extra": [1.5, None]}),
    call(11, "home"),  # CALLS_HOME unset: the template fails
    call(2**52, "greet", {"name": "big id"}),
    call(12, "nope", {}),  # the SDK's: an unknown tool
    call(13, "echo", {"name": "cli"}),  # the SDK's: it starts a command
    call(14, "greet", {"name": "p"}, _meta={"progressToken": 1}),  # the SDK's
    call(15, "greet", {"name": "t"}, task={"ttl": 1000}),  # the SDK's
    call(16, "greet", {"name": 1e300}),  # a float json and the SDK write apart
    call(17, "greet", {"name": "\ud800"}),  # no Unicode text
    '{"jsonrpc": "2.0", "id": 18, "method": "tools/call", "params": '
    '{"name": "greet", "name": "x", "arguments": {}}}',  # a key twice
    request(19, "tools/call", {"name": 3}),
    request(20, "tools/call", []),
    request(21, "ping"),
    request(22, "tools/list"),
    call(24, "raw"),  # an answer that cannot be written
    call(25, "raw", {}, _meta={"progressToken": 2}),  # the SDK's, cannot be written
    call(23, "greet", {"name": "last"}),
]
ANSWERED = sum(1 for line in CALLS if isinstance(line, str) or "id" in line) + 1


def initialize(version: str) -> Any:
    return request(
        1,
        "initialize",
        {
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "client", "version": "1.0"},
        },
    )


@pytest.mark.parametrize("version", HANDSHAKE_PROTOCOL_VERSIONS)
def test_calls_are_answered_as_the_sdk_answers_them(built: Path, version: str) -> None:
    lines = [initialize(version), INITIALIZED, *CALLS]
    inline = answers(built, "calls", lines, ANSWERED, CALLS_RAW=RAW)
    sdk = answers(
        built, "calls", lines, ANSWERED, CALLS_RAW=RAW, MCIGEN_STDIO_EARLY="0"
    )
    assert sorted(inline) == sorted(sdk)
    assert any(b"Hello, last!" in answer for answer in inline)
    assert sum(b'"code":-32603' in answer for answer in inline) == 2


def meta(number: int, name: str, **arguments: Any) -> Any:
    return call(number, name, arguments)


META_CALLS = [
    meta(2, "meta_call", path="/greet", args={"name": "Ann"}),  # the SDK's
    meta(3, "meta_call", path="/greet", args={"name": LONG}),
    meta(4, "meta_call", path="greet", args={"name": 5}),  # refused input
    meta(5, "meta_call", path="/listing", args={"items": ["a"], "loud": True}),
    meta(6, "meta_call", path="/greet", args=[]),
    meta(7, "meta_call", path="/nowhere"),
    meta(8, "meta_call", path="/home"),  # the template raises: a JSON-RPC error
    meta(9, "meta_call", path="/echo", args={"name": "cli"}),  # the SDK's
    meta(10, "meta_tree"),
    meta(11, "meta_tree", path="/nowhere"),
    meta(12, "meta_desc", path="/greet"),
    meta(13, "meta_desc"),
    meta(14, "meta_call"),
    call(15, "greet", {"name": "not a meta-tool"}),
    meta(16, "meta_call", path="/greet", args={"name": "last"}),
    meta(17, "meta_call", path="/raw"),  # an answer that cannot be written
    meta(18, "meta_call", path="/greet", args={"name": "\x00\x7f\u2029\ufeff"}),
]


@pytest.mark.parametrize("version", ["2024-11-05", "2025-11-25"])
def test_the_brokers_calls_are_answered_as_the_sdk_answers_them(
    built: Path, version: str
) -> None:
    lines = [initialize(version), INITIALIZED, *META_CALLS]
    count = len(META_CALLS) + 1
    inline = answers(built, "calls", lines, count, "--broker", CALLS_RAW=RAW)
    sdk = answers(
        built,
        "calls",
        lines,
        count,
        "--broker",
        CALLS_RAW=RAW,
        MCIGEN_STDIO_EARLY="0",
    )
    assert sorted(inline) == sorted(sdk)
    assert any(b"Hello, last!" in answer for answer in inline)
    assert sum(b'"code":-32603' in answer for answer in inline) == 1


@dataclass(frozen=True)
class Served:
    """A server started by :func:`served`: its stdin and stdout piped, its
    stderr written to ``errors``, a file (a server that writes much to it never
    waits for a reader, and a failure shows its end)."""

    process: subprocess.Popen[bytes]
    errors: IO[bytes]

    def answers(self, count: int) -> list[bytes]:
        """The next ``count`` lines it writes (120 s at most)."""
        assert self.process.stdout is not None
        return read_lines(self.process.stdout, count, 120, written(self.errors))

    def send(self, *messages: Any) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"".join(line(m) for m in messages))
        self.process.stdin.flush()

    def log(self) -> str:
        """All it wrote to stderr so far."""
        self.errors.seek(0)
        return self.errors.read().decode()

    def ended(self, timeout: float = 120) -> str:
        """All it wrote to stderr, once it has exited by itself; fails after
        ``timeout`` seconds with the end of what it wrote."""
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            told = written(self.errors)()
            raise AssertionError(
                f"the server still ran after {timeout:g} s; its stderr: {told}"
            ) from None
        return self.log()


def line(message: Any) -> bytes:
    return (json.dumps(message) + "\n").encode()


SERVE = (sys.executable, "-m", "calls", "serve")


@contextmanager
def served(
    built: Path,
    argv: Sequence[str] = SERVE,
    popen: Mapping[str, Any] = MappingProxyType({}),
    **env: str,
) -> Iterator[Served]:
    """``argv`` (``python -m calls serve``) in ``built`` with ``env`` set, its
    stdin and stdout piped unless ``popen`` (more of ``Popen``'s arguments) says
    otherwise, killed when the block ends if it still runs."""
    with tempfile.TemporaryFile() as errors:
        process = subprocess.Popen(
            argv,
            cwd=built,
            env=package_env(built, **env),
            **{"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, **popen},
            stderr=errors,
        )
        with process:
            try:
                yield Served(process, errors)
            finally:
                process.kill()


@pytest.mark.parametrize("early", ["1", "0"])
def test_an_answer_that_cannot_be_written_is_an_error_and_the_server_goes_on(
    built: Path, early: str
) -> None:
    """``raw`` shows an environment variable that is no UTF-8: its answer is a
    JSON-RPC error, through the reader (``early``) and through the SDK alike,
    and the server answers what follows, then ends at EOF, without a traceback."""
    lines = [
        initialize("2025-06-18"),
        INITIALIZED,
        call(2, "raw"),  # the SDK's: the first after initialize
        call(3, "raw"),
        call(4, "greet", {"name": "after"}),
        request(5, "tools/list"),
    ]
    with served(built, CALLS_RAW=RAW, MCIGEN_STDIO_EARLY=early) as server:
        server.send(*lines)
        said = {answer["id"]: answer for answer in map(json.loads, server.answers(5))}
        server.process.communicate(timeout=120)  # EOF, once every answer is read
        log = server.log()
    assert server.process.returncode == 0, log
    for number in (2, 3):
        assert said[number]["error"] == {"code": -32603, "message": CANNOT_SEND}
    assert said[4]["result"]["content"][0]["text"] == "Hello, after!"
    assert "raw" in {tool["name"] for tool in said[5]["result"]["tools"]}
    assert "Traceback" not in log, log
    assert log.count("the answer to request") == 2, log


@pytest.mark.parametrize("early", ["1", "0"])
def test_a_batch_written_then_stdin_closed_gets_every_answer(
    built: Path, early: str
) -> None:
    """A client pipes its requests and closes stdin at once (``cat requests.jsonl
    | python -m calls serve``): each is answered before the server exits, those
    the reader answers itself (``early``) and those left to the SDK, which still
    handles them when the reader has read the end."""
    lines = [
        initialize("2025-06-18"),
        INITIALIZED,
        *(call(number, "greet", {"name": str(number)}) for number in (2, 3, 4)),
        request(5, "tools/list"),
        call(6, "echo", {"name": "cli"}),
    ]
    done = subprocess.run(
        [sys.executable, "-m", "calls", "serve"],
        cwd=built,
        env=package_env(built, MCIGEN_STDIO_EARLY=early),
        input="".join(json.dumps(line) + "\n" for line in lines).encode(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()
    said = {
        answer["id"]: answer for answer in map(json.loads, done.stdout.splitlines())
    }
    assert sorted(said) == [1, 2, 3, 4, 5, 6]
    assert said[4]["result"]["content"][0]["text"] == "Hello, 4!"
    assert "greet" in {tool["name"] for tool in said[5]["result"]["tools"]}
    assert said[6]["result"]["content"][0]["text"] == "cli\n"


BY_EACH_WRITER = pytest.mark.parametrize(
    ("tool", "name"),
    [("greet", "gone"), ("greet", LONG), ("echo", "gone")],
    ids=["by-the-reader", "by-the-reader-in-a-thread", "by-the-sdk"],
)
"""A call of ``tool`` with ``name`` whose answer each writer writes: the reader, at
once or in a worker thread for a long one, or the SDK."""


@contextmanager
def past_a_call(built: Path, *more: Any) -> Iterator[Served]:
    """A server that has answered ``initialize`` and a call, ``more`` written after."""
    with served(built) as server:
        opening = [
            initialize("2025-06-18"),
            INITIALIZED,
            call(2, "greet", {"name": "a"}),
        ]
        server.send(*opening, *more)
        server.answers(2)
        yield server


@BY_EACH_WRITER
def test_an_answer_the_client_never_got_is_logged_unsent(
    built: Path, tool: str, name: str
) -> None:
    """The client stops reading (its end of stdout closed) before a call is
    answered: the call's log line says ``unsent``, not ``ok``, whoever writes the
    answer."""
    with past_a_call(built) as server:
        process = server.process
        assert process.stdin is not None and process.stdout is not None
        process.stdout.close()
        process.stdin.write(line(call(3, tool, {"name": name})))
        process.stdin.close()
        log = server.ended()
    calls = [line for line in log.splitlines() if "tool call" in line]
    assert len(calls) == 2, log
    assert "tool=greet outcome=ok " in calls[0], log
    assert f"tool={tool} outcome=unsent " in calls[1], log


def stderr_once_ended(server: Served) -> str:
    """What ``server`` wrote on stderr, once it has exited by itself (stdin
    still open), its exit status asserted to be the closed pipe's, without a
    traceback."""
    log = server.ended()
    assert server.process.returncode == EXIT_PIPE_CLOSED, log
    assert "Traceback" not in log and "Exception ignored" not in log, log
    return log


@BY_EACH_WRITER
def test_a_server_whose_client_closed_stdout_stops_its_calls_and_exits_141(
    built: Path, tool: str, name: str
) -> None:
    """The client closes its end of stdout while a cli call runs and keeps stdin
    open: the next answer cannot be written, whoever writes it, and the server
    stops reading, stops the running call's command, says so in one line and
    exits 141, as ``list | head`` does, without a traceback
    (``serve/wire_failed.py``)."""
    length = own_length(961)
    try:
        with past_a_call(built, call(3, "nap", {"name": length})) as server:
            napping = started(length)
            assert napping, server.log()
            assert server.process.stdout is not None
            server.process.stdout.close()
            server.send(call(4, tool, {"name": name}))
            log = stderr_once_ended(server)
        assert gone(napping), log
    finally:
        for pid in sleepers(length):  # what a failed test left
            os.kill(pid, 9)
    assert (
        log.count(
            "the client closed its end of stdout ([Errno 32] Broken pipe): "
            "stopped reading, cancelled the 1 request(s) in flight; exiting"
        )
        == 1
    ), log
    assert f"tool={tool} outcome=unsent " in log, log


def test_a_client_that_closed_stdout_before_initialize_was_answered_ends_it(
    built: Path,
) -> None:
    """The early answers (``stdio_start``) end the same way: one line, exit 141."""
    with served(built) as server:
        assert server.process.stdout is not None
        server.process.stdout.close()
        server.send(initialize("2025-06-18"))
        log = stderr_once_ended(server)
    assert (
        "the client closed its end of stdout ([Errno 32] Broken pipe): "
        "stopped reading; exiting\n"
    ) in log, log


def test_a_client_of_the_sdk_calls_text_and_cli_tools_at_once(built: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "calls", "serve"],
        cwd=str(built),
        env=package_env(built, PYTHONDONTWRITEBYTECODE="1", CALLS_HOME="/home"),
    )
    said: dict[str, str] = {}

    async def scenario() -> None:
        async def one(session: ClientSession, tool: str, name: str) -> None:
            result = await session.call_tool(tool, {"name": name})
            assert isinstance(result.content[0], TextContent)
            said[f"{tool} {name}"] = result.content[0].text

        with anyio.fail_after(120):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                await one(session, "greet", "first")
                async with anyio.create_task_group() as group:
                    for number in range(40):
                        tool = "echo" if number % 8 == 0 else "greet"
                        group.start_soon(one, session, tool, str(number))
                    group.start_soon(one, session, "greet", LONG)
                home = await session.call_tool("home", {})
                assert home.content[0] == TextContent(type="text", text="/home")

    anyio.run(scenario)
    assert said[f"greet {LONG}"] == f"Hello, {LONG}!"
    for number in range(40):
        if number % 8 == 0:
            assert said[f"echo {number}"] == f"{number}\n"
        else:
            assert said[f"greet {number}"] == f"Hello, {number}!"


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc")
def test_a_text_call_costs_the_server_a_fraction_of_the_sdks_cpu(built: Path) -> None:
    """What the change is for: the same calls, each server's CPU time taken in
    turns (the machine may be busy: CPU time, not wall time, and the least of
    three rounds)."""
    servers = {}
    for mode in ("1", "0"):
        servers[mode] = subprocess.Popen(
            [sys.executable, "-m", "calls", "serve"],
            cwd=built,
            env=package_env(built, MCIGEN_STDIO_EARLY=mode),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
    greet = (
        b'{"jsonrpc":"2.0","id":9,"method":"tools/call",'
        b'"params":{"name":"greet","arguments":{"name":"Ann"}}}\n'
    )
    opening = [
        b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}\n',
        b'{"jsonrpc":"2.0","method":"notifications/initialized"}\n',
    ]
    spent: dict[str, list[float]] = {mode: [] for mode in servers}
    try:
        for process in servers.values():
            assert process.stdin is not None and process.stdout is not None
            process.stdin.write(b"".join(opening) + greet * 20)
            process.stdin.flush()
            read_lines(process.stdout, 21, timeout=120)
        for _ in range(3):
            for mode, process in servers.items():
                assert process.stdin is not None and process.stdout is not None
                before = _cpu_seconds(process.pid)
                for _ in range(300):  # one at a time, as a client waiting for each
                    process.stdin.write(greet)
                    process.stdin.flush()
                    read_lines(process.stdout, 1, timeout=60)
                spent[mode].append(_cpu_seconds(process.pid) - before)
    finally:
        for process in servers.values():
            process.kill()
            process.wait()
    assert min(spent["1"]) < 0.6 * min(spent["0"]), spent
