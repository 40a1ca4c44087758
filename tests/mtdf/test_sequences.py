"""Sequences built from MTDF files (AHMA-SEMANTICS §8.6) and run for real: steps
in order in the call's working directory, each with its own arguments over the
call's, skips, and the first failure stops the rest."""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.results import ToolResult

from .conftest import build_folder
from .support import call

FILES: dict[str, dict[str, Any]] = {
    "fs": {
        "name": "fs",
        "description": "Files",
        "command": "touch",
        "synchronous": True,
        "subcommand": [
            {
                "name": "default",
                "description": "Create a file",
                "positional_args": [
                    {"name": "file", "type": "string", "required": True}
                ],
            }
        ],
    },
    "fail": {
        "name": "fail",
        "description": "Fails",
        "command": "false",
        "synchronous": True,
        "subcommand": [{"name": "default", "description": "Exit 1"}],
    },
    "steps": {
        "name": "steps",
        "description": "Makes a.txt, fails, then would make b.txt",
        "command": "sequence",
        "synchronous": True,
        "step_delay_ms": 1,
        "sequence": [
            {"tool": "fs", "subcommand": "default", "args": {"file": "a.txt"}},
            {
                "tool": "fs",
                "subcommand": "default",
                "description": "Only once",
                "args": {"file": "marker.txt"},
                "skip_if_file_exists": "marker.txt",
            },
            {"tool": "fail", "subcommand": "default"},
            {"tool": "fs", "subcommand": "default", "args": {"file": "b.txt"}},
        ],
    },
    "tidy": {
        "name": "tidy",
        "description": "A subcommand's sequence",
        "command": "touch",
        "synchronous": True,
        "subcommand": [
            {
                "name": "make",
                "description": "Create a file",
                "positional_args": [{"name": "file", "type": "string"}],
            },
            {
                "name": "both",
                "description": "Skip, then make",
                "sequence": [
                    {
                        "tool": "tidy",
                        "subcommand": "make",
                        "skip_if_file_missing": "absent.txt",
                    },
                    {"tool": "tidy", "subcommand": "make", "description": ""},
                ],
            },
        ],
    },
    "shout": {
        "name": "shout",
        "description": "Runs a pipeline in Ahma's built-in shell",
        "command": "sequence",
        "synchronous": True,
        "sequence": [
            {
                "tool": "sandboxed_shell",
                "subcommand": "default",
                "args": {"command": "echo hi | tr a-z A-Z > loud.txt; cat loud.txt"},
            }
        ],
    },
    "markers": {
        "name": "markers",
        "description": "Ahma's marker_sequence: a marker, a failure, a marker",
        "command": "sequence",
        "synchronous": True,
        "step_delay_ms": 50,
        "sequence": [
            {
                "tool": "sandboxed_shell",
                "subcommand": "default",
                "description": "Step 1: create first marker",
                "args": {"command": "touch step1_marker"},
            },
            {"tool": "fail", "subcommand": "default", "description": "Step 2: fail"},
            {
                "tool": "sandboxed_shell",
                "subcommand": "default",
                "description": "Step 3: should NOT create this marker",
                "args": {"command": "touch step3_marker"},
            },
        ],
    },
    "good": {
        "name": "good",
        "description": "Makes the file the call names, then c.txt",
        "command": "sequence",
        "synchronous": True,
        "step_delay_ms": 1,
        "sequence": [
            {"tool": "fs", "subcommand": "default"},
            {"tool": "fs", "subcommand": "default", "args": {"file": "c.txt"}},
        ],
    },
}
FAILED = (
    "Sequence failed at step 3:\n\n"
    "OK Step 1 completed: fs default\n(no output)\n\n"
    "Sequence step 'fs' (Only once) skipped due to environment override."
    "\n\n✗ Step 3 FAILED: fail default\n"
    "Error: Command failed with exit code 1: stderr: , stdout: "
)


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    folder = tmp_path_factory.mktemp("tools")
    for name, document in FILES.items():
        (folder / f"{name}.json").write_text(json.dumps(document), encoding="utf-8")
    for name in build_folder(folder, tmp_path_factory.mktemp("build") / "seqpkg"):
        yield sys.modules[name]


@pytest.fixture(autouse=True)
def _sandbox_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The current directory: the sandbox root the calls' working directories
    must lie in."""
    monkeypatch.chdir(tmp_path)


def test_row_99_steps_run_in_order_until_the_first_failure(
    package: Any, tmp_path: Path
) -> None:
    (tmp_path / "marker.txt").write_text("")
    result = package.steps(working_directory=str(tmp_path))
    assert (result.isError, result.text) == (True, FAILED)
    assert result.metadata == {"failedStep": 3}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.txt", "marker.txt"]


def test_the_async_twin_gives_the_same_result(package: Any, tmp_path: Path) -> None:
    (tmp_path / "marker.txt").write_text("")
    result = asyncio.run(package.steps_async(working_directory=str(tmp_path)))
    assert (result.isError, result.text) == (True, FAILED)


def test_steps_get_the_calls_arguments_under_their_own(
    package: Any, tmp_path: Path
) -> None:
    """``good`` declares only working_directory; a call by name may pass more,
    and its first step, which sets no ``file``, takes the call's."""
    result = call(
        package.__name__, "good", working_directory=str(tmp_path), file="given.txt"
    )
    assert (result.isError, result.text) == (
        False,
        "All 2 sequence steps completed successfully:\n\n"
        "OK Step 1 completed: fs default\n(no output)\n\n"
        "OK Step 2 completed: fs default\n(no output)",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.txt", "given.txt"]


def test_a_step_runs_ahmas_built_in_shell(package: Any, tmp_path: Path) -> None:
    result = package.shout(working_directory=str(tmp_path))
    assert (result.isError, result.text) == (
        False,
        "All 1 sequence steps completed successfully:\n\n"
        "OK Step 1 completed: sandboxed_shell default\nHI\n",
    )
    assert (tmp_path / "loud.txt").read_text() == "HI\n"


def test_ahmas_marker_sequence_stops_after_the_failing_step(
    package: Any, tmp_path: Path
) -> None:
    """What Ahma's ``sequence_failure_edge_cases_test.rs`` asserts of its
    ``marker_sequence``, called with no arguments in the sandbox scope: step 1's
    marker exists (``step1_ran``), step 3's does not."""
    result = package.markers()
    assert (result.isError, result.metadata) == (True, {"failedStep": 2})
    assert (tmp_path / "step1_marker").exists()
    assert not (tmp_path / "step3_marker").exists()


def test_the_built_in_shell_is_a_tool_of_every_package(
    package: Any, tmp_path: Path
) -> None:
    result = call(package.__name__, "sandboxed_shell", command="pwd; exit 4")
    assert (result.isError, result.text) == (
        True,
        f"Command failed with exit code 4: stderr: , stdout: {tmp_path}\n",
    )


def test_ahmas_qualitycheck_runs_its_three_cargo_steps(
    ahma: str, workspace: Path
) -> None:
    steps, argvs = _steps_run(call(ahma, "cargo_qualitycheck"))
    assert steps == [
        "OK Step 1 completed: cargo fmt",
        "OK Step 2 completed: cargo clippy",
        "OK Step 3 completed: cargo nextest_run",
    ]
    assert argvs == [
        ["cargo", "fmt", "--all"],
        ["cargo", "clippy", "--allow-dirty", "--fix", "--tests", "--workspace"],
        ["cargo", "nextest", "run", "--workspace"],
    ]


def test_row_98_a_subcommand_sequence_gives_its_steps_their_own_arguments(
    ahma: str, workspace: Path
) -> None:
    _, argvs = _steps_run(call(ahma, "cargo_diagnose"))
    assert argvs == [["cargo", "check", "--message-format", "short", "--workspace"]]


def _steps_run(result: ToolResult) -> tuple[list[str], list[list[str]]]:
    """A successful sequence's step lines, and the argv each stub printed."""
    assert not result.isError, result.text
    lines = result.text.splitlines()
    steps = [line for line in lines if line.startswith("OK Step")]
    return steps, [json.loads(line)["argv"] for line in lines if line.startswith("{")]


def test_skip_lines_are_ahmas_for_either_kind_of_sequence(
    package: Any, tmp_path: Path
) -> None:
    """Ahma's ``format_step_skipped_message``: a tool-level step is named by its
    tool, a subcommand's sequence's by its subcommand, and no brackets without a
    description (its ``sequence.rs`` unit tests)."""
    (tmp_path / "marker.txt").write_text("")
    assert package.steps(working_directory=str(tmp_path)).text.splitlines()[5] == (
        "Sequence step 'fs' (Only once) skipped due to environment override."
    )
    result = call(
        package.__name__, "tidy_both", working_directory=str(tmp_path), file="x"
    )
    assert (result.isError, result.text) == (
        False,
        "All 2 sequence steps completed successfully:\n\n"
        "Subcommand sequence step 'make' skipped due to environment override.\n\n"
        "OK Step 2 completed: tidy make\n(no output)",
    )


ECHO = {
    "name": "say",
    "description": "Echo",
    "command": "echo",
    "timeout_seconds": 10,
    "synchronous": True,
    "subcommand": [{"name": "default", "description": "echo"}],
}


def _skipping(skip: dict[str, str]) -> dict[str, Any]:
    """A sequence of three ``say`` steps, the second skipped by ``skip``."""
    steps = [
        {"tool": "say", "subcommand": "default", "args": {"message": f"step{i}_ran"}}
        for i in (1, 2, 3)
    ]
    steps[1] |= skip | {"description": "The skipped one"}
    return {
        "name": "skipping",
        "description": "Three steps, the second skipped",
        "command": "sequence",
        "timeout_seconds": 30,
        "synchronous": True,
        "sequence": steps,
    }


@pytest.mark.parametrize(
    "skip",
    [{"skip_if_file_exists": "here.txt"}, {"skip_if_file_missing": "absent.txt"}],
    ids=["file exists", "file missing"],
)
def test_ahmas_skip_expectations(
    skip: dict[str, str], tmp_path: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """What Ahma's ``sequence_integration_coverage_test.rs`` asserts of a
    synchronous sequence whose middle step is skipped, in the call's working
    directory: steps 1 and 3 run, step 2 is reported skipped and does not run."""
    folder = tmp_path_factory.mktemp("skipping") / ".ahma"
    folder.mkdir()
    (folder / "say.json").write_text(json.dumps(ECHO))
    (folder / "skipping.json").write_text(json.dumps(_skipping(skip)))
    (tmp_path / "here.txt").write_text("")
    out = tmp_path_factory.mktemp("built") / "skippkg"
    for name in build_folder(folder, out):
        result = call(name, "skipping", working_directory=str(tmp_path))
    assert not result.isError, result.text
    assert "Step 1" in result.text and "Step 3" in result.text
    assert "skipped" in result.text
    assert "step2_should_not_run" not in result.text and "Step 2" not in result.text
