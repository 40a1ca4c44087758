"""Row 6: what a framework adapter adds to a call (issue 34): the adapter's
dispatcher running the text tool ``greet`` as the framework hands it a model's
call, against the direct call of the package's function (``greet(name=...)``, or
``await greet_async(...)`` for the async frameworks), timed in alternation in one
process. The framework's own machinery around a tool call (agent loop, callbacks,
tracing) is the framework's and is not timed.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.calls import PACKAGE
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Budget, Timed, Worker, interleave

SECTION = "adapter dispatch"

PROPS = {"name": "Ann"}

_SETUP = f"""
import json
import {PACKAGE} as package
props = {PROPS!r}
arguments = json.dumps(props)

from anthropic.types import ToolUseBlock
from mcigen_runtime.adapters import anthropic
kit = anthropic.tools(package, only=["greet"])
use = ToolUseBlock(type="tool_use", id="toolu_1", name="greet", input=props)

from agents.tool_context import ToolContext
from mcigen_runtime.adapters.openai_agents import function_tools
(function_tool,) = function_tools(package, only=["greet"])
context = ToolContext(
    None, tool_name="greet", tool_call_id="call_1", tool_arguments=arguments
)

from mcigen_runtime.adapters.langchain import structured_tools
(structured,) = structured_tools(package, only=["greet"])

from mcigen_runtime.adapters.pydantic_ai import toolset
pydantic_toolset = toolset(package, only=["greet"])
"""

CASES = (
    # (row, the adapter's dispatch of one call, whether it is awaited)
    ("Anthropic SDK, AnthropicTools.call(tool_use)", "kit.call(use)", False),
    ("LangChain, StructuredTool.func", "structured.func(**props)", False),
    (
        "OpenAI Agents SDK, FunctionTool.on_invoke_tool",
        "function_tool.on_invoke_tool(context, arguments)",
        True,
    ),
    (
        "PydanticAI, toolset.call_tool",
        "pydantic_toolset.call_tool('greet', props, None, None)",
        True,
    ),
)
DIRECT = {False: "package.greet(**props)", True: "package.greet_async(**props)"}


def measure(work: Path, budget: Budget, log: Any) -> list[Row]:
    """The rows for the package ``benchpkg`` built in ``work``."""
    log(SECTION)
    calls: dict[str, tuple[str, bool]] = {
        f"direct {awaited}": (expression, awaited)
        for awaited, expression in DIRECT.items()
    }
    calls.update({name: (expression, awaited) for name, expression, awaited in CASES})
    with Worker(PYTHON, work, _SETUP, calls) as worker:
        timed = [Timed(worker, key) for key in calls]
        figures = dict(zip(calls, interleave(timed, budget), strict=True))
    return [
        Row(
            SECTION,
            name,
            "us",
            figures[name].stats,
            baseline=figures[f"direct {awaited}"].stats,
            baseline_name=DIRECT[awaited],
            target="adapter",
        )
        for name, _, awaited in CASES
    ]
