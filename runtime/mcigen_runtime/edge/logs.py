"""The log of a package's servers (``serve``, the ASGI app, ``broker``), on stderr,
at INFO: one line per HTTP request (:class:`RequestLog`), which also carries the
fields of the tool call the request made (:func:`logged_call`), and one line per
tool call over stdio; DEBUG adds each MCP message's method, each command a tool
starts, and how each upstream MCP session starts and ends.

Each line is a message and its fields: ``text`` (the default) writes ``LEVEL
logger: message key=value ...`` (a string with a space, a quote or ``=`` in JSON
quotes, other values as JSON), ``json`` writes one JSON object per line (``time``, ``level``,
``logger``, ``message`` and the fields). A call's line never holds its arguments'
values (they may be secrets) unless ``--log-arguments`` / ``MCIGEN_LOG_ARGUMENTS``
asks for them; it names the arguments given.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import math
import os
import re
import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from datetime import UTC, datetime
from importlib.util import resolve_name
from typing import TYPE_CHECKING, Any

from ..printable import printable, printable_json

if TYPE_CHECKING:
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
LOG_FORMATS = ("text", "json")
DEFAULT_LEVEL, DEFAULT_FORMAT = "INFO", "text"

FIELDS = "fields"
"""The attribute of a log record that holds its fields."""

request_logger = logging.getLogger(resolve_name("..requests", __package__))
call_logger = logging.getLogger(resolve_name("..calls", __package__))

_BARE = re.compile(r'[^\s"=]+')


def log_level(text: str) -> str:
    """``text`` as one of :data:`LOG_LEVELS` (any case); argparse's type."""
    level = text.upper()
    if level not in LOG_LEVELS:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not one of {', '.join(LOG_LEVELS)}"
        )
    return level


def add_log_arguments(parser: argparse.ArgumentParser) -> None:
    """``--log-level``, ``--log-format`` and ``--log-arguments``."""
    parser.add_argument(
        "--log-level",
        type=log_level,
        default=DEFAULT_LEVEL,
        metavar="LEVEL",
        help=f"one of {', '.join(LOG_LEVELS)} (default {DEFAULT_LEVEL}: a line per "
        "HTTP request, with its tool call, and per tool call over stdio; DEBUG adds "
        "MCP messages, the commands tools start and upstream MCP sessions)",
    )
    parser.add_argument(
        "--log-format",
        choices=LOG_FORMATS,
        default=DEFAULT_FORMAT,
        help="text lines (default) or one JSON object per line",
    )
    parser.add_argument(
        "--log-arguments",
        action="store_true",
        help="also log the values of each tool call's arguments (they may hold "
        "secrets; by default only their names are logged)",
    )


def log_settings_from_environment(env: Mapping[str, str]) -> tuple[str, str, bool]:
    """``MCIGEN_LOG_LEVEL``, ``MCIGEN_LOG_FORMAT`` and ``MCIGEN_LOG_ARGUMENTS``
    (1/true/yes/on), each defaulted when unset or empty; raises ``ValueError``
    naming the variable for a bad value."""
    level_text = env.get("MCIGEN_LOG_LEVEL", "").strip() or DEFAULT_LEVEL
    try:
        level = log_level(level_text)
    except argparse.ArgumentTypeError as error:
        raise ValueError(f"MCIGEN_LOG_LEVEL: {error}") from None
    form = env.get("MCIGEN_LOG_FORMAT", "").strip().lower() or DEFAULT_FORMAT
    if form not in LOG_FORMATS:
        raise ValueError(f"MCIGEN_LOG_FORMAT must be text or json, not {form!r}")
    arguments = env.get("MCIGEN_LOG_ARGUMENTS", "").strip().lower()
    return level, form, arguments in ("1", "true", "yes", "on")


def configure_logging(level: str, form: str, uvicorn: bool = False) -> None:
    """The runtime's log records at ``level`` and above on stderr, in ``form``;
    uvicorn's too when ``uvicorn`` (a server this process runs itself)."""
    handler = logging.StreamHandler()
    handler.setFormatter(JsonLines() if form == "json" else TextLines())
    names = [resolve_name("..", __package__)] + (["uvicorn"] if uvicorn else [])
    for name in names:
        logger = logging.getLogger(name)
        for old in list(logger.handlers):
            logger.removeHandler(old)
        logger.addHandler(handler)
        logger.setLevel(level)
        logger.propagate = False


def _fields(record: logging.LogRecord) -> dict[str, Any]:
    fields = getattr(record, FIELDS, None)
    return fields if isinstance(fields, dict) else {}


class TextLines(logging.Formatter):
    """``LEVEL logger: message key=value ...``."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname} {record.name}: {record.getMessage()}"
        for key, value in _fields(record).items():
            line += f" {key}={_logfmt(value)}"
        line = printable(line)  # one line, whatever the names in it hold
        if record.exc_info:
            line += "\n" + self.formatException(record.exc_info)
        return line


def _logfmt(value: Any) -> str:
    """A string bare, or in JSON quotes when it holds a space, a quote or ``=``;
    anything else as JSON."""
    if type(value) is str:
        return value if _BARE.fullmatch(value) else _json(value)
    if type(value) is int or (type(value) is float and math.isfinite(value)):
        return repr(value)  # as JSON writes it, without its encoder
    return _json(value)


_ENCODER = json.JSONEncoder(ensure_ascii=False, default=str, separators=(",", ":"))
"""Made once: ``json.dumps`` with options makes an encoder per call."""


def _json(value: Any) -> str:
    """JSON text holding no character that is not printable: the encoder escapes
    control characters, and here also what it keeps as it is (DEL, U+0085, U+2028,
    a bidi override), in its own ``\\uXXXX`` form."""
    return printable_json(_ENCODER.encode(value))


class JsonLines(logging.Formatter):
    """One JSON object per record: ``time`` (UTC, ISO 8601), ``level``,
    ``logger``, ``message``, the fields, and ``exception`` when there is one."""

    def format(self, record: logging.LogRecord) -> str:
        when = datetime.fromtimestamp(record.created, UTC)
        line: dict[str, Any] = {
            "time": when.isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
            **_fields(record),
        }
        if record.exc_info:
            line["exception"] = self.formatException(record.exc_info)
        return _json(line)


def client_of(scope: Scope | None) -> str:
    """Who sent a request: ``HOST:PORT`` of its peer; ``stdio`` without one."""
    if scope is None:
        return "stdio"
    peer = scope.get("client")
    if not peer:
        return "unknown"
    host, port = peer
    return f"{shown_host(str(host))}:{port}"


def shown_host(host: str) -> str:
    """``host`` as an address shows it before ``:PORT``: an IPv6 one in brackets."""
    return f"[{host}]" if ":" in host else host


LINE = "mcigen.log_line"
"""The scope key of an HTTP request's :class:`RequestLine`."""


class RequestLine:
    """What a tool call served in an HTTP request adds to the request's line:
    ``call`` holds the call's fields until the line is written (``open`` no
    more)."""

    __slots__ = ("call", "open")

    def __init__(self) -> None:
        self.call: dict[str, Any] | None = None
        self.open = True


class RequestLog:
    """ASGI middleware: one INFO line per HTTP request, with its method, path,
    status, duration (ms) and client, and the fields of the tool call it made."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.monotonic()
        status = 0
        line = scope[LINE] = RequestLine()

        async def noting_status(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, noting_status)
        finally:
            line.open = False
            if request_logger.isEnabledFor(logging.INFO):
                fields = {
                    "method": scope["method"],
                    "path": scope["path"][:200],
                    "status": status,
                    "duration_ms": _ms_since(started),
                    "client": client_of(scope),
                }
                if line.call is not None:
                    fields.update(line.call)
                _info(request_logger, "request", fields)


def _info(logger: logging.Logger, message: str, fields: dict[str, Any]) -> None:
    """``logger.info(message)`` with ``fields`` (INFO enabled): a line per request,
    the cheaper the better. Unless a record factory of its own is set, the record
    is a copy of one the logger made for ``message`` in this thread and process,
    with its own time and fields: ``LogRecord()`` looks up the thread's, the
    process's and the task's names and splits the caller's path each time, which
    costs as much as writing the line. (Nothing looks for the caller in the
    stack: no formatter here writes it.)"""
    if logging.getLogRecordFactory() is not logging.LogRecord:
        record = logger.makeRecord(logger.name, logging.INFO, "", 0, message, (), None)
        setattr(record, FIELDS, fields)
        logger.handle(record)
        return
    key = (logger.name, message, threading.get_ident(), os.getpid())
    made = _MADE.get(key)
    if made is None:
        if len(_MADE) > 64:  # threads come and go
            _MADE.clear()
        first = logger.makeRecord(logger.name, logging.INFO, "", 0, message, (), None)
        made = _MADE[key] = (vars(first), first.created - first.relativeCreated / 1000)
    prototype, start = made
    record = _new_record(logging.LogRecord)
    record.__dict__.update(prototype)
    now = time.time()
    record.created = now
    record.msecs = int((now - int(now)) * 1000) + 0.0
    record.relativeCreated = (now - start) * 1000
    if getattr(logging, "logAsyncioTasks", False):  # Python 3.12 on
        record.taskName = _task_name()
    setattr(record, FIELDS, fields)
    logger.handle(record)


_MADE: dict[tuple[str, str, int, int], tuple[dict[str, Any], float]] = {}
"""The attributes of a record, and the time its ``relativeCreated`` counts
from, per logger, message, thread and process."""

_new_record = object.__new__


def _task_name() -> str | None:
    try:
        task = asyncio.current_task()
    except RuntimeError:
        return None
    return None if task is None else task.get_name()


def _ms_since(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)


class CallOutcome:
    """How a call ended, as :func:`logged_call` logs it: ``ok``, ``error`` (the
    tool answered an error result), ``refused`` (a JSON-RPC or API error: an
    unknown tool, invalid arguments), ``cancelled`` or ``failed`` (it raised);
    over stdio, ``unsent`` in place of any of them when the answer could not be
    written (see :class:`HeldCallLines`)."""

    def __init__(self) -> None:
        self.outcome = "failed"

    def answered(self, is_error: bool) -> None:
        self.outcome = "error" if is_error else "ok"

    def refused(self) -> None:
        self.outcome = "refused"


class HeldCallLines:
    """The lines of a stdio connection's calls, each held from the call's end until
    its answer is written, so that one whose answer could not be (the client
    closed its end of stdout) says ``unsent``, not how the call ended."""

    def __init__(self) -> None:
        self._held: dict[object, list[dict[str, Any]]] = {}
        """Lines by request id (a client may give two requests one id)."""

    def hold(self, request_id: object, fields: dict[str, Any]) -> None:
        self._held.setdefault(request_id, []).append(fields)

    def holds(self, request_id: object) -> bool:
        return request_id in self._held

    def answered(self, request_id: object, written: bool) -> None:
        """Log the line of the call ``request_id`` answers (if held), ``unsent``
        unless the answer was ``written``."""
        self._log(request_id, None if written else UNSENT)

    def cancelled(self, request_id: object) -> None:
        """Log the line of the call ``request_id`` (if held), ``cancelled``: the
        client cancelled it once the tool had ended, and it is never answered."""
        self._log(request_id, CANCELLED)

    def _log(self, request_id: object, outcome: str | None) -> None:
        """Log the first line held for ``request_id``, with ``outcome`` in place
        of the call's own if given."""
        lines = self._held.get(request_id)
        if not lines:
            return
        fields = lines.pop(0)
        if not lines:
            del self._held[request_id]
        if outcome is not None:
            fields["outcome"] = outcome
        _info(call_logger, "tool call", fields)

    def unsent(self) -> None:
        """Log every line still held, ``unsent``: the connection has ended."""
        for request_id in list(self._held):
            while self.holds(request_id):
                self.answered(request_id, written=False)


UNSENT = "unsent"
CANCELLED = "cancelled"

HELD_CALL_LINES: ContextVar[HeldCallLines | None] = ContextVar(
    "mcigen_held_call_lines", default=None
)
"""Where a call over stdio leaves its line (set by the stdio server): None, the
line is logged as the call ends."""


@contextmanager
def logged_call(
    tool: str,
    scope: Scope | None,
    arguments: Mapping[str, Any] | None,
    with_values: bool,
    request_id: object = None,
) -> Iterator[CallOutcome]:
    """The call of ``tool`` in the HTTP request ``scope`` (None: over stdio),
    logged once it ends: its outcome (see :class:`CallOutcome`), duration (ms)
    and arguments (their names; their values too when ``with_values``) go into
    the request's line (``call_duration_ms`` beside the request's duration), or
    into a line of their own, with the client, when there is no request line
    open to carry them (stdio), held until the answer to ``request_id`` is
    written where :data:`HELD_CALL_LINES` is set (a cancelled call is never
    answered: its line is not held)."""
    outcome = CallOutcome()
    started = time.monotonic()
    try:
        yield outcome
    except BaseException as error:
        if not isinstance(error, Exception):
            outcome.outcome = CANCELLED
        raise
    finally:
        line = None if scope is None else scope.get(LINE)
        if isinstance(line, RequestLine) and line.open and line.call is None:
            if request_logger.isEnabledFor(logging.INFO):
                line.call = {
                    "tool": tool[:200],
                    "outcome": outcome.outcome,
                    "call_duration_ms": _ms_since(started),
                }
                _add_arguments(line.call, arguments, with_values)
        elif call_logger.isEnabledFor(logging.INFO):
            fields = {
                "tool": tool[:200],
                "outcome": outcome.outcome,
                "duration_ms": _ms_since(started),
                "client": client_of(scope),
            }
            _add_arguments(fields, arguments, with_values)
            held = None if request_id is None else HELD_CALL_LINES.get()
            if held is None or outcome.outcome == CANCELLED:
                _info(call_logger, "tool call", fields)
            else:
                held.hold(request_id, fields)


def _add_arguments(
    fields: dict[str, Any], arguments: Mapping[str, Any] | None, with_values: bool
) -> None:
    if arguments is not None:
        fields["arguments"] = (
            dict(arguments) if with_values else sorted(map(str, arguments))
        )
