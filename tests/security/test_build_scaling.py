"""Large legal input builds in time and memory linear in its size, into a package
that behaves like any other (issue 13): a 20,000-value enum, a description of
megabytes."""

from __future__ import annotations

import importlib
import inspect
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from mcigen.backend.input_guard import input_doubt

from ..conftest import MypyStrict, built_package, schema_of, text_tool, write_schema

COLORS = [f"color-{i:05d}" for i in range(20_000)]
CODES = list(range(1_000, 1_300))
SMALL = [f"s{i}" for i in range(256)]


@pytest.fixture(scope="module")
def enum_package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("large-enum")
    tool = text_tool(
        "pick",
        "{{props.color}}",
        inputSchema={
            "type": "object",
            "properties": {
                "color": {"type": "string", "enum": COLORS},
                "codes": {"type": "array", "items": {"type": "integer", "enum": CODES}},
                "size": {"type": "string", "enum": SMALL},
            },
            "required": ["color"],
        },
    )
    schema = write_schema(directory, schema_of(tool))
    with built_package(schema, directory / "enumpkg") as package:
        yield package


def _directory(package: ModuleType) -> Path:
    return Path(package.__file__ or "").parent


def test_a_large_enum_accepts_its_members_and_names_the_field_it_refuses(
    enum_package: ModuleType,
) -> None:
    package = enum_package
    assert package.pick(color=COLORS[-1], codes=[1_299]).text == COLORS[-1]
    errors = importlib.import_module("mcigen_runtime.errors")
    refused: list[tuple[dict[str, Any], str]] = [
        ({"color": "color-20000"}, "color"),
        ({"color": 7}, "color"),
        ({"color": COLORS[0], "codes": [999]}, "codes.0"),
        ({"color": COLORS[0], "size": "s256"}, "size"),
    ]
    for arguments, field in refused:
        with pytest.raises(errors.ToolInputError) as raised:
            package.pick(**arguments)
        assert raised.value.field == field
    with pytest.raises(ValueError, match="enum"):
        importlib.import_module("enumpkg.models").PickInput(color="no such color")


def test_a_large_enum_is_typed_by_its_base_type_and_kept_out_of_the_code(
    enum_package: ModuleType,
) -> None:
    signature = inspect.signature(enum_package.pick)
    doc = inspect.getdoc(enum_package.pick) or ""
    assert signature.parameters["color"].annotation == "str"
    assert signature.parameters["codes"].annotation == "list[int] | None"
    assert signature.parameters["size"].annotation.startswith("Literal['s0', ")
    assert "color: One of 20000 values." in doc
    tools = _directory(enum_package) / "tools"
    source = (tools / "main.py").read_text("utf-8")
    assert COLORS[1] not in source and "1299" not in source and '"s255"' in source
    models = (tools / "models" / "main.py").read_text("utf-8")
    assert COLORS[1] not in models and "1299" not in models


def test_a_package_with_a_large_enum_passes_mypy_strict(
    enum_package: ModuleType, mypy_strict: MypyStrict
) -> None:
    result = mypy_strict("enumpkg/tools/main.py", cwd=_directory(enum_package).parent)
    assert result.returncode == 0, result.stdout


def test_a_description_of_megabytes_comes_back_byte_for_byte(tmp_path: Path) -> None:
    line = 'Every "quote", \\backslash and ünïcode; '
    description = "\n".join(f"{i}: {line * 10}".rstrip() for i in range(5_000))
    tool = text_tool("big", "ok", description=description)
    schema = write_schema(tmp_path, schema_of(tool))
    with built_package(schema, tmp_path / "bigpkg") as package:
        assert (inspect.getdoc(package.big) or "").startswith(
            description + "\n\nReturns:"
        )
    manifest = json.loads((tmp_path / "bigpkg" / "manifest.json").read_bytes())
    assert manifest["tools"][0]["description"] == description
    described = subprocess.run(
        [sys.executable, "-m", "bigpkg", "describe", "big"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert description in described.stdout


def test_the_input_guard_tests_a_large_enum_by_name_not_by_value() -> None:
    schema = {
        "type": "object",
        "properties": {
            "color": {"type": "string", "enum": COLORS},
            "codes": {"type": "array", "items": {"type": "integer", "enum": CODES}},
        },
        "required": ["color"],
    }
    doubt = input_doubt(schema, "PickInput")
    assert doubt is not None
    assert doubt.expression == (
        'type(raw.get("color")) is not str'
        ' or raw.get("color") not in _PickInputEnum0'
        ' or "codes" in raw and (type(raw["codes"]) is not list'
        " or any(type(item) is not int or item not in _PickInputEnum1"
        ' for item in raw["codes"]))'
    )
