"""An MCP tool's view (``templates/executors/mcp.py.jinja``): the server it calls,
the tool's name there, and the keywords of the runtime's ``call_mcp_tool``
(``mcigen_runtime.executors.mcp``)."""

from __future__ import annotations

from dataclasses import dataclass

from ... import ir
from ..pysource import Code, code, literal
from .view import TEMPLATE_FAILURES, Build, ExecutorView, Keyword, executor_face

_REPEATABLE = ("readOnlyHint", "idempotentHint")
_TIMEOUT = code("_timeout: float | None = None")
_TIMEOUT_DOC = (
    "Seconds to wait for the answer, instead of the server's "
    "``config.timeout_ms`` (else 60 s)."
)


@dataclass
class McpView(ExecutorView):
    tool_name: Code = code('""')
    """The tool's name on the server, as a Python literal."""
    timeout: Code = code("timeout")
    """The seconds a call waits: the caller's ``timeout``, else the tool's own
    when it has one (None: the server's)."""
    repeatable: bool = False
    """Whether the tool may run twice (read-only or idempotent), so that a call
    whose connection broke after it went out may be made again."""
    task_support: Code | None = None
    """The tool's ``taskSupport`` on its server, as a Python literal, unless it
    is the default (``forbidden``)."""


def mcp_view(build: Build, execution: ir.McpExecution) -> McpView:
    tool = build.planned.tool
    server = build.servers[execution.server_name]
    view = McpView(
        tool_name=literal(execution.tool_name),
        repeatable=any(tool.annotations.get(hint) is True for hint in _REPEATABLE),
        task_support=(
            None
            if execution.task_support == "forbidden"
            else literal(execution.task_support)
        ),
        awaits=True,
        needs_props=True,
        server=server,
    )
    description = _TIMEOUT_DOC
    if execution.timeout_ms is not None:
        seconds = literal(execution.timeout_ms / 1000)
        view.timeout = code(f"{seconds} if timeout is None else timeout")
        description = f"Seconds to wait for the answer (else {seconds})."
    view.keyword = Keyword(_TIMEOUT, ("_timeout", description), code(", _timeout"))
    view.imports.add(executor_face("mcp"))
    view.use_helpers(server.helpers)
    if server.can_fail:
        view.imports.update(TEMPLATE_FAILURES)
    return view
