"""The tools Ahma lists for MTDF tool files (AHMA-SEMANTICS §3, §4): their names,
descriptions and inputSchemas, and `mcigen list` on them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from mcigen import ir
from mcigen.frontend.mtdf import MtdfTool, mtdf_tools
from mcigen.frontend.mtdf.lower import lower_mtdf

from ..conftest import run_mcigen

AHMA = Path(__file__).resolve().parents[1] / "fixtures" / "mtdf" / "ahma"
WORKING_DIRECTORY = {
    "type": "string",
    "description": "Working directory for command execution",
    "format": "path",
}
SYNC_BLOCK = "This tool runs synchronously and returns results immediately"


def _tools(folder: Path, *documents: dict[str, Any]) -> dict[str, MtdfTool]:
    for index, document in enumerate(documents):
        (folder / f"tool{index}.json").write_text(json.dumps(document, indent=2))
    tools, diagnostics = mtdf_tools(folder)
    assert not diagnostics.has_errors, [str(d) for d in diagnostics.items]
    return {tool.name: tool for tool in tools}


def _tool(subcommands: list[dict[str, Any]] | None, **fields: Any) -> dict[str, Any]:
    tool: dict[str, Any] = {"name": "t", "description": "Tool", "command": "t"}
    if subcommands is not None:
        tool["subcommand"] = subcommands
    return tool | fields


def _sub(name: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "description": f"Sub {name}"} | fields


def _ahma() -> dict[str, MtdfTool]:
    tools, diagnostics = mtdf_tools(AHMA)
    assert not diagnostics.has_errors
    return {tool.name: tool for tool in tools}


def test_ahmas_files_give_the_names_ahma_lists() -> None:
    names = list(_ahma())
    assert [n for n in names if n.startswith("git")] == [
        "git_status",
        "git_add",
        "git_commit",
        "git_push",
        "git_log",
    ]
    assert [n for n in names if n.startswith("cargo")] == [
        "cargo_build",
        "cargo_run",
        "cargo_add",
        "cargo_upgrade",
        "cargo_update",
        "cargo_check",
        "cargo_diagnose",
        "cargo_fmt",
        "cargo_doc",
        "cargo_clippy",
        "cargo_qualitycheck",
        "cargo_audit",
        "cargo_nextest_run",
    ]
    assert "simplify" in names and "file-tools_ls" in names
    assert not [n for n in names if n.startswith(("android-logcat", "rust-log"))]


def test_git_status_has_ahmas_schema_exactly() -> None:
    git_status = _ahma()["git_status"]
    assert git_status.input_schema == {
        "type": "object",
        "properties": {
            "branch": {
                "type": "boolean",
                "description": "Show the branch and tracking info even in short format.",
            },
            "pathspec": {
                "type": "string",
                "description": "Restrict status output to the provided pathspec.",
                "format": "path",
            },
            "short": {"type": "boolean", "description": "Use the short-format output."},
            "working_directory": WORKING_DIRECTORY,
        },
    }
    assert list(git_status.input_schema["properties"]) == [  # type: ignore[call-overload]
        "short",
        "branch",
        "pathspec",
        "working_directory",
    ]
    assert git_status.command_words == ("git", "status")
    assert git_status.synchronous is True
    assert git_status.title == "git_status"


def test_file_tools_ls_gets_the_guidance_block_first() -> None:
    ls = _ahma()["file-tools_ls"]
    assert ls.description == (
        f"{SYNC_BLOCK}\n\nList directory contents with various formatting options"
    )


def test_a_single_default_is_the_tool_and_a_nested_one_its_parent(
    tmp_path: Path,
) -> None:
    tools = _tools(
        tmp_path,
        _tool([_sub("default")], name="one", command="one"),
        _tool(
            [
                _sub("default"),
                _sub("remote", subcommand=[_sub("default"), _sub("add")]),
            ],
            name="two",
            command="two",
        ),
    )
    assert list(tools) == ["one", "two_default", "two_remote", "two_remote_add"]
    assert tools["one"].description == "Tool"
    assert tools["one"].command_words == ("one",)
    assert tools["two_remote"].description == "Sub default"
    assert tools["two_remote"].command_words == ("two", "remote")
    assert tools["two_remote_add"].command_words == ("two", "remote", "add")


def test_disabled_subtrees_and_empty_namespaces_are_not_tools(tmp_path: Path) -> None:
    tools = _tools(
        tmp_path,
        _tool(
            [
                _sub("off", enabled=False, subcommand=[_sub("inner")]),
                _sub("empty", subcommand=[]),
                _sub("on"),
            ]
        ),
        _tool([_sub("off", enabled=False)], name="bare", command="bare"),
        _tool(None, name="none", command="none"),
        _tool([_sub("x")], name="disabled", command="d", enabled=False),
    )
    assert list(tools) == ["t_on", "bare", "none"]
    assert tools["bare"].input_schema == {
        "type": "object",
        "properties": {"working_directory": WORKING_DIRECTORY},
    }


def test_cargo_has_no_working_directory(tmp_path: Path) -> None:
    option = {"name": "working_directory", "type": "integer"}
    tools = _tools(
        tmp_path,
        _tool([_sub("build", options=[option])], name="cargo", command="cargo"),
        _tool([_sub("build", options=[option])], name="make", command="make"),
        _tool(None, name="bare", command="cargo"),
    )
    assert tools["cargo_build"].input_schema["properties"] == {
        "working_directory": {"type": "integer", "description": ""}
    }
    assert tools["make_build"].input_schema["properties"] == {
        "working_directory": WORKING_DIRECTORY
    }
    assert "working_directory" not in _ahma()["cargo_build"].input_schema["properties"]  # type: ignore[operator]


def test_a_positional_overwrites_a_same_named_option(tmp_path: Path) -> None:
    sub = _sub(
        "run",
        options=[
            {"name": "target", "type": "boolean", "required": True, "alias": "t"},
            {"name": "jobs", "type": "integer"},
            {"name": "files", "type": "array", "format": "path"},
        ],
        positional_args=[{"name": "target", "type": "string", "required": True}],
        positional_args_first=True,
        synchronous=False,
        timeout_seconds=5,
    )
    run = _tools(tmp_path, _tool([sub], synchronous=True, timeout_seconds=9))["t_run"]
    assert run.input_schema == {
        "type": "object",
        "properties": {
            "target": {"type": "string"},
            "jobs": {"type": "integer", "description": ""},
            "files": {
                "type": "array",
                "description": "",
                "format": "path",
                "items": {"type": "string", "format": "path"},
            },
            "working_directory": WORKING_DIRECTORY,
        },
        "required": ["target", "target"],
    }
    assert [o.name for o in run.options] == ["target", "jobs", "files"]
    assert (run.options[0].type, run.options[0].alias) == ("boolean", "t")
    assert [p.name for p in run.positionals] == ["target"]
    assert (run.positional_args_first, run.synchronous, run.timeout_seconds) == (
        True,
        False,
        5,
    )


def test_a_leaf_inherits_synchronous_and_timeout_from_the_tool(tmp_path: Path) -> None:
    tools = _tools(
        tmp_path, _tool([_sub("a")], force_synchronous=True, timeout_seconds=9)
    )
    assert (tools["t_a"].synchronous, tools["t_a"].timeout_seconds) == (True, 9)


def test_row_91_tool_guidance_json_adds_and_replaces_blocks(tmp_path: Path) -> None:
    (tmp_path / "tool_guidance.json").write_text(
        json.dumps(
            {
                "guidance_blocks": {"mine": "MINE", "sync_behavior": "SYNC"},
                "templates": {"x": "y"},
            }
        )
    )
    tools = _tools(
        tmp_path,
        _tool([_sub("a", guidance_key="sync_behavior")], guidance_key="mine"),
        _tool([_sub("b")], name="s", command="s", guidance_key="sync_behavior"),
        _tool([_sub("c")], name="u", command="u", guidance_key="unknown"),
    )
    assert tools["t_a"].description == "MINE\n\nSub a"
    assert tools["s_b"].description == "SYNC\n\nSub b"
    assert tools["u_c"].description == "Sub c"


def test_tool_guidance_json_problems_are_located(tmp_path: Path) -> None:
    guidance = tmp_path / "tool_guidance.json"
    guidance.write_text('{\n  "guidance_blocks": {"a": 1},\n  "extra": 2\n}\n')
    (tmp_path / "t.json").write_text(json.dumps(_tool([_sub("a")])))
    tools, diagnostics = mtdf_tools(tmp_path)
    assert tools == []
    assert [str(d) for d in diagnostics.items] == [
        f"{guidance}:2:28: error: guidance block 'a' must be a text, not integer",
        f"{guidance}:3:3: warning: unknown section 'extra' in tool_guidance.json; "
        "expected 'guidance_blocks'",
    ]


def test_row_84_seed_guide_option_fields_become_schema_keywords(tmp_path: Path) -> None:
    options = [
        {"name": "level", "type": "string", "enum": ["a", "b"], "default": "a"},
        {"name": "tag", "type": "string", "pattern": "^v[0-9]+$"},
        {"name": "ids", "type": "array", "minItems": 1, "maxItems": 3},
    ]
    tools, diagnostics = mtdf_tools(
        _write(tmp_path, _tool([_sub("a", options=options)]))
    )
    assert not diagnostics.has_errors
    assert tools[0].input_schema["properties"] == {
        "level": {
            "type": "string",
            "description": "",
            "enum": ["a", "b"],
            "default": "a",
        },
        "tag": {"type": "string", "description": "", "pattern": "^v[0-9]+$"},
        "ids": {
            "type": "array",
            "description": "",
            "items": {"type": "string"},
            "minItems": 1,
            "maxItems": 3,
        },
        "working_directory": WORKING_DIRECTORY,
    }


def _write(folder: Path, document: dict[str, Any]) -> Path:
    path = folder / "tool.json"
    path.write_text(json.dumps(document))
    return path


def test_mcigen_list_prints_the_tools() -> None:
    result = run_mcigen("list", AHMA / "git.json")
    assert (result.returncode, result.stderr) == (0, "")
    assert result.stdout.splitlines() == [
        "NAME             PYTHON NAME      TYPE  TOOLSET  TAGS",
        "sandboxed_shell  sandboxed_shell  cli   -",
        "git_status       git_status       cli   -",
        "git_add          git_add          cli   -",
        "git_commit       git_commit       cli   -",
        "git_push         git_push         cli   -",
        "git_log          git_log          cli   -",
    ]
    hyphen = run_mcigen("list", AHMA)
    assert "file-tools_ls  " in hyphen.stdout and " file_tools_ls " in hyphen.stdout


def test_mcigen_list_gives_two_tools_their_python_names_as_a_build_does(
    tmp_path: Path,
) -> None:
    for name in ("a-b", "a_b"):
        (tmp_path / f"{name}.json").write_text(json.dumps(_tool(None, name=name)))
    result = run_mcigen("list", tmp_path)
    assert result.returncode == 0
    assert "it is 'a_b_2' in Python" in result.stderr
    assert result.stdout.splitlines() == [
        "NAME             PYTHON NAME      TYPE  TOOLSET  TAGS",
        "sandboxed_shell  sandboxed_shell  cli   -",
        "a-b              a_b              cli   -",
        "a_b              a_b_2            cli   -",
    ]


def test_mcigen_list_stops_at_an_error(tmp_path: Path) -> None:
    (tmp_path / "bad.json").write_text('{"command": "x"}')
    result = run_mcigen("list", tmp_path / "bad.json")
    assert result.returncode == 1
    assert "lacks the required field 'name'" in result.stderr
    assert result.stdout == ""


def test_mcigen_check_reports_tool_guidance_problems(tmp_path: Path) -> None:
    (tmp_path / "tool_guidance.json").write_text('{"guidance_blocks": []}')
    (tmp_path / "t.json").write_text(json.dumps(_tool([_sub("a")])))
    result = run_mcigen("check", tmp_path)
    assert result.returncode == 1
    assert (
        f"{tmp_path / 'tool_guidance.json'}:1:21: error: 'guidance_blocks' must be "
        "an object of texts, not array"
    ) in result.stderr


def test_command_words_split_where_ahma_splits_them(tmp_path: Path) -> None:
    """Rust's ``split_whitespace``: Unicode White_Space separates words; the
    information separators U+001C-U+001F (whitespace to Python) do not."""
    sub = _sub("run\x1fnow", options=[{"name": "v", "type": "boolean"}])
    tool = _tool([sub], command="env\u2028a\x1cb  c", availability_check={})
    tools = _tools(tmp_path, tool)
    schema, _ = lower_mtdf(tmp_path)
    assert schema is not None
    execution = schema.tools[1].execution  # after sandboxed_shell
    assert isinstance(execution, ir.CliExecution)
    assert (execution.command, execution.args) == ("env", ("a\x1cb", "c", "run\x1fnow"))
    assert tools["t_run\x1fnow"].probes[0].argv == ("env", "a\x1cb", "c")
