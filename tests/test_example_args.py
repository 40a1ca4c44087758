"""The broker's ``example_args`` pass the tool's own input schema (issue 16, point 7):
for every tool of the examples and of the reference schemas (their toolsets and MCP
caches too), for generated schemas with bounds, lengths, patterns, formats, enums,
arrays and nested objects, and through the generated models of a real package.
Where no example can fit, there is none. The compiler makes them
(:mod:`mcigen.planner.example_args`) and keeps those a validator accepts."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st
from mcigen_runtime.broker.meta_tools import Broker
from mcigen_runtime.registry import registry

from mcigen.planner.example_args import example_args
from mcigen.planner.schema_fit import misfit

from .conftest import ROOT, built_package, schema_of, text_tool, write_schema

CORPUS = sorted(
    path
    for folder in ("examples", "tests/fixtures/reference")
    for path in (ROOT / folder).rglob("*")
    if path.suffix in (".json", ".yaml", ".yml")
)


def corpus_tools() -> Iterator[tuple[str, dict[str, Any]]]:
    for path in CORPUS:
        text = path.read_text(encoding="utf-8")
        document = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        tools = document.get("tools") if isinstance(document, dict) else None
        for tool in tools or []:
            if isinstance(tool, dict) and tool.get("inputSchema"):
                yield f"{path.relative_to(ROOT)}:{tool['name']}", tool["inputSchema"]


def problems(example: Any, schema: dict[str, Any]) -> list[str]:
    """What a JSON Schema validator of the schema's draft, formats checked, finds
    wrong with ``example``."""
    validator = jsonschema.validators.validator_for(schema)
    checker = validator(schema, format_checker=validator.FORMAT_CHECKER)
    return [error.message for error in checker.iter_errors(example)]


def test_every_tool_of_the_examples_and_reference_schemas_gets_a_valid_example() -> (
    None
):
    tools = dict(corpus_tools())
    assert len(tools) > 100  # the schemas, their toolsets and their MCP caches
    for name, schema in tools.items():
        example = example_args(schema)
        assert example is not None, name
        assert problems(example, schema) == [], (name, example)


def test_the_issues_ticket_example_passes_the_generated_model(tmp_path: Path) -> None:
    """``acknowledgeTicket`` asks ``ticket_id >= 1`` and a non-empty ``customer``;
    its example was ``{"ticket_id": 0, "customer": ""}``, which its own function
    refused."""
    schema = ROOT / "examples" / "support_replies.mci.json"
    with built_package(schema, tmp_path / "support") as package:
        broker = Broker(registry(package.__name__), env={})
        paths = broker.paths()
        example = broker.desc(paths["acknowledgeTicket"])["example_args"]
        assert (example["ticket_id"], example["customer"]) == (1, "a")
        for name, path in paths.items():
            answer = broker.call(path, broker.desc(path)["example_args"])
            assert answer["isError"] is False, (name, answer)


def test_an_example_its_schema_refuses_is_not_stored(tmp_path: Path) -> None:
    """A property's own ``examples[0]`` is taken as it is; one that breaks the
    property's schema leaves the tool without example args, where it used to be
    shown."""

    def code_tool(name: str, code: dict[str, Any]) -> dict[str, Any]:
        schema = {"type": "object", "properties": {"code": code}, "required": ["code"]}
        return text_tool(name, "{{props.code}}", inputSchema=schema)

    document = schema_of(
        code_tool("refused", {"type": "string", "maxLength": 2, "examples": ["abc"]}),
        code_tool("kept", {"type": "string", "maxLength": 2, "examples": ["ab"]}),
    )
    with built_package(write_schema(tmp_path, document), tmp_path / "pkg") as package:
        broker = Broker(registry(package.__name__), env={})
        assert "example_args" not in broker.desc("/refused")
        assert broker.desc("/kept")["example_args"] == {"code": "ab"}


def test_the_check_fetches_no_schema_from_elsewhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fetched: list[object] = []

    def urlopen(request: object, *args: object, **kwargs: object) -> None:
        fetched.append(request)
        raise OSError("no network in this test")

    monkeypatch.setattr("urllib.request.urlopen", urlopen)
    schema = {"type": "object", "properties": {"a": {"$ref": "http://x.test/a.json"}}}
    assert misfit({"a": 1}, schema) == (
        "$ref 'http://x.test/a.json' is not a definition of the schema itself"
    )
    assert fetched == []


@pytest.mark.parametrize(
    ("schema", "expected"),
    [
        ({"type": "integer", "minimum": 3, "maximum": 9, "multipleOf": 4}, 4),
        ({"type": "integer", "exclusiveMinimum": 2.5}, 3),
        ({"type": "number", "exclusiveMaximum": -1}, -2),
        ({"type": "string", "pattern": "^[A-Z]{3}-\\d{2}$"}, "AAA-00"),
        ({"type": "string", "pattern": "^(?:red|green)$"}, "red"),
        ({"type": "string", "pattern": "x", "minLength": 3}, "xaa"),
        ({"type": "string", "format": "date"}, "2024-01-31"),
        ({"type": "string", "maxLength": 2, "minLength": 2}, "aa"),
        ({"enum": [1, "a"], "type": "string"}, "a"),
        ({"anyOf": [{"type": "null"}, {"type": "integer", "minimum": 7}]}, 7),
        ({"type": "array", "items": {"enum": ["x"]}, "minItems": 2}, ["x", "x"]),
        ({"type": "array", "contains": {"const": 5}}, [5]),
        (
            {"type": "object", "properties": {"a": {}, "b": {}}, "minProperties": 1},
            {"a": None},
        ),
    ],
)
def test_a_required_value_fits_its_schema(
    schema: dict[str, Any], expected: Any
) -> None:
    tool = {"type": "object", "properties": {"v": schema}, "required": ["v"]}
    assert example_args(tool) == {"v": expected}
    assert problems({"v": expected}, tool) == []


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "integer", "minimum": 5, "maximum": 4},
        {"type": "integer", "exclusiveMinimum": 1, "exclusiveMaximum": 2},
        {"type": "string", "minLength": 3, "maxLength": 2},
        {"type": "string", "pattern": "^(a)\\1$"},  # a back reference: not followed
        {"type": "string", "format": "date", "maxLength": 4},
        {"type": "array", "minItems": 3, "maxItems": 1},
        {"enum": ["a"], "type": "integer"},
    ],
)
def test_without_a_fitting_value_there_is_no_example(schema: dict[str, Any]) -> None:
    tool = {"type": "object", "properties": {"v": schema}, "required": ["v"]}
    assert example_args(tool) is None
    # An optional property that cannot be filled is left out instead.
    assert example_args({"type": "object", "properties": {"v": schema}}) == {}


# -- generated schemas ------------------------------------------------------------


@st.composite
def numeric(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": draw(st.sampled_from(["integer", "number"]))}
    low, high = sorted(draw(st.lists(st.integers(-20, 20), min_size=2, max_size=2)))
    if draw(st.booleans()):
        schema["exclusiveMinimum" if draw(st.booleans()) else "minimum"] = low
    if draw(st.booleans()):
        schema["exclusiveMaximum" if draw(st.booleans()) else "maximum"] = high
    step = draw(st.sampled_from([None, 1, 2, 3, 7, 0.5, 0.25]))
    if step is not None:
        schema["multipleOf"] = step
    return schema


@st.composite
def text(draw: st.DrawFn) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "string"}
    kind = draw(st.sampled_from(["lengths", "pattern", "format"]))
    if kind == "lengths":
        shortest = draw(st.integers(0, 6))
        schema["minLength"] = shortest
        schema["maxLength"] = shortest + draw(st.integers(0, 4))
    elif kind == "pattern":
        schema["pattern"] = draw(
            st.sampled_from(
                [
                    "^[A-Z]{3}$",
                    "^\\d+$",
                    "^[a-z]+-[0-9]{2}$",
                    "^(foo|bar)+$",
                    "^\\S+@\\S+\\.[a-z]{2,}$",
                    "^[^aeiou]{4}$",
                    "v\\d",
                ]
            )
        )
    else:
        schema["format"] = draw(
            st.sampled_from(["date", "date-time", "email", "uuid", "ipv4", "uri"])
        )
    return schema


scalars = st.one_of(
    numeric(),
    text(),
    st.just({"type": "boolean"}),
    st.just({"type": ["string", "null"]}),
    st.sampled_from([{"enum": ["a", "b"]}, {"enum": [3, None]}, {"const": "fixed"}]),
)


def arrays(items: st.SearchStrategy[dict[str, Any]]) -> st.SearchStrategy[Any]:
    return st.builds(
        lambda item, least, more: {
            "type": "array",
            "items": item,
            "minItems": least,
            "maxItems": least + more,
        },
        items,
        st.integers(0, 3),
        st.integers(0, 2),
    )


@st.composite
def objects(draw: st.DrawFn, values: st.SearchStrategy[dict[str, Any]]) -> Any:
    properties = draw(st.dictionaries(st.sampled_from("abcde"), values, max_size=4))
    required = [name for name in properties if draw(st.booleans())]
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": required,
    }
    if draw(st.booleans()):
        schema["additionalProperties"] = False
    return schema


values = st.recursive(
    scalars, lambda inner: st.one_of(arrays(inner), objects(inner)), max_leaves=8
)


def satisfiable_number(schema: dict[str, Any]) -> bool:
    """Whether a number on a fine grid fits (every bound drawn is an integer)."""
    grid = [i / 8 for i in range(-200, 201)]
    if schema.get("type") == "integer":
        grid = [g for g in grid if g == math.floor(g)]
    return any(not problems(int(g) if g.is_integer() else g, schema) for g in grid)


def unsatisfiable(schema: Any) -> bool:
    """Whether a required part of ``schema`` can have no value."""
    if schema.get("type") in ("integer", "number"):
        return not satisfiable_number(schema)
    if schema.get("type") == "array":
        return schema["minItems"] > 0 and unsatisfiable(schema["items"])
    if schema.get("type") == "object":
        return any(unsatisfiable(schema["properties"][n]) for n in schema["required"])
    return False


@settings(max_examples=300, deadline=None)
@given(objects(values))
def test_generated_schemas_get_an_example_they_accept(schema: dict[str, Any]) -> None:
    example = example_args(schema)
    if example is None:
        assert unsatisfiable(schema)
    else:
        assert problems(example, schema) == []
