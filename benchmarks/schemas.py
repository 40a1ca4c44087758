"""The schemas the benchmarks build: one for per-call rows, and N-tool schemas for scale.

The per-call schema has one tool of each kind (text, file, cli, http, and an MCP
server); the scale schemas are mostly text tools with a small inputSchema each, with
a file, a cli and an http tool in every 25, so the build exercises every code path.
"""

from __future__ import annotations

import copy
import json
import random
import sys
from pathlib import Path
from typing import Any

from benchmarks.paths import TOY_SERVER

Schema = dict[str, Any]

BLOCK = (
    "Dear {{props.name}},\n@if(props.vip)Thanks for being a VIP.@else Welcome.@endif\n"
    "@foreach(item in props.items)- {{item.name}}: {{item.qty}}\n@endforeach\n"
)
"""One block of the file template; repeated (with filler) to 10 KB."""

LETTER = "letter.txt"
"""The file template of the per-call schema, next to the schema."""

LETTER_PROPS: dict[str, Any] = {
    "name": "Ann",
    "vip": True,
    "items": [{"name": "pen", "qty": 2}, {"name": "ink", "qty": 1}],
}

_CALL_TOOLS: list[dict[str, Any]] = [
    {
        "name": "greet",
        "inputSchema": {
            "type": "object",
            "properties": {"name": {"type": "string"}, "team": {"type": "string"}},
            "required": ["name"],
        },
        "execution": {
            "type": "text",
            "text": "Hello {{props.name}} from {{props.team | env.TEAM | 'us'}}!",
        },
    },
    {
        "name": "listing",
        "inputSchema": {
            "type": "object",
            "properties": {
                "items": {"type": "array", "items": {"type": "string"}},
                "n": {"type": "integer"},
            },
            "required": ["items", "n"],
        },
        "execution": {
            "type": "text",
            "text": (
                "Items:\n@foreach(item in props.items)- {{item}}\n@endforeach"
                "@if(props.n > 2)many@else few@endif"
            ),
        },
    },
    {"name": "letter", "execution": {"type": "file", "path": "./" + LETTER}},
    {
        "name": "echo",
        "execution": {"type": "cli", "command": "echo", "args": ["{{props.word}}"]},
    },
]


def letter_text(size: int = 10_000) -> str:
    """The file tool's template: ``BLOCK`` and filler, repeated to ``size`` characters."""
    letter = ""
    while len(letter) < size:
        letter += BLOCK + "lorem ipsum dolor sit amet " * 6 + "\n"
    return letter


def call_schema(http_base: str) -> Schema:
    """One tool of each kind; ``fetch`` GETs ``http_base``/text; ``add`` is the toy MCP server's."""
    tools = copy.deepcopy(_CALL_TOOLS)
    tools.append(
        {"name": "fetch", "execution": {"type": "http", "url": http_base + "/text"}}
    )
    return {
        "schemaVersion": "1.0",
        "tools": tools,
        "mcp_servers": {
            "toy": {
                "command": sys.executable,
                "args": [str(TOY_SERVER), "stdio"],
                "config": {"filter": "only", "filterValue": "add"},
            }
        },
    }


_VERBS = ("get", "list", "create", "summarize", "find", "notify", "translate", "sync")
_NOUNS = (
    "user",
    "invoice",
    "weather",
    "ticket",
    "calendarEvent",
    "repo",
    "doc",
    "order",
)
_WORDS = (
    "the a an of for with from to by each every given current latest open closed "
    "account customer project document message report status summary record entry "
    "returns fetches updates lists creates searches matching optional required"
).split()


def _phrase(rng: random.Random, words: int) -> str:
    return " ".join(rng.choice(_WORDS) for _ in range(words)).capitalize() + "."


def _scale_tool(index: int) -> dict[str, Any]:
    """Tool ``index``: names and descriptions of varying length, as real schemas have
    (so that the build formats them as it would a user's tools), drawn from a
    generator seeded by the index; tool 0 is ``tool_00000``."""
    rng = random.Random(index)
    verb, noun = rng.choice(_VERBS), rng.choice(_NOUNS)
    name = (
        f"tool_{index:05d}"
        if index == 0
        else f"{verb}{noun[0].upper()}{noun[1:]}{index}"
    )
    kind = index % 25
    tool: dict[str, Any] = {
        "name": name,
        "description": _phrase(rng, rng.randint(4, 24)),
        "tags": [f"group{index % 10}", "bench"],
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {
                    "type": "string",
                    "description": _phrase(rng, rng.randint(2, 9)),
                },
                "count": {"type": "integer", "minimum": 0, "default": 1},
                "mode": {"type": "string", "enum": ["short", "long"]},
            },
            "required": ["name"],
        },
    }
    if kind == 23:
        tool["execution"] = {
            "type": "cli",
            "command": "echo",
            "args": ["{{props.name}}", f"#{index}"],
        }
    elif kind == 24:
        tool["execution"] = {
            "type": "http",
            "method": "GET",
            "url": "http://127.0.0.1:9/greet/{{props.name}}",
            "params": {"n": f"{index}"},
        }
    elif kind == 22:
        tool["execution"] = {"type": "file", "path": f"./{LETTER}"}
    else:
        tool["execution"] = {
            "type": "text",
            "text": (
                f"Hello {{{{props.name}}}} from tool {index}"
                '@if(props.mode == "long"), with {{props.count}} regards@endif!'
            ),
        }
    return tool


def scale_schema(tools: int) -> Schema:
    """``tools`` tools, ``tool_00000`` (a text tool) first; the same every time."""
    return {
        "schemaVersion": "1.0",
        "metadata": {"name": f"bench{tools}", "description": "benchmark schema"},
        "tools": [_scale_tool(i) for i in range(tools)],
    }


def template_schema(placeholders: int) -> Schema:
    """One text tool whose template holds ``placeholders`` placeholders, each
    followed by a word: how build time grows with the size of one template."""
    text = " ".join(f"{{{{props.name}}}} w{i}" for i in range(placeholders))
    return {
        "schemaVersion": "1.0",
        "metadata": {"name": "template", "description": "one large template"},
        "tools": [
            {
                "name": "large",
                "description": f"A template of {placeholders} placeholders.",
                "inputSchema": {
                    "type": "object",
                    "properties": {"name": {"type": "string"}},
                    "required": ["name"],
                },
                "execution": {"type": "text", "text": text},
            }
        ],
    }


def touch_one_tool(schema: Schema, change: int) -> Schema:
    """The same schema with the description of its middle tool changed (for the
    rebuild row); ``change`` numbers the edit, so successive edits all differ."""
    changed = copy.deepcopy(schema)
    tool = changed["tools"][len(changed["tools"]) // 2]
    tool["description"] = tool["description"].split(" (edit ")[0] + f" (edit {change})"
    return changed


def write(schema: Schema, path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(schema, indent=1), "utf-8")
    if not (path.parent / LETTER).exists():
        (path.parent / LETTER).write_text(letter_text(), "utf-8")
    return path


SCALE_PROPS: dict[str, Any] = {"name": "Ann", "mode": "long", "count": 2}
"""What the cold-start row passes to ``tool_00000``."""


SERVED_TOOLS = ("greet", "echo")
"""The tools of the per-call schema that :func:`serve_schema` keeps (and ``fetch``)."""


def serve_schema(http_base: str) -> Schema:
    """The three tools the serving rows call: ``greet`` (text), ``echo`` (cli) and
    ``fetch`` (http, GET of ``http_base``/text); no MCP server, which mcix would start.
    """
    schema = call_schema(http_base)
    schema["tools"] = [
        tool
        for tool in schema["tools"]
        if tool["name"] in SERVED_TOOLS or tool["name"] == "fetch"
    ]
    del schema["mcp_servers"]
    return schema
