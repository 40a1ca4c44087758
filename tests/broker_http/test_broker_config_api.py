"""A pyMCPBroker user's whole path: their config (the real SDK toy server mounted
twice, under different nodes with different filters and aliases, started through
``${TOY_PYTHON}``), ``mcigen build``, and ``python -m PKG broker ADDR SECRET``
driven over HTTP."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from ..broker_config.test_broker_build import write_config
from ..conftest import built_package
from ..mcp_servers import TOY_SERVER, free_port
from .conftest import serving
from .test_startup import broker_command, listening

SECRET = "s3cret-for-the-broker"
TOY = f"${{TOY_PYTHON}} {TOY_SERVER} stdio"
CONFIG: dict[str, Any] = {
    "tree": [
        {"path": "/toy", "summary": "The toy server, twice"},
        {"path": "/later", "summary": "Nothing mounted yet"},
        {
            "path": "/toy/words",
            "summary": "Words",
            "source": {
                "command": TOY,
                "tool_filter": ["e*", "!env*"],
                "path_aliases": {"echo": "say"},
                "tool_overrides": {"echo": {"summary": "Say it back"}},
            },
        },
        {
            "path": "/toy/sums",
            "summary": "Sums",
            "source": {
                "command": TOY,
                "tool_filter": ["add"],
                "path_aliases": {"add": "plus"},
            },
        },
    ]
}


@pytest.fixture(scope="module")
def package(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    directory = tmp_path_factory.mktemp("broker-config-api")
    config = write_config(directory, CONFIG)
    os.environ["TOY_PYTHON"] = sys.executable
    try:
        with built_package(config, directory / "configpkg") as built:
            yield built
    finally:
        del os.environ["TOY_PYTHON"]


def test_the_configs_tree_is_served_over_http(
    package: ModuleType, tmp_path: Path
) -> None:
    with serving(package, tmp_path, SECRET, TOY_PYTHON=sys.executable) as server:
        assert server.post("meta_tree", {"path": "/"}).status_code == 401
        root = server.post("meta_tree", {"path": "/toy"}, secret=SECRET).json()
        assert root["children"] == [
            {"path": "/toy/sums", "type": "node", "summary": "Sums"},
            {"path": "/toy/words", "type": "node", "summary": "Words"},
        ]
        words = server.post("meta_tree", {"path": "/toy/words"}, secret=SECRET)
        assert [(c["path"], c["summary"]) for c in words.json()["children"]] == [
            ("/toy/words/say", "Say it back")
        ]
        said = server.post(
            "meta_call",
            {"path": "/toy/words/say", "args": {"text": "hi there"}},
            secret=SECRET,
        ).json()
        assert said["isError"] is False
        assert said["content"][0]["text"] == "hi there"
        summed = server.post(
            "meta_call",
            {"path": "/toy/sums/plus", "args": {"a": 2, "b": 3}},
            secret=SECRET,
        ).json()
        assert summed["content"][0]["text"] == "5"
        wrong = server.post(
            "meta_call", {"path": "/toy/sums/plus", "args": {"a": "two"}}, secret=SECRET
        )
        assert wrong.status_code == 422
        assert wrong.json()["field"] == "a"


def test_a_declared_node_without_tools_is_served_as_dump_tree_shows_it(
    package: ModuleType, tmp_path: Path
) -> None:
    dumped = broker_command(package, "--dump-tree", TOY_PYTHON=sys.executable)
    assert "/later  (node)  Nothing mounted yet" in dumped.stdout
    with serving(package, tmp_path, TOY_PYTHON=sys.executable) as server:
        root = server.post("meta_tree", {"path": "/"}).json()["children"]
        assert {"path": "/later", "type": "node", "summary": "Nothing mounted yet"} in (
            root
        )
        later = server.post("meta_tree", {"path": "/later"})
        assert later.status_code == 200
        assert later.json() == {"path": "/later", "children": []}
        described = server.post("meta_desc", {"path": "/later"}).json()
        assert described["type"] == "node" and described["children"] == []


def test_a_missing_variable_of_the_command_stops_start_up(package: ModuleType) -> None:
    port = free_port()
    done = broker_command(package, f"127.0.0.1:{port}", SECRET, TOY_PYTHON=None)
    assert done.returncode == 2
    assert "TOY_PYTHON is not set" in done.stderr
    assert not listening(port)


def test_max_output_chars_cuts_long_answers(
    package: ModuleType, tmp_path: Path
) -> None:
    with serving(
        package, tmp_path, "--max-output-chars", "200", TOY_PYTHON=sys.executable
    ) as server:
        long = server.post(
            "meta_call", {"path": "/toy/words/say", "args": {"text": "word " * 200}}
        ).json()
        short = server.post(
            "meta_call", {"path": "/toy/words/say", "args": {"text": "short"}}
        ).json()
    assert long["truncated"] is True and long["max_output_chars"] == 200
    assert len(json.dumps(long, ensure_ascii=False)) <= 200
    assert short["content"][0]["text"] == "short"
