"""A text tool's view (``templates/executors/text.py.jinja``): its template compiled
into the statements and the expression of its text."""

from __future__ import annotations

from dataclasses import dataclass

from mcigen_runtime.templating.compiler import compile_text

from ... import ir
from ..pysource import Code, code
from .view import RESULTS, TEMPLATE_FAILURES, Build, ExecutorView, present

TEXT_OUTPUT_LIMIT = "_active(_LIMITS).text_output"
"""What a text tool's loops may render: the package's limit, or the caller's."""


@dataclass
class TextView(ExecutorView):
    expression: Code = code('""')
    may_fail: bool = False


def text_view(build: Build, execution: ir.TextExecution) -> TextView:
    made = compile_text(
        execution.text.template, present(build.planned.tool), limit=TEXT_OUTPUT_LIMIT
    )
    view = TextView()
    view.expression = view.compile(made)
    view.may_fail = made.may_fail
    view.imports.add((RESULTS, "text_result as _text_result"))
    if made.bounded:
        view.imports.add(("mcigen_runtime.limits", "active as _active"))
    if made.may_fail:  # a runtime lookup may fail: the call returns an error
        view.imports.update(TEMPLATE_FAILURES)
    return view
