"""A ``tools/call`` of a tool that runs inline (a text tool: no I/O, microseconds)
answered as the SDK's server answers it, without the SDK's machinery around a
request: its transport's queues, task groups and session, the request's check by
the protocol's models and the result's dump by them (most of the server's CPU for
such a call). Both transports answer such calls so: stdio as it reads a line
(``stdio_calls``), HTTP at its edge (``http_calls``); each adds what its transport
requires of the connection and the request before :meth:`InlineAnswers.answer`
is asked.

A request is answered here only when the SDK would answer it the same, byte for
byte (``tests/test_stdio_calls.py`` and ``tests/test_http_calls.py`` compare the
two): a plain JSON-RPC request (``wire.MESSAGE_KEYS``, an id ``wire.plain_id``
allows) of ``tools/call`` with ``name`` and ``arguments`` alone (no ``_meta``, so
no progress token; no task), arguments that ``json`` and the SDK read alike
(``wire.writes_alike``), of a call that runs inline (``ToolSurface.runs_inline``:
a text tool, or the broker's meta-tools but a ``meta_call`` of a tool that does
I/O; such a call touches no file and starts no command, so it needs no sandbox).

The call is logged as the SDK's handler logs it. A result other than text
content (none of the generated text tools gives one; a meta-tool's image or
audio) is dumped by the SDK's own models; an exception a meta-tool raises is the
SDK's error answer to it (code 0, its text). A result that holds text that is no
Unicode (a lone surrogate: the undecodable bytes of an environment variable a
template shows, say), which the SDK's transports fail to write, raises
:class:`Unwritable` once the call is logged, for the transport to answer as it
answers the SDK's such answer (HTTP: ``http_calls``; stdio: ``unsendable``). Such
a call runs to its end without
yielding to the event loop, so a cancellation of it comes too late, as it would
for the SDK's handler of the same call.
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from mcp_types import ErrorData, JSONRPCError
from mcp_types.methods import serialize_server_result
from pydantic_core import PydanticSerializationError, to_json

from ..edge.logs import logged_call
from .wire import response, sdk_json, writes_alike

if TYPE_CHECKING:
    from pydantic import BaseModel
    from starlette.types import Scope

    from ..edge.settings import ServeOptions
    from ..results import TextContent, ToolResult
    from .sandbox import SandboxPolicy

logger = logging.getLogger(__name__)

_CALL_KEYS = frozenset({"name", "arguments"})


class Unwritable(Exception):
    """A call's result holds text that is no Unicode: it cannot be written."""


@dataclass(slots=True)
class Inline:
    """The answer to a call made inline, as ``tools/call`` sends it. (Not frozen:
    a frozen dataclass sets each field through ``object.__setattr__``, a third
    of what answering a text tool's call added to the call.)"""

    texts: list[str] | None
    """The text of each content item; None when not all are plain text."""
    is_error: bool
    structured: dict[str, Any] | None
    model: Callable[[], BaseModel]
    """The ``CallToolResult`` the SDK's handler returns for the call."""
    written: str | None = None
    """The result's JSON, made with the answer (the same at every version);
    None: :meth:`json` makes it."""

    @classmethod
    def of(
        cls, result: ToolResult, as_mcp: Callable[[ToolResult], BaseModel]
    ) -> Inline:
        """A tool's ``result``; ``as_mcp`` gives it as the SDK's handler does."""
        text_content = _text_content()
        texts: list[str] | None = None
        if result.metadata is None:
            texts = []
            for item in result.content:
                if (
                    type(item) is not text_content
                    or item.annotations is not None
                    or item.meta is not None
                ):
                    texts = None
                    break
                texts.append(item.text)
        return cls(texts, bool(result.isError), None, lambda: as_mcp(result))

    def json(self, version: str) -> str:
        """The result as the SDK writes it at ``version``: made here for text
        content (written by pydantic-core, as the SDK's models write it), else
        by the SDK's own steps. Raises :class:`Unwritable`."""
        if self.written is not None:
            return self.written
        if self.texts is not None:
            result: dict[str, Any] = {
                "content": [{"text": text, "type": "text"} for text in self.texts],
                "isError": self.is_error,
            }
            if self.structured is not None:
                result["structuredContent"] = self.structured
            try:
                return to_json(result).decode()
            except PydanticSerializationError:  # no Unicode text: the SDK's steps
                pass
        dumped = self.model().model_dump(by_alias=True, mode="json", exclude_none=True)
        shaped = serialize_server_result("tools/call", version, dumped)
        try:
            return to_json(shaped).decode()
        except PydanticSerializationError as error:
            raise Unwritable(str(error)) from None


@functools.cache
def _text_content() -> type[TextContent]:
    """``results.TextContent``, imported once (the module is loaded with the
    first tool, not with the server)."""
    from ..results import TextContent

    return TextContent


class Surface(Protocol):
    """What of the server's ``ToolSurface`` the calls answered here use."""

    options: ServeOptions
    sandbox: SandboxPolicy

    def runs_inline(self, name: str, arguments: Mapping[str, Any]) -> bool: ...

    def call_inline(self, name: str, arguments: Mapping[str, Any]) -> Inline: ...


class InlineAnswers:
    """The calls of one server's tools answered without the SDK's machinery."""

    def __init__(self, surface: Surface) -> None:
        self.surface = surface

    def answer(
        self, message: Mapping[str, Any], version: str, scope: Scope | None
    ) -> str | None:
        """The answer to ``message``, a plain JSON-RPC request of ``tools/call``
        (see the module docs), as the SDK writes it at the protocol ``version``,
        the call made and logged (into the line of the HTTP request ``scope``;
        None: over stdio); None when the SDK answers it. Raises
        :class:`Unwritable`."""
        params = message.get("params")
        if not isinstance(params, dict) or not _CALL_KEYS.issuperset(params):
            return None
        name, arguments = params.get("name"), params.get("arguments")
        if not isinstance(name, str) or not (
            arguments is None
            or (isinstance(arguments, dict) and writes_alike(arguments))
        ):
            return None
        given: Mapping[str, Any] = arguments or {}
        surface = self.surface
        if not surface.runs_inline(name, given):
            return None
        request_id = message["id"]
        with logged_call(
            name, scope, given, surface.options.log_arguments, request_id
        ) as outcome:
            try:
                inline = surface.call_inline(name, given)
            except Exception as error:  # as the SDK's dispatcher answers it
                logger.exception("handler for 'tools/call' raised")
                return _error(request_id, str(error))
            outcome.answered(inline.is_error)
        return response(request_id, inline.json(version))


def _error(request_id: int | str, message: str) -> str:
    """The SDK's answer to a request whose handler raised: code 0, its text."""
    error = sdk_json({"code": 0, "message": message})
    if error is None:
        answer = JSONRPCError(
            jsonrpc="2.0", id=request_id, error=ErrorData(code=0, message=message)
        )
        return answer.model_dump_json(by_alias=True, exclude_unset=True)
    return f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"error":{error}}}'
