"""OpenTelemetry of tool calls (the ``otel`` extra): spans from the MCP SDK's own
middleware with the GenAI semantic conventions and the call-duration metric, read
with the SDK's in-memory exporters, and the standard ``OTEL_*`` variables turning
it on in a real server process (``test_lazy_imports``: nothing of the SDK is
imported without them)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from .conftest import run_mcigen, schema_of, text_tool, write_schema
from .mcp_servers import free_port, listening

FAILING = {
    "name": "fail",
    "execution": {"type": "cli", "command": "sh", "args": ["-c", "exit 3"]},
}


@pytest.fixture(scope="module")
def directory(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("otel")
    schema = schema_of(text_tool("hello", "Hello {{props.who}}"), FAILING)
    path = write_schema(directory, schema, "otel.mci.json")
    result = run_mcigen("build", path, "-o", directory / "otelpkg")
    assert result.returncode == 0, result.stderr
    return directory


def environment(directory: Path, **extra: str) -> dict[str, str]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("MCIGEN_", "OTEL_"))
    }
    return {**env, "PYTHONPATH": str(directory), **extra}


IN_MEMORY = """
import asyncio, json
from mcp import Client
from opentelemetry import metrics, trace
from opentelemetry.sdk.metrics import MeterProvider
from opentelemetry.sdk.metrics.export import InMemoryMetricReader
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from mcigen_runtime.edge.settings import ServeOptions
from mcigen_runtime.serve import telemetry
from mcigen_runtime.serve.server import ToolSurface, build_server

spans = InMemorySpanExporter()
tracer_provider = TracerProvider()
tracer_provider.add_span_processor(SimpleSpanProcessor(spans))
trace.set_tracer_provider(tracer_provider)
reader = InMemoryMetricReader()
metrics.set_meter_provider(MeterProvider(metric_readers=[reader]))
# as under opentelemetry-instrument: the providers are kept, metrics are on
telemetry.configure_from_environment({"OTEL_METRICS_EXPORTER": "otlp"}, "otelpkg")
server = build_server(ToolSurface("otelpkg", ServeOptions()))

async def calls():
    async with Client(server) as client:
        await client.call_tool("hello", {"who": "Ann"})
        await client.call_tool("fail", {})
        try:
            await client.call_tool("nothing", {})
        except Exception:
            pass

asyncio.run(calls())
points = [
    {"attributes": dict(point.attributes), "count": point.count}
    for resource in reader.get_metrics_data().resource_metrics
    for scope in resource.scope_metrics
    for metric in scope.metrics
    if metric.name == "mcp.server.operation.duration"
    for point in metric.data.data_points
]
print(json.dumps({
    "spans": [
        {"name": span.name, "attributes": dict(span.attributes)}
        for span in spans.get_finished_spans()
        if span.name.startswith("tools/call")
    ],
    "points": points,
}))
"""


def test_tool_calls_give_genai_spans_and_a_duration_metric(directory: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", IN_MEMORY],
        cwd=directory,
        env=environment(directory),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout.splitlines()[-1])
    spans = {span["name"]: span["attributes"] for span in seen["spans"]}
    assert spans["tools/call hello"]["gen_ai.operation.name"] == "execute_tool"
    assert spans["tools/call hello"]["gen_ai.tool.name"] == "hello"
    assert "error.type" not in spans["tools/call hello"]
    assert spans["tools/call fail"]["error.type"] == "tool_error"
    assert spans["tools/call nothing"]["error.type"] == "-32602"
    calls = {
        point["attributes"].get("gen_ai.tool.name"): point["attributes"]
        for point in seen["points"]
        if point["attributes"]["mcp.method.name"] == "tools/call"
    }
    assert calls["hello"]["gen_ai.operation.name"] == "execute_tool"
    assert "error.type" not in calls["hello"]
    assert calls["fail"]["error.type"] == "tool_error"
    assert calls["nothing"]["error.type"] == "-32602"


def test_the_otel_variables_turn_it_on_in_a_server_process(
    directory: Path, tmp_path: Path
) -> None:
    """``serve --http`` with ``OTEL_TRACES_EXPORTER=console`` and
    ``OTEL_METRICS_EXPORTER=console``: the exporters write to stdout, the spans and
    the metric are there once the server has stopped."""
    port, out = free_port(), tmp_path / "stdout.txt"
    env = environment(
        directory,
        OTEL_TRACES_EXPORTER="console",
        OTEL_METRICS_EXPORTER="console",
        OTEL_SERVICE_NAME="otel-test",
    )
    argv = [sys.executable, "-m", "otelpkg", "serve", "--http", str(port)]
    with (
        out.open("wb") as stdout,
        listening(argv, port, cwd=directory, env=env, stdout=stdout),
    ):
        call = {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "hello", "arguments": {"who": "Ann"}},
        }
        answer = httpx.post(f"http://127.0.0.1:{port}/mcp", json=call, timeout=30)
        assert answer.json()["result"]["content"][0]["text"] == "Hello Ann"
    exported = out.read_text()
    assert '"name": "tools/call hello"' in exported
    assert '"gen_ai.tool.name": "hello"' in exported
    assert '"service.name": "otel-test"' in exported
    assert '"name": "mcp.server.operation.duration"' in exported


def test_an_exporter_that_is_not_installed_is_a_usage_error(directory: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "otelpkg", "serve", "--http", str(free_port())],
        cwd=directory,
        env=environment(directory, OTEL_TRACES_EXPORTER="jaeger-thrift"),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert "OTEL_TRACES_EXPORTER: no traces exporter 'jaeger-thrift'" in done.stderr
