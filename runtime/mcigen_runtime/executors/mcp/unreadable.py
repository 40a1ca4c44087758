"""An MCP server's answer the client cannot read is an error answer, not a wait.

A line the session cannot parse would only be logged by the SDK: the request it
answered would never be answered, and the call would wait until its timeout. A
third-party server's answer nested deeper than pydantic's JSON parser goes (200
levels) is such a line, and so is one larger than the call's limit. The stdio
transport (:mod:`mcigen_runtime.executors.mcp.stdio`) turns such a line, when it names the request it
answers, into an error answering that request (as the SDK's Streamable HTTP
transport does for a body it cannot parse); a line that names none, such as a
stray log line on stdout, is passed on as it was.

Imported with the MCP SDK, once a session starts.
"""

from __future__ import annotations

import json
import re

from mcp.shared.message import SessionMessage
from mcp_types import INTERNAL_ERROR, PARSE_ERROR, ErrorData, JSONRPCError
from pydantic import ValidationError

_ID = re.compile(rb'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")')
_BODY = re.compile(rb'"(?:result|error)"\s*:')
LOOKED_AT = 4096
"""Bytes at each end of a line searched for its request id."""


def unreadable(line: bytes, error: ValidationError) -> SessionMessage | Exception:
    """A parse error answering the request ``line`` names, or ``error`` itself."""
    ident = request_id(line[:LOOKED_AT], line[-LOOKED_AT:])
    if ident is None:
        return error
    reason = "; ".join(problem["msg"] for problem in error.errors())
    message = f"the server's answer could not be read: {reason}"
    return error_answer(ident, PARSE_ERROR, message)


def too_large(ident: int | str, limit: int) -> SessionMessage:
    """The answer to request ``ident`` in place of one dropped for being larger
    than ``limit`` bytes (a tool call words it anew: its exchange says why)."""
    message = f"the server's answer is larger than {limit} bytes"
    return error_answer(ident, INTERNAL_ERROR, message)


def error_answer(ident: int | str, code: int, message: str) -> SessionMessage:
    error = ErrorData(code=code, message=message)
    return SessionMessage(JSONRPCError(jsonrpc="2.0", id=ident, error=error))


def request_id(head: bytes, tail: bytes) -> int | str | None:
    """The ``"id"`` of a JSON-RPC message from the first and last bytes of its line.

    The envelope's keys come before its ``result`` or ``error`` (as Python
    servers write them) or after it (as TypeScript servers do), so an id in the
    head counts only before the body starts, and in the tail the last one counts:
    an ``"id"`` inside the result is not taken for the envelope's.
    """
    body = _BODY.search(head)
    found = _ID.search(head, 0, body.start() if body else len(head))
    if found is None:
        found = next(reversed(list(_ID.finditer(tail))), None)
    if found is None:
        return None
    ident = json.loads(found[1])
    return ident if isinstance(ident, int | str) else None
