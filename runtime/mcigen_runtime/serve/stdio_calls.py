"""``tools/call`` of a tool that runs inline answered by the stdio server's reader
of the client's lines (see ``inline_calls``: the calls answered so, and how).

Over stdio a line is answered so only when also the connection is past its
``initialize`` in a handshake-era version, as a request the SDK served says
(:meth:`InlineCalls.observe`, a middleware; the first call after ``initialize``
goes through the SDK), the line is a plain JSON-RPC request as
``stdio_start.plain_message`` reads it (no key twice, no ``NaN``), and the server
would not ask the client for its roots for the call (the SDK's handler asks with
``roots/list`` at an MTDF server's first call). Such a call is over before the
next line is read. Calls of other tools, and every other line, go to the SDK in
order. A call whose answer cannot be written (``inline_calls.Unwritable``) is
answered as ``unsendable`` says, as the SDK's messages are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .inline_calls import InlineAnswers, Unwritable
from .stdio_start import plain_message
from .unsendable import in_place_of
from .wire import HANDSHAKE_VERSIONS

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.session import ServerSession

    from .inline_calls import Surface


class InlineCalls:
    """The calls the reader answers itself, for one stdio connection."""

    def __init__(self, surface: Surface) -> None:
        self._answers = InlineAnswers(surface)
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

    def answer(self, line: str) -> tuple[Any, str] | None:
        """The id of the request ``line`` and its answer, the call made; None
        when the SDK answers it."""
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
        request_id = message["id"]
        try:
            answer = self._answers.answer(message, session.protocol_version, None)
        except Unwritable as error:
            answer = in_place_of(request_id, error)
        return None if answer is None else (request_id, answer)
