"""One module writes and reads ``manifest.json``: what the compiler wrote reads back
into the same values, which write the same bytes."""

from __future__ import annotations

import gc
import json
from dataclasses import replace
from pathlib import Path

import pytest
from mcigen_runtime.manifest import MANIFEST, ToolEntry, manifest_json, read_manifest
from mcigen_runtime.registry import Registry

from .conftest import ROOT

MANIFESTS = sorted((ROOT / "golden").rglob(MANIFEST))


@pytest.mark.parametrize(
    "path", MANIFESTS, ids=[p.parent.relative_to(ROOT).as_posix() for p in MANIFESTS]
)
def test_a_manifest_reads_back_into_what_writes_it_again(path: Path) -> None:
    written = path.read_bytes()
    manifest = read_manifest(written.decode("utf-8"))
    assert manifest.tools and manifest.package
    assert manifest_json(manifest) == written


def test_the_golden_manifests_cover_every_optional_field() -> None:
    manifests = [read_manifest(p.read_text(encoding="utf-8")) for p in MANIFESTS]
    tools = [tool for manifest in manifests for tool in manifest.tools]
    assert any(manifest.servers for manifest in manifests)
    assert any(tool.output_schema for tool in tools)
    assert any(tool.probes for tool in tools)
    assert any(tool.background != "never" for tool in tools)


def _entries_alive() -> int:
    gc.collect()
    return sum(isinstance(thing, ToolEntry) for thing in gc.get_objects())


def test_finding_one_tool_of_many_makes_its_entry_alone() -> None:
    """A registry read from a manifest makes a tool's entry when the tool is first
    asked for (a client calling one tool of a thousand makes one), and lists the
    same entries, in the same order, as the manifest reads whole."""
    one = read_manifest((ROOT / "golden" / "greetings" / MANIFEST).read_text())
    tools = [
        replace(one.tools[0], name=f"t{i}", python_name=f"t_{i}") for i in range(50)
    ]
    text = manifest_json(replace(one, tools=tuple(tools))).decode()
    alive = _entries_alive()
    manifest = read_manifest(text)
    registry = Registry("pkg", manifest.metadata, manifest.tools, manifest.tree)
    found = registry.find("t7"), registry.find("t_7"), registry.find("t8")
    assert _entries_alive() - alive == 2
    assert found[0] is found[1] and found[2].name == "t8"
    assert registry.tools == tuple(tools) and list(registry.tools) == tools
    assert registry.tools[-2:] == tuple(tools[-2:])
    assert json.loads(manifest_json(manifest)) == json.loads(text)
