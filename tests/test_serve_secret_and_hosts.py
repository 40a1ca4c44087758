"""A secret no client could send is refused at start, by ``serve --http``, ``broker``
and the ASGI app; a listed host name is enforced with a secret too (issue 29)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from mcigen_runtime.edge.settings import options_from_environment

from .conftest import run_mcigen, text_tool, write_schema
from .mcp_servers import free_port
from .test_mcp_server import http_server, server_env

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
    document = {"schemaVersion": "1.0", "tools": [text_tool("greet", "Hello!")]}
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
        env=server_env(pkg_dir, **env),
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
