"""Toolsets: lookup in the library directory, filters, groups, and their diagnostics."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

from mcigen.pipeline import plan_schema

from .conftest import run_mcigen, schema_of, text_tool, write_schema
from .oracle import run_oracle


def toolset_doc(*tools: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"schemaVersion": "1.0", "tools": list(tools), **fields}


def write_toolset(path: Path, document: dict[str, Any]) -> Path:
    """A toolset file, in YAML when the name says so (JSON is valid YAML)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


def main_schema(tmp_path: Path, *toolsets: Any, **fields: Any) -> Path:
    document = {"schemaVersion": "1.0", "toolsets": list(toolsets), **fields}
    return write_schema(tmp_path, document, "main.mci.json")


def resolved(schema: Path) -> dict[str, str | None]:
    """Tool name -> toolset of every tool the schema resolves to (errors fail)."""
    package, diagnostics = plan_schema(schema)
    assert package is not None, diagnostics.render()
    return {p.tool.name: p.tool.toolset for p in package.tools}


def messages(schema: Path) -> list[str]:
    _, diagnostics = plan_schema(schema)
    return [str(d) for d in diagnostics.sorted()]


def test_a_directory_toolset_loads_every_json_and_yaml_file_in_name_order(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "mci" / "util"
    write_toolset(lib / "b.mci.yaml", toolset_doc(text_tool("from_yaml", "y")))
    write_toolset(lib / "a.mci.json", toolset_doc(text_tool("from_json", "j")))
    write_toolset(lib / "c.mci.yml", toolset_doc(text_tool("from_yml", "m")))
    write_toolset(lib / "notes.json", toolset_doc(text_tool("ignored", "-")))
    package, diagnostics = plan_schema(main_schema(tmp_path, "util"))
    assert package is not None, diagnostics.render()
    assert [p.tool.name for p in package.tools] == [
        "from_json",
        "from_yaml",
        "from_yml",
    ]
    assert {p.group for p in package.tools} == {"toolset_util"}


@pytest.mark.parametrize(
    ("reference", "file_name"),
    [
        ("weather.json", "weather.json"),
        ("weather.mci.yaml", "weather.mci.yaml"),
        ("weather", "weather.mci.json"),
        ("weather", "weather.mci.yaml"),
        ("weather", "weather.mci.yml"),
    ],
)
def test_a_toolset_name_finds_the_named_file_or_one_with_an_mci_suffix(
    tmp_path: Path, reference: str, file_name: str
) -> None:
    write_toolset(tmp_path / "mci" / file_name, toolset_doc(text_tool("forecast", "f")))
    assert resolved(main_schema(tmp_path, reference)) == {"forecast": reference}


def test_lookup_order_is_directory_then_file_then_suffixes(tmp_path: Path) -> None:
    lib = tmp_path / "mci"
    write_toolset(lib / "kit" / "x.mci.json", toolset_doc(text_tool("in_dir", "d")))
    write_toolset(lib / "kit.mci.json", toolset_doc(text_tool("with_suffix", "s")))
    assert resolved(main_schema(tmp_path, "kit")) == {"in_dir": "kit"}
    write_toolset(lib / "pack.yaml", toolset_doc(text_tool("named_file", "n")))
    write_toolset(lib / "pack.yaml.mci.json", toolset_doc(text_tool("json", "j")))
    assert resolved(main_schema(tmp_path, "pack.yaml")) == {"named_file": "pack.yaml"}
    (lib / "pack.yaml").unlink()
    assert resolved(main_schema(tmp_path, "pack.yaml")) == {"json": "pack.yaml"}
    write_toolset(lib / "pack.mci.json", toolset_doc(text_tool("json_file", "j")))
    write_toolset(lib / "pack.mci.yaml", toolset_doc(text_tool("yaml_file", "y")))
    write_toolset(lib / "pack.mci.yml", toolset_doc(text_tool("yml_file", "y")))
    assert resolved(main_schema(tmp_path, "pack")) == {"json_file": "pack"}
    (lib / "pack.mci.json").unlink()
    assert resolved(main_schema(tmp_path, "pack")) == {"yaml_file": "pack"}
    (lib / "pack.mci.yaml").unlink()
    assert resolved(main_schema(tmp_path, "pack")) == {"yml_file": "pack"}


def test_library_dir_is_relative_to_the_schema_file(tmp_path: Path) -> None:
    write_toolset(
        tmp_path / "shared" / "tools" / "ops.mci.json",
        toolset_doc(text_tool("deploy", "d")),
    )
    (tmp_path / "project").mkdir()
    schema = write_schema(
        tmp_path / "project",
        {
            "schemaVersion": "1.0",
            "libraryDir": "../shared/tools",
            "toolsets": ["ops"],
        },
    )
    assert resolved(schema) == {"deploy": "ops"}


TAGGED = toolset_doc(
    text_tool("read_file", "r", tags=["fs", "read"]),
    text_tool("write_file", "w", tags=["fs", "write"]),
    text_tool("fetch_url", "f", tags=["net", "read"]),
    text_tool("status", "s"),
)


@pytest.mark.parametrize(
    ("filter_kind", "value", "kept"),
    [
        ("only", "read_file, status", ["read_file", "status"]),
        ("only", " fetch_url ,,", ["fetch_url"]),
        ("except", "write_file,status", ["read_file", "fetch_url"]),
        ("tags", "read", ["read_file", "fetch_url"]),
        ("tags", "write, net", ["write_file", "fetch_url"]),
        ("withoutTags", "fs", ["fetch_url", "status"]),
        ("withoutTags", "read,write", ["status"]),
    ],
)
def test_filters_keep_what_they_say(
    tmp_path: Path, filter_kind: str, value: str, kept: list[str]
) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    ref = {"name": "files", "filter": filter_kind, "filterValue": value}
    assert list(resolved(main_schema(tmp_path, ref))) == kept


def test_filters_match_mci_py(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    schema = main_schema(
        tmp_path,
        {"name": "files", "filter": "tags", "filterValue": "read"},
        tools=[text_tool("local", "l")],
    )
    calls: list[dict[str, Any]] = [
        {"tool": name, "props": {}, "env": {}}
        for name in ("read_file", "fetch_url", "local")
    ]
    calls.append({"tool": "write_file", "props": {}, "env": {}})
    answers = run_oracle(schema, calls)
    assert [
        a.get("result", {}).get("content", [{}])[0].get("text") for a in answers[:3]
    ] == [
        "r",
        "f",
        "l",
    ]
    assert "exception" in answers[3]
    assert set(resolved(schema)) == {"local", "read_file", "fetch_url"}


def test_a_filter_naming_a_missing_tool_warns_with_a_suggestion(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    schema = main_schema(
        tmp_path, {"name": "files", "filter": "only", "filterValue": "read_fil"}
    )
    assert messages(schema) == [
        f"{schema}:4:5: warning: filter 'only' names tool 'read_fil', which is not "
        "there (did you mean 'read_file'?)"
    ]


def test_an_empty_filter_value_is_an_error(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    schema = main_schema(
        tmp_path, {"name": "files", "filter": "tags", "filterValue": " , "}
    )
    assert messages(schema) == [
        f"{schema}:4:5: error: 'filterValue' of filter 'tags' names nothing"
    ]


def test_a_filter_without_a_value_is_an_error_at_the_reference(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    schema = main_schema(tmp_path, {"name": "files", "filter": "only"})
    assert messages(schema) == [
        f"{schema}:4:5: error: missing required field 'filterValue' "
        "(required when 'filter' is set)"
    ]


def test_a_missing_toolset_is_reported_at_its_reference_with_a_suggestion(
    tmp_path: Path,
) -> None:
    write_toolset(
        tmp_path / "mci" / "weather.mci.yaml", toolset_doc(text_tool("f", "f"))
    )
    schema = write_schema(
        tmp_path,
        {"schemaVersion": "1.0", "toolsets": ["weather", "wether"]},
        "main.mci.json",
    )
    lib = tmp_path / "mci"
    assert messages(schema) == [
        f"{schema}:5:5: error: toolset 'wether' not found in '{lib}': looked for a "
        "directory 'wether/', a file 'wether' and 'wether' with .mci.json, .mci.yaml, "
        ".mci.yml (did you mean 'weather'?)"
    ]


def test_a_missing_library_directory_is_one_error(tmp_path: Path) -> None:
    schema = main_schema(tmp_path, "a", "b", libraryDir="./toolsets")
    assert messages(schema) == [
        f"{schema}:4:5: error: library directory './toolsets' "
        f"({tmp_path / 'toolsets'}) does not exist; set 'libraryDir' or create it"
    ]


def test_a_library_directory_that_is_a_file_is_said_to_be_one(tmp_path: Path) -> None:
    (tmp_path / "toolsets").write_text("not a folder")
    schema = main_schema(tmp_path, "a", libraryDir="./toolsets")
    assert messages(schema) == [
        f"{schema}:4:5: error: library directory './toolsets' "
        f"({tmp_path / 'toolsets'}) is not a directory; set 'libraryDir' to one"
    ]


def test_a_toolset_entry_that_is_no_regular_file_cannot_be_read(
    tmp_path: Path,
) -> None:
    """mci-py fails to read a symbolic link to nothing in a toolset directory; such
    entries were left out without a word."""
    lib = tmp_path / "mci" / "util"
    write_toolset(lib / "a.mci.json", toolset_doc(text_tool("a", "a")))
    (lib / "gone.mci.json").symlink_to("removed.mci.json")
    (lib / "folder.mci.yaml").mkdir()
    os.mkfifo(lib / "fifo.mci.yml")  # refused unopened for reading: no hang
    schema = main_schema(tmp_path, "util")
    (theirs,) = run_oracle(schema, [{"tool": "a", "props": {}, "env": {}}])
    assert "Failed to read toolset file" in theirs["exception"]
    assert messages(schema) == [
        f"{lib}/fifo.mci.yml:1:1: error: cannot read schema file: "
        "it is a FIFO, not a regular file",
        f"{lib}/folder.mci.yaml:1:1: error: cannot read schema file: "
        "it is a directory, not a regular file",
        f"{lib}/gone.mci.json:1:1: error: cannot read schema file: "
        "No such file or directory",
    ]


def test_a_loop_of_symbolic_links_is_a_refused_name_not_a_crash(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "mci"
    write_toolset(lib / "util" / "a.mci.json", toolset_doc(text_tool("a", "a")))
    (lib / "util" / "l1.mci.json").symlink_to("l2.mci.json")
    (lib / "util" / "l2.mci.json").symlink_to("l1.mci.json")
    (lib / "loop").symlink_to("loop")
    schema = main_schema(tmp_path, "util", "loop")
    loop = "is not a usable path: a loop of symbolic links"
    assert messages(schema) == [
        f"{schema}:4:5: error: toolset name refused: 'l1.mci.json' {loop}",
        f"{schema}:5:5: error: toolset name refused: 'loop' {loop}",
    ]


def test_an_empty_toolset_directory_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "mci" / "empty").mkdir(parents=True)
    (tmp_path / "mci" / "empty" / "README.md").write_text("nothing here")
    schema = main_schema(tmp_path, "empty")
    assert messages(schema) == [
        f"{schema}:4:5: error: toolset directory '{tmp_path / 'mci' / 'empty'}' holds "
        "no *.mci.json, *.mci.yaml, *.mci.yml files"
    ]


def test_problems_inside_a_toolset_file_point_into_that_file(tmp_path: Path) -> None:
    toolset = tmp_path / "mci" / "ops.mci.yaml"
    toolset.parent.mkdir()
    toolset.write_text(
        'schemaVersion: "1.0"\n'
        "libraryDir: ./elsewhere\n"
        "tools:\n"
        "  - name: deploy\n"
        "    execution: {type: text}\n"
    )
    schema = main_schema(tmp_path, "ops")
    found = messages(schema)
    assert [m.split(": ", 1)[0] for m in found] == [f"{toolset}:2:1", f"{toolset}:5:16"]
    assert "warning: 'libraryDir' is ignored in a toolset file" in found[0]
    assert "'text'" in found[1]


def test_settings_a_toolset_file_cannot_have_are_ignored_as_mci_py_ignores_them(
    tmp_path: Path,
) -> None:
    """mci-py reads a toolset file's tools and nothing else of it: its
    ``enableAnyPaths`` opens no path, its ``toolsets`` load nothing."""
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("secret", encoding="utf-8")
    reader = {
        "name": "read_outside",
        "execution": {"type": "file", "path": str(outside)},
    }
    write_toolset(
        tmp_path / "mci" / "wide.mci.json",
        toolset_doc(reader, enableAnyPaths=True, toolsets=["nowhere"]),
    )
    schema = main_schema(tmp_path, "wide")
    assert [m.split(": ", 2)[1] for m in messages(schema)] == ["warning", "warning"]
    theirs = run_oracle(schema, [{"tool": "read_outside", "props": {}, "env": {}}])
    assert theirs[0]["result"]["isError"] is True
    built = tmp_path / "pkg"
    assert run_mcigen("build", schema, "-o", built).returncode == 0
    done = subprocess.run(
        [sys.executable, "-m", "pkg", "call", "read_outside"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1
    assert done.stdout.strip() == theirs[0]["result"]["content"][0]["text"]


def test_every_file_of_a_directory_must_have_the_supported_version(
    tmp_path: Path,
) -> None:
    lib = tmp_path / "mci" / "kit"
    write_toolset(lib / "a.mci.json", toolset_doc(text_tool("one", "1")))
    write_toolset(
        lib / "b.mci.json",
        {"schemaVersion": "2.0", "tools": [text_tool("two", "2")]},
    )
    found = messages(main_schema(tmp_path, "kit"))
    assert len(found) == 1
    assert found[0].startswith(f"{lib / 'b.mci.json'}:2:20: error: unsupported")


def test_a_tool_name_defined_twice_names_both_places(tmp_path: Path) -> None:
    write_toolset(
        tmp_path / "mci" / "a.mci.json", toolset_doc(text_tool("deploy", "a"))
    )
    write_toolset(
        tmp_path / "mci" / "b.mci.json",
        toolset_doc(text_tool("status", "b"), text_tool("deploy", "b")),
    )
    schema = main_schema(tmp_path, "a", "b", tools=[text_tool("status", "own")])
    lib = tmp_path / "mci"
    assert messages(schema) == [
        f"{lib / 'b.mci.json'}:4:5: error: tool 'status' (from toolset 'b') is also "
        f"defined at {schema}:8:5; tool names must be unique",
        f"{lib / 'b.mci.json'}:11:5: error: tool 'deploy' (from toolset 'b') is also "
        f"defined at {lib / 'a.mci.json'}:4:5 (from toolset 'a'); tool names must be "
        "unique",
    ]


def test_a_toolset_referenced_twice_is_not_a_clash(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    schema = main_schema(
        tmp_path,
        {"name": "files", "filter": "tags", "filterValue": "read"},
        {"name": "files", "filter": "only", "filterValue": "read_file,status"},
    )
    assert list(resolved(schema)) == ["read_file", "fetch_url", "status"]


def test_disabled_toolset_tools_are_left_out(tmp_path: Path) -> None:
    write_toolset(
        tmp_path / "mci" / "ops.mci.json",
        toolset_doc(text_tool("on", "1"), text_tool("off", "0", disabled=True)),
    )
    assert resolved(main_schema(tmp_path, "ops")) == {"on": "ops"}


def test_toolset_tools_are_generated_in_their_own_group_modules(
    tmp_path: Path,
) -> None:
    write_toolset(
        tmp_path / "mci" / "text-kit.mci.json",
        toolset_doc(
            text_tool(
                "shout",
                "{{props.text}}!",
                inputSchema={
                    "type": "object",
                    "properties": {"text": {"type": "string"}},
                    "required": ["text"],
                },
            ),
            metadata={"name": "not merged"},
        ),
    )
    schema = main_schema(tmp_path, "text-kit", tools=[text_tool("own", "mine")])
    out = tmp_path / "pkg"
    result = run_mcigen("build", schema, "-o", out)
    assert result.returncode == 0, result.stderr
    assert sorted(p.name for p in (out / "tools").glob("*.py")) == [
        "__init__.py",
        "main.py",
        "toolset_text_kit.py",
    ]
    module = (out / "tools" / "toolset_text_kit.py").read_text()
    assert "Tools: toolset 'text-kit'." in module
    assert "def shout(" in module
    models = (out / "tools" / "models" / "toolset_text_kit.py").read_text()
    assert "Models of toolset 'text-kit'" in models and "class ShoutInput" in models
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["metadata"] == {}  # a toolset's metadata is never merged
    assert {t["name"]: t["group"] for t in manifest["tools"]} == {
        "own": "main",
        "shout": "toolset_text_kit",
    }
    probe = (
        "import sys, pkg; text = pkg.shout(text='hey').text; "
        "print(text, 'pkg.tools.main' in sys.modules, pkg.own().text)"
    )
    assert _python(tmp_path, probe) == "hey! False mine"


def test_mcigen_list_shows_each_tools_toolset(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "files.mci.json", TAGGED)
    schema = main_schema(
        tmp_path,
        {"name": "files", "filter": "only", "filterValue": "read_file"},
        tools=[text_tool("own", "o")],
    )
    result = run_mcigen("list", schema)
    assert result.returncode == 0, result.stderr
    rows = [line.split() for line in result.stdout.splitlines()]
    assert rows == [
        ["NAME", "PYTHON", "NAME", "TYPE", "TOOLSET", "TAGS"],
        ["own", "own", "text", "-"],
        ["read_file", "read_file", "text", "files", "fs,read"],
    ]


def test_a_schema_of_only_toolsets_builds(tmp_path: Path) -> None:
    write_toolset(tmp_path / "mci" / "x.mci.json", schema_of(text_tool("x", "x")))
    assert resolved(main_schema(tmp_path, "x")) == {"x": "x"}


def _python(cwd: Path, code: str) -> str:
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


@pytest.mark.parametrize("form", ["json", "yaml"])
def test_list_prints_mcixs_listing_document(tmp_path: Path, form: str) -> None:
    """What mcix's ``list --format json|yaml --verbose`` writes to a file, on stdout."""
    write_toolset(
        tmp_path / "mci" / "files.mci.json",
        schema_of(text_tool("read-file", "r", tags=["fs"], description="Read")),
    )
    schema = main_schema(tmp_path, "files", tools=[text_tool("own", "o")])
    result = run_mcigen("list", schema, "--format", form)
    assert result.returncode == 0, result.stderr
    document = (json.loads if form == "json" else yaml.safe_load)(result.stdout)
    assert datetime.fromisoformat(document.pop("timestamp"))
    assert document == {
        "mci_file": str(schema),
        "filters_applied": [],
        "total": 2,
        "tools": [
            {
                "name": "own",
                "source": "main",
                "description": "",
                "tags": [],
                "execution_type": "text",
                "python_name": "own",
            },
            {
                "name": "read-file",
                "source": "files",
                "description": "Read",
                "tags": ["fs"],
                "execution_type": "text",
                "python_name": "read_file",
            },
        ],
    }
