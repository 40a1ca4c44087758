"""Each deliberate difference from mci-py listed in COMPATIBILITY.md, shown with both sides."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

from .conftest import run_mcigen, schema_of, text_tool, write_schema
from .oracle import run_oracle

COUNTED = text_tool(
    "counted",
    "n={{props.count}}",
    inputSchema={
        "type": "object",
        "properties": {"count": {"type": "integer"}},
        "required": ["count"],
    },
)
CLOSED = text_tool(
    "closed",
    "a={{props.a}}",
    inputSchema={
        "type": "object",
        "properties": {"a": {"type": "string"}},
        "additionalProperties": False,
    },
)


def test_row1_wrong_type_raises_where_mci_py_runs(
    tmp_path: Path, build: Callable[..., ModuleType]
) -> None:
    schema = write_schema(tmp_path, schema_of(COUNTED))
    (theirs,) = run_oracle(
        schema, [{"tool": "counted", "props": {"count": "3"}, "env": {}}]
    )
    assert theirs["result"]["content"][0]["text"] == "n=3"
    pkg = build(schema_of(COUNTED), "compat_one")
    with pytest.raises(pkg.ToolInputError) as caught:
        pkg.counted(count="3")
    assert caught.value.field == "count"


def test_row3_forbidden_extra_property(
    tmp_path: Path, build: Callable[..., ModuleType]
) -> None:
    schema = write_schema(tmp_path, schema_of(CLOSED))
    (theirs,) = run_oracle(
        schema, [{"tool": "closed", "props": {"a": "x", "b": 1}, "env": {}}]
    )
    assert theirs["result"]["content"][0]["text"] == "a=x"
    build(schema_of(CLOSED), "compat_three")
    from compat_three.tools.main import INVOKERS  # type: ignore[import-not-found]

    with pytest.raises(ValueError, match="b: Extra inputs are not permitted"):
        INVOKERS["closed"]({"a": "x", "b": 1}, {})


def test_row4_unresolvable_placeholder_is_a_build_error(tmp_path: Path) -> None:
    document = schema_of(text_tool("broken", "x {{props..a}}"))
    schema = write_schema(tmp_path, document)
    (theirs,) = run_oracle(schema, [{"tool": "broken", "props": {}, "env": {}}])
    assert theirs["result"]["isError"] is True
    result = run_mcigen("build", schema, "-o", tmp_path / "out")
    assert result.returncode == 1
    assert "error: invalid path 'props..a' in placeholder" in result.stderr
    assert not (tmp_path / "out").exists()
