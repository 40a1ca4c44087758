"""A group of many tools is cut into modules of at most SHARD_SIZE tools, so that
calling one tool imports the models of its neighbours only."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from mcigen.planner import SHARD_SIZE

from .conftest import run_mcigen, schema_of, text_tool, write_schema


def test_a_large_group_is_cut_into_modules_in_order(tmp_path: Path) -> None:
    count = SHARD_SIZE + 6
    tools = [text_tool(f"tool_{i}", f"T{i} {{{{props.x}}}}") for i in range(count)]
    schema = write_schema(tmp_path, schema_of(*tools))
    assert run_mcigen("build", schema, "-o", tmp_path / "many").returncode == 0
    manifest = json.loads((tmp_path / "many" / "manifest.json").read_text())
    groups = [tool["group"] for tool in manifest["tools"]]
    assert groups == ["main_001"] * SHARD_SIZE + ["main_002"] * 6
    probe = (
        "import sys, many; print(many.tool_65(x=1).text); "
        "print(sorted(m for m in sys.modules if m.startswith('many.tools.')))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=tmp_path, capture_output=True, text=True
    )
    assert done.stdout.splitlines() == ["T65 1", "['many.tools.main_002']"]


def test_a_group_of_shard_size_stays_one_module(tmp_path: Path) -> None:
    tools = [text_tool(f"tool_{i}", "x") for i in range(SHARD_SIZE)]
    schema = write_schema(tmp_path, schema_of(*tools))
    assert run_mcigen("build", schema, "-o", tmp_path / "few").returncode == 0
    assert sorted(p.name for p in (tmp_path / "few" / "tools").glob("*.py")) == [
        "__init__.py",
        "main.py",
    ]
