"""An MCP server's answer the client cannot read is an error answer, not a wait.

The SDK's stdio transport hands a line it cannot parse to the session as an
exception, which the session only logs: the request the line answered is never
answered, and the call waits for ever. A third-party server's answer nested deeper
than pydantic's JSON parser goes (200 levels) is such a line. :class:`Answering`
wraps a transport's read stream and turns such a line, when it names the request it
answers, into a JSON-RPC parse error for that request (as the SDK's Streamable HTTP
transport does for a body it cannot parse); a line that names none, such as a stray
log line on stdout, is passed on as it was.

Imported with the MCP SDK, once a session starts.
"""

from __future__ import annotations

import json
import re
from typing import Any

from mcp.shared.message import SessionMessage
from mcp_types import PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
_LOOKED_AT = 4096
"""Characters at each end of a line searched for its request id."""


class Answering:
    """A transport's read stream, with unreadable answers made error answers."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

    async def receive(self) -> Any:
        return answerable(await self._stream.receive())

    def __aiter__(self) -> Answering:
        return self

    async def __anext__(self) -> Any:
        return answerable(await self._stream.__anext__())

    async def __aenter__(self) -> Answering:
        await self._stream.__aenter__()
        return self

    async def __aexit__(self, *exc_info: Any) -> Any:
        return await self._stream.__aexit__(*exc_info)

    async def aclose(self) -> None:
        await self._stream.aclose()


def answerable(item: Any) -> Any:
    """``item``, or, for a line that could not be parsed and names its request, a
    parse error answering that request."""
    if not isinstance(item, ValidationError):
        return item
    problems = item.errors()
    line = problems[0].get("input") if problems else None
    ident = _request_id(line) if isinstance(line, str) else None
    if ident is None:
        return item
    reason = "; ".join(problem["msg"] for problem in problems)
    error = ErrorData(
        code=PARSE_ERROR, message=f"the server's answer could not be read: {reason}"
    )
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident, error=error))


def _request_id(line: str) -> int | str | None:
    """The ``"id"`` near either end of a JSON-RPC line (the envelope's keys come
    before or after its result), or None."""
    found = _ID.search(line[:_LOOKED_AT])
    if found is None:
        found = next(reversed(list(_ID.finditer(line[-_LOOKED_AT:]))), None)
    if found is None:
        return None
    ident = json.loads(found[1])
    return ident if isinstance(ident, int | str) else None
