"""``python -m PKG broker``: pyMCPBroker's HTTP API driven with a plain HTTP client,
against a real server process whose MCP servers are real SDK servers over stdio."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from .conftest import RUN_ENV, Server, serving

SECRET = "open-sesame"


@pytest.fixture(scope="module")
def server(
    package: ModuleType, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Server]:
    with serving(package, tmp_path_factory.mktemp("api"), SECRET) as running:
        yield running


def post(server: Server, endpoint: str, body: Any = None) -> httpx.Response:
    return server.post(endpoint, body, SECRET)


@pytest.mark.parametrize(
    "headers",
    [{}, {"authorization": "Bearer wrong"}, {"authorization": f"Basic {SECRET}"}],
    ids=["missing", "wrong", "not-bearer"],
)
def test_without_the_secret_every_endpoint_answers_401(
    server: Server, headers: dict[str, str]
) -> None:
    for endpoint in ("meta_tree", "meta_desc", "meta_call"):
        answer = httpx.post(
            f"{server.url}/{endpoint}", json={"path": "/"}, headers=headers
        )
        assert answer.status_code == 401
        assert answer.headers["www-authenticate"].startswith("Bearer")
        assert answer.json()["error"] == "unauthorized"


def test_the_secret_can_come_from_mcigen_secret(
    package: ModuleType, tmp_path: Path
) -> None:
    with serving(package, tmp_path, MCIGEN_SECRET="from-the-env") as running:
        assert running.post("meta_tree", {}).status_code == 401
        assert running.post("meta_tree", {}, "from-the-env").status_code == 200


def test_the_answers_are_those_of_pkg_meta(
    server: Server, package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in RUN_ENV.items():
        monkeypatch.setenv(name, value)
    meta = importlib.import_module(f"{package.__name__}.meta")
    for path in ("/", "/mcp", "/mcp/toy"):
        assert post(server, "meta_tree", {"path": path}).json() == meta.meta_tree(path)
    assert post(server, "meta_tree", {}).json() == meta.meta_tree()
    for path in ("/", "/mcp/toy", "/hello", "/mcp/toy/echo"):
        assert post(server, "meta_desc", {"path": path}).json() == meta.meta_desc(path)
    calls: list[tuple[str, dict[str, Any]]] = [
        ("/hello", {"who": "Ada"}),
        ("/mcp/toy/echo", {"text": "over HTTP"}),
        ("/mcp/toy/add", {"a": 2, "b": 40}),
    ]
    for path, args in calls:
        answer = post(server, "meta_call", {"path": path, "args": args})
        assert answer.status_code == 200
        assert answer.json() == meta.meta_call(path, args)


def test_a_call_reaches_the_real_mcp_server_with_the_servers_variables(
    server: Server,
) -> None:
    answer = post(
        server, "meta_call", {"path": "/mcp/toy/get-env", "args": {"name": "TOY_TOKEN"}}
    )
    assert answer.status_code == 200
    assert answer.json()["content"] == [{"type": "text", "text": RUN_ENV["TOY_TOKEN"]}]


def test_a_tool_that_fails_is_an_answer_not_an_http_error(server: Server) -> None:
    answer = post(
        server, "meta_call", {"path": "/mcp/toy/fail", "args": {"message": "no luck"}}
    )
    assert answer.status_code == 200
    assert answer.json()["isError"] is True
    assert answer.json()["content"][0]["text"].endswith("no luck")


@pytest.mark.parametrize(
    ("endpoint", "body", "status", "error", "details"),
    [
        ("meta_tree", {"path": "/nowhere"}, 404, "unknown_path", {"path": "/nowhere"}),
        ("meta_desc", {"path": "/mcp/toy/ech"}, 404, "unknown_path", {}),
        ("meta_call", {"path": "/nope", "args": {}}, 404, "unknown_path", {}),
        ("meta_tree", {"path": "/hello"}, 409, "not_a_node", {"path": "/hello"}),
        ("meta_call", {"path": "/mcp/toy"}, 409, "not_a_tool", {"path": "/mcp/toy"}),
        (
            "meta_call",
            {"path": "/mcp/toy/add", "args": {"a": 1, "b": "two"}},
            422,
            "invalid_args",
            {"path": "/mcp/toy/add", "field": "b"},
        ),
        (
            "meta_call",
            {"path": "/hello", "args": {}},
            422,
            "invalid_args",
            {"field": "who"},
        ),
        ("meta_tree", [1, 2], 400, "invalid_request", {}),
        ("meta_desc", {}, 400, "invalid_request", {"field": "path"}),
        ("meta_tree", {"path": 3}, 400, "invalid_request", {"field": "path"}),
        (
            "meta_call",
            {"path": "/hello", "args": ["Ada"]},
            400,
            "invalid_request",
            {"field": "args"},
        ),
        ("meta_tree", {"path": "/", "depth": 2}, 400, "invalid_request", {}),
        ("meta_nope", {"path": "/"}, 404, "unknown_endpoint", {}),
        ("meta_tree/more", {"path": "/"}, 404, "unknown_endpoint", {}),
    ],
)
def test_each_mistake_has_its_status_and_a_json_error(
    server: Server,
    endpoint: str,
    body: Any,
    status: int,
    error: str,
    details: dict[str, Any],
) -> None:
    answer = post(server, endpoint, body)
    assert answer.status_code == status
    assert answer.headers["content-type"] == "application/json"
    found = answer.json()
    assert found["error"] == error
    assert found["error_description"]
    assert {key: found.get(key) for key in details} == details


def test_invalid_args_name_every_problem_and_nothing_runs(server: Server) -> None:
    answer = post(server, "meta_call", {"path": "/mcp/toy/add", "args": {"a": "x"}})
    assert answer.status_code == 422
    problems = answer.json()["problems"]
    assert {problem["field"] for problem in problems} == {"a", "b"}


def test_a_body_that_is_not_json_is_400(server: Server) -> None:
    answer = server.post("meta_tree", None, SECRET, content=b"{path: /}")
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_json"


def test_an_empty_body_asks_for_the_root(server: Server) -> None:
    answer = server.post("meta_tree", None, SECRET, content=b"")
    assert answer.status_code == 200
    assert answer.json()["path"] == "/"


def test_a_body_too_large_is_413(server: Server) -> None:
    big = {"path": "/hello", "args": {"who": "x" * (2 << 20)}}
    answer = post(server, "meta_call", big)
    assert answer.status_code == 413
    assert answer.json()["error"] == "body_too_large"


def test_other_methods_are_405_with_allow_post(server: Server) -> None:
    answer = httpx.get(
        f"{server.url}/meta_tree", headers={"authorization": f"Bearer {SECRET}"}
    )
    assert answer.status_code == 405
    assert answer.headers["allow"] == "POST"
    assert answer.json()["error"] == "method_not_allowed"
