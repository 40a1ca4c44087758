"""A broker config built against a real MCP server (tests/mcp_servers/toy_server.py,
written with the SDK, over stdio), mounted twice under different nodes with
different filters and aliases."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mcigen import ir
from mcigen.frontend.formats import BROKER
from mcigen.pipeline import CompileOptions, plan_schema
from mcigen.planner import McpAccess, McpMode

from ..conftest import leaves_a_trace, run_mcigen
from ..mcp_servers import TOY_SERVER

TOY = f"{sys.executable} {TOY_SERVER} stdio"
TWICE: dict[str, Any] = {
    "tree": [
        {"path": "/toy", "summary": "The toy server"},
        {
            "path": "/toy/read",
            "summary": "Reading",
            "source": {
                "command": TOY,
                "tool_filter": ["e*", "a*", "!add"],
                "path_aliases": {"echo": "say"},
                "tool_overrides": {
                    "echo": {
                        "summary": "Say it back",
                        "description": "Says the text back, unchanged.",
                        "timeout": 2.5,
                        "max_output_chars": 40,
                        "example_args": {"text": "hello"},
                        "render_mode": "text",
                    }
                },
            },
        },
        {
            "path": "/toy/sums",
            "source": {
                "command": TOY,
                "tool_filter": ["add", "pid"],
                "path_aliases": {"add": "plus"},
            },
        },
    ]
}


def write_config(directory: Path, document: dict[str, Any]) -> Path:
    path = directory / "broker.json"
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def run_package(package: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        [sys.executable, "-m", package.name, *args],
        cwd=package.parent,
        capture_output=True,
        text=True,
        check=False,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The config's directory, its package built as ``pkg``."""
    directory = tmp_path_factory.mktemp("twice")
    config = write_config(directory, TWICE)
    result = run_mcigen("build", config, "-o", directory / "pkg")
    assert result.returncode == 0, result.stderr
    return directory


def test_each_mount_lists_the_tools_its_filter_keeps_under_their_leaf_names(
    twice: Path,
) -> None:
    listing = run_package(twice / "pkg", "list")
    names = [line.split()[0] for line in listing.splitlines()[1:]]
    assert names == ["toy.read.say", "toy.sums.plus", "toy.sums.pid"]
    assert "Says the text back, unchanged." in listing


def test_the_tree_is_the_configs_with_a_leaf_per_tool(twice: Path) -> None:
    package, diagnostics = plan_schema(
        twice / "broker.json",
        CompileOptions(source_format=BROKER, mcp=McpAccess(McpMode.OFFLINE)),
    )
    assert package is not None, diagnostics.render()
    assert package.tree == ir.Tree(
        (
            ir.TreeNode("/", ""),
            ir.TreeNode("/toy", "The toy server"),
            ir.TreeNode("/toy/read", "Reading"),
            ir.TreeNode("/toy/sums", ""),
        ),
        (
            ir.TreeLeaf(
                "/toy/read/say",
                "toy.read.say",
                "Say it back",
                40,
                {"text": "hello"},
                "text",
            ),
            # The config's example args above; the others made from the schema.
            ir.TreeLeaf(
                "/toy/sums/plus", "toy.sums.plus", example_args={"a": 0, "b": 0}
            ),
            ir.TreeLeaf("/toy/sums/pid", "toy.sums.pid", example_args={}),
        ),
    )
    say = package.tools[0].tool
    assert say.execution == ir.McpExecution("toy.read", "echo", 2500)


def test_a_call_reaches_the_real_tool_under_its_own_name(twice: Path) -> None:
    said = run_package(
        twice / "pkg", "call", "toy.read.say", "--json", '{"text": "hi"}'
    )
    assert said.strip() == "hi"
    summed = run_package(
        twice / "pkg", "call", "toy.sums.plus", "--json", '{"a": 2, "b": 3}'
    )
    assert summed.strip() == "5"


def test_check_and_list_read_the_config_too(twice: Path) -> None:
    result = run_mcigen("list", twice / "broker.json", "--offline")
    assert result.returncode == 0, result.stderr
    assert "toy.sums.plus" in result.stdout
    assert run_mcigen("check", twice / "broker.json", "--offline").returncode == 0


def test_offline_without_a_cache_is_a_located_error(tmp_path: Path) -> None:
    config = write_config(tmp_path, TWICE)
    result = run_mcigen("check", config, "--offline")
    assert result.returncode == 1
    assert (
        f"{config}:10:17: error: MCP server 'toy.read' has no cached tools at "
        f"{tmp_path}/mci/mcp/toy.read.mci.json" in result.stderr
    )


def test_no_connect_without_a_cache_is_a_note_and_starts_nothing(
    tmp_path: Path,
) -> None:
    command, trace = leaves_a_trace(tmp_path)
    source = {"command": command, "path_aliases": {"read_file": "read"}}
    config = write_config(tmp_path, {"tree": [{"path": "/files", "source": source}]})
    result = run_mcigen("check", config, "--no-connect")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == [
        f"{config}:5:17: note: MCP server 'files' has no cached tools at "
        f"{tmp_path}/mci/mcp/files.mci.json; its tools are not checked "
        "(--no-connect)",
        "0 errors, 0 warnings",
    ]
    assert not trace.exists()
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "broker.json",
        "server.sh",
    ]


def test_a_committed_cache_builds_offline_and_refresh_rewrites_it(
    twice: Path, tmp_path: Path
) -> None:
    config = write_config(tmp_path, TWICE)
    caches = tmp_path / "mci" / "mcp"
    shutil.copytree(twice / "mci" / "mcp", caches)
    result = run_mcigen("build", config, "-o", tmp_path / "pkg", "--offline")
    assert result.returncode == 0, result.stderr
    assert "toy.sums.plus" in run_package(tmp_path / "pkg", "list")

    cache = caches / "toy.sums.mci.json"
    cached = json.loads(cache.read_text())
    cached["tools"] = [t for t in cached["tools"] if t["name"] != "pid"]
    cache.write_text(json.dumps(cached))
    result = run_mcigen("build", config, "-o", tmp_path / "pkg", "--refresh")
    assert result.returncode == 0, result.stderr
    refreshed = [t["name"] for t in json.loads(cache.read_text())["tools"]]
    assert "pid" in refreshed


def test_a_variable_in_the_command_comes_from_the_build_env_and_stays_a_reference(
    tmp_path: Path,
) -> None:
    interpreter = tmp_path / "interpreter-only-the-build-knows"
    interpreter.write_text(f'#!/bin/sh\nexec {sys.executable} "$@"\n')
    interpreter.chmod(0o755)
    config = write_config(
        tmp_path,
        {
            "tree": [
                {
                    "path": "/t",
                    "source": {
                        "command": f"${{TOY_PYTHON}} {TOY_SERVER} stdio",
                        "tool_filter": ["echo"],
                    },
                }
            ]
        },
    )
    built = subprocess.run(
        [
            sys.executable,
            "-m",
            "mcigen",
            "build",
            str(config),
            "-o",
            str(tmp_path / "pkg"),
        ],
        env={**os.environ, "TOY_PYTHON": str(interpreter)},
        capture_output=True,
        text=True,
        check=False,
    )
    assert built.returncode == 0, built.stderr
    for file in (tmp_path / "pkg").rglob("*"):
        if file.is_file():
            assert interpreter.name not in file.read_text(errors="replace"), file
    with_variable = {**os.environ, "TOY_PYTHON": sys.executable}
    echoed = run_package(
        tmp_path / "pkg", "call", "t.echo", "--json", '{"text": "x"}', env=with_variable
    )
    assert echoed.strip() == "x"
    without = subprocess.run(
        [sys.executable, "-m", "pkg", "call", "t.echo", "--json", '{"text": "x"}'],
        cwd=tmp_path,
        env={k: v for k, v in os.environ.items() if k != "TOY_PYTHON"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert "TOY_PYTHON" in without.stdout + without.stderr


def test_overrides_are_checked_against_the_servers_tools(
    twice: Path, tmp_path: Path
) -> None:
    document = {
        "tree": [
            {
                "path": "/t",
                "source": {
                    "command": TOY,
                    "tool_filter": ["echo", "add"],
                    "path_aliases": {"pid": "p", "ech": "e"},
                    "tool_overrides": {
                        "add": {"example_args": {"a": "one", "b": 2}},
                        "ech0": {"summary": "x"},
                    },
                },
            },
            {"path": "/t/echo"},
        ]
    }
    config = write_config(tmp_path, document)
    caches = tmp_path / "mci" / "mcp"
    caches.mkdir(parents=True)
    shutil.copy(twice / "mci" / "mcp" / "toy.sums.mci.json", caches / "t.mci.json")
    result = run_mcigen("check", config, "--offline")
    assert result.returncode == 1
    lines = [line.replace(f"{tmp_path}/", "") for line in result.stderr.splitlines()]
    assert lines == [
        "broker.json:5:17: warning: 'path_aliases' of source '/t' names tool 'pid', "
        "which 'tool_filter' leaves out",
        "broker.json:5:17: warning: 'path_aliases' of source '/t' names tool 'ech', "
        "which the server does not have (did you mean 'echo'?)",
        "broker.json:5:17: error: tool 'echo' of source '/t' would be the leaf "
        "'/t/echo', which is the path of node '/t/echo'; give it another name in "
        "'path_aliases', or leave it out with 'tool_filter'",
        "broker.json:16:11: error: 'example_args' of tool 'add' do not fit its "
        "inputSchema: at ['a']: 'one' is not of type 'integer'",
        "broker.json:22:11: warning: 'tool_overrides' of source '/t' names tool "
        "'ech0', which the server does not have (did you mean 'echo'?)",
        "2 errors, 3 warnings",
    ]


def test_an_empty_override_description_empties_it_and_clashes_are_told_in_the_config(
    twice: Path, tmp_path: Path
) -> None:
    caches = tmp_path / "mci" / "mcp"
    caches.mkdir(parents=True)
    shutil.copy(twice / "mci" / "mcp" / "toy.sums.mci.json", caches / "t.mci.json")
    document = {
        "tree": [
            {
                "path": "/t",
                "source": {
                    "command": TOY,
                    "tool_filter": ["add"],
                    "tool_overrides": {"add": {"description": ""}},
                },
            }
        ]
    }
    package, _ = plan_schema(
        write_config(tmp_path, document), CompileOptions(source_format=BROKER)
    )
    assert package is not None
    assert [p.tool.description for p in package.tools] == [""]

    # Two leaves whose Python names are one: the warning is at the config's source.
    document["tree"][0]["source"] = {
        "command": TOY,
        "tool_filter": ["add", "pid"],
        "path_aliases": {"add": "a-b", "pid": "a_b"},
    }
    config = write_config(tmp_path, document)
    result = run_mcigen("check", config, "--offline")
    assert result.returncode == 0, result.stderr
    assert result.stderr.replace(f"{tmp_path}/", "").splitlines()[0] == (
        "broker.json:5:17: warning: tool 't.a_b' (from MCP server 't') would be the "
        "Python function 't_a_b', like tool 't.a-b' (at broker.json:5:17); it is "
        "'t_a_b_2' in Python, and 't.a_b' everywhere else"
    )


def test_check_says_which_command_it_starts_before_starting_it(tmp_path: Path) -> None:
    """``check`` fetches what ``build`` would (so it checks the same tools), but a
    program started is never a surprise: its command line, as written (the
    variable, not its value), comes first on stderr; --offline starts none."""
    command, trace = leaves_a_trace(tmp_path)
    source = {"command": f"{command} --root ${{SECRET_ROOT}}"}
    config = write_config(tmp_path, {"tree": [{"path": "/files", "source": source}]})
    offline = run_mcigen("check", config, "--offline")
    assert offline.returncode == 1
    assert "starting" not in offline.stderr
    assert not trace.exists()
    result = subprocess.run(
        [sys.executable, "-m", "mcigen", "check", str(config)],
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "SECRET_ROOT": "hunter2"},
    )
    assert result.returncode == 1
    assert result.stderr.splitlines()[0] == (
        f"mcigen: starting MCP server 'files' to list its tools: {command} --root "
        "${SECRET_ROOT}"
    )
    assert "hunter2" not in result.stderr
    assert trace.exists()
