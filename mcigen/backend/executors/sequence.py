"""A sequence tool's view (``templates/executors/sequence.py.jinja``): its steps as
its generated code names them: each step's label, its target's invokers (imported
from the target's group when it is another) and its own arguments."""

from __future__ import annotations

from dataclasses import dataclass, field

from ... import ir
from ..pysource import Code, code, ident, literal
from .view import Build, ExecutorView

SEQUENCE = "mcigen_runtime.executors.sequence"


@dataclass
class SequenceStepView:
    label: Code
    skip_message: Code
    invoke: Code
    invoke_async: Code
    args: Code
    skip_if_file_exists: Code
    skip_if_file_missing: Code


@dataclass
class SequenceView(ExecutorView):
    steps: list[SequenceStepView] = field(default_factory=list)
    delay_s: Code = code("0.0")
    defaults: Code = code("{}")


def sequence_view(build: Build, execution: ir.SequenceExecution) -> SequenceView:
    """The steps, and the imports of the runtime's sequence runner and of every
    target invoker another group defines."""
    view = SequenceView(
        delay_s=literal(execution.step_delay_ms / 1000),
        defaults=literal(execution.defaults),
        awaits=True,
        limited=False,
    )
    for step in execution.steps:
        target = build.tools[step.tool]
        invoke = f"_invoke_{target.python_name}"
        if target.group != build.planned.group:
            module = f".{target.group}"
            view.imports.update({(module, invoke), (module, f"{invoke}_async")})
        view.steps.append(
            SequenceStepView(
                label=literal(step.label),
                skip_message=literal(step.skip_message),
                invoke=ident(invoke),
                invoke_async=ident(f"{invoke}_async"),
                args=literal(step.args),
                skip_if_file_exists=literal(step.skip_if_file_exists),
                skip_if_file_missing=literal(step.skip_if_file_missing),
            )
        )
    view.imports.update(
        {
            (SEQUENCE, "Sequence as _Sequence"),
            (SEQUENCE, "Step as _Step"),
            (SEQUENCE, "run_sequence as _run_sequence"),
            (SEQUENCE, "run_sequence_async as _run_sequence_async"),
        }
    )
    return view
