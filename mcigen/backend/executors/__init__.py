"""One view per execution kind, each beside its template
(``templates/executors/<kind>.py.jinja``) and the runtime face its code calls
(``mcigen_runtime.executors.<kind>``):
what the template needs to know about one tool's executor, computed from the
planned IR. A new kind is one module here and one entry in :data:`VIEWS`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ... import ir
from .cli import cli_view
from .file import file_view
from .http import http_view
from .mcp import mcp_view
from .sequence import sequence_view
from .text import text_view
from .view import Build, ExecutorView

__all__ = ["VIEWS", "Build", "ExecutorView", "executor_view"]

VIEWS: dict[type, Callable[[Build, Any], ExecutorView]] = {
    ir.TextExecution: text_view,
    ir.FileExecution: file_view,
    ir.CliExecution: cli_view,
    ir.HttpExecution: http_view,
    ir.McpExecution: mcp_view,
    ir.SequenceExecution: sequence_view,
}


def executor_view(build: Build) -> ExecutorView:
    execution = build.planned.tool.execution
    return VIEWS[type(execution)](build, execution)
