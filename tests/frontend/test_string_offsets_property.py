"""Property: every character of a decoded string maps to where it was written.

For any string, serialised by json or PyYAML, the position reported for each
decoded offset holds that character in the file, either literally or as the
start of an escape that decodes to it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mcigen.frontend.source import SourceDocument, parse_text
from mcigen.frontend.string_offsets import StringStyle

EXACT_YAML_STYLES = {
    StringStyle.PLAIN,
    StringStyle.SINGLE_QUOTED,
    StringStyle.DOUBLE_QUOTED,
    StringStyle.LITERAL,
}


def _index_of(doc: SourceDocument, pointer: str, value: str, offset: int) -> int:
    location = doc.string_location(pointer, value, offset)
    return doc.lines.line_start(location.line - 1) + location.column - 1


def _decodes_to(
    escape: str, expected: str, loads: Callable[[str], Any], lengths: tuple[int, ...]
) -> bool:
    """Whether some prefix of ``escape`` is an escape sequence meaning ``expected``."""
    for length in lengths:
        try:
            if loads(f'"{escape[:length]}"') == expected:
                return True
        except (ValueError, yaml.YAMLError):
            continue
    return False


@settings(max_examples=300, deadline=None)
@given(value=st.text(), ascii_only=st.booleans(), indent=st.integers(0, 6))
def test_json_string_offsets(value: str, ascii_only: bool, indent: int) -> None:
    encoded = json.dumps(value, ensure_ascii=ascii_only)
    text = '{"schemaVersion": "1.0",\n' + " " * indent + f'"k": {encoded}}}\n'
    doc = parse_text(text, ".json", "s.json")
    for offset, char in enumerate(value):
        index = _index_of(doc, "/k", value, offset)
        raw = text[index:]
        assert raw[0] == char or (
            raw[0] == "\\" and _decodes_to(raw, char, json.loads, (2, 6, 12))
        ), (offset, raw[:12])
    assert text[_index_of(doc, "/k", value, len(value))] == '"'


@settings(max_examples=300, deadline=None)
@given(
    value=st.text(),
    style=st.sampled_from([None, "'", '"', "|"]),
)
def test_yaml_scalar_offsets(value: str, style: str | None) -> None:
    text = yaml.safe_dump(
        {"schemaVersion": "1.0", "k": value},
        default_style=style,
        allow_unicode=True,
        width=10_000,
        sort_keys=False,
    )
    doc = parse_text(text, ".yaml", "s.yaml")
    span = doc.parsed.strings.get("/k")
    if span is None or doc.data != {"schemaVersion": "1.0", "k": value}:
        return  # not emitted as a string scalar, or not round-tripped
    single_line = doc.lines.line_of(span.start) == doc.lines.line_of(span.end - 1)
    if span.style not in EXACT_YAML_STYLES or not (
        single_line or span.style is StringStyle.LITERAL
    ):
        return  # folded forms are best effort
    for offset, char in enumerate(value):
        index = _index_of(doc, "/k", value, offset)
        raw = text[index:]
        assert raw[:1] == char or (
            span.style is StringStyle.DOUBLE_QUOTED
            and raw[0] == "\\"
            and _decodes_to(raw, char, yaml.safe_load, (2, 4, 6, 10))
        ), (offset, span.style, raw[:12])
