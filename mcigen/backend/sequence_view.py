"""A sequence tool's steps as its generated code names them: each step's label,
its target's invokers (imported from the target's group when it is another) and
its own arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .. import ir
from .pysource import Code, ident, literal


@dataclass
class SequenceStepView:
    label: Code
    description: Code
    invoke: Code
    invoke_async: Code
    args: Code
    skip_if_file_exists: Code
    skip_if_file_missing: Code


@dataclass
class SequenceView:
    steps: list[SequenceStepView]
    delay_s: Code
    defaults: Code


def sequence_view(
    planned: ir.PlannedTool,
    execution: ir.SequenceExecution,
    targets: Mapping[str, ir.PlannedTool],
    imports: set[tuple[str, str]],
) -> SequenceView:
    """``targets``: the package's tools by name; ``imports`` gains the runtime's
    sequence runner and every target invoker another group defines."""
    steps = []
    for step in execution.steps:
        target = targets[step.tool]
        invoke = f"_invoke_{target.python_name}"
        if target.group != planned.group:
            module = f".{target.group}"
            imports.update({(module, invoke), (module, f"{invoke}_async")})
        steps.append(
            SequenceStepView(
                label=literal(step.label),
                description=literal(step.description),
                invoke=ident(invoke),
                invoke_async=ident(f"{invoke}_async"),
                args=literal(step.args),
                skip_if_file_exists=literal(step.skip_if_file_exists),
                skip_if_file_missing=literal(step.skip_if_file_missing),
            )
        )
    imports.update(
        {
            ("mcigen_runtime.executors.sequence", "Sequence as _Sequence"),
            ("mcigen_runtime.executors.sequence", "Step as _Step"),
            ("mcigen_runtime.executors.sequence", "run_sequence as _run_sequence"),
            (
                "mcigen_runtime.executors.sequence",
                "run_sequence_async as _run_sequence_async",
            ),
        }
    )
    return SequenceView(
        steps, literal(execution.step_delay_ms / 1000), literal(execution.defaults)
    )
