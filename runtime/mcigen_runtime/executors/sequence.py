"""Sequences (MTDF's ``sequence``): tools run one after another in the call's
working directory, each given the call's arguments under its step's own, stopping
at the first failure with a result that names the failed step.

The sequence's ``timeout_seconds`` (the call's, else its tool's) bounds the whole
call, steps and the pauses between them: a step's command gets at most what is
left (see :mod:`mcigen_runtime.executors.deadline`), and a pause that would pass
the deadline ends the call there, with a result saying it timed out.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ..limits import MAX_TIMEOUT_S
from ..results import ToolResult, error_result, text_result
from .deadline import within

Invoker = Callable[[Mapping[str, Any], Mapping[str, str]], ToolResult]
AsyncInvoker = Callable[[Mapping[str, Any], Mapping[str, str]], Awaitable[ToolResult]]

NOT_PASSED_ON = frozenset({"execution_mode"})
"""Call arguments that concern the sequence itself, not its steps."""
TIMEOUT = "timeout_seconds"


@dataclass(frozen=True)
class Step:
    label: str
    """The step's tool as the results name it (``cargo fmt``)."""
    skip_message: str
    """What the result says when the step is skipped."""
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
    report, clock = _Report(len(sequence.steps)), _Clock(sequence, raw)
    with within(clock.deadline):
        for index, step, args in _steps(sequence, raw):
            if index > 1:
                pause = clock.pause()
                time.sleep(pause)
                if clock.timed_out(pause):
                    return report.timed_out(index, step, clock)
            if _skipped(step, args):
                report.skip(step)
            elif report.add(index, step, step.invoke(args, env)):
                break
    return report.result()


async def run_sequence_async(
    sequence: Sequence, raw: Mapping[str, Any], env: Mapping[str, str]
) -> ToolResult:
    report, clock = _Report(len(sequence.steps)), _Clock(sequence, raw)
    with within(clock.deadline):
        for index, step, args in _steps(sequence, raw):
            if index > 1:
                pause = clock.pause()
                await asyncio.sleep(pause)
                if clock.timed_out(pause):
                    return report.timed_out(index, step, clock)
            if _skipped(step, args):
                report.skip(step)
            elif report.add(index, step, await step.invoke_async(args, env)):
                break
    return report.result()


class _Clock:
    """The sequence's deadline, if its call has a timeout, and its pauses."""

    def __init__(self, sequence: Sequence, raw: Mapping[str, Any]) -> None:
        self.delay_s = min(sequence.delay_s, MAX_TIMEOUT_S)
        timeout = raw.get(TIMEOUT)
        if timeout is None:
            timeout = sequence.defaults.get(TIMEOUT)
        self.timeout_s: float | None = None
        """None where the timeout is missing, or not one its steps take (the first
        step then says why)."""
        self.deadline: float | None = None
        if isinstance(timeout, int) and not isinstance(timeout, bool) and timeout >= 0:
            self.timeout_s = float(min(timeout, MAX_TIMEOUT_S))
            self.deadline = time.monotonic() + self.timeout_s

    def pause(self) -> float:
        """How long to pause before the next step: the delay, or what is left."""
        if self.deadline is None:
            return self.delay_s
        return min(self.delay_s, max(self.deadline - time.monotonic(), 0.0))

    def timed_out(self, pause: float) -> bool:
        """Whether the deadline has come (the pause was cut to it, or it has passed)."""
        if self.deadline is None:
            return False
        return pause < self.delay_s or time.monotonic() >= self.deadline


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
        self.parts.append(step.skip_message)

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

    def timed_out(self, index: int, step: Step, clock: _Clock) -> ToolResult:
        """The deadline came before step ``index`` could start."""
        body = "".join(f"\n\n{part}" for part in self.parts)
        return error_result(
            f"Sequence timed out after {clock.timeout_s:g} seconds, before step "
            f"{index} ({step.label}) started:{body}",
            {"failedStep": index},
        )

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
