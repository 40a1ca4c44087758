"""`mcigen check` on MTDF tool files (Ahma's format): every problem at once, each at
its file:line:column, and never a traceback."""

from __future__ import annotations

import copy
import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mcigen.frontend.mtdf.lower import lower_mtdf
from mcigen.ir import CliExecution

from ..conftest import run_mcigen
from .test_robustness_property import _paths, _replace

AHMA = Path(__file__).resolve().parents[1] / "fixtures" / "mtdf" / "ahma"
DIAGNOSTIC = re.compile(
    r"^(?P<file>[^:]+):(?P<line>\d+):(?P<col>\d+): (error|warning): "
)

TOOL: dict[str, Any] = {
    "name": "lister",
    "description": "List things",
    "command": "ls",
    "timeout_seconds": 60,
    "subcommand": [
        {
            "name": "default",
            "description": "List a directory",
            "options": [{"name": "all", "type": "boolean", "alias": "a"}],
            "positional_args": [{"name": "path", "type": "string", "format": "path"}],
        }
    ],
}


def _check(tmp_path: Path, document: Any, name: str = "tool.json") -> list[str]:
    (tmp_path / name).write_text(json.dumps(document, indent=2), encoding="utf-8")
    return [str(d) for d in lower_mtdf(tmp_path / name)[1].items]


def _where(tmp_path: Path, name: str, marker: str) -> str:
    """file:line:col of the first ``marker`` in the file ``name``."""
    text = (tmp_path / name).read_text(encoding="utf-8")
    before = text[: text.index(marker)]
    line = before.count("\n") + 1
    return f"{tmp_path / name}:{line}:{len(before) - before.rfind(chr(10))}"


def _with(changes: dict[str, Any], sub: dict[str, Any] | None = None) -> Any:
    document = copy.deepcopy(TOOL) | changes
    if sub is not None:
        document["subcommand"][0] |= sub
    return {key: value for key, value in document.items() if value is not _DROP}


_DROP = object()


def test_ahmas_own_tool_files_check_clean_but_for_the_livelog_tools() -> None:
    result = run_mcigen("check", AHMA)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert lines[-1] == "0 errors, 2 warnings"
    for tool in ("android-logcat", "rust-log-monitor"):
        where = f"{AHMA / tool}.json:5:18"
        assert (
            f"{where}: warning: livelog tool '{tool}' needs an LLM to watch its "
            "output; builds leave it out" in lines
        )


@pytest.mark.parametrize("layout", [".ahma", ".ahma/tools"])
def test_ahmas_folder_layouts_are_read(tmp_path: Path, layout: str) -> None:
    """A project holding .ahma/ stands for it, and .ahma/tools for .ahma (Ahma's rule)."""
    shutil.copytree(AHMA, tmp_path / ".ahma")
    (tmp_path / ".ahma" / "tools").mkdir()
    (tmp_path / ".ahma" / "bad.json").write_text('{"command": ""}')
    for path in (tmp_path, tmp_path / layout):
        _, diagnostics = lower_mtdf(path)
        assert (
            f"{tmp_path / '.ahma' / 'bad.json'}:1:13: error: 'command' cannot be empty"
            in [str(d) for d in diagnostics.items]
        )


def test_only_a_folders_top_level_json_files_are_read(tmp_path: Path) -> None:
    """As Ahma: no recursion, and the extension is case-sensitive."""
    _check(tmp_path, TOOL)
    (tmp_path / "deeper").mkdir()
    for ignored in ("deeper/tool.json", "OTHER.JSON", "notes.txt"):
        (tmp_path / ignored).write_text("not json")
    result = run_mcigen("check", tmp_path)
    assert (result.returncode, result.stderr) == (0, "")


def test_a_json_entry_that_is_no_regular_file_is_a_file_that_does_not_load(
    tmp_path: Path,
) -> None:
    """Ahma reads every *.json entry and warns of one it cannot read; these were
    left out without a word."""
    _check(tmp_path, TOOL)
    (tmp_path / "dangling.json").symlink_to(tmp_path / "nowhere")
    (tmp_path / "folder.json").mkdir()
    os.mkfifo(tmp_path / "fifo.json")  # refused unopened for reading: no hang
    result = run_mcigen("check", tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{tmp_path}/dangling.json:1:1: error: cannot read schema file: "
        "No such file or directory",
        f"{tmp_path}/fifo.json:1:1: error: cannot read schema file: "
        "it is a FIFO, not a regular file",
        f"{tmp_path}/folder.json:1:1: error: cannot read schema file: "
        "it is a directory, not a regular file",
        "3 errors, 0 warnings",
    ]


CASES: list[tuple[str, Any, str, str]] = [
    # (what, document, marker the diagnostic points at, message)
    (
        "unknown field",
        _with({"descripton": "x"}),
        '"descripton"',
        "error: unknown field 'descripton' in the tool (did you mean 'description'?)",
    ),
    (
        "unknown option field",
        _with({}, {"options": [{"name": "a", "type": "string", "requird": True}]}),
        '"requird"',
        "error: unknown field 'requird' in subcommand[0].options[0] "
        "(did you mean 'required'?)",
    ),
    (
        "the older guide's hints.default",
        _with({"hints": {"default": "wait"}}),
        '"default": "wait"',
        "warning: 'default' comes from the older MTDF guide: Ahma today rejects "
        "tool files that use it",
    ),
    (
        "the older guide's option enum",
        _with({}, {"options": [{"name": "a", "type": "string", "enum": ["x"]}]}),
        '"enum"',
        "warning: 'enum' comes from the older MTDF guide: Ahma today rejects "
        "tool files that use it",
    ),
    (
        "u64 given a string",
        _with({"timeout_seconds": "10"}),
        '"10"',
        "error: 'timeout_seconds' must be a whole number from 0 to 2^64-1, got '10'",
    ),
    (
        "u64 given a negative number",
        _with({}, {"timeout_seconds": -1}),
        "-1",
        "error: 'subcommand[0].timeout_seconds' must be a whole number from 0 to "
        "2^64-1, got -1",
    ),
    (
        "u64 given a number past 2^64-1",
        _with({"step_delay_ms": 2**64}),
        str(2**64),
        f"error: 'step_delay_ms' must be a whole number from 0 to 2^64-1, got {2**64}",
    ),
    (
        "u64 given a fraction",
        _with({"timeout_seconds": 1.5}),
        "1.5",
        "error: 'timeout_seconds' must be a whole number from 0 to 2^64-1, got 1.5",
    ),
    (
        "bool given a string",
        _with({"enabled": "yes"}),
        '"yes"',
        "error: 'enabled' must be true or false, got 'yes'",
    ),
    (
        "a bool with a default given null",
        _with({}, {"enabled": None}),
        "null",
        "error: 'subcommand[0].enabled' must be true or false, got null",
    ),
    (
        "a string map entry given null",
        _with({"hints": {"custom": {"usage": None}}}),
        "null",
        "error: 'hints.custom.usage' must be a string, got null",
    ),
    (
        "string given a number",
        _with({}, {"options": [{"name": 7, "type": "string"}]}),
        "7",
        "error: 'subcommand[0].options[0].name' must be a string, got 7",
    ),
    (
        "array given an object",
        _with({"subcommand": {}}),
        "{}",
        "error: 'subcommand' must be an array, got object",
    ),
    (
        "tool_type variants",
        _with({"tool_type": "daemon"}),
        '"daemon"',
        "error: 'tool_type' must be 'command' or 'livelog', got 'daemon'",
    ),
    (
        "allow_raw_args given a string",
        _with({"allow_raw_args": "yes"}),
        '"yes"',
        "error: 'allow_raw_args' must be true or false, got 'yes'",
    ),
    (
        "paths_by_name given a number",
        _with({"paths_by_name": 1}),
        "1",
        "error: 'paths_by_name' must be true or false, got 1",
    ),
    (
        "allow_raw_args on a subcommand (a tool's field)",
        _with({}, {"allow_raw_args": True}),
        '"allow_raw_args"',
        "error: unknown field 'allow_raw_args' in subcommand[0]",
    ),
    (
        "both spellings of synchronous",
        _with({"synchronous": True, "force_synchronous": True}),
        '"force_synchronous"',
        "error: 'force_synchronous' and 'synchronous' are two spellings of one "
        "field; give only one",
    ),
    (
        "missing tool field",
        _with({"command": _DROP}),
        "{",
        "error: the tool lacks the required field 'command'",
    ),
    (
        "missing option field",
        _with({}, {"options": [{"name": "a"}]}),
        '{\n          "name": "a"',
        "error: subcommand[0].options[0] lacks the required field 'type'",
    ),
    (
        "missing livelog field",
        _with({"livelog": {"source_command": "adb", "detection_prompt": "crash"}}),
        '{\n    "source_command"',
        "error: livelog lacks the required field 'llm_provider'",
    ),
    ("empty tool name", _with({"name": ""}), '""', "error: 'name' cannot be empty"),
    (
        "empty command",
        _with({"command": ""}),
        '""',
        "error: 'command' cannot be empty",
    ),
    (
        "empty description",
        _with({"description": ""}),
        '""',
        "error: 'description' cannot be empty",
    ),
    (
        "timeout over an hour",
        _with({"timeout_seconds": 3601}),
        "3601",
        "error: timeout should not exceed 3600 seconds (1 hour); use a shorter "
        "timeout or break the operation into smaller steps",
    ),
    (
        "zero timeout",
        _with({"timeout_seconds": 0}),
        "0",
        "error: timeout should be at least 1 second",
    ),
    (
        "pause over a day",
        _with({"step_delay_ms": 86_400_001}),
        "86400001",
        "error: 'step_delay_ms' must be at most 86400000 milliseconds (a day), "
        "got 86400001",
    ),
    (
        "subcommand timeout over a day",
        _with({}, {"timeout_seconds": 10**19}),
        str(10**19),
        "error: 'subcommand[0].timeout_seconds' must be at most 86400 seconds "
        f"(a day), got {10**19}",
    ),
    (
        "sequence step timeout over a day",
        _with(
            {
                "sequence": [
                    {"tool": "t", "subcommand": "s", "args": {"timeout_seconds": 86401}}
                ]
            }
        ),
        "86401",
        "error: 'sequence[0].args.timeout_seconds' must be at most 86400 seconds "
        "(a day), got 86401",
    ),
    (
        "empty subcommand name",
        _with({}, {"name": ""}),
        '""',
        "error: 'subcommand[0].name' cannot be empty",
    ),
    (
        "empty subcommand description",
        _with({}, {"description": ""}),
        '""',
        "error: 'subcommand[0].description' cannot be empty",
    ),
    (
        "empty nested subcommand name",
        _with({}, {"subcommand": [{"name": "", "description": "x"}]}),
        '""',
        "error: 'subcommand[0].subcommand[0].name' cannot be empty",
    ),
    (
        "empty option name",
        _with({}, {"options": [{"name": "", "type": "string"}]}),
        '""',
        "error: 'subcommand[0].options[0].name' cannot be empty",
    ),
    (
        "option type with a suggestion",
        _with({}, {"options": [{"name": "a", "type": "int"}]}),
        '"int"',
        "error: invalid option type 'int': must be one of string, boolean, integer, "
        "array; use 'integer' instead of 'int'",
    ),
    (
        "option type without a suggestion",
        _with({}, {"options": [{"name": "a", "type": "float"}]}),
        '"float"',
        "error: invalid option type 'float': must be one of string, boolean, "
        "integer, array",
    ),
    (
        "async words in a subcommand that inherits synchronous (tool validate's error)",
        _with({"synchronous": True}, {"description": "Runs in the background"}),
        '"Runs in the background"',
        "error: the description mentions async behavior but the subcommand runs "
        "synchronously; set synchronous to false or update the description",
    ),
]


@pytest.mark.parametrize(
    ("document", "marker", "message"),
    [case[1:] for case in CASES],
    ids=[case[0] for case in CASES],
)
def test_each_rule_gives_one_located_message(
    tmp_path: Path, document: Any, marker: str, message: str
) -> None:
    lines = _check(tmp_path, document)
    assert lines == [f"{_where(tmp_path, 'tool.json', marker)}: {message}"]


def test_allow_raw_args_and_paths_by_name_reach_the_ir(tmp_path: Path) -> None:
    """mcigen's own tool fields, off by default."""
    documents = {"plain.json": TOOL, "raw.json": TOOL | {"name": "raw"}}
    documents["raw.json"] |= {"allow_raw_args": True, "paths_by_name": True}
    for name, document in documents.items():
        (tmp_path / name).write_text(json.dumps(document), encoding="utf-8")
    schema, diagnostics = lower_mtdf(tmp_path)
    assert schema is not None and not diagnostics.items
    plans = {tool.name: tool.execution for tool in schema.tools}
    for name, raw in (("lister", False), ("raw", True)):
        execution = plans[name]
        assert isinstance(execution, CliExecution)
        assert (execution.extra_args_allowed, execution.paths_by_name) == (raw, raw)


def test_a_repeated_key_is_located_at_its_second_spelling(tmp_path: Path) -> None:
    text = json.dumps(TOOL, indent=2).replace(
        '"command"', '"name": "again",\n  "command"'
    )
    (tmp_path / "tool.json").write_text(text, encoding="utf-8")
    lines = [str(d) for d in lower_mtdf(tmp_path / "tool.json")[1].items]
    where = _where(tmp_path, "tool.json", '"name": "again"')
    assert lines == [f"{where}: error: duplicate field 'name'"]


@pytest.mark.parametrize("name", ["await", "status", "cancel", "sandboxed_shell"])
def test_reserved_tool_names_are_errors(tmp_path: Path, name: str) -> None:
    lines = _check(tmp_path, _with({"name": name}))
    where = _where(tmp_path, "tool.json", json.dumps(name))
    assert lines == [
        f"{where}: error: tool name '{name}' is "
        "reserved for Ahma's own tools (await, status, cancel, sandboxed_shell); "
        "rename the tool"
    ]


def test_rules_the_validator_leaves_alone_pass(tmp_path: Path) -> None:
    """Positional types, sub timeouts (up to mcigen's day), 'asynchronous' without
    -ly: not checked (§9.2)."""
    document = _with(
        {"synchronous": True},
        {
            "description": "Not asynchronous at all",
            "positional_args": [{"name": "p", "type": "bool"}],
            "timeout_seconds": 86400,
        },
    )
    assert _check(tmp_path, document) == []


def test_a_tool_name_defined_in_two_files_is_reported_at_both(tmp_path: Path) -> None:
    _check(tmp_path, TOOL, "a.json")
    _check(tmp_path, _with({"description": "Another"}), "b.json")
    first = _where(tmp_path, "a.json", '"lister"')
    second = _where(tmp_path, "b.json", '"lister"')
    result = run_mcigen("check", tmp_path)
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{first}: error: tool name 'lister' is also defined at {second}",
        f"{second}: error: tool name 'lister' is also defined at {first}",
        "2 errors, 0 warnings",
    ]


def test_two_names_with_one_python_name_warn_as_a_build_does(tmp_path: Path) -> None:
    """``check`` runs the planner, as ``build`` does: ``a_b`` is ``a_b_2`` in Python."""
    _check(tmp_path, _with({"name": "a-b"}), "a-b.json")
    _check(tmp_path, _with({"name": "a_b"}), "a_b.json")
    subcommand = '{\n      "name": "default"'  # a tool is where its leaf is
    first = _where(tmp_path, "a-b.json", subcommand)
    second = _where(tmp_path, "a_b.json", subcommand)
    result = run_mcigen("check", tmp_path)
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        f"{second}: warning: tool 'a_b' would be the Python function 'a_b', like "
        f"tool 'a-b' (at {first}); it is 'a_b_2' in Python, and 'a_b' everywhere else",
        "0 errors, 1 warning",
    ]


MANY_PROBLEMS = """{
  "name": "",
  "description": "d",
  "command": "",
  "timeout_seconds": 0,
  "synchronous": true,
  "force_synchronous": true,
  "hints": {"bulid": "y"},
  "subcommand": [
    {"name": "a", "description": "async", "options": [{"name": "", "type": "str"}]},
    {"description": "", "timeout_seconds": -1}
  ],
  "sequence": [{"tool": "x"}]
}
"""


def test_a_file_with_many_problems_gives_them_all_at_once(tmp_path: Path) -> None:
    (tmp_path / "many.json").write_text(MANY_PROBLEMS, encoding="utf-8")
    result = run_mcigen("check", tmp_path / "many.json")
    assert result.returncode == 1
    *lines, summary = result.stderr.splitlines()
    assert summary == "12 errors, 0 warnings"
    positions = [DIAGNOSTIC.match(line) for line in lines]
    assert all(positions), lines
    assert [(int(m["line"]), int(m["col"])) for m in positions if m] == [
        (2, 11),
        (4, 14),
        (5, 22),
        (7, 3),
        (8, 13),
        (10, 34),
        (10, 64),
        (10, 76),
        (11, 5),
        (11, 21),
        (11, 44),
        (13, 16),
    ]


def test_recognition_and_from(tmp_path: Path) -> None:
    mtdf = tmp_path / "tool.json"
    mtdf.write_text(json.dumps(_with({"schemaVersion": "1.0"} | {"command": "ls"})))
    result = run_mcigen("check", mtdf)
    assert "unknown field 'command' in schema" in result.stderr  # read as MCI
    result = run_mcigen("check", "--from", "mtdf", mtdf)
    assert "unknown field 'schemaVersion' in the tool" in result.stderr
    mtdf.write_text(json.dumps(TOOL))
    assert run_mcigen("check", mtdf).returncode == 0
    result = run_mcigen("check", "--from", "mci", mtdf)
    assert result.returncode == 1
    assert "unknown field 'subcommand' in schema" in result.stderr


def test_a_folder_without_mtdf_files_is_a_usage_error(tmp_path: Path) -> None:
    (tmp_path / "x.json").write_text('{"schemaVersion": "1.0"}')
    result = run_mcigen("check", tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        f"mcigen: error: {tmp_path} is a folder holding no MTDF tool file, "
        "and an MCI schema is one file\n"
    )


@pytest.mark.parametrize(
    ("place", "text", "where", "message"),
    [
        ("tools/x.json", '{"name": "x",\n "command": ', "2:13", "invalid JSON"),
        (
            "tools/x.json",
            '{"name": "x", "description": "y"}',
            "1:1",
            "the tool lacks the required field 'command'",
        ),
        (
            "p/.ahma/x.json",
            '{"name": "x", "description": "y"}',
            "1:1",
            "the tool lacks the required field 'command'",
        ),
    ],
    ids=["invalid JSON", "no command", "no command in .ahma"],
)
def test_a_lone_broken_tool_file_is_reported_at_its_line(
    tmp_path: Path, place: str, text: str, where: str, message: str
) -> None:
    """A folder's one ``*.json`` that does not load is MTDF with problems, not a
    folder "holding no MTDF tool file"; so is a file of an ``.ahma`` folder."""
    file = tmp_path / place
    file.parent.mkdir(parents=True)
    file.write_text(text, encoding="utf-8")
    in_ahma = file.parent.name == ".ahma"
    for path in (file.parent, *((file.parent.parent, file) if in_ahma else ())):
        for command in (("check",), ("build", "-o", tmp_path / "out")):
            result = run_mcigen(*command, path)
            assert result.returncode == 1, (path, result.stderr)
            assert result.stderr.startswith(f"{file}:{where}: error: {message}")


def test_a_whitespace_command_is_an_error_at_it_for_check_and_build(
    tmp_path: Path,
) -> None:
    """Ahma's validator passes it (only "" is empty) and every call fails;
    COMPATIBILITY row 140."""
    document = _with({"command": "   "})
    _check(tmp_path, document)
    where = _where(tmp_path, "tool.json", '"   "')
    for command in (("check",), ("build", "-o", tmp_path / "out")):
        result = run_mcigen(*command, tmp_path / "tool.json")
        assert (result.returncode, result.stderr) == (
            1,
            f"{where}: error: tool 'lister' has no program: 'command' holds only "
            "whitespace (Ahma fails every call with 'Command must not be empty')\n"
            "1 error, 0 warnings\n",
        )


def test_two_leaves_with_one_tool_name_fail_check_as_build(tmp_path: Path) -> None:
    document = _with(
        {
            "subcommand": [
                {"name": "a_b", "description": "x"},
                {"name": "a", "description": "y", "subcommand": [TOOL_LEAF_B]},
            ]
        }
    )
    _check(tmp_path, document)
    first = _where(tmp_path, "tool.json", '{\n      "name": "a_b"')
    second = _where(tmp_path, "tool.json", '{\n          "name": "b"')
    for command in (("check",), ("build", "-o", tmp_path / "out")):
        result = run_mcigen(*command, tmp_path / "tool.json")
        assert (result.returncode, result.stderr) == (
            1,
            f"{second}: error: tool 'lister_a_b' is also listed for {first}; "
            "tool names must be unique\n1 error, 0 warnings\n",
        )


TOOL_LEAF_B = {"name": "b", "description": "z"}
PATH_ITEMS = {"type": "string", "format": "path"}


ARGV_REFUSALS: list[tuple[str, dict[str, Any], str, str]] = [
    (
        "array option with file_arg",
        {"options": [{"name": "msg", "type": "array", "file_arg": True}]},
        "true",
        "option 'msg' is an array with 'file_arg': Ahma writes its elements joined "
        "with spaces into one file; a build does not (make it a string option)",
    ),
    (
        "items.format path alone",
        {"options": [{"name": "files", "type": "array", "items": PATH_ITEMS}]},
        '"path"',
        "'files' has items of format 'path' but is not itself 'format': 'path': "
        "Ahma checks no element, a build would check each; give the array "
        "'format': 'path' too",
    ),
    (
        "reserved key as a positional",
        {"positional_args": [{"name": "working_directory", "type": "string"}]},
        '"working_directory"',
        "positional argument 'working_directory' is an input key Ahma reads "
        "itself; rename it",
    ),
]


@pytest.mark.parametrize(
    ("sub", "marker", "message"),
    [case[1:] for case in ARGV_REFUSALS],
    ids=[case[0] for case in ARGV_REFUSALS],
)
def test_command_lines_a_build_cannot_give_as_ahma_are_refused_where_written(
    tmp_path: Path, sub: dict[str, Any], marker: str, message: str
) -> None:
    """COMPATIBILITY rows 141-143."""
    _check(tmp_path, _with({}, sub))
    where = _where(tmp_path, "tool.json", marker)
    for command in (("check",), ("build", "-o", tmp_path / "out")):
        result = run_mcigen(*command, tmp_path / "tool.json")
        assert (result.returncode, result.stderr) == (
            1,
            f"{where}: error: {message}\n1 error, 0 warnings\n",
        )


def test_a_bin_sh_tool_with_no_words_is_refused_at_its_command(
    tmp_path: Path,
) -> None:
    """COMPATIBILITY row 144."""
    lines = _check(tmp_path, _with({"command": "/bin/sh"}))
    where = _where(tmp_path, "tool.json", '"/bin/sh"')
    assert lines == [
        f"{where}: error: tool 'lister' runs "
        "/bin/sh with no words of its own, so a call's values would be the whole "
        "script: Ahma runs them as shell code, mcigen quotes each; put the program "
        "in 'command' (\"/bin/sh ls\")"
    ]


def test_build_stops_on_a_bad_tool_file(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (tmp_path / "bad.json").write_text('{"command": "x"}')
    result = run_mcigen("build", tmp_path / "bad.json", "-o", out)
    assert result.returncode == 1
    assert "lacks the required field 'name'" in result.stderr
    assert not out.exists()


HOSTILE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**70), 2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from(["", "status", "bool", "livelog", "async work", "x\u2028y"]),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(
        st.sampled_from(
            [
                "name",
                "type",
                "subcommand",
                "options",
                "synchronous",
                "description",
                "zz",
            ]
        ),
        inner,
        max_size=3,
    ),
    max_leaves=8,
)
GIT = json.loads((AHMA / "git.json").read_text(encoding="utf-8"))


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(path=st.sampled_from(_paths(GIT)), new=HOSTILE)
def test_check_never_raises_on_a_hostile_tool_file(
    path: tuple[Any, ...], new: Any
) -> None:
    with tempfile.TemporaryDirectory() as directory:
        file = Path(directory) / "tool.json"
        file.write_text(json.dumps(_replace(GIT, path, new)), encoding="utf-8")
        for diagnostic in lower_mtdf(file)[1].items:
            assert diagnostic.location.line >= 1


@settings(max_examples=100, deadline=None)
@given(text=st.text(max_size=200))
def test_check_never_raises_on_any_text(text: str) -> None:
    with tempfile.TemporaryDirectory() as directory:
        file = Path(directory) / "tool.json"
        file.write_text(text, encoding="utf-8")
        lower_mtdf(file)
