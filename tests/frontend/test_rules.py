"""Every MCI field rule, each checked in JSON and in YAML with its exact location.

A case is a document and the full list of diagnostics it must produce, in file
order. Each location is given by a token of the rendered file (see
``support.Token``), so one case pins the position in both formats.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from .support import (
    FORMATS,
    ObjectWith,
    Token,
    diagnostic_lines,
    http_schema,
    position,
    render,
    tool_schema,
)


@dataclass(frozen=True)
class Expect:
    level: str
    where: Token
    message: str


def error(where: Token | str, message: str) -> Expect:
    return Expect("error", Token(where) if isinstance(where, str) else where, message)


def warning(where: Token | str, message: str) -> Expect:
    return Expect("warning", Token(where) if isinstance(where, str) else where, message)


@dataclass(frozen=True)
class Case:
    id: str
    document: Any
    expected: tuple[Expect, ...]
    toolset_file: bool

    def __str__(self) -> str:
        return self.id


def case(id: str, document: Any, *expected: Expect, toolset_file: bool = False) -> Case:
    return Case(id, document, expected, toolset_file)


def cli_schema(**fields: Any) -> dict[str, Any]:
    return tool_schema({"type": "cli", "command": "ls", **fields})


def auth_schema(**auth: Any) -> dict[str, Any]:
    return http_schema(auth=auth)


def body_schema(**body: Any) -> dict[str, Any]:
    return http_schema(method="POST", body=body)


def schema_with(**fields: Any) -> dict[str, Any]:
    return {"schemaVersion": "1.0", **fields}


def servers(**configs: Any) -> dict[str, Any]:
    return schema_with(mcp_servers=configs)


def toolsets(*entries: Any) -> dict[str, Any]:
    return schema_with(toolsets=list(entries))


def input_schema(schema: Any) -> dict[str, Any]:
    return tool_schema(inputSchema=schema)


AUTH_OBJECT = ObjectWith("type", after="auth")
EXECUTION_OBJECT = ObjectWith("type", after="execution")
TEXT_TOOL = {"name": "tool1", "execution": {"type": "text", "text": "hi"}}
EXECUTION_TYPES = "'http', 'cli', 'file', 'text', 'mcp'"
METHODS = "'GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'"
NEEDS_CONTENT = (
    "the schema must define at least one of 'tools', 'toolsets' or 'mcp_servers'"
)
NEEDS_FILTER_VALUE = (
    "missing required field 'filterValue' (required when 'filter' is set)"
)
NEEDS_COMMAND = (
    "'mcp_servers.srv' needs a 'command' (STDIO server) or a 'url' (HTTP server)"
)

ROOT = [
    case(
        "root-is-array",
        ["a"],
        error(Token("[", yaml_needle="- a"), "the schema must be an object, got array"),
    ),
    case(
        "root-is-scalar",
        "just text",
        error(Token("just text"), "the schema must be an object, got string"),
    ),
    case(
        "missing-schema-version",
        {"tools": [TEXT_TOOL]},
        error(ObjectWith("tools"), "missing required field 'schemaVersion' in schema"),
    ),
    case(
        "unsupported-version",
        {**tool_schema(), "schemaVersion": "2.0"},
        error("2.0", "unsupported schemaVersion '2.0'; supported versions: 1.0"),
    ),
    case(
        "version-is-a-number",
        {**tool_schema(), "schemaVersion": 1.0},
        error(
            "1.0",
            "'schemaVersion' must be the string \"1.0\", got number (write it in quotes)",
        ),
    ),
    case(
        "nothing-to-load",
        schema_with(metadata={"name": "empty"}),
        error(ObjectWith("schemaVersion"), NEEDS_CONTENT),
    ),
    case(
        "null-tools-count-as-absent",
        schema_with(tools=None),
        error(ObjectWith("schemaVersion"), NEEDS_CONTENT),
    ),
    case("toolsets-alone-are-enough", toolsets("weather")),
    case("mcp-servers-alone-are-enough", servers(srv={"command": "npx"})),
    case(
        "metadata-field-types",
        {
            **tool_schema(),
            "metadata": {
                "name": 333,
                "description": None,
                "version": 1.5,
                "license": False,
                "authors": ["ann", 444],
            },
        },
        error("333", "'name' must be a string, got integer"),
        error("1.5", "'version' must be a string, got number"),
        error("false", "'license' must be a string, got boolean"),
        error("444", "'authors[1]' must be a string, got integer"),
    ),
    case(
        "metadata-not-object",
        {**tool_schema(), "metadata": "about"},
        error("about", "'metadata' must be an object, got string"),
    ),
    case(
        "metadata-extra-keys-pass-typos-warn",
        {**tool_schema(), "metadata": {"homepage": "h", "descriptoin": "d"}},
        warning(
            "descriptoin",
            "unknown field 'descriptoin' in metadata (did you mean 'description'?)",
        ),
    ),
    case(
        "root-setting-types",
        {
            **tool_schema(),
            "libraryDir": 555,
            "enableAnyPaths": "sure",
            "directoryAllowList": ["ok", 666],
        },
        error("555", "'libraryDir' must be a string, got integer"),
        error("sure", "'enableAnyPaths' must be a boolean, got string"),
        error("666", "'directoryAllowList[1]' must be a string, got integer"),
    ),
    case(
        "root-allow-list-not-array",
        {**tool_schema(), "directoryAllowList": "only-dir"},
        error(
            "only-dir", "'directoryAllowList' must be an array of strings, got string"
        ),
    ),
    case(
        "unknown-root-fields-and-$schema",
        {
            "$schema": "https://example.com/mci.json",
            **tool_schema(),
            "toolz": [],
            "zzz": 1,
        },
        warning("toolz", "unknown field 'toolz' in schema (did you mean 'tools'?)"),
        warning("zzz", "unknown field 'zzz' in schema"),
    ),
]

TOOLS = [
    case(
        "tools-not-array",
        schema_with(tools={"first_key": 1}),
        error(
            ObjectWith("first_key"), "'tools' must be an array of objects, got object"
        ),
    ),
    case(
        "tool-not-object",
        schema_with(tools=["a-name"]),
        error("a-name", "'tools[0]' must be an object, got string"),
    ),
    case(
        "tool-missing-name-and-execution",
        schema_with(tools=[{"description": "nothing else"}]),
        error(ObjectWith("description"), "missing required field 'name' in tool"),
        error(ObjectWith("description"), "missing required field 'execution' in tool"),
    ),
    case(
        "tool-name-empty",
        schema_with(tools=[{"name": "", "execution": {"type": "text", "text": "x"}}]),
        error(
            Token('""', yaml_needle="''"), "'name' must be a non-empty string, got ''"
        ),
    ),
    case(
        "tool-name-not-string",
        schema_with(tools=[{"name": 777, "execution": {"type": "text", "text": "x"}}]),
        error("777", "'name' must be a non-empty string, got integer"),
    ),
    case(
        "tool-field-types",
        tool_schema(
            description=111,
            disabled="yes",
            tags=["a", 222],
            enableAnyPaths=333,
            directoryAllowList="one-dir",
        ),
        error("111", "'description' must be a string, got integer"),
        error("yes", "'disabled' must be a boolean, got string"),
        error("222", "'tags[1]' must be a string, got integer"),
        error("333", "'enableAnyPaths' must be a boolean, got integer"),
        error(
            "one-dir", "'directoryAllowList' must be an array of strings, got string"
        ),
    ),
    case(
        "tool-tags-not-array",
        tool_schema(tags="api"),
        error("api", "'tags' must be an array of strings, got string"),
    ),
    case(
        "tool-nullable-fields",
        tool_schema(description=None, annotations=None, inputSchema=None, title=None),
    ),
    case(
        "tool-disabled-null",
        tool_schema(disabled=None),
        error("null", "'disabled' must be a boolean, got null"),
    ),
    case("tool-title-is-accepted", tool_schema(title="Nice Title")),
    case(
        "tool-unknown-field",
        tool_schema(descriptoin="typo"),
        warning(
            "descriptoin",
            "unknown field 'descriptoin' in tool (did you mean 'description'?)",
        ),
    ),
    case(
        "annotations",
        tool_schema(
            annotations={
                "title": 888,
                "readOnlyHint": "nah",
                "destructiveHint": True,
                "idempotentHint": 1010,
                "openWorldHint": None,
                "audience": ["user", "robot"],
                "colour": "red",
            }
        ),
        error("888", "'title' must be a string, got integer"),
        error("nah", "'readOnlyHint' must be a boolean, got string"),
        error("1010", "'idempotentHint' must be a boolean, got integer"),
        error("robot", "'audience[1]' must be one of 'user', 'assistant', got 'robot'"),
        warning("colour", "unknown field 'colour' in annotations"),
    ),
    case(
        "annotations-not-object",
        tool_schema(annotations=["read-only"]),
        error(
            Token("[", after="annotations", yaml_needle="- read-only"),
            "'annotations' must be an object, got array",
        ),
    ),
]

EXECUTION = [
    case(
        "execution-not-object",
        tool_schema("text-only"),
        error("text-only", "'execution' must be an object, got string"),
    ),
    case(
        "execution-type-missing",
        tool_schema({"url": "https://example.com"}),
        error(ObjectWith("url"), "missing required field 'type' in execution"),
    ),
    case(
        "execution-type-unknown",
        tool_schema({"type": "htp"}),
        error(
            "htp",
            f"'type' must be one of {EXECUTION_TYPES}, got 'htp' (did you mean 'http'?)",
        ),
    ),
    case(
        "execution-type-not-string",
        tool_schema({"type": 999}),
        error("999", f"'type' must be one of {EXECUTION_TYPES}, got integer"),
    ),
]

HTTP = [
    case(
        "http-missing-url",
        tool_schema({"type": "http", "method": "GET"}),
        error(EXECUTION_OBJECT, "missing required field 'url' in http execution"),
    ),
    case(
        "http-url-not-string",
        tool_schema({"type": "http", "url": 404}),
        error("404", "'url' must be a string, got integer"),
    ),
    case(
        "http-method-unknown",
        http_schema(method="FETCH"),
        error(
            "FETCH",
            f"'method' must be one of {METHODS}, got 'FETCH' (did you mean 'PATCH'?)",
        ),
    ),
    case(
        "http-method-lower-case",
        http_schema(method="post"),
        warning("post", "'method' should be written 'POST', got 'post'"),
    ),
    case(
        "http-headers",
        http_schema(headers={"Accept": "text/plain", "X-Count": 12345}),
        error("12345", "'headers.X-Count' must be a string, got integer"),
    ),
    case(
        "http-headers-not-object",
        http_schema(headers="Accept: */*"),
        error("Accept: */*", "'headers' must be an object, got string"),
    ),
    case(
        "http-params-not-object",
        http_schema(params=["q"]),
        error(
            Token("[", after="params", yaml_needle="- q"),
            "'params' must be an object, got array",
        ),
    ),
    case(
        "http-params-any-json",
        http_schema(params={"q": "x", "n": 1, "flags": [True, None], "o": {"k": 2.5}}),
    ),
    case(
        "http-timeout-negative",
        http_schema(timeout_ms=-5),
        error("-5", "'timeout_ms' must be an integer >= 0, got -5"),
    ),
    case(
        "http-timeout-boolean",
        http_schema(timeout_ms=True),
        error("true", "'timeout_ms' must be an integer >= 0, got boolean"),
    ),
    case(
        "http-timeout-fraction",
        http_schema(timeout_ms=2.5),
        error("2.5", "'timeout_ms' must be an integer >= 0, got number"),
    ),
    case(
        "timeouts-and-pauses-over-a-day",
        http_schema(timeout_ms=86_400_001, retries={"backoff_ms": 10**20}),
        error("86400001", "'timeout_ms' must be at most 86400000, got 86400001"),
        error(str(10**20), f"'backoff_ms' must be at most 86400000, got {10**20}"),
    ),
    case(
        "cli-timeout-over-a-day",
        cli_schema(timeout_ms=10**20),
        error(str(10**20), f"'timeout_ms' must be at most 86400000, got {10**20}"),
    ),
    case(
        "mcp-server-timeout-over-a-day",
        servers(srv={"command": "npx", "config": {"timeout_ms": 86_400_001}}),
        error("86400001", "'timeout_ms' must be at most 86400000, got 86400001"),
    ),
    case(
        "http-retries",
        http_schema(retries={"attempts": 0, "backoff_ms": -1, "attempt": 2}),
        error(
            Token("0", after="attempts"), "'attempts' must be an integer >= 1, got 0"
        ),
        error("-1", "'backoff_ms' must be an integer >= 0, got -1"),
        warning(
            Token("attempt", after="backoff_ms"),
            "unknown field 'attempt' in retries (did you mean 'attempts'?)",
        ),
    ),
    case(
        "http-retries-not-object",
        http_schema(retries=3),
        error("3", "'retries' must be an object, got integer"),
    ),
    case(
        "http-unknown-field",
        http_schema(header={}),
        warning(
            Token("header"),
            "unknown field 'header' in http execution (did you mean 'headers'?)",
        ),
    ),
]

AUTH = [
    case(
        "auth-not-object",
        http_schema(auth="bearer"),
        error("bearer", "'auth' must be an object, got string"),
    ),
    case(
        "auth-type-missing",
        auth_schema(token="t0k"),
        error(ObjectWith("token"), "missing required field 'type' in auth"),
    ),
    case(
        "auth-type-unknown",
        auth_schema(type="apikey"),
        error(
            "apikey",
            "'type' must be one of 'apiKey', 'bearer', 'basic', 'oauth2', got 'apikey'"
            " (did you mean 'apiKey'?)",
        ),
    ),
    case(
        "api-key-missing-fields",
        auth_schema(type="apiKey"),
        error(AUTH_OBJECT, "missing required field 'in' in apiKey auth"),
        error(AUTH_OBJECT, "missing required field 'name' in apiKey auth"),
        error(AUTH_OBJECT, "missing required field 'value' in apiKey auth"),
    ),
    case(
        "api-key-in",
        auth_schema(type="apiKey", **{"in": "cookie"}, name="k", value="v"),
        error("cookie", "'in' must be one of 'header', 'query', got 'cookie'"),
    ),
    case(
        "bearer-missing-token-and-typo",
        auth_schema(type="bearer", tokn="t0k"),
        error(AUTH_OBJECT, "missing required field 'token' in bearer auth"),
        warning("tokn", "unknown field 'tokn' in bearer auth (did you mean 'token'?)"),
    ),
    case(
        "basic-missing-password",
        auth_schema(type="basic", username="me"),
        error(AUTH_OBJECT, "missing required field 'password' in basic auth"),
    ),
    case(
        "basic-username-not-string",
        auth_schema(type="basic", username=42, password="pw"),
        error("42", "'username' must be a string, got integer"),
    ),
    case(
        "oauth2-missing-fields-and-scopes",
        auth_schema(type="oauth2", flow="clientCredentials", scopes=["read", 77]),
        error(AUTH_OBJECT, "missing required field 'tokenUrl' in oauth2 auth"),
        error(AUTH_OBJECT, "missing required field 'clientId' in oauth2 auth"),
        error(AUTH_OBJECT, "missing required field 'clientSecret' in oauth2 auth"),
        error("77", "'scopes[1]' must be a string, got integer"),
    ),
]

BODY = [
    case(
        "body-not-object",
        http_schema(body="raw text"),
        error("raw text", "'body' must be an object, got string"),
    ),
    case(
        "body-type-missing",
        body_schema(content={"a": 1}),
        error(ObjectWith("content"), "missing required field 'type' in body"),
    ),
    case(
        "body-type-unknown",
        body_schema(type="xml", content="<a/>"),
        error("xml", "'type' must be one of 'json', 'form', 'raw', got 'xml'"),
    ),
    case(
        "body-content-missing",
        body_schema(type="json"),
        error(
            ObjectWith("type", after="body"),
            "missing required field 'content' in json body",
        ),
    ),
    case(
        "json-body-content-string",
        body_schema(type="json", content="not-json"),
        error("not-json", "'content' must be an object or an array, got string"),
    ),
    case(
        "json-body-content-array", body_schema(type="json", content=[1, "{{props.x}}"])
    ),
    case(
        "form-body-content-array",
        body_schema(type="form", content=["a"]),
        error(
            Token("[", after="content", yaml_needle="- a"),
            "'content' must be an object, got array",
        ),
    ),
    case(
        "raw-body-content-object",
        body_schema(type="raw", content={"first": 1}),
        error(ObjectWith("first"), "'content' must be a string, got object"),
    ),
]

CLI = [
    case(
        "cli-missing-command",
        tool_schema({"type": "cli", "args": []}),
        error(EXECUTION_OBJECT, "missing required field 'command' in cli execution"),
    ),
    case(
        "cli-args-not-array",
        cli_schema(args="-l -a"),
        error("-l -a", "'args' must be an array of strings, got string"),
    ),
    case(
        "cli-arg-not-string",
        cli_schema(args=["-l", 1234]),
        error("1234", "'args[1]' must be a string, got integer"),
    ),
    case(
        "cli-flags-not-object",
        cli_schema(flags=["-i"]),
        error(
            Token("[", after="flags", yaml_needle="- -i"),
            "'flags' must be an object, got array",
        ),
    ),
    case(
        "cli-flag-missing-fields",
        cli_schema(flags={"-i": {}}),
        error("{}", "missing required field 'from' in flag"),
        error("{}", "missing required field 'type' in flag"),
    ),
    case(
        "cli-flag-not-object",
        cli_schema(flags={"-i": "props.i"}),
        error("props.i", "'flags.-i' must be an object, got string"),
    ),
    case(
        "cli-flag-type",
        cli_schema(flags={"-i": {"from": "props.i", "type": "bool"}}),
        error(
            "bool",
            "'type' must be one of 'boolean', 'value', got 'bool' (did you mean 'boolean'?)",
        ),
    ),
    case(
        "cli-cwd-and-timeout",
        cli_schema(cwd=5050, timeout_ms="10"),
        error("5050", "'cwd' must be a string, got integer"),
        error(
            Token("10", after="timeout_ms"),
            "'timeout_ms' must be an integer >= 0, got string",
        ),
    ),
]

FILE_TEXT_MCP = [
    case(
        "file-missing-path",
        tool_schema({"type": "file", "enableTemplating": "no"}),
        error(EXECUTION_OBJECT, "missing required field 'path' in file execution"),
        error("no", "'enableTemplating' must be a boolean, got string"),
    ),
    case(
        "text-missing-text",
        tool_schema({"type": "text"}),
        error(EXECUTION_OBJECT, "missing required field 'text' in text execution"),
    ),
    case(
        "text-not-string",
        tool_schema({"type": "text", "text": ["a", "b"]}),
        error(
            Token("[", after="execution", yaml_needle="- a"),
            "'text' must be a string, got array",
        ),
    ),
    case(
        "mcp-missing-fields",
        tool_schema({"type": "mcp"}),
        error(
            EXECUTION_OBJECT,
            "missing required field 'serverName' in mcp execution",
        ),
        error(EXECUTION_OBJECT, "missing required field 'toolName' in mcp execution"),
    ),
    case(
        "mcp-server-not-declared",
        tool_schema({"type": "mcp", "serverName": "nowhere", "toolName": "echo"}),
        error("nowhere", "MCP server 'nowhere' is not defined in 'mcp_servers'"),
    ),
    case(
        "mcp-server-declared",
        {
            **tool_schema({"type": "mcp", "serverName": "srv", "toolName": "echo"}),
            "mcp_servers": {"srv": {"command": "npx"}},
        },
    ),
    case(
        "mcp-server-unchecked-in-toolset-file",
        {
            "schemaVersion": "1.0",
            "tools": [
                {
                    "name": "echo",
                    "execution": {
                        "type": "mcp",
                        "serverName": "srv",
                        "toolName": "echo",
                    },
                }
            ],
        },
        toolset_file=True,
    ),
]

TOOLSETS = [
    case(
        "toolsets-not-array",
        schema_with(toolsets="weather"),
        error(
            "weather",
            "'toolsets' must be an array of toolset names or objects, got string",
        ),
    ),
    case(
        "toolset-entry-type",
        toolsets(12),
        error("12", "'toolsets[0]' must be a toolset name or an object, got integer"),
    ),
    case(
        "toolset-entry-empty-name",
        toolsets(""),
        error(
            Token('""', yaml_needle="''"),
            "'toolsets[0]' must be a non-empty string, got ''",
        ),
    ),
    case(
        "toolset-object-missing-name",
        toolsets({"filter": "only", "filterValue": "a"}),
        error(ObjectWith("filter"), "missing required field 'name' in toolset"),
    ),
    case(
        "toolset-filter-unknown",
        toolsets({"name": "ts", "filter": "tag", "filterValue": "a"}),
        error(
            "tag",
            "'filter' must be one of 'only', 'except', 'tags', 'withoutTags', 'glob', got 'tag'"
            " (did you mean 'tags'?)",
        ),
    ),
    case(
        "toolset-filter-without-value",
        toolsets({"name": "ts", "filter": "only"}),
        error(ObjectWith("name"), NEEDS_FILTER_VALUE),
    ),
    case(
        "toolset-value-without-filter",
        toolsets({"name": "ts", "filterValue": "a,b"}),
        warning("filterValue", "'filterValue' has no effect without 'filter'"),
    ),
    case(
        "toolset-filter-value-type",
        toolsets({"name": "ts", "filter": "tags", "filterValue": ["a"]}),
        error(
            Token("[", after="filterValue", yaml_needle="- a"),
            "'filterValue' must be a string, got array",
        ),
    ),
    case(
        "toolset-unknown-field",
        toolsets({"name": "ts", "filters": "only"}),
        warning(
            "filters", "unknown field 'filters' in toolset (did you mean 'filter'?)"
        ),
    ),
]

MCP_SERVERS = [
    case(
        "mcp-servers-not-object",
        schema_with(mcp_servers=["srv"]),
        error(
            Token("[", 1, yaml_needle="- srv"),
            "'mcp_servers' must be an object, got array",
        ),
    ),
    case(
        "mcp-server-not-object",
        servers(srv="npx server"),
        error("npx server", "'mcp_servers.srv' must be an object, got string"),
    ),
    case(
        "mcp-server-neither-kind",
        servers(srv={"args": ["-y"]}),
        error(ObjectWith("args"), NEEDS_COMMAND),
    ),
    case(
        "mcp-server-type-unknown",
        servers(srv={"type": "sse", "url": "https://example.com/mcp"}),
        error(
            "sse",
            "'type' must be 'http' (or give a 'command' for a STDIO server), got 'sse'",
        ),
    ),
    case(
        "mcp-http-server-missing-url",
        servers(srv={"type": "http"}),
        error(ObjectWith("type"), "missing required field 'url' in HTTP MCP server"),
    ),
    case(
        "mcp-http-server-headers",
        servers(srv={"type": "http", "url": "https://x", "headers": {"H": False}}),
        error("false", "'headers.H' must be a string, got boolean"),
    ),
    case(
        "mcp-stdio-server-fields",
        servers(srv={"command": "npx", "args": ["-y", 3030], "env": {"DEBUG": 9191}}),
        error("3030", "'args[1]' must be a string, got integer"),
        error(Token("9191"), "'env.DEBUG' must be a string, got integer"),
    ),
    case(
        "mcp-stdio-server-command-type",
        servers(srv={"command": ["npx"]}),
        error(
            Token("[", 1, yaml_needle="- npx"), "'command' must be a string, got array"
        ),
    ),
    case(
        "mcp-stdio-server-explicit-type",
        servers(srv={"type": "stdio", "command": "npx"}),
    ),
    case(
        "mcp-stdio-server-unknown-field",
        servers(srv={"command": "npx", "argz": []}),
        warning(
            "argz", "unknown field 'argz' in STDIO MCP server (did you mean 'args'?)"
        ),
    ),
    case(
        "mcp-server-config",
        servers(srv={"command": "npx", "config": {"expDays": 0, "filter": "only"}}),
        error(ObjectWith("expDays"), NEEDS_FILTER_VALUE),
        error(Token("0", after="expDays"), "'expDays' must be an integer >= 1, got 0"),
    ),
    case(
        "mcp-server-config-timeout",
        servers(
            a={"command": "npx", "config": {"timeout_ms": 0}},
            b={"command": "npx", "config": {"timeout_ms": 2.5}},
            c={"type": "http", "url": "https://x", "config": {"timeout_ms": "9"}},
            d={"command": "npx", "config": {"timeout_ms": 1500}},
        ),
        error(
            Token("0", after="timeout_ms"),
            "'timeout_ms' must be an integer >= 1, got 0",
        ),
        error("2.5", "'timeout_ms' must be an integer >= 1, got number"),
        error(
            Token('"9"', yaml_needle="'9'"),
            "'timeout_ms' must be an integer >= 1, got string",
        ),
    ),
    case(
        "mcp-server-config-not-object",
        servers(srv={"command": "npx", "config": 30}),
        error("30", "'config' must be an object, got integer"),
    ),
    case(
        "mcp-server-config-filter-value-alone",
        servers(srv={"command": "npx", "config": {"filterValue": "a"}}),
        warning("filterValue", "'filterValue' has no effect without 'filter'"),
    ),
]

TOOLSET_FILE = [
    case(
        "toolset-file-missing-tools",
        {"schemaVersion": "1.0", "metadata": {"name": "ts"}},
        error(
            ObjectWith("schemaVersion"),
            "missing required field 'tools' in toolset file",
        ),
        toolset_file=True,
    ),
    case(
        "toolset-file-ignored-fields",
        {
            "schemaVersion": "1.0",
            "toolsets": ["x"],
            "libraryDir": "./lib",
            "enableAnyPaths": True,
            "directoryAllowList": [],
            "mcp_servers": {},
            "tools": [TEXT_TOOL],
        },
        *(
            warning(
                field,
                f"'{field}' is ignored in a toolset file, as mci-py ignores it; it "
                f"takes effect in the main schema{where}",
            )
            for field, where in (
                ("toolsets", ""),
                ("libraryDir", ""),
                ("enableAnyPaths", " or on a tool"),
                ("directoryAllowList", " or on a tool"),
                ("mcp_servers", ""),
            )
        ),
        toolset_file=True,
    ),
    case(
        "toolset-file-expires-at",
        {"schemaVersion": "1.0", "expiresAt": 20250101, "tools": [TEXT_TOOL]},
        error("20250101", "'expiresAt' must be a string, got integer"),
        toolset_file=True,
    ),
    case(
        "toolset-file-valid",
        {
            "schemaVersion": "1.0",
            "metadata": {"name": "ts", "authors": ["me"]},
            "expiresAt": "2025-01-01T00:00:00Z",
            "tools": [TEXT_TOOL],
        },
        toolset_file=True,
    ),
    case(
        "main-schema-rejects-expires-at",
        {**tool_schema(), "expiresAt": "2025-01-01T00:00:00Z"},
        warning("expiresAt", "unknown field 'expiresAt' in schema"),
    ),
]

INPUT_SCHEMA = [
    case(
        "input-schema-not-object",
        input_schema("object"),
        error("object", "'inputSchema' must be an object, got string"),
    ),
    case(
        "input-schema-type",
        input_schema({"type": "array"}),
        error("array", "'type' of 'inputSchema' must be 'object', got 'array'"),
    ),
    case(
        "input-schema-properties-not-object",
        input_schema({"type": "object", "properties": ["a"]}),
        error(
            Token("[", after="properties", yaml_needle="- a"),
            "invalid JSON Schema: ['a'] is not of type 'object'",
        ),
    ),
    case(
        "input-schema-property-not-object",
        input_schema({"properties": {"a": 5150}}),
        error("5150", "invalid JSON Schema: 5150 is not of type 'object', 'boolean'"),
    ),
    case(
        "input-schema-required-not-array",
        input_schema({"properties": {}, "required": "a"}),
        error(
            Token("a", after="required"),
            "invalid JSON Schema: 'a' is not of type 'array'",
        ),
    ),
    case(
        "input-schema-required-items",
        input_schema({"properties": {"a": {}}, "required": ["a", 6060, "ghost"]}),
        error("6060", "invalid JSON Schema: 6060 is not of type 'string'"),
    ),
    case(
        "input-schema-required-without-properties",
        input_schema({"type": "object", "required": ["ghost"]}),
        warning("ghost", "required property 'ghost' is not defined in 'properties'"),
    ),
    case(
        "input-schema-enum-not-array",
        input_schema({"properties": {"u": {"type": "string", "enum": "metric"}}}),
        error("metric", "invalid JSON Schema: 'metric' is not of type 'array'"),
    ),
    case(
        "input-schema-default-mismatch",
        input_schema(
            {
                "properties": {
                    "n": {"type": "integer", "default": "ten"},
                    "x": {"type": "number", "default": 3},
                    "b": {"type": ["string", "null"], "default": 4},
                    "o": {
                        "type": "object",
                        "properties": {"deep": {"type": "boolean", "default": "nope"}},
                    },
                }
            }
        ),
        warning("ten", "'default' 'ten' does not match type 'integer' (got string)"),
        warning("nope", "'default' 'nope' does not match type 'boolean' (got string)"),
    ),
    case(
        "input-schema-items",
        input_schema({"properties": {"l": {"type": "array", "items": {"enum": 7070}}}}),
        error("7070", "invalid JSON Schema: 7070 is not of type 'array'"),
    ),
    case(
        "input-schema-free-keywords-pass",
        input_schema(
            {
                "type": "object",
                "$schema": "http://json-schema.org/draft-07/schema#",
                "additionalProperties": False,
                "properties": {
                    "a": {"type": "string", "minLength": 1, "x-anything": [1]}
                },
            }
        ),
    ),
]

CASES = [
    *ROOT,
    *TOOLS,
    *EXECUTION,
    *HTTP,
    *AUTH,
    *BODY,
    *CLI,
    *FILE_TEXT_MCP,
    *TOOLSETS,
    *MCP_SERVERS,
    *TOOLSET_FILE,
    *INPUT_SCHEMA,
]


def test_case_ids_are_unique() -> None:
    ids = [case.id for case in CASES]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES, ids=str)
def test_rule(tmp_path: Path, case: Case, fmt: str) -> None:
    text = render(case.document, fmt)
    expected = [
        f"s.{fmt}:{position(text, want.where.find(text, fmt))}: {want.level}: {want.message}"
        for want in case.expected
    ]
    lines = diagnostic_lines(tmp_path, text, f".{fmt}", toolset_file=case.toolset_file)
    assert lines == expected, text
