"""Lowering validated documents to ``ir.Schema``."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.templating.parser import parse_template

from mcigen import ir
from mcigen.diagnostics import Location

from .support import FORMATS, Token, load_text, position, render

FULL_SCHEMA: dict[str, Any] = {
    "schemaVersion": "1.0",
    "metadata": {
        "name": "Full",
        "version": "2.0.0",
        "homepage": "https://x",
        "license": None,
    },
    "libraryDir": "./library",
    "enableAnyPaths": False,
    "directoryAllowList": ["./data", "/srv/shared"],
    "tools": [
        {
            "name": "get_weather",
            "title": "Weather",
            "description": "Fetch the weather",
            "annotations": {
                "title": "Get weather",
                "readOnlyHint": True,
                "openWorldHint": None,
            },
            "tags": ["api", "read"],
            "inputSchema": {
                "type": "object",
                "properties": {"city": {"type": "string"}},
                "required": ["city"],
            },
            "execution": {
                "type": "http",
                "method": "post",
                "url": "https://api.example.com/{{props.city}}",
                "headers": {"Accept": "application/json"},
                "params": {"units": "metric", "days": 3},
                "auth": {"type": "bearer", "token": "{{env.TOKEN}}"},
                "body": {
                    "type": "json",
                    "content": {"q": "{{props.city}}", "n": [1, 2]},
                },
                "retries": {"attempts": 3},
            },
        },
        {
            "name": "list_files",
            "disabled": True,
            "enableAnyPaths": True,
            "directoryAllowList": [],
            "execution": {
                "type": "cli",
                "command": "ls",
                "args": ["-l", "{{props.dir}}"],
                "flags": {
                    "-a": {"from": "props.all", "type": "boolean"},
                    "--sort": {"from": "props.sort", "type": "value"},
                },
                "cwd": "{{props.base}}",
                "timeout_ms": 5000,
            },
        },
        {
            "name": "read_report",
            "execution": {"type": "file", "path": "./reports/{{props.id}}.txt"},
        },
        {
            "name": "raw_file",
            "execution": {
                "type": "file",
                "path": "/etc/motd",
                "enableTemplating": False,
            },
        },
        {
            "name": "greet",
            "execution": {"type": "text", "text": "Hello {{props.name}}!"},
        },
        {
            "name": "echo",
            "execution": {
                "type": "mcp",
                "serverName": "everything",
                "toolName": "echo",
            },
        },
    ],
    "toolsets": [
        "github",
        {"name": "weather", "filter": "tags", "filterValue": "read"},
    ],
    "mcp_servers": {
        "everything": {
            "command": "npx",
            "args": ["-y", "server"],
            "config": {"expDays": 7},
        },
        "remote": {"type": "http", "url": "https://mcp.example.com"},
    },
}


def _load(tmp_path: Path, document: Any, fmt: str, **options: Any) -> ir.Schema:
    schema, diagnostics, _ = load_text(
        tmp_path, render(document, fmt), f".{fmt}", **options
    )
    assert schema is not None, [str(d) for d in diagnostics.items]
    return schema


def _without_locations(value: Any) -> Any:
    """``value`` with every Location blanked, to compare lowering across formats."""
    if isinstance(value, Location):
        return Location("", 0, 0)
    if isinstance(value, tuple):
        return tuple(_without_locations(item) for item in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        changes = {
            f.name: _without_locations(getattr(value, f.name))
            for f in dataclasses.fields(value)
        }
        return dataclasses.replace(value, **changes)
    return value


def test_json_and_yaml_lower_to_the_same_schema(tmp_path: Path) -> None:
    from_json = _load(tmp_path, FULL_SCHEMA, "json")
    from_yaml = _load(tmp_path, FULL_SCHEMA, "yaml")
    assert (from_json.source, from_yaml.source) == ("s.json", "s.yaml")
    assert _without_locations(dataclasses.replace(from_json, source="")) == (
        _without_locations(dataclasses.replace(from_yaml, source=""))
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_schema_level_fields(tmp_path: Path, fmt: str) -> None:
    schema = _load(tmp_path, FULL_SCHEMA, fmt)
    text = render(FULL_SCHEMA, fmt)
    assert schema.schema_version == "1.0"
    assert schema.metadata == {
        "name": "Full",
        "version": "2.0.0",
        "homepage": "https://x",
    }
    assert schema.library_dir == "./library"
    assert schema.enable_any_paths is False
    assert schema.directory_allow_list == ("./data", "/srv/shared")
    github, weather = schema.toolsets
    assert (github.name, github.filter, github.filter_value) == ("github", None, None)
    assert (weather.name, weather.filter, weather.filter_value) == (
        "weather",
        "tags",
        "read",
    )
    assert (
        str(github.location)
        == f"s.{fmt}:{position(text, Token('github').find(text, fmt))}"
    )
    assert github.location.pointer == "/toolsets/0"
    everything, remote = schema.mcp_servers
    assert everything.name == "everything"
    assert everything.config == FULL_SCHEMA["mcp_servers"]["everything"]
    assert remote.config == {"type": "http", "url": "https://mcp.example.com"}
    assert remote.location.pointer == "/mcp_servers/remote"


@pytest.mark.parametrize("fmt", FORMATS)
def test_http_tool(tmp_path: Path, fmt: str) -> None:
    tool = _load(tmp_path, FULL_SCHEMA, fmt).tools[0]
    text = render(FULL_SCHEMA, fmt)
    assert tool.name == "get_weather"
    assert tool.description == "Fetch the weather"
    assert tool.annotations == {"title": "Get weather", "readOnlyHint": True}
    assert tool.tags == ("api", "read")
    assert tool.input_schema == FULL_SCHEMA["tools"][0]["inputSchema"]
    assert tool.disabled is False
    assert tool.path_policy == ir.PathPolicy(None, None)
    assert tool.location.pointer == "/tools/0"
    execution = tool.execution
    assert isinstance(execution, ir.HttpExecution)
    assert execution.method == "POST"
    url = "https://api.example.com/{{props.city}}"
    assert execution.url.raw == url
    assert execution.url.template == parse_template(url)
    url_at = position(text, Token("https://api.example.com/").find(text, fmt))
    assert str(execution.url.location) == f"s.{fmt}:{url_at}"
    assert execution.url.location.pointer == "/tools/0/execution/url"
    assert execution.headers == {"Accept": "application/json"}
    assert execution.params == {"units": "metric", "days": 3}
    assert execution.auth == ir.HttpAuth("bearer", {"token": "{{env.TOKEN}}"})
    assert execution.body_type == "json"
    assert execution.body_content == {"q": "{{props.city}}", "n": [1, 2]}
    assert execution.timeout_ms == 30000
    assert (execution.retry_attempts, execution.retry_backoff_ms) == (3, 500)


@pytest.mark.parametrize("fmt", FORMATS)
def test_cli_file_text_and_mcp_tools(tmp_path: Path, fmt: str) -> None:
    _, cli, report, raw, greet, echo = _load(tmp_path, FULL_SCHEMA, fmt).tools
    assert cli.disabled is True
    assert cli.path_policy == ir.PathPolicy(
        enable_any_paths=True, directory_allow_list=()
    )
    assert cli.annotations == {} and cli.tags == () and cli.input_schema is None
    assert cli.execution == ir.CliExecution(
        command="ls",
        args=("-l", "{{props.dir}}"),
        flags=(
            ir.CliFlag(name="-a", source="props.all", kind="boolean"),
            ir.CliFlag(name="--sort", source="props.sort", kind="value"),
        ),
        cwd="{{props.base}}",
        timeout_ms=5000,
    )
    assert isinstance(report.execution, ir.FileExecution)
    assert report.execution.path.raw == "./reports/{{props.id}}.txt"
    assert report.execution.enable_templating is True
    assert isinstance(raw.execution, ir.FileExecution)
    assert raw.execution.enable_templating is False
    assert isinstance(greet.execution, ir.TextExecution)
    assert greet.execution.text.template == parse_template(
        "Hello {{props.name}}!", directives=True
    )
    assert echo.execution == ir.McpExecution(server_name="everything", tool_name="echo")
    assert [ir.execution_kind(t.execution) for t in (cli, report, greet, echo)] == [
        "cli",
        "file",
        "text",
        "mcp",
    ]


def test_defaults(tmp_path: Path) -> None:
    document = {
        "schemaVersion": "1.0",
        "tools": [
            {"name": "h", "execution": {"type": "http", "url": "https://x"}},
            {"name": "c", "execution": {"type": "cli", "command": "true"}},
            {
                "name": "nulls",
                "description": None,
                "execution": {
                    "type": "http",
                    "url": "https://x",
                    "headers": None,
                    "auth": None,
                    "retries": {"backoff_ms": 100},
                },
            },
        ],
    }
    schema = _load(tmp_path, document, "json")
    http, cli, nulls = schema.tools
    assert http.execution == ir.HttpExecution(
        method="GET",
        url=http.execution.url,
        headers={},
        params={},
        auth=None,
        body_type=None,
        body_content=None,
        timeout_ms=30000,
        retry_attempts=None,
        retry_backoff_ms=None,
    )
    assert cli.execution == ir.CliExecution("true", (), (), None, 30000)
    assert nulls.description is None
    assert isinstance(nulls.execution, ir.HttpExecution)
    assert nulls.execution.headers == {} and nulls.execution.auth is None
    assert (nulls.execution.retry_attempts, nulls.execution.retry_backoff_ms) == (
        1,
        100,
    )
    assert schema.metadata == {} and schema.toolsets == () and schema.mcp_servers == ()
    assert schema.library_dir == "./mci"
    assert schema.enable_any_paths is False and schema.directory_allow_list == ()


def test_warnings_do_not_stop_lowering(tmp_path: Path) -> None:
    document = {
        "schemaVersion": "1.0",
        "tools": [
            {
                "name": "t",
                "descriptoin": "typo",
                "execution": {"type": "http", "method": "delete", "url": "https://x"},
            }
        ],
    }
    schema, diagnostics, _ = load_text(tmp_path, render(document, "json"), ".json")
    assert schema is not None
    assert [d.level.value for d in diagnostics.items] == ["warning", "warning"]
    assert isinstance(schema.tools[0].execution, ir.HttpExecution)
    assert schema.tools[0].execution.method == "DELETE"


def test_errors_stop_lowering(tmp_path: Path) -> None:
    document = {"schemaVersion": "1.0", "tools": [{"name": "t"}]}
    schema, diagnostics, _ = load_text(tmp_path, render(document, "json"), ".json")
    assert schema is None and diagnostics.has_errors


@pytest.mark.parametrize("fmt", FORMATS)
def test_toolset_file(tmp_path: Path, fmt: str) -> None:
    document = {
        "schemaVersion": "1.0",
        "metadata": {"name": "weather", "authors": ["ann"]},
        "expiresAt": "2030-01-01T00:00:00Z",
        "tools": [{"name": "t", "execution": {"type": "text", "text": "hi"}}],
    }
    schema = _load(tmp_path, document, fmt, toolset_file=True)
    assert schema.metadata == {"name": "weather", "authors": ["ann"]}
    assert [tool.name for tool in schema.tools] == ["t"]
    assert schema.toolsets == () and schema.mcp_servers == ()
