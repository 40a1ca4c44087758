"""The edge of a generated MCP server, against real processes (``serve --http``, the
ASGI app under uvicorn, ``serve`` over stdio): Host and Origin on every bind, the
secret, what clients nobody here wrote send (seed 003's curl quickstart), and the
protocol's corners."""

from __future__ import annotations

import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import IO, Any

import httpx
import pytest
from mcigen_runtime.edge.origin_policy import HostOriginPolicy, host_entry, origin_entry
from mcigen_runtime.edge.settings import ServeOptions, options_from_environment
from mcigen_runtime.serve.initialize import InitializeParamsError, lenient_initialize
from mcp_types.version import LATEST_HANDSHAKE_VERSION

from .conftest import package_env, run_mcigen, text_tool, write_schema
from .mcp_servers import free_port
from .oracle import run_oracle
from .test_mcp_server import http_server

MANY = 230
"""Tools in the package, besides ``greet``: with :data:`LONG` descriptions, more
than one page of ``tools/list`` (``wire.TOOLS_PAGE_BYTES``)."""

LONG = "x" * 6000

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
JSON = {"Accept": "application/json, text/event-stream"}


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A package ``pkg`` without a metadata version: ``greet`` and MANY more tools."""
    directory = tmp_path_factory.mktemp("edge")
    tools = [text_tool("greet", "Hello, {{props.name}}!", description="Greet.")]
    tools += [
        text_tool(f"tool_{n:03d}", f"t{n}", description=LONG) for n in range(MANY)
    ]
    document = {"schemaVersion": "1.0", "metadata": {"name": "Edge"}, "tools": tools}
    schema = write_schema(directory, document, "edge.mci.json")
    result = run_mcigen("build", schema, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


def serve_argv(*args: str) -> list[str]:
    return [sys.executable, "-m", "pkg", "serve", *args]


def post(url: str, message: Any, **headers: str) -> httpx.Response:
    return httpx.post(url, json=message, headers={**JSON, **headers}, timeout=10)


# --------------------------------------------------------------------- pure parts


def test_allowed_hosts_and_origins_are_read_in_one_form() -> None:
    assert host_entry(" MCP.Internal ") == "mcp.internal"
    assert host_entry("mcp.internal:8443") == "mcp.internal:8443"
    assert host_entry("my_service") == "my_service"
    assert origin_entry("HTTPS://App.Example.com:443/") == "https://app.example.com"
    assert origin_entry("http://localhost:3000") == "http://localhost:3000"
    assert origin_entry("null") == "null"
    for bad_host in ("https://mcp.internal", "", "mcp.internal/x", "a b", "x:port"):
        with pytest.raises(ValueError, match="expected a host name"):
            host_entry(bad_host)
    for bad_origin in ("app.example.com", "https://app.example.com/path", "https://"):
        with pytest.raises(ValueError, match="expected an origin"):
            origin_entry(bad_origin)


def test_host_and_origin_policy() -> None:
    policy = HostOriginPolicy(
        hosts=frozenset({"mcp.internal", "proxy.example:8443"}),
        origins=frozenset({"https://app.example.com"}),
    )
    allowed_hosts = [
        "127.0.0.1:8000",
        "localhost",
        "LOCALHOST:1",
        "[::1]:9",
        "10.1.2.3",
        "mcp.internal",
        "mcp.internal:80",
        "proxy.example:8443",
    ]
    refused_hosts = [
        "evil.example",
        "proxy.example",
        "proxy.example:80",
        "localhost.",
        "",
    ]
    assert [h for h in allowed_hosts if not policy.host_allowed(h)] == []
    assert [h for h in refused_hosts if policy.host_allowed(h)] == []

    allowed_origins = [
        "http://localhost:3000",
        "https://127.0.0.1",
        "http://[::1]:5173",
        "https://app.example.com",
        "https://app.example.com:443",
    ]
    refused_origins = [
        "http://evil.example",
        "http://app.example.com",
        "https://app.example.com:8443",
        "null",
        "file://",
        "http://127.0.0.2:3000",
        "ws://localhost",
    ]
    assert [o for o in allowed_origins if not policy.origin_allowed(o)] == []
    assert [o for o in refused_origins if policy.origin_allowed(o)] == []
    assert HostOriginPolicy(origins=frozenset({"null"})).origin_allowed("null")


def test_allowed_hosts_and_origins_from_the_environment() -> None:
    options = options_from_environment(
        {
            "MCIGEN_ALLOWED_HOSTS": "mcp.internal, Proxy.Example:8443,",
            "MCIGEN_ALLOWED_ORIGINS": "https://app.example.com/",
        }
    )
    assert options == ServeOptions(
        allowed_hosts=frozenset({"mcp.internal", "proxy.example:8443"}),
        allowed_origins=frozenset({"https://app.example.com"}),
    )
    with pytest.raises(ValueError, match="MCIGEN_ALLOWED_ORIGINS: expected an origin"):
        options_from_environment({"MCIGEN_ALLOWED_ORIGINS": "app.example.com"})
    with pytest.raises(ValueError, match="MCIGEN_ALLOWED_HOSTS: expected a host"):
        options_from_environment({"MCIGEN_ALLOWED_HOSTS": "http://x"})


def test_initialize_params_are_read_leniently_but_types_still_count() -> None:
    assert lenient_initialize({}) == {
        "protocolVersion": LATEST_HANDSHAKE_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "", "version": ""},
    }
    assert lenient_initialize({"clientInfo": {"name": "curl"}, "x": 1}) == {
        "protocolVersion": LATEST_HANDSHAKE_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "curl", "version": ""},
        "x": 1,
    }
    for params, message in (
        ({"protocolVersion": 5}, "protocolVersion must be a string"),
        ({"capabilities": []}, "capabilities must be an object"),
        ({"clientInfo": "me"}, "clientInfo must be an object"),
        ({"clientInfo": {"name": 1}}, "clientInfo.name must be a string"),
        (7, "params must be an object"),
    ):
        with pytest.raises(InitializeParamsError) as raised:
            lenient_initialize(params)
        assert str(raised.value) == f"Invalid params: {message}"


def test_allowed_hosts_and_origins_usage_errors(pkg_dir: Path) -> None:
    for args, env, message in (
        (["--allow-host", "mcp.internal"], {}, "--allow-host needs --http"),
        (["--http", ":1", "--allow-origin", "app.example"], {}, "expected an origin"),
        (["--http", ":1"], {"MCIGEN_ALLOWED_HOSTS": "a/b"}, "MCIGEN_ALLOWED_HOSTS:"),
    ):
        done = subprocess.run(
            serve_argv(*args),
            cwd=pkg_dir,
            env=package_env(pkg_dir, **env),
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
        assert done.returncode == 2 and message in done.stderr, (args, done.stderr)


# --------------------------------------------------------------------- Host, Origin


def test_a_wildcard_bind_refuses_foreign_origins_and_rebinding_hosts(
    pkg_dir: Path,
) -> None:
    port = free_port()
    argv = serve_argv("--http", f"0.0.0.0:{port}", "--allow-host", "mcp.internal")
    argv += ["--allow-origin", "https://app.example.com"]
    with http_server(pkg_dir, argv, port) as url:
        assert post(url, PING).json()["result"] == {}

        refused = post(url, PING, Origin="http://evil.example")
        assert refused.status_code == 403
        assert refused.json()["error"] == "forbidden_origin"
        assert "--allow-origin" in refused.json()["error_description"]
        assert post(url, PING, Origin="null").status_code == 403

        # The rebinding attack: a foreign name that resolves to this server.
        rebound = post(url, PING, Host=f"evil.example:{port}")
        assert rebound.status_code == 421
        assert "--allow-host" in rebound.json()["error_description"]
        for host in ("localhost", f"localhost:{port}", "mcp.internal"):
            assert post(url, PING, Host=host).status_code == 200, host

        for origin in ("http://localhost:5173", "https://app.example.com"):
            answer = post(url, PING, Origin=origin)
            assert answer.status_code == 200, origin
            assert answer.headers["access-control-allow-origin"] == origin
        preflight = httpx.options(
            url,
            headers={
                "Origin": "https://app.example.com",
                "Access-Control-Request-Method": "POST",
                "Access-Control-Request-Headers": "content-type, mcp-protocol-version",
            },
            timeout=10,
        )
        assert preflight.status_code == 204
        assert preflight.headers["access-control-allow-methods"] == "POST"
        assert (
            "mcp-protocol-version" in preflight.headers["access-control-allow-headers"]
        )


def test_a_secret_does_not_switch_the_origin_check_off(pkg_dir: Path) -> None:
    port = free_port()
    argv = serve_argv("--http", f"0.0.0.0:{port}")
    with http_server(pkg_dir, argv, port, MCIGEN_SECRET="s3cret") as url:
        bearer = {"Authorization": "Bearer s3cret"}
        assert post(url, PING, **bearer).status_code == 200
        assert (
            post(url, PING, Origin="http://evil.example", **bearer).status_code == 403
        )
        # A page that rebinds a name cannot know the secret: Host is not checked.
        assert post(url, PING, Host="mcp.internal", **bearer).status_code == 200
        assert post(url, PING, Host="mcp.internal").status_code == 401


def test_the_asgi_app_behind_a_host_name(pkg_dir: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", "pkg.server:app", "--host", "0.0.0.0"]
    argv += ["--port", str(port), "--log-level", "warning"]
    environment = {
        "MCIGEN_ALLOWED_HOSTS": "mcp.internal",
        "MCIGEN_ALLOWED_ORIGINS": "https://app.example.com",
    }
    with http_server(pkg_dir, argv, port, **environment) as url:
        for host in ("mcp.internal", "mcp.internal:8080", f"127.0.0.1:{port}"):
            assert post(url, PING, Host=host).json()["result"] == {}, host
        refused = post(url, PING, Host="other.internal")
        assert refused.status_code == 421
        assert "MCIGEN_ALLOWED_HOSTS" in refused.json()["error_description"]
        assert post(url, PING, Origin="https://app.example.com").status_code == 200
        assert post(url, PING, Origin="https://evil.example").status_code == 403


# --------------------------------------------------------------------- what clients send


@pytest.fixture(scope="module")
def url(pkg_dir: Path) -> Iterator[str]:
    """``serve --http 127.0.0.1:PORT`` of ``pkg``, for the module's exchanges."""
    port = free_port()
    with http_server(pkg_dir, serve_argv("--http", f"127.0.0.1:{port}"), port) as url:
        yield url


SEED_003_QUICKSTART = (
    """curl -sNX POST http://127.0.0.1:3111/mcp \\
  -H 'content-type: application/json' \\
  -H 'accept: text/event-stream' \\
  -d '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}' \\
  | sed -n 's/^data: //p' | jq '.result.protocolVersion'""",
    """curl -sNX POST http://127.0.0.1:3111/mcp \\
  -H 'content-type: application/json' \\
  -H 'accept: text/event-stream' \\
  -d '{"jsonrpc":"2.0","id":2,"method":"tools/list"}' \\
  | sed -n 's/^data: //p' | jq '.result.tools[].name'""",
)
"""The two commands of ``seeds/003``'s quickstart, as it writes them."""


def test_the_seed_003_quickstart_works_as_written(url: str) -> None:
    """Real ``curl`` and ``sed`` (and ``jq``, or Python reading what ``sed`` printed
    when ``jq`` is not installed), with this server's URL for the seed's."""
    outputs = []
    for command in SEED_003_QUICKSTART:
        script = command.replace("http://127.0.0.1:3111/mcp", url)
        if not shutil.which("jq"):
            script = script.rpartition(" | jq ")[0]
        done = subprocess.run(
            ["bash", "-c", f"set -o pipefail; {script}"],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    if shutil.which("jq"):
        version = json.loads(outputs[0])
        names = [json.loads(line) for line in outputs[1].splitlines()]
    else:
        version = json.loads(outputs[0])["result"]["protocolVersion"]
        names = [tool["name"] for tool in json.loads(outputs[1])["result"]["tools"]]
    assert version == LATEST_HANDSHAKE_VERSION
    assert names[:3] == ["greet", "tool_000", "tool_001"]


def test_a_client_that_accepts_only_sse_gets_one_frame(url: str) -> None:
    sse = {"Accept": "text/event-stream"}
    answer = httpx.post(url, json=PING, headers=sse, timeout=10)
    assert answer.headers["content-type"] == "text/event-stream"
    assert (
        answer.text == 'event: message\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\n\n'
    )
    # No Accept at all, or JSON only: JSON.
    for headers in ({}, {"Accept": "application/json"}, {"Accept": "*/*"}):
        answer = httpx.post(url, json=PING, headers=headers, timeout=10)
        assert answer.json() == {"jsonrpc": "2.0", "id": 1, "result": {}}, headers
    notification = {"jsonrpc": "2.0", "method": "notifications/initialized"}
    answer = httpx.post(url, json=notification, headers=sse, timeout=10)
    assert (answer.status_code, answer.content) == (202, b"")


def test_initialize_with_missing_or_mistyped_fields(url: str) -> None:
    def initialize(params: Any) -> dict[str, Any]:
        message = {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": params}
        answer: dict[str, Any] = post(url, message).json()
        return answer

    result = initialize({})["result"]
    assert result["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    # No version in the metadata: the version `--project` gives the package.
    assert result["serverInfo"] == {"name": "Edge", "version": "0.0.0"}
    assert initialize({"protocolVersion": "2025-06-18"})["result"][
        "protocolVersion"
    ] == ("2025-06-18")
    assert initialize({"protocolVersion": 5})["error"] == {
        "code": -32602,
        "message": "Invalid params: protocolVersion must be a string",
    }
    assert initialize({"capabilities": "all"})["error"]["message"] == (
        "Invalid params: capabilities must be an object"
    )


def test_malformed_messages_get_invalid_request(url: str) -> None:
    batch = post(url, [PING, PING])
    assert batch.status_code == 400
    assert batch.json() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {
            "code": -32600,
            "message": "Invalid Request: batches are not supported",
        },
    }
    unversioned = post(url, {"id": 3, "method": "ping"})
    assert unversioned.status_code == 400
    assert unversioned.json()["id"] == 3
    assert unversioned.json()["error"]["code"] == -32600
    odd = post(url, {"jsonrpc": "2.0", "id": 4, "method": 12})
    assert odd.json()["error"]["code"] == -32600
    # Params that are no object: the edge's plain-request shortcut must not pass them.
    for params in ([1, 2], "all"):
        listed = post(
            url, {"jsonrpc": "2.0", "id": 5, "method": "tools/list", "params": params}
        )
        assert (listed.status_code, listed.json()["error"]["code"]) == (400, -32600)
    # A method with "id": null (or another id no request has) is no notification.
    for bad_id in (None, {"n": 1}, True, 2.5):
        refused = post(url, {"jsonrpc": "2.0", "id": bad_id, "method": "tools/list"})
        assert (refused.status_code, refused.json()) == (400, BAD_ID_ANSWER), bad_id
    garbled = httpx.post(
        url,
        content=b'{"jsonrpc": ',
        headers={**JSON, "Content-Type": "application/json"},
        timeout=10,
    )
    assert (garbled.status_code, garbled.json()["error"]["code"]) == (400, -32700)
    too_big = httpx.post(
        url,
        content=b" " * (4 * 1024 * 1024 + 1),
        headers={**JSON, "Content-Type": "application/json"},
        timeout=10,
    )
    assert too_big.status_code == 413


def test_a_loopback_bind_accepts_localhost_without_a_port(url: str) -> None:
    assert post(url, PING, Host="localhost").json()["result"] == {}
    assert post(url, PING, Host="evil.example").status_code == 421


def test_get_and_delete_are_refused_not_held_open(url: str) -> None:
    for method in ("GET", "DELETE"):
        answer = httpx.request(
            method, url, headers={"Accept": "text/event-stream"}, timeout=10
        )
        assert answer.status_code == 405, method
        assert answer.headers["allow"] == "POST"


def test_tools_list_in_pages(url: str) -> None:
    def page(cursor: str | None) -> dict[str, Any]:
        params = {} if cursor is None else {"cursor": cursor}
        message = {"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": params}
        answer: dict[str, Any] = post(url, message).json()
        return answer

    names: list[str] = []
    cursor = None
    pages = 0
    while True:
        result = page(cursor)["result"]
        names += [tool["name"] for tool in result["tools"]]
        pages += 1
        cursor = result.get("nextCursor")
        if cursor is None:
            break
    assert pages == 2 and len(names) == len(set(names)) == MANY + 1
    assert page("bogus")["error"] == {
        "code": -32602,
        "message": "Invalid params: unknown cursor",
    }


# --------------------------------------------------------------------- stdio

BAD_ID_ANSWER = {
    "jsonrpc": "2.0",
    "id": None,
    "error": {
        "code": -32600,
        "message": "Invalid Request: id must be a string or an integer",
    },
}


def test_stdio_answers_a_method_with_a_null_id_as_an_invalid_request(
    pkg_dir: Path,
) -> None:
    """Where the SDK reads ``"id": null`` as a notification and answers nothing."""
    initialize = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}}
    lines = [
        initialize,
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": None, "method": "tools/list"},
        {"jsonrpc": "2.0", "id": [2], "method": "ping"},
        {"jsonrpc": "2.0", "id": 2.5, "method": "ping"},
        {
            "jsonrpc": "2.0",
            "id": 3,
            "method": "ping",
            "params": {"_meta": {"id": None}},
        },
    ]
    answers = _stdio_script(pkg_dir, [json.dumps(line) for line in lines], 5)
    assert answers[1:] == [
        BAD_ID_ANSWER,
        BAD_ID_ANSWER,
        BAD_ID_ANSWER,
        {"jsonrpc": "2.0", "id": 3, "result": {}},
    ]


def test_stdio_answers_what_the_sdk_would_drop_and_reads_initialize_leniently(
    pkg_dir: Path,
) -> None:
    lines = [
        "not json",
        json.dumps([PING]),
        json.dumps({"id": 2, "method": "ping"}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 3,
                "method": "initialize",
                "params": {"protocolVersion": 5},
            }
        ),
        json.dumps({"jsonrpc": "2.0", "id": 4, "method": "initialize", "params": {}}),
        json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        json.dumps(
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "tools/list",
                "params": {"cursor": "x"},
            }
        ),
        json.dumps({"jsonrpc": "2.0", "id": 6, "method": "tools/list"}),
    ]
    answers = _stdio_script(pkg_dir, lines, 7)
    unreadable = [(a["id"], a["error"]["code"]) for a in answers if a["id"] is None]
    assert sorted(unreadable) == [(None, -32700), (None, -32600), (None, -32600)]
    by_id = {answer["id"]: answer for answer in answers if answer["id"] is not None}
    assert by_id[3]["error"]["message"] == (
        "Invalid params: protocolVersion must be a string"
    )
    assert by_id[4]["result"]["protocolVersion"] == LATEST_HANDSHAKE_VERSION
    assert by_id[4]["result"]["serverInfo"]["version"] == "0.0.0"
    assert by_id[5]["error"]["code"] == -32602
    first_page = by_id[6]["result"]
    assert len(first_page["tools"]) == int(first_page["nextCursor"]) < MANY + 1


def _stdio_script(pkg_dir: Path, lines: list[str], answers: int) -> list[Any]:
    """The first ``answers`` answers of ``serve`` over stdio to ``lines`` (each a
    message, sent at once), parsed."""
    process = subprocess.Popen(
        serve_argv(),
        cwd=pkg_dir,
        env=package_env(pkg_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("".join(line + "\n" for line in lines).encode())
        process.stdin.flush()
        return [json.loads(line) for line in read_lines(process.stdout, answers)]
    finally:
        process.kill()
        process.wait()


def read_lines(
    stream: IO[bytes],
    count: int,
    timeout: float = 20,
    said: Callable[[], str] | None = None,
) -> list[bytes]:
    """``count`` lines from ``stream``; fails after ``timeout`` seconds, or when
    it ends first, with what the server wrote to stderr (``said()``, if given)."""
    deadline = time.monotonic() + timeout
    lines: list[bytes] = []
    buffered = b""
    while len(lines) < count:
        remaining = deadline - time.monotonic()
        ready, _, _ = select.select([stream], [], [], max(remaining, 0))
        assert ready, f"only {len(lines)} of {count} answers: {lines}{_told(said)}"
        chunk = os.read(stream.fileno(), 65536)
        ended = f"the server ended after {len(lines)} answers"
        assert chunk, f"{ended}: {lines}{_told(said)}"
        buffered += chunk
        *complete, buffered = buffered.split(b"\n")
        lines += complete
    return lines


def _told(said: Callable[[], str] | None) -> str:
    return f"; its stderr: {said()}" if said is not None else ""


# --------------------------------------------------------------------- as an upstream


def test_row_70_a_paged_tool_list_is_read_whole_where_mci_py_reads_one_page(
    pkg_dir: Path, tmp_path: Path
) -> None:
    """The generated server (MANY + 1 tools, in two pages) as an MCI schema's
    MCP server: mcigen's build follows ``nextCursor``; mci-py 1.2 lists once, so its
    cache keeps the first page and a tool beyond it is not found."""
    last = f"tool_{MANY - 1:03d}"
    server = {
        "command": sys.executable,
        "args": ["-m", "pkg", "serve"],
        "env": {"PYTHONPATH": str(pkg_dir)},
    }
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"edge": server}}
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for directory in (ours, theirs):
        directory.mkdir()
        write_schema(directory, document, "main.mci.json")

    result = run_mcigen("build", ours / "main.mci.json", "-o", ours / "proxy")
    assert result.returncode == 0, result.stderr
    assert len(cached_tools(ours)) == MANY + 1
    called = subprocess.run(
        [sys.executable, "-m", "proxy", "call", last],
        cwd=ours,
        env=package_env(ours),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert (called.returncode, called.stdout) == (0, f"t{MANY - 1}\n")

    answers = run_oracle(
        theirs / "main.mci.json",
        [{"tool": name, "props": {}, "env": {}} for name in ("tool_000", last)],
    )
    assert answers[0]["result"]["content"][0]["text"] == "t0"
    assert answers[1]["exception"].endswith(f"Tool not found: {last}")
    assert 0 < len(cached_tools(theirs)) < MANY


def cached_tools(directory: Path) -> list[dict[str, Any]]:
    """The tools of the ``edge`` server's MCI cache under ``directory``."""
    cache = directory / "mci" / "mcp" / "edge.mci.json"
    tools: list[dict[str, Any]] = json.loads(cache.read_text("utf-8"))["tools"]
    return tools
