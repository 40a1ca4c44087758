"""``mcigen serve SCHEMA -o DIR [--reload] -- COMMAND ...``, as real processes over
real HTTP: a changed schema is rebuilt and served by a new server, a broken one
leaves the server that was running; mcigen and its server end together."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcigen_runtime.edge.closed_pipe import EXIT_PIPE_CLOSED

from mcigen.cli import main

from .conftest import run_mcigen, schema_of, text_tool, write_schema
from .mcigen_process import PATIENCE, McigenProcess
from .mcp_servers import TOY_SERVER, free_port, wait_until_listening
from .test_serve_edge import read_lines
from .test_stdio_start import CLIENT, request

HELLO = text_tool("hello", "Hello {{props.who}}!")
BYE = text_tool("bye", "Bye!")
BROKEN = '{"schemaVersion": "1.0", "tools": [{"name": 1}]}'


class McigenServe(McigenProcess):
    """``mcigen serve ARGS`` (or another ``command``); what it and its server write
    to stderr."""

    def __init__(self, cwd: Path, *args: str, command: str = "serve") -> None:
        super().__init__(cwd, command, *args, stream="stderr")

    def started(self, after: int = 0) -> tuple[int, int]:
        """The index of the next line saying a server started, and its pid."""
        index, match = self.line(
            r"^mcigen: started python -m \w+ \w+ \(pid (\d+)\)$", after
        )
        return index, int(match[1])


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def post(url: str, body: Any) -> Any:
    return httpx.post(url, json=body, timeout=60).json()


def tree_paths(url: str) -> list[str]:
    return [child["path"] for child in post(f"{url}/meta_tree", {})["children"]]


@dataclass
class ReloadingBroker:
    """``mcigen serve live.mci.json -o livepkg --reload -- broker PORT`` (the schema
    first holding ``hello``), once its first broker listens."""

    schema: Path
    serving: McigenServe
    port: int
    url: str
    index: int
    """The index of the line saying the first broker started."""
    first: int
    """The first broker's pid."""

    def listening(self) -> None:
        wait_until_listening(self.serving.process, self.port, timeout=PATIENCE)


@contextmanager
def reloading_broker(tmp_path: Path) -> Iterator[ReloadingBroker]:
    """:class:`ReloadingBroker` in ``tmp_path``; mcigen is stopped on the way out."""
    schema = write_schema(tmp_path, schema_of(HELLO), "live.mci.json")
    port = free_port()
    serving = McigenServe(
        tmp_path, schema.name, "-o", "livepkg", "--reload", "--", "broker", str(port)
    )
    try:
        index, first = serving.started()
        broker = ReloadingBroker(
            schema, serving, port, f"http://127.0.0.1:{port}", index, first
        )
        broker.listening()
        yield broker
    finally:
        serving.stop()


def test_reload_restarts_the_broker_on_the_rebuilt_package_and_keeps_it_when_a_build_fails(
    tmp_path: Path,
) -> None:
    with reloading_broker(tmp_path) as broker:
        schema, serving, url = broker.schema, broker.serving, broker.url
        index, first = broker.index, broker.first
        assert tree_paths(url) == ["/hello"]

        write_schema(tmp_path, schema_of(HELLO, BYE), schema.name)
        index, second = serving.started(after=index + 1)
        assert second != first and gone(first)  # stopped and waited for
        broker.listening()
        assert tree_paths(url) == ["/bye", "/hello"]
        answer = post(f"{url}/meta_call", {"path": "/bye"})
        assert answer["content"] == [{"type": "text", "text": "Bye!"}]

        schema.write_text(BROKEN)
        failed, _ = serving.line("^mcigen: the build failed", after=index + 1)
        assert any("live.mci.json:1:" in line for line in serving.lines[index:failed])
        assert not gone(second)
        assert tree_paths(url) == ["/bye", "/hello"]
        greeting = post(f"{url}/meta_call", {"path": "/hello", "args": {"who": "Bo"}})
        assert greeting["content"][0]["text"] == "Hello Bo!"
        assert "started" not in " ".join(serving.lines[failed:])
    assert gone(second)


def test_reload_keeps_the_broker_running_when_the_rebuilt_one_would_not_start(
    tmp_path: Path,
) -> None:
    """An edit that builds (the MCP server's tools are cached) but whose broker
    cannot start (the server reads a variable that is not set): DIR keeps the
    package as it was, and so does the server."""
    with reloading_broker(tmp_path) as broker:
        schema, serving, url = broker.schema, broker.serving, broker.url
        index, first = broker.index, broker.first
        manifest = (tmp_path / "livepkg" / "manifest.json").read_bytes()
        cache = tmp_path / "mci" / "mcp" / "toy.mci.json"
        cache.parent.mkdir(parents=True)
        ask = {
            "name": "ask",
            "inputSchema": {"type": "object", "properties": {}},
            "execution": {"type": "mcp", "serverName": "toy", "toolName": "ask"},
        }
        cache.write_text(
            json.dumps(
                {"schemaVersion": "1.0", "tools": [ask], "expiresAt": "2999-01-01"}
            )
        )
        toy = {
            "command": sys.executable,
            "args": [str(TOY_SERVER), "stdio"],
            "env": {"TOKEN": "{{env.MCIGEN_TEST_NEVER_SET}}"},
        }
        write_schema(
            tmp_path, {**schema_of(HELLO), "mcp_servers": {"toy": toy}}, schema.name
        )
        refused, _ = serving.line(
            r"^mcigen: the rebuilt broker does not start \(exit status 2\)$",
            after=index + 1,
        )
        assert any(
            "MCIGEN_TEST_NEVER_SET is not set" in line
            for line in serving.lines[index:refused]
        )
        serving.line("^mcigen: still serving the package as it was$", after=refused)
        assert not gone(first)
        assert tree_paths(url) == ["/hello"]
        assert (tmp_path / "livepkg" / "manifest.json").read_bytes() == manifest
    assert gone(first)


def test_reload_reports_a_fifo_or_a_device_in_place_of_the_schema_and_watches_on(
    tmp_path: Path,
) -> None:
    with reloading_broker(tmp_path) as broker:
        schema, serving, url = broker.schema, broker.serving, broker.url
        index, first = broker.index, broker.first
        schema.unlink()
        os.mkfifo(schema)
        index, _ = serving.line(
            r"live\.mci\.json:1:1: error: cannot read schema file: it is a FIFO, not "
            "a regular file",
            after=index + 1,
        )
        schema.unlink()
        schema.symlink_to("/dev/zero")
        index, _ = serving.line(
            r"live\.mci\.json:1:1: error: cannot read schema file: it is a character "
            "device, not a regular file",
            after=index + 1,
        )
        schema.unlink()
        write_schema(tmp_path, schema_of(HELLO, BYE), schema.name)
        _, second = serving.started(after=index + 1)
        assert gone(first)
        broker.listening()
        assert tree_paths(url) == ["/bye", "/hello"]


def test_reload_restarts_an_mcp_server_over_http_and_ctrl_c_stops_both(
    tmp_path: Path,
) -> None:
    schema = write_schema(tmp_path, schema_of(HELLO), "live.mci.json")
    port = free_port()
    url = f"http://127.0.0.1:{port}/mcp"
    serving = McigenServe(
        tmp_path,
        schema.name,
        "-o",
        "mcppkg",
        "--reload",
        "--",
        "serve",
        "--http",
        str(port),
    )

    def tool_names() -> list[str]:
        wait_until_listening(serving.process, port, timeout=PATIENCE)
        listing = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
        answer = httpx.post(
            url,
            json=listing,
            headers={"Accept": "application/json, text/event-stream"},
            timeout=60,
        ).json()
        return [tool["name"] for tool in answer["result"]["tools"]]

    try:
        index, first = serving.started()
        assert tool_names() == ["hello"]
        write_schema(tmp_path, schema_of(HELLO, BYE), schema.name)
        _, second = serving.started(after=index + 1)
        assert gone(first)
        assert tool_names() == ["hello", "bye"]
        os.killpg(serving.process.pid, signal.SIGINT)  # what a terminal's Ctrl-C does
        serving.process.wait(PATIENCE)
    finally:
        serving.stop()
    assert gone(second)


def test_mcigen_ends_with_the_command_and_its_status(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(HELLO))
    for reload in ((), ("--reload",)):
        listed = run_mcigen(
            "serve", schema, "-o", tmp_path / "once", *reload, "--", "list"
        )
        assert listed.returncode == 0, listed.stderr
        assert "hello" in listed.stdout
        assert listed.stderr.startswith("mcigen: started python -m once list (pid ")
    described = run_mcigen("serve", schema, "-o", tmp_path / "once", "describe", "no")
    assert described.returncode == 2, described.stderr
    assert described.stderr.endswith(
        "error: Tool not found: no (python -m once list lists them)\n"
    )


def test_a_schema_with_errors_starts_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    schema = tmp_path / "broken.mci.json"
    schema.write_text(BROKEN)
    assert (
        main(["serve", str(schema), "-o", str(tmp_path / "pkg"), "--", "broker"]) == 1
    )
    err = capsys.readouterr().err
    assert "broken.mci.json:1:" in err and "started" not in err
    assert not (tmp_path / "pkg").exists()


def test_reload_without_watchfiles_is_one_line_naming_what_to_install(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "watchfiles", None)  # import fails
    schema = write_schema(tmp_path, schema_of(HELLO))
    argv = [
        "serve",
        str(schema),
        "-o",
        str(tmp_path / "pkg"),
        "--reload",
        "--",
        "broker",
    ]
    assert main(argv) == 2
    assert capsys.readouterr().err == (
        "mcigen: error: --reload needs watchfiles, which is not installed: "
        "pip install watchfiles\n"
    )
    assert not (tmp_path / "pkg").exists()


def test_the_package_command_is_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["serve", "tools.mci.json", "-o", "pkg"])
    assert exit_.value.code == 2
    assert "the following arguments are required: COMMAND" in capsys.readouterr().err


@pytest.mark.parametrize("reload", [(), ("--reload",)], ids=["once", "reload"])
def test_a_stdio_server_whose_client_closed_stdout_ends_mcigen_with_141(
    tmp_path: Path, reload: tuple[str, ...]
) -> None:
    """The MCP client of ``mcigen serve SCHEMA ... -- serve`` closes its end of
    stdout: the server exits 141 (``serve/wire_failed.py``), and so does mcigen,
    whose watch (``--reload``) ends with the server's own end."""
    schema = write_schema(tmp_path, schema_of(HELLO), "live.mci.json")
    process = subprocess.Popen(
        [sys.executable, "-m", "mcigen", "serve", schema.name, "-o", "pkg"]
        + [*reload, "--", "serve"],
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdin and process.stdout and process.stderr
    try:
        initialize = {"protocolVersion": "2025-06-18", "capabilities": {}}
        process.stdin.write(
            message(request(1, "initialize", {**initialize, "clientInfo": CLIENT}))
        )
        process.stdin.flush()
        assert len(read_lines(process.stdout, 1, timeout=PATIENCE)) == 1
        process.stdout.close()
        call = request(2, "tools/call", {"name": "hello", "arguments": {"who": "x"}})
        process.stdin.write(message(call))
        process.stdin.flush()
        process.wait(PATIENCE)  # stdin left open
    finally:
        process.kill()
        process.stdin.close()
    log = process.stderr.read().decode()
    assert process.returncode == EXIT_PIPE_CLOSED, log
    assert log.count("the client closed its end of stdout") == 1, log
    assert "Traceback" not in log and "Exception ignored" not in log, log


def message(said: Any) -> bytes:
    return (json.dumps(said) + "\n").encode()
