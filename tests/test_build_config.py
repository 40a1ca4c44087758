"""Building as the generators mcigen is compared with build: ``[tool.mcigen]`` in
``pyproject.toml``, ``build --watch``, one summary line on success, ``--strict``."""

from __future__ import annotations

import json
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from .conftest import (
    imported_package,
    run_mcigen,
    run_mcigen_process,
    schema_of,
    text_tool,
    write_schema,
)
from .mcigen_process import PATIENCE, McigenProcess

HELLO = text_tool("hello", "Hello {{props.who}}!")
BYE = text_tool("bye", "Bye!")
MISSPELT = {
    "name": "search",
    "execution": {"type": "http", "url": "http://127.0.0.1:1/", "parms": {"q": "x"}},
}


def test_check_and_build_end_with_one_summary_line(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(HELLO, BYE, MISSPELT))
    out = tmp_path / "pkg"
    checked = run_mcigen("check", schema)
    assert (checked.returncode, checked.stdout) == (
        0,
        "ok: 3 tools, 1 warning; nothing written\n",
    )
    built = run_mcigen("build", schema, "-o", out)
    assert (built.returncode, built.stdout) == (
        0,
        f"ok: 3 tools, 1 warning; wrote {out}\n",
    )
    assert run_mcigen("build", schema, "-o", out, "--check").stdout == ""
    one = write_schema(tmp_path, schema_of(BYE), "one.mci.json")
    assert (
        run_mcigen("check", one).stdout == "ok: 1 tool, 0 warnings; nothing written\n"
    )


def test_strict_fails_on_a_misspelt_field_and_writes_nothing(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, schema_of(HELLO, MISSPELT))
    out = tmp_path / "pkg"
    for command in (("check",), ("build", "-o", out)):
        strict = run_mcigen(*command[:1], schema, *command[1:], "--strict")
        assert strict.returncode == 1
        assert "unknown field 'parms' in http execution (did you mean 'params'?)" in (
            strict.stderr
        )
        assert strict.stderr.endswith("mcigen: error: --strict: 1 warning\n")
        assert strict.stdout == ""
    assert not out.exists()
    assert run_mcigen("build", schema, "-o", out).returncode == 0


PYPROJECT = """\
[project]
name = "agent"

[[tool.mcigen.builds]]
input = "schemas/tools.mci.json"
output = "src/greet"

[[tool.mcigen.builds]]
input = "schemas/tools.mci.json"
output = "dist/greet-tools"
form = "project"
whitespace = "trim"
flags = ["--limit", "text_output=1MiB"]
"""


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "schemas").mkdir()
    write_schema(tmp_path / "schemas", schema_of(HELLO))
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    return tmp_path


def test_build_without_a_schema_builds_what_pyproject_configures(
    project: Path,
) -> None:
    inside = project / "schemas"  # the nearest pyproject.toml above the cwd
    built = run_mcigen_process("build", cwd=inside)
    assert built.returncode == 0, built.stderr
    assert built.stdout.splitlines() == [
        f"ok: 1 tool, 0 warnings; wrote {project / 'src' / 'greet'}",
        f"ok: 1 tool, 0 warnings; wrote {project / 'dist' / 'greet-tools'}",
    ]
    with imported_package(project / "src" / "greet") as greet:
        assert greet.hello(who="team").text == "Hello team!"
    manifest = project / "dist" / "greet-tools" / "greet_tools" / "manifest.json"
    assert json.loads(manifest.read_text())["build"]["flags"] == [
        "--whitespace",
        "trim",
        "--limit",
        "text_output=1048576",
        "--project",
    ]
    checked = run_mcigen_process("check", "--strict", cwd=project)
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.count("nothing written") == 2


def test_one_table_is_one_build(tmp_path: Path) -> None:
    write_schema(tmp_path, schema_of(HELLO))
    (tmp_path / "pyproject.toml").write_text(
        '[tool.mcigen]\ninput = "tools.mci.json"\noutput = "hello"\nname = "hi"\n'
    )
    built = run_mcigen_process("build", cwd=tmp_path)
    assert built.returncode == 0, built.stderr
    manifest = json.loads((tmp_path / "hello" / "manifest.json").read_text())
    assert manifest["package"] == "hi"


def test_a_bad_configuration_is_located_and_builds_nothing(project: Path) -> None:
    (project / "pyproject.toml").write_text(
        PYPROJECT.replace('output = "src/greet"', 'ouput = "src/greet"').replace(
            'form = "project"', "form = 3"
        )
    )
    result = run_mcigen_process("build", cwd=project)
    pyproject = project / "pyproject.toml"
    assert result.returncode == 1
    assert result.stderr.splitlines() == [
        f"{pyproject}:4:1: error: missing required key 'output'",
        f"{pyproject}:6:1: error: unknown key 'ouput' in [[tool.mcigen.builds]] "
        "(did you mean 'output'?); keys are input, output, name, whitespace, form, "
        "flags",
        f"{pyproject}:11:1: error: 'form' must be a string",
        "3 errors, 0 warnings",
    ]
    assert not (project / "src").exists() and not (project / "dist").exists()


def test_without_schema_or_configuration_build_says_what_it_needs(
    tmp_path: Path,
) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    result = run_mcigen_process("build", cwd=tmp_path)
    assert result.returncode == 2
    assert result.stderr == (
        "mcigen: error: no SCHEMA given, and no pyproject.toml here or above "
        "configures a build in [tool.mcigen]\n"
    )


@pytest.fixture
def watching(project: Path) -> Iterator[McigenProcess]:
    """``mcigen build --watch``, what it writes (stdout and stderr) read as it comes."""
    watch = McigenProcess(project, "build", "--watch", stream="stdout")
    yield watch
    watch.kill()


def test_build_watch_rebuilds_on_change_until_stopped(
    project: Path, watching: McigenProcess
) -> None:
    watching.count(r"^ok: 1 tool, 0 warnings; wrote ", 2)
    watching.count(r"^mcigen: watching ", 1)
    schema = project / "schemas" / "tools.mci.json"
    schema.write_text('{"schemaVersion": "1.0", "tools": [{"name": 1}]}')
    watching.count(r": error: ", 1)
    manifest = project / "src" / "greet" / "manifest.json"
    assert [t["name"] for t in json.loads(manifest.read_text())["tools"]] == ["hello"]
    write_schema(project / "schemas", schema_of(HELLO, BYE))
    watching.count(r"^ok: 2 tools, 0 warnings; wrote ", 2)
    assert [t["name"] for t in json.loads(manifest.read_text())["tools"]] == [
        "hello",
        "bye",
    ]
    watching.process.send_signal(signal.SIGINT)
    assert watching.process.wait(PATIENCE) == 0


def test_build_watch_rebuilds_a_project_when_a_file_it_carries_changes(
    tmp_path: Path,
) -> None:
    """A file tool's template and the folder a tool reads by placeholder travel in
    the project's ``_data/``: editing the one, or adding a file to the other, is a
    change of the input."""
    (tmp_path / "templates").mkdir()
    (tmp_path / "templates" / "report.md").write_text("first\n")
    (tmp_path / "runbooks").mkdir()
    (tmp_path / "runbooks" / "deploy.md").write_text("deploy\n")
    schema = write_schema(
        tmp_path,
        schema_of(
            {
                "name": "report",
                "execution": {"type": "file", "path": "templates/report.md"},
            },
            {
                "name": "runbook",
                "execution": {"type": "file", "path": "runbooks/{{props.file}}"},
            },
        ),
    )
    data = tmp_path / "out" / "package" / "_data"
    watch = McigenProcess(
        tmp_path,
        *("build", str(schema), "-o", "out", "--name", "package", "--project"),
        "--watch",
        stream="stdout",
    )
    try:
        watch.count(r"^mcigen: watching ", 1)
        (tmp_path / "templates" / "report.md").write_text("second\n")
        watch.count(r"changed: rebuilding$", 1)
        watch.count(r"^ok: 2 tools, 0 warnings; wrote ", 2)
        assert (data / "templates" / "report.md").read_text() == "second\n"
        (tmp_path / "runbooks" / "rollback.md").write_text("rollback\n")
        watch.count(r"^ok: 2 tools, 0 warnings; wrote ", 3)
        assert (data / "runbooks" / "rollback.md").read_text() == "rollback\n"
        assert watch.stop(signal.SIGINT) == 0
    finally:
        watch.kill()
