"""The messages a stdio client sends, as the server reads them: ``initialize`` params
read leniently (see ``initialize_params``), and a line that is not one JSON-RPC
message answered (``-32700`` for a line that is not JSON, ``-32600`` for a batch or
another malformed message, or a method with an id no request may have, such as
``"id": null``; the answer's id is null, since no id can be read from it) where the
SDK would drop it silently, or take it for a notification, and leave the client
waiting.

A line with a bad id is told from a notification before the SDK reads it
(:func:`client_lines`). When the server answered ``initialize`` before the SDK
was loaded (``stdio_start``), :class:`AnsweredOnce` keeps the SDK from answering
it again. A message of the SDK's that cannot be written (text that is not Unicode)
is answered as ``unsendable`` says. The end of stdin reaches the SDK only once it
has answered every request it read (``stdio_eof``); an answer that cannot be
written, or a line that cannot be read, ends the connection (``wire_failed``).
"""

from __future__ import annotations

import json
import logging
import os
import re
import select
import stat
from types import TracebackType
from typing import IO, TYPE_CHECKING, Any, Self, cast

import anyio
from mcp.shared.message import ServerMessageMetadata, SessionMessage
from mcp_types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCRequest,
    JSONRPCResponse,
    RequestId,
)
from pydantic import ValidationError

from .initialize import InitializeParamsError, lenient_initialize
from .message_id import BAD_ID, has_bad_id
from .unsendable import Sendable

if TYPE_CHECKING:
    from mcp.shared._stream_protocols import ReadStream, WriteStream

    from ..edge.logs import HeldCallLines
    from .stdio_calls import InlineCalls
    from .stdio_eof import Unanswered
    from .stdio_lines import WireLines
    from .stdio_start import Handoff
    from .wire_failed import ClosedWire

logger = logging.getLogger(__name__)


class _ClosedOnExit:
    """An SDK stream as an async context manager: closed as the block ends."""

    async def aclose(self) -> None:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> bool | None:
        await self.aclose()
        return None


class LenientReadStream(_ClosedOnExit):
    """The read side of a stdio connection (a ``ReadStream``), answering what it
    cannot pass on through ``replies``; its end is held while ``unanswered``
    counts a request it passed on (``stdio_eof``). A call the SDK settles
    unanswered (the client cancelled it) has its line, if ``held`` holds it,
    logged then."""

    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        replies: WriteStream[SessionMessage],
        unanswered: Unanswered,
        held: HeldCallLines,
    ) -> None:
        self._inner = inner
        self._replies = replies
        self._unanswered = unanswered
        self._held = held

    @property
    def last_context(self) -> Any:
        """The sender's context of the last message (the SDK reads it if there)."""
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item = await self._passed_on()
        except anyio.EndOfStream:
            return await self._unanswered.at_end()
        if isinstance(item, Exception):
            return item
        message = item.message
        self._unanswered.read(message)
        if (
            isinstance(message, JSONRPCRequest)
            and message.method == "tools/call"
            and item.metadata is None
        ):
            item.metadata = _settled_unanswered(self._held, message.id)
        return item

    async def _passed_on(self) -> SessionMessage | Exception:
        while True:
            item = await self._inner.receive()
            if isinstance(item, ValidationError):
                await self._reply(None, *_unreadable(item))
                continue
            if isinstance(item, Exception):
                return item
            message = item.message
            if not (
                isinstance(message, JSONRPCRequest) and message.method == "initialize"
            ):
                return item
            try:
                params = lenient_initialize(message.params)
            except InitializeParamsError as error:
                await self._reply(message.id, INVALID_PARAMS, str(error))
                continue
            return SessionMessage(
                message.model_copy(update={"params": params}), metadata=item.metadata
            )

    async def _reply(self, request_id: RequestId | None, code: int, text: str) -> None:
        error = ErrorData(code=code, message=text)
        await self._replies.send(
            SessionMessage(JSONRPCError(jsonrpc="2.0", id=request_id, error=error))
        )

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> LenientReadStream:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None


def _settled_unanswered(
    held: HeldCallLines, request_id: RequestId
) -> ServerMessageMetadata:
    """What the SDK is handed with the call ``request_id``: were it cancelled once
    its tool had ended (the line held: a task-augmented call waiting out its
    window, say), the SDK, writing no answer, has the line logged at once, not
    as the connection ends."""

    async def cancelled() -> None:
        held.cancelled(request_id)

    return ServerMessageMetadata(on_request_unanswered=cancelled)


def _unreadable(error: ValidationError) -> tuple[int, str]:
    """The JSON-RPC error code and message for a line the SDK could not read."""
    problems = error.errors()
    if any(problem["type"] == "json_invalid" for problem in problems):
        return PARSE_ERROR, "Parse error"
    if any(_BAD_ID_KEY in _as_dict(problem.get("input")) for problem in problems):
        return INVALID_REQUEST, BAD_ID
    return (
        INVALID_REQUEST,
        "Invalid Request: not one JSON-RPC request, notification or response",
    )


_BAD_ID_KEY = "mcigen: a method with a bad id"
_BAD_ID_LINE = json.dumps({_BAD_ID_KEY: True}) + "\n"
"""What the SDK reads in place of a line with a bad id: no JSON-RPC message, so
it hands :class:`LenientReadStream` its ``ValidationError``, which names this key."""

_SUSPECT = re.compile(r'"id"\s*:\s*(?:[^"\s\d-]|-?\d+[.eE])')
"""An ``"id"`` key whose value is not a string or an integer: only lines holding
one are parsed here (the SDK parses every line anyway)."""


def _as_dict(value: object) -> dict[str, object]:
    return value if isinstance(value, dict) else {}


def _checked(line: str) -> str:
    """``line``, or :data:`_BAD_ID_LINE` for a line with a bad id (see
    ``message_id``)."""
    if not _SUSPECT.search(line):
        return line
    try:
        message = json.loads(line)
    except (ValueError, RecursionError):
        return line
    return _BAD_ID_LINE if isinstance(message, dict) and has_bad_id(message) else line


class _LoopLines:
    """The wire's lines, read from the event loop, each :func:`_checked` (the
    SDK's transport iterates them); a call ``inline`` answers is answered here,
    through ``out``, and not passed on. A line that cannot be read ends the
    connection (``closed``, see ``wire_failed``)."""

    def __init__(
        self,
        wire: WireLines,
        inline: InlineCalls | None,
        out: Answers,
        closed: ClosedWire,
    ) -> None:
        self._wire = wire
        self._inline = inline
        self._out = out
        self._closed = closed

    def __aiter__(self) -> _LoopLines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self._wire.areadline()
            except OSError as error:  # the client reset the wire, say
                await self._closed.failed(error, reading=True)
                continue
            if not line:
                raise StopAsyncIteration
            answered = None if self._inline is None else self._inline.answer(line)
            if answered is None:
                return _checked(line)
            request_id, answer = answered
            await self._out.answer(request_id, answer + "\n")


def client_lines(
    first: list[str],
    wire: WireLines,
    inline: InlineCalls | None,
    out: Answers,
    closed: ClosedWire,
) -> anyio.AsyncFile[str]:
    """The lines ``first``, then those of ``wire``, as the SDK's stdio transport
    reads them, checked, less those ``inline`` answers (see ``stdio_calls``)."""
    wire.unread(first)
    return cast("anyio.AsyncFile[str]", _LoopLines(wire, inline, out, closed))


class Answers:
    """Where the SDK's stdio transport writes its answers (an ``AsyncFile``), and
    the answers of ``stdio_calls``, one at a time. An answer the wire takes at
    once (a pipe with room for it, the answer no longer than ``PIPE_BUF``, which a
    pipe takes whole) is written from the event loop; any other in a worker
    thread, written and flushed in one call, where the SDK's own file takes two
    threads, each a thread to wake. Each answer to a call, once written or not,
    has the call's line logged (``held``). An answer that cannot be written ends
    the connection (``closed``, see ``wire_failed``)."""

    def __init__(self, out: IO[bytes], held: HeldCallLines, closed: ClosedWire) -> None:
        self._out = out
        self.held = held
        self._closed = closed
        self._fd: int | None = None
        self._turn = anyio.Lock()
        self.answering: Any = None
        """The request the SDK's next write answers, if it holds a call's line
        (set by :class:`_CallAnswer` as the SDK's writer turns the answer into
        the text it writes next)."""
        try:
            fd = out.fileno()
            if stat.S_ISFIFO(os.fstat(fd).st_mode):
                self._fd = fd
        except (OSError, ValueError):  # no descriptor: always the thread
            pass

    async def write(self, text: str) -> None:
        request_id, self.answering = self.answering, None
        await self.answer(request_id, text)

    async def answer(self, request_id: Any, text: str) -> None:
        """Write ``text``, the answer to ``request_id`` (None: not a call's)."""
        if text == "\n":  # a message that could not be written (``Sendable``)
            return
        data = text.encode()
        try:
            async with self._turn:
                if not self._takes_at_once(data):
                    await anyio.to_thread.run_sync(self._send, data)
        except OSError as error:  # the client's end is closed (``wire_failed``)
            self.held.answered(request_id, written=False)
            await self._closed.failed(error)
        else:
            self.held.answered(request_id, written=True)

    async def flush(self) -> None:
        """Nothing: :meth:`write` flushed."""

    def _takes_at_once(self, data: bytes) -> bool:
        """Whether ``data`` was written now, without waiting for the reader. Only
        this writer writes to the wire, so the room polled is there to write."""
        if self._fd is None or len(data) > select.PIPE_BUF:
            return False
        poller = select.poll()
        poller.register(self._fd, select.POLLOUT)
        if not poller.poll(0):
            return False
        written = os.write(self._fd, data)
        if written < len(data):  # never, for a pipe: what is left goes on the wire
            self._send(data[written:])
        return True

    def _send(self, data: bytes) -> None:
        self._out.write(data)
        self._out.flush()


def as_file(answers: Answers) -> anyio.AsyncFile[str]:
    """``answers`` as the SDK's stdio transport writes to it."""
    return cast("anyio.AsyncFile[str]", answers)


class AnsweredOnce(_ClosedOnExit):
    """The write side of a stdio connection (a ``WriteStream``) whose
    ``initialize`` was answered before the SDK was loaded (see ``stdio_start``):
    the SDK's own answer to it, when it reads it again, is not sent. One that is
    not the answer given is logged, as the bug it is. Every message sent is
    :class:`~.unsendable.Sendable`, for one that cannot be written, and told to
    ``unanswered`` (``stdio_eof``)."""

    def __init__(
        self,
        inner: WriteStream[SessionMessage],
        handoff: Handoff,
        unanswered: Unanswered,
        answers: Answers,
    ) -> None:
        self._inner = inner
        self._handoff = handoff
        self._pending = handoff.answered is not None
        self._unanswered = unanswered
        self._answers = answers

    async def send(self, item: SessionMessage, /) -> None:
        message = item.message
        self._unanswered.sent(message)
        if (
            self._pending
            and isinstance(message, JSONRPCResponse | JSONRPCError)
            and message.id == self._handoff.answered_id
        ):
            self._pending = False
            said = message.model_dump_json(by_alias=True, exclude_unset=True)
            if said != self._handoff.answered:
                logger.warning(
                    "initialize was answered before the MCP SDK was loaded with "
                    "%s; the SDK answers %s",
                    self._handoff.answered,
                    said,
                )
            return
        sendable = Sendable(message)
        written: Sendable | _CallAnswer = sendable
        if isinstance(message, JSONRPCResponse | JSONRPCError) and (
            self._answers.held.holds(message.id)
        ):
            written = _CallAnswer(sendable, message.id, self._answers)
        item.message = cast(Any, written)  # the item is the writer's now
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()


class _CallAnswer:
    """The SDK's answer to a call whose line is held: as the SDK's stdio writer
    turns it into text, it tells ``answers`` which request its next write answers
    (the writer writes that text at once, nothing awaited between)."""

    __slots__ = ("_sendable", "_request_id", "_answers")

    def __init__(self, sendable: Sendable, request_id: Any, answers: Answers) -> None:
        self._sendable = sendable
        self._request_id = request_id
        self._answers = answers

    def model_dump_json(self, *, by_alias: bool, exclude_unset: bool) -> str:
        text = self._sendable.model_dump_json(
            by_alias=by_alias, exclude_unset=exclude_unset
        )
        self._answers.answering = self._request_id
        return text
