"""``mcigen migrate``: programs written against mci-py's ``MCIClient`` rewritten into
typed calls of the compiled package (libcst keeps every comment and format), and
every call it cannot rewrite safely left as it is and reported with its place."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import MypyStrict, run_mcigen, schema_of, text_tool, write_schema
from .mcipy_suite.test_mcipy_suite import mcipy_sources

TOOLS = schema_of(
    text_tool(
        "greet",
        "Hello {{props.name}}{{props.mark}}",
        inputSchema={
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "mark": {"type": "string", "default": "!"},
            },
            "required": ["name"],
        },
    ),
    text_tool(
        "classify",
        "{{props.class}} is a {{props.kind}}",
        inputSchema={
            "type": "object",
            "properties": {"class": {"type": "string"}, "kind": {"type": "string"}},
            "required": ["class", "kind"],
        },
    ),
    text_tool("now", "always now"),
)

PROGRAM = '''\
"""A program written against mci-py."""
from mcigen import MCIClient as Client  # the stand-in, with mci-py's API

client = Client(schema_file_path="tools.mci.json")


def hello(who: str) -> str:
    # The call that greets.
    answer = client.execute("greet", {"name": who})
    if answer.result.isError:
        return "failed"
    return answer.result.content[0].text


def report() -> None:
    print(hello("Ada"))
    print(client.execute(tool_name="greet", properties={
        "name": "Bob",   # a friend
        "mark": "?",
    }).result.content[0].text)
    print(client.execute("classify", {"class": "Felis", "kind": "genus"}).result.content[0].text)
    print(client.execute("now").result.content[0].text)


report()
'''

MIGRATED = '''\
"""A program written against mci-py."""
from mcigen import MCIClient as Client  # the stand-in, with mci-py's API
from tools import classify, greet, now

client = Client(schema_file_path="tools.mci.json")


def hello(who: str) -> str:
    # The call that greets.
    answer = greet(name=who)
    if answer.isError:
        return "failed"
    return answer.content[0].text


def report() -> None:
    print(hello("Ada"))
    print(greet(
        name="Bob",   # a friend
        mark="?",
    ).content[0].text)
    print(classify(class_="Felis", kind="genus").content[0].text)
    print(now().content[0].text)


report()
'''


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """The schema, the package built from it (``tools``) and the program."""
    schema = write_schema(tmp_path, TOOLS)
    assert run_mcigen("build", schema, "-o", tmp_path / "tools").returncode == 0
    (tmp_path / "program.py").write_text(PROGRAM)
    return tmp_path


def run_program(project: Path) -> str:
    done = subprocess.run(
        [sys.executable, "program.py"],
        cwd=project,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(project)},
        check=True,
    )
    return done.stdout


def test_calls_become_typed_calls_keeping_comments_and_layout(project: Path) -> None:
    before = run_program(project)
    done = run_mcigen(
        "migrate", project / "tools.mci.json", project, "--package", "tools"
    )
    assert done.returncode == 0, done.stderr
    assert (project / "program.py").read_text() == MIGRATED
    assert done.stderr.splitlines()[-1] == (
        "migrate: rewrote 4 call(s) in 1 file(s); 0 left unchanged"
    )
    assert (
        run_program(project)
        == before
        == ("Hello Ada!\nHello Bob?\nFelis is a genus\nalways now\n")
    )


def test_a_second_run_changes_nothing(project: Path) -> None:
    schema = project / "tools.mci.json"
    run_mcigen("migrate", schema, project / "program.py", "--package", "tools")
    again = run_mcigen("migrate", schema, project / "program.py", "--package", "tools")
    assert (project / "program.py").read_text() == MIGRATED
    assert again.stderr.splitlines()[-1] == (
        "migrate: rewrote 0 call(s) in 0 file(s); 0 left unchanged"
    )


def test_diff_shows_the_change_and_writes_nothing(project: Path) -> None:
    schema = project / "tools.mci.json"
    done = run_mcigen("migrate", schema, project, "--package", "tools", "--diff")
    assert (project / "program.py").read_text() == PROGRAM
    assert '-    answer = client.execute("greet", {"name": who})\n' in done.stdout
    assert "+    answer = greet(name=who)\n" in done.stdout
    assert done.stderr.splitlines()[-1].startswith("migrate: would rewrite 4 call(s)")


TYPED = """\
from mcigen import MCIClient

client = MCIClient(schema_file_path="tools.mci.json")


def failed(who: str) -> bool:
    return client.execute("greet", {"name": who, "mark": "?"}).result.isError


def classified(name: str) -> str:
    done = client.execute("classify", {"class": name, "kind": "genus"})
    return "yes" if done.result.isError else "no"
"""


def test_mypy_strict_checks_the_rewritten_calls(
    project: Path, mypy_strict: MypyStrict
) -> None:
    program = project / "program.py"
    program.write_text(TYPED)
    run_mcigen("migrate", project / "tools.mci.json", program, "--package", "tools")
    assert 'return greet(name=who, mark="?").isError' in program.read_text()
    assert _mypy(mypy_strict, project) == []
    program.write_text(program.read_text().replace('kind="genus"', "kind=7"))
    assert _mypy(mypy_strict, project) == [
        'program.py:12: error: Argument "kind" to "classify" has incompatible '
        'type "int"; expected "str"  [arg-type]'
    ]


def _mypy(mypy_strict: MypyStrict, project: Path) -> list[str]:
    environment = {**os.environ, "MYPYPATH": str(project)}
    done = mypy_strict("program.py", cwd=project, env=environment)
    return [line for line in done.stdout.splitlines() if ": error:" in line]


UNSAFE = """\
import mcipy
from mcipy import MCIClient

client = MCIClient(schema_file_path="tools.mci.json")
other = mcipy.MCIClient(schema_file_path="elsewhere/other.json")
name = input()
props = {"name": "x"}
client.execute(name, {"name": "x"})
client.execute("greet", props)
client.execute("greet", {**props})
client.execute("greet", {"nam": "typo"})
client.execute("nothing", {})
other.execute("greet", {"name": "x"})
kept = client.execute("now")
print(kept)
greet = "a name of the program's own"
client.execute("greet", {"name": greet})
client.execute(
    "now",  # why
)
"""


def test_what_cannot_be_rewritten_safely_is_left_and_reported(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, TOOLS)
    program = tmp_path / "unsafe.py"
    program.write_text(UNSAFE)
    done = run_mcigen("migrate", schema, program, "--package", "tools")
    assert done.returncode == 0, done.stderr
    assert program.read_text() == UNSAFE
    assert done.stderr.splitlines() == [
        f"{program}:{line}:{column}: note: left unchanged: {why}"
        for line, column, why in (
            (8, 1, "the tool name is not a string literal"),
            (9, 1, "the properties are not a dict literal"),
            (10, 1, "the properties unpack a mapping (**)"),
            (11, 1, "'nam' is no property of 'greet'"),
            (12, 1, "tools has no tool 'nothing'"),
            (13, 1, "the client reads 'elsewhere/other.json', not tools.mci.json"),
            (14, 8, "'kept' is used as an ExecutionResult on line 15"),
            (17, 1, "'greet' already names something else here"),
            (18, 1, "a comment in the call would be lost"),
        )
    ] + ["migrate: rewrote 0 call(s) in 0 file(s); 9 left unchanged"]


def test_a_file_that_is_not_python_is_an_error_with_its_place(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, TOOLS)
    broken = tmp_path / "broken.py"
    broken.write_text("from mcipy import MCIClient\ndef (:\n")
    done = run_mcigen("migrate", schema, broken, "--package", "tools")
    assert done.returncode == 1
    assert re.match(rf"{re.escape(str(broken))}:2:\d+: error: ", done.stderr)


def test_mci_pys_own_example_usage(tmp_path: Path) -> None:
    """Its ``example_usage.py`` reads a schema per section: the text section's calls
    are rewritten, the others' reported as another schema's."""
    mcipy = mcipy_sources()
    shutil.copy(mcipy / "examples" / "example_usage.py", tmp_path)
    schema = mcipy / "examples" / "text_example.json"
    done = run_mcigen("migrate", schema, tmp_path, "--package", "text_tools")
    assert done.returncode == 0, done.stderr
    code = (tmp_path / "example_usage.py").read_text()
    compile(code, "example_usage.py", "exec")
    assert "from text_tools import " in code
    assert 'result = generate_message(username="Bob")' in code
    assert "    if not result.isError:\n" in code
    notes = done.stderr.splitlines()
    assert notes[-1] == "migrate: rewrote 3 call(s) in 1 file(s); 4 left unchanged"
    assert all(
        re.fullmatch(
            r".*example_usage\.py:\d+:\d+: note: left unchanged: the client reads "
            r"'examples/(cli|file|mixed)_example\.json', not text_example\.json",
            note,
        )
        for note in notes[:-1]
    ), notes


def test_mci_pys_own_tests_as_input(tmp_path: Path) -> None:
    """Its integration tests (those that call ``MCIClient``; its unit tests call
    the executors): nothing fails, every call left is reported with its place, and
    the rewritten files still compile."""
    mcipy = mcipy_sources()
    for test in (mcipy / "tests").glob("test_*.py"):
        shutil.copy(test, tmp_path)
    schema = mcipy / "example.mci.json"
    done = run_mcigen("migrate", schema, tmp_path, "--package", "example")
    assert done.returncode == 0, done.stderr
    *notes, summary = done.stderr.splitlines()
    assert summary == "migrate: rewrote 4 call(s) in 1 file(s); 14 left unchanged"
    assert all(
        re.fullmatch(r".*\.py:\d+:\d+: note: left unchanged: .+", n) for n in notes
    )
    for path in tmp_path.glob("*.py"):
        compile(path.read_text(), str(path), "exec")


def test_clients_are_found_however_they_are_held(tmp_path: Path) -> None:
    """On an attribute (``self.client``), through a module alias, in a ``with``."""
    schema = write_schema(tmp_path, TOOLS)
    program = tmp_path / "agent.py"
    program.write_text(
        "import mcipy as m\n\n\n"
        "class Agent:\n"
        "    def __init__(self) -> None:\n"
        '        self.client = m.MCIClient(schema_file_path="tools.mci.json")\n\n'
        "    def hi(self) -> str:\n"
        '        return self.client.execute("greet", {"name": "a"}).result.content[0].text\n'
        "\n\n"
        'with m.MCIClient(schema_file_path="tools.mci.json") as c:\n'
        '    c.execute("now")\n'
    )
    done = run_mcigen("migrate", schema, program, "--package", "tools")
    assert done.returncode == 0, done.stderr
    code = program.read_text()
    assert "from tools import greet, now\n" in code
    assert '        return greet(name="a").content[0].text\n' in code
    assert code.endswith("    now()\n")
