"""Hostile input at the HTTP edge (issue 29), against real processes: a secret no
client could send is refused at start, by ``serve --http``, ``broker`` and the ASGI
app; a listed host name is enforced with a secret too; a lone surrogate anywhere
in a request gets a JSON error, never a traceback."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcigen_runtime.edge.settings import options_from_environment

from .conftest import package_env, run_mcigen, text_tool, write_schema
from .mcp_servers import free_port, listening
from .test_mcp_server import http_server

PING = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
JSON = {"Accept": "application/json, text/event-stream"}

BAD_SECRETS = {
    "": "is empty",
    "   ": "is empty",
    " s3cret": "must not begin or end with whitespace",
    "s3\udcffcret": "is not UTF-8",  # the byte 0xff, as os.environ holds it
}
"""Each secret no start should accept, and what the refusal says."""


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("secret")
    greet = text_tool(
        "greet",
        "Hello, {{props.name}}!",
        inputSchema={"type": "object", "properties": {"name": {"type": "string"}}},
    )
    document = {"schemaVersion": "1.0", "tools": [greet]}
    schema = write_schema(directory, document, "s.mci.json")
    result = run_mcigen("build", schema, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


def run_package(
    pkg_dir: Path, *args: str, **env: str
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "pkg", *args],
        cwd=pkg_dir,
        env=package_env(pkg_dir, **env),
        capture_output=True,
        text=True,
        timeout=20,
        check=False,
    )


@pytest.mark.parametrize("secret", list(BAD_SECRETS))
def test_serve_refuses_a_bad_secret_in_the_environment(
    pkg_dir: Path, secret: str
) -> None:
    done = run_package(
        pkg_dir, "serve", "--http", f"127.0.0.1:{free_port()}", MCIGEN_SECRET=secret
    )
    assert done.returncode == 2, done.stderr
    assert f"error: MCIGEN_SECRET {BAD_SECRETS[secret]}" in done.stderr
    assert "Traceback" not in done.stderr


def test_serve_and_broker_refuse_a_bad_secret_given_as_an_argument(
    pkg_dir: Path,
) -> None:
    port = str(free_port())
    done = run_package(pkg_dir, "serve", "--http", f":{port}", "--secret", " ")
    assert done.returncode == 2, done.stderr
    assert "error: --secret is empty" in done.stderr
    done = run_package(pkg_dir, "broker", port, "s3\udcffcret")
    assert done.returncode == 2, done.stderr
    assert "broker: error: SECRET is not UTF-8 text" in done.stderr
    done = run_package(pkg_dir, "broker", port, MCIGEN_SECRET="")
    assert done.returncode == 2, done.stderr
    assert "broker: error: MCIGEN_SECRET is empty" in done.stderr


def test_the_asgi_app_refuses_a_bad_secret() -> None:
    for secret, message in BAD_SECRETS.items():
        with pytest.raises(ValueError, match=f"MCIGEN_SECRET {message}"):
            options_from_environment({"MCIGEN_SECRET": secret})
    assert options_from_environment({}).secret is None


def post(
    url: str, host: str, secret: str | None = "s3cret", body: object = PING
) -> httpx.Response:
    headers = {**JSON, "Host": host}
    if secret:
        headers["Authorization"] = f"Bearer {secret}"
    return httpx.post(url, json=body, headers=headers, timeout=10)


def test_a_listed_host_name_is_enforced_with_a_secret_too(pkg_dir: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"0.0.0.0:{port}"]
    argv += ["--allow-host", "mcp.internal"]
    with http_server(pkg_dir, argv, port, MCIGEN_SECRET="s3cret") as url:
        assert post(url, "mcp.internal").json()["result"] == {}
        assert post(url, f"127.0.0.1:{port}").json()["result"] == {}
        refused = post(url, "evil.example")
        assert refused.status_code == 421
        assert refused.json()["error"] == "misdirected_request"
        assert "--allow-host" in refused.json()["error_description"]
        assert post(url, "mcp.internal", secret=None).status_code == 401


def test_the_broker_enforces_a_listed_host_name_with_a_secret(pkg_dir: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "broker", f"0.0.0.0:{port}"]
    environment = {"MCIGEN_SECRET": "s3cret", "MCIGEN_ALLOWED_HOSTS": "mcp.internal"}
    with http_server(pkg_dir, argv, port, **environment) as mcp_url:
        url = mcp_url.removesuffix("/mcp") + "/meta_tree"
        assert post(url, "mcp.internal", body={}).status_code == 200
        refused = post(url, "evil.example", body={})
        assert refused.status_code == 421
        assert refused.json()["error"] == "misdirected_request"


@pytest.mark.parametrize("command", [("serve", "--http"), ("broker",)])
def test_serve_and_broker_say_alike_that_a_wildcard_bind_has_no_secret(
    pkg_dir: Path, tmp_path: Path, command: tuple[str, ...]
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", *command, f"0.0.0.0:{port}"]
    env = package_env(pkg_dir, MCIGEN_SECRET=None)
    with (tmp_path / "stderr").open("wb") as stderr:
        with listening(argv, port, cwd=pkg_dir, env=env, stderr=stderr):
            pass
    said = (tmp_path / "stderr").read_text()
    assert (
        "serving 0.0.0.0 without a secret (--secret or MCIGEN_SECRET): anyone who "
        "can reach it can call the tools"
    ) in said


# --------------------------------------------------------------------- lone surrogates

LONE = "\\ud800"
"""A lone surrogate as a JSON escape (the body's text holds a backslash)."""


def call(name: str, arguments: str) -> bytes:
    return (
        '{"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": '
        f'{{"name": "{name}", "arguments": {arguments}}}}}'
    ).encode()


def assert_json_error(answer: httpx.Response, status: int) -> Any:
    assert answer.status_code == status, answer.text
    assert answer.headers["content-type"].startswith("application/json")
    assert "Traceback" not in answer.text
    return answer.json()


@pytest.mark.parametrize("broker", [False, True], ids=["tools", "broker"])
def test_a_lone_surrogate_in_an_mcp_request_is_a_parse_error(
    pkg_dir: Path, broker: bool
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    bodies = [
        call("greet", f'{{"name": "{LONE}"}}'),
        call("greet", f'{{"na{LONE}me": "Ada"}}'),
        call(f"gr{LONE}eet", "{}"),
        f'{{"jsonrpc": "2.0", "id": "{LONE}", "method": "ping"}}'.encode(),
    ]
    if broker:
        argv.append("--broker")
        bodies += [
            call("meta_call", f'{{"path": "/greet", "args": {{"name": "{LONE}"}}}}'),
            call("meta_call", f'{{"path": "/gr{LONE}eet", "args": {{}}}}'),
            call("meta_desc", f'{{"path": "/{LONE}"}}'),
        ]
    with http_server(pkg_dir, argv, port) as url:
        for body in bodies:
            answer = httpx.post(
                url, content=body, headers={**JSON, "content-type": "application/json"}
            )
            error = assert_json_error(answer, 400)["error"]
            assert error["code"] == -32700, body
            assert "lone surrogate (\\ud800)" in error["message"], body


def test_a_lone_surrogate_in_a_broker_api_request_is_invalid_json(
    pkg_dir: Path,
) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "broker", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, argv, port) as mcp_url:
        base = mcp_url.removesuffix("/mcp")
        for endpoint, body in (
            ("meta_call", f'{{"path": "/greet", "args": {{"name": "{LONE}"}}}}'),
            ("meta_call", f'{{"path": "/greet", "args": {{"n{LONE}": "Ada"}}}}'),
            ("meta_call", f'{{"path": "/gr{LONE}eet", "args": {{}}}}'),
            ("meta_desc", f'{{"path": "/{LONE}"}}'),
            ("meta_tree", f'{{"pa{LONE}th": "/"}}'),
        ):
            answer = httpx.post(f"{base}/{endpoint}", content=body.encode())
            refusal = assert_json_error(answer, 400)
            assert refusal["error"] == "invalid_json", body
            assert "lone surrogate (\\ud800)" in refusal["error_description"]
        # The server is still there, and still answers.
        greeted = httpx.post(
            f"{base}/meta_call", json={"path": "/greet", "args": {"name": "Ada"}}
        )
        assert greeted.json()["content"][0]["text"] == "Hello, Ada!"
