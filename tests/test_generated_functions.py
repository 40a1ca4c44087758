"""Calling generated text tools: signatures, validation, defaults, env fallbacks, **props."""

from __future__ import annotations

import asyncio
import inspect
import subprocess
import sys
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from mcigen_runtime.errors import ToolInputError
from pydantic import StrictStr

from .conftest import schema_of, text_tool

PEOPLE = {
    "type": "object",
    "properties": {
        "name": {"type": "string", "description": "Who"},
        "title": {"type": "string"},
        "count": {"type": "integer", "minimum": 1, "default": 2},
        "ratio": {"type": "number"},
        "mood": {"type": "string", "enum": ["happy", "sad"], "default": "happy"},
        "tags": {"type": "array", "items": {"type": "string"}, "default": ["x"]},
    },
    "required": ["name"],
}

MEASURES = {
    "type": "object",
    "properties": {
        "n": {"type": "integer"},
        "sizes": {"type": "array", "items": {"type": "integer"}},
        "box": {
            "type": "object",
            "properties": {"depth": {"type": "integer"}},
            "additionalProperties": {"type": "integer"},
        },
        "either": {"anyOf": [{"type": "integer"}, {"type": "string"}]},
        "level": {"type": "integer", "enum": [1, 2, 3]},
        "ratio": {"type": "number"},
        "count": {"$ref": "#/$defs/Count"},
    },
    "required": ["n"],
    "$defs": {"Count": {"type": "integer", "minimum": 0}},
}

STAMPS = {
    "type": "object",
    "properties": {
        "when": {"type": "string", "format": "date-time"},
        "day": {"type": "string", "format": "date"},
        "mail": {"type": "string", "format": "email"},
        "site": {"type": "string", "format": "uri"},
        "id": {"type": "string", "format": "uuid"},
        "ip": {"type": "string", "format": "ipv4"},
        "days": {"type": "array", "items": {"type": "string", "format": "date"}},
        "either": {
            "anyOf": [{"type": "string", "format": "date"}, {"type": "integer"}]
        },
        "amount": {"type": "number", "format": "decimal"},
    },
    "required": ["when"],
}

SCHEMA = schema_of(
    text_tool(
        "greetPerson",
        "Hi {{props.title | 'friend'}} {{props.name}} x{{props.count}} {{props.mood}} {{props.tags}}",
        description="Greets a person.\n\nMore words here.",
        inputSchema=PEOPLE,
    ),
    text_tool(
        "envEcho", "A={{env.MCIGEN_T_A | env.MCIGEN_T_B | 'none'}} B={{env.MCIGEN_T_B}}"
    ),
    text_tool("passThrough", "got {{props.anything}} and {{input.other | 'no other'}}"),
    text_tool(
        "oddNames",
        "{{props.first-name}}/{{props.class}}/{{props.2fa}}",
        inputSchema={
            "type": "object",
            "properties": {
                "first-name": {"type": "string"},
                "class": {"type": "string"},
                "2fa": {"type": "boolean"},
            },
            "required": ["first-name", "class", "2fa"],
        },
    ),
    text_tool("ratio", "r={{props.ratio}}", inputSchema=PEOPLE),
    text_tool("measure", "{{props}}", inputSchema=MEASURES),
    text_tool("stamp", "{{props}}", inputSchema=STAMPS),
    text_tool("off", "never", disabled=True),
)


@pytest.fixture
def pkg(build: Callable[..., ModuleType]) -> ModuleType:
    return build(SCHEMA, "gen_pkg")


def test_function_names_are_snake_case_and_disabled_tools_absent(
    pkg: ModuleType,
) -> None:
    assert {"greet_person", "env_echo", "pass_through", "odd_names", "ratio"} <= set(
        pkg.__all__
    )
    assert "off" not in pkg.__all__
    with pytest.raises(AttributeError):
        pkg.off  # noqa: B018


def test_parameters_are_keyword_only_typed_with_schema_defaults(
    pkg: ModuleType,
) -> None:
    signature = inspect.signature(pkg.greet_person)
    assert all(p.kind is p.KEYWORD_ONLY for p in signature.parameters.values())
    params = signature.parameters
    assert params["name"].default is inspect.Parameter.empty
    assert params["count"].default == 2
    assert params["mood"].default == "happy"
    assert params["title"].default is None
    assert params["name"].annotation == "str"
    assert params["mood"].annotation == "Literal['happy', 'sad']"
    assert params["ratio"].annotation == "float | None"
    assert params["tags"].annotation == "list[str] | None"


def test_docstring_comes_from_the_description(pkg: ModuleType) -> None:
    doc = pkg.greet_person.__doc__
    assert doc.startswith("Greets a person.\n\n    More words here.")
    assert "name: Who" in doc


def test_defaults_applied_and_optional_props_absent(pkg: ModuleType) -> None:
    result = pkg.greet_person(name="Ann")
    assert result.isError is False
    assert result.text == "Hi friend Ann x2 happy ['x']"
    assert pkg.greet_person(name="Ann", title="Dr", count=3, tags=["a", "b"]).text == (
        "Hi Dr Ann x3 happy ['a', 'b']"
    )


def test_values_print_like_python_str(pkg: ModuleType) -> None:
    assert pkg.ratio(name="n", ratio=0.5).text == "r=0.5"
    assert pkg.ratio(name="n", ratio=3).text == "r=3"


def test_missing_value_without_fallback_is_an_error_result(pkg: ModuleType) -> None:
    result = pkg.ratio(name="n")
    assert result.isError is True
    assert result.text == (
        "Failed to resolve placeholder '{{props.ratio}}': Could not resolve any alternative. "
        "Tried: props.ratio. Errors: props.ratio: Path 'props.ratio' not found in context "
        "(missing 'ratio')"
    )
    assert result.model_dump() == {
        "content": [{"type": "text", "text": result.text}],
        "isError": True,
        "metadata": None,
    }


def test_env_fallback_chain(pkg: ModuleType, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MCIGEN_T_A", raising=False)
    monkeypatch.setenv("MCIGEN_T_B", "bee")
    assert pkg.env_echo().text == "A=bee B=bee"
    monkeypatch.setenv("MCIGEN_T_A", "ay")
    assert pkg.env_echo().text == "A=ay B=bee"
    monkeypatch.delenv("MCIGEN_T_A")
    monkeypatch.delenv("MCIGEN_T_B")
    result = pkg.env_echo()
    assert result.isError
    assert "'{{env.MCIGEN_T_B}}'" in result.text


def test_tool_without_input_schema_takes_any_props(pkg: ModuleType) -> None:
    assert (
        str(inspect.signature(pkg.pass_through)) == "(**props: 'Any') -> 'ToolResult'"
    )
    assert pkg.pass_through(anything=[1, True]).text == "got [1, True] and no other"
    assert pkg.pass_through(anything="a", other="b").text == "got a and b"


def test_mangled_parameter_names_keep_original_keys(pkg: ModuleType) -> None:
    assert list(inspect.signature(pkg.odd_names).parameters) == [
        "first_name",
        "class_",
        "p_2fa",
    ]
    assert pkg.odd_names(first_name="Jo", class_="A", p_2fa=True).text == "Jo/A/True"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"name": 5}, "name"),
        ({"name": "a", "count": 0}, "count"),
        ({"name": "a", "count": "3"}, "count"),
        ({"name": "a", "count": 3.5}, "count"),
        ({"name": "a", "count": True}, "count"),
        ({"name": "a", "mood": "angry"}, "mood"),
        ({"name": "a", "tags": ["ok", 3]}, "tags.1"),
        ({"name": "a", "ratio": True}, "ratio"),
    ],
)
def test_invalid_input_raises_tool_input_error_naming_the_field(
    pkg: ModuleType, kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(pkg.ToolInputError) as caught:
        pkg.greet_person(**kwargs)
    assert isinstance(caught.value, ValueError)
    assert caught.value.field == field  # type: ignore[attr-defined]
    assert caught.value.tool == "greetPerson"  # type: ignore[attr-defined]
    assert f"{field}:" in str(caught.value)


def test_a_whole_float_is_an_integer_and_reaches_the_tool_as_an_int(
    pkg: ModuleType,
) -> None:
    assert (
        pkg.greet_person(name="Ann", count=3.0).text == "Hi friend Ann x3 happy ['x']"
    )
    assert inspect.signature(pkg.measure).parameters["n"].annotation == "int"
    result = pkg.measure(
        n=-0.0,
        sizes=[1.0, 2, 1e2],
        box={"depth": 2.0, "width": 3.0},
        either=4.0,
        ratio=3.0,
        count=5.0,
    )
    assert result.text == (
        "{'n': 0, 'sizes': [1, 2, 100], 'box': {'depth': 2, 'width': 3}, 'either': 4, "
        "'ratio': 3.0, 'count': 5}"
    )
    assert pkg.measure(n=1, either="4.0").text == "{'n': 1, 'either': '4.0'}"


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"n": 3.5}, "n"),
        ({"n": "3"}, "n"),
        ({"n": float("inf")}, "n"),
        ({"n": 1, "sizes": [1, 2.5]}, "sizes.1"),
        ({"n": 1, "sizes": [True]}, "sizes.0"),
        ({"n": 1, "box": {"depth": 0.5}}, "box.depth"),
        ({"n": 1, "box": {"width": 0.5}}, "box.width"),
        ({"n": 1, "count": -1.0}, "count"),
        ({"n": 1, "either": 4.5}, "either.int"),
        ({"n": 1, "level": 4}, "level"),
        ({"n": 1, "level": 2.5}, "level"),
    ],
)
def test_a_number_with_a_fraction_is_no_integer(
    pkg: ModuleType, kwargs: dict[str, Any], field: str
) -> None:
    with pytest.raises(pkg.ToolInputError) as caught:
        pkg.measure(**kwargs)
    assert f"{field}: Input should be" in str(caught.value)
    assert caught.value.field.split(".")[0] == field.split(".")[0]


def test_an_integer_enum_takes_its_members(pkg: ModuleType) -> None:
    assert pkg.measure(n=1, level=3).text == "{'n': 1, 'level': 3}"
    assert pkg.measure(n=1, level=3.0).text == "{'n': 1, 'level': 3}"


def test_a_format_is_an_annotation_and_the_tool_gets_the_string_as_given(
    pkg: ModuleType,
) -> None:
    given = {
        "when": "not a date",
        "day": "2024-02-30",
        "mail": "nobody",
        "site": "::",
        "id": "ABC",
        "ip": "999.1.1.1",
        "days": ["yesterday", "2024-01-31"],
        "either": "soon",
        "amount": 0.1,
    }
    assert pkg.stamp(**given).text == str(given)
    kept = {
        "when": "2024-01-31T12:00:00Z",
        "id": "0AB9F9B8-9B3E-4A5E-8F4B-8D1C2E3F4A5B",
    }
    assert pkg.stamp(**kept).text == str(kept)
    with pytest.raises(pkg.ToolInputError) as caught:
        pkg.stamp(when=20240131)
    assert caught.value.field == "when"


def test_a_format_stays_in_the_published_schema_and_the_docstring(
    pkg: ModuleType,
) -> None:
    import gen_pkg.models as models

    (tool,) = [t for t in pkg.Client().tools() if t.name == "stamp"]
    assert tool.inputSchema == STAMPS
    fields = models.StampInput.model_fields
    assert fields["when"].annotation is str
    assert {
        fields[name].annotation for name in ("day", "mail", "site", "id", "ip")
    } == {StrictStr | None}
    assert "when: A value of type ``str``. (format: ``date-time``)" in pkg.stamp.__doc__


def test_missing_required_property_through_the_dict_entry(pkg: ModuleType) -> None:
    from gen_pkg.tools.main import INVOKERS

    with pytest.raises(pkg.ToolInputError) as caught:
        INVOKERS["greetPerson"]({}, {})
    assert caught.value.field == "name"
    assert "Field required" in str(caught.value)


def test_async_twin_gives_the_same_result(pkg: ModuleType) -> None:
    result = asyncio.run(pkg.greet_person_async(name="Ann", count=4))
    assert result.text == pkg.greet_person(name="Ann", count=4).text


def test_importing_the_package_imports_no_tool_module(pkg: ModuleType) -> None:
    code = (
        "import sys, gen_pkg\n"
        "assert not [m for m in sys.modules if m.startswith('gen_pkg.tools.')], sys.modules\n"
        "gen_pkg.greet_person\n"
        "assert 'gen_pkg.tools.main' in sys.modules\n"
    )
    directory = pkg.__path__[0].rsplit("/", 1)[0]
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=directory, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_models_module_exposes_input_models(pkg: ModuleType) -> None:
    import gen_pkg.models as models

    model = models.GreetPersonInput.model_validate({"name": "x"})
    assert model.name == "x"
    assert "OddNamesInput" in models.__all__


def test_a_property_whose_name_python_would_normalise_is_validated(
    build: Callable[..., ModuleType],
) -> None:
    """Python reads the identifier 'ﬁle' as 'file' (NFKC): a model field spelt so
    was one that no input filled, so a wrong value for 'ﬁle' went unchecked
    (given through MCIClient) or was refused as 'Field required'."""
    schema = {
        "type": "object",
        "properties": {"\ufb01le": {"type": "string"}, "file": {"type": "integer"}},
        "required": ["\ufb01le"],
    }
    package = build(
        schema_of(
            text_tool("t", "{{props.\ufb01le}} {{props.file}}", inputSchema=schema)
        ),
        "ligature",
    )
    client = package.Client()
    assert client.execute("t", {"\ufb01le": "A", "file": 1}).result.text == "A 1"
    for given, field, problem in [
        ({"\ufb01le": 5}, "\ufb01le", "Input should be a valid string"),
        ({"\ufb01le": "A", "file": "x"}, "file", "Input should be a valid integer"),
    ]:
        with pytest.raises(ToolInputError) as raised:
            client.execute("t", given)
        assert raised.value.problems == [(field, problem)]
