"""MCP servers in a schema: build-time tool lists and caches, and the generated tools
calling a real MCP server (tests/mcp_servers/toy_server.py, written with the SDK)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcigen import ir
from mcigen.diagnostics import Location
from mcigen.planner.mcp_servers import settings_fingerprint

from .conftest import (
    built_package,
    leaves_a_trace,
    run_mcigen,
    text_tool,
    write_schema,
)
from .mcp_servers import TOY_SERVER, toy_http_server
from .oracle import oracle_python, run_oracle

TODAY = datetime.now(UTC).date()


def toy_stdio(**fields: Any) -> dict[str, Any]:
    return {"command": sys.executable, "args": [str(TOY_SERVER), "stdio"], **fields}


def mcp_schema(tmp_path: Path, servers: dict[str, Any], **fields: Any) -> Path:
    """A schema of MCP servers; ``tools: []`` because mci-py 1.2 refuses a schema
    without ``tools`` or ``toolsets`` (its spec allows one of only servers)."""
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": servers, **fields}
    return write_schema(tmp_path, document, "main.mci.json")


def cache_of(tmp_path: Path, server: str = "toy") -> Path:
    return tmp_path / "mci" / "mcp" / f"{server}.mci.json"


def fingerprint(config: dict[str, Any]) -> str:
    """What a cache of the server of ``config`` holds as ``mcigenServer``."""
    somewhere = Location("main.mci.json", 1, 1)
    return settings_fingerprint(ir.McpServer("toy", config, somewhere, somewhere))


def tool_names(cache: Path) -> list[str]:
    return [tool["name"] for tool in json.loads(cache.read_text())["tools"]]


TOY_TOOLS = "echo add forecast inspect_args get-env pid pixel fail crash".split()


@pytest.fixture(scope="module")
def toy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """A package built from the toy server, with ``{{env.TOY_TOKEN}}`` in its env."""
    directory = tmp_path_factory.mktemp("toy")
    schema = mcp_schema(
        directory, {"toy": toy_stdio(env={"TOY_TOKEN": "{{env.TOY_TOKEN}}"})}
    )
    os.environ["TOY_TOKEN"] = "from-the-build"
    try:
        with built_package(schema, directory / "toypkg") as package:
            os.environ["TOY_TOKEN"] = "from-the-call"
            yield package
    finally:
        del os.environ["TOY_TOKEN"]


def test_the_build_writes_mci_pys_cache_and_the_tools_come_from_it(
    tmp_path: Path,
) -> None:
    schema = mcp_schema(tmp_path, {"toy": toy_stdio(config={"expDays": 3})})
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    cache = json.loads(cache_of(tmp_path).read_text())
    assert cache["expiresAt"] == (TODAY + timedelta(days=3)).isoformat()
    assert cache["metadata"] == {
        "name": "toy",
        "description": "MCP server: toy",
        "mcigenServer": fingerprint(toy_stdio()),
    }
    assert [t["name"] for t in cache["tools"]] == TOY_TOOLS
    echo = cache["tools"][0]
    assert echo == {
        "name": "echo",
        "disabled": False,
        "annotations": {"title": "Echo", "readOnlyHint": True},
        "description": "Return the text unchanged.",
        "inputSchema": {
            "properties": {"text": {"title": "Text", "type": "string"}},
            "required": ["text"],
            "type": "object",
            "title": "echoArguments",
        },
        "outputSchema": {
            "properties": {"result": {"title": "Result", "type": "string"}},
            "required": ["result"],
            "type": "object",
            "title": "echoOutput",
        },
        "execution": {"type": "mcp", "serverName": "toy", "toolName": "echo"},
        "enableAnyPaths": False,
        "directoryAllowList": [],
        "tags": ["IsReadOnly"],
    }
    rows = {line.split()[0]: line.split()[1:] for line in result.stdout.splitlines()}
    assert rows["get-env"] == ["get_env", "mcp", "toy"]
    assert rows["add"] == ["add", "mcp", "toy", "IsReadOnly,IsIdempotent"]


def test_row_75_mcigen_writes_mci_pys_cache_bytes_with_output_schemas(
    tmp_path: Path,
) -> None:
    """The same bytes as mci-py's cache but for each tool's ``outputSchema`` and
    the metadata's ``mcigenServer``, which mci-py leaves out (and ignores when it
    reads them: see the next test)."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    for directory in (ours, theirs):
        directory.mkdir()
        mcp_schema(directory, {"toy": toy_stdio()})
    assert run_mcigen("check", ours / "main.mci.json").returncode == 0
    _oracle_list(theirs / "main.mci.json")
    document = json.loads(cache_of(ours).read_text())
    assert document["metadata"].pop("mcigenServer").startswith("sha256:")
    output_schemas = [tool.pop("outputSchema", None) for tool in document["tools"]]
    assert output_schemas[TOY_TOOLS.index("pixel")] is None
    assert sum(schema is not None for schema in output_schemas) == len(TOY_TOOLS) - 1
    assert json.dumps(document, indent=2).encode() == cache_of(theirs).read_bytes()


def test_mci_py_uses_a_cache_that_mcigen_wrote(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": toy_stdio()})
    assert run_mcigen("check", schema).returncode == 0
    assert "outputSchema" in cache_of(tmp_path).read_text()
    # The server can no longer start: mci-py can only list the tools from the cache.
    mcp_schema(tmp_path, {"toy": {"command": str(tmp_path / "gone")}})
    assert _oracle_list(schema) == TOY_TOOLS


def _oracle_list(schema: Path) -> list[str]:
    code = (
        "import json, sys; from mcipy import MCIClient; "
        "print(json.dumps(MCIClient(schema_file_path=sys.argv[1]).list_tools()))"
    )
    done = subprocess.run(
        [str(oracle_python()), "-c", code, str(schema)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    names: list[str] = json.loads(done.stdout.strip().splitlines()[-1])
    return names


def test_a_fresh_cache_is_used_without_connecting(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": {"command": str(tmp_path / "no-server")}})
    _write_cache(tmp_path, ["only_cached"], expires=TODAY + timedelta(days=1))
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split() == [
        "only_cached",
        "only_cached",
        "mcp",
        "toy",
    ]


def test_an_expired_cache_is_fetched_again(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": toy_stdio()})
    _write_cache(tmp_path, ["stale"], expires=TODAY)
    assert run_mcigen("check", schema).returncode == 0
    assert tool_names(cache_of(tmp_path)) == TOY_TOOLS


def test_offline_uses_an_expired_cache_with_a_warning(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": toy_stdio()})
    _write_cache(tmp_path, ["stale"], expires=TODAY - timedelta(days=2))
    result = run_mcigen("list", schema, "--offline")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[1].split()[0] == "stale"
    expired = (TODAY - timedelta(days=2)).isoformat()
    assert result.stderr.splitlines()[0] == (
        f"{schema}:5:12: warning: the cached tools of MCP server 'toy' in "
        f"{cache_of(tmp_path)} expired on {expired}; using them anyway (--offline)"
    )
    assert tool_names(cache_of(tmp_path)) == ["stale"]


def test_a_cache_fetched_from_other_settings_is_fetched_again_or_refused_offline(
    tmp_path: Path,
) -> None:
    """A fresh cache of the server as it was before its command changed lists
    the old server's tools: they are fetched again, and offline it is an error; a
    cache mci-py wrote (no ``mcigenServer``) is used as mci-py uses it."""
    schema = mcp_schema(tmp_path, {"toy": toy_stdio()})
    _write_cache(tmp_path, ["old"], expires=TODAY + timedelta(days=9), fetched_from={})
    offline = run_mcigen("list", schema, "--offline")
    assert offline.returncode == 1
    assert offline.stderr.splitlines()[0] == (
        f"{schema}:5:12: error: the cache {cache_of(tmp_path)} of MCP server 'toy' "
        "was fetched from other settings (its command, args, url, or names of env "
        "or headers differ, or it belongs to another node); build once without "
        "--offline to fetch its tools again"
    )
    assert tool_names(cache_of(tmp_path)) == ["old"]
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    assert "fetching its tools again" in result.stderr
    assert tool_names(cache_of(tmp_path)) == TOY_TOOLS

    _write_cache(tmp_path, ["mci_py_s"], expires=TODAY + timedelta(days=9))
    trusted = run_mcigen("list", schema, "--offline")
    assert trusted.returncode == 0, trusted.stderr
    assert trusted.stdout.splitlines()[1].split()[0] == "mci_py_s"


def test_offline_without_a_cache_is_an_error_naming_the_server(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": toy_stdio()})
    result = run_mcigen("build", schema, "-o", tmp_path / "pkg", "--offline")
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f"{schema}:5:12: error: MCP server 'toy' has no cached tools at "
        f"{cache_of(tmp_path)}; build once without --offline to fetch them"
    )
    assert not (tmp_path / "pkg").exists()


def test_offline_says_nothing_of_filtered_tools_it_cannot_know(tmp_path: Path) -> None:
    config = {"filter": "only", "filterValue": "read_file"}
    schema = mcp_schema(tmp_path, {"toy": toy_stdio(config=config)})
    result = run_mcigen("check", schema, "--offline")
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{schema}:5:12: error: MCP server 'toy' has no cached tools at "
        f"{cache_of(tmp_path)}; build once without --offline to fetch them",
        "1 error, 0 warnings",
    ]


def files_under(directory: Path) -> dict[str, bytes | None]:
    return {
        str(path.relative_to(directory)): path.read_bytes() if path.is_file() else None
        for path in directory.rglob("*")
    }


def test_no_connect_starts_no_server_and_writes_no_cache(tmp_path: Path) -> None:
    command, trace = leaves_a_trace(tmp_path)
    config = {"filter": "only", "filterValue": "read_file"}
    schema = mcp_schema(tmp_path, {"toy": {"command": command, "config": config}})
    before = files_under(tmp_path)
    result = run_mcigen("check", schema, "--no-connect")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{schema}:5:12: note: MCP server 'toy' has no cached tools at "
        f"{cache_of(tmp_path)}; its tools are not checked (--no-connect)",
        "0 errors, 0 warnings",
    ]
    assert run_mcigen("list", schema, "--no-connect").returncode == 0
    assert not trace.exists()
    assert files_under(tmp_path) == before


def test_no_connect_checks_against_an_expired_cache(tmp_path: Path) -> None:
    command, trace = leaves_a_trace(tmp_path)
    config = {"filter": "only", "filterValue": "echo, ehco"}
    schema = mcp_schema(tmp_path, {"toy": {"command": command, "config": config}})
    _write_cache(tmp_path, ["echo", "add"], expires=TODAY)
    before = files_under(tmp_path)
    result = run_mcigen("check", schema, "--no-connect")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{schema}:5:12: note: the cached tools of MCP server 'toy' in "
        f"{cache_of(tmp_path)} expired on {TODAY}; checking against them "
        "(--no-connect)",
        f"{schema}:5:12: warning: filter 'only' names tool 'ehco', which is not "
        "there (did you mean 'echo'?)",
        "0 errors, 1 warning",
    ]
    listed = run_mcigen("list", schema, "--no-connect")
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == ["echo"]
    assert not trace.exists()
    assert files_under(tmp_path) == before


@pytest.mark.parametrize(
    "options",
    [
        ("check", "--no-connect", "--offline"),
        ("list", "--refresh", "--no-connect"),
        ("build", "--no-connect", "-o", "pkg"),
    ],
)
def test_no_connect_is_for_check_and_list_alone(
    tmp_path: Path, options: tuple[str, ...]
) -> None:
    command, _ = leaves_a_trace(tmp_path)
    schema = mcp_schema(tmp_path, {"toy": {"command": command}})
    result = run_mcigen(*options, schema, cwd=tmp_path)
    assert result.returncode == 2
    assert "--no-connect" in result.stderr


def test_refresh_fetches_even_when_the_cache_is_fresh(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": toy_stdio()})
    _write_cache(tmp_path, ["stale"], expires=TODAY + timedelta(days=10))
    assert run_mcigen("check", schema).returncode == 0
    assert tool_names(cache_of(tmp_path)) == ["stale"]
    assert run_mcigen("check", schema, "--refresh").returncode == 0
    assert tool_names(cache_of(tmp_path)) == TOY_TOOLS


def test_an_unreachable_server_is_an_error_at_its_definition(tmp_path: Path) -> None:
    schema = mcp_schema(tmp_path, {"toy": {"command": str(tmp_path / "no-server")}})
    result = run_mcigen("check", schema)
    assert result.returncode == 1
    started, first = result.stderr.splitlines()[:2]
    assert started == (
        f"mcigen: starting MCP server 'toy' to list its tools: {tmp_path}/no-server"
    )
    assert first.startswith(
        f"{schema}:5:12: error: cannot fetch the tools of MCP server 'toy': "
    )
    assert "no-server" in first


def test_a_server_filter_keeps_what_it_says(tmp_path: Path) -> None:
    config = {"filter": "tags", "filterValue": "IsReadOnly"}
    schema = mcp_schema(tmp_path, {"toy": toy_stdio(config=config)})
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    assert [line.split()[0] for line in result.stdout.splitlines()[1:]] == [
        "echo",
        "add",
        "forecast",
    ]
    assert tool_names(cache_of(tmp_path)) == TOY_TOOLS  # the cache keeps everything


def test_a_toolset_tool_must_call_a_declared_server(tmp_path: Path) -> None:
    toolset = tmp_path / "mci" / "remote.mci.json"
    toolset.parent.mkdir()
    mcp_tool = {
        "name": "ask",
        "execution": {"type": "mcp", "serverName": "elsewhere", "toolName": "ask"},
    }
    toolset.write_text(json.dumps({"schemaVersion": "1.0", "tools": [mcp_tool]}))
    schema = write_schema(
        tmp_path,
        {
            "schemaVersion": "1.0",
            "toolsets": ["remote"],
            "tools": [text_tool("a", "a")],
        },
    )
    result = run_mcigen("check", schema)
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f"{toolset}:1:36: error: tool 'ask' calls MCP server 'elsewhere', which the "
        "schema's 'mcp_servers' does not define"
    )


def _write_cache(
    tmp_path: Path,
    names: list[str],
    expires: Any,
    fetched_from: dict[str, Any] | None = None,
) -> None:
    """A cache of ``names``; without ``fetched_from`` (a server's settings), one
    mci-py would write."""
    tools = [
        {
            "name": name,
            "execution": {"type": "mcp", "serverName": "toy", "toolName": name},
        }
        for name in names
    ]
    cache = cache_of(tmp_path)
    cache.parent.mkdir(parents=True, exist_ok=True)
    document: dict[str, Any] = {
        "schemaVersion": "1.0",
        "tools": tools,
        "expiresAt": str(expires),
    }
    if fetched_from is not None:
        document["metadata"] = {"mcigenServer": fingerprint(fetched_from)}
    cache.write_text(json.dumps(document))


# ------------------------------------------------------------------ generated tools


def test_a_call_returns_content_and_mci_py_metadata(toy: ModuleType) -> None:
    result = toy.echo(text="héllo")
    assert result.text == "héllo"
    assert result.isError is False
    assert result.metadata == {
        "mcp_server": "toy",
        "mcp_tool": "echo",
        "structuredContent": {"result": "héllo"},
    }


def test_arguments_of_every_json_type_arrive_as_sent(toy: ModuleType) -> None:
    result = toy.inspect_args(
        text="t",
        count=3,
        ratio=0.5,
        flag=False,
        items=["a", "b"],
        options={"nested": {"list": [1, None, True]}},
        mode="slow",
        note="n",
    )
    assert json.loads(result.text) == {
        "count": 3,
        "flag": False,
        "items": ["a", "b"],
        "mode": "slow",
        "note": "n",
        "options": {"nested": {"list": [1, None, True]}},
        "ratio": 0.5,
        "text": "t",
    }


def test_omitted_optional_arguments_are_not_sent(toy: ModuleType) -> None:
    result = toy.inspect_args(
        text="t", count=1, ratio=1.0, flag=True, items=[], options={}
    )
    received = json.loads(result.text)
    assert (received["mode"], received["note"]) == ("fast", None)


def test_bad_input_is_refused_before_the_server_sees_it(toy: ModuleType) -> None:
    with pytest.raises(toy.ToolInputError) as refused:
        toy.add(a=1, b="2")
    assert "b" in str(refused.value)


def test_hyphenated_tool_names_become_python_names(toy: ModuleType) -> None:
    assert toy.get_env(name="NOT_SET_ANYWHERE").text == "<unset>"


def test_server_env_templates_are_resolved_at_call_time(toy: ModuleType) -> None:
    assert toy.get_env(name="TOY_TOKEN").text == "from-the-call"
    module = Path(toy.__path__[0]) / "tools" / "mcp_toy.py"
    assert "from-the-build" not in module.read_text()


def test_a_tool_error_is_an_error_result(toy: ModuleType) -> None:
    result = toy.fail(message="the disk is full")
    assert result.isError is True
    assert "the disk is full" in result.text
    assert result.metadata == {"mcp_server": "toy", "mcp_tool": "fail"}


def test_images_come_back_as_image_content(toy: ModuleType) -> None:
    (content,) = toy.pixel().content
    assert (content.type, content.mimeType) == ("image", "image/png")
    assert content.data.startswith("iVBORw0KGgo")


def test_one_server_process_serves_sync_and_async_calls(toy: ModuleType) -> None:
    import asyncio

    first = toy.pid().text

    async def many() -> set[str]:
        results = await asyncio.gather(*(toy.pid_async() for _ in range(8)))
        return {r.text for r in results}

    assert asyncio.run(many()) == {first}
    assert toy.pid().text == first


def test_a_crashed_server_is_restarted(toy: ModuleType) -> None:
    before = toy.pid().text
    toy.crash()
    after = toy.pid().text
    assert after != before
    assert toy.echo(text="still here").text == "still here"


def test_calls_match_mci_py(toy: ModuleType) -> None:
    """Same content, isError and metadata as mci-py, except the structured content
    mci-py drops."""
    schema = Path(toy.__path__[0]).parent / "main.mci.json"
    calls: list[tuple[str, dict[str, Any]]] = [
        ("add", {"a": 2, "b": 40}),
        ("pixel", {}),
        ("fail", {"message": "no"}),
        ("get-env", {"name": "TOY_TOKEN"}),
    ]
    answers = run_oracle(
        schema,
        [
            {"tool": t, "props": p, "env": {"TOY_TOKEN": "from-the-call"}}
            for t, p in calls
        ],
    )
    for (tool, props), answer in zip(calls, answers, strict=True):
        function = getattr(toy, tool.replace("-", "_"))
        result = function(**props).model_dump()
        result["metadata"].pop("structuredContent", None)
        assert result == answer["result"], tool


def test_http_servers_are_called_over_streamable_http(tmp_path: Path) -> None:
    with toy_http_server() as url:
        schema = mcp_schema(
            tmp_path,
            {
                "web": {
                    "type": "http",
                    "url": "{{env.TOY_URL}}",
                    "headers": {"Authorization": "Bearer {{env.TOY_TOKEN}}"},
                }
            },
        )
        env = {**os.environ, "TOY_URL": url, "TOY_TOKEN": "t"}
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "mcigen",
                "build",
                str(schema),
                "-o",
                str(tmp_path / "web"),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        code = "import web; print(web.add(a=20, b=22).text, web.echo(text='over http').text)"
        ran = subprocess.run(
            [sys.executable, "-c", code],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            env=env,
            check=False,
        )
        assert ran.stdout.split("\n")[0] == "42 over http", ran.stderr


def test_a_server_with_a_url_and_no_type_is_an_http_server_as_in_mci_py(
    tmp_path: Path,
) -> None:
    with toy_http_server() as url:
        schema = mcp_schema(tmp_path, {"web": {"url": url}})
        theirs = _oracle_list(schema)
        cache_of(tmp_path, "web").unlink()  # ours lists the server itself
        listed = run_mcigen("list", schema)
    assert listed.returncode == 0, listed.stderr
    ours = [line.split()[0] for line in listed.stdout.splitlines()[1:]]
    assert ours == theirs == TOY_TOOLS


def test_a_server_command_not_on_path_is_a_warning_when_it_is_not_started(
    tmp_path: Path,
) -> None:
    """mcix's ``validate`` warns of it; ``check`` does when it starts no server
    (a fresh cache, ``--no-connect``): a started one that is missing is an error."""
    _write_cache(tmp_path, ["echo"], expires=TODAY + timedelta(days=1))
    absent = "mcigen-test-no-such-server"
    schema = mcp_schema(tmp_path, {"toy": {"command": absent, "args": ["-y"]}})
    warned = (
        f"{schema}:5:12: warning: MCP server 'toy' runs '{absent}', which is not on "
        "PATH: calling its tools fails here until the command is installed (or the "
        "server is given its full path)"
    )
    for options in ((), ("--no-connect",)):
        checked = run_mcigen("check", schema, *options)
        assert checked.returncode == 0, checked.stderr
        assert warned in checked.stderr.splitlines()
    cache_of(tmp_path).unlink()
    started = run_mcigen("check", schema)
    assert started.returncode == 1
    assert warned not in started.stderr and "No such file" in started.stderr
    mcp_schema(tmp_path, {"toy": {"command": "true"}})
    assert "not on PATH" not in run_mcigen("check", schema, "--no-connect").stderr


def test_server_tools_that_share_a_python_name_get_two_functions(
    tmp_path: Path,
) -> None:
    schema = mcp_schema(tmp_path, {"toy": {"command": "true"}})
    _write_cache(tmp_path, ["get-env", "get_env"], expires=TODAY + timedelta(days=1))
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    cache = cache_of(tmp_path)
    assert result.stderr.splitlines()[0] == (
        f"{cache}:1:131: warning: tool 'get_env' (from MCP server 'toy') would be "
        f"the Python function 'get_env', like tool 'get-env' (at {cache}:1:36); it "
        "is 'get_env_2' in Python, and 'get_env' everywhere else"
    )
    rows = [line.split()[:2] for line in result.stdout.splitlines()[1:]]
    assert rows == [["get-env", "get_env"], ["get_env", "get_env_2"]]
