"""``python -m PKG call --dry-run`` and ``describe TOOL INPUT``: what a cli or MTDF
tool would run, and where, with nothing run."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, run_mcigen, schema_of, text_tool, write_schema

MCI = schema_of(
    {
        "name": "stamp",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}},
            "required": ["name"],
        },
        "execution": {
            "type": "cli",
            "command": "touch",
            "args": ["-c", "{{props.name}}"],
            "cwd": "work",
        },
    },
    text_tool("plain", "text"),
)


def _run(directory: Path, package: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", package, *args],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("dry")
    (directory / "work").mkdir()
    schema = write_schema(directory, MCI)
    assert run_mcigen("build", schema, "-o", directory / "mcipkg").returncode == 0
    shutil.copytree(ROOT / "examples" / "ahma", directory / "ahma")
    made = run_mcigen("build", directory / "ahma", "-o", directory / "ahmapkg")
    assert made.returncode == 0, made.stderr
    return directory


def test_a_dry_run_says_the_command_line_and_directory_and_runs_nothing(
    built: Path,
) -> None:
    said = _run(built, "mcipkg", "call", "stamp", "--arg", "name=new file", "--dry-run")
    assert (said.returncode, said.stdout) == (
        0,
        f"in {built / 'work'}: touch -c 'new file'\n",
    )
    raw = _run(
        built, "mcipkg", "call", "stamp", "--arg", "name=x", "--dry-run", "--raw"
    )
    assert json.loads(raw.stdout)["metadata"] == {
        "dry_run": True,
        "argv": ["touch", "-c", "x"],
        "cwd": str(built / "work"),
        "timeout_s": 30.0,
    }
    ahma = _run(built, "ahmapkg", "call", "repo_status", "--dry-run")
    assert (ahma.returncode, ahma.stdout) == (0, f"in {built}: git status\n")


def test_a_dry_run_refuses_what_the_call_would_refuse(built: Path) -> None:
    refused = _run(built, "mcipkg", "call", "stamp", "--arg", "name=-r", "--dry-run")
    assert refused.returncode == 1
    assert refused.stdout.startswith("Refused: 'name' is '-r', which starts with '-'")
    other = _run(built, "mcipkg", "call", "plain", "--dry-run")
    assert (other.returncode, other.stderr) == (
        2,
        "error: --dry-run: 'plain' is a text tool; only cli and MTDF tools run a "
        "command to show\n",
    )


def test_describe_given_input_shows_what_would_run(built: Path) -> None:
    described = _run(built, "mcipkg", "describe", "stamp", "--arg", "name=a")
    assert described.returncode == 0, described.stderr
    assert described.stdout.endswith(f"\nWould run:\nin {built / 'work'}: touch -c a\n")
    plain = _run(built, "mcipkg", "describe", "stamp")
    assert "Would run" not in plain.stdout
