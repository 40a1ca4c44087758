"""A folder with a tool file that does not load (issue 30 item 6): ``build`` and
``check`` refuse it, ``--skip-invalid`` leaves that file out and builds the rest,
as Ahma's loader serves the rest, and ``serve FOLDER`` does so by itself; each
skipped file's problems are warnings at their file:line:column."""

from __future__ import annotations

import json
from pathlib import Path

from ..conftest import run_mcigen

GOOD = {
    "name": "hello",
    "description": "Say hello",
    "command": "echo hello",
    "synchronous": True,
    "subcommand": [{"name": "default", "description": "Say hello"}],
}
BAD_HINTS = """{
  "name": "old",
  "description": "A tool of Ahma's older format",
  "command": "echo",
  "hints": {"doc": "x"}
}
"""
CHAIN = {
    "name": "chain",
    "description": "Run old's default",
    "command": "sequence",
    "synchronous": True,
    "sequence": [{"tool": "old", "subcommand": "default"}],
}


def _folder(tmp_path: Path, **files: object) -> Path:
    folder = tmp_path / ".ahma"
    folder.mkdir()
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (folder / f"{name}.json").write_text(text, encoding="utf-8")
    return folder


def test_build_refuses_a_folder_with_a_bad_file_and_skip_invalid_builds_the_rest(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, good=GOOD, old=BAD_HINTS)
    out = tmp_path / "pkg"
    refused = run_mcigen("build", folder, "-o", out)
    assert refused.returncode == 1
    assert f"{folder / 'old.json'}:5:13: error: unknown field 'doc' in hints" in (
        refused.stderr
    )
    assert not out.exists()

    built = run_mcigen("build", folder, "-o", out, "--skip-invalid")
    assert built.returncode == 0, built.stderr
    assert built.stderr.splitlines() == [
        f"{folder}:1:1: warning: tool files skipped, as they do not load: 1 of 2 "
        "(their problems are the warnings here)",
        f"{folder / 'old.json'}:5:13: warning: unknown field 'doc' in hints",
        "0 errors, 2 warnings",
    ]
    listed = run_mcigen("serve", folder, "-o", out, "--skip-invalid", "--", "list")
    assert listed.returncode == 0, listed.stderr
    assert "hello" in listed.stdout and "old" not in listed.stdout


def test_check_with_skip_invalid_agrees_with_build(tmp_path: Path) -> None:
    folder = _folder(tmp_path, good=GOOD, old=BAD_HINTS)
    assert run_mcigen("check", folder).returncode == 1
    checked = run_mcigen("check", folder, "--skip-invalid")
    assert checked.returncode == 0, checked.stderr
    assert checked.stderr.splitlines()[-1] == "0 errors, 2 warnings"


def test_a_sequence_running_a_skipped_tool_is_skipped_too(tmp_path: Path) -> None:
    folder = _folder(tmp_path, good=GOOD, old=BAD_HINTS, chain=CHAIN)
    result = run_mcigen("check", folder, "--skip-invalid")
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[0].startswith(
        f"{folder}:1:1: warning: tool files skipped, as they do not load: 2 of 3 "
    )
    assert any(
        line.startswith(f"{folder / 'chain.json'}:")
        and "warning: this step runs subcommand 'default' of tool 'old'" in line
        for line in lines
    ), lines


def test_nothing_left_is_an_error(tmp_path: Path) -> None:
    folder = _folder(tmp_path, old=BAD_HINTS)
    result = run_mcigen("build", folder, "-o", tmp_path / "pkg", "--skip-invalid")
    assert result.returncode == 1
    assert f"{folder}:1:1: error: none of the 1 tool files loads" in result.stderr


def test_serving_a_folder_skips_what_does_not_load_and_says_why(
    tmp_path: Path,
) -> None:
    folder = _folder(tmp_path, good=GOOD, old=BAD_HINTS)
    listed = run_mcigen("serve", folder, "-o", tmp_path / "pkg", "--", "list")
    assert listed.returncode == 0, listed.stderr
    assert "hello" in listed.stdout and "old" not in listed.stdout
    assert f"{folder / 'old.json'}:5:13: warning: unknown field 'doc' in hints" in (
        listed.stderr
    )
    assert "warning: tool files skipped, as they do not load: 1 of 2" in (listed.stderr)


def test_skip_invalid_is_for_mtdf_folders(tmp_path: Path) -> None:
    schema = tmp_path / "s.mci.json"
    schema.write_text('{"schemaVersion": "1.0", "tools": []}')
    result = run_mcigen("check", schema, "--skip-invalid")
    assert result.returncode == 2
    assert result.stderr == (
        "mcigen: error: --skip-invalid leaves out tool files of an MTDF folder, "
        f"and {schema} is an MCI schema\n"
    )


def test_the_older_guides_hints_default_is_kept_where_ahma_skips_the_file(
    tmp_path: Path,
) -> None:
    """COMPATIBILITY row 148: Ahma today cannot load such a file (unknown field
    ``default``); mcigen warns and builds its tools."""
    seed = GOOD | {"name": "seed", "hints": {"default": "wait for it"}}
    folder = _folder(tmp_path, good=GOOD, seed=seed)
    listed = run_mcigen("serve", folder, "-o", tmp_path / "pkg", "--", "list")
    assert listed.returncode == 0, listed.stderr
    assert "seed" in listed.stdout
    assert "warning: 'default' comes from the older MTDF guide" in listed.stderr
    assert "skipped" not in listed.stderr


def test_ahmas_loader_expectations_invalid_json_and_other_files(
    tmp_path: Path,
) -> None:
    """What Ahma's ``config_coverage_test.rs`` asserts of its loader: a file that
    is not JSON is skipped and the valid tool loads; ``readme.txt`` and
    ``config.yaml`` beside it are not tool files at all."""
    folder = _folder(tmp_path, good=GOOD, broken="{name: broken}")
    (folder / "readme.txt").write_text("notes", encoding="utf-8")
    (folder / "config.yaml").write_text("name: elsewhere\ncommand: ignored\n")
    result = run_mcigen("list", folder, "--skip-invalid")
    assert result.returncode == 0, result.stderr
    listed = [line.split()[0] for line in result.stdout.splitlines()[1:]]
    assert listed == ["sandboxed_shell", "hello"]  # Ahma's built-in shell first
    assert f"{folder / 'broken.json'}:1:2: warning: invalid JSON" in result.stderr
    assert "readme.txt" not in result.stderr and "config.yaml" not in result.stderr
