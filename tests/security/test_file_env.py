"""A file's template sees only the environment variables the schema names (issue 14,
group 3): a file written by a user or an agent holding ``{{env.API_SECRET}}`` does
not print the secret; ``mcigen build --file-env NAME`` lets one more through."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import ModuleType

import pytest

from ..conftest import run_mcigen, write_schema
from ..oracle import run_oracle
from .support import every_module_imported, importable_from

NAMES = ("GREETING", "HTTP_KEY", "CLI_ARG", "TOOLSET_VAR", "SERVER_TOKEN")
"""Each named by one kind of template of the schema below."""
UNNAMED = ("API_SECRET", "EXTRA")
EVERYTHING = {name: name.lower() for name in NAMES + UNNAMED}

SCHEMA = {
    "schemaVersion": "1.0",
    "tools": [
        {"name": "page", "execution": {"type": "file", "path": "pages/all.txt"}},
        {"name": "greet", "execution": {"type": "text", "text": "{{env.GREETING}}"}},
        {
            "name": "fetch",
            "execution": {
                "type": "http",
                "url": "http://127.0.0.1:9/",
                "headers": {"X-Key": "{{env.HTTP_KEY}}"},
            },
        },
        {
            "name": "say",
            "execution": {
                "type": "cli",
                "command": "echo",
                "args": ["{{env.CLI_ARG}}"],
            },
        },
    ],
    "toolsets": ["extra"],
    "mcp_servers": {"srv": {"command": "srv", "env": {"T": "{{env.SERVER_TOKEN}}"}}},
}
TOOLSET = {
    "schemaVersion": "1.0",
    "tools": [
        {"name": "shout", "execution": {"type": "text", "text": "{{env.TOOLSET_VAR}}"}}
    ],
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    (project / "pages").mkdir(parents=True)
    (project / "mci" / "mcp").mkdir(parents=True)
    line = " ".join(f"{{{{env.{name} | '-'}}}}" for name in NAMES + UNNAMED)
    (project / "pages" / "all.txt").write_text(line, "utf-8")
    (project / "mci" / "extra.mci.json").write_text(json.dumps(TOOLSET), "utf-8")
    expires = (datetime.now(UTC).date() + timedelta(days=30)).isoformat()
    cache = {
        "schemaVersion": "1.0",
        "tools": [
            {
                "name": "ping",
                "execution": {"type": "mcp", "serverName": "srv", "toolName": "ping"},
            }
        ],
        "expiresAt": expires,
    }
    (project / "mci" / "mcp" / "srv.mci.json").write_text(json.dumps(cache), "utf-8")
    write_schema(project, SCHEMA)
    return project


@contextmanager
def built(project: Path, *options: str) -> Iterator[ModuleType]:
    schema = project / "tools.mci.json"
    result = run_mcigen("build", schema, "-o", project / "pkg", "--offline", *options)
    assert result.returncode == 0, result.stderr
    with importable_from(project), every_module_imported("pkg") as package:
        yield package


def test_file_templates_see_only_the_variables_the_schema_names(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in EVERYTHING.items():
        monkeypatch.setenv(name, value)
    shown = " ".join(EVERYTHING[name] for name in NAMES) + " - -"
    with built(project) as package:
        assert package.page().text == shown
        assert package.Client(env_vars=EVERYTHING).execute("page").result.text == shown
        assert package.greet().text == "greeting"  # the schema's own templates see all


def test_file_env_lets_one_more_variable_through(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name, value in EVERYTHING.items():
        monkeypatch.setenv(name, value)
    with built(project, "--file-env", "EXTRA") as package:
        assert package.page().text.split()[-2:] == ["-", "extra"]
    manifest = json.loads((project / "pkg" / "manifest.json").read_text("utf-8"))
    assert manifest["runtime"]["file_env"] == ["EXTRA"]


def test_row47_a_file_printing_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """mci-py renders a file's template with every variable of the environment."""
    monkeypatch.chdir(tmp_path)  # where mci-py opens relative paths (row 16)
    (tmp_path / "note.txt").write_text("key={{env.API_SECRET}}", "utf-8")
    document = {
        "schemaVersion": "1.0",
        "tools": [{"name": "note", "execution": {"type": "file", "path": "note.txt"}}],
    }
    schema = write_schema(tmp_path, document)
    call = {"tool": "note", "props": {}, "env": {"API_SECRET": "hunter2"}}
    (theirs,) = run_oracle(schema, [call])
    assert theirs["result"]["content"][0]["text"] == "key=hunter2"
    assert run_mcigen("build", schema, "-o", tmp_path / "pkg").returncode == 0
    with importable_from(tmp_path), every_module_imported("pkg") as package:
        ours = package.Client(env_vars={"API_SECRET": "hunter2"}).execute("note")
        unset = package.Client(env_vars={}).execute("note")
    assert ours.result.isError
    assert ours.result == unset.result
    assert "hunter2" not in ours.result.text
