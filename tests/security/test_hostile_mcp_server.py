"""A third-party MCP server's tool list is data (issue 13): hostile tool names,
descriptions and input schemas, and a hostile server name, from a real server
over stdio, build into a package whose import runs none of it and whose MCP
server lists and calls every tool with the strings unchanged."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..mcp_servers import LISTED_SERVER
from ..test_mcp_server import run, stdio_session
from .support import PAYLOADS, build, ran_injected_code

SERVER_NAME = 'srv"""\n__import__("builtins").MCIGEN_PWNED = 1\n"""'


def _listed_tool(name: str, description: str) -> dict[str, Any]:
    return {
        "name": name,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {
                PAYLOADS[0]: {"type": "string", "description": PAYLOADS[1]},
                "mode": {
                    "type": "string",
                    "enum": [PAYLOADS[2], "plain"],
                    "default": PAYLOADS[2],
                    "description": PAYLOADS[4],
                },
            },
            "required": [PAYLOADS[0]],
        },
    }


LISTED = [
    _listed_tool("a" + PAYLOADS[0], PAYLOADS[1]),
    _listed_tool("b" + PAYLOADS[4], PAYLOADS[5]),
    _listed_tool("type", PAYLOADS[3]),
]


def test_a_hostile_servers_tools_are_data_end_to_end(tmp_path: Path) -> None:
    tools_file = tmp_path / "listed.json"
    tools_file.write_text(json.dumps(LISTED), encoding="utf-8")
    server = {"command": sys.executable, "args": [str(LISTED_SERVER), str(tools_file)]}
    document = {
        "schemaVersion": "1.0",
        "tools": [],
        "mcp_servers": {SERVER_NAME: server},
    }
    result = build(tmp_path, document)
    assert result.returncode == 0, result.stderr
    assert not ran_injected_code(tmp_path)

    async def scenario() -> None:
        async with stdio_session(tmp_path) as session:
            listed = (await session.list_tools()).tools
            assert [(t.description, t.input_schema) for t in listed] == [
                (t["description"], t["inputSchema"]) for t in LISTED
            ]
            for tool, original in zip(listed, LISTED, strict=True):
                called = await session.call_tool(tool.name, {PAYLOADS[0]: PAYLOADS[5]})
                assert not called.is_error, called
                arrived = json.loads(called.content[0].text)
                assert arrived == {
                    "tool": original["name"],
                    "arguments": {PAYLOADS[0]: PAYLOADS[5], "mode": PAYLOADS[2]},
                }

    run(scenario)
