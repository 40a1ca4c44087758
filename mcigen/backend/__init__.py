"""The backend: a planned package in, the bytes of every generated file out.

One jinja2 template per file kind (and one per executor kind) under the top-level
``templates/``; input models from datamodel-code-generator in one batch; black on
every emitted Python file. No timestamps and no absolute paths, so identical input
gives identical bytes.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import mcigen_runtime
from mcigen_runtime.limits import DEFAULT
from mcigen_runtime.manifest import (
    MANIFEST,
    Manifest,
    RuntimeSettings,
    ToolEntry,
    manifest_json,
)

from .. import ir
from ..diagnostics import Diagnostics, quoted
from ..marker import MARKER, marker_content
from . import enum_data, workers
from .build_entry import build_entry
from .distribution import runtime_extras, runtime_requirement
from .executors.mcp_servers import server_functions, server_view
from .file_env import file_env_names
from .formatting import format_modules, formatted_ahead
from .imports import import_block, name_order
from .input_guard import item_set_bindings
from .jinja import render
from .models import (
    GroupModels,
    ModelBatch,
    ModelsRefused,
    make_models,
    model_batch,
    model_roots,
)
from .pysource import Code, code, docstring, ident, literal
from .runtime_link import linked_imports, runtime_package, vendored_runtime
from .server_entries import server_entries
from .tool_env import tool_env
from .tools import ToolView, group_imports, models_module, tool_view

_DEFAULT_LIMITS = dataclasses.asdict(DEFAULT)
OPERATIONS_MODULE = "operations"
"""The submodule a package with background tools has: ``pkg.operations.start``."""


def emit(
    package: ir.Package, options: ir.BuildOptions
) -> tuple[dict[str, bytes], Diagnostics]:
    """Every file of the package, keyed by its path relative to the package directory."""
    diagnostics = Diagnostics()
    try:
        batch = model_batch(package.tools)
    except ModelsRefused as refused:
        return {}, _model_failures(diagnostics, refused, package)
    # A build whose models come from the cache changed little: it needs no workers.
    with workers.early_workers(len(package.tools) if batch.made is None else 0):
        return _emit(package, options, batch, diagnostics)


def _emit(
    package: ir.Package,
    options: ir.BuildOptions,
    batch: ModelBatch,
    diagnostics: Diagnostics,
) -> tuple[dict[str, bytes], Diagnostics]:
    making = (
        None if batch.made is not None else workers.in_background(make_models, batch)
    )
    source = docstring(_input_named(package, options))
    groups: dict[str, list[ir.PlannedTool]] = {}
    for planned in package.tools:
        groups.setdefault(planned.group, []).append(planned)
    functions = server_functions(package.schema.mcp_servers)
    servers = {
        server.name: server_view(server, functions[server.name])
        for server in package.schema.mcp_servers
    }
    by_name = {planned.tool.name: planned for planned in package.tools}
    views = {
        group: [
            tool_view(
                p, options.whitespace, servers, by_name, options.policy.confine_cli
            )
            for p in members
        ]
        for group, members in sorted(groups.items())
    }
    no_models = GroupModels(frozenset(), "", ())
    file_env = literal(file_env_names(package, options.policy.file_env))

    def group_module(group: str, models: GroupModels) -> str:
        label = _group_label(groups[group][0].tool)
        return _group_module(
            group,
            label,
            views[group],
            models,
            batch.enums.get(group, {}),
            source,
            options,
            file_env,
        )

    # Every module but the models and the heads of the group modules is known
    # before the models are made: formatted while a worker makes them (without
    # workers they are made first, and nothing would be gained).
    files = _model_free_files(package, options, batch, source)
    known: dict[str, str] = {}
    if making is not None and workers.pool() is not None:
        drafts = [group_module(group, no_models) for group in views]
        known = formatted_ahead(list(files.values()), drafts)
    try:
        models = make_models(batch) if making is None else making.result()
    except ModelsRefused as refused:
        return {}, _model_failures(diagnostics, refused, package)
    for group in views:
        files[f"tools/{group}.py"] = group_module(group, models.get(group, no_models))
    for group, group_models in sorted(models.items()):
        label = _group_label(groups[group][0].tool)
        files[f"tools/models/{group}.py"] = _models_module(
            label, group_models, source, options
        )
    if models:
        files["tools/models/__init__.py"] = render(
            "models_init.py.jinja", {"source": source}
        )
    # The models' modules first: their pieces are all new (the other modules'
    # were mostly formatted ahead), so the workers take them while the rest is cut.
    paths = sorted(files, key=lambda path: (not path.startswith("tools/models/"), path))
    formatted = format_modules([files[path] for path in paths], known)
    output = {path: text.encode() for path, text in zip(paths, formatted, strict=True)}
    output[MANIFEST] = _manifest(package, options)
    for group, members in batch.enums.items():
        output[f"tools/{group}.enums.json"] = enum_data.data_file(members)
    output["py.typed"] = b""
    output[MARKER] = marker_content(options.name)
    if options.vendor_runtime:
        output.update(vendored_runtime(output))
    return dict(sorted(output.items())), diagnostics


def _model_free_files(
    package: ir.Package, options: ir.BuildOptions, batch: ModelBatch, source: Code
) -> dict[str, str]:
    """The modules that do not depend on the models' code: the package's
    ``__init__``, ``models``, ``__main__``, ``tools/__init__`` and surfaces."""
    files: dict[str, str] = {}
    exports = sorted(
        (ident(export), ident(p.group))
        for p in package.tools
        for export in (p.python_name, f"{p.python_name}_async")
    )
    model_groups = sorted(
        (ident(root.name), ident(root.tool.group)) for root in batch.roots
    )
    needed_runtime = runtime_requirement(runtime_extras(package))
    operations = any(p.tool.background != "never" for p in package.tools)
    context: dict[str, Any] = {
        "source": source,
        "package": ident(options.name),
        "package_literal": literal(options.name),
        "package_doc": _package_doc(package.schema),
        "export_names": sorted(
            [
                *(n for n, _ in exports),
                *([ident(OPERATIONS_MODULE)] if operations else []),
            ]
        ),
        "exports_by_group": _by_group(exports),
        "model_groups": model_groups,
        "models_by_group": _by_group(model_groups),
        "runtime": code(runtime_package(options.vendor_runtime)),
        "runtime_version": (
            None if options.vendor_runtime else literal(mcigen_runtime.__version__)
        ),
        "runtime_missing": literal(
            f"{options.name} needs {needed_runtime}: pip install '{needed_runtime}'"
        ),
        "operations": operations,
    }
    files["__init__.py"] = render("init.py.jinja", context)
    files["models.py"] = render("models.py.jinja", context)
    files["__main__.py"] = render("main.py.jinja", context)
    files["tools/__init__.py"] = render("tools_init.py.jinja", context)
    for surface in ("client", "meta", "server"):
        files[f"{surface}.py"] = render(f"{surface}.py.jinja", context)
    if context["operations"]:
        files["operations.py"] = render("operations.py.jinja", context)
    return files


def _model_failures(
    diagnostics: Diagnostics, refused: ModelsRefused, package: ir.Package
) -> Diagnostics:
    for failure in refused.failures:
        root = failure.root or model_roots(package.tools)[0]
        culprit = root.tool.tool
        diagnostics.error(
            culprit.location,
            f"tool {quoted(culprit.name)}: no {root.kind} model can be generated from its "
            f"{root.key}: {failure}",
        )
    return diagnostics


def _group_label(tool: ir.Tool) -> str:
    if tool.origin == "mcp":
        return f"MCP server '{tool.toolset}'"
    if tool.origin == "toolset":
        return f"toolset '{tool.toolset}'"
    return "the schema's own tools"


def _group_module(
    group: str,
    label: str,
    views: list[ToolView],
    models: GroupModels,
    enums: dict[str, list[Any]],
    source: Code,
    options: ir.BuildOptions,
    file_env: Code,
) -> str:
    """``enums``: the members of the group's large enums, by name (``enum_data``);
    ``file_env``: the names of the environment variables file templates see."""
    imports = set(group_imports(views))
    enum_bindings = None
    if enums:
        enum_imports, bindings = enum_data.bindings(enums)
        imports |= enum_imports
        enum_bindings = code(bindings)
    item_sets = frozenset().union(*(view.item_sets for view in views))
    model_names = [ident(name) for name in sorted(models.names, key=name_order)]
    if model_names:
        imports.add(("typing", "TYPE_CHECKING"))
    uses_paths = any(view.executor.base_dir for view in views)
    if uses_paths:
        imports |= {
            ("mcigen_runtime.path_policy", "schema_directory as _schema_directory")
        }
    reads_files = any(view.executor.reads_files for view in views)
    limits = None
    if any(view.executor.limited for view in views):
        imports |= {("mcigen_runtime.limits", "Limits as _Limits")}
        limits = code(
            "_Limits("
            + ", ".join(f"{name}={size}" for name, size in options.policy.limits)
            + ")"
        )
    servers = {
        view.executor.server.function: view.executor.server
        for view in views
        if view.executor.server is not None
    }
    return render(
        "group.py.jinja",
        {
            "group_doc": docstring(f"Tools: {label}."),
            "source": source,
            "imports": code(
                import_block(linked_imports(imports, options.vendor_runtime, ".."))
            ),
            "group": ident(group),
            "models_module": models_module(group),
            "model_names": model_names,
            "export_names": _exports(views, model_names, bool(servers)),
            "enum_bindings": enum_bindings,
            "item_sets": code(item_set_bindings(item_sets)) if item_sets else None,
            "tools": views,
            "servers": [servers[function] for function in sorted(servers)],
            "schema_dir": literal(options.schema_dir) if uses_paths else None,
            "file_env": file_env if reads_files else None,
            "limits": limits,
            "cli_env": literal(options.policy.cli_env),
        },
    )


def _exports(
    views: list[ToolView], model_names: list[Code], servers: bool
) -> list[Code]:
    """The public names of a group module (``__all__``): its functions, its
    models (imported on first use), and its tables."""
    functions = [
        code(f"{view.python_name}{suffix}")
        for view in views
        for suffix in ("", "_async")
    ]
    tables = ["INVOKERS", "ASYNC_INVOKERS", *(["SERVERS"] if servers else [])]
    return sorted([*functions, *model_names, *map(code, tables)], key=name_order)


def _models_module(
    label: str, models: GroupModels, source: Code, options: ir.BuildOptions
) -> str:
    imports = {("__future__", "annotations"), *models.imports}
    return render(
        "group_models.py.jinja",
        {
            "label": docstring(label),
            "source": source,
            "imports": code(
                import_block(linked_imports(imports, options.vendor_runtime, "..."))
            ),
            "body": code(models.body),
        },
    )


_INPUT_KINDS = {
    "mci": "the MCI schema",
    "mtdf": "the MTDF tool files",
    "broker": "the pyMCPBroker config",
}


def _input_named(package: ir.Package, options: ir.BuildOptions) -> str:
    """What the package was generated from, as its modules' docstrings say."""
    kind = _INPUT_KINDS[options.source_format]
    return f"{kind} '{_schema_label(package.schema.source)}'"


def _schema_label(file_name: str) -> str:
    """The schema's name without extensions, so that the JSON and YAML spellings of
    one schema generate the same bytes."""
    for extension in (".json", ".yaml", ".yml"):
        if file_name.endswith(extension):
            return file_name[: -len(extension)].removesuffix(".mci")
    return file_name


def _by_group(pairs: list[tuple[Code, Code]]) -> list[tuple[Code, list[Code]]]:
    grouped: dict[Code, list[Code]] = {}
    for member, group in pairs:
        grouped.setdefault(group, []).append(member)
    return sorted(grouped.items())


def _package_doc(schema: ir.Schema) -> Code:
    title = schema.metadata.get("name")
    description = schema.metadata.get("description")
    title = title if isinstance(title, str) and title else "MCI tools"
    text = f"{title}: {description}" if isinstance(description, str) else title
    return docstring(text)


def _manifest(package: ir.Package, options: ir.BuildOptions) -> bytes:
    env = tool_env(package)
    tools = tuple(
        ToolEntry(
            name=p.tool.name,
            python_name=p.python_name,
            type=ir.execution_kind(p.tool.execution),
            group=p.group,
            origin=p.tool.origin,
            toolset=p.tool.toolset,
            description=p.tool.description,
            annotations=p.tool.annotations,
            tags=p.tool.tags,
            input_schema=p.tool.input_schema,
            output_schema=p.tool.output_schema,
            server=(
                p.tool.execution.server_name
                if isinstance(p.tool.execution, ir.McpExecution)
                else None
            ),
            background=p.tool.background,
            probes=p.tool.probes,
            bundle=p.tool.bundle,
            env=env[p.tool.name],
        )
        for p in package.tools
    )
    policy = options.policy
    manifest = Manifest(
        package=options.name,
        build=build_entry(options),
        source=_schema_label(package.schema.source),
        metadata=package.schema.metadata,
        runtime=RuntimeSettings(
            limits={**_DEFAULT_LIMITS, **dict(policy.limits)},
            file_env=policy.file_env,
            cli_env=policy.cli_env,
        ),
        tools=tools,
        tree=package.tree,
        servers=server_entries(package),
    )
    return manifest_json(manifest)
