"""One module writes and reads ``manifest.json``: what the compiler wrote reads back
into the same values, which write the same bytes."""

from __future__ import annotations

from pathlib import Path

import pytest
from mcigen_runtime.manifest import MANIFEST, manifest_json, read_manifest

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
