"""``mcigen check`` refuses what ``mcigen build`` with the same options refuses,
with the same diagnostics, every one at once, and writes nothing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .conftest import run_mcigen, schema_of, text_tool, write_schema


def _tool_with_looping_ref(name: str) -> dict[str, Any]:
    """A definition that is only itself: the frontend resolves the $ref, the model
    generator refuses it."""
    loop = {"$ref": f"#/$defs/{name}"}
    schema = {"type": "object", "properties": {"x": loop}, "$defs": {name: loop}}
    return text_tool(name, "x", inputSchema=schema)


def _two_models_refused(directory: Path) -> Path:
    document = schema_of(
        _tool_with_looping_ref("a"),
        text_tool("fine", "x"),
        _tool_with_looping_ref("b"),
    )
    return write_schema(directory, document)


def _bad_version(directory: Path) -> Path:
    document = {**schema_of(text_tool("a", "x")), "metadata": {"version": "one"}}
    return write_schema(directory, document)


def _build_time_warnings(directory: Path) -> Path:
    """A schema that builds, with a warning of each kind ``check`` knows at build
    time (tests/test_check_build_time.py)."""
    declares = {"type": "object", "properties": {"n": {"type": "integer"}}}
    flag = {"from": "props.m", "type": "value"}
    document = schema_of(
        text_tool("stray", "done @endif"),
        {
            "name": "flagged",
            "inputSchema": declares,
            "execution": {"type": "cli", "command": "echo", "flags": {"-m": flag}},
        },
        {"name": "unclosed", "execution": {"type": "http", "url": "http://x/{{env.A"}},
        {"name": "absent", "execution": {"type": "file", "path": "absent.txt"}},
        text_tool(
            "defaulted",
            "x",
            inputSchema={
                "type": "object",
                "properties": {"n": {"type": "integer", "maximum": 1, "default": 2}},
            },
        ),
    )
    return write_schema(directory, document)


def test_every_tool_no_model_can_be_made_for_is_reported_by_check(
    tmp_path: Path,
) -> None:
    schema = _two_models_refused(tmp_path)
    result = run_mcigen("check", schema)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert [error.split(": error: ")[0] for error in errors] == [
        f"{schema}:4:5",
        f"{schema}:31:5",
    ]
    assert "tool 'a': no input model" in errors[0]
    assert "tool 'b': no input model" in errors[1]


@pytest.mark.parametrize(
    ("make_schema", "options"),
    [
        (_two_models_refused, ()),
        (_bad_version, ("--project",)),
        (lambda directory: write_schema(directory, schema_of(text_tool("a", "x"))), ()),
        (_build_time_warnings, ()),
        (_build_time_warnings, ("--strict",)),
    ],
    ids=["models", "project-version", "clean", "warnings", "strict"],
)
def test_check_says_what_build_says_and_writes_nothing(
    tmp_path: Path, make_schema: Any, options: tuple[str, ...]
) -> None:
    schema = make_schema(tmp_path)
    out = tmp_path / "out"
    checked = run_mcigen("check", schema, "-o", out, *options)
    assert not out.exists()
    built = run_mcigen("build", schema, "-o", out, *options)
    assert (checked.returncode, checked.stderr) == (built.returncode, built.stderr)
    assert checked.stderr.count(": warning: ") == (
        5 if make_schema is _build_time_warnings else 0
    )


def test_check_refuses_a_directory_build_would_not_overwrite(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(text_tool("a", "x")))
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    (theirs / "notes.txt").write_text("mine")
    result = run_mcigen("check", schema, "-o", theirs)
    assert result.returncode == 1
    assert f"refusing to overwrite '{theirs}'" in result.stderr
    assert [path.name for path in theirs.iterdir()] == ["notes.txt"]


def test_check_with_project_reports_its_metadata_problems(tmp_path: Path) -> None:
    schema = _bad_version(tmp_path)
    assert run_mcigen("check", schema).returncode == 0  # a package needs no version
    result = run_mcigen("check", schema, "--project")
    assert result.returncode == 1
    assert "metadata.version 'one' is not a version pip can install" in result.stderr
    assert json.loads(schema.read_text())["metadata"] == {"version": "one"}


def test_a_broken_tool_does_not_hide_what_else_is_wrong(tmp_path: Path) -> None:
    library = tmp_path / "mci"
    library.mkdir()
    bad_toolset = schema_of({"name": "b", "execution": {"type": "grpc"}})
    write_schema(library, bad_toolset, "broken.mci.json")
    document = {
        **schema_of({"name": "a", "execution": {"type": "cli"}}, text_tool("ok", "x")),
        "toolsets": ["broken", "absent"],
    }
    schema = write_schema(tmp_path, document)
    for command in ("check", "build"):
        result = run_mcigen(command, schema, "-o", tmp_path / "out")
        assert result.returncode == 1
        assert "missing required field 'command' in cli execution" in result.stderr
        assert f"{library / 'broken.mci.json'}:" in result.stderr  # its bad type
        assert "toolset 'absent'" in result.stderr
        assert result.stderr.endswith("3 errors, 0 warnings\n")
    assert not (tmp_path / "out").exists()


def test_every_tool_the_model_generator_refuses_is_reported(tmp_path: Path) -> None:
    fine = {"type": "object", "properties": {"q": {"type": "string"}}}
    tools = [text_tool(f"fine_{n}", "x", inputSchema=fine) for n in range(5)]
    tools[1:1] = [_tool_with_looping_ref("loops_Y")]
    tools[4:4] = [_tool_with_looping_ref("loops_Z")]
    schema = write_schema(tmp_path, schema_of(*tools))
    result = run_mcigen("check", schema)
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if ": error: " in line]
    assert len(errors) == 2, result.stderr
    assert "tool 'loops_Y': no input model" in errors[0]
    assert "tool 'loops_Z': no input model" in errors[1]
