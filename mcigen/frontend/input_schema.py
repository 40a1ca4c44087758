"""Checks of a tool's ``inputSchema``: the parts of JSON Schema mcigen relies on.

Only what the generated signatures depend on is checked: the root describes an
object, ``properties``/``required``/``enum`` have the right shapes, and defaults
agree with simple types. Everything else in JSON Schema passes through untouched.
"""

from __future__ import annotations

from dataclasses import dataclass

from .checks import AnyJson, ArrayOf, MapOf, ObjectCheck, Str
from .context import At, Context, is_json_kind, show, type_name

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
        if "enum" in value:
            AnyJson(kinds=("array",)).check(ctx, at.field("enum"), value["enum"])
        if "default" in value:
            _check_default(ctx, at, value)
        if "properties" in value:
            MapOf(PropertySchema()).check(
                ctx, at.field("properties"), value["properties"]
            )
        if "required" in value:
            _check_required(ctx, at, value)
        if isinstance(value.get("items"), dict):
            self.check(ctx, at.field("items"), value["items"])


@dataclass(frozen=True)
class InputSchema(ObjectCheck):
    """A tool's ``inputSchema``: plain JSON whose root describes an object."""

    def check(self, ctx: Context, at: At, value: object) -> None:
        AnyJson(kinds=("object",)).check(ctx, at, value)
        if not isinstance(value, dict):
            return
        if "type" in value and value["type"] != "object":
            ctx.error(
                at.field("type"),
                f"'type' of '{at.label}' must be 'object', got {show(value['type'])}",
            )
        PropertySchema().check(ctx, at, value)


def _check_default(ctx: Context, at: At, schema: dict[str, object]) -> None:
    declared, default = schema.get("type"), schema["default"]
    if not isinstance(declared, str) or declared not in _SIMPLE_TYPES:
        return
    if not is_json_kind(default, declared):
        ctx.warning(
            at.field("default"),
            f"'default' {show(default)} does not match type '{declared}'"
            f" (got {type_name(default)})",
        )


def _check_required(ctx: Context, at: At, schema: dict[str, object]) -> None:
    required = schema["required"]
    ArrayOf(Str()).check(ctx, at.field("required"), required)
    if not isinstance(required, list):
        return
    properties = schema.get("properties")
    defined = properties if isinstance(properties, dict) else {}
    for index, name in enumerate(required):
        if isinstance(name, str) and name not in defined:
            ctx.warning(
                at.field("required").item(index),
                f"required property '{name}' is not defined in 'properties'",
            )
