"""HTTP tools keep their secrets (issue 14, group 4): no header carrying an auth or
environment value follows a redirect to another origin, an OAuth2 token serves only
the credentials and the Client it was fetched for, and no message or log record
shows a secret of the call. A real server on 127.0.0.1 redirects to a second one on
127.0.0.2, another host."""

from __future__ import annotations

import asyncio
import importlib
import json
import logging
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from .conftest import Invoke
from .hostile_http import HostileServer
from .http_attacks import ENV, SECRETS

_SENT = ("X-API-Key", "X-Custom", "X-Plain", "Authorization")


def _arrived(server: HostileServer) -> dict[str, str]:
    """The headers of interest of the last request ``server`` received."""
    headers = server.received[-1]["headers"]
    return {name: value for name, value in headers.items() if name in _SENT}


@pytest.mark.parametrize("code", [302, 307])
def test_a_redirect_to_another_host_drops_every_secret_header(
    invoke: Invoke, elsewhere: HostileServer, code: int
) -> None:
    result = invoke("moved", {"code": code, "to": elsewhere.base + "/echo"})
    assert result.isError is False
    assert json.loads(result.text)["path"] == "/echo"
    assert _arrived(elsewhere) == {"X-Plain": "plain"}
    invoke("movedBearer", {"to": elsewhere.base + "/echo"})
    assert _arrived(elsewhere) == {}


def test_a_redirect_on_the_same_origin_keeps_them(
    invoke: Invoke, here: HostileServer
) -> None:
    invoke("moved", {"code": 307, "to": here.base + "/echo"})
    assert _arrived(here) == {
        "X-API-Key": "api-key-secret",
        "X-Custom": "Token custom-secret",
        "X-Plain": "plain",
    }
    invoke("movedBearer", {"to": "/echo"})
    assert _arrived(here) == {"Authorization": "Bearer api-key-secret"}


def test_the_async_twin_drops_them_too(
    attacks: ModuleType, elsewhere: HostileServer
) -> None:
    twins = importlib.import_module("httpattacks.tools.main").ASYNC_INVOKERS
    moved = twins["moved"]({"code": 302, "to": elsewhere.base + "/echo"}, ENV)
    assert asyncio.run(moved).isError is False
    assert _arrived(elsewhere) == {"X-Plain": "plain"}


def test_an_oauth2_token_serves_only_its_credentials_and_its_client(
    invoke: Invoke, attacks: ModuleType, here: HostileServer
) -> None:
    def bearer(result: Any) -> str:
        return str(json.loads(result.text)["headers"]["Authorization"])

    fetched = here.token_requests
    first = bearer(invoke("oauth", {}))
    assert bearer(invoke("oauth", {})) == first  # plain calls share a cache
    assert here.token_requests == fetched + 1
    wrong = invoke("oauth", {}, {**ENV, "CLIENT_SECRET": "wrong-secret"})
    assert (wrong.isError, wrong.text) == (
        True,
        f"401 Client Error: Unauthorized for url: {here.base}/token",
    )
    one, other = attacks.Client(env_vars=ENV), attacks.Client(env_vars=ENV)
    own = bearer(one.execute("oauth").result)
    assert own != first and bearer(one.execute("oauth").result) == own
    assert bearer(other.execute("oauth").result) not in (first, own)
    intruder = attacks.Client(env_vars={**ENV, "CLIENT_SECRET": "wrong-secret"})
    assert intruder.execute("oauth").result.isError is True


def test_no_message_shows_a_secret_of_the_url(
    invoke: Invoke, here: HostileServer
) -> None:
    failed = invoke("failing", {"code": 500, "page": "2"})
    assert failed.text == (
        "500 Server Error: Internal Server Error for url: "
        f"{here.base}/status/500?key=***&page=2"
    )
    whole = {**ENV, "ENDPOINT": f"{here.base}/status/404?key=url-secret-value"}
    assert invoke("endpoint", {}, whole).text == (
        f"404 Client Error: Not Found for url: {here.base}/status/404?key=***"
    )
    unparsable = {**ENV, "ENDPOINT": "http://[::1/x?key=url-secret-value"}
    assert invoke("endpoint", {}, unparsable).text == (
        "HTTP request failed: InvalidURL: Invalid port: ':1'"
    )


def test_an_empty_secret_redacts_nothing(invoke: Invoke, here: HostileServer) -> None:
    """An env secret set to "" once turned a message into ``***4***0***4***...``."""
    assert invoke("emptyKey", {}).text == (
        f"404 Client Error: Not Found for url: {here.base}/status/404?key="
    )


@pytest.fixture
def every_record() -> Iterator[list[logging.LogRecord]]:
    """Every log record of the process, the root logger at DEBUG."""
    records: list[logging.LogRecord] = []

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    root, handler = logging.getLogger(), Keep(logging.DEBUG)
    level = root.level
    root.setLevel(logging.DEBUG)
    root.addHandler(handler)
    try:
        yield records
    finally:
        root.removeHandler(handler)
        root.setLevel(level)


def test_no_log_record_holds_a_secret(
    invoke: Invoke, elsewhere: HostileServer, every_record: list[logging.LogRecord]
) -> None:
    assert invoke("echo", {}).isError is False
    invoke("failing", {"code": 404, "page": "1"})
    invoke("moved", {"code": 302, "to": elsewhere.base + "/echo"})
    token = json.loads(invoke("oauth", {}).text)["headers"]["Authorization"]
    logged = [logging.Formatter().format(record) for record in every_record]
    requests = [line for line in logged if line.startswith("HTTP Request: ")]
    assert any("/echo?key=*** " in line for line in requests), requests
    for secret in (*SECRETS, token.removeprefix("Bearer ")):
        assert not [line for line in logged if secret in line], secret
