"""``mcigen build --project``: the pyproject.toml declares exactly what the package
needs, the README shows its tools and how to serve them, hostile strings stay data
in both, and the project is written, guarded and checked as one directory."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path
from typing import Any

import mcigen_runtime
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from packaging.requirements import Requirement

from mcigen.backend import project_data
from mcigen.backend.toml_text import toml_string
from mcigen.diagnostics import printable
from mcigen.pipeline import CompileOptions, compile_schema

from .conftest import (
    ROOT,
    imported_package,
    run_mcigen,
    schema_of,
    text_tool,
    without_build_entry,
    write_schema,
)

RUNTIME_SPEC = mcigen_runtime.requirement(mcigen_runtime.__version__)
RUNTIME_PROJECT = tomllib.loads((ROOT / "runtime" / "pyproject.toml").read_text())[
    "project"
]
"""What the runtime itself declares: the vendored form must declare the same."""

GREET = text_tool(
    "greet",
    "Hello, {{props.name}}!",
    description="Greet someone.\nA second line the table leaves out.",
    inputSchema={
        "type": "object",
        "properties": {
            "name": {"type": "string"},
            "language": {"type": "string", "enum": ["en", "de"], "default": "en"},
        },
        "required": ["name"],
    },
)
HTTP_TOOL = {
    "name": "fetch_page",
    "execution": {"type": "http", "method": "GET", "url": "http://127.0.0.1:9/x"},
}
METADATA = {
    "name": "Demo Tools!",
    "version": "1.2",
    "description": "  Demo tools for tests.\n\nMore about them.",
}


def _document(*tools: dict[str, Any], **metadata: Any) -> dict[str, Any]:
    return {**schema_of(*tools), "metadata": {**METADATA, **metadata}}


def _project(
    tmp_path: Path, document: dict[str, Any], *options: str, out: str = "demo-tools"
) -> Path:
    tmp_path.mkdir(exist_ok=True)
    schema = write_schema(tmp_path, document)
    result = run_mcigen("build", schema, "-o", tmp_path / out, "--project", *options)
    assert result.returncode == 0, result.stderr
    return tmp_path / out


def _pyproject(project: Path) -> dict[str, Any]:
    return tomllib.loads((project / "pyproject.toml").read_text(encoding="utf-8"))


def _needs(requirements: list[str]) -> set[str]:
    """Requirements compared as packaging reads them (order of specifiers aside)."""
    return {str(Requirement(line)) for line in requirements}


def _runtime_extra(extra: str) -> list[str]:
    return list(RUNTIME_PROJECT["optional-dependencies"][extra])


@pytest.mark.parametrize(
    ("tools", "options", "dependencies", "serve"),
    [
        pytest.param(
            [GREET],
            ["--no-vendor-runtime"],
            [f"mcigen-runtime{RUNTIME_SPEC}"],
            None,
            id="text",
        ),
        pytest.param(
            [GREET, HTTP_TOOL],
            ["--no-vendor-runtime"],
            [f"mcigen-runtime[http]{RUNTIME_SPEC}"],
            None,
            id="http",
        ),
        pytest.param(
            [GREET],
            [],
            RUNTIME_PROJECT["dependencies"],
            _runtime_extra("mcp"),
            id="vendored-text",
        ),
        pytest.param(
            [GREET, HTTP_TOOL],
            ["--vendor-runtime"],
            RUNTIME_PROJECT["dependencies"] + _runtime_extra("http"),
            _runtime_extra("mcp"),
            id="vendored-http",
        ),
    ],
)
def test_the_project_declares_exactly_the_dependencies_its_tools_need(
    tmp_path: Path,
    tools: list[dict[str, Any]],
    options: list[str],
    dependencies: list[str],
    serve: list[str] | None,
) -> None:
    project = _pyproject(_project(tmp_path, _document(*tools), *options))["project"]
    assert _needs(project["dependencies"]) == _needs(dependencies)
    serving = serve or [f"mcigen-runtime[mcp]{RUNTIME_SPEC}"]
    assert set(project["optional-dependencies"]) == {"serve"}
    assert _needs(project["optional-dependencies"]["serve"]) == _needs(serving)


def test_a_project_with_mcp_tools_needs_the_mcp_extra(tmp_path: Path) -> None:
    result = run_mcigen(
        "build",
        ROOT / "examples" / "workspace.mci.yaml",
        "-o",
        tmp_path / "workspace",
        "--project",
        "--no-vendor-runtime",
        "--offline",
    )
    assert result.returncode == 0, result.stderr
    project = _pyproject(tmp_path / "workspace")["project"]
    assert project["dependencies"] == [f"mcigen-runtime[mcp]{RUNTIME_SPEC}"]
    readme = (tmp_path / "workspace" / "README.md").read_text(encoding="utf-8")
    assert "| `read_text_file` | `read_text_file(*, path: str" in readme


def test_pyproject_names_versions_and_describes_the_distribution(
    tmp_path: Path,
) -> None:
    document = _document(GREET)
    pyproject = _pyproject(_project(tmp_path, document))
    assert pyproject["build-system"]["build-backend"] == "hatchling.build"
    project = pyproject["project"]
    assert project["name"] == "demo-tools"
    assert project["version"] == "1.2"
    assert project["description"] == "Demo tools for tests."
    assert project["readme"] == "README.md"
    assert project["requires-python"] == ">=3.11"
    wheel = pyproject["tool"]["hatch"]["build"]["targets"]["wheel"]
    assert wheel["packages"] == ["demo_tools"]
    assert (tmp_path / "demo-tools" / "demo_tools" / "__init__.py").is_file()


def test_without_metadata_the_names_come_from_the_directory(tmp_path: Path) -> None:
    project = _project(tmp_path, schema_of(GREET), out="my-tools")
    declared = _pyproject(project)["project"]
    assert declared["name"] == "my-tools"
    assert declared["version"] == "0.0.0"
    assert "description" not in declared
    assert (project / "my_tools" / "__init__.py").is_file()
    assert (project / "README.md").read_text().startswith("# my-tools\n")


def test_the_package_is_the_one_a_plain_build_writes(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, _document(GREET))
    plain = tmp_path / "plain" / "proj"
    built = run_mcigen("build", schema, "-o", plain, "--vendor-runtime")
    assert built.returncode == 0
    project = _project(tmp_path, _document(GREET), out="proj")
    wrapped = project / "proj"
    assert without_build_entry(_files(plain)) == without_build_entry(_files(wrapped))
    flags = [
        json.loads((package / "manifest.json").read_text())["build"]["flags"]
        for package in (plain, wrapped)
    ]
    assert flags == [["--vendor-runtime"], ["--project"]]
    assert set(_files(project)) - {f"proj/{name}" for name in _files(wrapped)} == {
        ".mcigen",
        "pyproject.toml",
        "README.md",
        "Dockerfile",
    }


def test_an_invalid_version_is_a_located_error_and_writes_nothing(
    tmp_path: Path,
) -> None:
    schema = tmp_path / "tools.mci.yaml"
    schema.write_text(
        'schemaVersion: "1.0"\n'
        "metadata:\n"
        "  name: Demo\n"
        "  version: one point oh\n"
        "tools:\n"
        "  - {name: hi, execution: {type: text, text: hi}}\n"
    )
    result = run_mcigen("build", schema, "-o", tmp_path / "demo", "--project")
    assert result.returncode == 1
    assert (
        f"{schema}:4:12: error: metadata.version 'one point oh' is not a version"
        in result.stderr
    )
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "demo").exists()
    assert run_mcigen("build", schema, "-o", tmp_path / "plain").returncode == 0


def test_check_compares_the_whole_project(tmp_path: Path) -> None:
    document = _document(GREET)
    project = _project(tmp_path, document)
    schema = tmp_path / "tools.mci.json"
    check = ("build", schema, "-o", project, "--project", "--check")
    untouched = run_mcigen(*check)
    assert untouched.returncode == 0, untouched.stdout + untouched.stderr
    assert untouched.stdout == ""

    readme = project / "README.md"
    readme.write_text(readme.read_text().replace("Greet someone.", "Edited."))
    (project / "notes.txt").write_text("mine\n")
    edited = run_mcigen(*check)
    assert edited.returncode == 1
    assert "--- a/README.md\n+++ b/README.md\n" in edited.stdout
    assert "-| `greet` | `greet(*, name: str, language: " in edited.stdout
    assert "--- a/notes.txt\n+++ /dev/null\n" in edited.stdout
    assert not run_mcigen(*check[:-1]).returncode  # rebuilt: the same again
    assert run_mcigen(*check).stdout == ""


def test_a_project_is_guarded_like_a_package(tmp_path: Path) -> None:
    schema = write_schema(tmp_path, _document(GREET))
    foreign = tmp_path / "demo-tools"
    foreign.mkdir()
    (foreign / "pyproject.toml").write_text("[project]\nname = 'mine'\n")
    refused = run_mcigen("build", schema, "-o", foreign, "--project")
    assert refused.returncode == 1
    assert "refusing to overwrite" in refused.stderr
    assert (foreign / "pyproject.toml").read_text() == "[project]\nname = 'mine'\n"

    other = run_mcigen(
        "build", schema, "-o", tmp_path / "b", "--project", "--name", "x"
    )
    assert other.returncode == 0, other.stderr
    renamed = run_mcigen("build", schema, "-o", tmp_path / "b", "--project")
    assert renamed.returncode == 1
    assert "marker names package 'x', not 'b'" in renamed.stderr

    bad_name = run_mcigen(
        "build", schema, "-o", tmp_path / "c", "--project", "--name", "a.b"
    )
    assert bad_name.returncode == 2
    assert "'a.b' is not a valid package name" in bad_name.stderr


def test_two_builds_give_the_same_bytes_and_no_absolute_path(tmp_path: Path) -> None:
    one = _project(tmp_path / "one", _document(GREET, HTTP_TOOL))
    two = _project(tmp_path / "two", _document(GREET, HTTP_TOOL))
    assert _files(one) == _files(two)
    for name, content in _files(one).items():
        assert str(tmp_path).encode() not in content, name


def test_the_readme_lists_the_tools_and_how_to_serve_them(tmp_path: Path) -> None:
    readme = (_project(tmp_path, _document(GREET, HTTP_TOOL)) / "README.md").read_text()
    assert readme.startswith("# Demo Tools!\n\nDemo tools for tests.\n\nMore about")
    assert _table(readme) == [
        ["Tool", "Python function", "Description"],
        ["---", "---", "---"],
        [
            "`greet`",
            '`greet(*, name: str, language: Literal["en", "de"] = "en")`',
            "Greet someone.",
        ],
        ["`fetch_page`", "`fetch_page(**props: Any)`", ""],
    ]
    assert "pip install 'demo-tools[serve]'" in readme
    assert "python -m demo_tools serve --http 127.0.0.1:8000\n" in readme
    config = json.loads(_fenced(readme, "json"))
    assert config == {
        "mcpServers": {
            "demo-tools": {
                "command": "/path/to/venv/bin/python",
                "args": ["-m", "demo_tools", "serve"],
            }
        }
    }
    assert "`python -m demo_tools config` prints it for your installation" in readme


def test_the_readme_lists_the_variables_the_tools_read(tmp_path: Path) -> None:
    keyed = {
        "name": "fetch_keyed",
        "execution": {
            "type": "http",
            "method": "GET",
            "url": "{{env.DEMO_URL | 'http://127.0.0.1:9'}}/x",
            "headers": {"X-Key": "{{env.DEMO_KEY}}"},
        },
    }
    readme = (_project(tmp_path, _document(GREET, keyed)) / "README.md").read_text()
    section = readme.split("## Environment variables\n\n", 1)[1]
    table = section.split("\n\n", 2)[1]
    assert table.splitlines() == [
        "| Variable | Needed | Read by |",
        "| --- | --- | --- |",
        "| `DEMO_KEY` | required | fetch\\_keyed |",
        "| `DEMO_URL` | optional | fetch\\_keyed |",
    ]
    entry = json.loads(_fenced(readme, "json"))["mcpServers"]["demo-tools"]
    assert entry["env"] == {"DEMO_KEY": "${DEMO_KEY}"}


def test_the_wheel_carries_the_data_files(tmp_path: Path) -> None:
    colours = [f"colour-{index}" for index in range(300)]  # a large enum: data
    paint = text_tool(
        "paint",
        "{{props.colour}}",
        inputSchema={
            "type": "object",
            "properties": {"colour": {"type": "string", "enum": colours}},
        },
    )
    project = _project(tmp_path, _document(paint))
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation"]
        + ["--disable-pip-version-check", "-q", "-w", tmp_path / "dist", project],
        check=True,
    )
    (wheel,) = (tmp_path / "dist").glob("demo_tools-1.2-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    assert {
        "demo_tools/manifest.json",
        "demo_tools/tools/main.enums.json",
        "demo_tools/py.typed",
        "demo_tools/tools/main.py",
    } <= names
    assert not any(name.endswith(".mcigen") for name in names)


# ------------------------------------------------------------------ hostile strings

_BREAKERS = "|`<>\"'\\\n\r\t\x00\x1b\x7f\x85\u2028*_[]()#&$~!-=+.:;{}é€𝄞 "
_CHARACTERS = st.characters(
    categories=["L", "M", "N", "P", "S", "Z", "Cc", "Cf", "Co"]
) | st.sampled_from(_BREAKERS)
_PAYLOADS = (
    "<script>alert(1)</script>",
    '"""\n[tool.evil]\nx = 1\n"""',
    "a | b | c",
    "```\n| x | y |\n|---|---|\n",
    "# heading\n- item\n1. item\n> quote\n    code",
    "[link](javascript:alert(1)) ![img](x) <http://x> &amp; ~~s~~ $x$",
    '\\"\\\\\n\x7f\x00\'\'\' """ \\u0041',
)
hostile = st.one_of(
    st.sampled_from(_PAYLOADS),
    st.text(_CHARACTERS, max_size=30),
    st.builds(lambda a, b: a + b, st.sampled_from(_PAYLOADS), st.text(_CHARACTERS)),
)


@settings(max_examples=200, deadline=None)
@given(hostile)
def test_toml_string_round_trips(value: str) -> None:
    assert tomllib.loads(f"value = {toml_string(value)}\n") == {"value": value}


@st.composite
def hostile_documents(draw: st.DrawFn) -> dict[str, Any]:
    tools = []
    for index in range(draw(st.integers(1, 3))):
        values = draw(st.lists(hostile, min_size=1, max_size=3, unique=True))
        tools.append(
            text_tool(
                f"t{index}{draw(hostile)}",
                "{{props.choice}}",
                description=draw(hostile),
                inputSchema={
                    "type": "object",
                    "properties": {
                        "choice": {"type": "string", "enum": values},
                        "other": {"type": "string", "default": draw(hostile)},
                    },
                },
            )
        )
    metadata = {"name": draw(hostile), "description": draw(hostile)}
    return {**schema_of(*tools), "metadata": metadata}


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(document=hostile_documents())
def test_hostile_strings_stay_data_in_pyproject_and_readme(
    tmp_path: Path, document: dict[str, Any]
) -> None:
    schema = write_schema(tmp_path, document)
    files, diagnostics = compile_schema(
        schema, tmp_path / "proj", "proj", CompileOptions(project=True)
    )
    assert files is not None, diagnostics.render()

    project = tomllib.loads(files["pyproject.toml"].decode())["project"]
    lines = document["metadata"]["description"].strip().splitlines()
    assert project.get("description") == (lines[0].strip() if lines else None)
    assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", project["name"])

    readme = files["README.md"].decode()
    title = readme.split("\n", 1)[0].removeprefix("# ")
    assert _no_markup(title)
    name = printable(document["metadata"]["name"]).strip()
    assert _as_read(title) == (name or project["name"])

    rows = _table(readme)
    assert len(rows) == 2 + len(document["tools"])
    for row, tool in zip(rows[2:], document["tools"], strict=True):
        assert _code_span(row[0]) == printable(tool["name"])
        assert _code_span(row[1]).startswith("t")
        lines = tool["description"].strip().splitlines()
        assert _no_markup(row[2])
        assert _as_read(row[2]) == (printable(lines[0]).strip() if lines else "")
    for line in _paragraph_lines(readme):
        assert _no_markup(line)


# ------------------------------------------------------------ reading Markdown back

_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")
"""A backslash escape of ASCII punctuation (CommonMark)."""


def _as_read(inline: str) -> str:
    """Inline text as a reader sees it: the escapes resolved."""
    return _ESCAPE.sub(r"\1", inline)


def _no_markup(inline: str) -> bool:
    """No character that starts inline markup or HTML is left unescaped, and the
    line starts no block."""
    bare = _ESCAPE.sub("", inline)
    return not set(bare) & set("\\`*_[]<>&~|$") and not re.match(
        r"\s|[#+\-=]|\d+[.)]", inline
    )


def _table(readme: str) -> list[list[str]]:
    """The rows of the tools table, split into cells as GitHub splits them."""
    section = readme.split("## Tools\n\n", 1)[1].split("\n\n", 1)[0]
    rows = []
    for line in section.split("\n"):
        assert line.startswith("| ") and line.endswith(" |"), line
        cells = re.split(r"(?<!\\)\|", line)[1:-1]
        rows.append([cell.strip().replace("\\|", "|") for cell in cells])
    return rows


def _code_span(cell: str) -> str:
    """The text of a cell that is one code span (CommonMark), or an assertion."""
    found = re.fullmatch(r"(`+)(.+?)(`+)", cell, re.DOTALL)
    assert found and found.group(1) == found.group(3), cell
    content = found.group(2)
    fence = found.group(1)
    assert fence not in re.findall("`+", content), cell
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    return content


def _fenced(readme: str, info: str) -> str:
    found = re.search(rf"^(```+){info}\n(.*?)\n\1$", readme, re.DOTALL | re.MULTILINE)
    assert found, readme
    return found.group(2)


def _paragraph_lines(readme: str) -> list[str]:
    """The lines of the description: between the title and the generated text."""
    head = readme.split("\n\n", 1)[1].split("\n\nThe Python package ", 1)[0]
    return [] if head.startswith("The Python package ") else head.split("\n")


def _files(directory: Path) -> dict[str, bytes]:
    return {
        p.relative_to(directory).as_posix(): p.read_bytes()
        for p in sorted(directory.rglob("*"))
        if p.is_file() and "__pycache__" not in p.parts
    }


def _reads(name: str, path: str, **fields: Any) -> dict[str, Any]:
    return {"name": name, "execution": {"type": "file", "path": path}, **fields}


def test_a_project_carries_what_its_file_and_cli_tools_read(tmp_path: Path) -> None:
    """The files its file tools name, the directories their placeholders and its cli
    tools' cwd point into, as package data: regular files inside the schema's
    directory, no hidden or generated ones, nothing from outside."""
    source = tmp_path / "source"
    for name in (
        "templates/report.md",
        "templates/unused.md",
        "notes/a.txt",
        "notes/deep/b.txt",
        "notes/.secret",
        "notes/.git/config",
        "notes/__pycache__/x.pyc",
        "shared/s.txt",
        "work/run.sh",
        "elsewhere.txt",
    ):
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text(name)
    (tmp_path / "outside.txt").write_text("not the schema's")
    (source / "notes" / "out").symlink_to(tmp_path / "outside.txt")
    (source / "notes" / "in").symlink_to(source / "shared" / "s.txt")
    os.mkfifo(source / "notes" / "pipe")
    (source / "notes" / "generated").mkdir()
    (source / "notes" / "generated" / ".mcigen").write_text("a package\n")
    (source / "notes" / "generated" / "g.py").write_text("")
    document = _document(
        _reads("report", "templates/report.md"),
        _reads("note", "notes/{{props.file}}", directoryAllowList=["shared"]),
        {
            "name": "run",
            "execution": {
                "type": "cli",
                "command": "sh",
                "args": ["run.sh"],
                "cwd": "work",
            },
        },
    )
    project = _project(source, document)
    data = {
        name.removeprefix("demo_tools/_data/"): content
        for name, content in _files(project).items()
        if name.startswith("demo_tools/_data/")
    }
    assert set(data) == {
        ".mcigen-data",
        "templates/report.md",
        "notes/a.txt",
        "notes/deep/b.txt",
        "notes/in",
        "shared/s.txt",
        "work/run.sh",
    }
    assert data["notes/in"] == b"shared/s.txt"
    with imported_package(project / "demo_tools") as package:
        assert package.report().text == "templates/report.md"
        assert package.note(file="deep/b.txt").text == "notes/deep/b.txt"


def test_what_lies_outside_the_schema_directory_stays_behind_with_a_warning(
    tmp_path: Path,
) -> None:
    source = tmp_path / "source"
    source.mkdir()
    (tmp_path / "shared.md").write_text("outside")
    schema = write_schema(source, _document(_reads("shared", "../shared.md")))
    result = run_mcigen("build", schema, "-o", source / "demo-tools", "--project")
    assert result.returncode == 0, result.stderr
    assert (
        f"{schema}:" in result.stderr
        and "warning: tool 'shared' uses '../shared.md', which lies outside the "
        "schema's directory: it is not carried into the project, so an installed "
        "copy finds it only in the directory MCIGEN_BASE_DIR names" in result.stderr
    )
    data = source / "demo-tools" / "demo_tools" / "_data"
    assert sorted(p.name for p in data.iterdir()) == [".mcigen-data"]


def test_an_empty_or_too_large_directory_stays_behind_with_a_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(project_data, "MAX_FILES", 3)
    source = tmp_path / "source"
    (source / "empty" / ".hidden").mkdir(parents=True)
    (source / "many").mkdir()
    for index in range(4):
        (source / "many" / f"{index}.txt").write_text(str(index))
    document = _document(
        _reads("few", "many/{{props.file}}"),
        {"name": "run", "execution": {"type": "cli", "command": "ls", "cwd": "empty"}},
    )
    schema = write_schema(source, document)
    result = run_mcigen("build", schema, "-o", source / "demo-tools", "--project")
    assert result.returncode == 0, result.stderr
    assert (
        "warning: tool 'few' uses 'many', which would take the project over 3 "
        "files or 64 MiB: it is not carried" in result.stderr
    )
    assert (
        "warning: tool 'run' uses 'empty', which holds no file that travels (and a "
        "wheel holds no empty directory): it is not carried" in result.stderr
    )
    data = source / "demo-tools" / "demo_tools" / "_data"
    assert sorted(p.name for p in data.iterdir()) == [".mcigen-data"]
