"""No command outlives its call or its server (issue 16, point 1), with real processes.

A cli tool writes its shell's pid (the leader of its process group) to a file and
sleeps; the test then cancels the call, abandons it, or ends the server, and checks
that no process of that group is alive within 2 s. Stopping a command sends SIGTERM
to its group, then SIGKILL after a short grace: a command that traps SIGTERM writes
a mark and sleeps on, and is still gone.
"""

from __future__ import annotations

import asyncio
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from types import ModuleType
from typing import IO, Any

import httpx
import pytest

from .conftest import (
    built_package,
    package_env,
    run_mcigen,
    schema_of,
    write_schema,
)
from .mcp_servers import free_port, listening
from .oracle import oracle_python, run_oracle

PIDFILE_SCHEMA = {
    "type": "object",
    "properties": {"pidfile": {"type": "string"}},
    "required": ["pidfile"],
}


def sleeper(name: str, script: str, timeout_ms: int = 60_000) -> dict[str, Any]:
    """A cli tool running ``sh -c SCRIPT PIDFILE`` (``$0`` is the pid file)."""
    return {
        "name": name,
        "inputSchema": PIDFILE_SCHEMA,
        "execution": {
            "type": "cli",
            "command": "sh",
            "args": ["-c", script, "{{props.pidfile}}"],
            "timeout_ms": timeout_ms,
        },
    }


SLEEP = 'echo $$ > "$0"; sleep 30'
STUBBORN = (
    'trap "echo TERM > \\"$0.term\\"" TERM; echo $$ > "$0"; '
    "while :; do sleep 0.05; done"
)
"""Marks a SIGTERM (``PIDFILE.term``) and sleeps on: only SIGKILL ends it."""

AWAIT_GO = 'echo $$ > "$0"; while [ ! -e "$0.go" ]; do sleep 0.02; done; echo done'
"""Runs until ``PIDFILE.go`` exists, then writes ``done``."""

TOOLS = [
    sleeper("sleep", SLEEP),
    sleeper("awaitGo", AWAIT_GO),
    sleeper("stubborn", STUBBORN),
    sleeper("stubbornQuick", STUBBORN, timeout_ms=300),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("lifecycle")
    schema = write_schema(directory, schema_of(*TOOLS), "lifecycle.mci.json")
    with built_package(schema, directory / "lifecyclepkg") as built:
        yield built


@pytest.fixture
def pidfile(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "pid"
    yield path
    if path.exists() and path.read_text().strip():  # whatever a failed test left
        try:
            os.killpg(int(path.read_text()), signal.SIGKILL)
        except ProcessLookupError:
            pass


def leader(pidfile: Path) -> int:
    """The command's pid, once it has written it (within a minute: mci-py's import
    alone takes seconds on a loaded machine)."""
    deadline = time.monotonic() + 60
    while not pidfile.exists() or not pidfile.read_text().strip():
        assert time.monotonic() < deadline, "the command did not start"
        time.sleep(0.01)
    return int(pidfile.read_text())


def group_alive(group: int) -> bool:
    """Whether a process of the process group ``group`` is alive (not a zombie)."""
    for entry in os.listdir("/proc"):
        try:
            with open(f"/proc/{entry}/stat", "rb") as stat:
                fields = stat.read().rpartition(b")")[2].split()
        except (OSError, ValueError):
            continue
        if int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
            return True
    return False


def gone_within(seconds: float, group: int) -> bool:
    deadline = time.monotonic() + seconds
    while group_alive(group) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not group_alive(group)


def exited_within(seconds: float, process: subprocess.Popen[bytes]) -> int | None:
    try:
        return process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        return None


def in_package_dir(
    package: ModuleType, *argv: str, launcher: Sequence[str] = (), **popen: Any
) -> subprocess.Popen[bytes]:
    """``python ARGV`` beside the built package, without the tests' ``MCIGEN_*``,
    run by ``launcher`` (a command that ends by exec'ing its arguments) if any."""
    return subprocess.Popen(
        [*launcher, sys.executable, *argv],
        start_new_session=True,
        **beside(package),
        **popen,
    )


def beside(package: ModuleType) -> dict[str, Any]:
    """Where and in what environment a process runs beside the built package."""
    directory = Path(package.__path__[0]).parent
    return {"cwd": directory, "env": package_env(directory)}


def served(package: ModuleType, *args: str, **popen: Any) -> subprocess.Popen[bytes]:
    return in_package_dir(package, "-m", package.__name__, "serve", *args, **popen)


# ------------------------------------------------------------------------- stdio


class StdioClient:
    """A raw JSON-RPC client of ``python -m PKG serve`` over its stdin and stdout."""

    def __init__(
        self, package: ModuleType, launcher: Sequence[str] = (), **popen: Any
    ) -> None:
        self.process = served(
            package,
            launcher=launcher,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            **popen,
        )
        self.send(
            id=0,
            method="initialize",
            params={
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "lifecycle-test", "version": "1"},
            },
        )
        assert "result" in self.receive()
        self.send(method="notifications/initialized")

    @property
    def stdin(self) -> IO[bytes]:
        assert self.process.stdin is not None
        return self.process.stdin

    def send(self, **message: Any) -> None:
        self.stdin.write(json.dumps({"jsonrpc": "2.0", **message}).encode() + b"\n")
        self.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        answer: dict[str, Any] = json.loads(self.process.stdout.readline())
        return answer

    def call(self, request_id: int, tool: str, pidfile: Path) -> None:
        self.send(
            id=request_id,
            method="tools/call",
            params={"name": tool, "arguments": {"pidfile": str(pidfile)}},
        )

    def close(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def stdio(package: ModuleType) -> Iterator[StdioClient]:
    client = StdioClient(package)
    yield client
    client.close()


@pytest.mark.parametrize("tool", ["sleep", "stubborn"])
def test_a_cancelled_stdio_call_stops_its_command(
    stdio: StdioClient, pidfile: Path, tool: str
) -> None:
    stdio.call(7, tool, pidfile)
    group = leader(pidfile)
    stdio.send(
        method="notifications/cancelled", params={"requestId": 7, "reason": "enough"}
    )
    assert gone_within(10, group)
    if tool == "stubborn":  # SIGTERM first, SIGKILL after the grace
        assert Path(f"{pidfile}.term").read_text() == "TERM\n"
    # The server serves on.
    stdio.send(id=8, method="tools/list")
    assert len(stdio.receive()["result"]["tools"]) == len(TOOLS)


def logged_or_ended(process: subprocess.Popen[bytes], text: str) -> str:
    """What ``process`` wrote to stderr once it wrote ``text``, or ended (within
    a minute)."""
    assert process.stderr is not None
    deadline = time.monotonic() + 60
    said = b""
    while text.encode() not in said:
        ready, _, _ = select.select([process.stderr], [], [], 1)
        assert time.monotonic() < deadline, said.decode()
        if ready:
            chunk = os.read(process.stderr.fileno(), 65536)
            if not chunk:
                break
            said += chunk
    return said.decode()


def test_a_call_in_flight_when_stdin_closes_is_answered_then_the_server_exits(
    package: ModuleType, pidfile: Path
) -> None:
    """A client may close stdin right after its last request: the call runs on
    to its end (its timeout bounds it), is answered, and the server exits."""
    stdio = StdioClient(package, stderr=subprocess.PIPE)
    try:
        stdio.call(1, "awaitGo", pidfile)
        leader(pidfile)
        stdio.stdin.close()
        log = logged_or_ended(stdio.process, "stdin has ended")
        Path(f"{pidfile}.go").touch()
        answer = stdio.receive()
        assert answer["result"]["content"][0]["text"] == "done\n", (answer, log)
        assert answer["id"] == 1
        assert exited_within(10, stdio.process) == 0
    finally:
        stdio.close()


def test_a_call_cancelled_before_stdin_closes_does_not_hold_the_exit(
    stdio: StdioClient, pidfile: Path
) -> None:
    """A cancelled request is never answered: the server does not wait for it at
    EOF, it stops its command and exits, having written nothing more."""
    stdio.call(1, "sleep", pidfile)
    group = leader(pidfile)
    stdio.send(
        method="notifications/cancelled", params={"requestId": 1, "reason": "enough"}
    )
    stdio.stdin.close()
    assert gone_within(10, group)
    assert exited_within(10, stdio.process) == 0
    assert stdio.process.stdout is not None
    assert stdio.process.stdout.read() == b""


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_a_signalled_stdio_server_stops_its_commands_and_exits(
    stdio: StdioClient, pidfile: Path, signum: int
) -> None:
    stdio.call(1, "stubborn", pidfile)
    group = leader(pidfile)
    stdio.process.send_signal(signum)
    assert gone_within(10, group)
    assert Path(f"{pidfile}.term").exists()
    assert exited_within(5, stdio.process) == -signum  # by that signal, as it came


# -------------------------------------------------------------------------- HTTP


@contextmanager
def http_server(
    package: ModuleType, *argv: str
) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``python ARGV PORT`` (a server of the package); yields it and its address."""
    port = free_port()
    command = [sys.executable, *argv, str(port)]
    with listening(command, port, stop=signal.SIGKILL, **beside(package)) as process:
        yield process, f"127.0.0.1:{port}"


@pytest.fixture
def http(package: ModuleType) -> Iterator[tuple[subprocess.Popen[bytes], str]]:
    """``python -m PKG serve --http PORT`` (on 127.0.0.1)."""
    with http_server(package, "-m", package.__name__, "serve", "--http") as server:
        yield server


def call_request(address: str, tool: str, pidfile: Path) -> bytes:
    """A whole ``tools/call`` POST to a stateless server, as raw HTTP/1.1."""
    body = json.dumps(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": tool, "arguments": {"pidfile": str(pidfile)}},
        }
    ).encode()
    head = (
        f"POST /mcp HTTP/1.1\r\nHost: {address}\r\n"
        "Content-Type: application/json\r\n"
        "Accept: application/json, text/event-stream\r\n"
        "MCP-Protocol-Version: 2025-06-18\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


def test_an_http_client_that_disconnects_mid_call_stops_the_command(
    http: tuple[subprocess.Popen[bytes], str], pidfile: Path
) -> None:
    process, address = http
    host, port = address.split(":")
    with socket.create_connection((host, int(port))) as connection:
        connection.sendall(call_request(address, "stubborn", pidfile))
        group = leader(pidfile)
    assert gone_within(10, group)
    assert process.poll() is None  # the server serves on


def test_a_terminated_http_server_answers_the_call_stops_the_command_and_exits(
    http: tuple[subprocess.Popen[bytes], str], pidfile: Path
) -> None:
    process, address = http

    async def call_then_terminate() -> httpx.Response:
        async with httpx.AsyncClient(timeout=20) as client:
            request = call_request(address, "sleep", pidfile).split(b"\r\n\r\n", 1)
            answer = asyncio.ensure_future(
                client.post(
                    f"http://{address}/mcp",
                    content=request[1],
                    headers={
                        "Content-Type": "application/json",
                        "Accept": "application/json, text/event-stream",
                        "MCP-Protocol-Version": "2025-06-18",
                    },
                )
            )
            group = await asyncio.to_thread(leader, pidfile)
            process.send_signal(signal.SIGTERM)
            assert await asyncio.to_thread(gone_within, 2, group)
            return await answer

    response = asyncio.run(call_then_terminate())
    result = response.json()["result"]
    assert result["isError"] is True
    assert result["content"][0]["text"].endswith(
        "was stopped: the server is shutting down"
    )
    assert exited_within(5, process) == -signal.SIGTERM


STOPPED_WHILE_STARTING = """
import json, os, sys, threading, time
from mcigen_runtime.executors import running
from mcigen_runtime.executors.cli import run
import {package} as package

pidfile, holding = sys.argv[1], threading.Event()

class Held(run.Running):  # the moment between the command's start and its tracking
    def __init__(self, *args, **kwargs):
        holding.wait()
        super().__init__(*args, **kwargs)

run.Running = Held
results = []
caller = threading.Thread(target=lambda: results.append(package.sleep(pidfile=pidfile)))
caller.start()
while not (os.path.exists(pidfile) and open(pidfile).read().strip()):
    time.sleep(0.005)
stopper = threading.Thread(target=running.stop_all, args=("stopped here",))
stopper.start()
holding.set()
caller.join(20)
print(json.dumps(results[0].text if results else None))
"""


def test_commands_are_stopped_also_when_one_is_still_starting(
    package: ModuleType, pidfile: Path
) -> None:
    """Stopping every command (a server's shutdown, in a thread of its own) as a
    call has started its command but does not yet hold it: the command is stopped
    too. uvicorn's SIGTERM handler, run between the two on a loaded machine, left
    the command running and the server waiting for it."""
    script = STOPPED_WHILE_STARTING.format(package=package.__name__)
    process = in_package_dir(
        package, "-c", script, str(pidfile), stdout=subprocess.PIPE
    )
    out, _ = process.communicate(timeout=60)
    assert json.loads(out), "the call did not end: its command was not stopped"
    assert json.loads(out).endswith("stopped here")


STARTED_AFTER_THE_STOP = """
import json, os, sys
from mcigen_runtime.executors import running
import {package} as package

running.stop_all_soon("stopped here")  # as a server's SIGTERM handler does
result = package.sleep(pidfile=sys.argv[1])
print(json.dumps([result.text, os.path.exists(sys.argv[1])]))
"""


def test_a_command_that_would_start_after_the_server_stopped_every_command_does_not(
    package: ModuleType, pidfile: Path
) -> None:
    """A call that reaches its command once shutdown has stopped every command (it
    was still reading its input, say) does not start it: the server would wait
    for it to end."""
    script = STARTED_AFTER_THE_STOP.format(package=package.__name__)
    process = in_package_dir(
        package, "-c", script, str(pidfile), stdout=subprocess.PIPE
    )
    out, _ = process.communicate(timeout=60)
    text, started = json.loads(out)
    assert text.endswith("was not started: stopped here")
    assert not started


def test_under_uvicorn_a_graceful_shutdown_that_times_out_stops_commands(
    package: ModuleType, pidfile: Path
) -> None:
    """``uvicorn PKG.server:app --timeout-graceful-shutdown 1``: the app cannot see
    the signal, but uvicorn cancels the calls still running after a second, and the
    app's lifespan shutdown stops what is left before the process ends."""
    uvicorn = ("-m", "uvicorn", f"{package.__name__}.server:app")
    graceful = ("--timeout-graceful-shutdown", "1", "--port")
    with http_server(package, *uvicorn, *graceful) as (process, address):
        host, port = address.split(":")
        with socket.create_connection((host, int(port))) as connection:
            connection.sendall(call_request(address, "stubborn", pidfile))
            group = leader(pidfile)
            process.send_signal(signal.SIGTERM)
            assert gone_within(5, group)
        assert Path(f"{pidfile}.term").exists()
        assert exited_within(5, process) is not None


def test_under_uvicorn_a_call_the_graceful_shutdown_cuts_gets_a_json_rpc_error(
    package: ModuleType, pidfile: Path
) -> None:
    """uvicorn cancels the request still running once ``--timeout-graceful-shutdown``
    has passed; the client gets a JSON-RPC error for its call, not a bare 500."""
    uvicorn = ("-m", "uvicorn", f"{package.__name__}.server:app")
    graceful = ("--timeout-graceful-shutdown", "1", "--port")
    with http_server(package, *uvicorn, *graceful) as (process, address):
        host, port = address.split(":")
        with socket.create_connection((host, int(port)), timeout=20) as connection:
            connection.sendall(call_request(address, "sleep", pidfile))
            leader(pidfile)
            process.send_signal(signal.SIGTERM)
            answer = b""
            while chunk := connection.recv(65536):
                answer += chunk
        head, _, body = answer.partition(b"\r\n\r\n")
        assert head.startswith(b"HTTP/1.1 200"), answer
        assert json.loads(body) == {
            "jsonrpc": "2.0",
            "id": 1,
            "error": {
                "code": -32000,
                "message": "the server is shutting down: the request was stopped; "
                "try again",
            },
        }
        assert exited_within(5, process) is not None


# ------------------------------------------------------------------ Python calls


def test_an_async_twin_cancelled_in_user_code_stops_its_command(
    package: ModuleType, pidfile: Path
) -> None:
    async def cancel_while_running() -> int:
        task = asyncio.ensure_future(package.stubborn_async(pidfile=str(pidfile)))
        group = await asyncio.to_thread(leader, pidfile)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task  # at once: the grace runs in a worker thread
        return group

    group = asyncio.run(cancel_while_running())
    # asyncio.run waits for its worker threads: the command is SIGKILLed, reaped.
    assert Path(f"{pidfile}.term").exists()
    with pytest.raises(ProcessLookupError):
        os.kill(group, 0)
    assert gone_within(10, group)


def test_a_timeout_sends_sigterm_then_sigkill(
    package: ModuleType, pidfile: Path
) -> None:
    calls: list[Callable[[], Any]] = [
        lambda: package.stubborn_quick(pidfile=str(pidfile)),
        lambda: asyncio.run(package.stubborn_quick_async(pidfile=str(pidfile))),
    ]
    for call in calls:
        result = call()
        assert result.isError
        assert "timed out after 0.3 seconds" in result.text
        assert Path(f"{pidfile}.term").read_text() == "TERM\n"
        assert gone_within(10, int(pidfile.read_text()))  # SIGKILLed, dying
        Path(f"{pidfile}.term").unlink()


def test_a_sync_call_interrupted_by_ctrl_c_stops_its_command(
    package: ModuleType, pidfile: Path
) -> None:
    script = f"import {package.__name__} as p; p.sleep(pidfile={str(pidfile)!r})"
    process = in_package_dir(package, "-c", script, stderr=subprocess.PIPE)
    group = leader(pidfile)
    process.send_signal(signal.SIGINT)
    assert gone_within(10, group)
    _, stderr = process.communicate(timeout=10)
    assert stderr.rstrip().endswith(b"KeyboardInterrupt")


# ------------------------------------------------------------- mci-py, side by side


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def test_row_67_ctrl_c_during_a_call_leaves_no_process_of_the_command(
    tmp_path: Path,
) -> None:
    """mci-py's ``subprocess.run`` SIGKILLs the command it started (``sh``) alone:
    the ``sleep`` that ``sh`` started runs on after the program has exited. The
    command writes that ``sleep``'s pid."""
    tool = sleeper("nap", 'sleep 30 & echo $! > "$0"; wait')
    schema = write_schema(tmp_path, schema_of(tool), "row67.mci.json")
    mci_py = (
        "import sys; from mcipy import MCIClient; "
        "MCIClient(schema_file_path=sys.argv[1]).execute('nap', "
        "{'pidfile': sys.argv[2]})"
    )
    mcigen = "import sys, row67; row67.nap(pidfile=sys.argv[2])"
    assert run_mcigen("build", schema, "-o", tmp_path / "row67").returncode == 0
    sleeps: list[int] = []
    try:
        for python, script in ((oracle_python(), mci_py), (sys.executable, mcigen)):
            pidfile = tmp_path / f"pid-{len(sleeps)}"
            program = subprocess.Popen(
                [python, "-c", script, schema, pidfile],
                cwd=tmp_path,
                stderr=subprocess.DEVNULL,
            )
            sleeps.append(leader(pidfile))
            program.send_signal(signal.SIGINT)
            program.wait(timeout=60)
        theirs, ours = sleeps
        time.sleep(0.2)  # mci-py's sleep lives on for 30 s
        assert alive(theirs)  # mci-py left it running
        deadline = time.monotonic() + 10
        while alive(ours) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert not alive(ours)
    finally:
        for pid in sleeps:
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_row_68_a_command_that_times_out_gets_sigterm_first(tmp_path: Path) -> None:
    """mci-py SIGKILLs a command at its timeout: a command that cleans up on
    SIGTERM never gets to. mcigen sends SIGTERM, and SIGKILL 0.5 s later only to
    what is still alive."""
    tool = sleeper("tidy", STUBBORN, timeout_ms=500)
    schema = write_schema(tmp_path, schema_of(tool), "row68.mci.json")
    theirs, ours = tmp_path / "theirs", tmp_path / "ours"
    [answer] = run_oracle(
        schema, [{"tool": "tidy", "props": {"pidfile": str(theirs)}, "env": {}}]
    )
    assert answer["result"]["content"][0]["text"].endswith("timed out after 1 seconds")
    assert not Path(f"{theirs}.term").exists()
    with built_package(schema, tmp_path / "row68") as package:
        result = package.tidy(pidfile=str(ours))
    assert result.text.endswith("timed out after 0.5 seconds")
    assert Path(f"{ours}.term").read_text() == "TERM\n"
    assert gone_within(10, int(ours.read_text()))
