"""A quick answer for the input schemas most tools have.

Checking a schema against the 2020-12 meta-schema costs jsonschema about 0.8 ms.
Most input schemas use a handful of keywords whose values are easy to check, and
such a schema (with no ``$schema``, so 2020-12) is valid under that meta-schema:
it needs no full check. Anything else, and anything in doubt, gets the full check;
``tests/frontend/test_plain_schema.py`` holds the two to the same answer.
"""

from __future__ import annotations

from typing import Any

_TYPES = frozenset(
    {"array", "boolean", "integer", "null", "number", "object", "string"}
)
_TEXT = frozenset({"description", "title", "format", "$comment"})
_ANYTHING = frozenset({"default", "const"})
_ARRAYS = frozenset({"enum", "examples"})
_COUNTS = frozenset(
    {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
)
_BOUNDS = frozenset({"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"})
_SUBSCHEMAS = frozenset({"items", "additionalProperties"})


def plainly_valid(schema: dict[str, Any]) -> bool:
    """True when ``schema`` is certainly valid JSON Schema 2020-12 (False: check it)."""
    return "$schema" not in schema and _plain(schema)


def _plain(node: Any) -> bool:
    if isinstance(node, bool):
        return True
    if not isinstance(node, dict):
        return False
    return all(_plain_keyword(key, value) for key, value in node.items())


def _plain_keyword(key: str, value: Any) -> bool:
    if key == "type":
        return _type(value)
    if key == "properties":
        return isinstance(value, dict) and all(_plain(v) for v in value.values())
    if key == "required":
        return _unique_strings(value)
    if key in _SUBSCHEMAS:
        return _plain(value)
    if key in _TEXT:
        return isinstance(value, str)
    if key in _ANYTHING:
        return True
    if key in _ARRAYS:
        return isinstance(value, list)
    if key in _COUNTS:
        return type(value) is int and value >= 0
    if key in _BOUNDS:
        return type(value) in (int, float)
    return False


def _type(value: Any) -> bool:
    if isinstance(value, str):
        return value in _TYPES
    return bool(value) and _unique_strings(value) and set(value) <= _TYPES


def _unique_strings(value: Any) -> bool:
    return (
        isinstance(value, list)
        and all(isinstance(item, str) for item in value)
        and len(set(value)) == len(value)
    )
