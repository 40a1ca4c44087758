"""``tools/call`` of a tool that runs inline (a text tool: no I/O, microseconds)
answered by the stdio server's reader of the client's lines, as the SDK's server
answers it, without the SDK's machinery around a request: its transport's queues,
the dispatcher's task, the request's check by the protocol's models and the
result's dump by them (about two thirds of the server's CPU for such a call).

A line is answered here only when the SDK would answer it the same, byte for byte
(``tests/test_stdio_calls.py`` compares the two):

- the connection is past its ``initialize`` in a handshake-era version, as a
  request the SDK served says (:meth:`InlineCalls.observe`, a middleware; the
  first call after ``initialize`` goes through the SDK);
- the line is a plain JSON-RPC request (see ``stdio_start.plain_message``) of
  ``tools/call`` with ``name`` and ``arguments`` alone (no ``_meta``, so no
  progress token; no task), arguments that ``json`` and the SDK read alike
  (``wire.writes_alike``), naming a tool that runs inline
  (``ToolSurface.runs_inline``), in a sandbox no ``roots/list`` decides.

The call is logged as the SDK's handler logs it. A result other than text
content (none of the generated text tools gives one) is dumped by the SDK's own
models. Such a call is over before the next line is read, so a cancellation of it
comes too late, as it would for the SDK's handler of the same call. Calls of
other tools, and every other line, go to the SDK in order.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, Protocol

from ..edge.logs import client_of, logged_call
from ..path_policy import CALL_SANDBOX
from .stdio_start import plain_message, response
from .wire import HANDSHAKE_VERSIONS, sdk_json, writes_alike

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.session import ServerSession
    from pydantic import BaseModel

    from ..edge.settings import ServeOptions
    from ..manifest import ToolEntry
    from ..results import ToolResult
    from .sandbox import SandboxPolicy

_CALL_KEYS = frozenset({"name", "arguments"})


class Surface(Protocol):
    """What of the server's ``ToolSurface`` the calls answered here use."""

    options: ServeOptions
    sandbox: SandboxPolicy

    def runs_inline(self, name: str) -> ToolEntry | None: ...

    def call_inline(
        self, entry: ToolEntry, arguments: Mapping[str, Any]
    ) -> ToolResult: ...


class InlineCalls:
    """The calls the reader answers itself, for one stdio connection."""

    def __init__(
        self, surface: Surface, as_mcp: Callable[[ToolResult], BaseModel]
    ) -> None:
        """``as_mcp``: a result as the SDK's handler returns it (``mcp_result``)."""
        self._surface = surface
        self._as_mcp = as_mcp
        self._session: ServerSession | None = None
        policy = surface.sandbox
        self._asks_roots = policy.enabled and not policy.fixed and policy.asks_roots

    async def observe(
        self, ctx: ServerRequestContext[Any], call_next: CallNext
    ) -> HandlerResult:
        """A middleware: the connection's state, as a request the SDK serves
        sees it (read live at every line: the session reads the connection)."""
        if self._session is None:
            self._session = ctx.session
        return await call_next(ctx)

    def answer(self, line: str) -> str | None:
        """The answer to ``line``, the call made; None when the SDK answers it."""
        session = self._session
        if (
            session is None
            or '"tools/call"' not in line
            or self._asks_roots
            or session.client_params is None
            or session.protocol_version not in HANDSHAKE_VERSIONS
        ):
            return None
        message = plain_message(line)
        if message is None or "id" not in message or message["method"] != "tools/call":
            return None
        params = message.get("params")
        if not isinstance(params, dict) or not _CALL_KEYS.issuperset(params):
            return None
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (
            arguments is None
            or (isinstance(arguments, dict) and writes_alike(arguments))
        ):
            return None
        entry = self._surface.runs_inline(name)
        if entry is None:
            return None
        given: Mapping[str, Any] = arguments or {}
        options = self._surface.options
        with logged_call(
            name, client_of(None), given, options.log_arguments
        ) as outcome:
            token = CALL_SANDBOX.set(self._surface.sandbox.without_client())
            try:
                result = self._surface.call_inline(entry, given)
            finally:
                CALL_SANDBOX.reset(token)
            outcome.answered(bool(result.isError))
        version = session.protocol_version
        return response(message["id"], self._result_json(result, version))

    def _result_json(self, result: ToolResult, version: str) -> str:
        """The ``tools/call`` result as the SDK writes it at ``version``: made
        here for text content, else by the SDK's own steps."""
        from mcp_types.methods import serialize_server_result
        from pydantic_core import to_json

        written = _text_result_json(result)
        if written is not None:
            return written
        mcp = self._as_mcp(result)
        dumped = mcp.model_dump(by_alias=True, mode="json", exclude_none=True)
        return to_json(serialize_server_result("tools/call", version, dumped)).decode()


def _text_result_json(result: ToolResult) -> str | None:
    """The result's JSON as the SDK writes it, when it is text content alone."""
    from ..results import TextContent

    texts = [item for item in result.content if type(item) is TextContent]
    if (
        result.metadata is not None
        or len(texts) != len(result.content)
        or any(item.annotations is not None or item.meta is not None for item in texts)
    ):
        return None
    return sdk_json(
        {
            "content": [{"text": item.text, "type": "text"} for item in texts],
            "isError": bool(result.isError),
        }
    )
