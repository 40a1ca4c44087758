"""``python -m PKG serve`` and ``PKG.server:app``: a generated package as an MCP server,
exercised with the official SDK's client over stdio and Streamable HTTP (real
processes, real uvicorn)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

import anyio
import httpx
import pytest
from mcigen_runtime.edge.settings import (
    ServeOptions,
    mcp_tool_names,
    options_from_environment,
    parse_address,
    select_tools,
)
from mcigen_runtime.manifest import ToolEntry
from mcigen_runtime.results import ImageContent, TextContent, ToolResult
from mcigen_runtime.serve.server import (
    mcp_result,
    tool_definition,
)
from mcp import ClientSession, MCPError, StdioServerParameters, stdio_client

from .conftest import package_env, run_mcigen, text_tool, write_schema
from .mcp_servers import free_port, listening

_T = TypeVar("_T")

GREET_SCHEMA = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Who to greet"},
        "language": {"type": "string", "enum": ["en", "de"], "default": "en"},
    },
    "required": ["name"],
    "additionalProperties": False,
}
WEIRD_NAME = "get weather/now"

SCHEMA = {
    "schemaVersion": "1.0",
    "metadata": {"name": "Demo", "version": "1.2.3", "description": "Demo tools"},
    "tools": [
        text_tool(
            "greet",
            "[{{props.language}}] Hello, {{props.name}}!",
            description="Greet someone.",
            tags=["chat"],
            annotations={
                "title": "Greet someone",
                "readOnlyHint": True,
                "idempotentHint": True,
            },
            inputSchema=GREET_SCHEMA,
        ),
        text_tool("report.daily", "daily report", tags=["reports"]),
        text_tool(
            "make-note",
            "noted",
            tags=["notes", "chat"],
            annotations={"destructiveHint": False, "openWorldHint": False},
        ),
        text_tool(WEIRD_NAME, "sunny"),
        text_tool("needs_env", "{{env.MCIGEN_TEST_NEVER_SET}}"),
        {
            "name": "read_notes",
            "tags": ["notes"],
            "inputSchema": {
                "type": "object",
                "properties": {"who": {"type": "string"}},
                "required": ["who"],
            },
            "execution": {
                "type": "file",
                "path": "notes.txt",
                "enableTemplating": True,
            },
        },
    ],
}
ALL_NAMES = {
    "greet",
    "report.daily",
    "make-note",
    WEIRD_NAME,
    "needs_env",
    "read_notes",
}


@pytest.fixture(scope="module")
def pkg_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The directory holding the built package ``pkg`` (cwd for the servers)."""
    directory = tmp_path_factory.mktemp("served")
    (directory / "notes.txt").write_text("Notes for {{props.who}}", encoding="utf-8")
    schema = write_schema(directory, SCHEMA, "tools.mci.json")
    result = run_mcigen("build", schema, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


@pytest.fixture(scope="module")
def manifest(pkg_dir: Path) -> dict[str, dict[str, Any]]:
    document = json.loads((pkg_dir / "pkg" / "manifest.json").read_text("utf-8"))
    return {tool["name"]: tool for tool in document["tools"]}


def run(fn: Callable[[], Awaitable[_T]]) -> _T:
    """Run ``fn`` on a fresh event loop, with a deadline so a hung server fails."""

    async def bounded() -> _T:
        with anyio.fail_after(20):
            return await fn()

    return anyio.run(bounded)


@asynccontextmanager
async def stdio_session(
    pkg_dir: Path, *args: str, message_handler: Any = None, **env: str
) -> AsyncIterator[ClientSession]:
    """``python -m pkg serve ARGS`` over stdio (with the environment variables
    ``env``), initialized; killed on exit. ``message_handler`` sees the server's
    notifications."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "pkg", "serve", *args],
        cwd=str(pkg_dir),
        env=package_env(pkg_dir, **env),
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, message_handler=message_handler) as session,
    ):
        await session.initialize()
        yield session


@asynccontextmanager
async def http_session(url: str, secret: str | None) -> AsyncIterator[ClientSession]:
    import httpx2
    from mcp.client.streamable_http import streamable_http_client

    headers = {"Authorization": f"Bearer {secret}"} if secret else None
    # httpx's 5 s are not enough for a first answer on a loaded machine.
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as client,
        streamable_http_client(url, http_client=client) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@contextmanager
def http_server(pkg_dir: Path, argv: list[str], port: int, **env: str) -> Iterator[str]:
    """Start ``argv`` (a server on ``port``), wait until it listens; yields its URL."""
    with listening(argv, port, cwd=pkg_dir, env=package_env(pkg_dir, **env)):
        yield f"http://127.0.0.1:{port}/mcp"


def text_of(result: Any) -> str:
    return "\n".join(item.text for item in result.content if item.type == "text")


# --------------------------------------------------------------------- pure parts


def entry(name: str, tags: tuple[str, ...] = ()) -> ToolEntry:
    return ToolEntry(
        name=name,
        python_name=name,
        type="text",
        group="main",
        origin="schema",
        toolset=None,
        description=None,
        annotations={},
        tags=tags,
        input_schema=None,
    )


def test_valid_names_are_kept_and_others_mapped_uniquely() -> None:
    names = mcp_tool_names(["greet", "a.b-c_D9", "get weather/now", "x" * 64, "x" * 65])
    assert names["greet"] == "greet"
    assert names["a.b-c_D9"] == "a.b-c_D9"
    assert names["x" * 64] == "x" * 64
    weird = names["get weather/now"]
    assert (
        weird.startswith("get_weather_now_")
        and len(weird) == len("get_weather_now_") + 8
    )
    assert len(names["x" * 65]) <= 64
    # Deterministic, and the same whatever else is around.
    assert mcp_tool_names(["get weather/now"]) == {"get weather/now": weird}


def test_a_mapped_name_never_takes_a_real_tool_name() -> None:
    weird = mcp_tool_names(["a b"])["a b"]
    names = mcp_tool_names(["a b", weird, "a/b", "a:b"])
    assert names[weird] == weird
    assert names["a b"] != weird and names["a b"].startswith("a_b_")
    assert len(set(names.values())) == 4


def test_filters_combine_by_intersection_like_mci_py() -> None:
    tools = [entry("a", ("x",)), entry("b", ("x", "y")), entry("c", ("y",)), entry("d")]

    def names(**options: Any) -> list[str]:
        return [t.name for t in select_tools(tools, ServeOptions(**options))]

    assert names() == ["a", "b", "c", "d"]
    assert names(only=frozenset({"a", "c", "zzz"})) == ["a", "c"]
    assert names(exclude=frozenset({"a"})) == ["b", "c", "d"]
    assert names(tags=frozenset({"x"})) == ["a", "b"]
    assert names(without_tags=frozenset({"y"})) == ["a", "d"]
    assert names(tags=frozenset({"x"}), without_tags=frozenset({"y"})) == ["a"]
    assert names(only=frozenset({"b", "c"}), tags=frozenset({"x"})) == ["b"]
    assert names(tags=frozenset({"X"})) == []  # case-sensitive


def test_options_from_the_environment() -> None:
    options = options_from_environment(
        {
            "MCIGEN_ONLY": "a, b,,",
            "MCIGEN_EXCEPT": "",
            "MCIGEN_TAGS": "x",
            "MCIGEN_BROKER": "True",
            "MCIGEN_MAX_OUTPUT_CHARS": "500",
            "MCIGEN_SECRET": "s",
        }
    )
    assert options == ServeOptions(
        only=frozenset({"a", "b"}),
        tags=frozenset({"x"}),
        broker=True,
        max_output_chars=500,
        secret="s",
    )
    assert options_from_environment({}) == ServeOptions()
    with pytest.raises(ValueError, match="MCIGEN_BROKER"):
        options_from_environment({"MCIGEN_BROKER": "maybe"})
    with pytest.raises(ValueError, match="MCIGEN_MAX_OUTPUT_CHARS"):
        options_from_environment({"MCIGEN_MAX_OUTPUT_CHARS": "-1"})


def test_tool_definitions_and_results_on_the_wire() -> None:
    bare = tool_definition(entry("t"), "t")
    assert bare == {"name": "t", "inputSchema": {"type": "object", "properties": {}}}
    untyped = entry("u").replace(input_schema={"properties": {}})
    assert tool_definition(untyped, "u")["inputSchema"] == {
        "type": "object",
        "properties": {},
    }
    annotated = entry("v").replace(annotations={"title": "V", "readOnlyHint": True})
    assert tool_definition(annotated, "v")["annotations"] == {
        "title": "V",
        "readOnlyHint": True,
    }

    result = ToolResult(
        content=[
            TextContent(text="hi"),
            ImageContent(data="aGk=", mimeType="image/png"),
        ],
        isError=True,
        metadata={"status": 500},
    )
    wire = mcp_result(result).model_dump(by_alias=True, mode="json", exclude_none=True)
    wire.pop("resultType", None)
    assert wire == {
        "_meta": {"dev.mcigen/metadata": {"status": 500}},
        "content": [
            {"type": "text", "text": "hi"},
            {"type": "image", "data": "aGk=", "mimeType": "image/png"},
        ],
        "isError": True,
    }


def test_http_addresses() -> None:
    assert parse_address(":8000") == ("127.0.0.1", 8000)
    assert parse_address("8000") == ("127.0.0.1", 8000)
    assert parse_address("0.0.0.0:80") == ("0.0.0.0", 80)
    assert parse_address("[::1]:9000") == ("::1", 9000)


# --------------------------------------------------------------------- stdio


def test_stdio_lists_the_tools_exactly(
    pkg_dir: Path, manifest: dict[str, dict[str, Any]]
) -> None:
    async def scenario() -> None:
        async with stdio_session(pkg_dir) as session:
            listed = {tool.name: tool for tool in (await session.list_tools()).tools}
            weird = mcp_tool_names([WEIRD_NAME])[WEIRD_NAME]
            assert set(listed) == (ALL_NAMES - {WEIRD_NAME}) | {weird}

            greet = listed["greet"]
            assert (
                greet.input_schema == GREET_SCHEMA == manifest["greet"]["inputSchema"]
            )
            assert greet.description == "Greet someone."
            assert greet.title == "Greet someone"
            assert greet.annotations is not None
            assert greet.annotations.model_dump(by_alias=True, exclude_none=True) == {
                "title": "Greet someone",
                "readOnlyHint": True,
                "idempotentHint": True,
            }
            note = listed["make-note"].annotations
            assert note is not None and note.destructive_hint is False
            assert note.open_world_hint is False
            assert listed["read_notes"].input_schema == (
                manifest["read_notes"]["inputSchema"]
            )
            # A tool without an inputSchema takes no arguments.
            assert manifest["report.daily"].get("inputSchema") is None
            assert listed["report.daily"].input_schema == {
                "type": "object",
                "properties": {},
            }
            assert listed["report.daily"].annotations is None

    run(scenario)


def test_stdio_calls(pkg_dir: Path) -> None:
    async def scenario() -> None:
        async with stdio_session(pkg_dir) as session:
            result = await session.call_tool("greet", {"name": "Ada", "language": "de"})
            assert not result.is_error and text_of(result) == "[de] Hello, Ada!"
            result = await session.call_tool("greet", {"name": "Ada"})
            assert text_of(result) == "[en] Hello, Ada!"

            # Invalid input: a tool error naming the field, not a protocol error.
            result = await session.call_tool("greet", {"name": 42})
            assert result.is_error and "name" in text_of(result)
            result = await session.call_tool("greet", {"name": "A", "language": "fr"})
            assert result.is_error and "language" in text_of(result)

            # A tool that fails while running.
            result = await session.call_tool("needs_env", {})
            assert result.is_error
            assert "MCIGEN_TEST_NEVER_SET" in text_of(result)

            # The mapped name, and the original one, reach the same tool.
            weird = mcp_tool_names([WEIRD_NAME])[WEIRD_NAME]
            for name in (weird, WEIRD_NAME):
                result = await session.call_tool(name, {})
                assert text_of(result) == "sunny"

            # A sync file tool (run in a worker thread).
            result = await session.call_tool("read_notes", {"who": "Bo"})
            assert not result.is_error and text_of(result) == "Notes for Bo"

            with pytest.raises(MCPError, match="Unknown tool: nope"):
                await session.call_tool("nope", {})
            # Still serving after an error.
            assert (
                text_of(await session.call_tool("report.daily", {})) == "daily report"
            )

    run(scenario)


def test_stdio_filters(pkg_dir: Path) -> None:
    async def listed(*args: str) -> set[str]:
        async with stdio_session(pkg_dir, *args) as session:
            names = {tool.name for tool in (await session.list_tools()).tools}
            if "greet" not in names:
                with pytest.raises(MCPError, match="Unknown tool: greet"):
                    await session.call_tool("greet", {"name": "x"})
            return names

    async def scenario() -> None:
        assert await listed("--tags", "chat,reports", "--except", "greet") == {
            "report.daily",
            "make-note",
        }
        assert await listed(
            "--only", "greet,make-note,read_notes", "--without-tags", "notes"
        ) == {"greet"}

    run(scenario)


def test_stdio_filters_spelt_as_mcix_spells_them(pkg_dir: Path) -> None:
    """``mcix run --filter TYPE:VALUES``, once per type, beside our own options."""

    async def listed(*args: str) -> set[str]:
        async with stdio_session(pkg_dir, *args) as session:
            return {tool.name for tool in (await session.list_tools()).tools}

    async def scenario() -> None:
        spelt = ["--filter", "tags: chat,reports", "--filter", "except:greet"]
        assert await listed(*spelt) == {"report.daily", "make-note"}
        assert await listed(
            "--filter", "only:greet,make-note,read_notes", "--without-tags", "notes"
        ) == {"greet"}
        assert await listed("--filter", "without-tags:notes,chat", "--broker") == {
            "meta_tree",
            "meta_desc",
            "meta_call",
        }

    run(scenario)


@pytest.mark.parametrize(
    ("spelt", "said"),
    [
        (["--filter", "tags"], "expected TYPE:VALUES with TYPE one of only, except, "),
        (["--filter", "Tags:chat"], "unknown filter type 'Tags' in 'Tags:chat'"),
        (["--filter", "labels:chat"], "unknown filter type 'labels'"),
        (["--filter", "only:"], "'only:' names no only"),
        (["--filter", "only: , ,"], "names no only"),
        (["--filter", "only:a", "--only", "b"], "the only filter is given twice"),
        (["--filter", "tags:a", "--filter", "tags:b"], "the tags filter is given"),
    ],
)
def test_a_misspelt_mcix_filter_is_a_usage_error(
    pkg_dir: Path, spelt: list[str], said: str
) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pkg", "serve", *spelt],
        cwd=pkg_dir,
        env=package_env(pkg_dir),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 2, result.stderr
    assert said in result.stderr
    assert "Traceback" not in result.stderr


def test_stdio_broker(pkg_dir: Path) -> None:
    async def scenario() -> None:
        async with stdio_session(
            pkg_dir, "--broker", "--without-tags", "reports"
        ) as session:
            tools = (await session.list_tools()).tools
            assert [tool.name for tool in tools] == [
                "meta_tree",
                "meta_desc",
                "meta_call",
            ]

            tree = await session.call_tool("meta_tree", {"path": "/"})
            assert not tree.is_error
            paths = {child["path"] for child in json.loads(text_of(tree))["children"]}
            assert "/greet" in paths and "/report.daily" not in paths

            desc = await session.call_tool("meta_desc", {"path": "/greet"})
            assert json.loads(text_of(desc))["args_schema"] == GREET_SCHEMA

            call = await session.call_tool(
                "meta_call", {"path": "/greet", "args": {"name": "Zoe"}}
            )
            answer = json.loads(text_of(call))
            assert not call.is_error and call.structured_content == answer
            assert answer["content"] == [{"type": "text", "text": "[en] Hello, Zoe!"}]

            failed = await session.call_tool("meta_call", {"path": "/needs_env"})
            assert failed.is_error and json.loads(text_of(failed))["isError"] is True

            bad = await session.call_tool(
                "meta_call", {"path": "/greet", "args": {"name": 1}}
            )
            assert bad.is_error and "name" in text_of(bad)
            missing = await session.call_tool("meta_desc", {"path": "/nope"})
            assert missing.is_error

            with pytest.raises(MCPError, match="Unknown tool"):
                await session.call_tool("greet", {"name": "x"})

    run(scenario)


def test_serve_usage_errors(pkg_dir: Path) -> None:
    for args in (
        ["--secret", "s"],
        ["--max-output-chars", "100"],
        ["--http", "nowhere:port"],
    ):
        result = subprocess.run(
            [sys.executable, "-m", "pkg", "serve", *args],
            cwd=pkg_dir,
            env=package_env(pkg_dir),
            capture_output=True,
            text=True,
            timeout=20,
        )
        assert result.returncode == 2, (args, result.stderr)


def test_list_does_not_import_mcp_and_server_import_starts_nothing(
    pkg_dir: Path,
) -> None:
    code = (
        "import sys, threading, contextlib, io\n"
        "from mcigen_runtime.app.main import main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        "    assert main('pkg', ['list']) == 0\n"
        "assert not [m for m in sys.modules if m.split('.')[0] in "
        "('mcp', 'mcp_types', 'starlette', 'uvicorn')]\n"
        "import pkg.server\n"
        "from starlette.applications import Starlette\n"
        "assert isinstance(pkg.server.app, Starlette)\n"
        "assert threading.active_count() == 1\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        cwd=pkg_dir,
        env=package_env(pkg_dir, MCIGEN_SECRET="s"),
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert result.returncode == 0, result.stderr


# --------------------------------------------------------------------- HTTP


def test_http_with_a_secret(pkg_dir: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f":{port}"]
    with http_server(pkg_dir, [*argv, "--secret", "s3cret"], port) as url:

        async def scenario() -> None:
            async with http_session(url, "s3cret") as session:
                names = {tool.name for tool in (await session.list_tools()).tools}
                assert "greet" in names
                result = await session.call_tool("greet", {"name": "Ada"})
                assert text_of(result) == "[en] Hello, Ada!"

        run(scenario)
        ping = {"jsonrpc": "2.0", "id": 1, "method": "ping"}
        for headers in (
            {},
            {"Authorization": "Bearer wrong"},
            {"Authorization": "s3cret"},
        ):
            response = httpx.post(url, json=ping, headers=headers, timeout=10)
            assert response.status_code == 401
            assert response.json()["error"] == "unauthorized"


def test_http_without_a_secret_and_with_filters(pkg_dir: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(pkg_dir, [*argv, "--only", "greet"], port) as url:

        async def scenario() -> None:
            async with http_session(url, None) as session:
                tools = (await session.list_tools()).tools
                assert [tool.name for tool in tools] == ["greet"]
                result = await session.call_tool("greet", {"language": "de"})
                assert result.is_error and "name" in text_of(result)

        run(scenario)


def test_uvicorn_with_two_workers(pkg_dir: Path) -> None:
    port = free_port()
    argv = [sys.executable, "-m", "uvicorn", "pkg.server:app", "--workers", "2"]
    argv += ["--port", str(port), "--log-level", "warning"]
    with http_server(
        pkg_dir, argv, port, MCIGEN_SECRET="tok", MCIGEN_EXCEPT="needs_env"
    ) as url:

        async def scenario() -> None:
            for number in range(4):
                async with http_session(url, "tok") as session:
                    tools = (await session.list_tools()).tools
                    assert len(tools) == len(ALL_NAMES) - 1
                    for _ in range(2):
                        result = await session.call_tool(
                            "greet", {"name": f"n{number}"}
                        )
                        assert text_of(result) == f"[en] Hello, n{number}!"
                    result = await session.call_tool("read_notes", {"who": "W"})
                    assert text_of(result) == "Notes for W"

        run(scenario)
        response = httpx.post(url, json={}, timeout=10)
        assert response.status_code == 401
