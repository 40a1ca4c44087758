"""Golden output: every example rebuilds to exactly its committed package, which is
black-formatted, ruff-clean and mypy --strict clean. ``golden/<example>/`` holds the
generated code only (it imports mcigen_runtime); ``golden/vendored/`` one package built
with ``--vendor-runtime``, ``golden/project/`` one built with ``--project`` (which
vendors the runtime too): both without the runtime they carry (the list of the
runtime's files each copies stands beside it)."""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from .conftest import ROOT, MypyStrict, run_mcigen

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
VENDORED_RUNTIME = GOLDEN / "vendored" / "greetings.runtime.txt"
RUNTIME_DIR = ROOT / "runtime" / "mcigen_runtime"
PROJECT = GOLDEN / "project" / "weather-api"
PROJECT_RUNTIME = GOLDEN / "project" / "weather-api.runtime.txt"
OTHER_FORMS = ("project", "vendored")


def _golden_dir(schema: Path) -> Path:
    return GOLDEN / re.sub(r"(\.mci)?\.(json|ya?ml)$", "", schema.name)


def test_every_example_has_golden_output() -> None:
    assert len(EXAMPLES) >= 3
    assert sorted(p.name for p in GOLDEN.iterdir()) == sorted(
        [_golden_dir(s).name for s in EXAMPLES] + list(OTHER_FORMS)
    )


CASES = [(schema, _golden_dir(schema), ()) for schema in EXAMPLES]
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


VENDORED_FORMS = [
    (VENDORED, "greetings.mci.yaml", "--vendor-runtime", VENDORED_RUNTIME, ""),
    (PROJECT, "weather_api.mci.yaml", "--project", PROJECT_RUNTIME, "weather_api/"),
]
"""Golden directory, example, option, list of the runtime's files, and where the
package lies in the output."""


@pytest.mark.parametrize(
    ("golden", "example", "option", "runtime_list", "package"),
    VENDORED_FORMS,
    ids=["vendored", "project"],
)
def test_a_vendored_example_is_its_golden_output_around_a_copy_of_the_runtime(
    golden: Path,
    example: str,
    option: str,
    runtime_list: Path,
    package: str,
    mypy_strict: MypyStrict,
) -> None:
    # built as deep in the checkout as golden is: the manifest names the schema
    # by its way from the package
    (ROOT / "build").mkdir(exist_ok=True)
    with tempfile.TemporaryDirectory(dir=ROOT / "build") as scratch:
        out = Path(scratch, golden.name)
        schema = ROOT / "examples" / example
        result = run_mcigen("build", schema, "-o", out, option, "--offline")
        assert result.returncode == 0, result.stderr
        built = _files(out)
        runtime = sorted(
            path.removeprefix(package)
            for path in built
            if path.startswith(f"{package}_runtime/")
        )
        generated = {
            path: data
            for path, data in built.items()
            if path.removeprefix(package) not in runtime
        }
        assert generated == _files(golden), "golden is stale; run `make golden`"
        assert runtime_list.read_text(encoding="utf-8").split() == runtime
        for path in runtime:
            original = RUNTIME_DIR / path.removeprefix("_runtime/")
            assert built[package + path] == original.read_bytes(), path
        where = out.parent if not package else out
        checked = mypy_strict(package.rstrip("/") or out.name, cwd=where)
        assert checked.returncode == 0, checked.stdout


def _files(directory: Path) -> dict[str, bytes]:
    return {
        path.relative_to(directory).as_posix(): path.read_bytes()
        for path in directory.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    }


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


def test_golden_output_passes_mypy_strict(mypy_strict: MypyStrict) -> None:
    packages = [_golden_dir(s).name for s in EXAMPLES]
    result = mypy_strict(*packages, cwd=GOLDEN)
    assert result.returncode == 0, result.stdout


def test_golden_output_passes_ruff() -> None:
    ours = ("--select", "E,F,W,I,UP,B", "--ignore", "E501")
    for rules in (ours, ()):  # ours, and ruff's own default rule set
        result = _tool("ruff", "check", "--isolated", "--no-cache", *rules, ".")
        assert result.returncode == 0, result.stdout


def test_golden_output_is_black_formatted() -> None:
    result = _tool("black", "--check", "--quiet", ".")
    assert result.returncode == 0, result.stderr


_EXECUTORS = {
    "executors/cli/run.py",
    "executors/file/contents.py",
    "executors/http/transport.py",
    "executors/mcp/calls.py",
}
"""The executors of each kind, whose dependencies (httpx, the MCP SDK) or size a
package without tools of that kind has no use for."""


@pytest.mark.parametrize(
    ("example", "executors"),
    [
        ("greetings.mci.yaml", set()),
        ("workspace.mci.yaml", {"executors/mcp/calls.py"}),
        ("weather_api.mci.yaml", {"executors/http/transport.py"}),
        ("repo_tools.mci.json", {"executors/cli/run.py"}),
        ("runbooks.mci.json", {"executors/file/contents.py"}),
    ],
)
def test_a_vendored_package_carries_only_the_runtime_it_uses(
    tmp_path: Path, example: str, executors: set[str]
) -> None:
    schema = ROOT / "examples" / example
    out = tmp_path / "pkg"
    result = run_mcigen("build", schema, "-o", out, "--vendor-runtime", "--offline")
    assert result.returncode == 0, result.stderr
    runtime = {
        p.relative_to(out / "_runtime").as_posix()
        for p in (out / "_runtime").rglob("*.py")
    }
    assert runtime & _EXECUTORS == executors
    if example.startswith("greetings"):
        assert "templating/lookup.py" not in runtime  # its templates need no lookups
