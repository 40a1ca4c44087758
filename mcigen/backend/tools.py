"""What the group template needs to know about one tool: its public functions
(signature, docstring, how they gather their input) and its invoker's prologue,
around its executor's view (:mod:`.executors`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeGuard

from .. import ir
from ..diagnostics import quoted
from .executors import Build, ExecutorView, executor_view
from .executors.mcp_servers import McpServerView
from .executors.view import declared
from .input_guard import InputDoubt, input_doubt
from .pysource import Code, code, docstring, ident, literal

NONE = code("None")

_ALWAYS: frozenset[tuple[str, str]] = frozenset(
    {
        ("__future__", "annotations"),
        ("collections.abc", "Awaitable"),
        ("collections.abc", "Callable"),
        ("collections.abc", "Mapping"),
        ("os", "environ as _environ"),
        ("typing", "Any"),
        ("mcigen_runtime.results", "ToolResult"),
    }
)


@dataclass
class ToolView:
    kind: str
    """The execution kind, which names the template of its executor."""
    python_name: Code
    name_literal: Code
    docstring: Code
    parameters: tuple[ir.Parameter, ...] | None
    signature: Code
    gather: list[Code]
    prologue: list[Code]
    executor: ExecutorView
    imports: set[tuple[str, str]]
    needs_context: bool
    """Whether the invoker builds the template context."""
    forwarded: Code
    """What the public functions pass their invoker after the input and the
    environment: their own keywords that are not tool input (``, _timeout``)."""
    result_type: Code
    """What the public functions return."""
    output_model: Code | None
    """The model that types the result's ``structured`` value (an outputSchema's)."""
    models_module: Code
    """Where the group's models are (``.models.<group>``), imported when one is
    needed: the input models when input is in doubt, an output model per call."""
    item_sets: frozenset[str]
    """The item types' sets its input check reads (``input_guard.item_set_bindings``)."""

    @property
    def awaits(self) -> bool:
        """Whether the async twin awaits ``_invoke_<name>_async`` (real async I/O)."""
        return self.executor.awaits


def tool_view(
    planned: ir.PlannedTool,
    whitespace: str,
    mcp_servers: Mapping[str, McpServerView] | None = None,
    tools: Mapping[str, ir.PlannedTool] | None = None,
    confine_cli: bool = False,
) -> ToolView:
    """``mcp_servers``: the server functions of the package, by server name;
    ``tools``: the package's tools by name (what a sequence's steps run);
    ``confine_cli``: the build's ``--confine-cli``."""
    tool = planned.tool
    parameters = planned.parameters
    build = Build(planned, whitespace, mcp_servers or {}, tools or {}, confine_cli)
    executor = executor_view(build)
    imports = set(executor.imports)
    models = models_module(planned.group)
    doubt = (
        input_doubt(tool.input_schema, planned.model_name)
        if tool.input_schema
        else None
    )
    validation = _validation(planned, models, doubt)
    if validation:
        imports.add(("mcigen_runtime.validation", "validate_input as _validate_input"))
    if any("Literal[" in p.annotation for p in parameters or ()):
        imports.add(("typing", "Literal"))
    keyword = executor.keyword
    signature = parameter_list(parameters)
    if keyword is not None:
        signature = code(
            f"*, {keyword.parameter}, {signature}"
            if parameters is None
            else f"{signature}, {keyword.parameter}"
        )
    result_type, output_model = code("ToolResult"), None
    if planned.output_model_name is not None:
        output_model = ident(planned.output_model_name)
        result_type = code(f"StructuredResult[{output_model}]")
        imports.update(
            {
                ("mcigen_runtime.structured", "StructuredResult"),
                (
                    "mcigen_runtime.structured",
                    "structured_result as _structured_result",
                ),
            }
        )
    needs_context = executor.needs_context or any(
        c.needs_context for c in executor.compiled
    )
    whole_props = needs_context or executor.needs_props
    props_keys = set().union(*(c.props_keys for c in executor.compiled))
    return ToolView(
        kind=ir.execution_kind(tool.execution),
        python_name=ident(planned.python_name),
        name_literal=literal(tool.name),
        docstring=_docstring(
            tool,
            parameters,
            planned.output_model_name,
            *([keyword.description] if keyword else []),
        ),
        parameters=parameters,
        signature=signature,
        gather=_gather(parameters or ()),
        prologue=[code(s) for s in validation + _props(tool, whole_props, props_keys)],
        executor=executor,
        imports=imports,
        needs_context=needs_context,
        forwarded=keyword.forwarded if keyword else code(""),
        result_type=result_type,
        output_model=output_model,
        models_module=models,
        item_sets=doubt.item_sets if doubt is not None else frozenset(),
    )


def models_module(group: str) -> Code:
    """The module of ``group``'s models, as its group module imports it."""
    return code(f".models.{ident(group)}")


def group_imports(views: list[ToolView]) -> frozenset[tuple[str, str]]:
    return _ALWAYS.union(*(view.imports for view in views))


def _validation(
    planned: ir.PlannedTool, models_module: Code, doubt: InputDoubt | None
) -> list[str]:
    """Validate ``raw`` with the model, unless ``doubt``, the fast check, finds
    nothing to doubt (or the schema accepts any mapping); the model gives back the
    input the tool gets (whole floats typed integer made ints). The model is
    imported here, so that input no check doubts never loads the models (nor
    pydantic)."""
    tool = planned.tool
    if not tool.input_schema:
        return []
    model = ident(planned.model_name)
    validate = [  # black's empty line after an import, which it would add
        f"from {models_module} import {model}",
        "",
        f"raw = _validate_input({model}, raw, {literal(tool.name)})",
    ]
    if doubt is None:
        return ["\n".join(validate)]
    if not doubt.expression:
        return []
    return [f"if {doubt.expression}:\n" + "\n".join(_indented(validate))]


def _indented(lines: list[str]) -> list[str]:
    return [f"    {line}" if line else line for line in lines]


def _props(tool: ir.Tool, whole: bool, keys: set[str]) -> list[str]:
    """Build ``props`` (when the executor reads it: ``whole``, or the ``keys`` its
    compiled code reads) as mci-py does: declared properties only, in schema order,
    defaults applied, optional ones absent when not given. Code that reads only
    declared keys without a default reads them from ``raw``: the same values and
    the same absences, with no dict made per call."""
    if not whole and not keys:
        return []
    properties = declared(tool)
    if not properties:
        return ["props: dict[str, Any] = dict(raw)"]
    required = set((tool.input_schema or {}).get("required") or ())
    if not whole and all(
        key in properties and (key in required or not _has_default(properties[key]))
        for key in keys
    ):
        return ["props: Mapping[str, Any] = raw"]
    pairs: list[tuple[str, str | None]] = []
    for property_name, schema in properties.items():
        key = literal(property_name)
        if property_name in required:
            pairs.append((key, f"raw[{key}]"))
        elif _has_default(schema):
            pairs.append((key, f"raw.get({key}, {literal(schema['default'])})"))
        else:
            pairs.append((key, None))
    if all(value is not None for _, value in pairs):
        entries = ", ".join(f"{key}: {value}" for key, value in pairs)
        return [f"props: dict[str, Any] = {{{entries}}}"]
    statements = [
        (
            f"props[{key}] = {value}"
            if value is not None
            else f"if {key} in raw:\n    props[{key}] = raw[{key}]"
        )
        for key, value in pairs
    ]
    return ["props: dict[str, Any] = {}", *statements]


def _has_default(schema: object) -> TypeGuard[dict[str, Any]]:
    return isinstance(schema, dict) and "default" in schema


def parameter_list(parameters: tuple[ir.Parameter, ...] | None) -> Code:
    """A tool function's parameters as its ``def`` writes them: keyword-only, typed
    from the input schema, or ``**props: Any`` for a tool without properties."""
    if parameters is None:
        return code("**props: Any")
    parts = []
    for p in parameters:
        if p.required:
            parts.append(f"{ident(p.python_name)}: {p.annotation}")
        else:
            default = literal(p.default) if p.has_default else NONE
            parts.append(f"{ident(p.python_name)}: {p.annotation} = {default}")
    return code("*, " + ", ".join(parts))


def _gather(parameters: tuple[ir.Parameter, ...]) -> list[Code]:
    """Statements collecting the keyword arguments into ``_raw`` under their schema names;
    an optional argument left at None is left out, as if the caller had not given it."""
    always = [p for p in parameters if p.required or p.has_default]
    entries = ", ".join(f"{literal(p.name)}: {ident(p.python_name)}" for p in always)
    lines = [code(f"_raw: dict[str, Any] = {{{entries}}}")]
    for p in parameters:
        if not (p.required or p.has_default):
            key, python = literal(p.name), ident(p.python_name)
            lines.append(code(f"if {python} is not None:\n    _raw[{key}] = {python}"))
    return lines


def _docstring(
    tool: ir.Tool,
    parameters: tuple[ir.Parameter, ...] | None,
    output_model_name: str | None,
    *keywords: tuple[str, str],
) -> Code:
    """``keywords``: (name, description) of the function's keywords that are not
    tool input, after its parameters."""
    summary = (
        tool.description or ""
    ).strip() or f"Run the MCI tool {quoted(tool.name)}."
    lines = [summary]
    if parameters or keywords:
        lines += ["", "Args:"]
        properties = declared(tool)
        for p in parameters or ():
            described = (p.description or "").strip().replace("\n", "\n        ")
            described = described or _kind_summary(p.annotation)
            described += _format_note(properties.get(p.name))
            lines.append(f"    {p.python_name}: {described}".rstrip())
        lines += [f"    {name}: {described}" for name, described in keywords]
    lines += [
        "",
        "Returns:",
        "    The tool's result; failures while running set ``isError``.",
    ]
    if output_model_name is not None:
        lines += [
            f"    ``structured`` is its structured content as a ``{output_model_name}``",
            "    (None when the server sent none, or content that does not match).",
        ]
    return docstring("\n".join(lines))


def _format_note(schema: Any) -> str:
    """The property's ``format``, which the model does not type (it is an
    annotation: a ``date-time`` is any string), for the reader."""
    form = schema.get("format") if isinstance(schema, dict) else None
    return f" (format: ``{form}``)" if isinstance(form, str) and form else ""


def _kind_summary(annotation_text: str) -> str:
    """A one-phrase description for an undocumented parameter, from its annotation."""
    if annotation_text.startswith("Literal["):
        return "One of " + annotation_text.removeprefix("Literal[").split("]")[0] + "."
    return f"A value of type ``{annotation_text}``."
