"""What the templates need to know about one tool, computed from the planned IR."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from mcigen_runtime.templating.compiler import (
    CompiledText,
    compile_structure,
    compile_text,
    helper_module,
)
from mcigen_runtime.templating.parser import parse_native, parse_template
from mcigen_runtime.templating.syntax import PathRef, Placeholder, references

from .. import ir
from .cli_words import CliWords, cli_words
from .input_guard import input_doubt
from .mcp_views import McpServerView, McpToolView
from .pysource import Code, code, docstring, ident, literal
from .sequence_view import SequenceView, sequence_view

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


_TEMPLATE_FAILURES: frozenset[tuple[str, str]] = frozenset(
    {
        ("mcigen_runtime.results", "error_result as _error_result"),
        (
            "mcigen_runtime.templating.lookup",
            "TemplateRuntimeError as _TemplateRuntimeError",
        ),
    }
)
"""What an executor whose templates may fail at run time needs to turn the failure
into a result."""

_PATH_FAILURES = _TEMPLATE_FAILURES | {
    ("mcigen_runtime.path_policy", "PathRefused as _PathRefused")
}
"""The same for an executor that also checks a path."""


@dataclass
class CliFlagView:
    name: Code
    parts: Code
    kind: str


@dataclass
class CliView:
    statements: list[Code]
    argv: list[Code]
    flags: list[CliFlagView]
    cwd: Code | None
    timeout: Code
    operands: Code | None = None
    """The arguments a property fills whole, as ``cli_args.Operand`` tuples."""


@dataclass
class HttpView:
    """Source expressions for the arguments of the runtime's ``http_call``."""

    statements: list[Code]
    method: Code
    url: Code
    headers: Code
    params: Code
    body_type: Code
    body: Code
    auth: Code
    timeout_ms: Code
    retries: Code
    secrets: Code
    url_env: Code


@dataclass
class TextView:
    """A compiled template as the templates write it."""

    statements: list[Code]
    expression: Code
    may_fail: bool


def text_view(compiled: CompiledText) -> TextView:
    return TextView(
        [code(s) for s in compiled.statements],
        code(compiled.expression),
        compiled.may_fail,
    )


@dataclass
class ToolView:
    kind: str
    python_name: Code
    name_literal: Code
    docstring: Code
    parameters: tuple[ir.Parameter, ...] | None
    signature: Code
    gather: list[Code]
    prologue: list[Code]
    text: TextView | None = None
    needs_context: bool = False
    compiled: list[CompiledText] = field(default_factory=list)
    path: TextView | None = None
    cli: CliView | None = None
    cli_words: CliWords | None = None
    """How a cli tool whose command is literal words (MTDF) builds its command
    line (``cli`` is for templated commands)."""
    http: HttpView | None = None
    mcp: McpToolView | None = None
    sequence: SequenceView | None = None
    awaits: bool = False
    """Whether the async twin awaits ``_invoke_<name>_async`` (real async I/O)."""
    forwarded: Code = Code()
    """What the public functions pass their invoker after the input and the
    environment: their own keywords that are not tool input (``, _timeout``)."""
    policy: Code = Code()
    file_options: Code = Code()
    imports: set[tuple[str, str]] = field(default_factory=set)
    result_type: Code = code("ToolResult")
    """What the public functions return."""
    output_model: Code | None = None
    """The model that types the result's ``structured`` value (an outputSchema's)."""


def tool_view(
    planned: ir.PlannedTool,
    whitespace: str,
    mcp_servers: Mapping[str, McpServerView] | None = None,
    tools: Mapping[str, ir.PlannedTool] | None = None,
) -> ToolView:
    """``mcp_servers``: the server functions of the package, by server name;
    ``tools``: the package's tools by name (what a sequence's steps run)."""
    tool = planned.tool
    parameters = planned.parameters
    view = ToolView(
        kind=ir.execution_kind(tool.execution),
        python_name=ident(planned.python_name),
        name_literal=literal(tool.name),
        docstring=_docstring(tool, parameters, planned.output_model_name),
        parameters=parameters,
        signature=parameter_list(parameters),
        gather=_gather(parameters or ()),
        prologue=[],
    )
    validation = _validation(planned)
    if validation:
        view.imports.add(
            ("mcigen_runtime.validation", "validate_input as _validate_input")
        )
    if any("Literal[" in p.annotation for p in parameters or ()):
        view.imports.add(("typing", "Literal"))
    if isinstance(tool.execution, ir.TextExecution):
        text = compile_text(
            tool.execution.text.template, _present(tool), limit=_TEXT_OUTPUT_LIMIT
        )
        if "OutputBudget" in text.helpers:
            view.imports.add(("mcigen_runtime.limits", "active as _active"))
        view.text = text_view(text)
        view.compiled.append(text)
        view.imports.add(("mcigen_runtime.results", "text_result as _text_result"))
        if text.may_fail:  # a runtime lookup may fail: the call returns an error
            view.imports.update(_TEMPLATE_FAILURES)
        _add_helpers(view, text.helpers)
    elif isinstance(tool.execution, ir.FileExecution):
        _file_view(view, planned, tool.execution, whitespace)
    elif isinstance(tool.execution, ir.CliExecution):
        _cli_view(view, planned, tool.execution)
    elif isinstance(tool.execution, ir.HttpExecution):
        _http_view(view, planned, tool.execution)
    elif isinstance(tool.execution, ir.McpExecution):
        _mcp_view(view, planned, mcp_servers or {})
    elif isinstance(tool.execution, ir.SequenceExecution):
        view.sequence = sequence_view(
            planned, tool.execution, tools or {}, view.imports
        )
        view.awaits = True
    if planned.output_model_name is not None:
        _structured_view(view, planned.output_model_name)
    view.needs_context = view.needs_context or any(
        c.needs_context for c in view.compiled
    )
    needs_props = (
        view.needs_context
        or view.mcp is not None
        or any(c.reads_props for c in view.compiled)
    )
    view.prologue = [code(s) for s in validation + _props(planned.tool, needs_props)]
    return view


def _cli_view(
    view: ToolView, planned: ir.PlannedTool, execution: ir.CliExecution
) -> None:
    view.awaits = True
    view.imports.update(
        {
            ("mcigen_runtime.executors.cli.run", "CliCall as _CliCall"),
            ("mcigen_runtime.executors.cli.run", "run_cli as _run_cli"),
            ("mcigen_runtime.executors.cli.run", "run_cli_async as _run_cli_async"),
        }
    )
    if not execution.templated:
        view.cli_words = cli_words(planned.tool.name, execution)
        view.imports.update(view.cli_words.imports)
        view.imports.update(
            {
                ("mcigen_runtime.path_policy", "PathRefused as _PathRefused"),
                ("mcigen_runtime.results", "error_result as _error_result"),
            }
        )
        return
    present = _present(planned.tool)
    statements: list[Code] = []

    def compiled(text: str, prefix: str) -> Code:
        made = compile_text(parse_template(text), present, prefix)
        view.compiled.append(made)
        statements.extend(code(s) for s in made.statements)
        _add_helpers(view, made.helpers)
        return code(made.expression)

    argv = [compiled(execution.command, "command")]
    argv += [compiled(arg, f"arg_{i}") for i, arg in enumerate(execution.args)]
    cwd = compiled(execution.cwd, "cwd") if execution.cwd else None
    flags = [
        CliFlagView(
            literal(flag.name), literal(tuple(flag.source.split("."))), flag.kind
        )
        for flag in execution.flags
    ]
    view.policy = _policy_arguments(planned)
    timeout = execution.timeout_ms / 1000 if execution.timeout_ms > 0 else 30.0
    operands = _operands(planned.tool, execution)
    view.cli = CliView(
        statements,
        argv,
        flags,
        cwd,
        literal(timeout),
        literal(operands) if operands else None,
    )
    view.needs_context = bool(flags)
    view.imports.update(_PATH_FAILURES)
    if flags:
        view.imports.add(
            ("mcigen_runtime.templating.lookup", "value_or_none as _value_or_none")
        )
    if cwd:
        view.imports.add(
            ("mcigen_runtime.path_policy", "checked_path as _checked_path")
        )


def _operands(
    tool: ir.Tool, execution: ir.CliExecution
) -> tuple[tuple[int, str, bool], ...]:
    """The arguments before any ``--`` that one placeholder reading a property
    fills whole: (argv index, property, whether it is a number), unless the schema
    allows values that look like options there."""
    if execution.allow_option_like_args:
        return ()
    declared = _declared(tool)
    operands = []
    for index, arg in enumerate(execution.args, start=1):
        if arg == "--":
            break
        nodes = parse_template(arg).nodes
        if len(nodes) != 1 or not isinstance(nodes[0], Placeholder):
            continue
        paths = [a for a in nodes[0].alternatives if isinstance(a, PathRef)]
        read = next((p for p in paths if p.root in ("props", "input")), None)
        if read is None:
            continue
        name = read.parts[1] if len(read.parts) > 1 else read.root
        schema = declared.get(name) if len(read.parts) == 2 else None
        kind = schema.get("type") if isinstance(schema, dict) else None
        kinds = kind if isinstance(kind, list) else [kind]
        numeric = all(k in ("integer", "number") for k in kinds)
        operands.append((index, name, numeric))
    return tuple(operands)


def _http_view(
    view: ToolView, planned: ir.PlannedTool, execution: ir.HttpExecution
) -> None:
    present = _present(planned.tool)
    statements: list[Code] = []
    env_paths: list[tuple[str, ...]] = []

    def compiled(value: object, prefix: str, secret_env: bool = False) -> Code:
        """``secret_env``: the env values it reads are secrets (DESIGN: those used in
        auth, headers or query strings), kept out of every message."""
        made = compile_structure(value, present, prefix)
        view.compiled.append(made)
        statements.extend(code(s) for s in made.statements)
        _add_helpers(view, made.helpers)
        if secret_env:
            env_paths.extend(env_paths_of(value))
        return code(made.expression)

    url = compiled(execution.url.raw, "url")
    headers = compiled(execution.headers, "header", secret_env=True)
    params = compiled(execution.params, "param", secret_env=True)
    body = compiled(execution.body_content, "body") if execution.body_type else NONE
    auth = NONE
    if execution.auth is not None:
        fields = {"type": execution.auth.kind, **execution.auth.fields}
        auth = compiled(fields, "auth", secret_env=True)
    retries = NONE
    if execution.retry_attempts is not None:
        retries = literal((execution.retry_attempts, execution.retry_backoff_ms or 0))
    url_env_paths = env_paths_of(execution.url.raw)
    if env_paths or url_env_paths:
        view.imports.add(
            ("mcigen_runtime.templating.lookup", "value_or_none as _value_or_none")
        )
    view.http = HttpView(
        statements,
        literal(execution.method),
        url,
        headers,
        params,
        literal(execution.body_type),
        body,
        auth,
        literal(execution.timeout_ms),
        retries,
        _env_values(env_paths),
        _env_values(url_env_paths),
    )
    view.needs_context = True
    view.awaits = True
    view.imports.update(_TEMPLATE_FAILURES)
    view.imports.update(
        {
            ("mcigen_runtime.executors.http", "HttpCall as _HttpCall"),
            ("mcigen_runtime.executors.http", "http_call as _http_call"),
            ("mcigen_runtime.executors.http", "send as _send"),
            ("mcigen_runtime.executors.http", "send_async as _send_async"),
        }
    )


_REPEATABLE = ("readOnlyHint", "idempotentHint")
_TIMEOUT_KEYWORD = "_timeout: float | None = None"
_TIMEOUT_DOC = (
    "_timeout",
    "Seconds to wait for the answer, instead of the server's "
    "``config.timeout_ms`` (else 60 s).",
)


def _mcp_view(
    view: ToolView, planned: ir.PlannedTool, servers: Mapping[str, McpServerView]
) -> None:
    tool = planned.tool
    assert isinstance(tool.execution, ir.McpExecution)
    execution = tool.execution
    server = servers[execution.server_name]
    # A tool that says it may run twice is called again after a lost connection.
    repeatable = any(tool.annotations.get(hint) is True for hint in _REPEATABLE)
    keywords = "limits=_LIMITS, repeatable=True" if repeatable else "limits=_LIMITS"
    timeout, timeout_doc = code("timeout"), _TIMEOUT_DOC
    if execution.timeout_ms is not None:
        seconds = literal(execution.timeout_ms / 1000)
        timeout = code(f"{seconds} if timeout is None else timeout")
        timeout_doc = ("_timeout", f"Seconds to wait for the answer (else {seconds}).")
    view.mcp = McpToolView(
        server, literal(execution.tool_name), timeout, code(keywords)
    )
    view.awaits = True
    if view.parameters is None:
        view.signature = code(f"*, {_TIMEOUT_KEYWORD}, {view.signature}")
    else:
        view.signature = code(f"{view.signature}, {_TIMEOUT_KEYWORD}")
    view.docstring = _docstring(
        tool, view.parameters, planned.output_model_name, timeout_doc
    )
    view.forwarded = code(", _timeout")
    view.imports.update(
        {
            (
                "mcigen_runtime.executors.mcp.calls",
                "McpServerParams as _McpServerParams",
            ),
            ("mcigen_runtime.executors.mcp.calls", "call_mcp_tool as _call_mcp_tool"),
            (
                "mcigen_runtime.executors.mcp.calls",
                "call_mcp_tool_async as _call_mcp_tool_async",
            ),
        }
    )
    _add_helpers(view, server.helpers)
    if server.can_fail:
        view.imports.update(_TEMPLATE_FAILURES)


def _structured_view(view: ToolView, output_model_name: str) -> None:
    """The public functions return a ``StructuredResult`` typed by the model."""
    view.output_model = ident(output_model_name)
    view.result_type = code(f"StructuredResult[{view.output_model}]")
    view.imports.update(
        {
            ("mcigen_runtime.structured", "StructuredResult"),
            ("mcigen_runtime.structured", "structured_result as _structured_result"),
        }
    )


def _env_values(paths: list[tuple[str, ...]]) -> Code:
    """A list expression of the env values at ``paths`` (None where unset), once each."""
    unique = dict.fromkeys(paths)
    return code(
        "[" + ", ".join(f"_value_or_none(context, {literal(p)})" for p in unique) + "]"
    )


def env_paths_of(value: object) -> list[tuple[str, ...]]:
    """The env paths the strings in a JSON value read."""
    if isinstance(value, dict):
        return [p for v in value.values() for p in env_paths_of(v)]
    if isinstance(value, list):
        return [p for v in value for p in env_paths_of(v)]
    if not isinstance(value, str):
        return []
    native = parse_native(value)
    nodes = (native,) if native is not None else parse_template(value).nodes
    return [r.path.parts for r in references(nodes) if r.path.root == "env"]


def _file_view(
    view: ToolView,
    planned: ir.PlannedTool,
    execution: ir.FileExecution,
    whitespace: str,
) -> None:
    path = compile_text(execution.path.template, _present(planned.tool))
    view.path = text_view(path)
    view.compiled.append(path)
    view.needs_context = True  # the file's own template sees the context
    view.policy = _policy_arguments(planned)
    view.file_options = code(
        f"{literal(execution.enable_templating)}, {literal(whitespace)}"
    )
    view.awaits = True  # the async twin reads the file in a worker thread
    view.imports.add(
        ("mcigen_runtime.templating.files", "file_call_async as _file_call_async")
    )
    _add_helpers(view, path.helpers)
    view.imports.update(_PATH_FAILURES)
    view.imports.update(
        {
            ("mcigen_runtime.results", "text_result as _text_result"),
            ("mcigen_runtime.path_policy", "checked_path as _checked_path"),
            ("mcigen_runtime.templating.files", "file_contents as _file_contents"),
        }
    )


def _policy_arguments(planned: ir.PlannedTool) -> Code:
    """The policy arguments of ``checked_path`` for this tool, as source."""
    policy = planned.path_policy
    return code(
        f"{literal(policy.enable_any_paths)}, {literal(policy.directory_allow_list)}"
    )


_TEXT_OUTPUT_LIMIT = "_active(_LIMITS).text_output"
"""What a text tool's loops may render: the package's limit, or the caller's."""


def _add_helpers(view: ToolView, helpers: Iterable[str]) -> None:
    """Import the runtime helpers that compiled template code calls."""
    for helper in helpers:
        view.imports.add((helper_module(helper).__name__, f"{helper} as _{helper}"))


def group_imports(views: list[ToolView]) -> frozenset[tuple[str, str]]:
    return _ALWAYS.union(*(view.imports for view in views))


def _declared(tool: ir.Tool) -> dict[str, Any]:
    properties = (tool.input_schema or {}).get("properties")
    return properties if isinstance(properties, dict) else {}


def _present(tool: ir.Tool) -> frozenset[str]:
    """Properties that are always in ``props`` once the input has been validated."""
    required = set((tool.input_schema or {}).get("required") or ())
    return frozenset(
        name
        for name, schema in _declared(tool).items()
        if name in required or (isinstance(schema, dict) and "default" in schema)
    )


def _validation(planned: ir.PlannedTool) -> list[str]:
    """Validate ``raw`` with the model, unless a fast check finds nothing to doubt
    (or the schema accepts any mapping); the model gives back the input the tool
    gets (whole floats typed integer made ints)."""
    tool = planned.tool
    if not tool.input_schema:
        return []
    validate = (
        f"raw = _validate_input({ident(planned.model_name)}, raw, {literal(tool.name)})"
    )
    doubt = input_doubt(tool.input_schema, planned.model_name)
    if doubt is None:
        return [validate]
    if not doubt:
        return []
    return [f"if {doubt}:\n    {validate}"]


def _props(tool: ir.Tool, needs_props: bool) -> list[str]:
    """Build ``props`` (when the executor reads it) as mci-py does: declared
    properties only, in schema order, defaults applied, optional ones absent when
    not given."""
    if not needs_props:
        return []
    declared = _declared(tool)
    if not declared:
        return ["props: dict[str, Any] = dict(raw)"]
    required = set((tool.input_schema or {}).get("required") or ())
    pairs: list[tuple[str, str | None]] = []
    for property_name, schema in declared.items():
        key = literal(property_name)
        if property_name in required:
            pairs.append((key, f"raw[{key}]"))
        elif isinstance(schema, dict) and "default" in schema:
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
    summary = (tool.description or "").strip() or f"Run the MCI tool '{tool.name}'."
    lines = [summary]
    if parameters or keywords:
        lines += ["", "Args:"]
        declared = _declared(tool)
        for p in parameters or ():
            described = (p.description or "").strip().replace("\n", "\n        ")
            described = described or _kind_summary(p.annotation)
            described += _format_note(declared.get(p.name))
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
