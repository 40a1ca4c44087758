"""A broker config's MCP caches belong to their nodes and to the servers they were
fetched from: reordering nodes whose paths would once have shared a cache name
(``/a/b`` and ``/a.b``) keeps every node's tools its own server's, and a cache
fetched from another command is never used for this one."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from mcigen.frontend.formats import BROKER
from mcigen.pipeline import CompileOptions, plan_schema
from mcigen.planner import McpAccess, McpMode

from ..conftest import run_mcigen
from ..mcp_servers import LISTED_SERVER
from .test_broker_build import write_config

EMPTY = {"type": "object", "properties": {}}


def _server(directory: Path, name: str, description: str) -> str:
    """The command of a server listing one tool, ``act``, described so."""
    tools = directory / f"{name}.json"
    act = {"name": "act", "description": description, "inputSchema": EMPTY}
    tools.write_text(json.dumps([act]), encoding="utf-8")
    return f"{sys.executable} {LISTED_SERVER} {tools}"


def _described(config: Path, mode: McpMode = McpMode.CACHE) -> dict[str, str]:
    """Each leaf's description, by the tools file its server lists (the file
    that server really serves)."""
    package, diagnostics = plan_schema(
        config, CompileOptions(source_format=BROKER, mcp=McpAccess(mode))
    )
    assert package is not None, diagnostics.render()
    servers = {s.name: s for s in package.schema.mcp_servers}
    found = {}
    for planned in package.tools:
        execution = planned.tool.execution
        args = servers[execution.server_name].config["args"]
        found[Path(str(args[-1])).stem] = planned.tool.description or ""
    return found


def test_reordered_nodes_keep_their_own_servers_tools(tmp_path: Path) -> None:
    dry = _server(tmp_path, "dry", "Dry run: says what would be deleted.")
    wipe = _server(tmp_path, "wipe", "Deletes every file.")
    nodes: list[dict[str, Any]] = [
        {"path": "/a/b", "source": {"command": dry}},
        # the leaves' own names differ ('a.b.act' would be both)
        {"path": "/a.b", "source": {"command": wipe, "path_aliases": {"act": "go"}}},
    ]
    config = write_config(tmp_path, {"tree": nodes})
    expected = {
        "dry": "Dry run: says what would be deleted.",
        "wipe": "Deletes every file.",
    }
    assert _described(config) == expected
    write_config(tmp_path, {"tree": nodes[::-1]})
    assert _described(config) == expected
    assert _described(config, McpMode.OFFLINE) == expected


def test_a_cache_fetched_from_another_command_is_fetched_again(tmp_path: Path) -> None:
    dry = _server(tmp_path, "dry", "Dry run: says what would be deleted.")
    wipe = _server(tmp_path, "wipe", "Deletes every file.")
    config = write_config(
        tmp_path, {"tree": [{"path": "/x", "source": {"command": dry}}]}
    )
    assert _described(config) == {"dry": "Dry run: says what would be deleted."}
    write_config(tmp_path, {"tree": [{"path": "/x", "source": {"command": wipe}}]})
    offline = run_mcigen("check", config, "--offline")
    assert offline.returncode == 1
    assert (
        f"{config}:5:17: error: the cache {tmp_path}/mci/mcp/x.mci.json of MCP "
        "server 'x' was fetched from other settings" in offline.stderr
    )
    assert _described(config) == {"wipe": "Deletes every file."}


def test_a_cache_without_its_servers_fingerprint_is_not_trusted(tmp_path: Path) -> None:
    """Only mcigen writes a broker config's caches: one without ``mcigenServer``
    was not fetched from this server (or by a mcigen that bound none)."""
    dry = _server(tmp_path, "dry", "Dry run: says what would be deleted.")
    config = write_config(
        tmp_path, {"tree": [{"path": "/x", "source": {"command": dry}}]}
    )
    assert run_mcigen("check", config).returncode == 0
    cache = tmp_path / "mci" / "mcp" / "x.mci.json"
    document = json.loads(cache.read_text())
    del document["metadata"]["mcigenServer"]
    cache.write_text(json.dumps(document))
    offline = run_mcigen("check", config, "--offline")
    assert offline.returncode == 1
    assert (
        f"{config}:5:17: error: the cache {cache} of MCP server 'x' does not say "
        "which settings it was fetched from (no 'mcigenServer' in its metadata); "
        "build once without --offline to fetch its tools again"
    ) in offline.stderr.splitlines()


def test_leaves_sharing_a_tool_name_are_an_error_at_both(tmp_path: Path) -> None:
    """``/a/b.c`` and ``/a.b/c`` would both be the tool ``a.b.c``: which one got
    it would depend on the order of the config."""
    one = _server(tmp_path, "one", "One.")
    two = _server(tmp_path, "two", "Two.")
    nodes = [
        {"path": "/a", "source": {"command": one, "path_aliases": {"act": "b.c"}}},
        {"path": "/a.b", "source": {"command": two, "path_aliases": {"act": "c"}}},
    ]
    config = write_config(tmp_path, {"tree": nodes})
    result = run_mcigen("check", config)
    assert result.returncode == 1
    assert (
        f"{config}:14:17: error: tool 'act' of source '/a.b' would be the tool "
        f"'a.b.c', as tool 'act' of source '/a' (at {config}:5:17) is; give one of "
        "them another name in 'path_aliases'"
    ) in result.stderr.splitlines()
