"""A broker config's ``tool_overrides`` at call time, against real MCP servers
written with the SDK (tests/mcp_servers/bounds_server.py, media_server.py): a
per-tool ``timeout`` cuts off a hanging tool, a per-tool ``max_output_chars`` cuts
its answers (and no other tool's), ``render_mode: text`` joins text items; and the
config's tree is what ``serve --broker`` offers over MCP."""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..conftest import built_package
from ..mcp_servers import BOUNDS_SERVER, MEDIA_SERVER
from ..test_mcp_bounds import cancellations
from ..test_mcp_server import run, stdio_session, text_of
from .test_broker_build import write_config


def config(log_dir: Path) -> dict[str, Any]:
    bounds = f"{sys.executable} {BOUNDS_SERVER} stdio {log_dir}"
    media = f"{sys.executable} {MEDIA_SERVER}"
    return {
        "tree": {
            "path": "/",
            "summary": "Overrides at work",
            "children": [
                {
                    "path": "/limited",
                    "summary": "With overrides",
                    "source": {
                        "command": bounds,
                        "tool_filter": ["hang", "huge"],
                        "tool_overrides": {
                            "hang": {"timeout": 1},
                            "huge": {"max_output_chars": 300},
                        },
                    },
                },
                {
                    "path": "/plain",
                    "summary": "Without",
                    "source": {"command": bounds, "tool_filter": ["huge"]},
                },
                {
                    "path": "/media",
                    "source": {
                        "command": media,
                        "tool_filter": ["verses"],
                        "path_aliases": {"verses": "joined"},
                        "tool_overrides": {"verses": {"render_mode": "text"}},
                    },
                },
                {
                    "path": "/media/raw",
                    "source": {"command": media, "tool_filter": ["verses"]},
                },
            ],
        }
    }


@pytest.fixture(scope="module")
def log_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("bounds-log")


@pytest.fixture(scope="module")
def package(
    tmp_path_factory: pytest.TempPathFactory, log_dir: Path
) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("overrides")
    path = write_config(directory, config(log_dir))
    with built_package(path, directory / "pkg") as built:
        yield built


@pytest.fixture(scope="module")
def meta(package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{package.__name__}.meta")


def test_a_tools_own_timeout_cuts_off_a_hanging_call(
    meta: ModuleType, log_dir: Path
) -> None:
    answer = meta.meta_call("/limited/hang")
    assert answer["isError"] is True
    assert answer["content"][0]["text"] == (
        "MCP tool 'hang' did not answer within 1 s; the call was cancelled"
    )
    # The server saw the call cancelled: nothing is left running for it.
    assert cancellations(log_dir, at_least=1) == 1


def test_a_tools_own_max_output_chars_cuts_only_its_answers(meta: ModuleType) -> None:
    cut = meta.meta_call("/limited/huge", {"size": 5000})
    assert cut["truncated"] is True and cut["max_output_chars"] == 300
    assert len(json.dumps(cut, ensure_ascii=False)) <= 300
    whole = meta.meta_call("/plain/huge", {"size": 5000})
    assert "truncated" not in whole
    assert whole["content"][0]["text"] == "x" * 5000


def test_render_mode_text_joins_the_text_items(meta: ModuleType) -> None:
    joined = meta.meta_call("/media/joined", {"count": 3})["content"]
    assert [item["type"] for item in joined] == ["text", "image"]
    assert joined[0]["text"] == "verse 0\nverse 1\nverse 2"
    raw = meta.meta_call("/media/raw/verses", {"count": 3})["content"]
    assert [item.get("text") for item in raw] == ["verse 0", None, "verse 1", "verse 2"]


def test_serve_broker_offers_the_configs_tree(package: ModuleType) -> None:
    async def scenario() -> tuple[dict[str, Any], dict[str, Any]]:
        async with stdio_session(Path(package.__path__[0]).parent, "--broker") as s:
            tree = await s.call_tool("meta_tree", {"path": "/"})
            desc = await s.call_tool("meta_desc", {"path": "/media/joined"})
            return json.loads(text_of(tree)), json.loads(text_of(desc))

    tree, desc = run(scenario)
    assert tree == {
        "path": "/",
        "children": [
            {"path": "/limited", "type": "node", "summary": "With overrides"},
            {"path": "/media", "type": "node", "summary": ""},
            {"path": "/plain", "type": "node", "summary": "Without"},
        ],
    }
    assert desc["name"] == "media.joined"
    assert desc["args_schema"]["required"] == ["count"]
