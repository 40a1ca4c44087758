"""Templated strings: which are parsed, in which mode, and where their errors point."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from mcigen_runtime.templating.parser import parse_template
from mcigen_runtime.templating.syntax import Template, TemplateSyntaxError

import mcigen.frontend.context as context_module

from .support import (
    FORMATS,
    Inside,
    diagnostic_lines,
    http_schema,
    load_text,
    position,
    render,
    tool_schema,
)

BAD = "x{{a b}}"
BAD_MESSAGE = "invalid path 'a b' in placeholder"


def servers(**configs: Any) -> dict[str, Any]:
    return {"schemaVersion": "1.0", "mcp_servers": configs}


def auth(**fields: Any) -> dict[str, Any]:
    return http_schema(auth=fields)


TEMPLATED_FIELDS = {
    "http-url": tool_schema({"type": "http", "url": BAD}),
    "http-header": http_schema(headers={"X-Id": BAD}),
    "http-param-nested": http_schema(params={"q": {"deep": ["ok", BAD]}}),
    "json-body-nested": http_schema(body={"type": "json", "content": {"a": [BAD]}}),
    "form-body": http_schema(body={"type": "form", "content": {"a": BAD}}),
    "raw-body": http_schema(body={"type": "raw", "content": BAD}),
    "api-key-name": auth(type="apiKey", **{"in": "header"}, name=BAD, value="v"),
    "api-key-value": auth(type="apiKey", **{"in": "query"}, name="k", value=BAD),
    "bearer-token": auth(type="bearer", token=BAD),
    "basic-username": auth(type="basic", username=BAD, password="p"),
    "basic-password": auth(type="basic", username="u", password=BAD),
    "oauth2-token-url": auth(
        type="oauth2", flow="cc", tokenUrl=BAD, clientId="i", clientSecret="s"
    ),
    "oauth2-client-id": auth(
        type="oauth2", flow="cc", tokenUrl="t", clientId=BAD, clientSecret="s"
    ),
    "oauth2-client-secret": auth(
        type="oauth2", flow="cc", tokenUrl="t", clientId="i", clientSecret=BAD
    ),
    "cli-command": tool_schema({"type": "cli", "command": BAD}),
    "cli-arg": tool_schema({"type": "cli", "command": "ls", "args": ["-l", BAD]}),
    "cli-cwd": tool_schema({"type": "cli", "command": "ls", "cwd": BAD}),
    "file-path": tool_schema({"type": "file", "path": BAD}),
    "text": tool_schema({"type": "text", "text": BAD}),
    "stdio-server-command": servers(srv={"command": BAD}),
    "stdio-server-arg": servers(srv={"command": "npx", "args": [BAD]}),
    "stdio-server-env": servers(srv={"command": "npx", "env": {"TOKEN": BAD}}),
    "http-server-url": servers(srv={"type": "http", "url": BAD}),
    "http-server-header": servers(
        srv={"type": "http", "url": "https://x", "headers": {"Authorization": BAD}}
    ),
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("document", TEMPLATED_FIELDS.values(), ids=TEMPLATED_FIELDS)
def test_template_error_points_inside_the_string(
    tmp_path: Path, document: dict[str, Any], fmt: str
) -> None:
    text = render(document, fmt)
    where = position(text, Inside(" b}}").find(text, fmt))
    lines = diagnostic_lines(tmp_path, text, f".{fmt}")
    assert lines == [f"s.{fmt}:{where}: error: {BAD_MESSAGE}"]


NOT_TEMPLATED = {
    "tool-name": tool_schema(name=BAD),
    "description-and-title": tool_schema(description=BAD, title=BAD),
    "annotation-title": tool_schema(annotations={"title": BAD}),
    "tags": tool_schema(tags=[BAD]),
    "input-schema": tool_schema(
        inputSchema={"properties": {"a": {"type": "string", "description": BAD}}}
    ),
    "flag-from": tool_schema(
        {
            "type": "cli",
            "command": "ls",
            # under props: a root that never resolves is a warning of its own
            "flags": {"-i": {"from": f"props.{BAD}", "type": "value"}},
        }
    ),
    "oauth2-flow-and-scopes": auth(
        type="oauth2",
        flow=BAD,
        tokenUrl="t",
        clientId="i",
        clientSecret="s",
        scopes=[BAD],
    ),
    "mcp-tool-reference": {
        **tool_schema({"type": "mcp", "serverName": "srv", "toolName": BAD}),
        "mcp_servers": {"srv": {"command": "npx"}},
    },
    "schema-settings": {
        **tool_schema(),
        "metadata": {"name": BAD},
        "libraryDir": BAD,
        "directoryAllowList": [BAD],
        "toolsets": [BAD, {"name": BAD, "filter": "only", "filterValue": BAD}],
    },
}


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("document", NOT_TEMPLATED.values(), ids=NOT_TEMPLATED)
def test_plain_fields_are_not_parsed(tmp_path: Path, document: Any, fmt: str) -> None:
    assert diagnostic_lines(tmp_path, render(document, fmt), f".{fmt}") == []


def test_each_templated_string_is_parsed_once_in_its_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    parsed: dict[str, bool] = {}

    def spy(
        text: str,
        *,
        directives: bool = False,
        whitespace: str = "compat",
        errors: list[TemplateSyntaxError] | None = None,
    ) -> Template:
        assert text not in parsed, f"{text!r} parsed twice"
        parsed[text] = directives
        return parse_template(
            text, directives=directives, whitespace=whitespace, errors=errors
        )

    monkeypatch.setattr(context_module, "parse_template", spy)
    document = {
        "schemaVersion": "1.0",
        "tools": [
            {"name": "t1", "execution": {"type": "text", "text": "text"}},
            {"name": "t2", "execution": {"type": "file", "path": "path"}},
            {
                "name": "t3",
                "execution": {
                    "type": "cli",
                    "command": "command",
                    "args": ["arg"],
                    "cwd": "cwd",
                    "flags": {"-f": {"from": "flag-from", "type": "value"}},
                },
            },
            {
                "name": "t4",
                "execution": {
                    "type": "http",
                    "method": "POST",
                    "url": "url",
                    "headers": {"H": "header"},
                    "params": {"p": ["param", 1]},
                    "auth": {"type": "bearer", "token": "token"},
                    "body": {"type": "json", "content": {"c": "content"}},
                },
            },
        ],
        "mcp_servers": {"srv": {"command": "server-command", "env": {"E": "env"}}},
    }
    load_text(tmp_path, render(document, "json"), ".json")
    assert parsed == {
        "text": True,
        "path": False,
        "command": False,
        "arg": False,
        "cwd": False,
        "url": False,
        "header": False,
        "param": False,
        "token": False,
        "content": False,
        "server-command": False,
        "env": False,
    }


# Positions below are counted by hand; the strings hold escapes or indentation,
# so the offset in the decoded text differs from the column in the file.


def test_json_error_after_escapes(tmp_path: Path) -> None:
    text = (
        '{"schemaVersion": "1.0", "tools": [\n'
        '  {"name": "t", "execution": {"type": "text",\n'
        r'   "text": "line\n\"quoted\" \u00e9 \ud83d\ude00 \\ {{a b}}"}}'
        "\n]}\n"
    )
    # line 3: 3 spaces, "text" at 4-9, ':' 10, '"' at 12, content from 13:
    # line 13-16, \n 17-18, \" 19-20, quoted 21-26, \" 27-28, ' ' 29,
    # \u00e9 30-35, ' ' 36, surrogate pair 37-48, ' ' 49, \\ 50-51, ' ' 52,
    # {{ 53-54, a 55, the offending space 56.
    assert diagnostic_lines(tmp_path, text, ".json") == [
        f"s.json:3:56: error: {BAD_MESSAGE}"
    ]


def test_yaml_error_in_literal_block(tmp_path: Path) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "tools:\n"
        "  - name: t\n"
        "    execution:\n"
        "      type: text\n"
        "      text: |\n"
        "        first line\n"
        "\n"
        "          indented {{a b}}\n"
        "        last\n"
    )
    # line 9: 10 spaces, "indented" 11-18, ' ' 19, {{ 20-21, a 22, space 23.
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        f"s.yaml:9:23: error: {BAD_MESSAGE}"
    ]


def test_yaml_error_in_literal_block_with_indentation_indicator(tmp_path: Path) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "tools:\n"
        "- name: t\n"
        "  execution:\n"
        "    type: text\n"
        "    text: |4-\n"
        "          kept indent {{a b}}\n"
    )
    # line 7: 10 spaces, "kept" 11-14, ' ' 15, "indent" 16-21, ' ' 22, {{ 23-24,
    # a 25, space 26.
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        f"s.yaml:7:26: error: {BAD_MESSAGE}"
    ]


@pytest.mark.parametrize(
    ("scalar", "column"),
    [
        # `      text: ` is 12 columns; the scalar starts at column 13.
        pytest.param("x{{a b}}", 17, id="plain"),
        pytest.param("'it''s {{a b}}'", 23, id="single-quoted"),
        pytest.param(r'"t\tb \u00e9\x41 {{a b}}"', 33, id="double-quoted"),
    ],
)
def test_yaml_error_in_flow_scalar(tmp_path: Path, scalar: str, column: int) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "tools:\n"
        "  - name: t\n"
        "    execution:\n"
        "      type: text\n"
        f"      text: {scalar}\n"
    )
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        f"s.yaml:6:{column}: error: {BAD_MESSAGE}"
    ]


@pytest.mark.parametrize(
    "header", [pytest.param("text: >", id="folded"), pytest.param("text:", id="plain")]
)
def test_yaml_error_in_multi_line_scalar(tmp_path: Path, header: str) -> None:
    text = (
        'schemaVersion: "1.0"\n'
        "tools:\n"
        "  - name: t\n"
        "    execution:\n"
        "      type: text\n"
        f"      {header}\n"
        "        first\n"
        "        second {{a b}}\n"
    )
    # line 8: 8 spaces, "second" 9-14, ' ' 15, {{ 16-17, a 18, space 19.
    assert diagnostic_lines(tmp_path, text, ".yaml") == [
        f"s.yaml:8:19: error: {BAD_MESSAGE}"
    ]


def test_every_bad_placeholder_of_a_template_is_reported(tmp_path: Path) -> None:
    text = (
        '{"schemaVersion": "1.0", "tools": [\n'
        '  {"name": "t", "execution": {"type": "text",\n'
        '   "text": "{{props.}} {{props.x}} {{env.a b}} {{\'open}} {{a |}}"}}'
        "\n]}\n"
    )
    # line 3: '"' at 12, content from 13: {{props.}} 13-22 (empty segment at 21),
    # {{props.x}} 24-34, ' ' 35, {{env.a b}} 36-46 (its space at 43), ' ' 47,
    # {{'open}} 48-56 ('open from 50), ' ' 57, {{a |}} 58-64 (empty after '|' at 63).
    assert diagnostic_lines(tmp_path, text, ".json") == [
        "s.json:3:21: error: invalid path 'props.' in placeholder",
        "s.json:3:43: error: invalid path 'env.a b' in placeholder",
        "s.json:3:50: error: unterminated string literal 'open",
        "s.json:3:63: error: empty alternative in placeholder",
    ]
