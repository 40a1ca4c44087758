"""One file with many independent problems reports all of them, in file order."""

from __future__ import annotations

from pathlib import Path

from .support import diagnostic_lines, load_text

JSON_SCHEMA = """\
{
  "schemaVersion": "1.0",
  "metadata": {"name": "demo", "licence": "MIT"},
  "tools": [
    {
      "name": "fetch",
      "execution": {
        "type": "http",
        "method": "FETCH",
        "url": "https://example.com/{{props..id}}",
        "timeout_ms": -5
      }
    },
    {
      "descriptoin": "no name",
      "execution": {"type": "txt", "text": "hi"}
    },
    {
      "name": "greet",
      "disabled": "no",
      "execution": {"type": "text", "text": "Hi {{ props. }}"}
    }
  ],
  "libraryDir": 7
}
"""

YAML_SCHEMA = """\
schemaVersion: "1.0"
metadata: {name: demo, licence: MIT}
tools:
  - name: fetch
    execution:
      type: http
      method: FETCH
      url: https://example.com/{{props..id}}
      timeout_ms: -5
  - descriptoin: no name
    execution: {type: txt, text: hi}
  - name: greet
    disabled: "no"
    execution:
      type: text
      text: |
        Hi {{ props. }}
libraryDir: 7
"""

EXECUTION_TYPES = "'http', 'cli', 'file', 'text', 'mcp'"
METHODS = "'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'"


def expected(file: str, positions: list[str]) -> list[str]:
    messages = [
        "warning: unknown field 'licence' in metadata (did you mean 'license'?)",
        f"error: 'method' must be one of {METHODS}, got 'FETCH' (did you mean 'PATCH'?)",
        "error: invalid path 'props..id' in placeholder",
        "error: 'timeout_ms' must be an integer >= 0, got -5",
        "error: missing required field 'name' in tool",
        "warning: unknown field 'descriptoin' in tool (did you mean 'description'?)",
        f"error: 'type' must be one of {EXECUTION_TYPES}, got 'txt' (did you mean 'text'?)",
        "error: 'disabled' must be a boolean, got string",
        "error: invalid path 'props.' in placeholder",
        "error: 'libraryDir' must be a string, got integer",
    ]
    return [
        f"{file}:{where}: {message}"
        for where, message in zip(positions, messages, strict=True)
    ]


def test_json_reports_every_problem_in_file_order(tmp_path: Path) -> None:
    assert diagnostic_lines(tmp_path, JSON_SCHEMA, ".json") == expected(
        "s.json",
        [
            "3:32",
            "9:19",
            "10:45",
            "11:23",
            "14:5",
            "15:7",
            "16:29",
            "20:19",
            "21:58",
            "24:17",
        ],
    )


def test_yaml_reports_every_problem_in_file_order(tmp_path: Path) -> None:
    assert diagnostic_lines(tmp_path, YAML_SCHEMA, ".yaml") == expected(
        "s.yaml",
        [
            "2:24",
            "7:15",
            "8:40",
            "9:19",
            "10:5",
            "10:5",
            "11:23",
            "13:15",
            "17:21",
            "18:13",
        ],
    )


def test_rendered_summary(tmp_path: Path) -> None:
    _, diagnostics, _ = load_text(tmp_path, JSON_SCHEMA, ".json")
    assert diagnostics.render().splitlines()[-1] == "8 errors, 2 warnings"


def test_every_ref_no_model_can_resolve_is_reported_beside_other_errors(
    tmp_path: Path,
) -> None:
    """Such a $ref was found only when the models were made, after the frontend,
    so any other error of the schema hid it, and it pointed at its tool."""
    text = """\
schemaVersion: "1.0"
tools:
  - name: refs
    inputSchema:
      type: object
      $defs: {known: {type: string}}
      properties:
        a: {$ref: "#/$defs/known"}
        b: {$ref: "#/$defs/unknown"}
        c: {type: array, items: {$ref: "other.json#/x"}}
        d: {$ref: "#"}
    execution: {type: text, text: hi}
  - name: typed
    inputSchema: {type: object, properties: {x: {type: strin}}}
    execution: {type: text, text: hi}
"""
    reason = "only local definitions are resolved"
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        f"s.yaml:9:19: error: unsupported $ref '#/$defs/unknown': {reason}",
        f"s.yaml:10:40: error: unsupported $ref 'other.json#/x': {reason}",
        f"s.yaml:11:19: error: unsupported $ref '#': {reason}",
        "s.yaml:14:56: error: invalid JSON Schema: 'strin' is not one of ['array', "
        "'boolean', 'integer', 'null', 'number', 'object', 'string']",
    ]
