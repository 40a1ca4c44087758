"""Golden output: every example rebuilds to exactly its committed package, which is
black-formatted, ruff-clean and mypy --strict clean."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, run_mcigen

EXAMPLES = sorted(
    p
    for p in (ROOT / "examples").iterdir()
    if re.search(r"\.mci\.(json|ya?ml)$", p.name)
)
GOLDEN = ROOT / "golden"


def _golden_dir(schema: Path) -> Path:
    return GOLDEN / re.sub(r"\.mci\.(json|ya?ml)$", "", schema.name)


def test_every_example_has_golden_output() -> None:
    assert len(EXAMPLES) >= 3
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(
        _golden_dir(s).name for s in EXAMPLES
    )


@pytest.mark.parametrize("schema", EXAMPLES, ids=lambda p: p.name)
def test_example_rebuilds_to_its_golden_output(schema: Path) -> None:
    result = run_mcigen(
        "build", schema, "-o", _golden_dir(schema), "--check", "--offline"
    )
    assert (
        result.returncode == 0
    ), f"golden is stale; run `make golden`\n{result.stdout}"
    assert result.stdout == ""


def _tool(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=GOLDEN,
        capture_output=True,
        text=True,
        check=False,
    )


def test_golden_output_passes_mypy_strict() -> None:
    packages = [_golden_dir(s).name for s in EXAMPLES]
    result = _tool("mypy", "--strict", "--cache-dir", "/dev/null", *packages)
    assert result.returncode == 0, result.stdout


def test_golden_output_passes_ruff() -> None:
    result = _tool(
        "ruff",
        "check",
        "--isolated",
        "--no-cache",
        "--select",
        "E,F,W,I,UP,B",
        "--ignore",
        "E501",
        ".",
    )
    assert result.returncode == 0, result.stdout


def test_golden_output_is_black_formatted() -> None:
    result = _tool("black", "--check", "--quiet", ".")
    assert result.returncode == 0, result.stderr


def test_a_package_carries_only_the_runtime_it_uses() -> None:
    def runtime(package: str) -> set[str]:
        return {p.stem for p in (GOLDEN / package / "_runtime").glob("*.py")}

    executors = {"cli_exec", "file_templates", "http_request", "http_exec", "mcp_exec"}
    assert runtime("greetings") & executors == set()
    assert "lookup" not in runtime("greetings")  # its templates need no lookups
    assert runtime("workspace") & executors == {"mcp_exec"}
    assert runtime("weather_api") & executors == {"http_request", "http_exec"}
    assert runtime("repo_tools") & executors == {"cli_exec"}
    assert runtime("runbooks") & executors == {"file_templates"}
