"""The quick answer for plain input schemas never says valid where the full
meta-schema check finds a problem, and it answers for the schemas tools have."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mcigen.frontend.mci.json_schema import DEFAULT_DRAFT, meta_schema_problems
from mcigen.frontend.mci.plain_schema import plainly_valid

_KEYS = st.sampled_from(
    [
        "type", "properties", "required", "items", "additionalProperties",
        "description", "title", "format", "$comment", "default", "const", "enum",
        "examples", "minLength", "maxItems", "minimum", "exclusiveMaximum",
        "pattern", "anyOf", "$schema", "$ref", "unknownKeyword",
    ]
)  # fmt: skip
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-3, 3),
    st.floats(-2, 2),
    st.sampled_from(["string", "object", "integer", "strin", "a", ""]),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.sampled_from(["a", "b", "type"]), inner, max_size=3),
    max_leaves=8,
)
schemas = st.recursive(
    st.dictionaries(_KEYS, _JSON, max_size=4),
    lambda inner: st.dictionaries(
        _KEYS,
        st.one_of(
            _JSON,
            inner,
            st.dictionaries(st.sampled_from(["x", "y"]), inner, max_size=2),
            st.lists(st.sampled_from(["string", "integer", "x"]), max_size=3),
        ),
        max_size=5,
    ),
    max_leaves=12,
)


_NEAR_PLAIN_VALUES = {
    "type": st.sampled_from(["string", "object", "strin"])
    | st.lists(st.sampled_from(["string", "null", "x"]), max_size=3),
    "required": st.lists(st.sampled_from(["a", "b"]), max_size=3) | _JSON,
    "minLength": st.integers(-1, 3) | st.floats(0, 2) | st.booleans(),
    "minimum": st.integers(-1, 3)
    | st.floats(0, 2)
    | st.booleans()
    | st.text(max_size=1),
    "enum": st.lists(_SCALARS, max_size=3) | _SCALARS,
    "description": st.text(max_size=3) | _SCALARS,
    "default": _JSON,
}
near_plain = st.recursive(
    st.fixed_dictionaries({}, optional=dict(_NEAR_PLAIN_VALUES)),
    lambda inner: st.fixed_dictionaries(
        {},
        optional={
            **_NEAR_PLAIN_VALUES,
            "properties": st.dictionaries(
                st.sampled_from(["p", "q"]), inner, max_size=2
            ),
            "items": inner | st.booleans() | st.lists(inner, max_size=1),
            "additionalProperties": inner | st.booleans() | _SCALARS,
        },
    ),
    max_leaves=10,
)


@settings(max_examples=600, deadline=None)
@given(schemas | near_plain)
def test_a_plainly_valid_schema_meets_the_meta_schema(schema: dict[str, Any]) -> None:
    if plainly_valid(schema):
        assert list(meta_schema_problems(schema, DEFAULT_DRAFT)) == []


def test_the_schemas_tools_have_are_plainly_valid() -> None:
    schema = {
        "type": "object",
        "properties": {
            "name": {"type": "string", "description": "Who", "minLength": 1},
            "count": {"type": "integer", "minimum": 0, "default": 1},
            "mode": {"type": ["string", "null"], "enum": ["short", "long", None]},
            "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 5},
            "extra": {"type": "object", "additionalProperties": True},
        },
        "required": ["name"],
    }
    assert plainly_valid(schema)
    assert not plainly_valid({**schema, "required": ["name", "name"]})
    assert not plainly_valid(
        {**schema, "$schema": "http://json-schema.org/draft-07/schema#"}
    )
    assert not plainly_valid({"type": "object", "properties": {"p": {"pattern": "x"}}})
