"""Every inputSchema is checked against its draft's meta-schema at build time, and
every regular expression in it against the engine the generated models use."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ..conftest import built_package, run_mcigen, schema_of, text_tool, write_schema
from ..frontend.support import position


def _position(text: str, needle: str) -> str:
    return position(text, text.index(needle))


def _tool(schema: dict[str, Any]) -> dict[str, Any]:
    return schema_of(text_tool("t", "hi", inputSchema=schema))


def _check(schema: Path) -> tuple[int, list[str]]:
    result = run_mcigen("check", schema, "--offline")
    assert "Traceback" not in result.stderr
    return result.returncode, result.stderr.splitlines()


def test_a_misspelt_type_is_an_error_at_the_type(tmp_path: Path) -> None:
    schema = write_schema(
        tmp_path, _tool({"type": "object", "properties": {"a": {"type": "strin"}}})
    )
    code, lines = _check(schema)
    where = _position(schema.read_text(), '"strin"')
    assert code == 1
    assert lines[0] == (
        f"{schema}:{where}: error: invalid JSON Schema: 'strin' is not one of "
        "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']"
    )


def test_every_error_is_reported_at_once_where_it_is(tmp_path: Path) -> None:
    text = """\
schemaVersion: "1.0"
tools:
  - name: t
    execution: {type: text, text: hi}
    inputSchema:
      type: object
      properties:
        code: {type: string, pattern: "(["}
        tags:
          type: array
          items: {type: string, pattern: "(?=x)x"}
        pattern: {type: string}
      $defs:
        short: {minLength: -1}
"""
    schema = tmp_path / "tools.mci.yaml"
    schema.write_text(text)
    code, lines = _check(schema)
    assert code == 1
    group, lookahead = _position(text, '"(["'), _position(text, '"(?=x)x"')
    assert lines == [
        f"{schema}:{group}: error: invalid JSON Schema: '([' is "
        "not a regular expression the generated models can use: unclosed character class",
        f"{schema}:{lookahead}: error: invalid JSON Schema: "
        "'(?=x)x' is not a regular expression the generated models can use: "
        "look-around, including look-ahead and look-behind, is not supported",
        f"{schema}:{_position(text, '-1')}: error: invalid JSON Schema: -1 is less "
        "than the minimum of 0",
        "3 errors, 0 warnings",
    ]


def test_the_draft_named_by_dollar_schema_is_used(tmp_path: Path) -> None:
    # exclusiveMinimum is a boolean in draft 4 and a number from draft 6 on.
    draft4 = {
        "$schema": "http://json-schema.org/draft-04/schema#",
        "type": "object",
        "properties": {"n": {"type": "number", "minimum": 0, "exclusiveMinimum": 3}},
    }
    code, lines = _check(write_schema(tmp_path, _tool(draft4)))
    assert code == 1
    assert "invalid JSON Schema: 3 is not of type 'boolean'" in lines[0]
    draft7 = {**draft4, "$schema": "http://json-schema.org/draft-07/schema#"}
    assert _check(write_schema(tmp_path, _tool(draft7))) == (0, [])


def test_an_unknown_dialect_is_a_warning_and_checked_as_2020_12(
    tmp_path: Path,
) -> None:
    schema = write_schema(
        tmp_path, _tool({"$schema": "https://example.com/mine", "type": "object"})
    )
    code, lines = _check(schema)
    where = _position(schema.read_text(), '"https://example.com/mine"')
    assert (code, lines) == (
        0,
        [
            f"{schema}:{where}: warning: unknown JSON Schema dialect "
            "'https://example.com/mine'; checking it as draft 2020-12",
            "0 errors, 1 warning",
        ],
    )


def test_a_toolset_files_schema_is_checked_in_that_file(tmp_path: Path) -> None:
    library = tmp_path / "mci"
    library.mkdir()
    toolset = write_schema(
        library,
        _tool({"type": "object", "properties": {"a": {"pattern": "(["}}}),
        "bad.mci.json",
    )
    schema = write_schema(tmp_path, {"schemaVersion": "1.0", "toolsets": ["bad"]})
    code, lines = _check(schema)
    where = _position(toolset.read_text(), '"(["')
    assert code == 1
    assert lines[0].startswith(f"{toolset}:{where}: error: ")
    assert lines[0].endswith("unclosed character class")


def test_an_mcp_servers_cached_schema_is_checked_in_the_cache(tmp_path: Path) -> None:
    cache = tmp_path / "mci" / "mcp" / "toy.mci.json"
    cache.parent.mkdir(parents=True)
    tool = {
        "name": "ask",
        "inputSchema": {"type": "object", "properties": {"q": {"type": "strin"}}},
        "execution": {"type": "mcp", "serverName": "toy", "toolName": "ask"},
    }
    cached = {"schemaVersion": "1.0", "tools": [tool], "expiresAt": "2999-01-01"}
    cache.write_text(json.dumps(cached, indent=2))
    schema = write_schema(
        tmp_path,
        {"schemaVersion": "1.0", "mcp_servers": {"toy": {"command": "false"}}},
    )
    code, lines = _check(schema)
    where = _position(cache.read_text(), '"strin"')
    assert code == 1
    assert lines[0].startswith(f"{cache}:{where}: error: invalid JSON Schema: ")


@pytest.mark.parametrize("pattern", [r"^\d{3}$", r"^\p{L}+$"])
def test_a_pattern_that_builds_also_imports_and_is_enforced(
    tmp_path: Path, pattern: str
) -> None:
    schema = write_schema(
        tmp_path,
        _tool(
            {
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {"code": {"type": "string", "pattern": pattern}},
                "required": ["code"],
            }
        ),
    )
    with built_package(schema, tmp_path / f"pkg_{len(pattern)}") as package:
        with pytest.raises(ValueError):
            package.t(code="!!")
