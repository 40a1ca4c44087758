"""What a client of a served package receives of its upstreams' content: an MCP
server's embedded resources, resource links, annotations and sounds as it sent
them, an http tool's sound and image as media, and an upstream's progress
notifications relayed with the client's own token. Real parts throughout: the
upstream MCP server (tests/mcp_servers/content_server.py) and an HTTP server on
127.0.0.1, the package served by ``python -m pkg serve`` over stdio and
Streamable HTTP, and the SDK's client (``mcp.ClientSession``)."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import httpx
import mcp_types
import pytest
from mcp import ClientSession

from .conftest import package_env, run_mcigen, write_schema
from .http_server import PNG, WAV, LoopbackServer
from .mcp_servers import CONTENT_SERVER, free_port
from .test_mcp_server import http_server, http_session, run, stdio_session
from .test_serve_edge import serve_argv

PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
FOR_THE_USER = {"audience": ["user"], "priority": 0.9}


def content_schema(base: str) -> dict[str, Any]:
    """The content server's tools, and http tools fetching a sound and an image."""
    return {
        "schemaVersion": "1.0",
        "metadata": {"name": "Content", "version": "1.0.0"},
        "mcp_servers": {
            "content": {"command": sys.executable, "args": [str(CONTENT_SERVER)]}
        },
        "tools": [
            {
                "name": "test_audio_content",
                "description": "A short WAV, over http.",
                "execution": {"type": "http", "url": base + "/audio"},
            },
            {
                "name": "test_image_content",
                "description": "A PNG, over http.",
                "execution": {"type": "http", "url": base + "/image"},
            },
        ],
    }


@pytest.fixture(scope="module")
def upstream() -> Iterator[LoopbackServer]:
    server = LoopbackServer()
    yield server
    server.stop()


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory, upstream: LoopbackServer) -> Path:
    directory = tmp_path_factory.mktemp("content")
    schema = write_schema(directory, content_schema(upstream.base), "c.mci.json")
    result = run_mcigen("build", schema, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


Session = Callable[[], AbstractAsyncContextManager[ClientSession]]


@pytest.fixture(scope="module", params=["stdio", "http"])
def session(request: pytest.FixtureRequest, pkg_dir: Path) -> Iterator[Session]:
    """Opens an SDK client session to the package served over one transport."""
    if request.param == "stdio":
        yield lambda: stdio_session(pkg_dir)
        return
    port = free_port()
    with http_server(pkg_dir, serve_argv("--http", f"127.0.0.1:{port}"), port) as url:
        yield lambda: http_session(url, None)


def call(session: Session, tool: str) -> list[dict[str, Any]]:
    """The content items of ``tool``'s answer, as JSON."""

    async def ask() -> list[dict[str, Any]]:
        async with session() as client:
            result = await client.call_tool(tool, {})
        assert not result.is_error
        return [
            item.model_dump(by_alias=True, exclude_none=True, mode="json")
            for item in result.content
        ]

    return run(ask)


def test_the_meta_of_each_item_arrives_as_sent(session: Session) -> None:
    tag = {"example.com/source": "upstream", "rank": 1}
    assert call(session, "tagged") == [
        {"type": "text", "text": "tagged", "_meta": tag},
        {"type": "image", "data": PIXEL, "mimeType": "image/png", "_meta": tag},
        {
            "type": "resource",
            "resource": {
                "uri": "test://tagged",
                "text": "inside",
                "_meta": {"inner": True},
            },
            "_meta": tag,
        },
    ]


def test_embedded_resources_links_and_annotations_arrive_as_sent(
    session: Session,
) -> None:
    assert call(session, "test_embedded_resource") == [
        {
            "type": "resource",
            "resource": {
                "uri": "test://embedded-resource",
                "mimeType": "text/plain",
                "text": "This is an embedded resource content.",
            },
        }
    ]
    assert [item["type"] for item in call(session, "test_multiple_content_types")] == [
        "text",
        "image",
        "resource",
    ]
    assert call(session, "linked") == [
        {"type": "text", "text": "for your eyes", "annotations": FOR_THE_USER},
        {
            "type": "resource_link",
            "uri": "test://report.pdf",
            "name": "report",
            "title": "The report",
            "mimeType": "application/pdf",
            "size": 1234,
            "annotations": FOR_THE_USER,
        },
        {
            "type": "resource",
            "resource": {
                "uri": "test://blob",
                "mimeType": "application/octet-stream",
                "blob": "AAE=",
            },
        },
    ]


def test_sounds_and_images_arrive_as_media(session: Session) -> None:
    (upstream_sound,) = call(session, "sound")
    assert (upstream_sound["type"], upstream_sound["mimeType"]) == (
        "audio",
        "audio/wav",
    )
    assert call(session, "test_audio_content") == [
        {
            "type": "audio",
            "data": base64.b64encode(WAV).decode(),
            "mimeType": "audio/wav",
        }
    ]
    assert call(session, "test_image_content") == [
        {
            "type": "image",
            "data": base64.b64encode(PNG).decode(),
            "mimeType": "image/png",
        }
    ]


def test_upstream_progress_reaches_the_client_that_asked(session: Session) -> None:
    """Each of the upstream's three reports, in order and before the answer."""

    async def ask() -> tuple[list[tuple[float, float | None, str | None]], str]:
        heard: list[tuple[float, float | None, str | None]] = []

        async def on_progress(
            progress: float, total: float | None, message: str | None
        ) -> None:
            heard.append((progress, total, message))

        async with session() as client:
            result = await client.call_tool(
                "test_tool_with_progress", {}, progress_callback=on_progress
            )
        text = result.content[0]
        assert isinstance(text, mcp_types.TextContent)
        return heard, text.text

    heard, answer = run(ask)
    assert answer == "done"
    assert heard == [(step, 100, f"step {step}") for step in (0, 50, 100)]


def test_progress_carries_the_clients_own_token_over_stdio(pkg_dir: Path) -> None:
    """A client that names its own progressToken gets it back on every
    notification, written before the answer."""
    lines = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "raw", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {
                "name": "test_tool_with_progress",
                "arguments": {},
                "_meta": {"progressToken": "mine-7"},
            },
        },
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "pkg", "serve"],
        cwd=pkg_dir,
        env=package_env(pkg_dir),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write("".join(json.dumps(line) + "\n" for line in lines))
        process.stdin.flush()
        answers: list[dict[str, Any]] = []
        while not answers or answers[-1].get("id") != 2:
            answers.append(json.loads(process.stdout.readline()))
    finally:
        process.kill()
        process.wait()
    progress = [
        a["params"] for a in answers if a.get("method") == "notifications/progress"
    ]
    assert [(p["progressToken"], p["progress"]) for p in progress] == [
        ("mine-7", 0),
        ("mine-7", 50),
        ("mine-7", 100),
    ]
    assert answers[-1]["result"]["content"] == [{"type": "text", "text": "done"}]


def test_progress_carries_the_clients_own_token_over_http(pkg_dir: Path) -> None:
    """Over Streamable HTTP the request that asks for progress, from a client that
    accepts SSE, is answered with a stream: its notifications, then its answer;
    without a progressToken it stays one JSON document."""
    port = free_port()
    with http_server(pkg_dir, serve_argv("--http", f"127.0.0.1:{port}"), port) as url:
        headers = {"Accept": "application/json, text/event-stream"}
        request: dict[str, Any] = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "test_tool_with_progress", "arguments": {}},
        }
        plain = httpx.post(url, json=request, headers=headers, timeout=30)
        assert plain.headers["content-type"].startswith("application/json")
        assert plain.json()["result"]["content"] == [{"type": "text", "text": "done"}]
        request["params"]["_meta"] = {"progressToken": "mine-7"}
        streamed = httpx.post(url, json=request, headers=headers, timeout=30)
    assert streamed.headers["content-type"].startswith("text/event-stream")
    events = [
        json.loads(line.removeprefix("data: "))
        for line in streamed.text.splitlines()
        if line.startswith("data: ")
    ]
    assert [e["params"]["progressToken"] for e in events[:-1]] == ["mine-7"] * 3
    assert [e["params"]["progress"] for e in events[:-1]] == [0, 50, 100]
    assert events[-1]["id"] == 2
    assert events[-1]["result"]["content"] == [{"type": "text", "text": "done"}]


def test_the_broker_relays_progress_of_meta_call(pkg_dir: Path) -> None:
    """``serve --broker``: ``meta_call`` of a tool whose upstream reports progress
    relays it as a plain call does."""

    async def ask() -> tuple[list[float], dict[str, Any]]:
        heard: list[float] = []

        async def on_progress(
            progress: float, total: float | None, message: str | None
        ) -> None:
            heard.append(progress)

        async with stdio_session(pkg_dir, "--broker") as client:
            path = "/mcp/content/test_tool_with_progress"
            result = await client.call_tool(
                "meta_call", {"path": path}, progress_callback=on_progress
            )
        assert result.structured_content is not None
        return heard, result.structured_content

    heard, answer = run(ask)
    assert heard == [0, 50, 100]
    assert answer["content"] == [{"type": "text", "text": "done"}]
