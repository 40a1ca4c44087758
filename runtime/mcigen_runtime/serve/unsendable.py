"""A message the stdio server cannot write: one that holds text that is not
Unicode (a lone surrogate, such as the undecodable bytes of an environment
variable a text tool shows), which no UTF-8 line can carry. The SDK's stdio
transport fails on it, and its server with it; here the request is answered
instead with a JSON-RPC error, ``-32603`` (what the SDK's HTTP transport answers
such a request with), saying why, and the server goes on. A notification or a
request of the server's that cannot be written is not sent. Each is logged, as an
error, without a traceback.

Both stdio paths answer so: the reader's own answers to calls (``stdio_calls``)
and every message of the SDK's (:class:`Sendable`, see ``stdio.AnsweredOnce``).
"""

from __future__ import annotations

import logging
from typing import Any

from mcp_types import INTERNAL_ERROR, JSONRPCError, JSONRPCResponse, RequestId
from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, to_json

logger = logging.getLogger(__name__)

CANNOT_SEND = (
    "Internal error: the answer holds text that is not Unicode (a lone surrogate) "
    "and cannot be sent"
)


def in_place_of(request_id: RequestId | None, error: Exception) -> str:
    """The answer sent in place of the answer to ``request_id``, which could not
    be written for ``error``: ``-32603``, with a null id when even the id is no
    Unicode text."""
    logger.error(
        "the answer to request %s cannot be sent: %s; answered %d instead",
        request_id,
        error,
        INTERNAL_ERROR,
    )
    answer: dict[str, Any] = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": INTERNAL_ERROR, "message": CANNOT_SEND},
    }
    try:
        return to_json(answer).decode()
    except PydanticSerializationError:
        answer["id"] = None
        return to_json(answer).decode()


class Sendable:
    """A message of the SDK's, as its stdio transport writes it: one that cannot
    be written (see the module docs) is written as :func:`in_place_of`'s answer,
    or as nothing (an empty line, which ``stdio.Answers`` does not send)."""

    __slots__ = ("_message",)

    def __init__(self, message: BaseModel) -> None:
        self._message = message

    def model_dump_json(self, *, by_alias: bool, exclude_unset: bool) -> str:
        """As the SDK's stdio transport calls it (its options named: a call with
        ``**options`` costs twice what this wrapper adds)."""
        message = self._message
        try:
            return message.model_dump_json(
                by_alias=by_alias, exclude_unset=exclude_unset
            )
        except PydanticSerializationError as error:
            if isinstance(message, JSONRPCResponse | JSONRPCError):
                return in_place_of(message.id, error)
            logger.error(
                "%s cannot be sent: %s; not sent",
                getattr(message, "method", "a message"),
                error,
            )
            return ""
