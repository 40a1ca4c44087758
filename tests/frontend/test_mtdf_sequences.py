"""Sequences in MTDF files (AHMA-SEMANTICS §8.6): each step resolved to the
listed tool it runs, or a located error."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from mcigen import ir
from mcigen.frontend.mtdf import mtdf_tools

from .test_mtdf_tools import AHMA

CARGO = {
    "name": "cargo",
    "description": "Rust's build tool",
    "command": "cargo",
    "subcommand": [
        {"name": "fmt", "description": "Format", "synchronous": True},
        {
            "name": "nextest",
            "description": "Nextest",
            "subcommand": [{"name": "run", "description": "Run tests"}],
        },
        {"name": "pr_create", "description": "A name with _"},
        {"name": "off", "description": "Disabled", "enabled": False},
    ],
}


def _write(folder: Path, *documents: dict[str, Any]) -> None:
    for document in documents:
        text = json.dumps(document, indent=2)
        (folder / f"{document['name']}.json").write_text(text, encoding="utf-8")


def _sequence_tool(*steps: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {
        "name": "check",
        "description": "Checks",
        "command": "sequence",
        "sequence": list(steps),
    } | fields


def test_ahmas_sequences_run_the_tools_ahma_lists() -> None:
    tools, _ = mtdf_tools(AHMA)
    sequences = {t.name: t.sequence for t in tools if t.sequence is not None}
    assert set(sequences) == {"cargo_diagnose", "cargo_qualitycheck"}
    quality = sequences["cargo_qualitycheck"]
    assert [(s.tool, s.label) for s in quality.steps] == [
        ("cargo_fmt", "cargo fmt"),
        ("cargo_clippy", "cargo clippy"),
        ("cargo_nextest_run", "cargo nextest_run"),
    ]
    assert quality.steps[1].args == {
        "fix": True,
        "tests": True,
        "allow-dirty": True,
        "workspace": True,
    }
    assert quality.step_delay_ms == 100
    assert quality.defaults == {"timeout_seconds": 1800}
    # Ahma gives a subcommand's steps the call's arguments only; we keep theirs
    diagnose = sequences["cargo_diagnose"].steps[0]
    assert diagnose.args == {"message-format": "short", "workspace": True}


def test_a_tool_level_sequence_runs_other_files_tools(tmp_path: Path) -> None:
    steps: list[dict[str, Any]] = [
        {"tool": "cargo", "subcommand": "fmt", "args": {"all": True}},
        {
            "tool": "cargo",
            "subcommand": "pr_create",
            "description": "Underscored",
            "skip_if_file_missing": "Cargo.toml",
        },
    ]
    _write(tmp_path, CARGO, _sequence_tool(*steps, step_delay_ms=5))
    tools, diagnostics = mtdf_tools(tmp_path)
    assert not diagnostics.items
    check = next(t for t in tools if t.name == "check")
    assert check.sequence == ir.SequenceExecution(
        steps=(
            ir.SequenceStep(
                "cargo_fmt",
                "cargo fmt",
                "Sequence step 'cargo' skipped due to environment override.",
                {"all": True},
            ),
            ir.SequenceStep(
                "cargo_pr_create",
                "cargo pr_create",
                "Sequence step 'cargo' (Underscored) skipped due to environment "
                "override.",
                {},
                skip_if_file_missing="Cargo.toml",
            ),
        ),
        step_delay_ms=5,
    )


def test_a_step_runs_ahmas_built_in_shell(tmp_path: Path) -> None:
    step = {
        "tool": "sandboxed_shell",
        "subcommand": "default",
        "args": {"command": "cargo fmt --check"},
    }
    _write(tmp_path, _sequence_tool(step))
    tools, diagnostics = mtdf_tools(tmp_path)
    assert not diagnostics.items
    assert [t.name for t in tools] == ["check"]
    check = tools[0].sequence
    assert check is not None
    assert check.steps == (
        ir.SequenceStep(
            "sandboxed_shell",
            "sandboxed_shell default",
            "Sequence step 'sandboxed_shell' skipped due to environment override.",
            {"command": "cargo fmt --check"},
        ),
    )


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            {"tool": "cargo", "subcommand": "off"},
            "error: this step runs subcommand 'off' of tool 'cargo', but no tool "
            "'cargo_off' is listed (a disabled or missing subcommand?)",
        ),
        (
            {"tool": "make", "subcommand": "all"},
            "error: this step runs subcommand 'all' of tool 'make', but no tool "
            "'make_all' is listed (a disabled or missing subcommand?)",
        ),
        (
            {"tool": "sandboxed_shell", "subcommand": "run"},
            "error: this step runs subcommand 'run' of tool 'sandboxed_shell', but "
            "no tool 'sandboxed_shell_run' is listed (a disabled or missing "
            "subcommand?)",
        ),
        (
            {"tool": "check", "subcommand": "default"},
            "error: this step runs 'check', itself a sequence; a step runs one command",
        ),
    ],
    ids=["disabled", "unknown tool", "built-in shell misspelt", "nested sequence"],
)
def test_row_100_a_step_that_runs_nothing_listed_is_located(
    tmp_path: Path, step: dict[str, Any], message: str
) -> None:
    _write(
        tmp_path, CARGO, _sequence_tool({"tool": "cargo", "subcommand": "fmt"}, step)
    )
    tools, diagnostics = mtdf_tools(tmp_path)
    assert tools == []
    text = (tmp_path / "check.json").read_text(encoding="utf-8")
    step_at = text.index(f'"tool": "{step["tool"]}"')
    value_at = text.index(
        f'"{step["subcommand"]}"', text.index('"subcommand"', step_at)
    )
    before = text[:value_at]
    where = f"{tmp_path / 'check.json'}:{before.count(chr(10)) + 1}:"
    where += str(len(before) - before.rfind(chr(10)))
    assert [str(d) for d in diagnostics.items] == [f"{where}: {message}"]
