"""``serve`` over stdio answering before the MCP SDK is loaded (``stdio_start``) and
``tools/list`` from pages made once (``wire``): every answer byte for byte the
SDK's. The same lines go to a server answering early and to one that waits for the
SDK (``MCIGEN_STDIO_EARLY=0``), real processes both; the pages are compared with
the SDK's own dump of them, for the golden packages' tools and for generated
schemas."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from mcigen_runtime.manifest import read_manifest
from mcigen_runtime.serve import wire
from mcigen_runtime.serve.disclosure import Disclosure
from mcigen_runtime.serve.operation_tools import DEFINITIONS
from mcigen_runtime.serve.server import tool_definition
from mcp import ClientSession, StdioServerParameters, stdio_client
from mcp_types import JSONRPCResponse
from mcp_types import methods as sdk_methods
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS, LATEST_HANDSHAKE_VERSION

from .conftest import ROOT, package_env, run_mcigen, text_tool, write_schema
from .test_serve_edge import read_lines

GOLDEN = ROOT / "golden"
MANIFESTS = sorted(GOLDEN.glob("*/manifest.json"))


def test_the_versions_are_the_sdks() -> None:
    assert wire.HANDSHAKE_VERSIONS == HANDSHAKE_PROTOCOL_VERSIONS
    assert wire.LATEST_HANDSHAKE_VERSION == LATEST_HANDSHAKE_VERSION


# --------------------------------------------------------------------- the pages


def sdk_answer(page: Mapping[str, Any], version: str) -> str:
    """How the SDK's server sends ``page`` as the answer to request 1, through
    its models (``build_server``'s ``list_tools``, then the version's sieve)."""
    result = types.ListToolsResult.model_validate(page, by_name=False)
    dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
    shaped = sdk_methods.serialize_server_result("tools/list", version, dumped)
    return _response(shaped)


def _response(result: dict[str, Any]) -> str:
    response = JSONRPCResponse(jsonrpc="2.0", id=1, result=result)
    return response.model_dump_json(by_alias=True, exclude_unset=True)


def assert_pages_are_the_sdks(definitions: list[dict[str, Any]]) -> None:
    listed = wire.listing(definitions)
    assert listed.exact
    for cursor, page in listed.pages.items():
        params = {} if cursor is None else {"cursor": cursor}
        expected = sdk_answer(page, LATEST_HANDSHAKE_VERSION)
        for version in HANDSHAKE_PROTOCOL_VERSIONS:
            assert sdk_answer(page, version) == expected
        # the SDK's server given the page (listed_at_once), and the early answer
        assert _response(dict(page)) == expected
        text = listed.json_for(params)
        if text is not None:
            assert f'{{"jsonrpc":"2.0","id":1,"result":{text}}}' == expected


def golden_definitions() -> list[dict[str, Any]]:
    definitions = [dict(definition) for definition in DEFINITIONS]
    definitions.append(Disclosure([]).definition())
    for path in MANIFESTS:
        for entry in read_manifest(path.read_bytes()).tools:
            definitions.append(tool_definition(entry, entry.name))
    return definitions


def test_the_pages_of_every_golden_tool_are_the_sdks() -> None:
    definitions = golden_definitions()
    assert len(definitions) > 40
    assert_pages_are_the_sdks(definitions)


def test_a_large_listing_is_paged_by_size() -> None:
    tool = {"name": "t", "inputSchema": {"type": "object"}, "description": "x" * 999}
    definitions = [{**tool, "name": f"t{n}"} for n in range(3000)]
    listed = wire.listing(definitions)
    pages = list(listed.pages.values())
    assert len(pages) > 2 and "nextCursor" not in pages[-1]
    start = 0
    for cursor, page in listed.pages.items():
        assert cursor == (str(start) if start else None)
        text = listed.json_for({} if cursor is None else {"cursor": cursor})
        assert text is not None and len(text) <= wire.TOOLS_PAGE_BYTES + 100
        start += len(page["tools"])
        assert page.get("nextCursor", str(len(definitions))) == str(start)
    assert start == len(definitions)
    assert listed.json_for({"cursor": "9"}) is None
    assert_pages_are_the_sdks(definitions)


_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=5), inner, max_size=3),
    max_leaves=8,
)
_SCHEMAS = st.fixed_dictionaries(
    {"type": st.sampled_from(["object", "object", "string", None])},
    optional={
        "$schema": st.sampled_from(["https://json-schema.org/draft/2020-12", 5]),
        "properties": st.dictionaries(
            st.text(max_size=4), st.booleans() | _JSON, max_size=3
        ),
        "required": st.lists(st.text(max_size=3) | st.integers(), max_size=2),
        "additionalProperties": _JSON,
        "x-extra": _JSON,
    },
)
_TOOLS = st.fixed_dictionaries(
    {"name": st.text(min_size=1, max_size=6), "inputSchema": _SCHEMAS},
    optional={
        "title": st.text(max_size=5),
        "description": st.text(max_size=8),
        "outputSchema": _SCHEMAS,
        "annotations": st.fixed_dictionaries(
            {},
            optional={
                "readOnlyHint": st.booleans() | st.integers(0, 1),
                "title": st.text(max_size=3),
            },
        ),
        "execution": st.fixed_dictionaries(
            {}, optional={"taskSupport": st.sampled_from(["optional", "never"])}
        ),
    },
)


@settings(max_examples=300, deadline=None)
@given(st.lists(_TOOLS, min_size=1, max_size=3))
def test_every_tool_shaped_here_is_shaped_as_the_sdk_does(
    definitions: list[dict[str, Any]],
) -> None:
    """A tool :func:`wire.wire_tool` shapes is the SDK's; one it refuses is left
    to the SDK (which may refuse it too)."""
    if all(wire.wire_tool(definition) is not None for definition in definitions):
        assert_pages_are_the_sdks(definitions)


# --------------------------------------------------------------------- the wire


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Packages ``plain`` (text tools with tags, annotations, names MCP refuses)
    and ``git`` (tools of Ahma's ``git`` bundle, and ``notes``)."""
    directory = tmp_path_factory.mktemp("early")
    tools = [
        text_tool(
            "greet",
            "Hello, {{props.name}}!",
            description="Greet.",
            tags=["chat"],
            annotations={"title": "Greet", "readOnlyHint": True},
            inputSchema={
                "type": "object",
                "properties": {"name": {"type": "string", "default": None}},
                "required": ["name"],
            },
        ),
        text_tool("get weather/now", "sunny", tags=["weather"]),
        text_tool("ünïcode", "ü", description="Ünïcode ✓ \u2028"),
    ]
    document = {
        "schemaVersion": "1.0",
        "metadata": {"name": "Plain", "version": "2.0", "description": "Plain"},
        "tools": tools,
    }
    schema = write_schema(directory, document, "plain.mci.json")
    assert run_mcigen("build", schema, "-o", directory / "plain").returncode == 0
    files = directory / "git_tools"
    files.mkdir()
    leaves = [
        {"name": name, "description": f"git {name}", "synchronous": True}
        for name in ("status", "log")
    ]
    git = {"name": "git", "description": "Git", "command": "echo git"}
    notes: dict[str, object] = {
        "name": "notes",
        "description": "Notes",
        "command": "echo notes",
    }
    notes["synchronous"] = True
    (files / "git.json").write_text(json.dumps({**git, "subcommand": leaves}))
    (files / "notes.json").write_text(json.dumps(notes))
    assert run_mcigen("build", files, "-o", directory / "git").returncode == 0
    return directory


def answers(
    cwd: Path, package: str, lines: list[Any], count: int, *args: str, **env: str
) -> list[bytes]:
    """The first ``count`` lines ``python -m PACKAGE serve ARGS`` writes for
    ``lines`` (messages, or text sent as it is), all sent at once."""
    environment = {
        key: value for key, value in os.environ.items() if not key.startswith("MCIGEN")
    }
    path = os.pathsep.join([str(cwd), str(GOLDEN)])
    environment.update(PYTHONPATH=path, PYTHONDONTWRITEBYTECODE="1", **env)
    process = subprocess.Popen(
        [sys.executable, "-m", package, "serve", *args],
        cwd=cwd,
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        text = [line if isinstance(line, str) else json.dumps(line) for line in lines]
        process.stdin.write("".join(f"{line}\n" for line in text).encode())
        process.stdin.flush()
        return read_lines(process.stdout, count, timeout=60)
    finally:
        process.kill()
        process.wait()


def request(number: int, method: str, params: Any = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": number, "method": method}
    if params is not None:
        message["params"] = params
    return message


INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
CLIENT = {"name": "client", "version": "1.0"}


def initialize(**params: Any) -> dict[str, Any]:
    return request(1, "initialize", params)


def assert_as_the_sdk(
    cwd: Path, package: str, lines: list[Any], count: int, *args: str, **env: str
) -> list[bytes]:
    """The answers of a server answering early, checked to be the answers of one
    that waits for the SDK (compared as sets: the SDK answers requests it reads
    together in any order, and a line it cannot read as soon as it reads it, even
    before the ``initialize`` read ahead of it is answered). The first answer of
    the early server is to the first line."""
    early = answers(cwd, package, lines, count, *args, **env)
    late = answers(cwd, package, lines, count, *args, MCIGEN_STDIO_EARLY="0", **env)
    assert sorted(early) == sorted(late)
    assert json.loads(early[0]).get("id") == lines[0]["id"]
    return early


@pytest.mark.parametrize(
    "params",
    [
        {},
        {"protocolVersion": "2024-11-05", "capabilities": {}, "clientInfo": CLIENT},
        {"protocolVersion": "2025-03-26", "clientInfo": {"name": "curl"}},
        {
            "protocolVersion": "2025-06-18",
            "capabilities": {
                "roots": {"listChanged": True},
                "sampling": {},
                "elicitation": {"form": {}},
                "experimental": {"x": {}},
                "vendor": [1],
            },
            "clientInfo": {**CLIENT, "title": "Client"},
        },
        {"protocolVersion": "2099-01-01", "capabilities": {}, "clientInfo": CLIENT},
        {"protocolVersion": "2026-07-28", "capabilities": {}, "clientInfo": CLIENT},
        # the SDK's: checked by its models
        {"protocolVersion": 5},
        {"capabilities": {"roots": {"listChanged": "yes"}}},
        {"clientInfo": {"name": 1}},
        {"capabilities": {"tasks": {"list": {}}}, "clientInfo": CLIENT},
    ],
)
def test_initialize_is_answered_as_the_sdk_does(
    built: Path, params: dict[str, Any]
) -> None:
    assert_as_the_sdk(built, "plain", [initialize(**params)], 1)


SCRIPT = [
    initialize(protocolVersion="2025-11-25", capabilities={}, clientInfo=CLIENT),
    INITIALIZED,
    request(2, "tools/list"),
    request(3, "ping"),
    request(4, "tools/list", {"cursor": "nope"}),
    request(5, "ping", {}),
    request(6, "tools/list", {}),
]


@pytest.mark.parametrize(
    ("package", "args", "env"),
    [
        ("plain", (), {}),
        ("plain", ("--tags", "weather"), {}),
        ("plain", ("--broker",), {}),
        ("git", (), {}),
        ("git", (), {"MCIGEN_PROGRESSIVE_DISCLOSURE_OFF": "1"}),
        ("greetings", ("--only", "greet"), {}),
        ("ahma", (), {}),  # background tools: MCP Tasks, status, await, cancel
        ("workspace", ("--except", "read_file"), {}),
    ],
)
def test_a_session_is_answered_as_the_sdk_does(
    built: Path, package: str, args: tuple[str, ...], env: dict[str, str]
) -> None:
    said = assert_as_the_sdk(built, package, SCRIPT, 6, *args, **env)
    listed = json.loads(said[1])["result"]
    assert listed["tools"] and "nextCursor" not in listed


def test_lines_only_the_sdk_answers_are_answered_as_it_does(built: Path) -> None:
    lines = [
        initialize(),
        "not json",
        {"jsonrpc": "2.0", "id": None, "method": "ping"},
        '{"jsonrpc": "2.0", "id": 2, "id": 3, "method": "ping"}',
        request(4, "ping", {"_meta": {"progressToken": 1}}),
        request(5, "resources/list"),
        request(6, "initialize", {}),
    ]
    assert_as_the_sdk(built, "plain", lines, 7)


def test_what_comes_while_the_sdk_loads_is_answered_in_order(built: Path) -> None:
    """The early answers, then the call that hands the connection to the SDK and
    every line behind it, each answered once."""
    call = {"name": "greet", "arguments": {"name": "Ann"}}
    lines = [
        initialize(),
        INITIALIZED,
        request(2, "tools/list"),
        request(3, "tools/call", call),
        request(4, "ping"),
        request(5, "tools/list"),
        request(6, "tools/call", call),
    ]
    said = [json.loads(line) for line in answers(built, "plain", lines, 6)]
    assert [answer["id"] for answer in said[:2]] == [1, 2]
    assert sorted(answer["id"] for answer in said[2:]) == [3, 4, 5, 6]
    by_id = {answer["id"]: answer["result"] for answer in said}
    assert by_id[3]["content"][0]["text"] == by_id[6]["content"][0]["text"]
    assert by_id[3]["content"][0]["text"] == "Hello, Ann!"
    assert by_id[5] == by_id[2]
    assert by_id[4] == {}


def test_a_client_of_the_sdk_lists_calls_and_lists_again(built: Path) -> None:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "plain", "serve", "--only", "greet"],
        cwd=str(built),
        env=package_env(built, PYTHONDONTWRITEBYTECODE="1"),
    )

    async def scenario() -> None:
        with anyio.fail_after(60):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                before = await session.list_tools()
                called = await session.call_tool("greet", {"name": "Bo"})
                after = await session.list_tools()
                await session.send_ping()
        assert [tool.name for tool in before.tools] == ["greet"]
        assert isinstance(called.content[0], types.TextContent)
        assert called.content[0].text == "Hello, Bo!"
        assert after == before

    anyio.run(scenario)
