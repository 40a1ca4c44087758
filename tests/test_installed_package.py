"""A project built with ``--project``, installed for real: pip installs it into a
fresh virtual environment that has no mcigen, with nothing but what its
pyproject.toml pulls (from the package index; the runtime from a wheel of this
repository's ``runtime/``, the one thing the index does not have). There the
package imports, its text and cli tools run, and ``python -m PKG serve`` answers
an MCP client. The same with ``--vendor-runtime``, where no mcigen-runtime is
installed at all.

One virtual environment per form, made once per session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from .conftest import ROOT, run_mcigen, schema_of, text_tool, write_schema

PIP = ("-m", "pip", "--disable-pip-version-check", "-q")

SCHEMA = {
    **schema_of(
        text_tool(
            "greet",
            "Hello, {{props.name}}!",
            description="Greet someone.",
            inputSchema={
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
        ),
        {
            "name": "shout",
            "description": "Echo a word back through a real process.",
            "inputSchema": {
                "type": "object",
                "properties": {"word": {"type": "string"}},
                "required": ["word"],
            },
            "execution": {"type": "cli", "command": "echo", "args": ["{{props.word}}"]},
        },
    ),
    "metadata": {"name": "Installed Tools", "version": "2.0.1"},
}

CALLS = """
import json, sys
import installed_tools
print(json.dumps({
    "greet": installed_tools.greet(name="Ann").text,
    "shout": installed_tools.shout(word="hey").text,
    "error": installed_tools.shout(word="hey").isError,
}))
"""


@pytest.fixture(scope="session")
def runtime_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A wheel of this repository's ``runtime/``, the only place it comes from."""
    wheels = tmp_path_factory.mktemp("runtime-wheel")
    subprocess.run(
        [sys.executable, *PIP, "wheel", "--no-deps", "--no-build-isolation"]
        + ["-w", str(wheels), str(ROOT / "runtime")],
        check=True,
    )
    return wheels


def _install(
    tmp_path_factory: pytest.TempPathFactory, wheels: Path, *options: str
) -> Path:
    """Build the project with ``options``, make a fresh venv, ``pip install
    'PROJECT[serve]'`` there, with the runtime wheel the only extra source; the
    venv's python."""
    work = tmp_path_factory.mktemp("installed")
    schema = write_schema(work, SCHEMA)
    project = work / "installed-tools"
    built = run_mcigen("build", schema, "-o", project, "--project", *options)
    assert built.returncode == 0, built.stderr
    venv = work / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run(
        [str(python), *PIP, "install", "--find-links", str(wheels)]
        + [f"{project}[serve]"],
        check=True,
        cwd=work,
    )
    return python


@pytest.fixture(scope="session")
def library(tmp_path_factory: pytest.TempPathFactory, runtime_wheels: Path) -> Path:
    return _install(tmp_path_factory, runtime_wheels)


@pytest.fixture(scope="session")
def vendored(tmp_path_factory: pytest.TempPathFactory, runtime_wheels: Path) -> Path:
    return _install(tmp_path_factory, runtime_wheels, "--vendor-runtime")


def _run(python: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The venv's python in a directory of its own (so nothing local is imported),
    with no PYTHONPATH."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [str(python), *args],
        capture_output=True,
        text=True,
        cwd=python.parent,
        env=env,
        check=False,
    )


def _distributions(python: Path) -> set[str]:
    listed = _run(python, "-m", "pip", "list", "--format", "json")
    assert listed.returncode == 0, listed.stderr
    return {entry["name"].lower() for entry in json.loads(listed.stdout)}


def _calls_work(python: Path) -> None:
    called = _run(python, "-c", CALLS)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == {
        "greet": "Hello, Ann!",
        "shout": "hey\n",
        "error": False,
    }


def _serves(python: Path) -> None:
    """``python -m installed_tools serve`` over stdio, started by the SDK's client."""
    params = StdioServerParameters(
        command=str(python),
        args=["-m", "installed_tools", "serve"],
        cwd=str(python.parent),
        env={k: v for k, v in os.environ.items() if k != "PYTHONPATH"},
    )

    async def session() -> tuple[list[str], Any, Any]:
        with anyio.fail_after(30):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                listed = await client.list_tools()
                greeted = await client.call_tool("greet", {"name": "MCP"})
                shouted = await client.call_tool("shout", {"word": "loud"})
                return [tool.name for tool in listed.tools], greeted, shouted

    names, greeted, shouted = anyio.run(session)
    assert sorted(names) == ["greet", "shout"]
    assert not greeted.is_error and greeted.content[0].text == "Hello, MCP!"
    assert not shouted.is_error and shouted.content[0].text == "loud\n"


def test_the_project_installs_with_the_runtime_library(library: Path) -> None:
    installed = _distributions(library)
    assert {"installed-tools", "mcigen-runtime", "mcp", "pydantic"} <= installed
    assert "mcigen" not in installed
    _calls_work(library)


def test_the_installed_project_serves_over_mcp(library: Path) -> None:
    _serves(library)


def test_the_vendored_project_needs_no_runtime_library(vendored: Path) -> None:
    installed = _distributions(vendored)
    assert {"installed-tools", "mcp", "pydantic"} <= installed
    assert not {"mcigen", "mcigen-runtime"} & installed
    missing = _run(vendored, "-c", "import mcigen_runtime")
    assert missing.returncode == 1
    assert "No module named 'mcigen_runtime'" in missing.stderr
    _calls_work(vendored)


def test_the_vendored_project_serves_over_mcp(vendored: Path) -> None:
    _serves(vendored)
