"""Checks of a tool's ``inputSchema`` (and of an MCP tool's ``outputSchema``).

The schema must be plain JSON, valid against its draft's meta-schema (see
``json_schema.py``), and describe an object at the root. Once it is valid, what the
generated signatures depend on is checked too: properties are objects, defaults
agree with simple types, required properties are defined.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...diagnostics import quoted
from ..checks import AnyJson, ObjectCheck
from ..context import At, Context, is_json_kind, show, type_name
from ..pointers import child_pointer
from .default_values import default_breaks
from .json_schema import DEFAULT_DRAFT, draft_of, meta_schema_problems
from .plain_schema import plainly_valid
from .schema_refs import Path, unresolved_ref, unresolved_refs

_SIMPLE_TYPES = frozenset(
    {"string", "integer", "number", "boolean", "array", "object", "null"}
)


@dataclass(frozen=True)
class PropertySchema(ObjectCheck):
    """A JSON Schema node: ``properties`` recurse, ``items`` too when it is one schema."""

    def check(self, ctx: Context, at: At, value: object) -> None:
        if not isinstance(value, dict):
            ctx.type_error(at, self.expected, value)
            return
        if "default" in value:
            _check_default(ctx, at, value)
        properties = value.get("properties")
        if isinstance(properties, dict):
            for name, schema in properties.items():
                self.check(ctx, at.field("properties").entry(name), schema)
        if isinstance(value.get("required"), list):
            _check_required(ctx, at, value)
        if isinstance(value.get("items"), dict):
            self.check(ctx, at.field("items"), value["items"])


@dataclass(frozen=True)
class ObjectSchema(ObjectCheck):
    """A tool's ``inputSchema`` or ``outputSchema``: plain JSON whose root describes
    an object; with ``modelled``, one an input model is made of, whose every ``$ref``
    must resolve."""

    modelled: bool = False

    def check(self, ctx: Context, at: At, value: object) -> None:
        errors_before = len(ctx.diagnostics.items)
        AnyJson(kinds=("object",)).check(ctx, at, value)
        if not isinstance(value, dict) or len(ctx.diagnostics.items) > errors_before:
            return
        if not _meets_meta_schema(ctx, at, value):
            return
        if "type" in value and value["type"] != "object":
            ctx.error(
                at.field("type"),
                f"'type' of {quoted(at.label)} must be 'object', got {show(value['type'])}",
            )
        PropertySchema().check(ctx, at, value)
        if self.modelled:
            for path, ref in unresolved_refs(value):
                ctx.error(_below(at, path), unresolved_ref(ref))


def _meets_meta_schema(ctx: Context, at: At, schema: dict[str, Any]) -> bool:
    if plainly_valid(schema):
        return True
    draft = draft_of(schema)
    if draft is None:
        ctx.warning(
            at.field("$schema"),
            f"unknown JSON Schema dialect {show(schema['$schema'])}; "
            "checking it as draft 2020-12",
        )
    valid = True
    for problem in meta_schema_problems(schema, draft or DEFAULT_DRAFT):
        ctx.error(_below(at, problem.path), f"invalid JSON Schema: {problem.message}")
        valid = False
    return valid


def _below(at: At, path: Path) -> At:
    """The node at ``path`` from ``at``, reported under ``at``'s label."""
    pointer = at.pointer
    for key in path:
        pointer = child_pointer(pointer, key)
    return At(pointer, at.label)


def _check_default(ctx: Context, at: At, schema: dict[str, object]) -> None:
    declared, default = schema.get("type"), schema["default"]
    if isinstance(declared, str) and declared in _SIMPLE_TYPES:
        if not is_json_kind(default, declared):
            ctx.warning(
                at.field("default"),
                f"'default' {show(default)} does not match type {quoted(declared)}"
                f" (got {type_name(default)})",
            )
            return
    for keyword in default_breaks(schema, default):
        ctx.warning(
            at.field("default"),
            f"'default' {show(default)} breaks its own {quoted(keyword)} "
            f"({show(schema[keyword])}): the function called without it raises "
            "ToolInputError",
        )


def _check_required(ctx: Context, at: At, schema: dict[str, object]) -> None:
    required = schema["required"]
    assert isinstance(required, list)
    properties = schema.get("properties")
    defined = properties if isinstance(properties, dict) else {}
    for index, name in enumerate(required):
        if name not in defined:
            ctx.warning(
                at.field("required").item(index),
                f"required property {quoted(name)} is not defined in 'properties'",
            )
