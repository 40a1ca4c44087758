"""A generated package's MCP tools are bounded (issue 16): the server's
``config.timeout_ms``, a function's ``_timeout``, the ``mcp_result`` limit and the
retry rule reach every way in (functions, their async twins, ``meta_call``, the
package's own MCP server), and where mci-py differs (COMPATIBILITY.md rows 78-80).
The tools are those of tests/mcp_servers/bounds_server.py, a real server."""

from __future__ import annotations

import asyncio
import inspect
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from mcp.shared.exceptions import MCPError

from .conftest import built_package, write_schema
from .mcp_servers import BOUNDS_SERVER, LISTED_SERVER
from .oracle import answers_within, run_oracle
from .security.support import built_and_imported
from .test_mcp_bounds import MIB, cancellations, runs
from .test_mcp_server import run, stdio_session

HUNG = "MCP tool 'hang' did not answer within {} s; the call was cancelled"


def bounds_schema(log_dir: Path, **config: Any) -> dict[str, Any]:
    server = {
        "command": sys.executable,
        "args": [str(BOUNDS_SERVER), "stdio", str(log_dir)],
        "config": config,
    }
    return {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"bounds": server}}


@pytest.fixture(scope="module")
def bounds(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Path, ModuleType]]:
    """The package ``pkg`` of the bounds server's tools (a call may wait 1 s for
    its answer), and its directory, which is also the server's log directory."""
    directory = tmp_path_factory.mktemp("bounds")
    with built_and_imported(
        directory, bounds_schema(directory, timeout_ms=1000)
    ) as package:
        yield directory, package


def test_the_servers_timeout_and_the_callers(bounds: tuple[Path, ModuleType]) -> None:
    log_dir, package = bounds
    pid = package.pid().text
    assert package.hang().text == HUNG.format("1")
    assert package.hang(_timeout=0.3).text == HUNG.format("0.3")
    assert asyncio.run(package.hang_async(_timeout=0.3)).text == HUNG.format("0.3")
    assert cancellations(log_dir, 3) == 3
    assert package.pid().text == pid
    assert package.quick(text="next", _timeout=5).text == "next"
    for huge in (10**400, float("inf")):  # cut to a day, not raised
        assert package.quick(text="huge", _timeout=huge).text == "huge"
        assert (
            asyncio.run(package.quick_async(text="huge", _timeout=huge)).text == "huge"
        )
    timeout = inspect.signature(package.hang).parameters["_timeout"]
    assert (timeout.annotation, timeout.default) == ("float | None", None)
    assert timeout.kind is inspect.Parameter.KEYWORD_ONLY


def test_meta_call_times_out_too(bounds: tuple[Path, ModuleType]) -> None:
    meta = bounds[1].meta
    answer = meta.meta_call("/mcp/bounds/hang", {})
    assert answer["isError"] and HUNG.format("1") in answer["content"][0]["text"]
    assert "next" in json.dumps(meta.meta_call("/mcp/bounds/quick", {"text": "next"}))


def test_a_served_call_times_out_or_is_cancelled_upstream(
    bounds: tuple[Path, ModuleType],
) -> None:
    log_dir = bounds[0]
    before = cancellations(log_dir, 0)

    async def scenario() -> tuple[bool, str, str]:
        async with stdio_session(log_dir) as session:
            hung = await session.call_tool("hang", {})
            # The client gives up on this one: it tells the package's server, which
            # tells the bounds server.
            with pytest.raises(MCPError):
                await session.call_tool("hang", {}, read_timeout_seconds=0.3)
            quick = await session.call_tool("quick", {"text": "next"})
            return bool(hung.is_error), hung.content[0].text, quick.content[0].text

    is_error, text, after = run(scenario)
    assert (is_error, text, after) == (True, HUNG.format("1"), "next")
    assert cancellations(log_dir, before + 2) == before + 2


def test_the_answer_is_bounded_by_the_packages_limit(
    bounds: tuple[Path, ModuleType],
) -> None:
    package = bounds[1]
    huge = package.huge(size=6 * MIB)
    assert huge.isError and "the mcp_result limit (10485760 bytes)" in huge.text
    narrow = package.Client(limits={"mcp_result": 1000})
    assert "(1000 bytes)" in narrow.execute("huge", {"size": 1000}).result.text
    assert narrow.execute("huge", {"size": 10}).result.text == "x" * 10


def test_only_tools_that_may_run_twice_are_retried_after_a_crash(
    bounds: tuple[Path, ModuleType],
) -> None:
    """(``look``, read-only, in the test of row 80.)"""
    log_dir, package = bounds
    assert (package.put().text, runs(log_dir, "put")) == ("done", 2)  # idempotent
    effect = package.effect()
    assert effect.isError and "it was not retried" in effect.text
    assert runs(log_dir, "effect") == 1


def test_a_property_named_timeout_is_still_input(tmp_path: Path) -> None:
    tools = [
        {
            "name": "hostile",
            "inputSchema": {
                "type": "object",
                "properties": {"_timeout": {"type": "string"}},
                "required": ["_timeout"],
            },
        }
    ]
    listing = tmp_path / "listed.json"
    listing.write_text(json.dumps(tools), encoding="utf-8")
    server = {"command": sys.executable, "args": [str(LISTED_SERVER), str(listing)]}
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": {"listed": server}}
    schema = write_schema(tmp_path, document)
    with built_package(schema, tmp_path / "hostile_pkg") as package:
        result = package.hostile(_timeout_="input", _timeout=5)
    assert json.loads(result.text)["arguments"] == {"_timeout": "input"}


# --------------------------------------------------------------------------- mci-py


@pytest.fixture(scope="module")
def oracle_schema(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same server for mci-py, logging to a directory of its own."""
    directory = tmp_path_factory.mktemp("oracle")
    schema = directory / "tools.mci.json"
    document = bounds_schema(directory, timeout_ms=1000)
    schema.write_text(json.dumps(document), encoding="utf-8")
    return schema


def test_row78_mci_py_waits_for_a_hung_tool_for_ever(
    bounds: tuple[Path, ModuleType], oracle_schema: Path
) -> None:
    """mci-py 1.2 answers a quick call of the server, ignores ``config.timeout_ms``
    and gives no answer to the hung one (in 3 s here; it never does). The
    package's call is an error after 1 s."""
    quick, hung = answers_within(
        oracle_schema, [("quick", {"text": "x"}, 60.0), ("hang", {}, 3.0)]
    )
    assert quick is not None and quick["result"]["content"][0]["text"] == "x"
    assert hung is None
    assert bounds[1].hang().text == HUNG.format("1")


def test_row79_mci_py_reads_a_huge_answer_whole(
    bounds: tuple[Path, ModuleType], oracle_schema: Path
) -> None:
    """A 12 MiB answer (a 6 MiB text, as content and as structured content)."""
    (huge,) = run_oracle(
        oracle_schema, [{"tool": "huge", "props": {"size": 6 * MIB}, "env": {}}]
    )
    assert huge["result"]["isError"] is False
    assert len(huge["result"]["content"][0]["text"]) == 6 * MIB
    # The package's 1-s timeout, enough for its own server idle, is not under load.
    ours = bounds[1].huge(size=6 * MIB, _timeout=60)
    assert ours.isError and "the mcp_result limit (10485760 bytes)" in ours.text


def test_row80_mci_py_does_not_retry_a_read_only_tool_whose_server_died(
    bounds: tuple[Path, ModuleType], oracle_schema: Path
) -> None:
    """``look`` is read-only, and its first run crashes the server."""
    (crashed,) = run_oracle(oracle_schema, [{"tool": "look", "props": {}, "env": {}}])
    assert crashed["result"]["isError"] is True
    assert runs(oracle_schema.parent, "look") == 1
    log_dir, package = bounds
    assert (package.look().text, runs(log_dir, "look")) == ("done", 2)
