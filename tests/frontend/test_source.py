"""Reading schema files: file and syntax errors, positions, pointers, duplicate keys."""

from __future__ import annotations

from pathlib import Path

import pytest

import mcigen.frontend.budget as budget
from mcigen.frontend.mci import load_schema

from .support import diagnostic_lines, load_text

VALID_JSON = (
    '{"schemaVersion": "1.0", "tools": [{"name": "t", '
    '"execution": {"type": "text", "text": "hi"}}]}'
)


def test_missing_file(tmp_path: Path) -> None:
    schema, diagnostics = load_schema(
        tmp_path / "absent.json", display_name="absent.json"
    )
    assert schema is None
    assert [str(d) for d in diagnostics.items] == [
        "absent.json:1:1: error: cannot read schema file: No such file or directory"
    ]


def test_directory_instead_of_file(tmp_path: Path) -> None:
    (tmp_path / "dir.yaml").mkdir()
    _, diagnostics = load_schema(tmp_path / "dir.yaml", display_name="dir.yaml")
    assert [str(d) for d in diagnostics.items] == [
        "dir.yaml:1:1: error: cannot read schema file: it is a directory, not a "
        "regular file"
    ]


def test_unsupported_extension(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text("schemaVersion = '1.0'\n")
    _, diagnostics = load_schema(tmp_path / "s.toml", display_name="s.toml")
    assert [str(d) for d in diagnostics.items] == [
        "s.toml:1:1: error: unsupported schema file extension '.toml';"
        " expected .json, .yaml or .yml"
    ]


@pytest.mark.parametrize("suffix", [".JSON", ".yml", ".YAML"])
def test_extensions_are_case_insensitive(tmp_path: Path, suffix: str) -> None:
    schema, diagnostics, _ = load_text(tmp_path, VALID_JSON, suffix)
    assert schema is not None and diagnostics.items == []


def test_display_name_defaults_to_the_path(tmp_path: Path) -> None:
    path = tmp_path / "s.json"
    path.write_text("[]")
    _, diagnostics = load_schema(path)
    assert str(diagnostics.items[0]).startswith(f"{path}:1:1: error:")


@pytest.mark.parametrize(
    ("suffix", "text", "expected"),
    [
        pytest.param(
            ".json",
            '{\n  "schemaVersion": "1.0"\n  "tools": []\n}\n',
            "3:3: error: invalid JSON: Expecting ',' delimiter",
            id="json-missing-comma",
        ),
        pytest.param(
            ".json",
            '{"schemaVersion": "1.0"} trailing',
            "1:26: error: invalid JSON: Extra data",
            id="json-extra-data",
        ),
        pytest.param(
            ".json", "", "1:1: error: invalid JSON: Expecting value", id="json-empty"
        ),
        pytest.param(
            ".yaml",
            'schemaVersion: "1.0"\ntools: x: y\n',
            "2:9: error: invalid YAML: mapping values are not allowed here",
            id="yaml-nested-mapping",
        ),
        pytest.param(
            ".yaml",
            'schemaVersion: "1.0\ntools: []\n',
            "3:1: error: invalid YAML: while scanning a quoted scalar,"
            " found unexpected end of stream",
            id="yaml-unterminated-quote",
        ),
        pytest.param(
            ".yaml",
            'schemaVersion: "1.0"\n---\ntools: []\n',
            "2:1: error: invalid YAML: expected a single document in the stream,"
            " but found another document",
            id="yaml-two-documents",
        ),
        pytest.param(
            ".yaml",
            "schemaVersion: !!python/object:os.system x\n",
            "1:16: error: invalid YAML: could not determine a constructor for the tag"
            " 'tag:yaml.org,2002:python/object:os.system'",
            id="yaml-unsafe-tag",
        ),
        pytest.param(
            ".yaml",
            'schemaVersion: "1.0"\nx: \x07\n',
            "2:4: error: invalid YAML: special characters are not allowed",
            id="yaml-control-character",
        ),
        pytest.param(
            ".yaml",
            "a: &loop [1, *loop]\n",
            "1:4: error: invalid YAML: an alias refers to a node that contains it",
            id="yaml-recursive-alias",
        ),
        pytest.param(
            ".yaml",
            "",
            "1:1: error: the schema must be an object, got null",
            id="yaml-empty",
        ),
    ],
)
def test_syntax_errors_are_one_diagnostic(
    tmp_path: Path, suffix: str, text: str, expected: str
) -> None:
    assert diagnostic_lines(tmp_path, text, suffix) == [f"s{suffix}:{expected}"]


def test_invalid_utf8_points_at_the_bad_byte(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_bytes(b'{\n  "a": "caf\xc3\xa9 \xff"}')
    _, diagnostics = load_schema(tmp_path / "s.json", display_name="s.json")
    assert [str(d) for d in diagnostics.items] == [
        "s.json:2:14: error: schema file is not valid UTF-8 text"
    ]


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    (tmp_path / "s.json").write_bytes(b"\xef\xbb\xbf" + VALID_JSON.encode())
    schema, diagnostics = load_schema(tmp_path / "s.json")
    assert schema is not None and diagnostics.items == []


@pytest.mark.parametrize(
    ("suffix", "text"),
    [
        pytest.param(".json", "[" * 100_000 + "]" * 100_000, id="json"),
        pytest.param(".yaml", "[" * 5_000 + "]" * 5_000, id="yaml"),
    ],
)
def test_absurd_nesting_is_reported_not_raised(
    tmp_path: Path, suffix: str, text: str
) -> None:
    assert diagnostic_lines(tmp_path, text, suffix) == [
        f"s{suffix}:1:1: error: schema file is nested too deeply"
    ]


def test_alias_expansion_is_bounded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "MAX_NODES", 50)
    text = "a: &a [x, x, x, x]\nb: &b [*a, *a, *a, *a]\nc: [*b, *b, *b, *b]\n"
    lines = diagnostic_lines(tmp_path, text, ".yaml")
    assert lines == [
        "s.yaml:3:9: error: invalid YAML: aliases expand to more than 50 nodes"
    ]


def test_a_document_of_too_many_nodes_without_aliases_is_not_said_to_expand(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(budget, "MAX_NODES", 50)
    text = "a: [" + ", ".join(["x"] * 60) + "]\n"
    # a node counts once composed: 'a', then each x; the 50th x (column 152) is
    # the 51st node
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        "s.yaml:1:152: error: the document holds more than 50 nodes"
    ]


def test_a_json_document_of_too_many_nodes_is_refused_where_it_crosses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each node takes a place in the source map: 7 million zeros in 14 MB took
    2.6 GB before."""
    monkeypatch.setattr(budget, "MAX_NODES", 50)
    text = '{"a": [' + ", ".join(["0"] * 60) + "]}"
    # the root, 'a''s list, then the zeros: the 49th (column 152) is the 51st node
    assert diagnostic_lines(tmp_path, text, ".json") == [
        "s.json:1:152: error: the document holds more than 50 nodes"
    ]


def test_crlf_line_endings(tmp_path: Path) -> None:
    json_text = '{\r\n  "schemaVersion": "1.0",\r\n  "tools": 5\r\n}\r\n'
    yaml_text = 'schemaVersion: "1.0"\r\ntools: 5\r\n'
    assert diagnostic_lines(tmp_path, json_text, ".json") == [
        "s.json:3:12: error: 'tools' must be an array of objects, got integer"
    ]
    assert diagnostic_lines(tmp_path, yaml_text, ".yaml") == [
        "s.yaml:2:8: error: 'tools' must be an array of objects, got integer"
    ]


def test_tabs_and_wide_characters_count_as_one_column(tmp_path: Path) -> None:
    text = '{"schemaVersion": "1.0",\n\t"metadata": {"name": "\U0001f600"}, "tools": 5}'
    assert diagnostic_lines(tmp_path, text, ".json") == [
        "s.json:2:38: error: 'tools' must be an array of objects, got integer"
    ]


def test_pointers_escape_slash_and_tilde(tmp_path: Path) -> None:
    text = (
        '{"schemaVersion": "1.0", "tools": [{"name": "t", "execution": '
        '{"type": "http", "url": "u", "headers": {"a/b~c": 1, "X-\\u0041": 2}}}]}'
    )
    _, diagnostics, _ = load_text(tmp_path, text, ".json")
    found = [(str(d), d.location.pointer) for d in diagnostics.items]
    assert found == [
        (
            "s.json:1:113: error: 'headers.a/b~c' must be a string, got integer",
            "/tools/0/execution/headers/a~1b~0c",
        ),
        (
            "s.json:1:128: error: 'headers.X-A' must be a string, got integer",
            "/tools/0/execution/headers/X-A",
        ),
    ]


def test_duplicate_keys_in_yaml(tmp_path: Path) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "tools:\n"
        "  - name: first\n"
        "    name: second\n"
        "    execution: {type: text, text: a, text: b}\n"
        "    name: third\n"
    )
    schema, diagnostics, _ = load_text(tmp_path, text, ".yaml")
    assert [str(d) for d in diagnostics.items] == [
        "s.yaml:4:5: warning: duplicate key 'name'; only the last value is used",
        "s.yaml:5:38: warning: duplicate key 'text'; only the last value is used",
        "s.yaml:6:5: warning: duplicate key 'name'; only the last value is used",
    ]
    assert schema is not None and schema.tools[0].name == "third"


def test_duplicate_keys_in_json(tmp_path: Path) -> None:
    text = (
        '{"schemaVersion": "1.0", "tools": [{"name": "a", "name": "b",\n'
        ' "execution": {"type": "text", "text": "x"}}], "schemaVersion": "1.0"}'
    )
    schema, diagnostics, _ = load_text(tmp_path, text, ".json")
    assert [str(d) for d in diagnostics.items] == [
        "s.json:1:50: warning: duplicate key 'name'; only the last value is used",
        "s.json:2:48: warning: duplicate key 'schemaVersion'; only the last value is used",
    ]
    assert schema is not None and schema.tools[0].name == "b"


def test_same_key_in_different_objects_is_not_a_duplicate(tmp_path: Path) -> None:
    text = (
        '{"schemaVersion": "1.0", "tools": [\n'
        ' {"name": "a", "execution": {"type": "text", "text": "x"}},\n'
        ' {"name": "b", "execution": {"type": "text", "text": "x"}}]}'
    )
    assert diagnostic_lines(tmp_path, text, ".json") == []


def test_yaml_merge_keys(tmp_path: Path) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "x-defaults: &http\n"
        "  type: http\n"
        "  timeout_ms: -1\n"
        "tools:\n"
        "  - name: t\n"
        "    execution:\n"
        "      <<: *http\n"
        "      url: https://example.com\n"
        "      type: http\n"
    )
    # Overriding a merged key is not a duplicate; an error in merged content
    # points at the anchored mapping where it was written.
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        "s.yaml:2:1: warning: unknown field 'x-defaults' in schema",
        "s.yaml:4:15: error: 'timeout_ms' must be an integer >= 0, got -1",
    ]


def test_yaml_only_values(tmp_path: Path) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "tools:\n"
        "  - name: t\n"
        "    execution:\n"
        "      type: http\n"
        "      url: https://example.com\n"
        "      headers: {1: one}\n"
        "      params: {when: 2024-05-01 10:00:00}\n"
        "expiresAt: 2025-01-01\n"
    )
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        "s.yaml:7:17: error: keys of 'headers' must be strings, got integer",
        "s.yaml:8:22: error: 'params.when' must be JSON data, got timestamp",
        "s.yaml:9:1: warning: unknown field 'expiresAt' in schema",
    ]


def test_yaml_date_in_toolset_file(tmp_path: Path) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "expiresAt: 2025-01-01\n"
        "tools: [{name: t, execution: {type: text, text: hi}}]\n"
    )
    assert diagnostic_lines(tmp_path, text, ".yaml", toolset_file=True) == [
        "s.yaml:2:12: error: 'expiresAt' must be a string, got date"
    ]
