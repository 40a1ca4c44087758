"""A file tool's view (``templates/executors/file.py.jinja``): its path compiled,
the path policy it is checked under, and how the file is rendered
(``mcigen_runtime.executors.file``)."""

from __future__ import annotations

from dataclasses import dataclass

from mcigen_runtime.templating.compiler import compile_text

from ... import ir
from ..pysource import Code, code, literal
from .view import (
    PATH_FAILURES,
    PATH_POLICY,
    RESULTS,
    Build,
    ExecutorView,
    executor_face,
    path_policy,
    present,
)


@dataclass
class FileView(ExecutorView):
    path: Code = code('""')
    policy: Code = code("")
    """The keywords of ``checked_path``."""
    templating: Code = code("True")
    whitespace: Code = code('"compat"')


def file_view(build: Build, execution: ir.FileExecution) -> FileView:
    made = compile_text(execution.path.template, present(build.planned.tool))
    view = FileView(
        policy=path_policy(build.planned),
        templating=literal(execution.enable_templating),
        whitespace=literal(build.whitespace),
        awaits=True,  # the async twin reads the file in a worker thread
        needs_context=True,  # the file's own template sees the context
        base_dir=True,
        reads_files=True,
    )
    view.path = view.compile(made)
    view.imports.update(PATH_FAILURES)
    view.imports.update(
        {
            (RESULTS, "text_result as _text_result"),
            (PATH_POLICY, "checked_path as _checked_path"),
            executor_face("file"),
        }
    )
    return view
