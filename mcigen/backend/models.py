"""Pydantic models for every tool, from one datamodel-code-generator call per build:
an input model per inputSchema, and an output model per MCP tool's outputSchema.

All these schemas go into one JSON Schema document (one ``$defs`` entry per schema,
named after its model), are generated together, and the output module is then
split at its classes so that each group module carries exactly the classes its tools
reach, with only the imports those classes use. The split is kept in the build
cache under the document and the groups, so a rebuild whose input schemas did not
change generates nothing.
"""

from __future__ import annotations

import ast
import copy
import json
import unicodedata
import warnings
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcigen_runtime import integers

from .. import build_cache, ir
from ..diagnostics import quoted
from ..frontend.mci.schema_refs import definition_name, unresolved_ref
from ..planner.names import class_name, identifier
from ..unique_names import unique
from . import enum_data


@dataclass(frozen=True)
class GroupModels:
    """The models module of one group (``tools/models/<group>.py``): the (module,
    name) imports it needs, its source, and the classes it defines, which the group
    module offers by name, importing the models module only when one is asked for."""

    imports: frozenset[tuple[str, str]]
    body: str
    names: tuple[str, ...]


@dataclass(frozen=True)
class ModelRoot:
    """One schema of a tool that gets a model: its inputSchema or its outputSchema."""

    tool: ir.PlannedTool
    name: str
    """The model's class name."""
    kind: str
    """Which schema of the tool it is: "input" or "output"."""
    schema: dict[str, Any]

    @property
    def key(self) -> str:
        """The schema's field in MCI: ``inputSchema`` or ``outputSchema``."""
        return f"{self.kind}Schema"


class ModelGenerationError(Exception):
    """A schema that no model can be generated from; ``root`` says whose it is."""

    def __init__(self, message: str, root: ModelRoot | None = None) -> None:
        super().__init__(message)
        self.root = root


class ModelsRefused(Exception):
    """Schemas no model can be generated from, each failure naming its own (or
    none, when the schemas fail only together)."""

    def __init__(self, failures: list[ModelGenerationError]) -> None:
        super().__init__("; ".join(map(str, failures)))
        self.failures = failures


@dataclass(frozen=True)
class ModelBatch:
    """Every schema of a build that gets a model, as one document for the generator,
    and the model code an earlier build made from it, if the build cache has it."""

    roots: list[ModelRoot]
    document: dict[str, Any]
    key: str
    made: dict[str, GroupModels] | None
    enums: dict[str, dict[str, list[Any]]]
    """The members of every large enum by name, by group (``enum_data.py``)."""


def model_roots(tools: Iterable[ir.PlannedTool]) -> list[ModelRoot]:
    """The schemas that get models: each inputSchema, and each outputSchema."""
    roots = []
    for planned in tools:
        tool = planned.tool
        if tool.input_schema:
            roots.append(
                ModelRoot(planned, planned.model_name, "input", tool.input_schema)
            )
        if tool.output_schema and planned.output_model_name:
            roots.append(
                ModelRoot(
                    planned,
                    planned.output_model_name,
                    "output",
                    tool.output_schema,
                )
            )
    return roots


def model_batch(tools: Iterable[ir.PlannedTool]) -> ModelBatch:
    """The batch of every schema that gets a model."""
    roots = model_roots(tools)
    definitions: dict[str, Any] = {}
    enums: dict[str, dict[str, list[Any]]] = {}
    failures = []
    for root in roots:
        try:
            root_definitions, members = _definitions_of(root)
        except ModelGenerationError as error:
            failures.append(ModelGenerationError(str(error), root))
            continue
        definitions.update(root_definitions)
        if members:
            enums.setdefault(root.tool.group, {}).update(members)
    if failures:
        raise ModelsRefused(failures)
    document = {"$defs": definitions}
    groups = [(root.name, root.tool.group) for root in roots]
    key = build_cache.key_of(json.dumps(document), json.dumps(groups))
    made: dict[str, GroupModels] | None = {}  # no schema, no models to make
    if roots:
        cached = build_cache.read(_cache(), key)
        made = _loaded(cached)
    return ModelBatch(roots, document, key, made, enums)


def make_models(batch: ModelBatch) -> dict[str, GroupModels]:
    """Model code per group: from the cache, or generated (and cached)."""
    if batch.made is not None:
        return batch.made
    try:
        source = _run_codegen(batch.document)
    except ModelGenerationError as error:
        culprits = _culprits(batch.roots, error)
        raise ModelsRefused(culprits or [error]) from None
    try:
        split = _split_by_group(source, batch.roots, batch.enums)
    except ModelGenerationError as error:
        raise ModelsRefused([error]) from None
    build_cache.write(_cache(), batch.key, _dumped(split))
    return split


def _cache() -> Path | None:
    return build_cache.tool_cache_dir("datamodel-code-generator")


def _dumped(split: dict[str, GroupModels]) -> str:
    return json.dumps(
        {
            group: {
                "imports": sorted(models.imports),
                "body": models.body,
                "names": list(models.names),
            }
            for group, models in split.items()
        }
    )


def _loaded(text: str | None) -> dict[str, GroupModels] | None:
    """The models a cache entry holds; None when there is none, or it is damaged
    (they are made again and the entry rewritten)."""
    if text is None:
        return None
    try:
        return {
            group: GroupModels(
                frozenset((module, name) for module, name in entry["imports"]),
                entry["body"],
                tuple(entry["names"]),
            )
            for group, entry in json.loads(text).items()
        }
    except (ValueError, TypeError, KeyError, AttributeError):
        return None


def _culprits(
    roots: list[ModelRoot], error: ModelGenerationError
) -> list[ModelGenerationError]:
    """Every schema of ``roots`` (which failed together with ``error``) that fails
    on its own, found by halving: a few runs of the generator for a few culprits
    among many schemas. None when they fail only together."""
    if len(roots) == 1:
        return [ModelGenerationError(str(error), roots[0])]
    found = []
    middle = len(roots) // 2
    for half in (roots[:middle], roots[middle:]):
        definitions = {}
        for root in half:
            definitions.update(_definitions_of(root)[0])
        try:
            _run_codegen({"$defs": definitions})
        except ModelGenerationError as failure:
            found += _culprits(half, failure)
    return found


def _definitions_of(
    root: ModelRoot,
) -> tuple[dict[str, Any], dict[str, list[Any]]]:
    """The schema under its model name, its own $defs hoisted beside it and its
    large enums replaced by their names; and the members of those enums."""
    prefix = root.name
    without_enums, members = enum_data.without_large_enums(root.schema, prefix)
    schema = copy.deepcopy(without_enums or {})
    schema.setdefault("type", "object")
    local_defs: dict[str, Any] = {}
    for key in ("$defs", "definitions"):
        local_defs.update(schema.pop(key, None) or {})
    taken: set[str] = set()
    renamed = {
        name: unique(f"{prefix}{class_name(name)}", taken, separator="")
        for name in local_defs
    }
    result = {prefix: _rewrite_refs(schema, renamed)}
    for name, definition in local_defs.items():
        result[renamed[name]] = _rewrite_refs(definition, renamed)
    return result, members


def _rewrite_refs(node: Any, renamed: dict[str, str]) -> Any:
    if isinstance(node, dict):
        out = {k: _rewrite_refs(v, renamed) for k, v in node.items()}
        ref = node.get("$ref")
        if isinstance(ref, str):
            out["$ref"] = _rewritten_ref(ref, renamed)
        return out
    if isinstance(node, list):
        return [_rewrite_refs(v, renamed) for v in node]
    return node


def _rewritten_ref(ref: str, renamed: dict[str, str]) -> str:
    name = definition_name(ref)
    if name is None or name not in renamed:
        raise ModelGenerationError(unresolved_ref(ref))
    return f"#/$defs/{renamed[name]}"


def _stable_field_names(document: dict[str, Any]) -> dict[str, str]:
    """A field name for each property whose name Python would change as it reads
    it (NFKC: a field spelt 'ﬁle' is the field 'file', which input keyed 'ﬁle'
    never fills), unlike any property's name; the generator writes the property's
    own name as the field's alias."""
    names = set(_property_names(document))
    return {
        name: unique(identifier(name, ascii_only=True), names)
        for name in sorted(names)
        if unicodedata.normalize("NFKC", name) != name
    }


def _property_names(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        properties = node.get("properties")
        if isinstance(properties, dict):
            yield from properties
        for value in node.values():
            yield from _property_names(value)
    elif isinstance(node, list):
        for item in node:
            yield from _property_names(item)


def _formats_as_annotations() -> list[str]:
    """Type mappings that keep every format of the generator's table to its JSON type
    (``string+date-time=string``): JSON Schema's ``format`` is an annotation, so a
    ``date-time`` is any string, given to the tool as it came; never a ``datetime``,
    an ``EmailStr``, a ``UUID`` or a ``Decimal``. Formats it does not know already
    keep their type."""
    from datamodel_code_generator.parser.schema_version import get_data_formats

    return [
        f"{kind}+{form}={kind}"
        for kind, forms in get_data_formats(is_openapi=True).items()
        for form in forms
        if form != "default"
    ]


def _run_codegen(document: dict[str, Any]) -> str:
    from datamodel_code_generator import (
        InputFileType,
        LiteralType,
        PythonVersion,
        generate,
    )
    from datamodel_code_generator.enums import DataModelType, StrictTypes

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            output = generate(
                json.dumps(document, sort_keys=False),
                input_file_type=InputFileType.JsonSchema,
                output_model_type=DataModelType.PydanticV2BaseModel,
                target_python_version=PythonVersion.PY_311,
                disable_timestamp=True,
                formatters=[],
                field_constraints=True,
                enum_field_as_literal=LiteralType.All,
                parent_scoped_naming=True,
                use_double_quotes=True,
                strict_types=[
                    StrictTypes.str,
                    StrictTypes.int,
                    StrictTypes.float,
                    StrictTypes.bool,
                ],
                # JSON Schema's integer, which takes 3.0 as 3; pydantic's refuses it
                import_overrides={"StrictInt": integers.__name__},
                type_mappings=_formats_as_annotations(),
                aliases=_stable_field_names(document),
            )
        except Exception as error:  # the generator raises many unrelated types
            raise ModelGenerationError(str(error)) from error
    if not isinstance(output, str):
        raise ModelGenerationError("datamodel-code-generator produced several modules")
    return output


def _split_by_group(
    source: str,
    roots: list[ModelRoot],
    enums: dict[str, dict[str, list[Any]]],
) -> dict[str, GroupModels]:
    lines = source.splitlines(keepends=True)
    imported: dict[str, tuple[str, str]] = {}
    classes: dict[str, str] = {}
    uses: dict[str, set[str]] = {}
    trailing: list[tuple[str, set[str]]] = []
    statements = ast.parse(source).body
    starts = [0, *(s.end_lineno or s.lineno for s in statements[:-1])]
    for statement, start in zip(statements, starts, strict=True):
        code = "".join(lines[start : statement.end_lineno])
        if isinstance(statement, ast.ClassDef):
            classes[statement.name] = code
            uses[statement.name] = _names_in(statement)
        elif isinstance(statement, ast.ImportFrom):
            if statement.module not in ("__future__", enum_data.FIELD_TYPE_MODULE):
                for alias in statement.names:
                    spelled = (
                        f"{alias.name} as {alias.asname}"
                        if alias.asname
                        else alias.name
                    )
                    imported[alias.asname or alias.name] = (
                        statement.module or "",
                        spelled,
                    )
        elif not isinstance(statement, ast.Import):
            trailing.append((code, _names_in(statement)))
    groups: dict[str, list[str]] = {}
    for root in roots:
        if root.name not in classes:
            raise ModelGenerationError(
                f"the generator did not make the class {quoted(root.name)}", root
            )
        groups.setdefault(root.tool.group, []).append(root.name)
    result = {}
    for group, root_names in groups.items():
        reached = _reachable(root_names, uses)
        ordered = [name for name in classes if name in reached]
        used_names = set().union(*(uses[name] for name in ordered))
        body = "\n\n".join(classes[name] for name in ordered)
        for code, names in trailing:
            if names & reached:
                body += "\n" + code
        imports = _import_lines(imported, used_names)
        if group in enums:
            enum_imports, definitions = enum_data.field_types(group, enums[group])
            imports |= enum_imports
            body = definitions + "\n\n" + body
        result[group] = GroupModels(imports, body, tuple(ordered))
    return result


def _names_in(node: ast.AST) -> set[str]:
    """Every name the code spells: variables, attributes, keywords, definitions."""
    names: set[str] = set()
    for child in ast.walk(node):
        if isinstance(child, ast.Name):
            names.add(child.id)
        elif isinstance(child, ast.Attribute):
            names.add(child.attr)
        elif isinstance(child, ast.keyword | ast.arg) and child.arg:
            names.add(child.arg)
        elif isinstance(child, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(child.name)
    return names


def _reachable(roots: list[str], uses: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    stack = [r for r in roots if r in uses]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        stack.extend(n for n in uses[name] if n in uses and n not in seen)
    return seen


def _import_lines(
    imported: dict[str, tuple[str, str]], used: set[str]
) -> frozenset[tuple[str, str]]:
    """The (module, name or ``name as alias``) imports of the names ``used`` binds."""
    return frozenset(spelled for bound, spelled in imported.items() if bound in used)
