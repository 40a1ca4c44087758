"""Warnings for placeholders whose path can never resolve, located inside the string."""

from __future__ import annotations

import json
from pathlib import Path

from mcigen.frontend.mci import load_schema


def _warnings(
    tmp_path: Path, text: str, input_schema: dict[str, object] | None
) -> list[str]:
    tool: dict[str, object] = {"name": "t", "execution": {"type": "text", "text": text}}
    if input_schema is not None:
        tool["inputSchema"] = input_schema
    path = tmp_path / "s.mci.json"
    path.write_text(json.dumps({"schemaVersion": "1.0", "tools": [tool]}, indent=1))
    schema, diagnostics = load_schema(path, display_name="s.json")
    assert schema is not None
    return [str(d) for d in diagnostics.items]


DECLARES_A: dict[str, object] = {
    "type": "object",
    "properties": {"a": {"type": "string"}},
}


def test_undeclared_property_is_a_warning_at_the_path(tmp_path: Path) -> None:
    assert _warnings(tmp_path, "x {{ props.b | 'd' }}", DECLARES_A) == [
        "s.json:8:19: warning: '{{props.b | 'd'}}': property 'b' is not declared in the "
        "inputSchema; undeclared properties are dropped, so 'props.b' never resolves"
    ]


def test_unknown_root_is_a_warning(tmp_path: Path) -> None:
    assert _warnings(tmp_path, "{{input.a}}{{ctx.a}}", DECLARES_A) == [
        "s.json:8:27: warning: '{{ctx.a}}': 'ctx' is not one of props, input, env, "
        "so 'ctx.a' never resolves"
    ]


def test_no_warning_when_the_tool_takes_any_properties_or_uses_env(
    tmp_path: Path,
) -> None:
    assert _warnings(tmp_path, "{{props.z}} {{input.y.w}} {{env.ANY}}", None) == []
    assert _warnings(tmp_path, "{{env.ANY | props.a}}", DECLARES_A) == []
