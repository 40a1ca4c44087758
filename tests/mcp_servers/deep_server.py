"""A hostile MCP server over stdio that answers tool calls with JSON nested very
deep, as a third-party server may: it speaks JSON-RPC by hand, so nothing of the
SDK's checks stands between what it writes and the client.

    python deep_server.py

Its tools take ``depth`` and answer a result nested that deep in one place each:
``deep_structured`` in ``structuredContent``, ``deep_meta`` in ``_meta``,
``deep_content`` in a content item of a kind no client knows, ``deep_text`` as the
text of a text item (a string: harmless to any client). ``shallow`` answers
``ok``, to show the session still serves after a deep answer. Each answer to a call
comes after a stray line of log on stdout, as careless servers write one (a client
skips it).
"""

from __future__ import annotations

import json
import sys
from typing import Any

_DEPTH = {
    "type": "object",
    "properties": {"depth": {"type": "integer"}},
    "required": ["depth"],
}
TOOLS = [
    {"name": name, "description": f"{name} nested depth deep", "inputSchema": _DEPTH}
    for name in ("deep_structured", "deep_meta", "deep_content", "deep_text")
] + [{"name": "shallow", "inputSchema": {"type": "object"}}]


def nested(depth: int) -> str:
    """JSON text of lists nested ``depth`` deep around a 1 (no recursion here)."""
    return "[" * depth + "1" + "]" * depth


def _text(value: str) -> str:
    return json.dumps({"type": "text", "text": value})


def call(name: str, depth: int) -> str:
    """The JSON text of the ``result`` of a call, built as text around the deep part."""
    deep = nested(depth)
    if name == "deep_structured":
        return f'{{"content": [{_text("deep")}], "structuredContent": {{"v": {deep}}}}}'
    if name == "deep_meta":
        return f'{{"content": [{_text("deep")}], "_meta": {{"v": {deep}}}}}'
    if name == "deep_content":
        return f'{{"content": [{{"type": "strange", "v": {deep}}}]}}'
    if name == "deep_text":
        return f'{{"content": [{_text(deep)}]}}'
    return f'{{"content": [{_text("ok")}]}}'


def answer(message: dict[str, Any]) -> str | None:
    method, ident = message.get("method"), message.get("id")
    if ident is None:
        return None  # a notification
    if method == "initialize":
        result = json.dumps(
            {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "deep", "version": "1"},
            }
        )
    elif method == "tools/list":
        result = json.dumps({"tools": TOOLS})
    elif method == "tools/call":
        params = message["params"]
        depth = int((params.get("arguments") or {}).get("depth", 1))
        result = call(params["name"], depth)
    else:
        result = "{}"
    return f'{{"jsonrpc": "2.0", "id": {json.dumps(ident)}, "result": {result}}}'


def main() -> None:
    for line in sys.stdin:
        message = json.loads(line)
        reply = answer(message)
        if message.get("method") == "tools/call":
            sys.stdout.write("calling a tool\n")
        if reply is not None:
            sys.stdout.write(reply + "\n")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
