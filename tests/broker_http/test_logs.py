"""The log lines of real server processes, read from their stderr: one per HTTP
request, which carries the fields of the tool call it made, and one per tool call
over stdio, text or JSON, never an argument's value (nor the secret) unless asked,
and more at DEBUG than at INFO (``serve`` over stdio and HTTP, the ASGI app under
uvicorn, ``broker``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx

from ..mcp_servers import free_port
from .conftest import broker_env, package_server, serving

SECRET = "s3cret-never-logged"
VALUE = "value-never-logged"
JSON = {"Accept": "application/json, text/event-stream"}
INITIALIZE = {
    "protocolVersion": "2025-06-18",
    "capabilities": {},
    "clientInfo": {"name": "client", "version": "1.0"},
}


def call(base: str, tool: str, arguments: dict[str, Any], **headers: str) -> Any:
    message = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": tool, "arguments": arguments},
    }
    answer = httpx.post(
        f"{base}/mcp", json=message, headers={**JSON, **headers}, timeout=60
    )
    return answer.json()


def json_lines(log: Path) -> list[dict[str, Any]]:
    """The server's lines of ``log``, each a JSON object (it fails on any other
    line but those of the upstream MCP servers' stderr, which passes through: a
    traceback as they are stopped)."""
    lines = log.read_text().splitlines()
    assert not [line for line in lines if " mcigen_runtime." in line[:30]]
    return [json.loads(line) for line in lines if line.startswith("{")]


def serve_argv(package: ModuleType, port: int, *args: str) -> list[str]:
    return [sys.executable, "-m", package.__name__, "serve", "--http", str(port), *args]


def test_serve_http_logs_each_request_and_call_as_json_without_values(
    package: ModuleType, tmp_path: Path
) -> None:
    port, log = free_port(), tmp_path / "serve.log"
    argv = serve_argv(package, port, "--log-format", "json")
    bearer = {"Authorization": f"Bearer {SECRET}"}
    with package_server(package, argv, port, log, MCIGEN_SECRET=SECRET) as base:
        assert not call(base, "hello", {"who": VALUE}, **bearer)["result"]["isError"]
        assert call(base, "hello", {"who": 7}, **bearer)["result"]["isError"]
        assert "error" in call(base, "nothing", {}, **bearer)
        assert call(base, "echo", {"text": VALUE}, **bearer)["result"]["content"]
    text = log.read_text()
    assert VALUE not in text and SECRET not in text
    lines = json_lines(log)
    assert not [line for line in lines if line["message"] == "tool call"]
    requests = [line for line in lines if line["message"] == "request"]
    assert [(r["method"], r["path"], r["status"]) for r in requests] == [
        ("POST", "/mcp", 200)
    ] * 4
    assert [(r["tool"], r["outcome"]) for r in requests] == [
        ("hello", "ok"),
        ("hello", "error"),
        ("nothing", "refused"),
        ("echo", "ok"),
    ]
    assert requests[0]["arguments"] == ["who"]
    assert requests[0]["client"].startswith("127.0.0.1:")
    for line in requests:
        assert isinstance(line["duration_ms"], float)
        assert 0 <= line["call_duration_ms"] <= line["duration_ms"]
        assert line["level"] == "INFO" and line["time"].endswith("+00:00")


def test_serve_over_stdio_logs_each_call(package: ModuleType, tmp_path: Path) -> None:
    """Over stdio there is no request line: a call, the SDK's (the first) or one
    answered as it is read, has a line of its own."""
    greet = {"name": "hello", "arguments": {"who": VALUE}}
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": INITIALIZE},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": greet},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": greet},
    ]
    log = tmp_path / "stdio.log"
    argv = [sys.executable, "-m", package.__name__, "serve", "--log-format", "json"]
    with log.open("wb") as stderr:
        server = subprocess.Popen(
            argv,
            cwd=Path(str(package.__file__)).parent.parent,
            env=broker_env(package),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        server.stdin.flush()
        answered = [json.loads(server.stdout.readline()) for _ in range(3)]
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    assert [answer["id"] for answer in answered] == [1, 2, 3]
    lines = json_lines(log)
    assert not [line for line in lines if line["message"] == "request"]
    calls = [line for line in lines if line["message"] == "tool call"]
    assert [(c["tool"], c["outcome"], c["client"]) for c in calls] == [
        ("hello", "ok", "stdio")
    ] * 2
    assert all(c["arguments"] == ["who"] for c in calls)
    assert all(isinstance(c["duration_ms"], float) for c in calls)
    assert VALUE not in log.read_text()


def test_log_arguments_asks_for_the_values(package: ModuleType, tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "serve.log"
    argv = serve_argv(package, port, "--log-arguments")
    with package_server(package, argv, port, log) as base:
        call(base, "hello", {"who": VALUE})
    [line] = [line for line in log.read_text().splitlines() if "tool=" in line]
    assert line.startswith("INFO mcigen_runtime.requests: request method=POST ")
    assert " status=200 " in line and " tool=hello outcome=ok " in line
    assert line.endswith(f' arguments={{"who":"{VALUE}"}}')


def test_debug_logs_more_than_info(package: ModuleType, tmp_path: Path) -> None:
    logs = {}
    for level in ("INFO", "DEBUG"):
        port, log = free_port(), tmp_path / f"serve-{level}.log"
        argv = serve_argv(package, port, "--log-level", level)
        with package_server(package, argv, port, log) as base:
            call(base, "echo", {"text": "hi"})
        logs[level] = log.read_text()
    assert "DEBUG" not in logs["INFO"]
    debug = logs["DEBUG"]
    assert "mcp message method=tools/call" in debug
    assert "MCP server started server=toy" in debug
    assert VALUE not in debug
    assert len(debug.splitlines()) > len(logs["INFO"].splitlines())


def test_the_asgi_app_reads_its_log_settings_from_the_environment(
    package: ModuleType, tmp_path: Path
) -> None:
    port, log = free_port(), tmp_path / "app.log"
    argv = [sys.executable, "-m", "uvicorn", f"{package.__name__}.server:app"]
    argv += ["--port", str(port), "--log-level", "warning", "--no-access-log"]
    environment = {"MCIGEN_LOG_FORMAT": "json", "MCIGEN_LOG_LEVEL": "info"}
    with package_server(package, argv, port, log, **environment) as base:
        call(base, "hello", {"who": VALUE})
    lines = json_lines(log)
    requests = [line for line in lines if line["message"] == "request"]
    assert [(line["path"], line["tool"]) for line in requests] == [("/mcp", "hello")]
    assert not [line for line in lines if line["message"] == "tool call"]
    assert VALUE not in log.read_text()


def test_the_broker_logs_calls_and_more_at_debug(
    package: ModuleType, tmp_path: Path
) -> None:
    logs = {}
    for level in ("INFO", "DEBUG"):
        with serving(
            package, tmp_path, "--log-level", level, "--log-format", "json"
        ) as server:
            echo = {"path": "/mcp/toy/echo", "args": {"text": VALUE}}
            assert server.post("meta_call", echo).status_code == 200
            assert server.post("meta_call", {"path": "/nowhere"}).status_code == 404
            server.stop()
        logs[level] = json_lines(server.log)
        assert VALUE not in server.log.read_text()
    assert not [line for line in logs["INFO"] if line["message"] == "tool call"]
    calls = [line for line in logs["INFO"] if "tool" in line]
    assert all(line["message"] == "request" for line in calls)
    assert [(c["path"], c["status"], c["tool"], c["outcome"]) for c in calls] == [
        ("/meta_call", 200, "/mcp/toy/echo", "ok"),
        ("/meta_call", 404, "/nowhere", "refused"),
    ]
    assert calls[0]["arguments"] == ["text"]
    assert {line["level"] for line in logs["INFO"]} <= {"INFO", "WARNING"}
    debug = [line for line in logs["DEBUG"] if line["level"] == "DEBUG"]
    assert any(line["message"] == "MCP server started" for line in debug)
