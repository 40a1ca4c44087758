"""Sequences (MTDF's ``sequence``): tools run one after another in the call's
working directory, each given the call's arguments under its step's own, stopping
at the first failure with a result that names the failed step."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..results import ToolResult, error_result, text_result

Invoker = Callable[[Mapping[str, Any], Mapping[str, str]], ToolResult]
AsyncInvoker = Callable[[Mapping[str, Any], Mapping[str, str]], Awaitable[ToolResult]]

NOT_PASSED_ON = frozenset({"execution_mode"})
"""Call arguments that concern the sequence itself, not its steps."""


@dataclass(frozen=True)
class Step:
    label: str
    """The step's tool as the results name it (``cargo fmt``)."""
    description: str | None
    invoke: Invoker
    invoke_async: AsyncInvoker
    args: Mapping[str, Any]
    """The step's own arguments, which win over the call's."""
    skip_if_file_exists: str | None = None
    skip_if_file_missing: str | None = None


@dataclass(frozen=True)
class Sequence:
    steps: tuple[Step, ...]
    delay_s: float
    """The pause between two steps."""
    defaults: Mapping[str, Any]
    """Arguments every step gets unless the call gives them (``timeout_seconds``)."""


def run_sequence(
    sequence: Sequence, raw: Mapping[str, Any], env: Mapping[str, str]
) -> ToolResult:
    report = _Report(len(sequence.steps))
    for index, step, args in _steps(sequence, raw):
        if index > 1:
            time.sleep(sequence.delay_s)
        if _skipped(step, args):
            report.skip(step)
        elif report.add(index, step, step.invoke(args, env)):
            break
    return report.result()


async def run_sequence_async(
    sequence: Sequence, raw: Mapping[str, Any], env: Mapping[str, str]
) -> ToolResult:
    report = _Report(len(sequence.steps))
    for index, step, args in _steps(sequence, raw):
        if index > 1:
            await asyncio.sleep(sequence.delay_s)
        if _skipped(step, args):
            report.skip(step)
        elif report.add(index, step, await step.invoke_async(args, env)):
            break
    return report.result()


def _steps(
    sequence: Sequence, raw: Mapping[str, Any]
) -> Iterator[tuple[int, Step, dict[str, Any]]]:
    passed_on = {k: v for k, v in raw.items() if k not in NOT_PASSED_ON}
    base = {**sequence.defaults, **passed_on}
    for index, step in enumerate(sequence.steps, start=1):
        yield index, step, {**base, **step.args}


def _skipped(step: Step, args: Mapping[str, Any]) -> bool:
    directory = args.get("working_directory")
    root = directory if isinstance(directory, str) else os.curdir
    if step.skip_if_file_exists is not None:
        if os.path.exists(os.path.join(root, step.skip_if_file_exists)):
            return True
    if step.skip_if_file_missing is not None:
        if not os.path.exists(os.path.join(root, step.skip_if_file_missing)):
            return True
    return False


class _Report:
    """What the steps said, in Ahma's words for a synchronous sequence."""

    def __init__(self, count: int) -> None:
        self.count = count
        self.parts: list[str] = []
        self.failed_at: int | None = None

    def skip(self, step: Step) -> None:
        self.parts.append(
            f"Sequence step '{step.label}' ({step.description or ''}) "
            "skipped due to environment override."
        )

    def add(self, index: int, step: Step, result: ToolResult) -> bool:
        """Record a step's result; whether the sequence stops here."""
        if result.isError:
            self.failed_at = index
            self.parts.append(
                f"✗ Step {index} FAILED: {step.label}\nError: {result.text}"
            )
        else:
            output = result.text or "(no output)"
            self.parts.append(f"OK Step {index} completed: {step.label}\n{output}")
        return result.isError

    def result(self) -> ToolResult:
        body = "\n\n".join(self.parts)
        if self.failed_at is not None:
            return error_result(
                f"Sequence failed at step {self.failed_at}:\n\n{body}",
                {"failedStep": self.failed_at},
            )
        return text_result(
            f"All {self.count} sequence steps completed successfully:\n\n{body}"
        )
