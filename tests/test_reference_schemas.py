"""Schemas written by others (mci-py's examples and fixtures, copied into
tests/fixtures/reference): all that need no MCP server pass `mcigen check`, and those
made only of text tools build and give mci-py's results."""

from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from .conftest import ROOT, run_mcigen
from .oracle import run_oracle

REFERENCE = ROOT / "tests" / "fixtures" / "reference"
SCHEMAS = sorted(
    p for p in REFERENCE.rglob("*") if p.suffix in (".json", ".yaml", ".yml")
)


def _document(path: Path) -> dict[str, Any]:
    text = path.read_text(encoding="utf-8")
    loaded: dict[str, Any] = (
        json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
    )
    return loaded


def _needs_mcp(document: dict[str, Any]) -> bool:
    tools = document.get("tools") or []
    return "mcp_servers" in document or any(
        t["execution"]["type"] == "mcp" for t in tools
    )


def _text_only(document: dict[str, Any]) -> bool:
    tools = document.get("tools") or []
    text = bool(tools) and all(t["execution"]["type"] == "text" for t in tools)
    return text and not _needs_mcp(document)


_SAMPLES = {
    "integer": 3,
    "number": 1.5,
    "boolean": True,
    "array": ["a", "b"],
    "object": {"k": "v"},
}


def _sample(name: str, schema: dict[str, Any]) -> Any:
    return _SAMPLES.get(schema.get("type", "string"), f"<{name}>")


def test_the_reference_set_is_complete() -> None:
    assert len(SCHEMAS) == 23
    assert sum(_text_only(_document(p)) for p in SCHEMAS) == 11


@pytest.mark.parametrize(
    "schema",
    [p for p in SCHEMAS if not _needs_mcp(_document(p))],
    ids=lambda p: str(p.relative_to(REFERENCE)),
)
def test_reference_schema_passes_check(schema: Path) -> None:
    result = run_mcigen("check", schema)
    assert result.returncode == 0, result.stderr
    assert ": error: " not in result.stderr


@pytest.mark.parametrize(
    "schema",
    [p for p in SCHEMAS if _text_only(_document(p))],
    ids=lambda p: str(p.relative_to(REFERENCE)),
)
def test_text_only_reference_schema_builds_and_runs_like_mci_py(
    schema: Path, tmp_path: Path
) -> None:
    name = f"ref_{schema.stem.replace('.', '_')}_{schema.suffix[1:]}"
    built = run_mcigen("build", schema, "-o", tmp_path / name)
    assert built.returncode == 0, built.stderr
    env = {"CURRENT_DATE": "2026-11-21", "TIMESTAMP": "12:00", "APP_VERSION": "1.2"}
    calls = []
    for tool in _document(schema)["tools"]:
        properties = tool.get("inputSchema", {}).get("properties", {})
        every = {k: _sample(k, v) for k, v in properties.items()}
        required = tool.get("inputSchema", {}).get("required", [])
        calls.append({"tool": tool["name"], "props": every, "env": env})
        calls.append(
            {"tool": tool["name"], "props": {k: every[k] for k in required}, "env": {}}
        )
    theirs = run_oracle(schema, calls)
    sys.path.insert(0, str(tmp_path))
    try:
        invokers = importlib.import_module(f"{name}.tools.main").INVOKERS
        ours = [
            {
                "result": invokers[c["tool"]](c["props"], c["env"]).model_dump(
                    mode="json"
                )
            }
            for c in calls
        ]
    finally:
        sys.path.remove(str(tmp_path))
    assert ours == theirs


@pytest.mark.parametrize(
    "schema",
    [p for p in SCHEMAS if "mcp_servers" in _document(p)],
    ids=lambda p: str(p.relative_to(REFERENCE)),
)
def test_mcp_reference_schema_builds_offline_from_its_caches(
    schema: Path, tmp_path: Path
) -> None:
    """mci-py wrote these caches; an offline build uses them (they have expired, so
    with a warning each) and every cached tool the filters keep becomes a function."""
    built = run_mcigen("build", schema, "-o", tmp_path / "refmcp", "--offline")
    assert built.returncode == 0, built.stderr
    assert ": error: " not in built.stderr
    document = _document(schema)
    expected = [t["name"] for t in document.get("tools") or []]
    for server, config in document["mcp_servers"].items():
        cache = schema.parent / document.get("libraryDir", "./mci") / "mcp"
        cached = json.loads((cache / f"{server}.mci.json").read_text())["tools"]
        kept = (config.get("config") or {}).get("filterValue")
        names = [t["name"] for t in cached]
        expected += [n for n in names if kept is None or n in kept.split(",")]
        assert f"MCP server '{server}'" in built.stderr
    manifest = json.loads((tmp_path / "refmcp" / "manifest.json").read_text())
    assert [t["name"] for t in manifest["tools"]] == expected
