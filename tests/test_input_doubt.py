"""The fast input check never lets through what the model refuses (hypothesis),
and lets the common valid calls skip pydantic."""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from mcigen.backend.input_guard import input_doubt, item_set_bindings

from .conftest import built_package, schema_of, text_tool, write_schema

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "who"},
        "count": {"type": "integer", "default": 1},
        "ratio": {"type": "number"},
        "flag": {"type": "boolean"},
        "mode": {"type": "string", "enum": ["a", "b"]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "tags": {"type": "array", "items": {"type": "string"}},
        "sizes": {"type": "array", "items": {"type": "number"}, "default": []},
        "counts": {"type": "array", "items": {"type": "integer"}},
        "flags": {"type": "array", "items": {"type": "boolean"}},
        "modes": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}},
        "anything": {"type": "array", "description": "any items"},
        "day": {"type": "string", "format": "date"},
        "seq": {"type": "integer", "format": "int32"},
        "low": {"type": "integer", "minimum": 0, "maximum": 10, "default": 1},
        "above": {"type": "number", "exclusiveMinimum": 0.5, "exclusiveMaximum": 2},
        "tier": {"type": "integer", "enum": [1, 2, 3], "maximum": 2},
        "scores": {"type": "array", "items": {"type": "number", "minimum": -1.5}},
    },
    "required": ["name", "mode"],
}

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats(allow_nan=False)
    | st.text(max_size=3)
    | st.sampled_from(["a", "b", "c", 0, 1, 2, 3, 10, 11, -1, True, 1.0, 0.5, -1.5]),
    lambda inner: st.lists(inner, max_size=2)
    | st.dictionaries(st.text(max_size=2), inner, max_size=2),
    max_leaves=4,
)
RAW = st.dictionaries(
    st.sampled_from([*SCHEMA["properties"], "extra"]), JSON_VALUES, max_size=7
)


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    directory = tmp_path_factory.mktemp("doubt")
    schema = write_schema(directory, schema_of(text_tool("t", "x", inputSchema=SCHEMA)))
    package: ModuleType
    with built_package(schema, directory / "doubtpkg") as package:
        yield importlib.import_module(f"{package.__name__}.models").TInput


GUARD = input_doubt(SCHEMA, "Model")
assert GUARD is not None
DOUBT = compile(GUARD.expression, "<doubt>", "eval")
NAMES: dict[str, Any] = {}
"""What the doubt reads besides ``raw``: the item types' sets a group module binds."""
exec(item_set_bindings(GUARD.item_sets), NAMES)  # noqa: S102


@settings(max_examples=300, deadline=None)
@given(raw=RAW)
def test_input_without_doubt_is_valid(model: Any, raw: dict[str, Any]) -> None:
    if not eval(DOUBT, dict(NAMES), {"raw": raw}):
        model.model_validate(raw)  # must not raise


@pytest.mark.parametrize(
    "raw",
    [
        {"name": "x", "mode": "a"},
        {"name": "x", "mode": "b", "count": 3, "ratio": 2, "flag": False, "level": 2},
        {"name": "", "mode": "a", "ratio": 0.5, "unknown": [1]},
        {"name": "x", "mode": "a", "tags": ["t", ""], "sizes": [1, 2.5], "modes": []},
        {"name": "x", "mode": "a", "anything": [None, {"k": [1]}], "modes": ["b"]},
        {"name": "x", "mode": "a", "day": "not a date", "seq": 2**40},
        {"name": "x", "mode": "a", "low": 0, "above": 0.75, "tier": 2},
        {"name": "x", "mode": "a", "low": 10, "above": 1, "scores": [-1.5, 0, 3.25]},
    ],
)
def test_common_valid_input_raises_no_doubt(model: Any, raw: dict[str, Any]) -> None:
    assert not eval(DOUBT, dict(NAMES), {"raw": raw})
    model.model_validate(raw)


@pytest.mark.parametrize(
    "raw",
    [
        {"mode": "a"},
        {"name": 1, "mode": "a"},
        {"name": "x", "mode": "c"},
        {"name": "x", "mode": "a", "count": True},
        {"name": "x", "mode": "a", "level": 4},
        {"name": "x", "mode": "a", "flag": 1},
        {"name": "x", "mode": "a", "tags": "t"},
        {"name": "x", "mode": "a", "tags": ["t", 1]},
        {"name": "x", "mode": "a", "sizes": [1, "2"]},
        {"name": "x", "mode": "a", "modes": ["a", "c"]},
        {"name": "x", "mode": "a", "anything": {"k": 1}},
        {"name": "x", "mode": "a", "day": 20240131},
        {"name": "x", "mode": "a", "seq": 1.5},
        {"name": "x", "mode": "a", "low": -1},
        {"name": "x", "mode": "a", "low": 11},
        {"name": "x", "mode": "a", "above": 0.5},
        {"name": "x", "mode": "a", "above": 2},
        {"name": "x", "mode": "a", "tier": 3},
        {"name": "x", "mode": "a", "scores": [0, -2]},
    ],
)
def test_invalid_input_is_doubted_and_refused(model: Any, raw: dict[str, Any]) -> None:
    assert eval(DOUBT, dict(NAMES), {"raw": raw})
    with pytest.raises(ValidationError):
        model.model_validate(raw)


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "object", "properties": {"n": {"type": "integer", "multipleOf": 2}}},
        {
            "type": "object",
            "properties": {"n": {"type": "number", "exclusiveMinimum": True}},
        },
        {"type": "object", "properties": {"n": {"type": "integer", "minimum": "0"}}},
        {"type": "object", "properties": {"s": {"type": "string", "minimum": 0}}},
        {"type": "object", "properties": {"a": {"type": "array", "minItems": 1}}},
        {
            "type": "object",
            "properties": {
                "a": {"type": "array", "items": {"type": "string", "minLength": 1}}
            },
        },
        {
            "type": "object",
            "properties": {"a": {"type": "array", "items": {"type": "array"}}},
        },
        {"type": "object", "properties": {"a": {"type": "array", "enum": [[1]]}}},
        {"type": "object", "additionalProperties": False, "properties": {}},
        {"type": "object", "properties": {"e": {"type": "string", "enum": ["a", 1]}}},
        {"type": "object", "properties": {"t": {"type": ["string", "null"]}}},
        {"type": "object", "required": ["ghost"], "properties": {}},
    ],
)
def test_schemas_beyond_plain_properties_always_validate(
    schema: dict[str, Any],
) -> None:
    assert input_doubt(schema, "Model") is None


def test_a_schema_without_properties_needs_no_check() -> None:
    assert input_doubt({"type": "object"}, "Model") == ("", frozenset())
