"""The contract between generated code and the runtime: generated code imports only
the runtime's faces, and only the names pinned here, whose call shapes (parameter
names, kinds and which have defaults) are pinned too. Changing one is a runtime
minor version before 1.0 (DESIGN, "Runtime layout")."""

from __future__ import annotations

import ast
import importlib
import inspect
from pathlib import Path

import pytest

from .conftest import ROOT

FACES: dict[str, dict[str, str]] = {
    "mcigen_runtime": {"require_runtime": "(version, package)"},
    "mcigen_runtime.results": {
        "ToolResult": "(*, content, isError=, metadata=)",
        "error_result": "(message, metadata=)",
        "text_result": "(text, metadata=)",
    },
    "mcigen_runtime.errors": {"ToolInputError": "(tool, problems)"},
    "mcigen_runtime.validation": {"validate_input": "(model, raw, tool)"},
    "mcigen_runtime.integers": {"StrictInt": "(*args, **kwargs)"},
    "mcigen_runtime.limits": {
        "Limits": "(text_output=, cli_output=, file_size=, http_body=, mcp_result=)",
        "active": "(package)",
        "limited": "(**sizes)",
    },
    "mcigen_runtime.path_policy": {
        "PathRefused": "class",
        "checked_path": "(path, base_dir, enable_any_paths, allow_list)",
        "schema_directory": "(module_file, way)",
        "writable_directories": "(base_dir, allow_list)",
    },
    "mcigen_runtime.structured": {
        "StructuredResult": "(*, content, isError=, metadata=, structured=)",
        "structured_result": "(model, result)",
    },
    "mcigen_runtime.enum_members": {"EnumMembers": "(module_file, name)"},
    "mcigen_runtime.registry": {"registry": "(package)"},
    "mcigen_runtime.client": {
        "BaseClient": "(env_vars=, base_dir=, limits=, pass_env=)",
        "ExecutionResult": "(*, result, jsonrpc=, id=)",
        "MCIClientError": "class",
        "Tool": (
            "(*, name, disabled=, annotations=, description=, inputSchema=, "
            "execution, tags=, toolset_source=)"
        ),
    },
    "mcigen_runtime.templating": {
        "NOTHING": "value",
        "UNBOUND": "value",
        "Entry": "(key, value)",
        "TemplateRuntimeError": "class",
        "Value": "class",
        "compare": "(left, operator, right)",
        "counted": "(pieces, chars, recount, limit)",
        "first": "(context, source, alternatives)",
        "foreach_items": "(context, parts)",
        "items_of": "(value)",
        "loops_too_long": "(limit)",
        "member": "(value, key)",
        "native": "(context, raw, alternatives)",
        "operand": "(context, parts)",
        "output_too_long": "(limit)",
        "range_bound": "(context, parts)",
        "restore": "(context, name, saved)",
        "strip_pieces": "(pieces)",
        "truthy": "(context, parts)",
        "value_or_none": "(context, parts)",
    },
    "mcigen_runtime.executors.http": {
        "ApiKeyAuth": "(location, name, value)",
        "BasicAuth": "(username, password)",
        "BearerAuth": "(token)",
        "HttpCall": (
            "(method, url, headers, params, content, timeout_s, attempts, "
            "backoff_ms, retries, body_limit, oauth2=, secrets=)"
        ),
        "OAuth2Auth": "(flow, token_url, client_id, client_secret, scopes=)",
        "Retry": "(attempts, backoff_ms=)",
        "http_call": (
            "(*, method, url, headers, params, body_type=, body=, auth=, timeout_ms, "
            "retry=, secrets=, url_env=, limits)"
        ),
        "send": "(call)",
        "send_async": "(call)",
    },
    "mcigen_runtime.executors.cli": {
        "CliCall": (
            "(argv, cwd, timeout_s, limits, env, env_mode, operands=, temp_files=, "
            "confined_to=, ahma_wording=, pass_env=)"
        ),
        "Operand": "(position, name, numeric)",
        "TempFiles": "()",
        "extra_args": "(raw, key, tool, allowed)",
        "plain_operands": "(raw, keys, tool)",
        "run_cli": "(call)",
        "run_cli_async": "(call)",
        "shell_script": "(argv, start, suffix, given=)",
        "timeout_s": "(raw, key, default_s, tool)",
        "word": "(value)",
        "words": "(value)",
        "working_root": "(raw, key, tool)",
    },
    "mcigen_runtime.executors.mcp": {
        "McpCall": "(server, arguments)",
        "McpServerParams": (
            "(name, command=, args=, env=, url=, headers=, call_timeout=)"
        ),
        "call_mcp_tool": (
            "(server, tool, arguments, timeout=, *, limits=, repeatable=, task_support=)"
        ),
        "call_mcp_tool_async": (
            "(server, tool, arguments, timeout=, *, limits=, repeatable=, task_support=)"
        ),
    },
    "mcigen_runtime.executors.file": {
        "file_contents": (
            "(checked, *, context, limits, env_names, templating, whitespace)"
        ),
        "file_call_async": "(call, raw, env)",
    },
    "mcigen_runtime.executors.sequence": {
        "Sequence": "(steps, delay_s, defaults)",
        "Step": (
            "(label, skip_message, invoke, invoke_async, args, skip_if_file_exists=, "
            "skip_if_file_missing=)"
        ),
        "run_sequence": "(sequence, raw, env)",
        "run_sequence_async": "(sequence, raw, env)",
    },
    # the modules the package's surfaces start from
    "mcigen_runtime.app.main": {"main": "(package, argv)"},
    "mcigen_runtime.broker.meta_tools": {
        "Broker": "(registry, *, env=, max_output_chars=, tools=)"
    },
    "mcigen_runtime.serve.server": {"app_from_environment": "(package)"},
    "mcigen_runtime.serve.operations": {
        "Operation": "(op_id, tool, caller)",
        "Operations": "(registry, env=)",
    },
}
"""Each face, the names generated code may import from it, and their call shapes."""

EXECUTOR_FACES = {m for m in FACES if m.startswith("mcigen_runtime.executors.")}


def _shape(value: object) -> str:
    """The call shape of ``value``: its parameters' names in order, ``=`` after one
    with a default, ``*``/``/`` where keyword-only ones start or positional-only ones
    end; ``class`` for a class without one; ``value`` for what is not callable."""
    if not callable(value):
        return "value"
    try:
        signature = inspect.signature(value)
    except (TypeError, ValueError):
        return "class"
    parts: list[str] = []
    star = False
    for parameter in signature.parameters.values():
        kind = parameter.kind
        if kind is parameter.KEYWORD_ONLY and not star:
            parts.append("*")
            star = True
        prefix: dict[inspect._ParameterKind, str] = {
            parameter.VAR_POSITIONAL: "*",
            parameter.VAR_KEYWORD: "**",
        }
        star = star or kind is parameter.VAR_POSITIONAL
        default = "=" if parameter.default is not parameter.empty else ""
        parts.append(f"{prefix.get(kind, '')}{parameter.name}{default}")
        if kind is parameter.POSITIONAL_ONLY:
            last_positional_only = len(parts)
    if any(p.kind is p.POSITIONAL_ONLY for p in signature.parameters.values()):
        parts.insert(last_positional_only, "/")
    return "(" + ", ".join(parts) + ")"


@pytest.mark.parametrize("face", sorted(FACES))
def test_each_face_offers_the_pinned_names_with_their_call_shapes(face: str) -> None:
    module = importlib.import_module(face)
    shapes = {name: _shape(getattr(module, name, None)) for name in FACES[face]}
    assert shapes == FACES[face]


PACKAGE_FACES = [
    "mcigen_runtime.executors.cli",
    "mcigen_runtime.executors.file",
    "mcigen_runtime.executors.http",
    "mcigen_runtime.executors.mcp",
    "mcigen_runtime.templating",
]
"""The faces that are packages: all they export is for generated code."""


@pytest.mark.parametrize("face", PACKAGE_FACES)
def test_a_face_package_exports_exactly_its_pinned_names(face: str) -> None:
    assert sorted(importlib.import_module(face).__all__) == sorted(FACES[face])


def _runtime_imports(source: str, vendored: bool) -> set[tuple[str, str]]:
    """(face, name) for each runtime name a generated module imports, and for each
    name it reads of a face it imports as a module (``_cli.CliCall``)."""
    found: set[tuple[str, str]] = set()
    faces: dict[str, str] = {}
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or node.module is None:
            continue
        module = node.module
        if vendored and node.level and module.split(".")[0] == "_runtime":
            module = "mcigen_runtime" + module[len("_runtime") :]
        elif node.level or module.split(".")[0] != "mcigen_runtime":
            continue
        for alias in node.names:
            if f"{module}.{alias.name}" in FACES:
                faces[alias.asname or alias.name] = f"{module}.{alias.name}"
            else:
                found.add((module, alias.name))
    found.update(
        (faces[node.value.id], node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id in faces
    )
    return found


def test_generated_code_imports_only_pinned_names_of_faces() -> None:
    golden = ROOT / "golden"
    imports: set[tuple[str, str]] = set()
    for path in golden.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        imports |= _runtime_imports(text, vendored="vendored" in path.parts)
    outside = {(m, n) for m, n in imports if n not in FACES.get(m, {})}
    assert not outside, f"generated code reaches past the faces: {sorted(outside)}"
    # golden has every kind of executor but sequences (tests/mtdf builds those)
    used = {m for m, _ in imports}
    assert used >= EXECUTOR_FACES - {"mcigen_runtime.executors.sequence"}


def test_compiled_templates_call_only_what_the_templating_face_offers() -> None:
    from mcigen_runtime.templating import compiler

    source = Path(compiler.__file__).read_text(encoding="utf-8")
    used = {
        node.args[0].value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "_use"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    }
    assert used and used <= set(FACES["mcigen_runtime.templating"])
