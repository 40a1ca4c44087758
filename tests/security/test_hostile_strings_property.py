"""Hostile strings in every name, description, property name, enum value, default,
template and metadata field of a schema (issue 13): the build succeeds or fails
with located diagnostics, never an exception; the package imports without running
any of it; and every string comes back byte for byte in the manifest (``list``,
``describe``), in ``tools/list`` and in results."""

from __future__ import annotations

import asyncio
import importlib
import itertools
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mcigen.output import write_package
from mcigen.pipeline import compile_schema

from ..conftest import write_schema
from .support import BUILDS, PAYLOADS, every_module_imported, importable_from

_SPECIAL = "\"'\\\n\r\t\x00\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029\ufeff\u200b{}#`$%"
_CHARACTERS = st.characters(blacklist_categories=["Cs"]) | st.sampled_from(_SPECIAL)

hostile = st.one_of(
    st.sampled_from(PAYLOADS),
    st.text(_CHARACTERS, max_size=24),
    st.builds(lambda a, b: a + b, st.sampled_from(PAYLOADS), st.text(_CHARACTERS)),
    st.sampled_from(["type", "str", "None", "class", "_raw", "Any", "1x", "ｒｅａｄ"]),
)


def _plain_text(text: str) -> str:
    """``text`` without what the template language reads (tested elsewhere)."""
    return text.replace("{", "(").replace("}", ")").replace("@", "at")


@st.composite
def hostile_schemas(draw: st.DrawFn) -> dict[str, Any]:
    tools = []
    for index in range(draw(st.integers(1, 3))):
        names = draw(st.lists(hostile, max_size=3, unique=True))
        properties: dict[str, Any] = {
            "value": {"type": "string", "description": draw(hostile)}
        }
        for name in names:
            described: dict[str, Any] = {"type": "string", "description": draw(hostile)}
            values = draw(st.lists(hostile, min_size=1, max_size=3, unique=True))
            if draw(st.booleans()):
                described["enum"] = values
            if draw(st.booleans()):
                described["default"] = values[0]
            properties.setdefault(name, described)
        input_schema: dict[str, Any] = {
            "type": "object",
            "properties": properties,
            "required": ["value"],
        }
        if draw(st.booleans()):
            definition, title = draw(hostile), draw(hostile)
            input_schema["$defs"] = {definition: _nested(draw(hostile), title)}
            reference = quote(definition.replace("~", "~0").replace("/", "~1"))
            properties["nested"] = {"$ref": f"#/$defs/{reference}", "title": title}
            properties["items"] = {"type": "array", "items": _nested(title, title)}
        tools.append(
            {
                "name": draw(hostile.filter(bool)) + f"{index}",
                "description": draw(hostile),
                "inputSchema": input_schema,
                "execution": {
                    "type": "text",
                    "text": _plain_text(draw(hostile)) + "{{props.value}}",
                },
            }
        )
    return {
        "schemaVersion": "1.0",
        "metadata": {"name": draw(hostile), "description": draw(hostile)},
        "tools": tools,
    }


def _nested(text: str, title: str) -> dict[str, Any]:
    """An object schema whose every text field is hostile."""
    return {
        "type": "object",
        "title": title,
        "description": text,
        "properties": {text: {"type": "string", "title": title, "examples": [text]}},
    }


_COUNTER = itertools.count()


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with importable_from(tmp_path_factory.mktemp("hostile")) as directory:
        yield directory


@settings(BUILDS, max_examples=300)
@given(document=hostile_schemas(), value=hostile)
def test_hostile_strings_are_data(
    workspace: Path, document: dict[str, Any], value: str
) -> None:
    package = f"hostile_{next(_COUNTER)}"
    schema = write_schema(workspace, document, f"{package}.mci.json")
    files, diagnostics = compile_schema(schema, workspace / package, package)
    # Every hostile name is a tool: two that make one Python name get two.
    assert files is not None, diagnostics.render()
    write_package(files, workspace / package, package)
    with every_module_imported(package) as imported:
        _check_package(imported, document, value)


def _check_package(imported: ModuleType, document: dict[str, Any], value: str) -> None:
    package = imported.__name__
    registry = importlib.import_module("mcigen_runtime.registry").registry(package)
    assert registry.metadata == document["metadata"]
    assert [t.name for t in registry.tools] == [t["name"] for t in document["tools"]]
    for entry, tool in zip(registry.tools, document["tools"], strict=True):
        assert entry.description == tool["description"]
        assert entry.input_schema == tool["inputSchema"]

    server = importlib.import_module("mcigen_runtime.serve.server")
    options = importlib.import_module("mcigen_runtime.edge.settings")
    surface = server.ToolSurface(package, options.ServeOptions(), env={})
    listed = {d["name"]: d for d in surface.definitions}
    for tool in document["tools"]:
        definition = listed.get(tool["name"]) or next(
            d
            for d in surface.definitions
            if surface.find(d["name"]).name == tool["name"]
        )
        assert definition["description"] == tool["description"]
        assert definition["inputSchema"] == tool["inputSchema"]

    for entry, tool in zip(registry.tools, document["tools"], strict=True):
        expected = _plain_text(
            tool["execution"]["text"].removesuffix("{{props.value}}")
        )
        function = getattr(imported, entry.python_name)
        assert function(value=value).text == expected + value
        called = asyncio.run(surface.call(tool["name"], {"value": value}))
        assert not called.is_error
        assert called.content[0].text == expected + value
