"""The schemas shipped with mci-py, the reference adapter, load without diagnostics.

They are copied under ``tests/fixtures/reference/`` with their original layout;
files in toolset libraries and MCP caches are toolset files.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from mcigen.frontend.mci import load_schema

REFERENCE = Path(__file__).resolve().parents[1] / "fixtures" / "reference"
TOOLSET_DIRECTORIES = ("toolsets_library/", "tests/fixtures/toolsets/", "mci/mcp/")
SCHEMAS = sorted(
    path.relative_to(REFERENCE).as_posix()
    for path in REFERENCE.rglob("*")
    if path.suffix in (".json", ".yaml", ".yml")
)


def is_toolset_file(relative: str) -> bool:
    return any(directory in relative for directory in TOOLSET_DIRECTORIES)


def test_the_fixtures_are_there() -> None:
    assert len(SCHEMAS) >= 20
    assert sum(map(is_toolset_file, SCHEMAS)) >= 10


@pytest.mark.parametrize("relative", SCHEMAS)
def test_reference_schema_loads_cleanly(relative: str) -> None:
    schema, diagnostics = load_schema(
        REFERENCE / relative,
        display_name=relative,
        toolset_file=is_toolset_file(relative),
    )
    assert [str(d) for d in diagnostics.items] == []
    assert schema is not None
    assert schema.tools or schema.toolsets or schema.mcp_servers


def test_json_and_yaml_examples_agree() -> None:
    pairs = [
        (Path(name).with_suffix(".yaml").as_posix(), name)
        for name in SCHEMAS
        if name.endswith(".json")
        and Path(name).with_suffix(".yaml").as_posix() in SCHEMAS
    ]
    assert pairs
    for yaml_name, json_name in pairs:
        from_yaml, _ = load_schema(REFERENCE / yaml_name)
        from_json, _ = load_schema(REFERENCE / json_name)
        assert from_yaml is not None and from_json is not None
        assert [t.name for t in from_yaml.tools] == [t.name for t in from_json.tools]
        assert [t.execution.__class__ for t in from_yaml.tools] == [
            t.execution.__class__ for t in from_json.tools
        ]
