"""A value that fills a whole argument is never read as an option (issue 14, group 3).

``countLines(file='--files0-from=/outside/list')`` in the repo_tools example made
``wc`` read every file named in a list outside the path policy. A value starting
with '-' in an argument a property fills whole is refused at call time, unless a
``--`` comes before it, the property is a number, or the schema opts in with
``"allowOptionLikeArgs": true`` (mci-py ignores the field). A ``--`` in ``args``
of a tool with ``flags`` is a build warning: MCI appends flags after args, where
they are operands (the example's ``searchCode`` had exactly this bug).
"""

from __future__ import annotations

import asyncio
import importlib
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..conftest import built_package, run_mcigen, schema_of, write_schema
from ..oracle import run_oracle
from .support import built_from_tools

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
PRINT_ARGV = ["-c", "import sys; print(sys.argv[1:])"]


def _echo(name: str, args: list[str], **execution: Any) -> dict[str, Any]:
    return {
        "name": name,
        "inputSchema": {
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "count": {"type": "integer"},
                "ratio": {"type": "number"},
            },
        },
        "execution": {"type": "cli", "command": "echo", "args": args, **execution},
    }


TOOLS = [
    _echo("echoText", ["{{props.text}}"]),
    _echo("echoNumbers", ["{{props.count}}", "{{props.ratio}}"]),
    _echo("echoAfterSeparator", ["--", "{{props.text}}"]),
    _echo("echoFallback", ["{{props.text | 'none'}}"]),
    _echo("echoInside", ["text={{props.text}}"]),
    _echo("echoEnv", ["{{env.MCIGEN_TEST_OPTION}}"]),
    _echo("echoAllowed", ["{{props.text}}"], allowOptionLikeArgs=True),
]


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    yield from built_from_tools(tmp_path_factory, "clioperands", TOOLS)


@pytest.fixture(scope="module")
def repo_tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The example as it ships, built from a copy of the examples directory."""
    directory = tmp_path_factory.mktemp("repo_tools")
    examples = shutil.copytree(EXAMPLES, directory / "examples")
    (examples / "runbooks").mkdir(exist_ok=True)
    with built_package(
        examples / "repo_tools.mci.json", directory / "repo_tools_operands"
    ) as package:
        yield package


def _outside_list(tmp_path: Path) -> Path:
    """A NUL-separated list naming a file outside the example's policy."""
    secret = tmp_path / "outside-secret.txt"
    secret.write_text("one\ntwo\n")
    listing = tmp_path / "list"
    listing.write_bytes(str(secret).encode() + b"\0")
    return listing


def test_the_examples_count_lines_refuses_an_option(
    repo_tools: ModuleType, tmp_path: Path
) -> None:
    attack = f"--files0-from={_outside_list(tmp_path)}"
    for result in (
        repo_tools.count_lines(file=attack),
        asyncio.run(repo_tools.count_lines_async(file=attack)),
    ):
        assert result.isError
        assert result.text.startswith("Refused: 'file' is '--files0-from=/")
        assert result.text.endswith(
            "', which starts with '-': 'wc' would "
            "read argument 2 as an option rather than as the value of 'file'. "
            "Values starting with '-' are refused here unless the tool's args put "
            "'--' before it or its cli execution sets \"allowOptionLikeArgs\": true"
        )
    assert repo_tools.count_lines(file="greetings.mci.yaml").text.endswith(
        " greetings.mci.yaml\n"
    )


def test_the_examples_search_code_takes_its_flags_and_any_pattern(
    repo_tools: ModuleType,
) -> None:
    found = repo_tools.search_code(pattern="COUNTLINES", ignore_case=True, max_count=1)
    lines = (EXAMPLES / "repo_tools.mci.json").read_text().splitlines()
    number = next(i for i, line in enumerate(lines, 1) if '"countLines"' in line)
    assert (found.isError, found.text) == (
        False,
        f"./repo_tools.mci.json:{number}:{lines[number - 1]}\n",
    )
    dashed = repo_tools.search_code(pattern='-e", "{{props')
    assert dashed.text.startswith("./repo_tools.mci.json:")


def _invoke(tool: str, props: dict[str, Any]) -> Any:
    return importlib.import_module("clioperands.tools.main").INVOKERS[tool](props, {})


@pytest.mark.parametrize(
    ("tool", "props", "printed"),
    [
        ("echoNumbers", {"count": -3, "ratio": -0.5}, "-3 -0.5"),
        ("echoNumbers", {"count": 0, "ratio": -1e-07}, "0 -1e-07"),
        ("echoAfterSeparator", {"text": "-n"}, "-- -n"),
        ("echoInside", {"text": "-n"}, "text=-n"),
        ("echoAllowed", {"text": "-E"}, ""),
        ("echoText", {"text": "a-b"}, "a-b"),
    ],
)
def test_values_that_cannot_be_options_pass(
    package: ModuleType, tool: str, props: dict[str, Any], printed: str
) -> None:
    result = _invoke(tool, props)
    assert (result.isError, result.text) == (False, printed + "\n")


@pytest.mark.parametrize(
    ("tool", "props", "name"),
    [
        ("echoText", {"text": "-n"}, "text"),
        ("echoText", {"text": "--help"}, "text"),
        ("echoFallback", {"text": "-e"}, "text"),
    ],
)
def test_option_like_values_are_refused(
    package: ModuleType, tool: str, props: dict[str, Any], name: str
) -> None:
    result = _invoke(tool, props)
    assert result.isError
    assert result.text.startswith(f"Refused: '{name}' is {props['text']!r}")


def test_values_from_the_environment_are_the_deployers(
    package: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("MCIGEN_TEST_OPTION", "-E")
    assert (package.echo_env().isError, package.echo_env().text) == (False, "\n")


def test_flags_after_a_separator_are_a_located_warning(tmp_path: Path) -> None:
    tool = {
        "name": "find",
        "inputSchema": {
            "type": "object",
            "properties": {"p": {"type": "string"}, "i": {"type": "boolean"}},
        },
        "execution": {
            "type": "cli",
            "command": "grep",
            "args": ["-r", "--", "{{props.p}}"],
            "flags": {"-i": {"from": "props.i", "type": "boolean"}},
        },
    }
    schema = tmp_path / "sep.mci.json"
    schema.write_text(
        '{"schemaVersion": "1.0", "tools": [\n' + json.dumps(tool) + "\n]}"
    )
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    column = schema.read_text().splitlines()[1].index('"--"') + 1
    assert result.returncode == 0
    assert result.stderr.splitlines() == [
        f"{schema}:2:{column}: warning: '--' ends the options, but MCI appends "
        "flags ('-i') after args, so the command would read them as operands. "
        "Drop '--' (a value starting with '-' that fills an operand is refused at "
        "call time anyway), or pass the value through an option (grep's "
        "'-e PATTERN')",
        "0 errors, 1 warning",
    ]


def test_the_repo_tools_example_builds_without_warnings(tmp_path: Path) -> None:
    result = run_mcigen("build", EXAMPLES / "repo_tools.mci.json", "-o", tmp_path / "o")
    assert (result.returncode, result.stderr) == (0, "")


def test_row58_mci_py_lets_wc_read_an_outside_list(tmp_path: Path) -> None:
    """Both sides of the difference; mci-py also accepts ``allowOptionLikeArgs``."""
    tools = [
        {
            "name": "countLines",
            "inputSchema": {
                "type": "object",
                "properties": {"file": {"type": "string"}},
                "required": ["file"],
            },
            "execution": {
                "type": "cli",
                "command": "wc",
                "args": ["-l", "{{props.file}}"],
            },
        },
        _echo("echoAllowed", ["{{props.text}}"], allowOptionLikeArgs=True),
    ]
    schema = write_schema(tmp_path, schema_of(*tools), "row58.mci.json")
    attack = {"file": f"--files0-from={_outside_list(tmp_path)}"}
    theirs = run_oracle(
        schema,
        [
            {"tool": "countLines", "props": attack, "env": {}},
            {"tool": "echoAllowed", "props": {"text": "-E"}, "env": {}},
        ],
    )
    assert theirs[0]["result"]["content"][0]["text"].startswith("2 ")
    assert theirs[1]["result"]["content"][0]["text"] == "\n"
    with built_package(schema, tmp_path / "clirow58") as package:
        assert package.count_lines(**attack).text.startswith("Refused: 'file' is")
        assert package.echo_allowed(text="-E").text == "\n"
