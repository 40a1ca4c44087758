"""Row 6: what a framework adapter adds to a call (issue 34): the adapter's
dispatcher running the text tool ``greet`` as the framework hands it a model's
call, against the direct call of the package's function (``greet(name=...)``, or
``await greet_async(...)`` for the async frameworks), timed in alternation in one
process. The framework's own machinery around a tool call (agent loop, callbacks,
tracing) is the framework's and is not timed.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

from benchmarks.calls import PACKAGE
from benchmarks.paths import PYTHON
from benchmarks.report import Row
from benchmarks.timing import Budget, Stats, Timed, Worker, interleave

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


ROUNDS = 2
"""Times the call budget's rounds (and four times its seconds: a run of CPU time
lasts longer on a loaded machine): the ratios are the median of every round's."""


def measure(work: Path, budget: Budget, log: Any) -> list[Row]:
    """The rows for the package ``benchpkg`` built in ``work``.

    Every call runs in one process on one core and waits for nothing, so it is
    timed by the worker's CPU time, which other processes' load does not stretch;
    a row's ratio is the median of its rounds' ratios (adapter over direct call,
    timed one after the other), so a slower or faster stretch of the run moves both
    sides of each ratio alike."""
    log(SECTION)
    calls: dict[str, tuple[str, bool]] = {
        f"direct {awaited}": (expression, awaited)
        for awaited, expression in DIRECT.items()
    }
    calls.update({name: (expression, awaited) for name, expression, awaited in CASES})
    rounds = replace(
        budget,
        repeat=budget.repeat * ROUNDS,
        max_seconds=budget.max_seconds * ROUNDS * 2,
    )
    with Worker(PYTHON, work, _SETUP, calls) as worker:
        timed = [Timed(worker, key, cpu=True) for key in calls]
        figures = dict(zip(calls, interleave(timed, rounds), strict=True))
    rows = []
    for name, _, awaited in CASES:
        ours, direct = figures[name], figures[f"direct {awaited}"]
        ratios = Stats.of(
            [a / b for a, b in zip(ours.runs, direct.runs, strict=True) if b]
        )
        rows.append(
            Row(
                SECTION,
                name,
                "us",
                ours.stats,
                baseline=direct.stats,
                baseline_name=DIRECT[awaited],
                target="adapter",
                note=f"CPU time; ×direct: median of {ratios.runs} rounds' ratios, "
                f"{ratios.low:.2f}–{ratios.high:.2f}",
                ratio_by_round=ratios,
            )
        )
    return rows
