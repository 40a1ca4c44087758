"""One module writes and reads ``manifest.json``: what the compiler wrote reads back
into the same values, which write the same bytes."""

from __future__ import annotations

import gc
import json
from pathlib import Path

import pytest
from mcigen_runtime.manifest import MANIFEST, ToolEntry, manifest_json, read_manifest
from mcigen_runtime.registry import Registry
from mcigen_runtime.tree import tree_from_json, tree_to_json

from .conftest import ROOT

MANIFESTS = sorted((ROOT / "golden").rglob(MANIFEST))


@pytest.mark.parametrize(
    "path", MANIFESTS, ids=[p.parent.relative_to(ROOT).as_posix() for p in MANIFESTS]
)
def test_a_manifest_reads_back_into_what_writes_it_again(path: Path) -> None:
    written = path.read_bytes()
    manifest = read_manifest(written)
    assert manifest.tools and manifest.package
    assert manifest_json(manifest) == written


def test_a_manifest_with_its_tree_before_its_tools_reads_the_same() -> None:
    """Keys in another order: read as a whole, into the same values."""
    written = (ROOT / "golden" / "weather_api" / MANIFEST).read_bytes()
    document = json.loads(written)
    tools = document.pop("tools")
    reordered = json.dumps({**document, "tools": tools}, indent=2).encode() + b"\n"
    assert read_manifest(reordered) == read_manifest(written)


WEATHER = json.loads((ROOT / "golden" / "weather_api" / MANIFEST).read_bytes())


@pytest.mark.parametrize(
    "key", [*[k for k in WEATHER if k not in ("tools", "tree")], "later"]
)
def test_a_key_after_the_tree_is_read_as_written(key: str) -> None:
    """A manifest edited by hand, or written by a later mcigen, with a key after
    the tree (one of ours, each with another value than the golden's, or one
    this version does not know: an object, laid out as the tree is): each key
    reads as the file says, and the tree as written. The reader took everything
    from the tree's key on for the tree: ours read as missing (the settings of
    ``runtime`` as their defaults), and reading the tree failed."""
    document = {k: v for k, v in WEATHER.items() if k != key}
    changed = {"package": "moved", "source": "moved.json", "later": {"a": {}}}
    document[key] = changed.get(key, {"limits": {"timeout_s": 7}, "cli_env": "clean"})
    if key == "runtime":
        document[key]["file_env"] = []
    written = json.dumps(document, indent=2, ensure_ascii=False).encode() + b"\n"
    whole = read_manifest(json.dumps(document).encode())  # one line: read whole
    manifest = read_manifest(written)
    assert manifest == whole
    assert manifest.tree.leaves == whole.tree.leaves
    if key != "later":
        assert manifest_json(manifest) != manifest_json(
            read_manifest((ROOT / "golden" / "weather_api" / MANIFEST).read_bytes())
        )


def test_the_golden_manifests_cover_every_optional_field() -> None:
    manifests = [read_manifest(p.read_bytes()) for p in MANIFESTS]
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
    one = read_manifest((ROOT / "golden" / "greetings" / MANIFEST).read_bytes())
    tools = [
        one.tools[0].replace(name=f"t{i}", python_name=f"t_{i}") for i in range(50)
    ]
    text = manifest_json(one.replace(tools=tuple(tools))).decode()
    alive = _entries_alive()
    manifest = read_manifest(text.encode())
    registry = Registry("pkg", manifest.metadata, manifest.tools, manifest.tree)
    found = registry.find("t7"), registry.find("t_7"), registry.find("t8")
    assert _entries_alive() - alive == 2
    assert found[0] is found[1] and found[2].name == "t8"
    assert registry.tools == tuple(tools) and list(registry.tools) == tools
    assert registry.tools[-2:] == tuple(tools[-2:])
    assert json.loads(manifest_json(manifest)) == json.loads(text)


def test_a_tool_is_found_in_the_text_as_the_names_would_find_it() -> None:
    """A registry read from a manifest's text looks a tool up by its name line;
    what it finds is what the names read whole find: an MCI name before another
    tool's Python name, the first of two equal Python names, names JSON escapes
    (a lone surrogate too, as the manifest writes it), and an unknown name refused."""
    one = read_manifest((ROOT / "golden" / "greetings" / MANIFEST).read_bytes())
    spelled = [
        ("plain", "plain"),
        ("shadow", "plain_too"),
        ("plain_too", "shadow"),
        ('quote"back\\slash', "quoted"),
        ("ünï/cödé", "unicode"),
        ("tab\there", "quoted"),
        ("caf\udce9", "surrogate"),  # os.fsdecode's undecodable byte
        ("t_9", "t_9"),
    ]
    tools = tuple(
        one.tools[0].replace(name=name, python_name=python_name)
        for name, python_name in spelled
    )
    text = manifest_json(one.replace(tools=tools)).decode()
    whole = Registry("pkg", one.metadata, tools, one.tree)
    names = [name for pair in spelled for name in pair] + ["ghost", "t_9 "]
    for name in names:
        in_text = Registry(
            "pkg", one.metadata, read_manifest(text.encode()).tools, one.tree
        )
        try:
            expected = whole.find(name)
        except LookupError:
            with pytest.raises(LookupError):
                in_text.find(name)
            continue
        found = in_text.find(name)
        assert found == expected, name
        assert in_text.tools[tools.index(expected)] is found


def test_the_tree_read_from_the_text_is_the_tree_written() -> None:
    """The tree is parsed when first asked for, and is then the one written:
    equal to it, hashed alike, and written back to the same JSON."""
    for path in MANIFESTS:
        text = path.read_text(encoding="utf-8")
        tree = read_manifest(text.encode()).tree
        whole = json.loads(text)["tree"]
        assert tree_to_json(tree) == whole
        again = read_manifest(text.encode()).tree
        assert again == tree_from_json(whole) and tree_from_json(whole) == again
        assert list(again.leaves) == list(tree_from_json(whole).leaves)
        if not any(leaf.example_args for leaf in tree_from_json(whole).leaves):
            assert hash(again) == hash(tree_from_json(whole))
