"""``from mcigen import ...`` offers every name ``from mcipy import ...`` does, and a
program that types its results with them prints what it prints under mci-py."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mcigen

from ..conftest import schema_of, text_tool, write_schema
from ..oracle import oracle_python

PROGRAM = """
import json, sys
from {module} import (
    ExecutionResult, ExecutionResultContent, ExecutionType, MCIClient, TextContent, Tool
)

client = MCIClient(schema_file_path=sys.argv[1])
tool = client.tools()[0]
executed = client.execute("greet", {{"name": "Ada"}})
content = executed.result.content[0]
print(json.dumps({{
    "tool": isinstance(tool, Tool),
    "kind": tool.execution.type == ExecutionType.TEXT,
    "kind_value": ExecutionType(tool.execution.type).value,
    "executed": isinstance(executed, ExecutionResult),
    "result": isinstance(executed.result, ExecutionResultContent),
    "text": isinstance(content, TextContent) and content.text,
}}))
"""


def _run(python: Path | str, module: str, schema: Path, cache: Path) -> object:
    done = subprocess.run(
        [str(python), "-c", PROGRAM.format(module=module), str(schema)],
        capture_output=True,
        text=True,
        check=False,
        env={"MCIGEN_CACHE_DIR": str(cache), "PATH": "/usr/bin:/bin"},
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_name_mcipy_offers_imports_from_mcigen() -> None:
    listed = subprocess.run(
        [
            str(oracle_python()),
            "-c",
            "import json, mcipy; print(json.dumps(mcipy.__all__))",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    theirs = set(json.loads(listed.stdout))
    assert theirs <= set(mcigen.__all__)
    namespace: dict[str, object] = {}
    exec(f"from mcigen import {', '.join(sorted(theirs))}", namespace)
    assert theirs <= set(namespace)


def test_a_program_typed_with_mcipys_names_runs_the_same(tmp_path: Path) -> None:
    schema = write_schema(
        tmp_path, schema_of(text_tool("greet", "Hello {{props.name}}"))
    )
    cache = tmp_path / "cache"
    theirs = _run(oracle_python(), "mcipy", schema, cache)
    ours = _run(sys.executable, "mcigen", schema, cache)
    assert ours == theirs
    assert theirs == {
        "tool": True,
        "kind": True,
        "kind_value": "text",
        "executed": True,
        "result": True,
        "text": "Hello Ada",
    }


def test_a_name_for_mci_pys_internals_says_what_to_use_instead() -> None:
    from mcigen import MCIClientError, SchemaParser, ToolManager

    with pytest.raises(MCIClientError, match="compiled: load it with MCIClient"):
        SchemaParser()
    with pytest.raises(MCIClientError, match="MCIClient.only"):
        ToolManager([])
