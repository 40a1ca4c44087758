"""Golden output: every example rebuilds to exactly its committed package, which is
black-formatted, ruff-clean and mypy --strict clean. ``golden/<example>/`` holds the
generated code only (it imports mcigen_runtime); ``golden/vendored/`` one package built
with ``--vendor-runtime``, ``golden/project/`` one built with ``--project``."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import ROOT, run_mcigen

EXAMPLES = sorted(
    [
        *(
            p
            for p in (ROOT / "examples").iterdir()
            if re.search(r"\.mci\.(json|ya?ml)$", p.name)
        ),
        ROOT / "examples" / "ahma",  # MTDF tool files
        ROOT / "examples" / "broker" / "broker.json",  # a pyMCPBroker config
    ]
)
GOLDEN = ROOT / "golden"
VENDORED = GOLDEN / "vendored" / "greetings"
PROJECT = GOLDEN / "project" / "weather-api"
OTHER_FORMS = ("project", "vendored")


def _golden_dir(schema: Path) -> Path:
    return GOLDEN / re.sub(r"(\.mci)?\.(json|ya?ml)$", "", schema.name)


def test_every_example_has_golden_output() -> None:
    assert len(EXAMPLES) >= 3
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(
        [_golden_dir(s).name for s in EXAMPLES] + list(OTHER_FORMS)
    )


CASES = [
    *((schema, _golden_dir(schema), ()) for schema in EXAMPLES),
    (ROOT / "examples" / "greetings.mci.yaml", VENDORED, ("--vendor-runtime",)),
    (ROOT / "examples" / "weather_api.mci.yaml", PROJECT, ("--project",)),
]
"""Schema, golden directory, build options: ``make golden`` writes the same."""


@pytest.mark.parametrize(
    ("schema", "golden", "options"),
    CASES,
    ids=[golden.relative_to(GOLDEN).as_posix() for _, golden, _ in CASES],
)
def test_example_rebuilds_to_its_golden_output(
    schema: Path, golden: Path, options: tuple[str, ...]
) -> None:
    result = run_mcigen("build", schema, "-o", golden, *options, "--check", "--offline")
    assert (
        result.returncode == 0
    ), f"golden is stale; run `make golden`\n{result.stdout}"
    assert result.stdout == ""


def test_the_project_example_holds_a_project_around_its_package() -> None:
    assert (PROJECT / "pyproject.toml").is_file()
    assert (PROJECT / "README.md").is_file()
    assert (PROJECT / "weather_api" / "__init__.py").is_file()


def test_golden_packages_hold_generated_code_only() -> None:
    for schema in EXAMPLES:
        package = _golden_dir(schema)
        assert not (package / "_runtime").exists(), package.name
        init = (package / "__init__.py").read_text(encoding="utf-8")
        assert "require_runtime(" in init, package.name


def _tool(*args: str, cwd: Path = GOLDEN) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )


def test_golden_output_passes_mypy_strict() -> None:
    packages = [_golden_dir(s).name for s in EXAMPLES]
    result = _tool("mypy", "--strict", "--cache-dir", "/dev/null", *packages)
    assert result.returncode == 0, result.stdout
    vendored = _tool(
        "mypy",
        "--strict",
        "--cache-dir",
        "/dev/null",
        VENDORED.name,
        cwd=VENDORED.parent,
    )
    assert vendored.returncode == 0, vendored.stdout
    project = _tool(
        "mypy", "--strict", "--cache-dir", "/dev/null", "weather_api", cwd=PROJECT
    )
    assert project.returncode == 0, project.stdout


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


_EXECUTORS = {"cli_exec", "file_templates", "http_request", "http_exec", "mcp_exec"}


@pytest.mark.parametrize(
    ("example", "executors"),
    [
        ("greetings.mci.yaml", set()),
        ("workspace.mci.yaml", {"mcp_exec"}),
        ("weather_api.mci.yaml", {"http_request", "http_exec"}),
        ("repo_tools.mci.json", {"cli_exec"}),
        ("runbooks.mci.json", {"file_templates"}),
    ],
)
def test_a_vendored_package_carries_only_the_runtime_it_uses(
    tmp_path: Path, example: str, executors: set[str]
) -> None:
    schema = ROOT / "examples" / example
    out = tmp_path / "pkg"
    result = run_mcigen("build", schema, "-o", out, "--vendor-runtime", "--offline")
    assert result.returncode == 0, result.stderr
    runtime = {p.stem for p in (out / "_runtime").glob("*.py")}
    assert runtime & _EXECUTORS == executors
    if example.startswith("greetings"):
        assert "lookup" not in runtime  # its templates need no lookups
