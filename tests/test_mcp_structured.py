"""Structured results of MCP tools (issue 16, point 5): a tool's ``outputSchema`` is
kept from its server's listing through the cache and the manifest to the package's
own ``tools/list``; a call's ``structuredContent`` stays at the top level of the
result when the package serves it again; the generated functions return it typed
by a model generated from the ``outputSchema``, and mypy sees that type.

Real servers: the toy server (the SDK's ``MCPServer``, whose tools declare output
schemas) and the listed server (a tool whose structured content is whatever the
call asks for, to send content that does not match)."""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from .conftest import (
    MypyStrict,
    built_package,
    run_mcigen,
    schema_of,
    text_tool,
    write_schema,
)
from .mcp_servers import LISTED_SERVER, TOY_SERVER, free_port
from .oracle import run_oracle
from .test_mcp_server import http_server, http_session, run, stdio_session

FORECAST = {
    "city": "Oslo",
    "temperature": 21.5,
    "conditions": "sunny",
    "hours": [{"hour": 9, "temperature": 18.0}, {"hour": 15, "temperature": 23.5}],
}
WEATHER = {
    "name": "weather",
    "description": "Answers the structured content it is given.",
    "inputSchema": {
        "type": "object",
        "properties": {"structuredContent": {"type": "object"}},
    },
    "outputSchema": {
        "type": "object",
        "properties": {
            "temperature": {"type": "number"},
            "conditions": {"type": "string"},
        },
        "required": ["temperature", "conditions"],
    },
}
MISMATCH = (
    "the structured content does not match the tool's outputSchema: "
    "temperature: Input should be a valid number (and 1 more)"
)


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ModuleType]:
    """The package ``pkg`` of the toy server's forecast, echo, fail and pixel and of
    the listed server's weather; its directory is ``pkg.DIRECTORY``."""
    directory = tmp_path_factory.mktemp("structured")
    listed = directory / "listed.json"
    listed.write_text(json.dumps([WEATHER]), encoding="utf-8")
    only = {"filter": "only", "filterValue": "forecast, echo, fail, pixel"}
    servers = {
        "toy": {
            "command": sys.executable,
            "args": [str(TOY_SERVER), "stdio"],
            "config": only,
        },
        "listed": {
            "command": sys.executable,
            "args": [str(LISTED_SERVER), str(listed)],
        },
    }
    document = {"schemaVersion": "1.0", "tools": [], "mcp_servers": servers}
    schema = write_schema(directory, document, "main.mci.json")
    with built_package(schema, directory / "pkg") as package:
        package.__dict__["DIRECTORY"] = directory
        yield package


def _models(package: ModuleType) -> ModuleType:
    return importlib.import_module(f"{package.__name__}.models")


def _cached(served: ModuleType, server: str) -> dict[str, dict[str, Any]]:
    cache = served.DIRECTORY / "mci" / "mcp" / f"{server}.mci.json"
    return {tool["name"]: tool for tool in json.loads(cache.read_text())["tools"]}


def test_the_output_schema_is_cached_after_the_input_schema_and_in_the_manifest(
    served: ModuleType,
) -> None:
    cached = _cached(served, "toy")
    assert list(cached["forecast"]) == [
        "name",
        "disabled",
        "annotations",
        "description",
        "inputSchema",
        "outputSchema",
        "execution",
        "enableAnyPaths",
        "directoryAllowList",
        "tags",
    ]
    output_schema = cached["forecast"]["outputSchema"]
    assert output_schema["required"] == ["city", "temperature", "conditions", "hours"]
    assert "outputSchema" not in cached["pixel"]  # an image: the server declares none
    manifest = json.loads((served.DIRECTORY / "pkg" / "manifest.json").read_text())
    tools = {tool["name"]: tool for tool in manifest["tools"]}
    assert tools["forecast"]["outputSchema"] == output_schema
    assert "outputSchema" not in tools["pixel"]
    described = subprocess.run(
        [sys.executable, "-m", "pkg", "describe", "forecast"],
        cwd=served.DIRECTORY,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert described.startswith(
        "forecast(*, city: str, _timeout: float | None = None)"
        " -> StructuredResult[ForecastOutput]\n"
    )
    shown = described[described.index("Output schema:\n") + len("Output schema:\n") :]
    assert json.loads(shown) == output_schema


def test_a_call_returns_its_structured_content_typed(served: ModuleType) -> None:
    result = served.forecast(city="Oslo")
    assert isinstance(result.structured, _models(served).ForecastOutput)
    assert result.structured.hours[1].temperature == 23.5
    assert result.metadata["structuredContent"] == FORECAST
    assert json.loads(result.text) == FORECAST
    # Dumps keep mci-py's shape; Client answers mci-py's result.
    assert list(result.model_dump()) == ["content", "isError", "metadata"]
    executed = served.Client().execute("forecast", {"city": "Oslo"}).result
    assert executed.model_dump() == result.model_dump()
    awaited = asyncio.run(served.forecast_async(city="Oslo"))
    assert awaited.structured == result.structured
    assert served.echo(text="hé").structured == _models(served).EchoOutput(result="hé")
    assert type(served.pixel()) is served.ToolResult  # no outputSchema, no model
    failed = served.fail(message="no")  # a tool error carries no structured content
    assert (failed.isError, failed.structured) == (True, None)
    assert failed.metadata == {"mcp_server": "toy", "mcp_tool": "fail"}


def test_row_76_structured_content_that_does_not_match_is_kept_untyped(
    served: ModuleType,
) -> None:
    """mci-py's SDK refuses the whole result (it raises, and mci-py reports the
    task group it was raised in); the package keeps it as the server sent it,
    with ``structured`` None and the reason in the metadata."""
    sent = {"temperature": "hot"}
    result = served.weather(structuredContent=sent)
    assert (result.isError, result.structured) == (False, None)
    assert result.metadata == {
        "mcp_server": "listed",
        "mcp_tool": "weather",
        "structuredContent": sent,
        "structuredContentError": MISMATCH,
    }
    assert json.loads(result.text)["arguments"] == {"structuredContent": sent}
    matching = served.weather(structuredContent={"temperature": 4, "conditions": "fog"})
    assert matching.structured == _models(served).WeatherOutput(
        temperature=4.0, conditions="fog"
    )
    (answer,) = run_oracle(
        served.DIRECTORY / "main.mci.json",
        [{"tool": "weather", "props": {"structuredContent": sent}, "env": {}}],
    )
    assert answer["result"]["isError"] is True
    assert answer["result"]["content"][0]["text"] == (
        "Failed to execute MCP tool 'weather': unhandled errors in a TaskGroup "
        "(1 sub-exception)"
    )


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_served_again_the_output_schema_is_listed_and_the_content_on_top(
    served: ModuleType, transport: str
) -> None:
    """The SDK client checks the structured content against the listed schema."""
    directory = served.DIRECTORY
    expected_schema = _cached(served, "toy")["forecast"]["outputSchema"]

    async def scenario(session: Any) -> None:
        listed = {tool.name: tool for tool in (await session.list_tools()).tools}
        assert listed["forecast"].output_schema == expected_schema
        assert listed["pixel"].output_schema is None
        called = await session.call_tool("forecast", {"city": "Oslo"})
        assert called.is_error is False
        assert called.structured_content == FORECAST
        assert called.meta == {
            "dev.mcigen/metadata": {"mcp_server": "toy", "mcp_tool": "forecast"}
        }

    if transport == "stdio":

        async def over_stdio() -> None:
            async with stdio_session(directory) as session:
                await scenario(session)

        run(over_stdio)
        return
    port = free_port()
    argv = [sys.executable, "-m", "pkg", "serve", "--http", f"127.0.0.1:{port}"]
    with http_server(directory, argv, port) as url:

        async def over_http() -> None:
            async with http_session(url, None) as session:
                await scenario(session)

        run(over_http)


USES_THE_TYPE = """\
from pkg import forecast


def warmest(city: str) -> float:
    result = forecast(city=city)
    if result.structured is None:
        raise ValueError(result.text)
    return max(hour.temperature for hour in result.structured.hours)
"""
MISSPELLS_A_FIELD = """\
from pkg import forecast_async


async def humidity(city: str) -> float:
    result = await forecast_async(city=city)
    assert result.structured is not None
    return result.structured.humidity
"""


def test_mypy_strict_sees_the_structured_type(
    served: ModuleType, mypy_strict: MypyStrict
) -> None:
    """One run over the package and two user files: only the misspelt field fails."""
    directory = served.DIRECTORY
    (directory / "uses.py").write_text(USES_THE_TYPE, encoding="utf-8")
    (directory / "misspells.py").write_text(MISSPELLS_A_FIELD, encoding="utf-8")
    checked = mypy_strict("uses.py", "misspells.py", "pkg", cwd=directory)
    assert checked.returncode == 1
    errors = [line for line in checked.stdout.splitlines() if ": error: " in line]
    assert errors and all(line.startswith("misspells.py:7: ") for line in errors)
    assert 'error: "ForecastOutput" has no attribute "humidity"' in checked.stdout


def test_row_77_output_schemas_are_checked_and_kept_for_mcp_tools_only(
    tmp_path: Path,
) -> None:
    """mci-py ignores the field everywhere; mcigen checks an MCP tool's like an
    inputSchema, and warns that another tool's is ignored."""
    text = text_tool("hello", "hi", outputSchema={"type": "object"})
    mcp_tool = {
        "name": "ask",
        "outputSchema": {"type": "object", "properties": {"n": {"type": "strin"}}},
        "execution": {"type": "mcp", "serverName": "toy", "toolName": "ask"},
    }
    document = {
        "schemaVersion": "1.0",
        "tools": [text, mcp_tool],
        "mcp_servers": {"toy": {"command": "true"}},
    }
    schema = write_schema(tmp_path, document)
    checked = run_mcigen("check", schema, "--no-connect")  # "true" is not started
    assert checked.returncode == 1
    assert checked.stderr.splitlines()[:2] == [
        f"{schema}:10:7: warning: 'outputSchema' is used only by MCP tools (their "
        "server returns the structured content it describes); ignored",
        f"{schema}:20:21: error: invalid JSON Schema: 'strin' is not one of "
        "['array', 'boolean', 'integer', 'null', 'number', 'object', 'string']",
    ]
    text_only = write_schema(tmp_path, schema_of(text), "text.mci.json")
    (answer,) = run_oracle(text_only, [{"tool": "hello", "props": {}, "env": {}}])
    assert answer["result"]["content"] == [{"type": "text", "text": "hi"}]
    with built_package(text_only, tmp_path / "textpkg") as package:
        assert type(package.hello()) is package.ToolResult
        manifest = json.loads((tmp_path / "textpkg" / "manifest.json").read_text())
        assert "outputSchema" not in manifest["tools"][0]


@pytest.mark.parametrize("others", [0, 120])
def test_an_output_schema_no_model_can_be_made_of_is_a_build_error_at_its_tool(
    tmp_path: Path, others: int
) -> None:
    """With 100 tools or more the models are made in a worker process: its failure
    still points at the tool."""
    remote = {"$ref": "https://example.com/forecast.json"}
    tool = {
        "name": "forecast",
        "outputSchema": {"type": "object", "properties": {"today": remote}},
        "execution": {"type": "mcp", "serverName": "toy", "toolName": "forecast"},
    }
    cache = tmp_path / "mci" / "mcp" / "toy.mci.json"
    cache.parent.mkdir(parents=True)
    document = {"schemaVersion": "1.0", "tools": [tool], "expiresAt": "2999-01-01"}
    cache.write_text(json.dumps(document, indent=2))
    servers = {"toy": {"command": "true"}}
    texts = [text_tool(f"t{i}", "x") for i in range(others)]
    schema = write_schema(tmp_path, {**schema_of(*texts), "mcp_servers": servers})
    built = run_mcigen("build", schema, "-o", tmp_path / "pkg")
    assert built.returncode == 1
    assert not (tmp_path / "pkg").exists()
    assert built.stderr.splitlines()[0] == (
        f"{cache}:4:5: error: tool 'forecast': no output model can be generated from "
        "its outputSchema: unsupported $ref 'https://example.com/forecast.json': only "
        "local definitions are resolved"
    )
