"""Hostile keys, names, values and file names in the input of each frontend (MCI,
MTDF, broker config): every diagnostic, and every error line of a built package's
command and server that quotes them, is one line holding no character that is
not printable (a newline, a carriage return, a terminal escape, NUL, U+2028, a
bidi override), so the input can neither forge a line of output nor recolour the
terminal. Printable non-ASCII characters are shown as they are."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcigen_runtime.edge.logs import JsonLines, TextLines
from mcigen_runtime.errors import ToolInputError
from mcigen_runtime.landlock import LandlockUnavailable, abi_version

from mcigen.diagnostics import Diagnostics
from mcigen.frontend.formats import BROKER, MCI, MTDF, Format
from mcigen.mcp_mode import McpMode
from mcigen.pipeline import CompileOptions, plan_schema
from mcigen.planner.mcp_servers import McpAccess

from ..conftest import package_env, run_mcigen, schema_of, text_tool, write_schema
from .support import BUILDS, package_main

FORGERIES = (
    "\n",
    "\r",
    "\r\n",
    "\t",
    "\x00",
    "\x07",
    "\x1b[31m",
    "\x1b[2J",
    "\x1b]0;owned\x07",
    "\x7f",
    "\x85",
    "\u2028",
    "\u2029",
    "\u202e",
    "\u2066",
    "\ufeff",
    "\n/etc/tools.mci.json:1:1: error: forged line",
)
_PLAIN = st.text("ab_-./é€𝄞 '\"", max_size=5)
hostile = st.builds(
    lambda before, forgery, after: before + forgery + after,
    _PLAIN,
    st.sampled_from(FORGERIES),
    _PLAIN | st.sampled_from(FORGERIES),
)
"""A string holding at least one character that is not printable."""


def _mci_frontend(h: list[str]) -> dict[str, Any]:
    """Keys, a type, a property and a required name the MCI frontend refuses."""
    return {
        "schemaVersion": "1.0",
        "metadata": {"name": "m", h[0]: 1},
        h[1]: 2,
        "tools": [
            {"name": "t", "execution": {"type": h[2]}, h[3]: 3},
            {
                "name": "u",
                "inputSchema": {
                    "type": "object",
                    "properties": {h[4]: {"type": h[5]}},
                    "required": [h[4] + "x"],
                },
                "execution": {"type": "text", "text": "{{props." + h[6] + "}}"},
            },
        ],
    }


def _mci_planner(h: list[str]) -> dict[str, Any]:
    """Names the planner refuses or warns about: two tools of one name, a file that
    is not there, an MCP server without a cache whose command is not on PATH, a
    toolset that is not in the library."""
    return {
        "schemaVersion": "1.0",
        "metadata": {"name": "m"},
        "toolsets": [{"name": h[0]}],
        "mcp_servers": {h[1]: {"command": h[2]}},
        "tools": [
            text_tool(h[3], "x"),
            {"name": h[3], "execution": {"type": "file", "path": h[4]}},
        ],
    }


def _write_mci(document: Callable[[list[str]], dict[str, Any]]) -> Callable[..., Path]:
    def write(directory: Path, h: list[str]) -> Path:
        return write_schema(directory, document(h))

    return write


def _write_mtdf(directory: Path, h: list[str]) -> Path:
    """Two tool files of one hostile tool name, one of them named by hostile text,
    with an unknown field and an option of a type that is none."""
    folder = directory / "tools"
    folder.mkdir()
    # "t" first: a name starting with "." is a hidden file, which a folder skips
    file_name = "t" + h[0].replace("/", "").replace("\x00", "") + ".json"
    tool = {
        "name": h[1],
        "description": "d",
        "command": "echo",
        h[2]: 1,
        "subcommand": [
            {
                "name": "default",
                "description": "d",
                "options": [{"name": h[3], "type": h[4]}],
            }
        ],
    }
    (folder / file_name).write_text(json.dumps(tool), encoding="utf-8")
    other = {"name": h[1], "description": "d", "command": "echo"}
    (folder / "other.json").write_text(json.dumps(other), encoding="utf-8")
    return folder


def _write_broker(directory: Path, h: list[str]) -> Path:
    """A node of a hostile path, an unknown field, a backend that is none."""
    tree = {
        "path": "/",
        "summary": "s",
        h[0]: 1,
        "children": [
            {"path": h[1], "summary": "s", "source": {"command": "x"}},
            {"path": "/a", "summary": "s", "source": {"backend": h[2], "command": "x"}},
        ],
    }
    path = directory / "broker.json"
    path.write_text(json.dumps({"tree": tree}), encoding="utf-8")
    return path


CASES: dict[str, tuple[Format, Callable[[Path, list[str]], Path]]] = {
    "mci-frontend": (MCI, _write_mci(_mci_frontend)),
    "mci-planner": (MCI, _write_mci(_mci_planner)),
    "mtdf": (MTDF, _write_mtdf),
    "broker": (BROKER, _write_broker),
}


def _planned(path: Path, source_format: Format) -> Diagnostics:
    offline = McpAccess(McpMode.OFFLINE)
    _, diagnostics = plan_schema(path, CompileOptions(source_format, mcp=offline))
    return diagnostics


def _one_printable_line(text: str) -> bool:
    return text.isprintable()  # a line break or an escape is not printable


@pytest.mark.parametrize("case", CASES)
@BUILDS
@given(h=st.lists(hostile, min_size=7, max_size=7))
def test_every_diagnostic_is_one_printable_line(
    tmp_path_factory: pytest.TempPathFactory, case: str, h: list[str]
) -> None:
    source_format, write = CASES[case]
    path = write(tmp_path_factory.mktemp(case), h)
    diagnostics = _planned(path, source_format)
    assert diagnostics.items, "the hostile input was taken as it is"
    for diagnostic in diagnostics.items:
        assert _one_printable_line(diagnostic.message), repr(diagnostic.message)
        assert _one_printable_line(str(diagnostic)), repr(str(diagnostic))


def test_a_forged_line_stays_inside_the_diagnostic_that_quotes_it(
    tmp_path: Path,
) -> None:
    """``mcigen check`` prints one line per diagnostic: the forged line and the
    colour escape come out escaped inside the quote, non-ASCII as it is."""
    key = "é\n/etc/x.mci.json:1:1: error: forged\x1b[31m\u202e"
    schema = write_schema(tmp_path, schema_of(text_tool("t", "x", **{key: 1})))
    result = run_mcigen("check", schema)
    assert result.returncode == 0  # an unknown field is a warning
    shown = "'é\\n/etc/x.mci.json:1:1: error: forged\\x1b[31m\\u202e'"
    first, last = result.stderr.splitlines()
    assert first.startswith(f"{schema}:") and last == "0 errors, 1 warning"
    assert first.endswith(f": warning: unknown field {shown} in tool")
    assert "\x1b" not in result.stderr and "\u202e" not in result.stderr


def test_an_mtdf_file_name_is_shown_escaped_where_a_diagnostic_names_it(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "tools"
    folder.mkdir()
    tool = {"name": "t", "description": "d", "command": "echo"}
    for name in ("a\nb\x1b[0m.json", "c.json"):
        (folder / name).write_text(json.dumps(tool), encoding="utf-8")
    diagnostics = _planned(folder, MTDF)
    lines = [str(d) for d in diagnostics.items]
    assert lines and all(line.isprintable() for line in lines)
    assert any("a\\nb\\x1b[0m.json" in line for line in lines), lines


def test_tool_input_error_names_a_hostile_field_on_one_line() -> None:
    error = ToolInputError(
        "to\x1b[31mol", [("fi\neld\u2028", "Input should be 'a\rb'")]
    )
    assert str(error) == (
        "invalid input for tool 'to\\x1b[31mol': "
        "fi\\neld\\u2028: Input should be 'a\\rb'"
    )
    assert error.field == "fi\neld\u2028"  # the schema's spelling, for code


def test_the_package_command_prints_an_invalid_input_error_on_one_line(
    tmp_path: Path,
) -> None:
    """A property whose name (from the schema) holds a newline and an escape, given
    a value of the wrong type: ``python -m pkg call`` says so on one line."""
    name = "n\n\x1b[2Jx"
    tool = text_tool(
        "t",
        "{{props.value}}",
        inputSchema={"type": "object", "properties": {name: {"type": "integer"}}},
    )
    schema = write_schema(tmp_path, schema_of(tool))
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    result = package_main(
        tmp_path, "call", "t", "--json", json.dumps({name: "not a number"})
    )
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and result.stderr.endswith("\n")
    assert result.stderr[:-1].isprintable()
    assert "n\\n\\x1b[2Jx: Input should be a valid integer" in result.stderr


@pytest.mark.parametrize("form", [TextLines, JsonLines])
def test_a_log_line_quoting_a_hostile_name_is_one_printable_line(
    form: type[logging.Formatter],
) -> None:
    record = logging.LogRecord(
        "mcigen_runtime.serve",
        logging.WARNING,
        __file__,
        1,
        "MCP server '%s' cannot start: %s",
        ("srv\n\x1b[31mWARNING forged\u2028", "gone\r\x85\u202e"),
        None,
    )
    record.fields = {"tool": "t\x1b]0;x\x07", "é": "ok é"}
    line = form().format(record)
    assert line.isprintable(), repr(line)
    assert "é" in line
    if form is JsonLines:
        shown = json.loads(line)
        assert shown["tool"] == "t\x1b]0;x\x07"  # JSON's escapes read back exactly
        assert "srv\n\x1b[31mWARNING forged\u2028" in shown["message"]


def test_listings_show_a_hostile_tool_name_on_its_own_line(tmp_path: Path) -> None:
    """``mcigen list``, the package's ``list`` and its broker's ``--dump-tree``: a
    line per tool, whatever its name and description hold."""
    name, description = "a\nb\x1b[31m", "fi\x1b[2Jrst\nsecond"
    schema = write_schema(
        tmp_path, schema_of(text_tool(name, "x", description=description))
    )
    listed = run_mcigen("list", schema)
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    package_listed = package_main(tmp_path, "list")
    for output in (listed.stdout, package_listed.stdout):
        header, row = output.splitlines()
        assert header.startswith("NAME") and row.isprintable()
        assert row.startswith("a\\nb\\x1b[31m ")
    summary = package_listed.stdout.splitlines()[1].split()[-1]
    assert summary == "fi\\x1b[2Jrst"  # the description's first line
    tree = package_main(tmp_path, "broker", "--dump-tree").stdout.splitlines()
    assert tree[1:] == ["  /a\\nb\\x1b[31m  (tool)  fi\\x1b[2Jrst"]


def test_describe_shows_a_hostile_description_without_its_controls(
    tmp_path: Path,
) -> None:
    """``python -m pkg describe``: a tool's description and its schema's strings
    keep their lines, but no escape sequence, line separator or bidi override of
    the schema reaches the terminal."""
    description = "Red \x1b[31mtext\nsecond line \u202eevil"
    tool = text_tool(
        "t",
        "{{props.v}}",
        description=description,
        inputSchema={
            "type": "object",
            "properties": {"v": {"type": "string", "description": "a\u2028b\x7fc"}},
        },
    )
    schema = write_schema(tmp_path, schema_of(tool))
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    shown = package_main(tmp_path, "describe", "t").stdout
    assert all(line.isprintable() for line in shown.split("\n")), repr(shown)
    assert "Red \\x1b[31mtext" in shown and "second line \\u202eevil" in shown
    assert '"description": "a\\u2028b\\u007fc"' in shown


def test_a_hostile_name_stays_on_the_docstrings_first_line(tmp_path: Path) -> None:
    """A tool without a description is summed up by its name: a newline in the
    name does not start a second line of the summary ``describe`` shows."""
    name = "t\n\x1b[31mforged"
    schema = write_schema(tmp_path, schema_of(text_tool(name, "x")))
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    shown = package_main(tmp_path, "describe", name).stdout
    assert all(line.isprintable() for line in shown.split("\n")), repr(shown)
    assert "Run the MCI tool 't\\n\\x1b[31mforged'." in shown.splitlines()


@pytest.mark.parametrize("source", ["mci", "mtdf"])
def test_a_tool_name_that_is_not_printable_is_warned_about(
    tmp_path: Path, source: str
) -> None:
    """The name reaches ``tools/list`` as it is: the build says so, at the tool."""
    name = "get\nweather\x1b[0m"
    if source == "mci":
        path = write_schema(tmp_path, schema_of(text_tool(name, "x")))
    else:
        path = tmp_path / "tools"
        path.mkdir()
        tool = {"name": name, "description": "d", "command": "echo"}
        (path / "get.json").write_text(json.dumps(tool), encoding="utf-8")
    warned = [
        line
        for line in run_mcigen("check", path).stderr.splitlines()
        if "not printable" in line
    ]
    shown = path if source == "mci" else path / "get.json"
    assert len(warned) == 1 and warned[0].startswith(f"{shown}:"), warned
    assert warned[0].endswith(
        ": warning: tool 'get\\nweather\\x1b[0m': its name holds characters that "
        "are not printable, which MCP clients may show garbled or refuse (MCP asks "
        "for A-Z, a-z, 0-9, '_', '-' and '.')"
    )


try:
    LANDLOCK_HERE = abi_version() > 0
except LandlockUnavailable:
    LANDLOCK_HERE = False


def _all_printable(text: str) -> bool:
    return all(line.isprintable() for line in text.split("\n"))


HOSTILE_TOOL = "t\n\x1b[31mforged"
HOSTILE_REQUIRED = "KEY\x1b[2J\u202e"
HOSTILE_OPTIONAL = "OPT\x7f\u2066"


@pytest.fixture
def reads_hostile_variables(tmp_path: Path) -> Path:
    """A package whose tool, of a hostile name, reads two variables of hostile
    names (unset here): one required, one with a fallback."""
    text = "{{env." + HOSTILE_REQUIRED + "}} {{env." + HOSTILE_OPTIONAL + " | 'x'}}"
    schema = write_schema(tmp_path, schema_of(text_tool(HOSTILE_TOOL, text)))
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    return tmp_path


def test_doctor_shows_hostile_variable_and_tool_names_escaped(
    reads_hostile_variables: Path,
) -> None:
    shown = package_main(reads_hostile_variables, "doctor")
    assert shown.returncode == 1
    assert _all_printable(shown.stdout), repr(shown.stdout)
    assert shown.stdout.splitlines()[:5] == [
        "MISSING  $KEY\\x1b[2J\\u202e (required)",
        "  read by: t\\n\\x1b[31mforged (text)",
        "unset    $OPT\\x7f\\u2066 (optional)",
        "  read by: t\\n\\x1b[31mforged (text)",
        "",
    ]


@pytest.mark.parametrize(
    ("command", "shown"),
    [
        (("describe", HOSTILE_TOOL), "  KEY\\x1b[2J\\u202e  required, in text"),
        (("config",), '"KEY\\u001b[2J\\u202e": "${KEY\\u001b[2J\\u202e}"'),
        (("config",), "left out of env (add those you want to set): OPT\\x7f\\u2066"),
        (
            ("broker", "--check-start"),
            "python -m pkg: warning: $KEY\\x1b[2J\\u202e is not set; these calls "
            "will fail: t\\n\\x1b[31mforged (text)",
        ),
    ],
    ids=["describe", "config", "config-optional", "broker"],
)
def test_what_the_package_says_of_hostile_variables_is_printable(
    reads_hostile_variables: Path, command: tuple[str, ...], shown: str
) -> None:
    """``describe``'s variables, ``config``'s entry and its note of the optional
    ones, the warning of a server that starts without a required one."""
    said = package_main(reads_hostile_variables, *command)
    assert _all_printable(said.stdout), repr(said.stdout)
    assert _all_printable(said.stderr), repr(said.stderr)
    lines = (said.stdout + said.stderr).splitlines()
    assert any(shown in line for line in lines), lines


def _write_probed_tools(directory: Path) -> Path:
    """An MTDF tool of a hostile name whose availability check fails, writing a
    colour escape on stderr, and whose install instructions forge a line."""
    folder = directory / "tools"
    folder.mkdir()
    tool = {
        "name": HOSTILE_TOOL,
        "description": "d",
        "command": "echo",
        "install_instructions": "apt install x\nok       forged (1 tool)\x1b[0m",
        "availability_check": {
            "command": "sh",
            "args": ["-c", "printf 'no\\033[31m\\n' >&2; exit 3", "\u202e"],
        },
    }
    (folder / "t.json").write_text(json.dumps(tool), encoding="utf-8")
    return folder


def test_doctor_shows_a_hostile_probe_escaped(tmp_path: Path) -> None:
    folder = _write_probed_tools(tmp_path)
    assert run_mcigen("build", folder, "-o", tmp_path / "pkg").returncode == 0
    shown = package_main(tmp_path, "doctor")
    assert shown.returncode == 1
    assert _all_printable(shown.stdout), repr(shown.stdout)
    missing = [line for line in shown.stdout.splitlines() if line[:1] != "o"]
    assert missing[:5] == [
        "MISSING  t\\n\\x1b[31mforged",
        "  ran:     sh -c 'printf '\"'\"'no\\033[31m\\n'\"'\"' >&2; exit 3' '\\u202e'",
        "  result:  exited with code 3: no\\x1b[31m",
        "  tools:   t\\n\\x1b[31mforged",
        "  install: apt install x\\nok       forged (1 tool)\\x1b[0m",
    ]


@pytest.mark.skipif(not LANDLOCK_HERE, reason="no Landlock here: strict mode refused")
@pytest.mark.parametrize("command", [("serve",), ("broker", "--check-start")])
def test_the_sandbox_names_a_hostile_scope_escaped(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """The line a served MTDF package starts with names its ``--sandbox-scope``."""
    folder = _write_probed_tools(tmp_path)
    assert run_mcigen("build", folder, "-o", tmp_path / "pkg").returncode == 0
    scope = tmp_path / "sc\nope\x1b[31m\u202e"
    scope.mkdir()
    started = subprocess.run(
        [sys.executable, "-m", "pkg", *command, "--sandbox-scope", str(scope)],
        env=package_env(tmp_path, AHMA_DISABLE_SANDBOX=None),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    said = started.stderr.split("\n")[0]
    assert said.isprintable(), repr(started.stderr)
    assert said.endswith(f"{tmp_path}/sc\\nope\\x1b[31m\\u202e (Landlock)"), said


@pytest.mark.parametrize(
    "command", [("describe", "run", "--arg", "v=1"), ("call", "run", "--dry-run")]
)
def test_what_a_cli_tool_would_run_is_shown_on_one_line(
    tmp_path: Path, command: tuple[str, ...]
) -> None:
    """The command line of the schema, holding a newline and an escape, as
    ``describe`` given input and ``call --dry-run`` show it."""
    tool = {
        "name": "run",
        "execution": {"type": "cli", "command": "echo", "args": ["a\nb\x1b[2J"]},
    }
    schema = write_schema(tmp_path, schema_of(tool))
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    shown = package_main(tmp_path, *command)
    assert shown.returncode == 0, shown.stderr
    assert _all_printable(shown.stdout), repr(shown.stdout)
    assert shown.stdout.splitlines()[-1].endswith(": echo 'a\\nb\\x1b[2J'")
