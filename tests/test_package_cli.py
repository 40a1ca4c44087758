"""``python -m pkg list | describe | call``: the generated package's command line,
run as real processes."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from .conftest import cut_short, run_mcigen, schema_of, text_tool, write_schema

SCHEMA = schema_of(
    text_tool(
        "sayHi",
        "Hi {{props.who}} x{{props.times}} {{props.extra.k | 'none'}}",
        description="Say hello.\n\nA longer explanation that list does not show.",
        inputSchema={
            "type": "object",
            "properties": {
                "who": {"type": "string", "description": "Who to greet"},
                "times": {"type": "integer", "default": 1},
                "extra": {"type": "object"},
                "mood": {"type": "string", "enum": ["calm", "loud"]},
            },
            "required": ["who"],
        },
        tags=["a", "b"],
    ),
    text_tool("plain", "constant text"),
    text_tool("lines", "one\ntwo\n"),
    text_tool("broken", "{{env.MCIGEN_TEST_UNSET_VARIABLE}}"),
)

Run = Callable[..., subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    built = tmp_path_factory.mktemp("cli")
    schema = write_schema(built, SCHEMA)
    assert run_mcigen("build", schema, "-o", built / "clipkg").returncode == 0
    return built


@pytest.fixture(scope="module")
def package(directory: Path) -> Run:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "clipkg", *args],
            cwd=directory,
            capture_output=True,
            text=True,
            check=False,
        )

    return run


def test_list_shows_name_type_group_tags_and_the_first_line(package: Run) -> None:
    listed = package("list")
    assert listed.returncode == 0
    lines = listed.stdout.splitlines()
    assert lines[0].split() == ["NAME", "TYPE", "GROUP", "TAGS", "DESCRIPTION"]
    assert lines[1].split() == ["sayHi", "text", "main", "a,b", "Say", "hello."]
    assert lines[2].split() == ["plain", "text", "main"]


def test_describe_shows_signature_docstring_and_schema(package: Run) -> None:
    described = package("describe", "sayHi")
    assert described.returncode == 0, described.stderr
    text = described.stdout
    assert text.splitlines()[0] == (
        "say_hi(*, who: str, times: int = 1, extra: dict[str, Any] | None = None, "
        "mood: Literal['calm', 'loud'] | None = None) -> ToolResult"
    )
    assert "Say hello." in text and "who: Who to greet" in text
    schema_part = text[text.index("Input schema:") + len("Input schema:") :]
    assert json.loads(schema_part)["required"] == ["who"]
    assert package("describe", "say_hi").stdout == text


def test_call_with_json_or_args(package: Run) -> None:
    called = package("call", "sayHi", "--json", '{"who": "Bo"}')
    assert (called.returncode, called.stdout) == (0, "Hi Bo x1 none\n")
    with_args = package(
        "call",
        "say_hi",
        "--arg",
        "who=42",
        "--arg",
        "times=3",
        "--arg",
        'extra={"k": "v"}',
    )
    assert (with_args.returncode, with_args.stdout) == (0, "Hi 42 x3 v\n")
    merged = package(
        "call", "sayHi", "--json", '{"who": "A", "times": 2}', "--arg", "times=5"
    )
    assert merged.stdout == "Hi A x5 none\n"


def test_output_that_ends_its_line_is_printed_as_it_is(package: Run) -> None:
    """As the command would print it: a tool's last line end is not doubled."""
    assert package("call", "lines").stdout == "one\ntwo\n"
    assert package("call", "plain").stdout == "constant text\n"


def test_raw_prints_the_whole_result(package: Run) -> None:
    raw = package("call", "plain", "--raw")
    assert json.loads(raw.stdout) == {
        "content": [{"type": "text", "text": "constant text"}],
        "isError": False,
        "metadata": None,
    }


def test_an_error_result_exits_1(package: Run) -> None:
    failed = package("call", "broken")
    assert failed.returncode == 1
    assert "MCIGEN_TEST_UNSET_VARIABLE" in failed.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ("call", "nope"),
            "error: Tool not found: nope (python -m clipkg list lists them)\n",
        ),
        (
            ("describe", "sayhi"),
            "error: Tool not found: sayhi (did you mean 'sayHi'?)\n",
        ),
        (
            ("call", "sayHi", "--json", '{"who": 1}'),
            "error: invalid input for tool 'sayHi': who: Input should be a valid string\n",
        ),
        (("call", "sayHi", "--json", "[1]"), "error: --json must be a JSON object\n"),
        (
            ("call", "sayHi", "--arg", "who"),
            "error: --arg takes KEY=VALUE, got 'who'\n",
        ),
        (
            ("call", "sayHi", "--arg", "mood=angry", "--arg", "who=x"),
            "error: invalid input for tool 'sayHi': mood: Input should be 'calm' or 'loud'\n",
        ),
    ],
)
def test_bad_commands_are_one_line_errors(
    package: Run, args: tuple[str, ...], message: str
) -> None:
    result = package(*args)
    assert (result.returncode, result.stderr) == (2, message)


def test_listing_imports_neither_tools_nor_pydantic_nor_the_mcp_sdk(
    directory: Path,
) -> None:
    probe = (
        "import runpy, sys\n"
        "sys.argv = ['clipkg', 'list']\n"
        "try:\n"
        "    runpy.run_module('clipkg', run_name='__main__')\n"
        "except SystemExit:\n"
        "    pass\n"
        "heavy = ('mcp', 'mcp_types', 'anyio', 'pydantic', 'clipkg.tools.main')\n"
        "print(sorted(m for m in sys.modules if m in heavy), file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe],
        cwd=directory,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.stderr.strip() == "[]"


@pytest.mark.parametrize("command", [["list"], ["broker", "--dump-tree"]])
def test_output_cut_short_by_its_reader_ends_quietly(
    directory: Path, command: list[str]
) -> None:
    """``list | head``, ``broker --dump-tree | head``: the reader closes the pipe
    (here before anything is written, so every write finds it closed); the
    command ends with SIGPIPE's status and no traceback."""
    argv: list[str | Path] = [sys.executable, "-m", "clipkg", *command]
    assert cut_short(argv, cwd=directory) == (141, b"")
