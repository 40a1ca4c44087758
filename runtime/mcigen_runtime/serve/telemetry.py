"""OpenTelemetry traces and metrics of the server's requests and tool calls, when
the ``otel`` extra is installed and the standard ``OTEL_*`` variables ask for them.

Traces come from the MCP SDK's own middleware (``OpenTelemetryMiddleware``, on in
every SDK server): a span per request, named ``tools/call NAME`` for a call, with
the GenAI and MCP semantic conventions' attributes (``gen_ai.operation.name`` =
``execute_tool``, ``gen_ai.tool.name``, ``mcp.method.name``,
``jsonrpc.request.id``, ``error.type``: ``tool_error`` for an error result, the
JSON-RPC code for a refusal), parented by the ``traceparent`` a client sends in
``_meta``. It writes to the global tracer provider, a no-op until one is set.

Metrics come from :class:`CallMetrics`, a middleware of the same kind: the MCP
semantic conventions' ``mcp.server.operation.duration`` histogram (seconds) of
every request, with ``mcp.method.name``, ``mcp.protocol.version`` and, for a
tool call, ``gen_ai.operation.name``, ``gen_ai.tool.name`` and ``error.type``.

:func:`configure_from_environment` sets the global providers up when
``OTEL_TRACES_EXPORTER`` or ``OTEL_METRICS_EXPORTER`` names an exporter (``otlp``,
``console``, any installed one; ``none`` for none), or an OTLP endpoint is set
(``OTEL_EXPORTER_OTLP_ENDPOINT`` or a signal's own), unless ``OTEL_SDK_DISABLED``
is true. The exporters, the resource (``OTEL_SERVICE_NAME``, the package's name
by default; ``OTEL_RESOURCE_ATTRIBUTES``) and the batching read their own
variables. A provider already set (``opentelemetry-instrument``, an embedding
application) is kept. Without those variables, nothing of OpenTelemetry's SDK is
imported; asked for without the extra, the server says what to install.
"""

from __future__ import annotations

import functools
import logging
import sys
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..extras import require_extra

if TYPE_CHECKING:
    from mcp.server.context import CallNext, HandlerResult, ServerRequestContext
    from mcp.server.lowlevel import Server
    from starlette.types import ASGIApp, Message, Receive, Scope, Send

logger = logging.getLogger(__name__)

DURATION_METRIC = "mcp.server.operation.duration"
DURATION_BUCKETS = (0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1, 2, 5, 10, 30, 60, 120, 300)
"""The bucket boundaries (s) the MCP semantic conventions advise."""

_ENDPOINTS = {
    "traces": ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"),
    "metrics": ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT"),
}

_metrics_on = False
"""Whether :func:`instrument` adds :class:`CallMetrics` (a meter provider is set)."""

_ours: list[Any] = []
"""The providers :func:`configure_from_environment` set, shut down (which exports
what they hold) by :class:`ExportAtShutdown`."""


def exporters_asked(env: Mapping[str, str], signal: str) -> list[str]:
    """The exporters the variables name for ``signal`` (``traces``, ``metrics``):
    those of ``OTEL_<SIGNAL>_EXPORTER``, else ``otlp`` when an OTLP endpoint is
    set; none when ``OTEL_SDK_DISABLED`` is true."""
    if env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true":
        return []
    named = env.get(f"OTEL_{signal.upper()}_EXPORTER", "").strip()
    if named:
        names = [name.strip() for name in named.split(",") if name.strip()]
        return [name for name in names if name != "none"]
    return ["otlp"] if any(env.get(name) for name in _ENDPOINTS[signal]) else []


def may_trace(env: Mapping[str, str]) -> bool:
    """Whether the SDK's middleware may record the server's requests: exporters
    are asked for, or OpenTelemetry's API is loaded already (by
    ``opentelemetry-instrument``, or an application serving the package)."""
    return bool(
        exporters_asked(env, "traces")
        or exporters_asked(env, "metrics")
        or "opentelemetry.trace" in sys.modules
    )


def configure_from_environment(env: Mapping[str, str], service_name: str) -> None:
    """Set the global providers up as the variables ask (see the module docs).
    Raises the runtime's ``MissingExtraError`` when they ask without the extra,
    and ``ValueError`` naming an exporter that is not installed."""
    global _metrics_on
    traces = exporters_asked(env, "traces")
    metrics = exporters_asked(env, "metrics")
    if not traces and not metrics:
        return
    require_extra("otel")
    from opentelemetry import metrics as metrics_api
    from opentelemetry import trace
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider

    resource = Resource.create(
        {} if env.get("OTEL_SERVICE_NAME") else {"service.name": service_name}
    )
    if traces and not isinstance(trace.get_tracer_provider(), TracerProvider):
        from opentelemetry.sdk.trace.export import BatchSpanProcessor

        tracer_provider = TracerProvider(resource=resource)
        for exporter in _exporters("traces", traces):
            tracer_provider.add_span_processor(BatchSpanProcessor(exporter))
        trace.set_tracer_provider(tracer_provider)
        _ours.append(tracer_provider)
    if metrics:
        if not isinstance(metrics_api.get_meter_provider(), MeterProvider):
            from opentelemetry.sdk.metrics.export import (
                PeriodicExportingMetricReader,
            )

            readers = [
                PeriodicExportingMetricReader(exporter)
                for exporter in _exporters("metrics", metrics)
            ]
            meter_provider = MeterProvider(metric_readers=readers, resource=resource)
            metrics_api.set_meter_provider(meter_provider)
            _ours.append(meter_provider)
        _metrics_on = True
    logger.info(
        "OpenTelemetry on",
        extra={"fields": {"traces": traces, "metrics": metrics}},
    )


def _exporters(signal: str, names: list[str]) -> list[Any]:
    """An exporter for each of ``names``, found as the SDK finds them (by the
    entry points of ``opentelemetry_<signal>_exporter``)."""
    from importlib.metadata import entry_points

    found = []
    for name in names:
        points = entry_points(group=f"opentelemetry_{signal}_exporter", name=name)
        if not points:
            raise ValueError(
                f"OTEL_{signal.upper()}_EXPORTER: no {signal} exporter {name!r} is "
                "installed (the otel extra brings otlp and console)"
            )
        found.append(next(iter(points)).load()())
    return found


class ExportAtShutdown:
    """ASGI middleware: at the app's lifespan shutdown, the providers this module
    set are shut down, exporting what they still hold. Their own exit hook comes
    too late: uvicorn ends the process by the signal that stopped it, and no exit
    hook runs then."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "lifespan" or not _ours:
            await self.app(scope, receive, send)
            return

        async def send_lifespan(message: Message) -> None:
            if message["type"] == "lifespan.shutdown.complete":
                import anyio

                await anyio.to_thread.run_sync(_shut_down)
            await send(message)

        await self.app(scope, receive, send_lifespan)


def _shut_down() -> None:
    while _ours:
        _ours.pop().shutdown()


def records_requests() -> bool:
    """Whether a request the SDK's server serves now is recorded: metrics are
    on (:class:`CallMetrics`), or a tracer provider is set, by this module or
    anyone (the SDK's spans record then; without one they are no-ops)."""
    if _metrics_on:
        return True
    trace = _trace_api()
    return not isinstance(trace.get_tracer_provider(), trace.ProxyTracerProvider)


@functools.cache
def _trace_api() -> Any:
    """``opentelemetry.trace``, imported once (the SDK's server imports it)."""
    from opentelemetry import trace

    return trace


def instrument(server: Server[Any]) -> None:
    """Add :class:`CallMetrics` to ``server`` when metrics are on (the SDK's
    tracing middleware is there already)."""
    if _metrics_on:
        server.middleware.append(CallMetrics())


class CallMetrics:
    """The SDK middleware that records :data:`DURATION_METRIC` for each request."""

    def __init__(self) -> None:
        from mcp.shared.exceptions import MCPError
        from opentelemetry import metrics

        self._mcp_error = MCPError
        """Imported once: an import statement costs microseconds every request."""
        meter = metrics.get_meter(__name__)
        self.duration = meter.create_histogram(
            DURATION_METRIC,
            unit="s",
            description="How long the server took to answer an MCP request",
            explicit_bucket_boundaries_advisory=DURATION_BUCKETS,
        )

    async def __call__(
        self, ctx: ServerRequestContext[Any, Any], call_next: CallNext
    ) -> HandlerResult:
        if ctx.request_id is None:  # a notification
            return await call_next(ctx)
        MCPError = self._mcp_error
        attributes: dict[str, Any] = {"mcp.method.name": ctx.method}
        if ctx.protocol_version:
            attributes["mcp.protocol.version"] = ctx.protocol_version
        if ctx.method == "tools/call":
            attributes["gen_ai.operation.name"] = "execute_tool"
            name = ctx.params.get("name") if ctx.params else None
            if isinstance(name, str):
                attributes["gen_ai.tool.name"] = name
        started = time.perf_counter()
        try:
            result = await call_next(ctx)
            if ctx.method == "tools/call" and _is_error(result):
                attributes["error.type"] = "tool_error"
            return result
        except MCPError as error:
            attributes["error.type"] = str(error.error.code)
            raise
        except Exception as error:
            attributes["error.type"] = type(error).__qualname__
            raise
        finally:
            self.duration.record(time.perf_counter() - started, attributes)


def _is_error(result: object) -> bool:
    """Whether a ``tools/call`` result is an error result (a model or wire JSON)."""
    if isinstance(result, Mapping):
        return result.get("isError") is True
    return getattr(result, "is_error", None) is True
