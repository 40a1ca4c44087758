"""``mcigen broker ADDR CONFIG [SECRET] ...`` (pyMCPBroker's command line with one
word changed) and ``mcigen serve INPUT [ARG ...]``: the input compiled through
the build cache and served, as real processes, over real HTTP and with the MCP
SDK's client over stdio and Streamable HTTP."""

from __future__ import annotations

import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client

from .conftest import run_mcigen, schema_of, text_tool, write_schema
from .mcigen_process import PATIENCE
from .mcp_servers import TOY_SERVER, free_port, wait_until_listening
from .test_mcp_server import http_session, text_of
from .test_serve_command import McigenServe, gone

SECRET = "s3cret-for-the-broker"
CONFIG: dict[str, Any] = {
    "tree": [
        {
            "path": "/toy",
            "summary": "The toy server",
            "source": {
                "command": f"${{TOY_PYTHON}} {TOY_SERVER} stdio",
                "tool_filter": ["echo"],
                "path_aliases": {"echo": "say"},
            },
        },
        {"path": "/later", "summary": "Nothing mounted yet"},
    ]
}
HELLO = text_tool("hello", "Hello {{props.who}}!")
GOOD_TOOL = {
    "name": "hello",
    "description": "Say hello",
    "command": "echo hello",
    "synchronous": True,
    "subcommand": [{"name": "default", "description": "Say hello"}],
}
BAD_TOOL = '{"name": "old", "description": "x", "command": "echo", "hints": {"doc": 1}}'


@pytest.fixture(autouse=True)
def toy_python(monkeypatch: pytest.MonkeyPatch) -> None:
    """What the config's command reads, in the environment mcigen inherits."""
    monkeypatch.setenv("TOY_PYTHON", sys.executable)


def write_config(directory: Path, document: dict[str, Any] = CONFIG) -> Path:
    path = directory / "broker.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def configured(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A directory holding CONFIG as broker.json, for the tests that serve it as it
    is: the build cache keys a package by its config's path, so the first of them
    builds it (starting the toy server for its tools) and the others take it from
    the cache, ~4 s of CPU fewer each."""
    directory = tmp_path_factory.mktemp("configured")
    write_config(directory)
    return directory


def post(port: int, endpoint: str, body: Any, secret: str | None = SECRET) -> Any:
    headers = {"authorization": f"Bearer {secret}"} if secret else {}
    return httpx.post(
        f"http://127.0.0.1:{port}/{endpoint}", json=body, headers=headers, timeout=60
    )


def test_mcigen_broker_serves_a_config_with_pymcpbrokers_command_line(
    configured: Path,
) -> None:
    port = free_port()
    broker = McigenServe(
        configured, f"127.0.0.1:{port}", "broker.json", SECRET, command="broker"
    )
    try:
        _, pid = broker.started()
        wait_until_listening(broker.process, port, timeout=PATIENCE)
        assert post(port, "meta_tree", {"path": "/"}, secret=None).status_code == 401
        root = post(port, "meta_tree", {"path": "/"}).json()["children"]
        assert [child["path"] for child in root] == ["/later", "/toy"]
        assert post(port, "meta_tree", {"path": "/later"}).json()["children"] == []
        said = post(port, "meta_call", {"path": "/toy/say", "args": {"text": "hi"}})
        assert said.json()["content"] == [{"type": "text", "text": "hi"}]
    finally:
        status = broker.stop()
    assert status == 128 + signal.SIGTERM, broker.log  # the broker's own, passed on
    assert gone(pid)


def test_mcigen_broker_dump_tree_prints_the_configs_tree(configured: Path) -> None:
    config = configured / "broker.json"
    first = run_mcigen("broker", ":8100", config, "--dump-tree")
    assert first.returncode == 0, first.stderr
    assert first.stdout.splitlines()[1:] == [
        "  /later  (node)  Nothing mounted yet",
        "  /toy  (node)  The toy server",
        "    /toy/say  (tool)  Return the text unchanged.",
    ]
    again = run_mcigen("broker", ":8100", config, "--dump-tree")
    assert (again.returncode, again.stdout) == (0, first.stdout)
    # the same package, named after its inputs, taken from the cache
    assert again.stderr.split(" (pid")[0] == first.stderr.split(" (pid")[0]


def test_mcigen_broker_reads_the_configs_variables_at_each_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built through the cache, whose entries are told apart by the values."""
    node = {"path": "/${TEAM}", "summary": "Tools of ${TEAM}"}
    config = write_config(tmp_path, {"tree": [node]})
    trees = []
    for team in ("red", "blue", "red"):
        monkeypatch.setenv("TEAM", team)
        done = run_mcigen("broker", ":8100", config, "--dump-tree")
        assert done.returncode == 0, done.stderr
        trees.append(done.stdout.splitlines()[1])
    assert trees == [
        "  /red  (node)  Tools of red",
        "  /blue  (node)  Tools of blue",
        "  /red  (node)  Tools of red",
    ]
    monkeypatch.delenv("TEAM")
    unset = run_mcigen("broker", ":8100", config, "--dump-tree")
    assert unset.returncode == 1
    assert "the environment variable TEAM is not set" in unset.stderr
    assert "started" not in unset.stderr


def test_mcigen_broker_refuses_a_config_in_place_of_the_secret(
    tmp_path: Path,
) -> None:
    config = write_config(tmp_path)
    port = free_port()
    done = run_mcigen("broker", f"127.0.0.1:{port}", config, "other.json")
    assert done.returncode == 2
    assert done.stderr == (
        "mcigen: error: the secret 'other.json' is a file or a config's name, not "
        f"a secret: mcigen broker ADDR CONFIG [SECRET] serves one config, "
        f"{str(config)!r} here\n"
    )


def test_a_config_that_does_not_compile_starts_nothing(tmp_path: Path) -> None:
    config = tmp_path / "broker.json"
    config.write_text('{"tree": [{"path": "/x", "sumary": "typo"}]}')
    done = run_mcigen("broker", ":8100", config)
    assert done.returncode == 1
    assert done.stderr.splitlines() == [
        f"{config}:1:26: error: unknown field 'sumary' in node (did you mean "
        "'summary'?)",
        "1 error, 0 warnings",
    ]


def test_mcigen_broker_reload_serves_the_changed_config(tmp_path: Path) -> None:
    config = write_config(tmp_path)
    port = free_port()
    broker = McigenServe(
        tmp_path, str(port), "broker.json", "--reload", command="broker"
    )
    try:
        index, first = broker.started()
        wait_until_listening(broker.process, port, timeout=PATIENCE)
        changed = json.loads(json.dumps(CONFIG))
        changed["tree"][1]["summary"] = "Mounted next week"
        config.write_text(json.dumps(changed), encoding="utf-8")
        index, _ = broker.line("rebuilt: restarting the server", index)
        _, second = broker.started(index)
        wait_until_listening(broker.process, port, timeout=PATIENCE)
        root = post(port, "meta_tree", {"path": "/"}, secret=None).json()
        assert root["children"][0]["summary"] == "Mounted next week"
        assert gone(first)
    finally:
        broker.stop()
    assert gone(second)


def _inputs(tmp_path: Path) -> dict[str, Path]:
    folder = tmp_path / ".ahma"
    folder.mkdir()
    (folder / "hello.json").write_text(json.dumps(GOOD_TOOL), encoding="utf-8")
    (folder / "old.json").write_text(BAD_TOOL, encoding="utf-8")
    return {"mci": write_schema(tmp_path, schema_of(HELLO)), "mtdf": folder}


CALLS = {
    "mci": ("hello", {"who": "you"}, "Hello you!"),
    "mtdf": ("hello", {}, "hello\n"),
    "broker": ("toy.say", {"text": "hi"}, "hi"),
}


@asynccontextmanager
async def stdio_session(
    tmp_path: Path, *args: str, errlog: Any
) -> AsyncIterator[ClientSession]:
    """``mcigen serve ARGS`` as an MCP client config would start it."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "mcigen", "serve", *args],
        cwd=tmp_path,
        env=dict(os.environ),  # the tests' build cache, TOY_PYTHON
    )
    async with (
        stdio_client(params, errlog=errlog) as (read, write),
        ClientSession(read, write) as session,
    ):
        await session.initialize()
        yield session


@pytest.mark.parametrize("kind", ["mci", "mtdf", "broker"])
def test_mcigen_serve_input_is_an_mcp_server_over_stdio(
    tmp_path: Path, configured: Path, kind: str
) -> None:
    served = {**_inputs(tmp_path), "broker": configured / "broker.json"}[kind]
    tool, arguments, expected = CALLS[kind]

    async def session() -> tuple[list[str], str]:
        with (tmp_path / "stderr").open("w") as errlog, anyio.fail_after(PATIENCE):
            async with stdio_session(tmp_path, str(served), errlog=errlog) as client:
                names = [tool.name for tool in (await client.list_tools()).tools]
                result = await client.call_tool(tool, arguments)
                return names, text_of(result)

    names, text = anyio.run(session)
    assert tool in names and "old" not in names, names
    assert text == expected
    if kind == "mtdf":  # left out, as serve FOLDER -o DIR leaves it out
        assert "tool files skipped, as they do not load: 1 of 2" in (
            (tmp_path / "stderr").read_text()
        )


def test_mcigen_serve_input_serves_the_toolsets_named(tmp_path: Path) -> None:
    """mcix's ``run --filter toolsets:NAMES`` is ``serve --toolsets NAMES``; a name
    no tool comes from is said, as a misspelt ``--only`` is."""
    (tmp_path / "mci").mkdir()
    for toolset in ("notes", "mail"):
        tool = text_tool(f"{toolset}-tool", toolset)
        write_schema(tmp_path / "mci", schema_of(tool), f"{toolset}.mci.json")
    document = {**schema_of(HELLO), "toolsets": ["notes", "mail"]}
    schema = write_schema(tmp_path, document)

    async def listed() -> list[str]:
        with (tmp_path / "stderr").open("w") as errlog, anyio.fail_after(PATIENCE):
            async with stdio_session(
                tmp_path, str(schema), "--toolsets", "notes,nots", errlog=errlog
            ) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

    assert anyio.run(listed) == ["notes-tool"]
    assert (
        "warning: --toolsets: no tool comes from a toolset or MCP server called 'nots'"
        in (tmp_path / "stderr").read_text()
    )


def test_mcigen_serve_input_refuses_what_its_server_would_before_building(
    tmp_path: Path,
) -> None:
    """The server's arguments are checked as ``python -m PKG serve`` checks them,
    but first (a schema that does not compile is not even read) and under the name
    the user typed, not the cached package's."""
    schema = write_schema(tmp_path, schema_of(HELLO), "hello.mci.json")
    broken = tmp_path / "broken.mci.json"
    broken.write_text('{"schemaVersion": "1.0", "tools": [{"nme": "x"}]}')
    for served in (schema, broken):
        done = run_mcigen("serve", served, "--http", "nope")
        assert done.returncode == 2, done.stderr
        assert done.stderr.startswith(f"usage: mcigen serve {served}")
        assert done.stderr.endswith(
            f"mcigen serve {served}: error: argument --http: expected HOST:PORT "
            "or :PORT, not 'nope'\n"
        )


def test_mcigen_serve_input_help_lists_the_servers_options(tmp_path: Path) -> None:
    broken = tmp_path / "broken.mci.json"
    broken.write_text('{"schemaVersion": "1.0", "tools": [{"nme": "x"}]}')
    done = run_mcigen("serve", broken, "--help")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"usage: mcigen serve {broken}")
    assert "--http HOST:PORT" in done.stdout and "--toolsets NAMES" in done.stdout
    assert "--reload (mcigen's own, anywhere among the arguments)" in done.stdout
    assert done.stderr == ""


def test_mcigen_serve_says_where_the_schema_goes(tmp_path: Path) -> None:
    """Without ``-o`` SCHEMA comes first; a command line without it says so rather
    than asking for ``-o DIR`` and ``COMMAND``, which only the other form takes."""
    schema = write_schema(tmp_path, schema_of(HELLO), "hello.mci.json")
    forms = (
        "mcigen serve SCHEMA [ARG ...] serves it through the build cache; "
        "mcigen serve SCHEMA -o DIR [BUILD OPTIONS] -- COMMAND [ARG ...] "
        "builds it to DIR first"
    )
    late = run_mcigen("serve", "--http", "127.0.0.1:8765", schema)
    assert (late.returncode, late.stderr) == (
        2,
        "mcigen: error: serve takes SCHEMA first, before any option "
        f"('--http' came first): {forms}\n",
    )
    missing = run_mcigen("serve")
    assert (missing.returncode, missing.stderr) == (
        2,
        f"mcigen: error: serve needs SCHEMA: {forms}\n",
    )


def test_mcigen_serve_input_over_streamable_http(tmp_path: Path) -> None:
    schema = _inputs(tmp_path)["mci"]
    port = free_port()
    serving = McigenServe(tmp_path, schema.name, "--http", f"127.0.0.1:{port}")

    async def session() -> str:
        url = f"http://127.0.0.1:{port}/mcp"
        with anyio.fail_after(PATIENCE):
            async with http_session(url, None) as client:
                return text_of(await client.call_tool("hello", {"who": "http"}))

    try:
        serving.started()
        wait_until_listening(serving.process, port, timeout=PATIENCE)
        assert anyio.run(session) == "Hello http!"
    finally:
        serving.stop()


def test_mcigen_serve_input_reload_serves_the_changed_schema(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(HELLO), "live.mci.json")
    port = free_port()
    serving = McigenServe(
        tmp_path, schema.name, "--reload", "--http", f"127.0.0.1:{port}"
    )

    async def tool_names() -> list[str]:
        url = f"http://127.0.0.1:{port}/mcp"
        with anyio.fail_after(PATIENCE):
            async with http_session(url, None) as client:
                return [tool.name for tool in (await client.list_tools()).tools]

    try:
        index, first = serving.started()
        wait_until_listening(serving.process, port, timeout=PATIENCE)
        assert anyio.run(tool_names) == ["hello"]
        write_schema(tmp_path, schema_of(HELLO, text_tool("bye", "Bye!")), schema.name)
        index, _ = serving.line("rebuilt: restarting the server", index)
        serving.started(index)
        wait_until_listening(serving.process, port, timeout=PATIENCE)
        assert anyio.run(tool_names) == ["hello", "bye"]
        assert gone(first)
    finally:
        serving.stop()


def test_mcigen_broker_passes_its_options_on_to_the_broker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--ignore-broken-tool`` and ``--log-level``: a server that no longer starts
    (its tools cached by the first build) is left out with a warning, and a
    request writes no INFO line."""
    ghost = {
        "path": "/ghost",
        "source": {"command": f"${{GHOST_PYTHON}} {TOY_SERVER} stdio"},
    }
    config = write_config(tmp_path, {"tree": [*CONFIG["tree"], ghost]})
    monkeypatch.setenv("GHOST_PYTHON", sys.executable)
    assert run_mcigen("broker", ":8100", config, "--dump-tree").returncode == 0
    monkeypatch.setenv("GHOST_PYTHON", str(tmp_path / "no-such-python"))
    port = free_port()
    broker = McigenServe(
        tmp_path,
        str(port),
        config.name,
        "--ignore-broken-tool",
        "--log-level",
        "warning",
        command="broker",
    )
    try:
        broker.started()
        wait_until_listening(broker.process, port, timeout=PATIENCE)
        root = post(port, "meta_tree", {"path": "/"}, secret=None).json()
        assert [child["path"] for child in root["children"]] == ["/later", "/toy"]
    finally:
        broker.stop()
    warnings = [line for line in broker.lines if line.startswith("WARNING")]
    assert len(warnings) == 1 and "'ghost'" in warnings[0], broker.log
    assert not [line for line in broker.lines if line.startswith("INFO")]
