"""The example schemas (every executor kind, toolsets, an MCP server's cache) with
hostile strings in random places, keys included (issue 13): a build never raises,
its errors are located, and a package that builds imports without running any of
what was put in."""

from __future__ import annotations

import copy
import itertools
import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from mcigen.diagnostics import Diagnostics
from mcigen.output import write_package
from mcigen.pipeline import CompileOptions, compile_schema
from mcigen.planner import McpAccess, McpMode

from ..conftest import ROOT
from .support import BUILDS, every_module_imported, importable_from
from .test_hostile_strings_property import hostile

EXAMPLES = sorted(
    p for p in (ROOT / "examples").iterdir() if p.name.endswith((".json", ".yaml"))
)
Path_ = tuple[Any, ...]


def _string_places(node: Any, path: Path_ = ()) -> Iterator[tuple[Path_, bool]]:
    """Every string leaf (False) and every object key (True), by its path."""
    if isinstance(node, dict):
        for key, value in node.items():
            yield (*path, key), True
            yield from _string_places(value, (*path, key))
    elif isinstance(node, list):
        for index, item in enumerate(node):
            yield from _string_places(item, (*path, index))
    elif isinstance(node, str):
        yield path, False


def _replace(document: Any, path: Path_, is_key: bool, text: str) -> None:
    *parents, last = path
    node = document
    for step in parents:
        node = node[step]
    if is_key:
        if last in node and text not in node:
            node[text] = node.pop(last)
    else:
        node[last] = text


_COUNTER = itertools.count()


def _compiled(
    workspace: Path, document: Any
) -> tuple[str, dict[str, bytes] | None, Diagnostics]:
    """``document`` compiled as a package of its own beside the examples: its name,
    its files (None when it has errors) and its diagnostics."""
    package = f"mutated_{next(_COUNTER)}"
    schema = workspace / "examples" / f"{package}.mci.json"
    schema.write_text(json.dumps(document), encoding="utf-8")
    files, diagnostics = compile_schema(
        schema,
        workspace / package,
        package,
        CompileOptions(mcp=McpAccess(McpMode.OFFLINE)),
    )
    return package, files, diagnostics


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    directory = tmp_path_factory.mktemp("mutated")
    shutil.copytree(ROOT / "examples", directory / "examples")
    with importable_from(directory):
        yield directory


@settings(BUILDS, max_examples=300)
@given(data=st.data())
def test_mutated_examples_build_or_fail_located(
    workspace: Path, data: st.DataObject
) -> None:
    example = data.draw(st.sampled_from(EXAMPLES))
    text = example.read_text("utf-8")
    original = yaml.safe_load(text) if example.suffix == ".yaml" else json.loads(text)
    places = list(_string_places(original))
    document = copy.deepcopy(original)
    for _ in range(data.draw(st.integers(1, 6))):
        path, is_key = data.draw(st.sampled_from(places))
        try:
            _replace(document, path, is_key, data.draw(hostile))
        except (KeyError, IndexError, TypeError):
            continue  # an earlier replacement moved this place
    package, files, diagnostics = _compiled(workspace, document)
    if files is None:
        assert diagnostics.has_errors
        assert all(d.location.line >= 1 for d in diagnostics.items)
        return
    write_package(files, workspace / package, package)
    with every_module_imported(package):
        pass


def test_an_unknown_auth_key_is_never_a_keyword_of_generated_code(
    workspace: Path,
) -> None:
    """Found by the property above in a CI run: weather_api's ``scopes`` key renamed
    to a hostile string became a keyword argument of the generated call, and the
    module did not parse. The key is warned about and ignored, as mci-py does."""
    example = ROOT / "examples" / "weather_api.mci.yaml"
    document = yaml.safe_load(example.read_text("utf-8"))
    auth = document["tools"][1]["execution"]["auth"]
    hostile_key = '"""\n__import__("builtins").MCIGEN_PWNED = 1\n"""'
    auth[hostile_key] = auth.pop("scopes")
    package, files, diagnostics = _compiled(workspace, document)
    assert files is not None
    shown = hostile_key.replace("\n", "\\n")  # escaped: the message is one line
    assert [d.message for d in diagnostics.items] == [
        f"unknown field '{shown}' in oauth2 auth"
    ]
    write_package(files, workspace / package, package)
    with every_module_imported(package):
        pass
