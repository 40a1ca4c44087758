"""The package's tools as an MCP server, built on the official SDK's low-level ``Server``.

Two ways to run it:

- ``python -m PKG serve [--http HOST:PORT] [--secret S] [filters] [--broker]``:
  stdio by default, Streamable HTTP at ``/mcp`` with ``--http``
  (:func:`add_serve_arguments`, :func:`serve`);
- ``uvicorn PKG.server:app --workers N``: the ASGI app of
  :func:`app_from_environment`, configured from ``MCIGEN_*`` environment variables.

What the server exposes:

- ``tools/list``: the selected tools, each with its manifest ``inputSchema``
  unchanged (``{"type": "object", "properties": {}}`` when it has none; ``"type":
  "object"`` added in front when a schema lacks ``type``, since MCP requires it),
  description, annotations (the five MCP ``ToolAnnotations`` hints), when the
  annotations carry one, a ``title``, and an MCP tool's ``outputSchema``.
- Tool names: a name MCP clients refuse is exposed under a valid one (the rule is
  in ``serve_options.py``); ``tools/call`` takes the exposed name (or the original
  MCI name) and maps back.
- ``tools/call``: runs the tool through the package registry with ``os.environ``.
  Invalid arguments give an ``isError`` result whose text names the field; an
  unknown name is a JSON-RPC error (``-32602 Unknown tool: NAME``, as the spec
  has it). Tools that do I/O are awaited through their async entry points (file
  tools read their file in a worker thread); text tools are pure computation and
  run inline (microseconds), so the event loop stays free. An MCP tool's
  structured content is the result's ``structuredContent``; every content item
  (embedded resources, resource links, annotations) is sent as the tool gave it.
- An MTDF package with tools of Ahma's bundles lists them once a client reveals
  them with ``activate_tools`` (see ``disclosure.py``); background tools bring
  ``status``, ``await`` and ``cancel`` (see ``operation_tools.py``), and serve
  MCP's own Tasks, 2025-11-25's and 2026-07-28's extension (see ``tasks.py``).
- ``--broker`` / ``MCIGEN_BROKER``: exactly ``meta_tree``, ``meta_desc`` and
  ``meta_call`` over the selected tools instead (see ``broker.py``).
- ``tools/list`` answers every tool at once, unless their JSON is larger than
  ``wire.TOOLS_PAGE_BYTES``: then in pages, with an opaque ``nextCursor``; a cursor
  the server did not give is ``-32602``. The pages are made once, as the SDK
  sends them (``wire``), and the SDK's checking of every tool in each answer is
  skipped (:func:`listed_at_once`).
- ``serverInfo``: the schema metadata's ``name`` (else the package's import name)
  and ``version`` (else :data:`UNVERSIONED`, the version ``mcigen build --project``
  gives such a package).

HTTP is stateless Streamable HTTP with JSON responses: every POST carries a whole
exchange, no session state is kept, so any worker of a multi-worker server can
answer any request (background operations too, when ``MCIGEN_OPERATIONS_URL`` shares
them through Redis, see ``shared_operations``; several workers without it refuse to
start them). A request that asks for progress, from a client that accepts SSE, is
answered with an SSE stream instead: its progress notifications (an upstream MCP
server's, relayed by ``Progress.relayed``), then its answer. The ``Mcp-Session-Id`` the edge gives at ``initialize`` only
says whose background operations a call may see (see ``http.session_of``). In front of the SDK's transport sits the edge, outermost first:
the request log (``edge.logs``), ``http_origin`` (Host and Origin as ``origin_policy`` says: the DNS rebinding
guard, on every bind; it replaces the SDK's own check, which is off), ``/healthz``
and ``/readyz`` (``edge.health``), ``http_secret`` (with a secret, every
request must carry ``Authorization: Bearer SECRET``, else ``401``) and
``http_exchange`` (only POST, bounded bodies, malformed JSON-RPC refused in one
line, lenient ``initialize``, one SSE frame for clients that accept only SSE,
a text tool's call answered as the SDK would answer it, without it: ``http_calls``).
On stdio, ``stdio`` reads ``initialize`` as leniently and answers lines the SDK
cannot read, ``stdio_start`` answers the first requests while the SDK loads
(:func:`early_answers`), and ``stdio_calls`` a text tool's calls after. Every tool call is logged (``edge.logs``); OpenTelemetry, when
the ``OTEL_*`` variables ask for it, is in ``telemetry``.

The MCP SDK is imported only when a server is built, so ``python -m PKG list``
never pays for it.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import functools
import logging
import os
import sys
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from typing import IO, TYPE_CHECKING, Any, TypeVar

from ..edge.logs import (
    HELD_CALL_LINES,
    HeldCallLines,
    configure_logging,
    log_settings_from_environment,
    shown_host,
)
from ..edge.settings import (
    ENV_PREFIX,
    HTTP_PATH,
    ServeOptions,
    allowed_from_environment,
    filters_of,
    mcp_tool_names,
    options_from_environment,
    secret_from,
    select_tools,
    unguarded_warning,
    unknown_names,
    unknown_said,
    worker_count,
)
from ..errors import ToolInputError
from ..extras import require_extra
from ..manifest import ToolEntry, object_schema
from ..path_policy import CALL_SANDBOX, Sandbox
from ..plain_json import plain_json
from ..printable import printable
from ..registry import Registry, registry
from .bundles import ACTIVATE_TOOLS
from .operations import PROCESS
from .sandbox import (
    SandboxPolicy,
    SandboxUnavailable,
    confines_commands,
    sandbox_policy,
)
from .telemetry import (
    ExportAtShutdown,
    configure_from_environment,
    instrument,
    may_trace,
)
from .wire import HANDSHAKE_VERSIONS, Listing, listing, server_info
from .workers import WorkerRole, claim_worker_role

if TYPE_CHECKING:
    import mcp_types
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server
    from mcp.server.session import ServerSession
    from pydantic import TypeAdapter
    from starlette.applications import Starlette

    from ..broker.meta_tools import Broker, BrokerError
    from ..executors.progress import ProgressListener
    from ..results import TextContent, ToolResult
    from .disclosure import Disclosure
    from .http_calls import HttpCalls
    from .inline_calls import Inline
    from .operation_tools import InvalidParams
    from .operations import Caller, Running, Store
    from .shared_operations import SharedOperations
    from .stdio_lines import WireLines
    from .stdio_start import EarlyAnswers, Handoff
    from .wire_failed import WireFailed

require_extra("mcp")

logger = logging.getLogger(__name__)

_T = TypeVar("_T")


ANNOTATION_HINTS = (
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
)
"""The MCI annotations that are MCP ``ToolAnnotations`` fields."""

UNVERSIONED = "0.0.0"
"""``serverInfo.version`` of a package whose schema metadata gives no version."""

METADATA_META_KEY = "dev.mcigen/metadata"
"""The ``_meta`` key of a tool result that carries the MCI result's ``metadata``."""

# --------------------------------------------------------------------------- tools


def tool_definition(entry: ToolEntry, name: str) -> dict[str, Any]:
    """The MCP ``Tool`` of ``entry`` as wire JSON (camelCase), named ``name``."""
    schema = object_schema(entry.input_schema)
    definition: dict[str, Any] = {"name": name}
    title = entry.annotations.get("title")
    if isinstance(title, str):
        definition["title"] = title
    if entry.description is not None:
        definition["description"] = entry.description
    definition["inputSchema"] = schema
    if entry.output_schema is not None:
        definition["outputSchema"] = object_schema(entry.output_schema)
    hints = {
        k: entry.annotations[k] for k in ANNOTATION_HINTS if k in entry.annotations
    }
    if hints:
        definition["annotations"] = hints
    if entry.background != "never":
        definition["execution"] = {"taskSupport": "optional"}
    return definition


@functools.cache
def _content_blocks() -> TypeAdapter[mcp_types.ContentBlock]:
    """Reads a content item's JSON as the SDK's content block of its kind."""
    import mcp_types as types
    from pydantic import TypeAdapter

    return TypeAdapter(types.ContentBlock)


@functools.cache
def _answer_names() -> tuple[
    type[mcp_types.TextContent],
    type[mcp_types.CallToolResult],
    type[TextContent],
    str,
]:
    """What every call's answer is made of, imported once (an import statement
    costs microseconds every time it runs: see :func:`_meta_inline_names`)."""
    import mcp_types as types

    from ..results import STRUCTURED_CONTENT, TextContent

    return types.TextContent, types.CallToolResult, TextContent, STRUCTURED_CONTENT


def mcp_result(result: ToolResult) -> mcp_types.CallToolResult:
    """``result`` as MCP sends it: an MCP tool's structured content at the top
    level, where MCP clients look for it; the rest of the metadata in ``_meta``."""
    McpText, CallToolResult, TextContent, STRUCTURED_CONTENT = _answer_names()
    content: list[mcp_types.ContentBlock] = []
    for item in result.content:
        if isinstance(item, TextContent) and item.annotations is None:
            content.append(McpText(type="text", text=item.text, _meta=item.meta))
        else:
            wire = item.model_dump(mode="json")
            content.append(_content_blocks().validate_python(wire))
    meta = None
    structured = None
    if result.metadata is not None:
        metadata = dict(result.metadata)
        structured = metadata.pop(STRUCTURED_CONTENT, None)
        meta = {METADATA_META_KEY: plain_json(metadata)}
    return CallToolResult(
        content=content,
        structured_content=structured,
        is_error=result.isError,
        _meta=meta,
    )


def _error_result(message: str) -> mcp_types.CallToolResult:
    McpText, CallToolResult, _, _ = _answer_names()
    return CallToolResult(content=[McpText(type="text", text=message)], is_error=True)


def _failed(name: str, error: Exception) -> str:
    return (
        f"tool '{name}' failed unexpectedly ({type(error).__name__}); "
        "see the server's log"
    )


def _invalid_params(error: InvalidParams) -> Exception:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(INVALID_PARAMS, error.message, error.data)


def _unknown_tool(name: str) -> Exception:
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS

    return MCPError(code=INVALID_PARAMS, message=f"Unknown tool: {name}")


class ToolSurface:
    """What one server exposes, without the transport: the selected tools under
    their MCP names, or the broker's three meta-tools over them."""

    def __init__(
        self,
        package: str,
        options: ServeOptions,
        env: Mapping[str, str] | None = None,
        shares_operations: bool = True,
        workers: int = 1,
    ) -> None:
        """``shares_operations``: whether ``MCIGEN_OPERATIONS_URL`` may share the
        operations (over HTTP; a stdio server's one client keeps its own);
        ``workers``: how many processes serve the same clients (each keeps its
        own state: see :meth:`_offer_operations` and :meth:`_offer_disclosure`)."""
        self.registry: Registry = registry(package)
        self.options = options
        self.workers = workers
        self.sandbox = SandboxPolicy(enabled=True)
        """Where the calls may work; :func:`serve` sets the one its options say."""
        self.env: Mapping[str, str] = os.environ if env is None else env
        self.tools = select_tools(self.registry.tools, options)
        names = mcp_tool_names(tool.name for tool in self.registry.tools)
        self._by_name: dict[str, ToolEntry] = {}
        self._definitions: list[dict[str, Any]] = []
        self.broker: Broker | None = None
        self._meta_names: frozenset[str] = frozenset()
        self.operations: Store | None = None
        self.shared_operations: SharedOperations | None = None
        """The operations, when they are shared through Redis."""
        self.background_refused: str | None = None
        """Why calls that would go on in the background are refused, if they are."""
        self._operation_tools: frozenset[str] = frozenset()
        self.disclosure: Disclosure | None = None
        self._bundle_of: dict[str, str] = {}
        self._listings: dict[frozenset[str], Listing] = {}
        if options.broker:
            from ..broker.meta_tools import META_TOOLS, Broker

            self.broker = Broker(
                self.registry,
                env=self.env,
                max_output_chars=options.max_output_chars,
                tools=self.tools,
            )
            self._definitions = [dict(tool) for tool in META_TOOLS]
            self._meta_names = frozenset(tool["name"] for tool in META_TOOLS)
            return
        for tool in self.tools:
            self._by_name[names[tool.name]] = tool
            self._definitions.append(tool_definition(tool, names[tool.name]))
        for tool in self.tools:
            # The original name, too: an invalid name never equals a mapped one.
            self._by_name.setdefault(tool.name, tool)
        if any(tool.background != "never" for tool in self.tools):
            self._offer_operations(shares_operations)
        self._bundle_of = {
            names[tool.name]: tool.bundle for tool in self.tools if tool.bundle
        }
        if self._bundle_of:
            self._offer_disclosure()

    def _offer_operations(self, shares_operations: bool) -> None:
        """``status``, ``await`` and ``cancel`` (those no tool of the package is
        called), over the operations of this server's background calls."""
        from . import operation_tools
        from .operations import Operations
        from .shared_operations import OPERATIONS_URL

        url = os.environ.get(OPERATIONS_URL, "").strip()
        if url and shares_operations:
            require_extra("redis")
            from .shared_operations import SharedOperations

            self.operations = self.shared_operations = SharedOperations(
                self.registry, url, self.env
            )
        else:
            self.operations = Operations(self.registry, self.env)
            if self.workers > 1:
                self.background_refused = operation_tools.refused_under_workers(
                    self.workers
                )
        self.background_after = operation_tools.background_after(os.environ)
        offered = [
            definition
            for definition in operation_tools.DEFINITIONS
            if definition["name"] not in self._by_name
        ]
        self._definitions += [dict(definition) for definition in offered]
        self._operation_tools = frozenset(d["name"] for d in offered)

    def _offer_disclosure(self) -> None:
        """``activate_tools`` (Ahma's progressive disclosure) for a package with
        tools of Ahma's bundles, unless the environment turns it off, or several
        workers serve (a client's reveal would be known to one of them only, and
        its ``tools/list`` might reach another: every tool is listed)."""
        from .disclosure import Disclosure, disclosure_off

        if (
            disclosure_off(os.environ)
            or ACTIVATE_TOOLS in self._by_name
            or self.workers > 1
        ):
            self._bundle_of = {}
            return
        self.disclosure = Disclosure(self.tools)
        self._definitions.append(self.disclosure.definition())

    def running(self) -> AbstractAsyncContextManager[None]:
        """What runs beside the server while it serves: the worker of shared
        operations, if there are any."""
        from contextlib import nullcontext

        if self.shared_operations is None:
            return nullcontext()
        return self.shared_operations.running()

    @property
    def definitions(self) -> list[dict[str, Any]]:
        """The ``tools/list`` entries, as wire JSON (every one: see
        :meth:`listed_to`)."""
        return self._definitions

    def revealed(self, caller: Caller) -> frozenset[str]:
        """The bundles ``caller`` has revealed (see ``disclosure``)."""
        return (
            frozenset() if self.disclosure is None else self.disclosure.revealed(caller)
        )

    def listed_to(self, revealed: frozenset[str]) -> list[dict[str, Any]]:
        """The ``tools/list`` entries of a client that revealed ``revealed``."""
        listed = (None, *revealed)
        return [
            d for d in self._definitions if self._bundle_of.get(d["name"]) in listed
        ]

    def listing(self, revealed: frozenset[str]) -> Listing:
        """The ``tools/list`` answers of a client that revealed ``revealed``
        (made once)."""
        found = self._listings.get(revealed)
        if found is None:
            found = self._listings[revealed] = listing(self.listed_to(revealed))
        return found

    async def sandbox_of(
        self, name: str, session: ServerSession | None
    ) -> Sandbox | None:
        """The sandbox of a call of the tool ``name`` in ``session``; None for a
        tool that starts no command (only cli tools read it), which then costs
        no look at the base directory nor question to the client."""
        entry = self._by_name.get(name)
        if entry is not None and entry.type != "cli":
            return None
        return await self.sandbox.for_call(session)

    def find(self, name: str) -> ToolEntry | None:
        """The tool an MCP client calls ``name``; None when there is none."""
        return self._by_name.get(name)

    @property
    def offers_tasks(self) -> bool:
        """Whether MCP Tasks are served (see ``tasks``): there are tools that go
        on in the background, and they may."""
        return self.operations is not None and self.background_refused is None

    def goes_on_in_background(self, name: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a call of the tool ``name`` with ``arguments`` is served as an
        operation (one that may be: not refused)."""
        entry = self._by_name.get(name)
        return (
            entry is not None
            and self.offers_tasks
            and _runs_in_background()(entry, arguments)
        )

    async def start(
        self,
        name: str,
        arguments: Mapping[str, Any],
        caller: Caller,
        sandbox: Sandbox | None,
    ) -> Running:
        """Start the tool ``name`` as ``caller``'s operation, in ``sandbox`` (a
        ``tools/call`` run as a task). Raises the SDK's ``MCPError``: ``-32602``
        for an unknown name or input the tool refuses, ``-32601`` for a tool that
        does not go on in the background."""
        from mcp.shared.exceptions import MCPError
        from mcp_types import INVALID_PARAMS, METHOD_NOT_FOUND

        entry = self._by_name.get(name)
        if entry is None and not any(d["name"] == name for d in self._definitions):
            raise _unknown_tool(name)
        if self.operations is None or entry is None or entry.background == "never":
            raise MCPError(
                code=METHOD_NOT_FOUND,
                message=f"Tool {name} does not support task-augmented calls",
            )
        token = CALL_SANDBOX.set(sandbox)
        try:
            return await self.operations.start_async(entry, arguments, caller)
        except ToolInputError as error:
            raise MCPError(code=INVALID_PARAMS, message=str(error)) from None
        finally:
            CALL_SANDBOX.reset(token)

    def runs_inline(self, name: str, arguments: Mapping[str, Any]) -> bool:
        """Whether a ``tools/call`` of ``name`` with ``arguments`` is a synchronous
        function's call and nothing else (a text tool's, the broker's meta-tools
        of one: no I/O, no operation)."""
        if self.broker is not None:
            return name in self._meta_names and not self.broker.awaits(name, arguments)
        if name in self._operation_tools:
            return False
        if self.disclosure is not None and name == ACTIVATE_TOOLS:
            return False
        entry = self._by_name.get(name)
        if entry is None or self.registry.async_invoker(entry) is not None:
            return False
        return self.operations is None or entry.background == "never"

    def call_inline(self, name: str, arguments: Mapping[str, Any]) -> Inline:
        """The answer to a call :meth:`runs_inline` allows, as :meth:`call` gives
        it, in the shape ``inline_calls`` writes."""
        if self.broker is not None:
            return self._meta_inline(self.broker, name, arguments)
        error_result, Inline = _inline_names()
        entry = self._by_name[name]
        try:
            result = self.registry.invoker(entry)(arguments, self.env)
        except ToolInputError as error:
            result = error_result(str(error))
        except Exception as error:
            logger.exception("tool %r raised", entry.name)
            result = error_result(_failed(entry.name, error))
        return Inline.of(result, mcp_result)

    def _meta_inline(
        self, broker: Broker, name: str, arguments: Mapping[str, Any]
    ) -> Inline:
        BrokerError, answer_is_error, answer_text, Inline = _meta_inline_names()
        media: list[dict[str, Any]] = []
        try:
            answer = broker.call_meta(name, arguments, media=media)
        except BrokerError as error:
            message = str(error)
            return Inline([message], True, None, lambda: _error_result(message))
        plain = _plain_answer_json()(answer)
        if plain is not None:
            text, written = plain
            model = functools.partial(_meta_result, answer, media)
            return Inline([text], answer["isError"], answer, model, written)
        text = answer_text(answer)
        return Inline(
            None if media else [text],
            answer_is_error(answer),
            answer,
            lambda: _meta_result(answer, media),
        )

    async def call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        progress: Progress | None = None,
        caller: Caller = PROCESS,
        sandbox: Sandbox | None = None,
    ) -> mcp_types.CallToolResult:
        """``tools/call`` by ``caller`` (whose background operations it may see;
        the default is the process's one client), in ``sandbox`` (None: the
        default of :func:`call_sandbox`). Raises the SDK's ``MCPError`` for an
        unknown name."""
        token = CALL_SANDBOX.set(sandbox)
        try:
            return await self._call(name, arguments, progress, caller)
        finally:
            CALL_SANDBOX.reset(token)

    async def _call(
        self,
        name: str,
        arguments: Mapping[str, Any],
        progress: Progress | None,
        caller: Caller,
    ) -> mcp_types.CallToolResult:
        if self.broker is not None:
            return await self._call_meta(
                self.broker, name, arguments, progress or Progress()
            )
        if self.disclosure is not None and name == ACTIVATE_TOOLS:
            return await self._activate_tools(
                self.disclosure, arguments, progress, caller
            )
        if self.operations is not None and name in self._operation_tools:
            from .operation_tools import InvalidParams, call_operation_tool

            try:
                answer = await call_operation_tool(
                    self.operations, name, arguments, caller, progress
                )
            except InvalidParams as error:
                raise _invalid_params(error) from None
            return mcp_result(answer)
        entry = self._by_name.get(name)
        if entry is None:
            raise _unknown_tool(name)
        if self.operations is not None:
            if _runs_in_background()(entry, arguments):
                if self.background_refused is not None:
                    return _error_result(self.background_refused)
                return await self._call_in_background(
                    self.operations, entry, arguments, progress or Progress(), caller
                )
        try:
            call = self.registry.call_async(entry.name, arguments, self.env)
            result = await (progress or Progress()).relayed(call)
        except ToolInputError as error:
            return _error_result(str(error))
        except Exception as error:
            logger.exception("tool %r raised", entry.name)
            return _error_result(_failed(entry.name, error))
        return mcp_result(result)

    async def _activate_tools(
        self,
        disclosure: Disclosure,
        arguments: Mapping[str, Any],
        progress: Progress | None,
        caller: Caller,
    ) -> mcp_types.CallToolResult:
        from .operation_tools import InvalidParams

        try:
            answer, changed = disclosure.call(arguments, caller)
        except InvalidParams as error:
            raise _invalid_params(error) from None
        if changed and progress is not None:
            await progress.tools_changed()
        return mcp_result(answer)

    async def _call_in_background(
        self,
        operations: Store,
        entry: ToolEntry,
        arguments: Mapping[str, Any],
        progress: Progress,
        caller: Caller,
    ) -> mcp_types.CallToolResult:
        """Start the call as ``caller``'s operation; its result if it ends within
        the window (the operation is cancelled with the call meanwhile), else at
        once the operation's id and how to await it."""
        from ..results import text_content, tool_result
        from .operation_record import final_message, started_message
        from .operation_tools import background_hint

        try:
            operation = await operations.start_async(entry, arguments, caller)
        except ToolInputError as error:
            return _error_result(str(error))
        try:
            await progress.send(0, None, started_message(operation))
            finished = await operation.finished_within(self.background_after)
        except BaseException:
            operation.cancel("the call was cancelled")
            raise
        if finished:
            await progress.send(100, 100, final_message(operation))
            result = operation.result()
            assert result is not None
            return mcp_result(result)
        progress.send_when_done(operation)
        hint = text_content(background_hint(operation))
        return mcp_result(tool_result([hint], False, None))

    async def _call_meta(
        self,
        broker: Broker,
        name: str,
        arguments: Mapping[str, Any],
        progress: Progress,
    ) -> mcp_types.CallToolResult:
        BrokerError = _meta_inline_names()[0]
        if name not in self._meta_names:
            raise _unknown_tool(name)
        media: list[dict[str, Any]] = []
        try:
            call = broker.call_meta_async(name, arguments, media=media)
            answer = await progress.relayed(call)
        except BrokerError as error:
            return _error_result(str(error))
        return _meta_result(answer, media)


@functools.cache
def _inline_names() -> tuple[Callable[..., ToolResult], type[Inline]]:
    """What a tool's inline call uses, imported once (see
    :func:`_meta_inline_names`)."""
    from ..results import error_result
    from .inline_calls import Inline

    return error_result, Inline


@functools.cache
def _meta_inline_names() -> tuple[
    type[BrokerError],
    Callable[[Mapping[str, Any]], bool],
    Callable[[Any], str],
    type[Inline],
]:
    """What a meta-tool's inline call uses, imported once: an import statement
    costs a few µs every time it runs, loaded module or not, as much as the
    broker's own work for a call."""
    from ..broker.meta_tools import BrokerError, answer_is_error, answer_text
    from .inline_calls import Inline

    return BrokerError, answer_is_error, answer_text, Inline


@functools.cache
def _plain_answer_json() -> Callable[[dict[str, Any]], tuple[str, str] | None]:
    """``answer_json.plain_answer_json``, imported once (see
    :func:`_meta_inline_names`)."""
    from ..broker.answer_json import plain_answer_json

    return plain_answer_json


def _meta_result(
    answer: dict[str, Any], media: list[dict[str, Any]]
) -> mcp_types.CallToolResult:
    """A meta-tool's answer as MCP sends it: its JSON as text, and as structured
    content; the media it set apart as content blocks of their own."""
    McpText, CallToolResult, _, _ = _answer_names()
    _, answer_is_error, answer_text, _ = _meta_inline_names()
    content: list[mcp_types.ContentBlock] = [
        McpText(type="text", text=answer_text(answer))
    ]
    if media:
        content += _media_blocks(media)
    return CallToolResult(
        content=content, structured_content=answer, is_error=answer_is_error(answer)
    )


def _media_blocks(
    media: list[dict[str, Any]],
) -> list[mcp_types.ImageContent | mcp_types.AudioContent]:
    import mcp_types as types

    blocks: dict[str, type[types.ImageContent | types.AudioContent]] = {
        "image": types.ImageContent,
        "audio": types.AudioContent,
    }
    return [blocks[item["type"]].model_validate(item) for item in media]


@functools.cache
def _runs_in_background() -> Callable[[ToolEntry, Mapping[str, Any]], bool]:
    """``operation_tools.runs_in_background``, imported once (it is asked at
    every call of a server with background tools)."""
    from .operation_tools import runs_in_background

    return runs_in_background


class Progress:
    """Where the progress of one ``tools/call`` goes: nowhere unless the request
    carried ``_meta.progressToken``. A notification that cannot be sent is dropped."""

    def __init__(
        self, session: ServerSession | None = None, token: str | int | None = None
    ) -> None:
        self.session = session
        self.token = token

    async def send(
        self, progress: float, total: float | None, message: str | None
    ) -> None:
        """A notification for the request, while it is open."""
        if self.session is None or self.token is None:
            return
        try:
            await self.session.report_progress(progress, total, message)
        except Exception:
            logger.debug("progress notification dropped", exc_info=True)

    async def finished(self, done: int, awaited: int, operation: Running) -> None:
        """``done`` of the ``awaited`` operations have finished, ``operation`` last."""
        from .operation_record import final_message

        await self.send(done, awaited, final_message(operation))

    async def relayed(self, call: Awaitable[_T]) -> _T:
        """What ``call`` answers, the progress its upstream reports (from any
        thread, see ``executors.progress``) sent on to the client meanwhile, in
        order, all of it before the answer."""
        if self.session is None or self.token is None:
            return await call
        progress_to = _progress_to()
        loop = asyncio.get_running_loop()
        reports: asyncio.Queue[tuple[float, float | None, str | None] | None]
        reports = asyncio.Queue()

        def heard(progress: float, total: float | None, message: str | None) -> None:
            try:
                loop.call_soon_threadsafe(
                    reports.put_nowait, (progress, total, message)
                )
            except RuntimeError:  # the server's loop is closed
                pass

        async def forward() -> None:
            while (report := await reports.get()) is not None:
                await self.send(*report)

        forwarder = asyncio.create_task(forward())
        try:
            with progress_to(heard):
                answer = await call
        except BaseException:
            forwarder.cancel()
            raise
        reports.put_nowait(None)
        await forwarder
        return answer

    async def tools_changed(self) -> None:
        """``notifications/tools/list_changed`` to the client making the call."""
        if self.session is None:
            return
        try:
            await self.session.send_tool_list_changed()
        except Exception:
            logger.debug("tools/list_changed notification dropped", exc_info=True)

    def send_when_done(self, operation: Running) -> None:
        """The last notification, once ``operation`` has finished (after the
        answer: on the connection, as Ahma sends it)."""
        session, token = self.session, self.token
        if session is None or token is None:
            return
        from .operation_record import final_message

        loop = asyncio.get_running_loop()

        async def notify() -> None:
            try:
                await session.send_progress_notification(
                    token, 100, 100, final_message(operation)
                )
            except Exception:
                logger.debug("progress notification dropped", exc_info=True)

        def done() -> None:
            sending = notify()
            try:
                asyncio.run_coroutine_threadsafe(sending, loop)
            except RuntimeError:  # the server's loop is closed
                sending.close()

        operation.when_done(done)


@functools.cache
def _progress_to() -> Callable[[ProgressListener], AbstractContextManager[None]]:
    """``executors.progress.progress_to``, imported once."""
    from ..executors.progress import progress_to

    return progress_to


# --------------------------------------------------------------------------- server


def caller_of(ctx: ServerRequestContext[Any]) -> Caller:
    """Whose background operations a request may see (see ``operations``)."""
    if ctx.request is None:
        return PROCESS  # stdio
    return _session_of()(ctx.request.headers)


@functools.cache
def _session_of() -> Callable[[Mapping[str, str]], Caller]:
    """``http.session_of``, imported once (it is read at every HTTP call)."""
    from .http import session_of

    return session_of


def build_server(surface: ToolSurface) -> Server[Any]:
    """The SDK's low-level server over ``surface``."""
    from mcp.server.lowlevel import Server
    from mcp.shared.exceptions import MCPError
    from mcp_types import INVALID_PARAMS, ListToolsResult

    from ..edge.logs import logged_call

    schemas = {d["name"]: d["inputSchema"] for d in surface.definitions}

    async def list_tools(
        ctx: ServerRequestContext[Any], params: mcp_types.PaginatedRequestParams | None
    ) -> mcp_types.ListToolsResult:
        pages = surface.listing(surface.revealed(caller_of(ctx))).pages
        page = pages.get(params.cursor if params is not None else None)
        if page is None:
            raise MCPError(
                code=INVALID_PARAMS, message="Invalid params: unknown cursor"
            )
        return ListToolsResult.model_validate(page, by_name=False)

    async def listed_at_once(
        ctx: ServerRequestContext[Any], call_next: CallNext
    ) -> HandlerResult:
        """``tools/list`` answered with its page as the SDK would send it, when
        it would (see :meth:`wire.Listing.page_for`): a handshake-era request
        after ``initialize`` (over HTTP, every request may list)."""
        if (
            ctx.method == "tools/list"
            and ctx.protocol_version in HANDSHAKE_VERSIONS
            and (ctx.request is not None or ctx.session.client_params is not None)
        ):
            revealed = surface.revealed(caller_of(ctx))
            page = surface.listing(revealed).page_for(ctx.params)
            if page is not None:
                return dict(page)
        return await call_next(ctx)

    async def logged(
        ctx: ServerRequestContext[Any],
        params: mcp_types.CallToolRequestParams,
        run: Callable[[dict[str, Any], Sandbox | None], Awaitable[_T]],
        is_error: Callable[[_T], bool],
    ) -> _T:
        """``run(arguments, sandbox)`` for the call ``params``, in one log line:
        refused when it raises the protocol's error, else answered."""
        arguments = params.arguments or {}
        scope = None if ctx.request is None else ctx.request.scope
        with logged_call(
            params.name,
            scope,
            arguments,
            surface.options.log_arguments,
            ctx.request_id,
        ) as outcome:
            sandbox = await surface.sandbox_of(params.name, ctx.session)
            try:
                done = await run(arguments, sandbox)
            except MCPError:
                outcome.refused()
                raise
            outcome.answered(is_error(done))
            return done

    async def call_tool(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> mcp_types.CallToolResult:
        progress = Progress(ctx.session, (ctx.meta or {}).get("progress_token"))

        def call(
            arguments: dict[str, Any], sandbox: Sandbox | None
        ) -> Awaitable[mcp_types.CallToolResult]:
            return surface.call(
                params.name, arguments, progress, caller_of(ctx), sandbox
            )

        return await logged(ctx, params, call, lambda done: bool(done.is_error))

    async def start_task(
        ctx: ServerRequestContext[Any], params: mcp_types.CallToolRequestParams
    ) -> Running:
        def start(
            arguments: dict[str, Any], sandbox: Sandbox | None
        ) -> Awaitable[Running]:
            return surface.start(params.name, arguments, caller_of(ctx), sandbox)

        return await logged(ctx, params, start, lambda _: False)

    async def roots_changed(
        ctx: ServerRequestContext[Any], params: mcp_types.NotificationParams | None
    ) -> None:
        surface.sandbox.forget(ctx.session)

    def input_schema(name: str) -> Mapping[str, Any] | None:
        return schemas.get(name)

    info = server_identity(surface.registry)
    with warnings.catch_warnings():  # the SDK deprecates roots for 2026-07-28
        warnings.simplefilter("ignore")
        server = Server(
            info["name"],
            version=info["version"],
            description=info.get("description"),
            get_tool_input_schema=input_schema,
            on_list_tools=list_tools,
            on_call_tool=call_tool,
            on_roots_list_changed=roots_changed,
        )
    instrument(server)
    server.middleware.append(listed_at_once)
    if surface.offers_tasks:
        from .tasks import Tasks

        assert surface.operations is not None
        tasks = Tasks(
            surface.operations,
            caller_of,
            start_task,
            mcp_result,
            surface.goes_on_in_background,
            surface.background_after,
        )
        tasks.install(server)
    return server


def service_name(registry: Registry) -> str:
    """The name the server goes by: its schema's, else its package's."""
    name = registry.metadata.get("name")
    return name if isinstance(name, str) and name else registry.package


def server_identity(registry: Registry) -> dict[str, Any]:
    """``serverInfo``: the name, version and description the server goes by."""
    version = registry.metadata.get("version")
    description = registry.metadata.get("description")
    return server_info(
        service_name(registry),
        str(version) if version not in (None, "") else UNVERSIONED,
        description if isinstance(description, str) else None,
    )


def http_app(surface: ToolSurface) -> Starlette:
    """Stateless Streamable HTTP at ``/mcp`` with JSON responses (SSE streams for
    requests that ask for progress), behind the edge of the module docs, configured
    by ``surface.options``; shared operations run in its lifespan."""
    from ..edge.bearer import BearerSecretMiddleware
    from ..edge.health import HealthEndpoints, UpstreamServers
    from ..edge.lifecycle import CallLifecycleMiddleware
    from ..edge.logs import RequestLog
    from ..edge.origin_guard import HostOriginGuard
    from ..edge.origin_policy import HostOriginPolicy
    from .http import ExchangeEdge

    options = surface.options
    server = build_server(surface)
    calls = http_calls(surface, server)
    beside = [surface.running] if calls is None else [surface.running, calls.serving]
    app = _streamable_http_app(server, beside)
    # Starlette runs the middleware added last first.
    app.add_middleware(ExchangeEdge, path=HTTP_PATH, calls=calls)
    if options.secret:
        app.add_middleware(BearerSecretMiddleware, secret=options.secret)
    servers = (tool.server for tool in surface.tools if tool.server)
    upstream = UpstreamServers(surface.registry, servers, surface.env)
    app.add_middleware(HealthEndpoints, upstream=upstream)
    policy = HostOriginPolicy.of_server(
        options.allowed_hosts, options.allowed_origins, options.secret
    )
    app.add_middleware(HostOriginGuard, policy=policy)
    app.add_middleware(CallLifecycleMiddleware)
    app.add_middleware(RequestLog)
    app.add_middleware(ExportAtShutdown)
    return app


HTTP_INLINE = f"{ENV_PREFIX}HTTP_INLINE"
"""``MCIGEN_HTTP_INLINE=0`` leaves every call over HTTP to the SDK (see
:func:`http_calls`)."""


def http_calls(surface: ToolSurface, server: Server[Any]) -> HttpCalls | None:
    """The calls of text tools the HTTP edge answers without the SDK (see
    ``http_calls``); None when :data:`HTTP_INLINE` says so, or the SDK's server
    keeps a cache hint for ``tools/call`` (the SDK would add it to each answer)."""
    from .http_calls import HttpCalls

    if _turned_off(HTTP_INLINE) or "tools/call" in server.cache_hints:
        return None
    return HttpCalls(surface)


def _streamable_http_app(
    server: Server[Any], beside: list[Callable[[], AbstractAsyncContextManager[None]]]
) -> Starlette:
    """Stateless Streamable HTTP at ``/mcp``: a JSON answer, or an SSE stream that
    carries the request's progress notifications before its answer when the edge
    says the client asked for them (``http.streams_progress``); each of ``beside``
    runs in the app's lifespan within the two session managers, in turn, and the
    process is :func:`settled` once they run."""
    import contextlib

    from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
    from mcp.server.transport_security import TransportSecuritySettings
    from starlette.applications import Starlette
    from starlette.routing import Route

    from .http import ByProgress

    security = TransportSecuritySettings(enable_dns_rebinding_protection=False)
    answering, streaming = (
        StreamableHTTPSessionManager(
            app=server,
            json_response=json_response,
            stateless=True,
            security_settings=security,
        )
        for json_response in (True, False)
    )

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        async with (
            answering.run(),
            streaming.run(),
            contextlib.AsyncExitStack() as stack,
        ):
            for part in beside:
                await stack.enter_async_context(part())
            settled()
            yield

    exchange = ByProgress(answering.handle_request, streaming.handle_request)
    return Starlette(routes=[Route(HTTP_PATH, endpoint=exchange)], lifespan=lifespan)


def app_from_environment(package: str) -> Starlette:
    """The ASGI app for ``uvicorn PKG.server:app``, configured from ``MCIGEN_*``
    (see :func:`options_from_environment`). Building it starts nothing: the
    session manager runs in the app's lifespan, in each worker."""
    options = options_from_environment(os.environ)
    connection_limits()  # a bad MCIGEN_MAX_CONNECTIONS stops the app here
    level, form, log_arguments = log_settings_from_environment(os.environ)
    configure_logging(level, form)
    options = dataclasses.replace(options, log_arguments=log_arguments)
    workers = worker_count(sys.argv, os.environ)
    surface = ToolSurface(package, options, workers=workers)
    configure_from_environment(os.environ, service_name(surface.registry))
    surface.sandbox = sandbox_policy(surface.registry, False, [], os.environ)
    if surface.background_refused is not None:
        logger.warning("%s", surface.background_refused)
    for option, name in unknown_names(surface.registry.tools, options):
        logger.warning("%s%s: %s", ENV_PREFIX, option, unknown_said(option, name))
    return http_app(surface)


def connection_limits() -> None:
    """Check ``MCIGEN_HEADER_TIMEOUT`` and ``MCIGEN_MAX_CONNECTIONS``; raises
    ``ValueError`` naming a bad one."""
    from ..edge.connections import process_limits

    process_limits()


def serve(package: str, args: argparse.Namespace) -> int:
    """Run ``serve`` with the options of :func:`add_serve_arguments`."""
    address: tuple[str, int] | None = args.http
    if args.secret is not None and address is None:
        return _usage(package, "--secret needs --http (stdio has no requests to check)")
    try:
        secret = secret_from(args.secret, "--secret", os.environ if address else {})
    except ValueError as error:
        return _usage(package, str(error))
    if args.max_output_chars is not None and not args.broker:
        return _usage(package, "--max-output-chars only applies with --broker")
    if args.workers > 1 and address is None:
        return _usage(package, "--workers needs --http (stdio has one client)")
    if args.workers > 1 and sys.platform != "linux":
        return _usage(
            package,
            "--workers needs Linux (SO_REUSEPORT that spreads connections); "
            "elsewhere run uvicorn PKG.server:app --workers N",
        )
    for flag, given in (
        ("--allow-host", args.allow_hosts),
        ("--allow-origin", args.allow_origins),
    ):
        if given and address is None:
            return _usage(package, f"{flag} needs --http")
    try:
        hosts, origins = allowed_from_environment(os.environ if address else {})
        if address is not None:
            connection_limits()
    except ValueError as error:
        return _usage(package, str(error))
    try:
        filters = filters_of(args)
    except ValueError as error:
        return _usage(package, str(error))
    options = dataclasses.replace(
        filters,
        broker=args.broker,
        max_output_chars=args.max_output_chars,
        secret=secret,
        allowed_hosts=hosts | frozenset(args.allow_hosts or ()),
        allowed_origins=origins | frozenset(args.allow_origins or ()),
        log_arguments=args.log_arguments,
    )
    configure_logging(args.log_level, args.log_format, uvicorn=address is not None)
    role = claim_worker_role(os.environ)
    surface = ToolSurface(
        package,
        options,
        shares_operations=address is not None,
        workers=role.count if role is not None else args.workers,
    )
    try:
        configure_from_environment(os.environ, service_name(surface.registry))
    except ValueError as error:
        return _usage(package, str(error))
    try:
        surface.sandbox = sandbox_policy(
            surface.registry, args.no_sandbox, args.sandbox_scopes or [], os.environ
        )
    except (SandboxUnavailable, ValueError) as error:
        return _usage(package, str(error))
    if role is None:  # a worker's supervisor has said all this
        _warn(surface, address, secret)
    if address is None:
        try:
            return _serve_stdio(surface)
        except KeyboardInterrupt:
            return 130
    if role is None and args.workers > 1:
        return _supervise(package, args, address)
    return _serve_http(surface, address, role, args.log_level.lower())


def _warn(
    surface: ToolSurface, address: tuple[str, int] | None, secret: str | None
) -> None:
    """What ``serve`` says on stderr before it serves."""
    if confines_commands(surface.registry) or not surface.sandbox.enabled:
        said = surface.sandbox.describe(surface.registry, asks_roots=address is None)
        print(said, file=sys.stderr, flush=True)
    for option, name in unknown_names(surface.registry.tools, surface.options):
        said = unknown_said(option, name)
        print(printable(f"warning: --{option.lower()}: {said}"), file=sys.stderr)
    if not surface.tools:
        print("warning: no tool matches the filters", file=sys.stderr)
    if surface.background_refused is not None:
        print(f"warning: {surface.background_refused}", file=sys.stderr)
    unguarded = None if address is None else unguarded_warning(address[0], secret)
    if unguarded is not None:
        print(f"warning: {unguarded}", file=sys.stderr)


def _supervise(package: str, args: argparse.Namespace, address: tuple[str, int]) -> int:
    """``serve --http`` as ``args.workers`` workers (see ``workers``)."""
    from .workers import address_free, supervise

    host, port = address
    try:
        address_free(host, port)
    except OSError as error:
        return _cannot_listen(host, port, error)
    command = [sys.executable, "-m", package, *args.command_line]
    return supervise(command, args.workers)


def _cannot_listen(host: str, port: int, error: OSError) -> int:
    print(
        f"error: cannot listen at {shown_host(host)}:{port}: {error}", file=sys.stderr
    )
    return 1


EARLY = f"{ENV_PREFIX}STDIO_EARLY"
"""``MCIGEN_STDIO_EARLY=0`` keeps a stdio server from answering without the SDK:
before it is loaded (see :func:`early_answers`), and the calls of text tools
after (see ``stdio_calls``)."""


def _turned_off(variable: str) -> bool:
    """Whether the environment's ``variable`` turns something off."""
    return os.environ.get(variable, "").strip().lower() in ("0", "false", "no", "off")


def early_answers(surface: ToolSurface) -> EarlyAnswers | None:
    """What the stdio server answers while the SDK loads (see ``stdio_start``);
    None when it waits for the SDK, and leaves every call to it: with
    OpenTelemetry about (the SDK traces every request), or when :data:`EARLY`
    says so."""
    from .stdio_start import EarlyAnswers

    if _turned_off(EARLY):
        return None
    if may_trace(os.environ):
        return None
    return EarlyAnswers(
        server_identity(surface.registry),
        list_changed=surface.disclosure is not None,
        tasks=surface.offers_tasks,
        listing=surface.listing(frozenset()),
    )


def _serve_stdio(surface: ToolSurface) -> int:
    """Serve stdio: the early answers while the SDK's server is built in a
    thread, then that server, from the line the early answers stopped at. The
    exit status: 0 at the end of stdin, else as ``wire_failed`` says."""
    import anyio

    from ..edge.shutdown import exit_on_signals_meanwhile
    from .stdio_start import Handoff, answer_early, claimed_stdio

    early = early_answers(surface)
    with claimed_stdio() as (wire, out):
        if wire is None or out is None:
            from .wire_failed import not_open

            return not_open("stdin" if wire is None else "stdout")
        handoff, server = Handoff(), None
        if early is not None:
            exit_on_signals_meanwhile()
            building = _Building(surface)
            handoff = answer_early(early, wire, out)
            if handoff.ended:
                return 0
            if handoff.failed is None:
                server = building.server()
        failed = handoff.failed
        if failed is None:
            failed = anyio.run(
                _serve_sdk, surface, server, wire, out, handoff, early is not None
            )
    if failed is None:
        return 0
    from .wire_failed import ended

    return ended(failed)  # once fd 1 is the wire again


def settled() -> None:
    """Leave what the server holds once built (the SDK's models: most of the
    process's objects) out of garbage collection: a full collection otherwise
    walks them all, tens of milliseconds that a call waits for."""
    import gc

    gc.freeze()


class _Building:
    """The SDK's server over a surface, built in a thread meanwhile."""

    def __init__(self, surface: ToolSurface) -> None:
        import threading

        self._built: list[Server[Any]] = []
        self._failed: list[BaseException] = []
        self._thread = threading.Thread(
            target=self._build, args=(surface,), name="mcp-sdk", daemon=True
        )
        self._thread.start()

    def _build(self, surface: ToolSurface) -> None:
        try:
            from mcp.server.stdio import stdio_server  # noqa: F401 - loaded now

            from . import stdio  # noqa: F401 - loaded now

            self._built.append(build_server(surface))
        except BaseException as error:  # noqa: BLE001 - raised in the main thread
            self._failed.append(error)

    def server(self) -> Server[Any]:
        self._thread.join()
        if self._failed:
            raise self._failed[0]
        return self._built[0]


async def _serve_sdk(
    surface: ToolSurface,
    server: Server[Any] | None,
    wire: WireLines,
    out: IO[bytes],
    handoff: Handoff,
    answering: bool,
) -> WireFailed | None:
    """The SDK's server on stdio, from the lines ``handoff`` holds; ``answering``:
    whether the calls of text tools are answered without it (``stdio_calls``).
    None at the end of stdin; when a line could not be read or an answer
    written, why, and how many requests were left unanswered (``wire_failed``)."""
    from mcp.server.lowlevel import NotificationOptions
    from mcp.server.stdio import stdio_server

    from ..edge.shutdown import exit_on_signals
    from .stdio import AnsweredOnce, Answers, LenientReadStream, as_file, client_lines
    from .stdio_calls import InlineCalls
    from .stdio_eof import Unanswered
    from .wire_failed import ClosedWire

    exit_on_signals()
    if server is None:
        server = build_server(surface)
    inline = None
    if answering and "tools/call" not in server.cache_hints:
        inline = InlineCalls(surface)
        server.middleware.insert(0, inline.observe)
    settled()
    held = HeldCallLines()
    HELD_CALL_LINES.set(held)
    unanswered = Unanswered()
    closed = ClosedWire(unanswered)
    answers = Answers(out, held, closed)
    lines = client_lines(handoff.lines, wire, inline, answers, closed)
    try:
        with closed.connection:
            async with stdio_server(lines, as_file(answers)) as streams:
                read_stream, write_stream = streams
                await server.run(
                    LenientReadStream(read_stream, write_stream, unanswered, held),
                    AnsweredOnce(write_stream, handoff, unanswered, answers),
                    server.create_initialization_options(
                        NotificationOptions(
                            tools_changed=surface.disclosure is not None
                        )
                    ),
                )
    finally:
        held.unsent()
    return closed.failure


def _serve_http(
    surface: ToolSurface,
    address: tuple[str, int],
    role: WorkerRole | None,
    level: str,
) -> int:
    import uvicorn

    from ..edge.connections import GuardedH11Protocol, process_limits
    from ..edge.shutdown import run_uvicorn
    from .workers import listening_sockets

    host, port = address
    sockets = None
    if role is not None:
        role.follow_supervisor()
        try:
            sockets = listening_sockets(host, port)
        except OSError as error:
            return _cannot_listen(host, port, error)
    app = http_app(surface)
    logger.info(
        "serving %d tools at http://%s:%d%s%s",
        len(surface.definitions),
        shown_host(host),
        port,
        HTTP_PATH,
        f" (worker {role.index} of {role.count})" if role is not None else "",
    )
    config = uvicorn.Config(
        app,
        host=host,
        port=port,
        log_config=None,  # configure_logging's handler writes uvicorn's lines too
        log_level=level,
        access_log=False,  # RequestLog writes the line of each request
        http=GuardedH11Protocol,
        backlog=process_limits().backlog,
    )
    return run_uvicorn(config, sockets, role.ready if role is not None else None)


def _usage(package: str, message: str) -> int:
    print(printable(f"python -m {package} serve: error: {message}"), file=sys.stderr)
    return 2
