"""Hostile strings in every path, summary, description, command word, alias,
override and filter pattern of a pyMCPBroker config, and in the tools its servers
list (names, descriptions, input schemas), built offline against caches the test
writes as a fetch writes them: ``mcigen build`` refuses with located diagnostics
and writes nothing, or the package imports without running any of it, its
manifest keeps the tree's every path, summary and description exactly (each
leaf's its own server's, however the nodes' paths would once have shared a
cache), and the MCP server function gives back exactly the command's words."""

from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import json
import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from mcigen_runtime.tree import join, normalize, segment

from mcigen import ir
from mcigen.cli import main
from mcigen.frontend.broker import lower_broker
from mcigen.frontend.broker.sources import server_name
from mcigen.planner.filters import glob_allows
from mcigen.planner.mcp_servers import FINGERPRINT, settings_fingerprint

from .support import BUILDS, every_module_imported, importable_from
from .test_hostile_strings_property import hostile

TOOLS = {
    "echo": {"text": {"type": "string"}},
    "get_file": {"path": {"type": "string"}},
    "get_secret_key": {},
}
"""The tools every mounted server has (its committed cache)."""
VARIABLES = ("V0", "WORKSPACE_DIR", "_x1")
VARIABLE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
"""``${NAME}``, which a command's word takes from the environment."""

segments = hostile.filter(lambda text: text.strip("/"))
"""A path segment (or several, when it holds a '/'): never only slashes."""
command_word = st.one_of(
    hostile,
    st.builds(
        lambda before, name, after: f"{before}${{{name}}}{after}",
        hostile,
        st.sampled_from(VARIABLES),
        hostile,
    ),
    st.sampled_from(
        ["{{env.V0}}", "@if(env.V0)x@endif", "{{", "'", '"', "\\", "a\nb", "\ud800"]
    ),
)
"""A word of a source's command; a lone surrogate (a JSON escape) now and then."""
pattern = st.one_of(
    hostile.filter(bool),
    st.sampled_from(["e*", "get_*", "!get_secret_*", "*", "!*", "[", "!e?ho"]),
)
alias = hostile.filter(lambda text: text and "/" not in text)


@dataclass(frozen=True)
class Config:
    document: dict[str, Any]
    sources: list[dict[str, Any]]
    """Each source node as written, in config order."""
    listed: list[list[dict[str, Any]]]
    """The tools each source's server lists besides TOOLS, in config order."""
    ascii_only: bool


listed_tool = st.builds(
    lambda name, description, field, about, value: {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {
                field: {"type": "string", "description": about, "enum": [value]}
            },
        },
    },
    hostile.filter(lambda name: name not in TOOLS),
    hostile,
    hostile,
    hostile,
    hostile,
)
"""A tool a hostile server lists."""


@st.composite
def hostile_configs(draw: st.DrawFn) -> Config:
    groups, sources, listed = [], [], []
    first: list[str] = []
    for index in range(draw(st.integers(1, 2))):
        parts = draw(st.lists(segments, min_size=1, max_size=2))
        if first and bool(draw(st.booleans())):
            # '/x/y' then '/x.y': once one cache name, read for either node
            parts = [".".join(first)]
        first = first or parts
        path = "/" + "/".join(parts)
        source_node = {
            "path": f"{path}/m{draw(st.sampled_from(['', str(index)]))}",
            "summary": draw(hostile),
            "source": _source(draw),
        }
        group = {"path": path, "summary": draw(hostile), "children": [source_node]}
        if draw(st.booleans()):
            group["description"] = draw(hostile)
        groups.append(group)
        sources.append(source_node)
        listed.append(
            draw(st.lists(listed_tool, max_size=2, unique_by=lambda t: t["name"]))
        )
    tree: Any = groups
    if draw(st.booleans()):
        tree = {"path": "/", "summary": draw(hostile), "children": groups}
        if draw(st.booleans()):
            tree["description"] = draw(hostile)
    return Config({"tree": tree}, sources, listed, draw(st.booleans()))


def _source(draw: st.DrawFn) -> dict[str, Any]:
    words = draw(st.lists(command_word, min_size=1, max_size=4))
    # unbalanced quotes in a word left as it is make the command unsplittable
    quoting = st.sampled_from([True, True, True, False])
    quoted = draw(st.lists(quoting, min_size=len(words), max_size=len(words)))
    command = " ".join(
        shlex.quote(word) if quote else word
        for word, quote in zip(words, quoted, strict=True)
    )
    named = st.sampled_from([*TOOLS, "ech0"])
    source: dict[str, Any] = {"command": command}
    if draw(st.booleans()):
        source["tool_filter"] = draw(st.lists(pattern, max_size=3))
    if draw(st.booleans()):
        source["path_aliases"] = draw(st.dictionaries(named, alias, max_size=2))
    if draw(st.booleans()):
        texts = st.fixed_dictionaries(
            {}, optional={"summary": hostile, "description": hostile}
        )
        source["tool_overrides"] = draw(st.dictionaries(named, texts, max_size=2))
    return source


def _write_caches(path: Path, library: Path, config: Config) -> bool:
    """The cache of every server the config mounts, fetched from its settings:
    TOOLS (described as its node's) and the tools listed for it; False when a
    server's name cannot be a file name (the build must then refuse the name).
    None written when the config is refused anyway."""
    schema, _ = lower_broker(path)
    sources = [] if schema is None else schema.broker_sources
    listed = {
        normalize(node["path"]): more
        for node, more in zip(config.sources, config.listed, strict=True)
    }
    return all([_write_cache(library, s, listed[s.node]) for s in sources])


def _description(name: str, node: str) -> str:
    return f"The tool {name} of {node}."


def _write_cache(library: Path, source: ir.BrokerSource, listed: list[Any]) -> bool:
    server = source.server
    tools = [
        *(
            {
                "name": name,
                "description": _description(name, source.node),
                "inputSchema": {"type": "object", "properties": properties},
            }
            for name, properties in TOOLS.items()
        ),
        *listed,
    ]
    for tool in tools:
        execution = {"type": "mcp", "serverName": server.name, "toolName": tool["name"]}
        tool["execution"] = execution
    cache = {
        "schemaVersion": "1.0",
        "metadata": {FINGERPRINT: settings_fingerprint(server)},
        "tools": json.loads(json.dumps(tools)),
        "expiresAt": "2999-01-01",
    }
    try:
        (library / f"{server.name}.mci.json").write_text(json.dumps(cache), "utf-8")
    except (OSError, ValueError, UnicodeError):
        return False
    return True


_COUNTER = itertools.count()
_LOCATED_ERROR = re.compile(r"^(?P<file>.+?):(?P<line>\d+):(?P<column>\d+): error: ")


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    with importable_from(tmp_path_factory.mktemp("hostile-broker")) as directory:
        yield directory


@settings(BUILDS, max_examples=100)
@given(config=hostile_configs(), values=st.lists(hostile, min_size=3, max_size=3))
def test_hostile_broker_configs_are_data(
    workspace: Path, config: Config, values: list[str]
) -> None:
    package = f"hostile_broker_{next(_COUNTER)}"
    folder = workspace / f"{package}_config"
    library = folder / "mci" / "mcp"
    library.mkdir(parents=True)
    path = folder / "broker.json"
    text = json.dumps(config.document, indent=2, ensure_ascii=config.ascii_only)
    path.write_bytes(text.encode("utf-8", "surrogatepass"))
    every_cache_written = _write_caches(path, library, config)
    errors = io.StringIO()
    with contextlib.redirect_stderr(errors):
        code = main(["build", str(path), "-o", str(workspace / package), "--offline"])
    event("refused" if code else "built")
    if code != 0:
        _check_refused(code, errors.getvalue(), path, workspace / package)
        return
    assert every_cache_written
    with every_module_imported(package):
        manifest = json.loads((workspace / package / "manifest.json").read_text())
        _check_tree(manifest, config)
        _check_commands(package, config, dict(zip(VARIABLES, values, strict=True)))


def _check_refused(code: int, stderr: str, config: Path, out: Path) -> None:
    assert code == 1, stderr
    assert "Traceback" not in stderr and "internal error" not in stderr, stderr
    located = [_LOCATED_ERROR.match(line) for line in stderr.splitlines()]
    assert any(located), stderr
    for match in filter(None, located):
        # a tool a server lists is refused in its cache
        file = Path(match["file"])
        assert file == config or file.parent == config.parent / "mci" / "mcp", stderr
        assert int(match["line"]) >= 1 and int(match["column"]) >= 1
    assert not out.exists()


def _written_nodes(config: Config) -> dict[str, dict[str, Any]]:
    """Every node the config writes, by its normalized path."""
    tree = config.document["tree"]
    roots = tree if isinstance(tree, list) else [tree]
    written = {}
    pending = list(roots)
    while pending:
        node = pending.pop()
        written[normalize(node["path"])] = node
        pending.extend(node.get("children", []))
    return written


def _check_tree(manifest: dict[str, Any], config: Config) -> None:
    written = _written_nodes(config)
    nodes = {node["path"]: node for node in manifest["tree"]["nodes"]}
    assert written.keys() <= nodes.keys()
    for path, node in nodes.items():
        given_node = written.get(path, {"summary": ""})
        assert node["summary"] == given_node["summary"]
        assert node.get("description") == given_node.get("description")

    descriptions = {tool["name"]: tool["description"] for tool in manifest["tools"]}
    expected = []
    for source_node, listed in zip(config.sources, config.listed, strict=True):
        source = source_node["source"]
        node = normalize(source_node["path"])
        aliases = source.get("path_aliases", {})
        overrides = source.get("tool_overrides", {})
        served = {name: _description(name, node) for name in TOOLS}
        served.update((tool["name"], tool["description"]) for tool in listed)
        for name, served_description in served.items():
            if not glob_allows(name, source.get("tool_filter", [])):
                continue
            override = overrides.get(name, {})
            leaf_path = join(node, segment(aliases.get(name, name)))
            description = override.get("description", served_description)
            expected.append((leaf_path, override.get("summary"), description))
    leaves = manifest["tree"]["leaves"]
    assert [
        (leaf["path"], leaf.get("summary"), descriptions[leaf["tool"]])
        for leaf in leaves
    ] == expected


def _check_commands(package: str, config: Config, values: dict[str, str]) -> None:
    """Each server function, called with an env holding the command's variables,
    gives back the command's words with the variables' values in them."""
    commands = [source["source"]["command"] for source in config.sources]
    env = {name: name.lower() for c in commands for name in VARIABLE.findall(c)}
    env.update(values)
    registry = importlib.import_module("mcigen_runtime.registry").registry(package)
    servers = {}
    for group in {entry.group for entry in registry.tools}:
        module = importlib.import_module(f"{package}.tools.{group}")
        for name, function in vars(module).items():
            if name.startswith("_mcp_server_"):
                params = function(env)
                servers[params.name] = (params.command, *params.args)
    for source_node in config.sources:
        server = server_name(normalize(source_node["path"]))
        if server not in servers:
            continue  # its filter kept no tool
        words = shlex.split(source_node["source"]["command"])
        expected = tuple(
            VARIABLE.sub(lambda match: env[match[1]], word) for word in words
        )
        assert servers[server] == expected
