"""``serve`` over stdio answering before the MCP SDK is loaded.

Loading the SDK takes a second or more of CPU; a client's first requests need
none of it. So while it loads (in a thread, see ``server``), :func:`answer_early`
answers from what the package knows: ``initialize`` (the first line), then
``ping``, ``tools/list`` and ``notifications/initialized``, each exactly as the
SDK's server would (``wire``). The first line it cannot answer so (any other
request or notification, a line that is not plain JSON-RPC, params it would have
to check the way the SDK's models do) hands the connection to the SDK: the
:class:`Handoff` holds the ``initialize`` answered and the notifications kept
since, and that line; the SDK's server reads them first, then the rest of stdin,
so it is where it would have been had it read every line itself. Its answer to
the ``initialize`` it reads again is not sent a second time (``stdio``).

The client's lines are read from a duplicate of stdin while fd 0 reads
``/dev/null``, and the answers written to a duplicate of stdout while fd 1 writes
to stderr (:func:`claimed_stdio`), so that the commands the tools start read
nothing of the wire and write nothing to it, as the SDK's own claim does.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

from ..edge.json_text import unicode_text
from .initialize import InitializeParamsError, filled_initialize
from .stdio_lines import WireLines
from .wire import (
    MESSAGE_KEYS,
    Listing,
    initialize_result,
    plain_id,
    response,
    sdk_json,
)

if TYPE_CHECKING:
    from .wire_failed import WireFailed

KEPT_NOTIFICATIONS = 16
"""The most ``notifications/initialized`` kept for the SDK before it is handed
the connection anyway."""

_CAPABILITY_FIELDS = {
    # What the SDK's models of a client's capabilities check (others are ignored).
    "experimental": None,  # an object of objects
    "extensions": None,
    "sampling": ("context", "tools"),  # an object of optional objects
    "elicitation": ("form", "url"),
    "roots": (),  # an object with an optional boolean listChanged
}
_CLIENT_TEXTS = ("name", "version", "title", "description", "websiteUrl")


@dataclass(frozen=True)
class EarlyAnswers:
    """What the server answers before the SDK is loaded."""

    server_info: dict[str, Any]
    list_changed: bool
    """Whether the server says when its listing changes (``listChanged``)."""
    tasks: bool
    """Whether it serves MCP Tasks."""
    listing: Listing
    """``tools/list`` before any tool is called."""


@dataclass
class Handoff:
    """What the SDK's server is handed: the lines to read first, and the
    ``initialize`` already answered (its id and answer), if one was."""

    lines: list[str] = field(default_factory=list)
    answered_id: int | str | None = None
    answered: str | None = None
    """The ``initialize`` answer sent, as the SDK writes it."""
    ended: bool = False
    """Whether stdin ended first (there is nothing to hand over)."""
    failed: WireFailed | None = None
    """Why a line could not be read or an answer written (``wire_failed``:
    nothing to hand over either)."""

    def failing(self, error: OSError, reading: bool) -> Handoff:
        """This handoff, once the wire failed with ``error``."""
        from .wire_failed import WireFailed  # here: only a failure needs it

        self.failed = WireFailed(error, reading)
        return self


def answer_early(early: EarlyAnswers, wire: WireLines, out: IO[bytes]) -> Handoff:
    """Answer what :class:`EarlyAnswers` can from ``wire``, each answer written to
    ``out``, until a line only the SDK can answer, the end of ``wire``, or a
    failure of either."""
    handoff = Handoff()
    while True:
        try:
            line = wire.readline()
        except OSError as error:
            return handoff.failing(error, reading=True)
        if not line:
            handoff.ended = True
            return handoff
        answer = _answer(early, handoff, line)
        if answer is None:
            handoff.lines.append(line)
            return handoff
        if answer:
            try:
                out.write(answer.encode() + b"\n")
                out.flush()
            except OSError as error:
                return handoff.failing(error, reading=False)


def _answer(early: EarlyAnswers, handoff: Handoff, line: str) -> str | None:
    """The answer to ``line`` ("" for a notification kept for the SDK); None when
    only the SDK can answer it."""
    message = plain_message(line)
    if message is None:
        return None
    method, params = message["method"], message.get("params")
    if "id" not in message:
        if (
            method != "notifications/initialized"
            or params not in (None, {})
            or handoff.answered is None
            or len(handoff.lines) > KEPT_NOTIFICATIONS
        ):
            return None
        handoff.lines.append(line)
        return ""
    request_id = message["id"]
    if handoff.answered is None:
        if method != "initialize":
            return None
        result = _initialize(early, params)
        if result is None:
            return None
        handoff.answered_id = request_id
        handoff.answered = response(request_id, result)
        handoff.lines.append(line)
        return handoff.answered
    if method == "ping" and params in (None, {}):
        return response(request_id, "{}")
    if method == "tools/list":
        page = early.listing.json_for(params)
        return None if page is None else response(request_id, page)
    return None


def _initialize(early: EarlyAnswers, params: object) -> str | None:
    """The ``initialize`` result's JSON, for params the SDK's models would take
    as they are; None for any others."""
    try:
        filled = filled_initialize(params)
    except InitializeParamsError:
        return None
    if set(filled) - {"protocolVersion", "capabilities", "clientInfo"}:
        return None
    version = filled["protocolVersion"]
    if not (
        isinstance(version, str)
        and unicode_text(version)
        and _plain_capabilities(filled["capabilities"])
        and _plain_client(filled["clientInfo"])
    ):
        return None
    result = initialize_result(
        version, early.server_info, early.list_changed, early.tasks
    )
    return sdk_json(result)


def _plain_capabilities(capabilities: object) -> bool:
    if not isinstance(capabilities, dict):
        return False
    for key, value in capabilities.items():
        if key not in _CAPABILITY_FIELDS:
            if key == "tasks":
                return False
            continue
        if value is None:
            continue
        if not isinstance(value, dict):
            return False
        fields = _CAPABILITY_FIELDS[key]
        if fields is None:
            if not all(isinstance(item, dict) for item in value.values()):
                return False
        elif key == "roots":
            if value.get("listChanged") is not None and not isinstance(
                value["listChanged"], bool
            ):
                return False
        elif not all(
            value.get(name) is None or isinstance(value[name], dict) for name in fields
        ):
            return False
    return True


def _plain_client(client: object) -> bool:
    if not isinstance(client, dict) or client.get("icons") is not None:
        return False
    texts = [client.get(key) for key in _CLIENT_TEXTS]
    return (
        isinstance(texts[0], str)
        and isinstance(texts[1], str)
        and all(
            text is None or (isinstance(text, str) and unicode_text(text))
            for text in texts
        )
    )


def plain_message(line: str) -> dict[str, Any] | None:
    """``line`` as a JSON-RPC request or notification the SDK reads exactly as
    ``json`` does (no duplicate key, no ``NaN``, a plain id); None otherwise."""
    try:
        message = json.loads(line, object_pairs_hook=_unique, parse_constant=_refused)
    except (ValueError, RecursionError):
        return None
    if (
        not isinstance(message, dict)
        or not MESSAGE_KEYS.issuperset(message)
        or message.get("jsonrpc") != "2.0"
        or not isinstance(message.get("method"), str)
    ):
        return None
    if "id" in message and not plain_id(message["id"]):
        return None
    return message


def _unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found = dict(pairs)
    if len(found) != len(pairs):
        raise ValueError("a key twice")
    return found


def _refused(constant: str) -> Any:
    raise ValueError(constant)


@contextmanager
def claimed_stdio() -> Iterator[tuple[WireLines | None, IO[bytes] | None]]:
    """The client's lines and where the answers go: duplicates of stdin and
    stdout, while fd 0 reads ``/dev/null`` and fd 1 writes to stderr (see the
    module docs; stray output of a command misses the wire), until the block
    ends; either None when its descriptor is not open (``wire_failed``). The
    lines are read from the duplicate (see ``stdio_lines``)."""
    with (
        _claimed(0, "rb", lambda: os.open(os.devnull, os.O_RDONLY)) as lines,
        _claimed(1, "wb", lambda: os.dup(2)) as out,
    ):
        yield None if lines is None else WireLines(lines.fileno()), out


@contextmanager
def _claimed(
    fd: int, mode: str, diversion: Callable[[], int]
) -> Iterator[IO[bytes] | None]:
    """A duplicate of ``fd``, opened in ``mode``, while ``fd`` is ``diversion()``
    (left as it is when there is none to open); None when ``fd`` is not open."""
    try:
        wire = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3)
    except OSError:
        yield None
        return
    try:
        other = diversion()
    except OSError:
        other = None
    if other is not None:
        os.dup2(other, fd)
        os.close(other)
    try:
        # never closed: a worker thread may still be reading it
        yield os.fdopen(wire, mode, closefd=False)
    finally:
        if other is not None:
            os.dup2(wire, fd)
