"""HTTP tools against a real server on 127.0.0.1: requests as mci-py builds them,
auth (OAuth2 tokens cached), retries, response mapping, refusals and redaction."""

from __future__ import annotations

import asyncio
import base64
import importlib
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .conftest import run_mcigen
from .http_server import PDF, PNG, WAV, LoopbackServer
from .oracle import run_oracle

ENV = {
    "API_KEY": "k3y-secret",
    "TOKEN": "bearer-secret",
    "XENV": "x",
    "CLIENT_SECRET": "s3cret-value",
}


def _tools(base: str) -> list[dict[str, Any]]:
    return [
        {
            "name": "getItem",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "id": {"type": "integer"},
                    "verbose": {"type": "boolean"},
                },
                "required": ["id"],
            },
            "execution": {
                "type": "http",
                "url": base + "/items/{{props.id}}",
                "headers": {
                    "Accept": "application/json",
                    "X-Env": "{{env.XENV | 'none'}}",
                },
                "params": {
                    "verbose": "{!! props.verbose !!}",
                    "tags": ["a", "b"],
                    "skip": None,
                },
                "auth": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "key",
                    "value": "{{env.API_KEY}}",
                },
            },
        },
        {
            "name": "postJson",
            "inputSchema": {
                "type": "object",
                "properties": {"title": {"type": "string"}, "n": {"type": "integer"}},
            },
            "execution": {
                "type": "http",
                "method": "POST",
                "url": base + "/echo",
                "body": {
                    "type": "json",
                    "content": {
                        "title": "{{props.title}}",
                        "n": "{!! props.n !!}",
                        "fixed": [1, True, None],
                    },
                },
                "auth": {"type": "bearer", "token": "{{env.TOKEN}}"},
            },
        },
        {
            "name": "postForm",
            "execution": {
                "type": "http",
                "method": "PUT",
                "url": base + "/form",
                "body": {
                    "type": "form",
                    "content": {"a": "{{props.a}}", "list": ["x", "y"]},
                },
                "auth": {
                    "type": "basic",
                    "username": "ann",
                    "password": "{{env.TOKEN}}",
                },
            },
        },
        {
            "name": "postRaw",
            "execution": {
                "type": "http",
                "method": "POST",
                "url": base + "/raw",
                "headers": {"Content-Type": "application/x-custom"},
                "body": {"type": "raw", "content": "line {{props.a}}"},
            },
        },
        {"name": "text", "execution": {"type": "http", "url": base + "/text"}},
        {"name": "image", "execution": {"type": "http", "url": base + "/image"}},
        {"name": "audio", "execution": {"type": "http", "url": base + "/audio"}},
        {"name": "untyped", "execution": {"type": "http", "url": base + "/untyped"}},
        {
            "name": "pdf",
            "execution": {
                "type": "http",
                "url": base + "/pdf",
                "auth": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "key",
                    "value": "{{env.API_KEY}}",
                },
            },
        },
        {
            "name": "status",
            "execution": {"type": "http", "url": base + "/status/{{props.code}}"},
        },
        {
            "name": "item",
            "execution": {
                "type": "http",
                "url": base + "/missing/{{props.id}}",
                "params": {"pad": "{{props.pad}}"},
                "auth": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "key",
                    "value": "{{env.API_KEY}}",
                },
            },
        },
        {
            "name": "leaky404",
            "execution": {
                "type": "http",
                "url": base + "/status/404",
                "auth": {
                    "type": "apiKey",
                    "in": "query",
                    "name": "key",
                    "value": "{{env.API_KEY}}",
                },
            },
        },
        {
            "name": "flaky",
            "execution": {
                "type": "http",
                "url": base + "/flaky",
                "params": {"key": "{{props.key}}", "fail": "{{props.fail}}"},
                "retries": {"attempts": 3, "backoff_ms": 5},
            },
        },
        {
            "name": "oauth",
            "execution": {
                "type": "http",
                "url": base + "/protected",
                "auth": {
                    "type": "oauth2",
                    "flow": "clientCredentials",
                    "tokenUrl": base + "/token",
                    "clientId": "cid",
                    "clientSecret": "{{env.CLIENT_SECRET}}",
                    "scopes": ["read", "write"],
                },
            },
        },
        {
            "name": "head",
            "execution": {"type": "http", "method": "HEAD", "url": base + "/anything"},
        },
        {
            "name": "unreachable",
            "execution": {
                "type": "http",
                "url": "http://127.0.0.1:9/x",
                "retries": {"attempts": 3, "backoff_ms": 100},
            },
        },
        {
            "name": "header",
            "execution": {
                "type": "http",
                "url": base + "/echo",
                "headers": {"X-Env": "{{props.v}}"},
            },
        },
        {
            "name": "refused",
            "execution": {
                "type": "http",
                "url": "http://127.0.0.1:9/{{env.API_KEY}}",
                "timeout_ms": 2000,
            },
        },
        {
            "name": "slow",
            "execution": {"type": "http", "url": base + "/slow", "timeout_ms": 300},
        },
        {
            "name": "redirectGet",
            "execution": {
                "type": "http",
                "url": base + "/redirect/{{props.code}}",
                "params": {"to": "{{props.to}}"},
                "auth": {"type": "bearer", "token": "{{env.TOKEN}}"},
            },
        },
        {
            "name": "redirectPost",
            "execution": {
                "type": "http",
                "method": "POST",
                "url": base + "/redirect/{{props.code}}",
                "params": {"to": "{{props.to}}"},
                "body": {"type": "json", "content": {"n": 1}},
            },
        },
        {
            "name": "cookieRedirect",
            "execution": {"type": "http", "url": base + "/redirect-cookie"},
        },
        {"name": "loop", "execution": {"type": "http", "url": base + "/loop"}},
    ]


@pytest.fixture(scope="module")
def server() -> Iterator[LoopbackServer]:
    running = LoopbackServer()
    yield running
    running.stop()


@pytest.fixture(scope="module")
def schema(server: LoopbackServer, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("http")
    path = directory / "http.mci.json"
    path.write_text(
        json.dumps({"schemaVersion": "1.0", "tools": _tools(server.base)}), "utf-8"
    )
    return path


@pytest.fixture(scope="module")
def invokers(schema: Path) -> Iterator[dict[str, Any]]:
    out = schema.parent / "build" / "httppkg"
    result = run_mcigen("build", schema, "-o", out)
    assert result.returncode == 0, result.stderr
    sys.path.insert(0, str(out.parent))
    module = importlib.import_module("httppkg.tools.main")
    yield module.INVOKERS
    sys.path.remove(str(out.parent))


def _call(
    invokers: dict[str, Any],
    tool: str,
    props: dict[str, Any],
    env: dict[str, str] = ENV,
) -> Any:
    return invokers[tool](props, env)


def test_get_with_params_native_values_and_api_key(invokers: dict[str, Any]) -> None:
    result = _call(invokers, "getItem", {"id": 7, "verbose": True})
    assert result.isError is False
    echo = json.loads(result.text)
    assert echo["path"] == "/items/7"
    assert echo["query"] == "verbose=True&tags=a&tags=b&key=k3y-secret"
    assert echo["x_env"] == "x"
    assert result.text == json.dumps(echo, indent=2)
    assert result.metadata["status_code"] == 200
    assert isinstance(result.metadata["response_time_ms"], int)


def test_bodies_and_auth_headers(invokers: dict[str, Any]) -> None:
    posted = json.loads(_call(invokers, "postJson", {"title": "hi", "n": 3}).text)
    assert posted["body"] == '{"title": "hi", "n": 3, "fixed": [1, true, null]}'
    assert posted["content_type"] == "application/json"
    assert posted["authorization"] == "Bearer bearer-secret"
    form = json.loads(_call(invokers, "postForm", {"a": "b c"}).text)
    assert (form["method"], form["body"]) == ("PUT", "a=b+c&list=x&list=y")
    assert form["content_type"] == "application/x-www-form-urlencoded"
    assert (
        form["authorization"]
        == "Basic " + base64.b64encode(b"ann:bearer-secret").decode()
    )
    raw = json.loads(_call(invokers, "postRaw", {"a": "1"}).text)
    assert (raw["body"], raw["content_type"]) == ("line 1", "application/x-custom")


def test_text_and_image_responses(invokers: dict[str, Any]) -> None:
    assert _call(invokers, "text", {}).text == "plain text é"
    image = _call(invokers, "image", {})
    assert image.model_dump()["content"] == [
        {
            "type": "image",
            "data": base64.b64encode(PNG).decode(),
            "mimeType": "image/png",
        }
    ]


def test_binary_responses_are_media_or_blobs_never_decoded_text(
    invokers: dict[str, Any], schema: Path, server: LoopbackServer
) -> None:
    """A sound is audio content, any other binary body an embedded resource holding
    it as base64, named by its URL with the secret in it hidden; a body without a
    media type is text only when it is UTF-8. mci-py decodes them as text
    (COMPATIBILITY.md row 152)."""
    (theirs,) = run_oracle(schema, [{"tool": "audio", "props": {}, "env": ENV}])
    assert theirs["result"]["content"][0]["text"].startswith("RIFF$\x00\x00\x00WAVE")
    audio = _call(invokers, "audio", {})
    assert audio.model_dump()["content"] == [
        {
            "type": "audio",
            "data": base64.b64encode(WAV).decode(),
            "mimeType": "audio/wav",
        }
    ]
    blob = {"mimeType": "application/pdf", "blob": base64.b64encode(PDF).decode()}
    pdf = _call(invokers, "pdf", {})
    assert pdf.model_dump()["content"] == [
        {"type": "resource", "resource": {"uri": f"{server.base}/pdf?key=***", **blob}}
    ]
    untyped = _call(invokers, "untyped", {})
    blob["mimeType"] = "application/octet-stream"
    assert untyped.model_dump()["content"] == [
        {"type": "resource", "resource": {"uri": f"{server.base}/untyped", **blob}}
    ]
    assert (audio.text, pdf.text, untyped.text) == ("", "", "")


def test_error_status_keeps_status_code(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    result = _call(invokers, "status", {"code": 404})
    assert (result.isError, result.text) == (
        True,
        f"404 Client Error: Not Found for url: {server.base}/status/404",
    )
    assert result.metadata["status_code"] == 404
    assert _call(invokers, "status", {"code": 502}).text.startswith(
        "502 Server Error: Bad Gateway"
    )


def test_an_error_result_keeps_what_the_server_said(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    """Row 21: the body of a 4xx/5xx answer, bounded and with secrets hidden,
    in the metadata; the text stays requests' (mci-py's)."""
    result = _call(invokers, "item", {"id": 99, "pad": 0})
    assert result.isError
    assert result.text.startswith("404 Client Error: Not Found for url: ")
    said = json.loads(result.metadata["response_body"])
    assert said == {"error": "no item 99", "key": "***", "pad": ""}
    long = _call(invokers, "item", {"id": 7, "pad": 10_000}).metadata["response_body"]
    assert len(long) < 4200 and long.endswith(" more characters)")


def test_secrets_never_appear_in_messages(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    leaky = _call(invokers, "leaky404", {})
    assert (
        leaky.text
        == f"404 Client Error: Not Found for url: {server.base}/status/404?key=***"
    )
    refused = _call(invokers, "refused", {})
    assert refused.isError and "k3y-secret" not in refused.text
    assert refused.text.startswith("HTTP request failed: ConnectError")


def test_retries_on_5xx_with_backoff(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    recovered = _call(invokers, "flaky", {"key": "r1", "fail": "2"})
    assert (recovered.isError, json.loads(recovered.text)) == (False, {"attempt": 3})
    exhausted = _call(invokers, "flaky", {"key": "r2", "fail": "5"})
    assert (exhausted.isError, exhausted.text) == (True, "Server error: 503")
    assert exhausted.metadata["status_code"] == 503
    assert server.flaky["r2"] == 3


def test_oauth2_token_is_fetched_once_and_cached(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    before = server.hits["/token"]
    first = json.loads(_call(invokers, "oauth", {}).text)
    second = json.loads(_call(invokers, "oauth", {}).text)
    assert first["authorization"] == second["authorization"]
    assert first["authorization"].startswith("Bearer tok-")
    assert server.hits["/token"] == before + 1
    assert server.token_forms[-1] == {
        "grant_type": ["client_credentials"],
        "client_id": ["cid"],
        "client_secret": ["s3cret-value"],
        "scope": ["read write"],
    }
    denied = _call(invokers, "oauth", {}, {**ENV, "CLIENT_SECRET": "wrong-secret-x"})
    assert (denied.isError, denied.text) == (  # the token is for the right secret
        True,
        f"401 Client Error: Unauthorized for url: {server.base}/token",
    )


def test_header_with_line_break_is_refused_unsent(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    before = server.hits["/echo"]
    result = _call(invokers, "header", {"v": "a\r\nX-Injected: 1"})
    assert (result.isError, result.text) == (
        True,
        "Header 'X-Env' contains a line break; the request was not sent",
    )
    assert server.hits["/echo"] == before


def test_timeout_is_an_error_result(invokers: dict[str, Any]) -> None:
    result = _call(invokers, "slow", {})
    assert result.isError and result.text.startswith("HTTP request failed: ReadTimeout")


def test_async_twins_share_the_server(
    invokers: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in ENV.items():
        monkeypatch.setenv(name, value)
    package = importlib.import_module("httppkg")

    async def both() -> list[Any]:
        return list(
            await asyncio.gather(
                package.get_item_async(id=1, verbose=True), package.text_async()
            )
        )

    item, text = asyncio.run(both())
    assert json.loads(item.text)["path"] == "/items/1"
    assert text.text == "plain text é"
    moved = asyncio.run(package.redirect_get_async(code=307, to="/text"))
    assert moved.text == "plain text é"


def test_a_cancelled_async_call_stops_waiting(invokers: dict[str, Any]) -> None:
    """The async twin awaits the sync exchange in a worker thread: cancelling the
    task ends the wait (the request runs on in its thread to its timeout)."""
    twins = importlib.import_module("httppkg.tools.main").ASYNC_INVOKERS

    async def cancelled() -> Any:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(twins["slow"]({}, ENV), 0.05)
        return await twins["text"]({}, ENV)

    assert asyncio.run(cancelled()).text == "plain text é"


def test_a_proxy_the_environment_sets_carries_the_requests(
    invokers: dict[str, Any],
    server: LoopbackServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """HTTP_PROXY sends requests through the proxy (here the test server, which
    answers a proxied request itself) and NO_PROXY names the hosts reached directly,
    as requests reads them. ``refused`` asks port 9 of 127.0.0.1, where nothing
    listens: only the proxy answers."""
    runtime = importlib.import_module("mcigen_runtime.executors.http.transport")
    monkeypatch.setattr(runtime, "_transports", None)  # made again, with the proxy
    monkeypatch.setenv("HTTP_PROXY", server.base)
    proxied = _call(invokers, "refused", {})
    assert json.loads(proxied.text)["path"] == "/k3y-secret"
    twins = importlib.import_module("httppkg.tools.main").ASYNC_INVOKERS
    moved = asyncio.run(twins["redirectGet"]({"code": 302, "to": "/text"}, ENV))
    assert moved.text == "plain text é"
    monkeypatch.setattr(runtime, "_transports", None)
    monkeypatch.setenv("NO_PROXY", "127.0.0.1")
    direct = _call(invokers, "refused", {})
    assert direct.text.startswith("HTTP request failed: ConnectError")


def _redirects(base: str) -> list[tuple[str, dict[str, Any]]]:
    elsewhere = base.replace("127.0.0.1", "localhost") + "/echo"
    return [
        ("redirectGet", {"code": 302, "to": "/text"}),
        ("redirectGet", {"code": 301, "to": "/echo"}),
        ("redirectGet", {"code": 302, "to": elsewhere}),  # another host: no auth
        ("redirectGet", {"code": 302, "to": "/status/404"}),
        ("redirectPost", {"code": 303, "to": "/echo"}),  # a GET, no body
        ("redirectPost", {"code": 302, "to": "/echo"}),
        ("redirectPost", {"code": 307, "to": "/echo"}),  # the POST again
        ("redirectPost", {"code": 308, "to": "/echo"}),
        ("cookieRedirect", {}),
        ("loop", {}),
    ]


def test_redirects_are_followed_as_requests_does(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    assert _call(invokers, "redirectGet", {"code": 302, "to": "/text"}).text == (
        "plain text é"
    )
    same = json.loads(_call(invokers, "redirectGet", {"code": 301, "to": "/echo"}).text)
    assert (same["path"], same["authorization"]) == ("/echo", "Bearer bearer-secret")
    away = server.base.replace("127.0.0.1", "localhost") + "/echo"
    moved = json.loads(_call(invokers, "redirectGet", {"code": 302, "to": away}).text)
    assert (moved["path"], moved["authorization"]) == ("/echo", None)
    missing = _call(invokers, "redirectGet", {"code": 302, "to": "/status/404"})
    assert (missing.isError, missing.text) == (
        True,
        f"404 Client Error: Not Found for url: {server.base}/status/404",
    )
    for code, method, body in (
        (303, "GET", ""),
        (302, "GET", ""),
        (307, "POST", '{"n": 1}'),
    ):
        echo = json.loads(
            _call(invokers, "redirectPost", {"code": code, "to": "/echo"}).text
        )
        assert (echo["method"], echo["body"]) == (method, body), code
        content_type = "application/json" if body else None
        assert echo["content_type"] == content_type, code
    # a cookie set along the chain is sent on, and forgotten with the call
    assert json.loads(_call(invokers, "cookieRedirect", {}).text)["cookie"] == (
        "session=abc"
    )
    assert json.loads(_call(invokers, "header", {"v": "1"}).text)["cookie"] is None
    before = server.hits["/loop"]
    loop = _call(invokers, "loop", {})
    assert (loop.isError, loop.text) == (True, "Exceeded 30 redirects.")
    assert server.hits["/loop"] == before + 31


def test_http_tools_match_mci_py(
    invokers: dict[str, Any], schema: Path, server: LoopbackServer
) -> None:
    calls: list[tuple[str, dict[str, Any]]] = [
        ("getItem", {"id": 7, "verbose": False}),
        ("postJson", {"title": "hi", "n": 3}),
        ("postForm", {"a": "b c"}),
        ("text", {}),
        ("image", {}),
        ("status", {"code": 404}),
        *_redirects(server.base),
    ]
    theirs = run_oracle(schema, [{"tool": t, "props": p, "env": ENV} for t, p in calls])
    for (tool, props), oracle in zip(calls, theirs, strict=True):
        ours = _call(invokers, tool, props).model_dump(mode="json")
        expected = oracle["result"]
        if expected["isError"]:
            # mci-py drops the status code of an error response (COMPATIBILITY.md).
            assert ours["content"] == expected["content"], tool
            continue
        for dump in (ours, expected):
            dump["metadata"].pop("response_time_ms")
        if tool in ("postJson", "postForm"):  # the server echoes request details
            mine, other = json.loads(ours["content"][0]["text"]), json.loads(
                expected["content"][0]["text"]
            )
            assert (
                mine["body"] == other["body"]
                and mine["authorization"] == other["authorization"]
            ), tool
            continue
        assert ours == expected, tool


def test_head_requests_and_retried_connection_errors(
    invokers: dict[str, Any], server: LoopbackServer
) -> None:
    before = server.hits["/anything"]
    head = _call(invokers, "head", {})
    assert (head.isError, head.text, head.metadata["status_code"]) == (False, "", 200)
    assert server.hits["/anything"] == before + 1
    started = time.monotonic()
    failed = _call(invokers, "unreachable", {})
    assert failed.isError and failed.text.startswith(
        "HTTP request failed: ConnectError"
    )
    assert (
        time.monotonic() - started >= 0.3
    )  # waited 100 ms, then 200 ms, between attempts
