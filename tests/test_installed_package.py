"""A project built with ``--project``, installed for real into a fresh virtual
environment that has no mcigen, with nothing but what its
pyproject.toml pulls from the package index. Built as it is by default (the
runtime vendored), it is installed from a wheel, with the schema, the files its
tools read and the project itself deleted first: its file tools read templates it
carries and its cli tool runs in the directory it carries, called from another
directory with no ``MCIGEN_BASE_DIR`` (which still overrides where they are
found). Built with ``--no-vendor-runtime``, it depends on the mcigen-runtime
library (a wheel of this repository's ``runtime/``, the one thing the index does
not have). In both, the package imports, its tools run, and ``python -m PKG
serve`` answers an MCP client.

One virtual environment per form, made once per session. The vendored project's
wheel is installed by pip, as its users would; the library form by uv (a fifth of
pip's CPU time), since what it checks is the dependency on the runtime, not the
installer."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from .conftest import ROOT, run_mcigen, schema_of, text_tool, write_schema
from .oracle import installer

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
        {
            "name": "report",
            "description": "A report rendered from a template next to the schema.",
            "inputSchema": {
                "type": "object",
                "properties": {"name": {"type": "string"}},
                "required": ["name"],
            },
            "execution": {"type": "file", "path": "templates/report.md"},
        },
        {
            "name": "note",
            "description": "Any note under notes/, by name.",
            "inputSchema": {
                "type": "object",
                "properties": {"file": {"type": "string"}},
                "required": ["file"],
            },
            "execution": {
                "type": "file",
                "path": "notes/{{props.file}}",
                "enableTemplating": False,
            },
        },
        {
            "name": "motd",
            "description": "A file read by a command in the directory it runs in.",
            "execution": {
                "type": "cli",
                "command": "cat",
                "args": ["motd.txt"],
                "cwd": "data",
            },
        },
    ),
    "metadata": {"name": "Installed Tools", "version": "2.0.1"},
}
INPUTS = {
    "templates/report.md": "Report for {{props.name}}.\n",
    "notes/first.txt": "the first note\n",
    "data/motd.txt": "message of the day\n",
}
"""The files next to the schema that its tools read."""


def write_input(directory: Path) -> Path:
    """The schema and the files its tools read, in ``directory``; the schema."""
    for name, text in INPUTS.items():
        (directory / name).parent.mkdir(parents=True, exist_ok=True)
        (directory / name).write_text(text, encoding="utf-8")
    return write_schema(directory, SCHEMA)


DISTRIBUTIONS = """
import importlib.metadata, json
print(json.dumps([d.metadata["Name"].lower() for d in importlib.metadata.distributions()]))
"""
CALLS = """
import json, sys
import installed_tools
print(json.dumps({
    "greet": installed_tools.greet(name="Ann").text,
    "shout": installed_tools.shout(word="hey").text,
    "error": installed_tools.shout(word="hey").isError,
    "report": installed_tools.report(name="Ann").text,
    "note": installed_tools.note(file="first.txt").text,
    "motd": installed_tools.motd().text,
}))
"""
CALLED = {
    "greet": "Hello, Ann!",
    "shout": "hey\n",
    "error": False,
    "report": "Report for Ann.\n",
    "note": "the first note\n",
    "motd": "message of the day\n",
}


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


def _built(tmp_path_factory: pytest.TempPathFactory, *options: str) -> Path:
    """The project built with ``options`` from the schema and its files in a
    directory of their own."""
    source = tmp_path_factory.mktemp("source")
    project = source / "installed-tools"
    built = run_mcigen(
        "build", write_input(source), "-o", project, "--project", *options
    )
    assert built.returncode == 0, built.stderr
    assert "warning" not in built.stderr, built.stderr
    return project


def _venv(
    tmp_path_factory: pytest.TempPathFactory, *install: str, pip: bool = True
) -> Path:
    """A fresh venv where ``pip install INSTALL`` (or uv's) ran; its python. The
    venv gets no pip of its own (ensurepip costs ~6 s of CPU): this environment's
    pip installs into it (``pip --python``)."""
    venv = tmp_path_factory.mktemp("installed") / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True
    )
    python = venv / "bin" / "python"
    command = (
        [sys.executable, *PIP, "--python", str(python), "install"]
        if pip
        else installer(python)
    )
    subprocess.run([*command, *install], check=True, cwd=venv)
    return python


@pytest.fixture(scope="session")
def library(tmp_path_factory: pytest.TempPathFactory, runtime_wheels: Path) -> Path:
    """``PROJECT[serve]`` installed, the runtime wheel the only extra source."""
    project = _built(tmp_path_factory, "--no-vendor-runtime")
    return _venv(
        tmp_path_factory,
        "--find-links",
        str(runtime_wheels),
        f"{project}[serve]",
        pip=False,
    )


@pytest.fixture(scope="session")
def vendored(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The default project's wheel, built offline (``pip wheel --no-deps``) and
    installed with its ``serve`` extra from the index alone, once the schema, its
    files and the project are gone."""
    project = _built(tmp_path_factory)
    wheels = tmp_path_factory.mktemp("project-wheel")
    subprocess.run(
        [sys.executable, *PIP, "wheel", "--no-deps", "-w", str(wheels), str(project)],
        check=True,
    )
    shutil.rmtree(project.parent)
    [wheel] = wheels.glob("*.whl")
    return _venv(tmp_path_factory, f"{wheel}[serve]")


def _environment(**extra: str) -> dict[str, str]:
    """The process's environment with no PYTHONPATH and no MCIGEN_BASE_DIR."""
    unset = ("PYTHONPATH", "MCIGEN_BASE_DIR")
    return {k: v for k, v in os.environ.items() if k not in unset} | extra


def _run(python: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """The venv's python in a directory of its own (so nothing local is imported),
    with no PYTHONPATH and no MCIGEN_BASE_DIR (unless ``env`` gives it)."""
    return subprocess.run(
        [str(python), *args],
        capture_output=True,
        text=True,
        cwd=python.parent,
        env=_environment(**env),
        check=False,
    )


def _distributions(python: Path) -> set[str]:
    listed = _run(python, "-c", DISTRIBUTIONS)
    assert listed.returncode == 0, listed.stderr
    return set(json.loads(listed.stdout))


def _calls_work(python: Path) -> None:
    called = _run(python, "-c", CALLS)
    assert called.returncode == 0, called.stderr
    assert json.loads(called.stdout) == CALLED


def _serves(python: Path) -> None:
    """``python -m installed_tools serve`` over stdio, started by the SDK's client."""
    params = StdioServerParameters(
        command=str(python),
        args=["-m", "installed_tools", "serve"],
        cwd=str(python.parent),
        env=_environment(),
    )

    async def session() -> tuple[list[str], Any, Any, Any]:
        with anyio.fail_after(30):
            async with (
                stdio_client(params) as (read, write),
                ClientSession(read, write) as client,
            ):
                await client.initialize()
                listed = await client.list_tools()
                greeted = await client.call_tool("greet", {"name": "MCP"})
                shouted = await client.call_tool("shout", {"word": "loud"})
                reported = await client.call_tool("report", {"name": "MCP"})
                return [tool.name for tool in listed.tools], greeted, shouted, reported

    names, greeted, shouted, reported = anyio.run(session)
    assert sorted(names) == ["greet", "motd", "note", "report", "shout"]
    assert not greeted.is_error and greeted.content[0].text == "Hello, MCP!"
    assert not shouted.is_error and shouted.content[0].text == "loud\n"
    assert not reported.is_error and reported.content[0].text == "Report for MCP.\n"


def test_the_project_installs_with_the_runtime_library(library: Path) -> None:
    installed = _distributions(library)
    assert {"installed-tools", "mcigen-runtime", "mcp", "pydantic"} <= installed
    assert "mcigen" not in installed
    _calls_work(library)


def test_the_installed_project_serves_over_mcp(library: Path) -> None:
    _serves(library)


def test_the_project_installs_from_its_wheel_with_the_index_alone(
    vendored: Path,
) -> None:
    """Its file and cli tools read what the project carries, called from a
    directory of their own with no MCIGEN_BASE_DIR."""
    installed = _distributions(vendored)
    assert {"installed-tools", "mcp", "pydantic"} <= installed
    assert not {"mcigen", "mcigen-runtime"} & installed
    missing = _run(vendored, "-c", "import mcigen_runtime")
    assert missing.returncode == 1
    assert "No module named 'mcigen_runtime'" in missing.stderr
    _calls_work(vendored)


def test_the_vendored_project_serves_over_mcp(vendored: Path) -> None:
    _serves(vendored)


def test_the_installed_projects_client_config_is_keyed_as_its_readme(
    vendored: Path,
) -> None:
    """By the distribution's name, as the README (tests/test_project.py) keys
    it; a package built with ``-o DIR`` has none and is keyed by its import name
    (tests/test_environment.py)."""
    printed = _run(vendored, "-m", "installed_tools", "config")
    assert printed.returncode == 0, printed.stderr
    servers = json.loads(printed.stdout)["mcpServers"]
    assert list(servers) == ["installed-tools"]
    assert servers["installed-tools"]["args"] == ["-m", "installed_tools", "serve"]


def test_the_installed_project_reads_where_mcigen_base_dir_says(
    vendored: Path, tmp_path: Path
) -> None:
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "report.md").write_text("Other report: {{props.name}}")
    called = _run(
        vendored,
        "-c",
        "import installed_tools; print(installed_tools.report(name='Bo').text)",
        MCIGEN_BASE_DIR=str(tmp_path),
    )
    assert called.returncode == 0, called.stderr
    assert called.stdout == "Other report: Bo\n"
